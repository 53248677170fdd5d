/*
 * A gzip-compressing FILE for output: writers keep using stdio while a
 * helper thread deflates what comes through a pipe, in constant memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "config.h"
#if TC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include "util/gzout.h"
#include "util/xalloc.h"

#define CHUNK (64 * 1024)

struct tc_gzout {
	FILE *dst;
	char *path;       /* for errors; NULL if none */
	FILE *w;          /* write end of the pipe, given to the caller */
	int rfd;          /* read end, drained by the thread */
	pthread_t thread;
	z_stream z;           /* set up unless ISA-L compresses */
#if TC_HAVE_ISAL
	struct isal_zstream zs;
	uint8_t *level_buf;   /* non-NULL: ISA-L compresses, not z */
#endif
	uint64_t in, out;
	int err_no;       /* first write/read errno; 0 if none */
	bool z_failed;
	unsigned char ibuf[CHUNK], obuf[CHUNK];
};

/* Write have bytes of obuf to dst, unless a write failed before. */
static void emit(struct tc_gzout *g, size_t have) {
	if (have && !g->err_no) {
		if (fwrite(g->obuf, 1, have, g->dst) != have) {
			g->err_no = errno ? errno : EIO;
		}
	}
	g->out += have;
}

/* Deflate n bytes at in, finishing the stream when end; write the output
 * to dst. After an error the data is still consumed, so the writer never
 * blocks on a full pipe. */
#if TC_HAVE_ISAL
static void pump_isal(struct tc_gzout *g, const uint8_t *in, size_t n, bool end) {
	g->zs.next_in = (uint8_t *)(uintptr_t)in;
	g->zs.avail_in = (uint32_t)n;
	g->zs.end_of_stream = end;
	do {
		g->zs.next_out = g->obuf;
		g->zs.avail_out = CHUNK;
		if (isal_deflate(&g->zs) != COMP_OK) {
			g->z_failed = true;
			return;
		}
		emit(g, CHUNK - g->zs.avail_out);
	} while (g->zs.avail_out == 0 || g->zs.avail_in ||
		(end && g->zs.internal_state.state != ZSTATE_END));
}
#endif

static void pump(struct tc_gzout *g, const uint8_t *in, size_t n, bool end) {
#if TC_HAVE_ISAL
	if (g->level_buf) {
		pump_isal(g, in, n, end);
		return;
	}
#endif
	g->z.next_in = (Bytef *)(uintptr_t)in;
	g->z.avail_in = (uInt)n;
	do {
		g->z.next_out = g->obuf;
		g->z.avail_out = CHUNK;
		if (deflate(&g->z, end ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR) {
			g->z_failed = true;
			return;
		}
		emit(g, CHUNK - g->z.avail_out);
	} while (g->z.avail_out == 0);
}

static void *run(void *arg) {
	struct tc_gzout *g = arg;
	for (;;) {
		ssize_t n = read(g->rfd, g->ibuf, CHUNK);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			g->err_no = g->err_no ? g->err_no : errno;
			break;
		}
		if (n == 0) {
			break;
		}
		g->in += (uint64_t)n;
		if (!g->z_failed) {
			pump(g, g->ibuf, (size_t)n, false);
		}
	}
	if (!g->z_failed) {
		pump(g, NULL, 0, true);
	}
	if (!g->err_no && fflush(g->dst) != 0) {
		g->err_no = errno ? errno : EIO;
	}
	return NULL;
}

static void deflate_end(struct tc_gzout *g) {
#if TC_HAVE_ISAL
	if (g->level_buf) {
		free(g->level_buf);
		return;
	}
#endif
	deflateEnd(&g->z);
}

struct tc_gzout *tc_gzout_open(FILE *dst, const char *path, int level,
		struct tc_error *err) {
	struct tc_gzout *g = tc_xcalloc(1, sizeof(*g));
	g->dst = dst;
#if TC_HAVE_ISAL
	if (level == TC_GZOUT_FAST) {
		isal_deflate_init(&g->zs);
		g->zs.level = 1;
		g->zs.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
		g->level_buf = tc_xmalloc(ISAL_DEF_LVL1_DEFAULT);
		g->zs.level_buf = g->level_buf;
		g->zs.gzip_flag = IGZIP_GZIP;
	}
	if (!g->level_buf)
#endif
	{
		/* windowBits 15 + 16: a gzip header and trailer instead of zlib's. */
		if (deflateInit2(&g->z, level == TC_GZOUT_FAST ? 1 : level, Z_DEFLATED, 15 + 16,
				8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(g);
			tc_error_set(err, TC_EXIT_OUTPUT, "cannot start gzip compression");
			tc_error_path(err, path);
			return NULL;
		}
	}
	g->path = path ? tc_xstrdup(path) : NULL;
	int fds[2];
	if (pipe(fds) != 0) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot create a pipe: %s", strerror(errno));
		goto err_pipe;
	}
	g->rfd = fds[0];
	g->w = fdopen(fds[1], "w");
	if (!g->w) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot open a pipe: %s", strerror(errno));
		close(fds[1]);
		goto err_fdopen;
	}
	if (pthread_create(&g->thread, NULL, run, g) != 0) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot start the compression thread");
		fclose(g->w);
		goto err_fdopen;
	}
	return g;
err_fdopen:
	close(fds[0]);
err_pipe:
	tc_error_path(err, path);
	deflate_end(g);
	free(g->path);
	free(g);
	return NULL;
}

FILE *tc_gzout_file(struct tc_gzout *g) {
	return g->w;
}

bool tc_gzout_close(struct tc_gzout *g, uint64_t *bytes_in, uint64_t *bytes_out,
		struct tc_error *err) {
	if (!g) {
		return true;
	}
	bool ok = true;
	int e = 0;
	if (fclose(g->w) != 0) {
		ok = false;
		e = errno;
	}
	pthread_join(g->thread, NULL);
	close(g->rfd);
	deflate_end(g);
	if (ok && g->err_no) {
		ok = false;
		e = g->err_no;
	}
	if (!ok) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot write compressed output: %s",
			strerror(e));
	} else if (g->z_failed) {
		ok = false;
		tc_error_set(err, TC_EXIT_OUTPUT, "gzip compression failed");
	}
	if (!ok) {
		tc_error_path(err, g->path);
	}
	if (bytes_in) {
		*bytes_in = g->in;
	}
	if (bytes_out) {
		*bytes_out = g->out;
	}
	free(g->path);
	free(g);
	return ok;
}
