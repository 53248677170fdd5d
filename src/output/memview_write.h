#ifndef TC_OUTPUT_MEMVIEW_WRITE_H
#define TC_OUTPUT_MEMVIEW_WRITE_H

#include <stdio.h>
#include "model/memview.h"
#include "model/model.h"
#include "output/jsonw.h"

#define TC_MEMORY_SCHEMA "tracectl.memory/1"

/* `tracectl memory`: each allocator's peak and what held it, then the
 * per-op table (docs/analysis.md, "Memory by op"). */
void tc_write_memory_text(FILE *f, const struct tc_model *m, const struct tc_mem_view *v);
void tc_write_memory_json(FILE *f, const struct tc_model *m, const struct tc_mem_view *v);

/* One line for summarize: the largest peak, when, and its top holder
 * (nothing without allocator records); times from first. The JSON is key
 * "memory_peak" into the open object. */
void tc_write_memory_line(FILE *f, const struct tc_model *m, const struct tc_mem_view *v,
	int64_t first);
void tc_write_memory_line_json(struct tc_jw *w, const struct tc_model *m,
	const struct tc_mem_view *v, int64_t first);

#endif
