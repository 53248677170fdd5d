/* madvise(MADV_DONTNEED) really drops pages; posix_madvise's does not. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "config.h"
#include "util/inflate.h"
#include "util/input.h"
#include "util/prefault.h"
#include "util/xalloc.h"

#define RAW_CHUNK (256 * 1024)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels refuse it harmlessly */
#endif
/* A growing view is made writable GROW_CHUNK at a time at most, read
 * GROW_READ at a time at most, and read GROW_AHEAD past its reader at most
 * (the default). */
#define GROW_CHUNK (4u << 20)
#define GROW_READ (1u << 20)
#define GROW_AHEAD (64u << 20)
/* A mapped file's pages behind its reader are dropped this much at a time. */
#define MAP_STEP (2u << 20)

struct tc_input_priv {
	int fd;
	const uint8_t *mem;  /* tc_input_open_mem: the caller's bytes, no fd */
	size_t mem_len, mem_pos;
	bool regular;
	bool raw_eof;
	bool z_end;          /* inflate reached the end of the last member */
	uint8_t *raw;        /* compressed bytes not yet consumed */
	size_t raw_len, raw_pos;
	uint64_t raw_total;  /* compressed bytes read */
	struct tc_inflater inf; /* gzip/zlib */
#if TC_HAVE_ZSTD
	struct tc_unzstd *zs;
	bool zs_mid;         /* inside a frame: its end not yet seen */
#endif
	size_t head_pos;     /* replay position inside head[] */
	uint64_t out_total;  /* decompressed bytes produced */
	uint64_t delivered;
	uint8_t *map;        /* mmap'd file or malloc'd whole content */
	size_t map_len;
	bool map_is_mmap;
	bool map_borrowed;   /* map points at mem: not ours to free */
	size_t released;
	struct grow *grow;   /* map is a growing view (tc_input_view) */
};

/*
 * A growing view: one reserved range (PROT_NONE until written) that the
 * content is read into front to back, so pointers into it never move. One
 * thread reads (the helper, else the reader inside tc_input_need) and owns
 * committed; the fields from avail on are under the lock.
 */
struct grow {
	size_t resv;         /* bytes reserved at map */
	size_t committed;    /* of them writable */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	size_t avail;        /* bytes read */
	size_t asked;        /* the most a reader has waited for */
	bool all;            /* nothing more comes: the end, or failed */
	bool failed;         /* err says why */
	bool stop;           /* the reader is done: the helper ends */
	unsigned waiting;    /* readers blocked for more */
	struct tc_error err;
};

void tc_limits_default(struct tc_limits *lim) {
	*lim = (struct tc_limits){ 0 };
	lim->max_input = (uint64_t)64 << 30;
	lim->max_ratio = 1000;
	lim->max_events = (uint64_t)1 << 31;
	lim->max_depth = 64;
	lim->max_string = 16 << 20;
}

const char *tc_compression_name(enum tc_compression c) {
	switch (c) {
	case TC_COMP_GZIP:
		return "gzip";
	case TC_COMP_ZLIB:
		return "zlib";
	case TC_COMP_ZSTD:
		return "zstd";
	default:
		return "none";
	}
}

const char *tc_input_name(const struct tc_input *in) {
	return strcmp(in->path, "-") == 0 ? "<stdin>" : in->path;
}

/* n more input bytes taken (0: the end); a pipe's size is what came. */
static void count_raw(struct tc_input *in, size_t n) {
	struct tc_input_priv *p = in->priv;
	p->raw_total += n;
	p->raw_eof = n == 0;
	if (in->lim && in->lim->progress) {
		atomic_fetch_add_explicit(in->lim->progress, n, memory_order_relaxed);
	}
	if (!p->regular) {
		in->file_size = p->raw_total;
	}
}

/* read(2) from the file into buf, counted as raw input; 0 at the end. */
static ssize_t fd_read(struct tc_input *in, void *buf, size_t cap, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	ssize_t n;
	do {
		n = read(p->fd, buf, cap);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		tc_error_set(err, TC_EXIT_INPUT, "read failed: %s", strerror(errno));
		return -1;
	}
	count_raw(in, (size_t)n);
	return n;
}

static bool raw_fill(struct tc_input *in, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	if (p->raw_pos < p->raw_len || p->raw_eof) {
		return true;
	}
	ssize_t n;
	if (p->mem) {
		n = (ssize_t)(p->mem_len - p->mem_pos < RAW_CHUNK ?
			p->mem_len - p->mem_pos : RAW_CHUNK);
		memcpy(p->raw, p->mem + p->mem_pos, (size_t)n);
		p->mem_pos += (size_t)n;
		count_raw(in, (size_t)n);
	} else if ((n = fd_read(in, p->raw, RAW_CHUNK, err)) < 0) {
		return false;
	}
	p->raw_len = (size_t)n;
	p->raw_pos = 0;
	return true;
}

static bool size_limit(const struct tc_input *in, struct tc_error *err) {
	return tc_error_set(err, TC_EXIT_LIMIT, "%s size exceeds the limit of %" PRIu64
		" bytes (raise it with --max-input-size)",
		in->comp == TC_COMP_NONE ? "input" : "decompressed", in->lim->max_input);
}

/* Every byte produced, plain or decompressed, counts against the caps. */
static bool check_limits(struct tc_input *in, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	const struct tc_limits *lim = in->lim;
	if (p->out_total > lim->max_input) {
		return size_limit(in, err);
	}
	if (in->comp != TC_COMP_NONE && p->out_total > ((uint64_t)256 << 20) &&
			p->out_total / (p->raw_total ? p->raw_total : 1) > lim->max_ratio) {
		return tc_error_set(err, TC_EXIT_LIMIT,
			"compression ratio exceeds %" PRIu32 ":1, refusing a likely "
			"decompression bomb (raise it with --max-ratio)", lim->max_ratio);
	}
	return true;
}

#if TC_HAVE_ZSTD
/* produce() for zstd: concatenated frames are one stream (zstd -c a b). */
static ssize_t zstd_produce(struct tc_input *in, uint8_t *buf, size_t cap,
		struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	size_t got = 0;
	while (got == 0) {
		if (!raw_fill(in, err)) {
			return -1;
		}
		if (p->raw_pos >= p->raw_len) {
			if (p->zs_mid) {
				return tc_error_set(err, TC_EXIT_INPUT,
					"zstd stream is truncated"), -1;
			}
			return 0;
		}
		size_t used;
		const char *why;
		bool ok = tc_unzstd_step(p->zs, p->raw + p->raw_pos, p->raw_len - p->raw_pos,
			&used, buf, cap, &got, &p->zs_mid, &why);
		p->raw_pos += used;
		if (!ok) {
			tc_error_set(err, TC_EXIT_INPUT, "zstd data is corrupt: %s", why);
			tc_error_at(err, (int64_t)p->out_total);
			return -1;
		}
		p->out_total += got;
	}
	if (!check_limits(in, err)) {
		return -1;
	}
	return (ssize_t)got;
}
#endif

/* At a member's end: 1 when another gzip member follows (gzip -c a b) and
 * the inflater is reset for it, 0 at the end (trailing bytes are ignored),
 * -1 after a read error. */
static int next_member(struct tc_input *in, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	if (!raw_fill(in, err)) {
		return -1;
	}
	if (p->raw_pos >= p->raw_len || in->comp != TC_COMP_GZIP ||
			p->raw[p->raw_pos] != 0x1f) {
		return 0;
	}
	tc_inflater_reset(&p->inf);
	p->z_end = false;
	return 1;
}

/* Produce decompressed bytes from the raw stream (head replay excluded). */
static ssize_t produce(struct tc_input *in, uint8_t *buf, size_t cap,
		struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	if (cap == 0) {
		return 0;
	}
#if TC_HAVE_ZSTD
	if (in->comp == TC_COMP_ZSTD) {
		return zstd_produce(in, buf, cap, err);
	}
#endif
	if (in->comp == TC_COMP_NONE) {
		if (p->raw_pos >= p->raw_len && !p->raw_eof && !p->mem && cap >= RAW_CHUNK) {
			/* Drained, and the caller's buffer is large: read straight into
			 * it rather than copy every byte twice. */
			ssize_t n = fd_read(in, buf, cap, err);
			if (n > 0) {
				p->out_total += (uint64_t)n;
			}
			return n < 0 || check_limits(in, err) ? n : -1;
		}
		if (!raw_fill(in, err)) {
			return -1;
		}
		size_t n = p->raw_len - p->raw_pos;
		if (n > cap) {
			n = cap;
		}
		memcpy(buf, p->raw + p->raw_pos, n);
		p->raw_pos += n;
		p->out_total += n;
		return check_limits(in, err) ? (ssize_t)n : -1;
	}
	size_t got = 0;
	while (got == 0) {
		int more;
		if (p->z_end && (more = next_member(in, err)) <= 0) {
			return more;
		}
		if (!raw_fill(in, err)) {
			return -1;
		}
		bool at_end = p->raw_pos >= p->raw_len && p->raw_eof;
		size_t used;
		bool ended;
		const char *why;
		bool ok = tc_inflater_step(&p->inf, p->raw + p->raw_pos, p->raw_len - p->raw_pos,
			&used, buf, cap, &got, &ended, &why);
		p->raw_pos += used;
		p->out_total += got;
		if (!ok) {
			tc_error_set(err, TC_EXIT_INPUT, "%s data is corrupt: %s",
				tc_compression_name(in->comp), why);
			tc_error_at(err, (int64_t)p->out_total);
			return -1;
		}
		if (ended) {
			p->z_end = true;
		} else if (got == 0 && at_end) {
			return tc_error_set(err, TC_EXIT_INPUT, "%s stream is truncated",
				tc_compression_name(in->comp)), -1;
		}
	}
	if (!check_limits(in, err)) {
		return -1;
	}
	return (ssize_t)got;
}

/* Detect compression and fill head[]: the part of opening after the source
 * is known. */
static bool start(struct tc_input *in, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	p->raw = tc_xmalloc(RAW_CHUNK);
	if (!raw_fill(in, err)) {
		return false;
	}
	const uint8_t *r = p->raw;
	size_t rl = p->raw_len;
	if (rl >= 2 && r[0] == 0x1f && r[1] == 0x8b) {
		in->comp = TC_COMP_GZIP;
	} else if (rl >= 2 && r[0] == 0x78 && ((r[0] << 8) | r[1]) % 31 == 0 &&
			(r[1] == 0x01 || r[1] == 0x5e || r[1] == 0x9c || r[1] == 0xda)) {
		in->comp = TC_COMP_ZLIB;
	} else if (tc_zstd_magic(r, rl)) {
		in->comp = TC_COMP_ZSTD;
#if TC_HAVE_ZSTD
		p->zs = tc_unzstd_create();
		if (!p->zs) {
			return tc_error_set(err, TC_EXIT_INPUT, "cannot initialise zstd");
		}
		p->zs_mid = true;
#else
		return tc_error_set(err, TC_EXIT_INPUT, "zstd-compressed input, and this "
			"tracectl was built without libzstd");
#endif
	}
	if ((in->comp == TC_COMP_GZIP || in->comp == TC_COMP_ZLIB) &&
			!tc_inflater_init(&p->inf, in->comp == TC_COMP_GZIP ? 15 + 16 : 15,
				in->lim->zlib_inflate, r, rl, err)) {
		return false;
	}
	while (in->head_len < TC_INPUT_HEAD) {
		ssize_t n = produce(in, in->head + in->head_len,
			TC_INPUT_HEAD - in->head_len, err);
		if (n < 0) {
			return false;
		}
		if (n == 0) {
			break;
		}
		in->head_len += (size_t)n;
	}
	return true;
}

static struct tc_input_priv *init(struct tc_input *in, const char *path,
		const struct tc_limits *lim) {
	memset(in, 0, sizeof(*in));
	in->path = path;
	in->lim = lim;
	in->priv = tc_xcalloc(1, sizeof(*in->priv));
	in->priv->fd = -1;
	return in->priv;
}

bool tc_input_open(struct tc_input *in, const char *path,
		const struct tc_limits *lim, struct tc_error *err) {
	struct tc_input_priv *p = init(in, path, lim);
	if (strcmp(path, "-") == 0) {
		p->fd = STDIN_FILENO;
	} else {
		p->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (p->fd < 0) {
			tc_error_set(err, TC_EXIT_INPUT, "cannot open: %s", strerror(errno));
			goto err;
		}
	}
	struct stat st;
	if (fstat(p->fd, &st) == 0) {
		in->dev = (uint64_t)st.st_dev;
		in->ino = (uint64_t)st.st_ino;
		if (S_ISDIR(st.st_mode)) {
			tc_error_set(err, TC_EXIT_INPUT, "is a directory");
			goto err;
		}
		if (S_ISREG(st.st_mode)) {
			p->regular = true;
			in->file_size = (uint64_t)st.st_size;
		}
	}
	if (!start(in, err)) {
		goto err;
	}
	return true;
err:
	tc_error_path(err, tc_input_name(in));
	tc_input_finish(in);
	return false;
}

bool tc_input_open_mem(struct tc_input *in, const char *name, const uint8_t *data,
		size_t len, const struct tc_limits *lim, struct tc_error *err) {
	struct tc_input_priv *p = init(in, name, lim);
	/* A non-NULL pointer marks the memory source even for an empty buffer. */
	p->mem = data ? data : (const uint8_t *)"";
	p->mem_len = len;
	p->regular = true;
	in->file_size = len;
	if (!start(in, err)) {
		tc_error_path(err, tc_input_name(in));
		tc_input_finish(in);
		return false;
	}
	return true;
}

ssize_t tc_input_read(struct tc_input *in, void *buf, size_t cap,
		struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	if (p->head_pos < in->head_len) {
		size_t n = in->head_len - p->head_pos;
		if (n > cap) {
			n = cap;
		}
		memcpy(buf, in->head + p->head_pos, n);
		p->head_pos += n;
		p->delivered += n;
		return (ssize_t)n;
	}
	ssize_t n = produce(in, buf, cap, err);
	if (n > 0) {
		p->delivered += (uint64_t)n;
	}
	return n;
}

/* The whole content where it needs no reading: a plain regular file
 * (mapped) or memory (borrowed). 1 when mapped, 0 when the input is not of
 * that kind (or mmap failed), -1 with err set. */
static int map_in_place(struct tc_input *in, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	if (p->map) {
		return 1;
	}
	if (in->comp != TC_COMP_NONE) {
		return 0;
	}
	if (p->mem) {
		/* Borrow the caller's bytes: no copy, and a sanitizer sees any read
		 * past their exact end. */
		if (p->mem_len > in->lim->max_input) {
			return size_limit(in, err), -1;
		}
		p->map = (uint8_t *)p->mem;
		p->map_len = p->mem_len;
		p->map_borrowed = true;
		p->delivered = p->map_len;
		return 1;
	}
	if (!p->regular || in->file_size == 0) {
		return 0;
	}
	if (in->file_size > in->lim->max_input) {
		return size_limit(in, err), -1;
	}
	void *m = mmap(NULL, (size_t)in->file_size, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (m == MAP_FAILED) {
		return 0;
	}
	madvise(m, (size_t)in->file_size, MADV_SEQUENTIAL);
	p->map = m;
	p->map_len = (size_t)in->file_size;
	p->map_is_mmap = true;
	p->delivered = p->map_len;
	return 1;
}

/* The whole content read into memory (produce() holds it to the cap). */
static bool read_whole(struct tc_input *in, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	size_t cap = in->head_len > 0 ? in->head_len * 4 : 4096;
	if (p->regular && in->file_size > 0 && in->comp == TC_COMP_NONE) {
		cap = (size_t)in->file_size + 1;
	}
	size_t len = 0;
	uint8_t *buf = tc_xmalloc(cap);
	for (;;) {
		if (len == cap) {
			TC_GROW(buf, cap, cap + 1);
		}
		ssize_t n = tc_input_read(in, buf + len, cap - len, err);
		if (n < 0) {
			free(buf);
			return false;
		}
		if (n == 0) {
			break;
		}
		len += (size_t)n;
	}
	p->map = buf;
	p->map_len = len;
	return true;
}

bool tc_input_map(struct tc_input *in, const uint8_t **data, size_t *size,
		struct tc_error *err) {
	int mapped = map_in_place(in, err);
	if (mapped < 0 || (mapped == 0 && !read_whole(in, err))) {
		return false;
	}
	*data = in->priv->map;
	*size = in->priv->map_len;
	return true;
}

/* How far a view's helper reads past its reader. */
static size_t view_ahead(const struct tc_input *in) {
	return in->lim->view_ahead ? in->lim->view_ahead : GROW_AHEAD;
}

/*
 * Read once into the view at `at` (only this thread writes past avail).
 * Returns the bytes read, 0 at the end, -1 with *err set.
 */
static ssize_t grow_read(struct tc_input *in, size_t at, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	struct grow *g = p->grow;
	if (at == g->committed) {
		/* 64 KiB first, doubling to GROW_CHUNK: small inputs stay small. */
		size_t n = at < (64u << 10) ? 64u << 10 : at < GROW_CHUNK ? at : GROW_CHUNK;
		n = g->resv - at < n ? g->resv - at : n;
		if (n == 0 || mprotect(p->map + at, n, PROT_READ | PROT_WRITE) != 0) {
			return tc_error_set(err, TC_EXIT_LIMIT, "out of memory reading "
				"the input (%" PRIu64 " bytes so far)", (uint64_t)at), -1;
		}
		/* Faulted in together: cheaper than a fault a page. */
		madvise(p->map + at, n, MADV_POPULATE_WRITE);
		g->committed += n;
	}
	size_t ahead = view_ahead(in);
	size_t n = g->committed - at;
	n = n < GROW_READ ? n : GROW_READ;
	/* produce() refuses bytes past the cap, so the view never holds more
	 * than the cap, and the reservation has room for a read past it. */
	return tc_input_read(in, p->map + at, n < ahead ? n : ahead, err);
}

/* One read's outcome, published; wakes a waiting reader. */
static void grow_publish(struct grow *g, ssize_t n, const struct tc_error *err) {
	pthread_mutex_lock(&g->lock);
	if (n > 0) {
		g->avail += (size_t)n;
	} else {
		g->all = true;
		if (n < 0) {
			g->failed = true;
			g->err = *err;
		}
	}
	if (g->waiting) {
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->lock);
}

/* The helper: reads at most GROW_AHEAD past the last release, or past what
 * a reader waits for (one that never releases still gets its bytes). */
static void *grow_main(void *arg) {
	struct tc_input *in = arg;
	struct grow *g = in->priv->grow;
	size_t ahead = view_ahead(in);
	size_t at = 0;
	for (;;) {
		pthread_mutex_lock(&g->lock);
		for (;;) {
			size_t from = in->priv->released > g->asked ? in->priv->released : g->asked;
			if (g->stop || at < from || at - from < ahead) {
				break;
			}
			pthread_cond_wait(&g->cv, &g->lock);
		}
		bool stop = g->stop;
		pthread_mutex_unlock(&g->lock);
		if (stop) {
			break;
		}
		struct tc_error e;
		tc_error_init(&e);
		ssize_t n = grow_read(in, at, &e);
		grow_publish(g, n, &e);
		if (n <= 0) {
			break;
		}
		at += (size_t)n;
	}
	return NULL;
}

bool tc_input_view(struct tc_input *in, bool threaded, const uint8_t **data,
		size_t *avail, bool *all, struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	int mapped = map_in_place(in, err);
	if (mapped < 0) {
		return false;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t want = (in->lim->max_input + 2 * (uint64_t)page) & ~(uint64_t)(page - 1);
	/* Under an address-space limit (ulimit -v, common on shared machines)
	 * the reservation would count against it in full, and a smaller one
	 * could be outgrown: read whole there, as without a view. */
	struct rlimit rl;
	bool limited = getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
	void *m = MAP_FAILED;
	if (!mapped && !limited && want < (uint64_t)SIZE_MAX / 2) {
		/* Address space only: nothing is committed until written. */
		m = mmap(NULL, (size_t)want, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	if (m == MAP_FAILED) {
		*all = true;
		return tc_input_map(in, data, avail, err);
	}
	struct grow *g = tc_xcalloc(1, sizeof(*g));
	g->resv = (size_t)want;
	tc_error_init(&g->err);
	p->map = m;
	p->map_len = g->resv;
	p->map_is_mmap = true;
	p->grow = g;
	/* The lock serves without a helper too: a pipelined reader may ask for
	 * bytes on one thread and release them on another. */
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->threaded = threaded && pthread_create(&g->thread, NULL, grow_main, in) == 0;
	*data = m;
	*avail = 0;
	*all = false;
	return true;
}

bool tc_input_need(struct tc_input *in, size_t upto, size_t *avail, bool *all,
		struct tc_error *err) {
	struct tc_input_priv *p = in->priv;
	struct grow *g = p->grow;
	if (!g) {
		*avail = p->map_len;
		*all = true;
		return true;
	}
	pthread_mutex_lock(&g->lock);
	while (g->avail < upto && !g->all) {
		if (g->threaded) {
			if (upto > g->asked) {
				g->asked = upto;
				pthread_cond_broadcast(&g->cv); /* a helper held back */
			}
			g->waiting++;
			pthread_cond_wait(&g->cv, &g->lock);
			g->waiting--;
			continue;
		}
		/* Without a helper this thread reads (and is the only one that
		 * does): no one else moves avail meanwhile. */
		size_t at = g->avail;
		pthread_mutex_unlock(&g->lock);
		struct tc_error e;
		tc_error_init(&e);
		grow_publish(g, grow_read(in, at, &e), &e);
		pthread_mutex_lock(&g->lock);
	}
	*avail = g->avail;
	*all = g->all && !g->failed; /* after a failure, asking for more says why */
	bool ok = !(g->failed && g->avail < upto);
	if (!ok) {
		*err = g->err;
	}
	pthread_mutex_unlock(&g->lock);
	return ok;
}

void tc_input_stop(struct tc_input *in) {
	struct grow *g = in->priv ? in->priv->grow : NULL;
	if (!g || !g->threaded) {
		return;
	}
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	g->threaded = false;
}

void tc_input_release(struct tc_input *in, size_t upto) {
	struct tc_input_priv *p = in->priv;
	if (!p || !p->map_is_mmap) {
		return;
	}
	struct grow *g = p->grow;
	if (g) {
		pthread_mutex_lock(&g->lock);
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t end = g ? g->avail : p->map_len;
	upto = (upto < end ? upto : end) & ~(page - 1);
	/* Dropping clean file-backed pages costs nothing: they re-read on
	 * access. A growing view's are anonymous, gone for good. A mapped
	 * file's are let go in small steps: what the reader has passed would
	 * otherwise count in its peak memory beside the model it builds. */
	if (upto > p->released + (g ? 16u << 20 : MAP_STEP)) {
		madvise(p->map + p->released, upto - p->released, MADV_DONTNEED);
		p->released = upto;
		if (g) {
			pthread_cond_broadcast(&g->cv); /* the helper may read further */
		}
	}
	if (g) {
		pthread_mutex_unlock(&g->lock);
	}
}

void tc_input_drop(struct tc_input *in, size_t from, size_t to) {
	struct tc_input_priv *p = in->priv;
	if (!p || !p->map_is_mmap || p->grow) {
		return;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	from = (from + page - 1) & ~(page - 1);
	to = (to < p->map_len ? to : p->map_len) & ~(page - 1);
	if (from < to) {
		madvise(p->map + from, to - from, MADV_DONTNEED);
	}
}

uint64_t tc_input_tell(const struct tc_input *in) {
	return in->priv ? in->priv->delivered : 0;
}

void tc_input_finish(struct tc_input *in) {
	if (!in || !in->priv) {
		return;
	}
	struct tc_input_priv *p = in->priv;
	tc_input_stop(in);
	/* A mapped file was taken without read(2): count it now. */
	if (in->lim && in->lim->progress && p->regular && in->file_size > p->raw_total) {
		atomic_fetch_add_explicit(in->lim->progress, in->file_size - p->raw_total,
			memory_order_relaxed);
	}
	if (p->grow) {
		pthread_mutex_destroy(&p->grow->lock);
		pthread_cond_destroy(&p->grow->cv);
		free(p->grow);
	}
	if (p->map) {
		if (p->map_is_mmap) {
			munmap(p->map, p->map_len);
		} else if (!p->map_borrowed) {
			free(p->map);
		}
	}
	tc_inflater_finish(&p->inf);
#if TC_HAVE_ZSTD
	tc_unzstd_destroy(p->zs);
#endif
	if (p->fd > STDIN_FILENO) {
		close(p->fd);
	}
	free(p->raw);
	free(p);
	in->priv = NULL;
}
