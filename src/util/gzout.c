#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "util/gzout.h"
#include "util/xalloc.h"

#define CHUNK (64 * 1024)

struct tc_gzout {
	FILE *dst;
	FILE *w;          /* write end of the pipe, given to the caller */
	int rfd;          /* read end, drained by the thread */
	pthread_t thread;
	z_stream z;
	uint64_t in, out;
	int err_no;       /* first write/read errno; 0 if none */
	bool z_failed;
	unsigned char ibuf[CHUNK], obuf[CHUNK];
};

/* Deflate avail_in bytes with flush mode; write the output to dst. After an
 * error the data is still consumed, so the writer never blocks on a full
 * pipe. */
static void pump(struct tc_gzout *g, int flush) {
	do {
		g->z.next_out = g->obuf;
		g->z.avail_out = CHUNK;
		int rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR) {
			g->z_failed = true;
			return;
		}
		size_t have = CHUNK - g->z.avail_out;
		if (have && !g->err_no) {
			if (fwrite(g->obuf, 1, have, g->dst) != have) {
				g->err_no = errno ? errno : EIO;
			}
		}
		g->out += have;
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
		if (g->z_failed) {
			continue;
		}
		g->z.next_in = g->ibuf;
		g->z.avail_in = (uInt)n;
		pump(g, Z_NO_FLUSH);
	}
	if (!g->z_failed) {
		g->z.avail_in = 0;
		pump(g, Z_FINISH);
	}
	if (!g->err_no && fflush(g->dst) != 0) {
		g->err_no = errno ? errno : EIO;
	}
	return NULL;
}

struct tc_gzout *tc_gzout_open(FILE *dst, int level, struct tc_error *err) {
	struct tc_gzout *g = tc_xcalloc(1, sizeof(*g));
	g->dst = dst;
	/* windowBits 15 + 16: a gzip header and trailer instead of zlib's. */
	if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot start gzip compression");
		return NULL;
	}
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
	deflateEnd(&g->z);
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
	deflateEnd(&g->z);
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
	if (bytes_in) {
		*bytes_in = g->in;
	}
	if (bytes_out) {
		*bytes_out = g->out;
	}
	free(g);
	return ok;
}
