/* The memory pass: each device's peak allocated and reserved memory. */
#include <stdlib.h>
#include "analysis/passes.h"
#include "model/memcurve.h"
#include "util/xalloc.h"

/*
 * The memory pass: the peak of each device's allocated and reserved
 * memory counters, against the device's capacity; after them, for a
 * device with allocator records and no memory.allocated counter, the peak
 * of the curve its records draw (model/memcurve.c), whichever reader made
 * them.
 */

void tc_pass_memory(const struct tc_model *m, struct tc_mem_peak **mem_out, size_t *n_mem_out) {
	struct tc_mem_peak *mem = NULL;
	size_t n_mem = 0;
	uint32_t alloc = tc_intern_find(&m->strings, "memory.allocated", 16);
	uint32_t reserved = tc_intern_find(&m->strings, "memory.reserved", 15);
	size_t cap = 0;
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ct = &m->counters[c];
		if ((ct->name != alloc && ct->name != reserved) || ct->name == TC_NONE || !ct->count) {
			continue;
		}
		struct tc_mem_peak p = {
			.device = ct->device, .name = ct->name, .group = ct->group,
			.peak_bytes = -1, .samples = ct->count,
		};
		for (size_t s = ct->first; s < ct->first + ct->count; s++) {
			if (m->samples.value[s] > p.peak_bytes) {
				p.peak_bytes = m->samples.value[s];
				p.peak_ts_ps = m->samples.ts[s];
			}
		}
		if (ct->device < m->n_devices) {
			p.capacity_bytes = m->devices[ct->device].memory_bytes;
		}
		TC_GROW(mem, cap, n_mem + 1);
		mem[n_mem++] = p;
	}
	struct tc_mem_curve *cv;
	size_t n_cv = tc_mem_curves(m, &cv);
	for (size_t k = 0; k < n_cv && alloc != TC_NONE; k++) {
		TC_GROW(mem, cap, n_mem + 1);
		mem[n_mem++] = (struct tc_mem_peak){
			.device = cv[k].device, .name = alloc, .group = cv[k].group,
			.peak_bytes = (double)cv[k].peak_bytes, .peak_ts_ps = cv[k].peak_ps,
			.samples = cv[k].records,
			.capacity_bytes = cv[k].device < m->n_devices ?
				m->devices[cv[k].device].memory_bytes : 0,
		};
	}
	free(cv);
	*mem_out = mem;
	*n_mem_out = n_mem;
}
