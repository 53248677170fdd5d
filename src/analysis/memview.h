#ifndef TC_ANALYSIS_MEMVIEW_H
#define TC_ANALYSIS_MEMVIEW_H

/* Memory by op (model/memview.h) from a finalized model's allocator
 * records; an empty view when it has none. Free with tc_mem_view_finish. */

#include <stddef.h>
#include <stdint.h>
#include "model/findings.h"
#include "model/memview.h"
#include "model/model.h"
#include "util/strbuf.h"

void tc_memview_build(const struct tc_model *m, struct tc_mem_view *v);

/* Appends to sb the ops holding the most of device d's largest allocator
 * peak and its largest buffer, and names those ops in f (at most 3). */
void tc_memview_holders_clause(const struct tc_model *m, const struct tc_mem_view *v,
	uint32_t d, struct tc_finding *f, struct tc_strbuf *sb);

/* live[i]: allocator md's live bytes after its last record at or before
 * the end of steps[i]. */
void tc_memview_live_at_ends(const struct tc_model *m, const struct tc_mem_device *md,
	const struct tc_step *steps, size_t n_steps, int64_t *live);

#endif
