/*
 * Wording of a finding from its fields: where a job names the rank and
 * says how many of its devices the cause reached (model/findings.h).
 */
#include <string.h>
#include "output/finding_text.h"

static void rank_label(struct tc_strbuf *sb, int32_t rank) {
	tc_strbuf_addf(sb, "rank %d: ", rank);
}

void tc_finding_wording(const struct tc_finding *f, struct tc_strbuf *sb) {
	const char *t = f->text ? f->text : "";
	size_t len = strlen(t);
	if (!f->has_rank) {
		tc_strbuf_add(sb, t, len + 1);
		return;
	}
	if (f->n_slots == 0) {
		rank_label(sb, f->rank);
	}
	/* Slots in order; one out of order or past the end (a damaged
	 * digest) is left out. */
	size_t s = 0;
	bool spread = f->has_spread;
	for (size_t i = 0;;) {
		for (; s < f->n_slots && f->slot[s] <= i; s++) {
			if (f->slot[s] == i) {
				rank_label(sb, f->rank);
			}
		}
		if (spread && f->spread_at == i) {
			spread = false;
			if (f->n_measured > 1) {
				char clause[96];
				tc_finding_spread_clause(clause, sizeof(clause), f->n_over,
					f->n_measured);
				tc_strbuf_add(sb, clause, strlen(clause));
			}
			i = f->spread_len < len - i ? i + f->spread_len : len;
			continue;
		}
		if (i >= len) {
			break;
		}
		tc_strbuf_add(sb, t + i, 1);
		i++;
	}
	tc_strbuf_add(sb, "", 1);
}
