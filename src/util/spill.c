/* Bytes set aside in an unnamed temporary file (spill.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/error.h"
#include "util/spill.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Where a write went: memory places carry this bit. */
#define IN_MEMORY ((uint64_t)1 << 63)

static int open_unnamed(const char *dir) {
	int fd = -1;
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		return fd;
	}
#endif
	/* Named for a moment only: unlinked before anything is written. */
	struct tc_strbuf sb = { 0 };
	tc_strbuf_addf(&sb, "%s/tracectl-spill-XXXXXX", dir);
	fd = mkstemp(sb.s);
	int e = errno;
	if (fd >= 0) {
		unlink(sb.s);
	}
	free(sb.s);
	errno = e;
	return fd;
}

void tc_spill_init(struct tc_spill *s) {
	memset(s, 0, sizeof(*s));
	const char *dir = getenv("TMPDIR");
	s->dir = tc_xstrdup(dir && *dir ? dir : "/tmp");
	s->fd = open_unnamed(s->dir);
	s->error = s->fd < 0 ? errno : 0;
	pthread_mutex_init(&s->lock, NULL);
}

void tc_spill_finish(struct tc_spill *s) {
	if (s->fd >= 0) {
		close(s->fd);
	}
	free(s->mem);
	free(s->dir);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static bool write_all(int fd, const unsigned char *p, size_t n, uint64_t at) {
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)at);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			errno = w < 0 ? errno : ENOSPC;
			return false;
		}
		p += w;
		n -= (size_t)w;
		at += (uint64_t)w;
	}
	return true;
}

uint64_t tc_spill_write(struct tc_spill *s, const void *p, size_t n) {
	pthread_mutex_lock(&s->lock);
	uint64_t at = s->file_size;
	if (s->fd >= 0 && !s->full) {
		if (write_all(s->fd, p, n, at)) {
			s->file_size += n;
			pthread_mutex_unlock(&s->lock);
			return at;
		}
		/* Full or failing: this and what follows stay in memory; what
		 * was written is still read from the file. */
		s->full = true;
		s->error = errno;
	}
	at = s->mem_len | IN_MEMORY;
	TC_GROW(s->mem, s->mem_cap, s->mem_len + n);
	if (n) {
		memcpy(s->mem + s->mem_len, p, n);
	}
	s->mem_len += n;
	pthread_mutex_unlock(&s->lock);
	return at;
}

void tc_spill_read(const struct tc_spill *s, uint64_t at, void *p, size_t n) {
	if (at & IN_MEMORY) {
		if (n) {
			memcpy(p, s->mem + (at & ~IN_MEMORY), n);
		}
		return;
	}
	unsigned char *q = p;
	while (n) {
		ssize_t r = s->fd >= 0 ? pread(s->fd, q, n, (off_t)at) : -1;
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			fprintf(stderr, "tracectl: error: cannot read back temporary data: %s\n",
				r < 0 ? strerror(errno) : "file truncated");
			exit(TC_EXIT_LIMIT);
		}
		q += r;
		n -= (size_t)r;
		at += (uint64_t)r;
	}
}
