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
