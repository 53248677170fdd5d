#ifndef TC_UTIL_SPILL_H
#define TC_UTIL_SPILL_H

/*
 * Bytes set aside outside the heap while a job is composed: an unnamed
 * temporary file in $TMPDIR (else /tmp), so that what every rank keeps
 * costs disk and page cache, not resident memory. Where no such file can
 * be made or written (a full or read-only disk), the bytes stay in memory:
 * the answer is the same, only the peak is not.
 *
 * Written once, read back any number of times; gone with the spill.
 * Writes may come from several threads; reads may not overlap writes.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tc_spill {
	int fd;                 /* -1: memory only */
	bool full;              /* a write failed: the rest goes to memory */
	int error;              /* errno of the failed open or write, 0 none */
	char *dir;              /* where the file is or would be */
	uint64_t file_size;
	unsigned char *mem;
	size_t mem_len, mem_cap;
	pthread_mutex_t lock;   /* writes come from the reading threads */
};

void tc_spill_init(struct tc_spill *s);
void tc_spill_finish(struct tc_spill *s);
/* Append p[0..n); returns where they are, for tc_spill_read. */
uint64_t tc_spill_write(struct tc_spill *s, const void *p, size_t n);
/* Copy n bytes at at (from tc_spill_write, plus any offset inside what it
 * wrote) into p. A file that cannot be read back ends the process, as
 * running out of memory does (exit 5). */
void tc_spill_read(const struct tc_spill *s, uint64_t at, void *p, size_t n);

#endif
