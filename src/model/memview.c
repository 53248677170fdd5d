/* The memory-by-op view's storage: freeing what analysis/memview.c built. */
#include <stdlib.h>
#include <string.h>
#include "model/memview.h"

void tc_mem_view_finish(struct tc_mem_view *v) {
	for (size_t i = 0; i < v->n_devs; i++) {
		free(v->devs[i].holders);
		free(v->devs[i].top);
		free(v->devs[i].unfreed);
	}
	free(v->devs);
	free(v->ops);
	memset(v, 0, sizeof(*v));
}

const struct tc_mem_device *tc_mem_view_top(const struct tc_mem_view *v,
		const struct tc_mem_holder **holder) {
	const struct tc_mem_device *best = NULL;
	for (size_t i = 0; i < v->n_devs; i++) {
		if (!best || v->devs[i].peak_bytes > best->peak_bytes) {
			best = &v->devs[i];
		}
	}
	*holder = NULL;
	for (size_t i = 0; best && i < best->n_holders && !*holder; i++) {
		if (!best->holders[i].before_trace) {
			*holder = &best->holders[i];
		}
	}
	return best;
}
