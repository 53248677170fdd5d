#ifndef TC_ANALYSIS_MEMVIEW_H
#define TC_ANALYSIS_MEMVIEW_H

/* Memory by op (model/memview.h) from a finalized model's allocator
 * records; an empty view when it has none. Free with tc_mem_view_finish. */

#include "model/memview.h"
#include "model/model.h"

void tc_memview_build(const struct tc_model *m, struct tc_mem_view *v);

#endif
