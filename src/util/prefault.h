#ifndef TC_UTIL_PREFAULT_H
#define TC_UTIL_PREFAULT_H

/*
 * Page faults on fresh memory cost about a third of reading a big trace.
 * A helper thread faults in the pages just ahead of where the model's
 * columns are being filled (MADV_POPULATE_WRITE), on the core the reader
 * leaves idle. Hints only prefault: they never change memory contents, so a
 * hint for a range that has since moved or been freed is harmless, and a
 * dropped hint costs only the faults it would have saved.
 */

#include <stdbool.h>
#include <stddef.h>

/* Start the helper; false (and hints stay no-ops) when the kernel lacks
 * MADV_POPULATE_WRITE or no thread can be made. */
bool tc_prefault_start(void);
/* Ask for [addr, addr + len) to be faulted in soon. Cheap; thread-safe. */
void tc_prefault_hint(void *addr, size_t len);
/* Fault [addr, addr + len) in now, on this thread (with the helper
 * started: the kernel has the advice). */
void tc_prefault_now(void *addr, size_t len);
/* Stop and join the helper. */
void tc_prefault_stop(void);

/* For a sequential writer at index n of an array (elements of size elem,
 * cap allocated) that calls this every stride elements: hint the stretch
 * after the one being written, [n + stride, n + 2 * stride), so each page
 * is hinted once (the first call also hints the first stretch). */
static inline void tc_prefault_next(void *base, size_t elem, size_t n, size_t stride,
		size_t cap) {
	size_t from = n ? n + stride : 0, to = n + 2 * stride;
	if (to > cap) {
		to = cap;
	}
	if (base && from < to) {
		tc_prefault_hint((char *)base + from * elem, (to - from) * elem);
	}
}

#endif
