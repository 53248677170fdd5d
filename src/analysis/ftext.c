/*
 * A finding's text built piece by piece, with a job's slots and spread
 * recorded as offsets into it (ftext.h).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/ftext.h"

void tc_ftext_init(struct tc_ftext *t, struct tc_finding *f, bool slots) {
	*t = (struct tc_ftext){ .f = f, .slots = slots };
}

void tc_ftext_add(struct tc_ftext *t, const char *s) {
	tc_strbuf_add(&t->sb, s, strlen(s));
}

void tc_ftext_addf(struct tc_ftext *t, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	tc_strbuf_vaddf(&t->sb, fmt, ap);
	va_end(ap);
}

void tc_ftext_device(struct tc_ftext *t, const char *name) {
	struct tc_finding *f = t->f;
	/* Past the last slot a job names the rank at the ones before. */
	if (t->slots && f->n_slots < TC_FINDING_MAX_SLOTS) {
		f->slot[f->n_slots++] = (uint32_t)t->sb.len;
	}
	tc_ftext_add(t, name);
}

void tc_ftext_spread_begin(struct tc_ftext *t) {
	if (t->slots) {
		t->f->has_spread = true;
		t->f->spread_at = (uint32_t)t->sb.len;
	}
}

void tc_ftext_spread_end(struct tc_ftext *t) {
	if (t->slots) {
		t->f->spread_len = (uint32_t)t->sb.len - t->f->spread_at;
	}
}

void tc_ftext_finish(struct tc_ftext *t) {
	tc_strbuf_add(&t->sb, "", 1);
	free(t->f->text);
	t->f->text = t->sb.s;
	*t = (struct tc_ftext){ 0 };
}
