/* madvise and MAP_ANONYMOUS are not POSIX. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/prefault.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define QUEUE 256

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stopping;
	struct {
		uintptr_t addr;
		size_t len;
	} q[QUEUE];
	size_t head, tail; /* ring: [tail, head) pending */
	size_t page;
} pf = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

/* Whole pages inside [a, a + len) only: a partly used first page is being
 * written already. Errors (ENOMEM for a range that moved, EINVAL) only
 * mean the writer takes its own faults. */
static void populate(uintptr_t a, size_t len) {
	uintptr_t lo = (a + pf.page - 1) & ~(uintptr_t)(pf.page - 1);
	uintptr_t hi = (a + len) & ~(uintptr_t)(pf.page - 1);
	if (hi > lo) {
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	}
}

static void *run(void *arg) {
	(void)arg;
	pthread_mutex_lock(&pf.lock);
	for (;;) {
		while (pf.head == pf.tail && !pf.stopping) {
			pthread_cond_wait(&pf.wake, &pf.lock);
		}
		if (pf.stopping) {
			break;
		}
		uintptr_t a = pf.q[pf.tail % QUEUE].addr;
		size_t len = pf.q[pf.tail % QUEUE].len;
		pf.tail++;
		pthread_mutex_unlock(&pf.lock);
		populate(a, len);
		pthread_mutex_lock(&pf.lock);
	}
	pthread_mutex_unlock(&pf.lock);
	return NULL;
}

bool tc_prefault_start(void) {
	if (pf.running) {
		return true;
	}
	long page = sysconf(_SC_PAGESIZE);
	pf.page = page > 0 ? (size_t)page : 4096;
	/* Probe: kernels before 5.14 reject the advice. */
	void *probe = mmap(NULL, pf.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe == MAP_FAILED) {
		return false;
	}
	int rc = madvise(probe, pf.page, MADV_POPULATE_WRITE);
	munmap(probe, pf.page);
	if (rc != 0) {
		return false;
	}
	pf.stopping = false;
	pf.head = pf.tail = 0;
	if (pthread_create(&pf.thread, NULL, run, NULL) != 0) {
		return false;
	}
	pf.running = true;
	return true;
}

void tc_prefault_hint(void *addr, size_t len) {
	if (!pf.running || !len) {
		return;
	}
	pthread_mutex_lock(&pf.lock);
	if (pf.head - pf.tail < QUEUE) {
		pf.q[pf.head % QUEUE].addr = (uintptr_t)addr;
		pf.q[pf.head % QUEUE].len = len;
		pf.head++;
		pthread_cond_signal(&pf.wake);
	}
	pthread_mutex_unlock(&pf.lock);
}

void tc_prefault_now(void *addr, size_t len) {
	if (pf.running) {
		populate((uintptr_t)addr, len);
	}
}

void tc_prefault_stop(void) {
	if (!pf.running) {
		return;
	}
	pthread_mutex_lock(&pf.lock);
	pf.stopping = true;
	pthread_cond_signal(&pf.wake);
	pthread_mutex_unlock(&pf.lock);
	pthread_join(pf.thread, NULL);
	pf.running = false;
}
