#ifndef TC_OUTPUT_DIFF_WRITE_H
#define TC_OUTPUT_DIFF_WRITE_H

/* Writers for `tracectl diff`: they read only the diff (model/diff.h). */

#include <stddef.h>
#include <stdio.h>
#include "model/diff.h"

#define TC_DIFF_SCHEMA "tracectl.diff/1"

struct tc_diff_write_opts {
	size_t top;                     /* op and category rows listed (0 = all) */
	const struct tc_diff_gate *gate; /* --fail-on-regression result, NULL if none */
	bool nested;                    /* text lists ops nested in other host ops */
};

/* What changed, in one sentence built from the figures the tables print:
 * the mean step time's change and the attribution category that changed
 * most, with what that says ("step time -20.6 % (-36.6 ms per step),
 * mostly input -58.1 ms: the input pipeline no longer blocks the step"). */
void tc_diff_headline(const struct tc_diff *d, char *buf, size_t size);

void tc_write_diff_text(FILE *f, const struct tc_diff *d, const struct tc_diff_write_opts *o);
/* A finding row's device; both names when it was matched across paired
 * devices, NULL when it has none. */
const char *tc_diff_finding_device(const struct tc_diff *d, const struct tc_diff_finding_row *r);
void tc_write_diff_json(FILE *f, const struct tc_diff *d, const struct tc_diff_write_opts *o);

/* Their memory by op sections (output/diff_mem_write.c): the allocator
 * peaks and the top (0 = all) ops whose memory changed; nothing when
 * neither side has allocator records. */
struct tc_jw;
void tc_write_diff_mem_text(FILE *f, const struct tc_diff *d, size_t top);
void tc_write_diff_mem_json(struct tc_jw *w, const struct tc_diff *d);

#endif
