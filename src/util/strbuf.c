/* A growing byte string: growth, printf-style appends and freeing. */
#include <stdio.h>
#include <stdlib.h>
#include "util/strbuf.h"
#include "util/xalloc.h"

void tc_strbuf_grow(struct tc_strbuf *sb, size_t extra) {
	/* One spare byte, so that vsnprintf's NUL always fits. */
	TC_GROW(sb->s, sb->cap, sb->len + extra + 1);
}

void tc_strbuf_vaddf(struct tc_strbuf *sb, const char *fmt, va_list ap) {
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(sb->s ? sb->s + sb->len : NULL, sb->s ? sb->cap - sb->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		return;
	}
	if ((size_t)n >= sb->cap - sb->len) {
		tc_strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->s + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void tc_strbuf_addf(struct tc_strbuf *sb, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	tc_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void tc_strbuf_finish(struct tc_strbuf *sb) {
	free(sb->s);
	*sb = (struct tc_strbuf){ 0 };
}
