/*
 * Decompression: gzip, zlib and raw deflate (ISA-L or zlib) and zstd, as
 * streams for input files and whole buffers for blocks inside a trace.
 */
#include <stdlib.h>
#include <string.h>
#include "config.h"
#if TC_HAVE_ZSTD
#include <zstd.h>
#endif
#if TC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include "util/inflate.h"
#include "util/xalloc.h"

#if TC_HAVE_ISAL
static const char *isal_why(int rc) {
	switch (rc) {
	case ISAL_INVALID_BLOCK: return "invalid deflate block";
	case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER: return "invalid header";
	case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	case ISAL_NEED_DICT: return "needs a preset dictionary";
	default: return "inflate failed";
	}
}
#endif

bool tc_inflater_init(struct tc_inflater *f, int wbits, bool zlib_only,
		const uint8_t *head, size_t n, struct tc_error *err) {
	memset(f, 0, sizeof(*f));
#if TC_HAVE_ISAL
	if (!zlib_only && (wbits == 15 || wbits == 15 + 16 || wbits == 15 + 32 || wbits == -15)) {
		bool gzip = wbits == 15 + 16 ||
			(wbits == 15 + 32 && n >= 2 && head[0] == 0x1f && head[1] == 0x8b);
		f->crc_flag = wbits < 0 ? ISAL_DEFLATE : gzip ? ISAL_GZIP : ISAL_ZLIB;
		f->is = tc_xmalloc(sizeof(*f->is));
		isal_inflate_init(f->is);
		f->is->crc_flag = f->crc_flag;
		return true;
	}
#else
	(void)zlib_only;
	(void)head;
	(void)n;
#endif
	if (inflateInit2(&f->z, wbits) != Z_OK) {
		return tc_error_set(err, TC_EXIT_INPUT, "cannot initialise zlib");
	}
	f->z_init = true;
	return true;
}

void tc_inflater_reset(struct tc_inflater *f) {
#if TC_HAVE_ISAL
	if (f->is) {
		isal_inflate_init(f->is);
		f->is->crc_flag = f->crc_flag;
		return;
	}
#endif
	inflateReset(&f->z);
}

void tc_inflater_finish(struct tc_inflater *f) {
#if TC_HAVE_ISAL
	free(f->is);
	f->is = NULL;
#endif
	if (f->z_init) {
		inflateEnd(&f->z);
		f->z_init = false;
	}
}

bool tc_inflater_step(struct tc_inflater *f, const uint8_t *in, size_t n, size_t *used,
		uint8_t *out, size_t cap, size_t *got, bool *ended, const char **why) {
	uint32_t in32 = (uint32_t)(n > (1u << 30) ? (1u << 30) : n);
	uint32_t out32 = (uint32_t)(cap > (1u << 30) ? (1u << 30) : cap);
#if TC_HAVE_ISAL
	if (f->is) {
		struct inflate_state *is = f->is;
		is->next_in = (uint8_t *)(uintptr_t)in;
		is->avail_in = in32;
		is->next_out = out;
		is->avail_out = out32;
		int rc = isal_inflate(is);
		*used = in32 - is->avail_in;
		*got = out32 - is->avail_out;
		*ended = is->block_state == ISAL_BLOCK_FINISH;
		*why = isal_why(rc);
		return rc == ISAL_DECOMP_OK;
	}
#endif
	f->z.next_in = (Bytef *)(uintptr_t)in;
	f->z.avail_in = in32;
	f->z.next_out = out;
	f->z.avail_out = out32;
	int rc = inflate(&f->z, Z_NO_FLUSH);
	*used = in32 - f->z.avail_in;
	*got = out32 - f->z.avail_out;
	*ended = rc == Z_STREAM_END;
	*why = f->z.msg ? f->z.msg : "inflate failed";
	/* Z_BUF_ERROR: no progress possible, it needs more input. */
	return rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR;
}

#if TC_HAVE_ZSTD
struct tc_unzstd {
	ZSTD_DStream *zs;
};

struct tc_unzstd *tc_unzstd_create(void) {
	ZSTD_DStream *zs = ZSTD_createDStream();
	if (!zs) {
		return NULL;
	}
	struct tc_unzstd *z = tc_xmalloc(sizeof(*z));
	z->zs = zs;
	return z;
}

void tc_unzstd_destroy(struct tc_unzstd *z) {
	if (z) {
		ZSTD_freeDStream(z->zs);
		free(z);
	}
}

bool tc_unzstd_step(struct tc_unzstd *z, const uint8_t *in, size_t n, size_t *used,
		uint8_t *out, size_t cap, size_t *got, bool *mid, const char **why) {
	ZSTD_inBuffer ib = { in, n, 0 };
	ZSTD_outBuffer ob = { out, cap, 0 };
	size_t rc = ZSTD_decompressStream(z->zs, &ob, &ib);
	*used = ib.pos;
	*got = ob.pos;
	if (ZSTD_isError(rc)) {
		*why = ZSTD_getErrorName(rc);
		return false;
	}
	*mid = rc != 0;
	return true;
}
#endif

/* The output of one compressed block: grows by doubling, up to max bytes. */
struct obuf {
	uint8_t *p;
	size_t len, cap, max;
};

static void obuf_init(struct obuf *o, size_t in_len, size_t max) {
	o->cap = in_len * 4 + 256;
	if (o->cap > max) {
		o->cap = max ? max : 1;
	}
	o->p = tc_xmalloc(o->cap);
	o->len = 0;
	o->max = max;
}

/* Room for more once full; false (buffer freed, err set) past max. */
static bool obuf_room(struct obuf *o, struct tc_error *err) {
	if (o->len < o->cap) {
		return true;
	}
	if (o->cap >= o->max) {
		free(o->p);
		o->p = NULL;
		return tc_error_set(err, TC_EXIT_LIMIT,
			"compressed block inflates past %zu bytes", o->max);
	}
	o->cap = o->cap * 2 > o->max ? o->max : o->cap * 2;
	o->p = tc_xrealloc(o->p, o->cap);
	return true;
}

/* tc_inflate and tc_inflate_zlib: the stream's loop over a whole buffer. */
static bool inflate_whole(const uint8_t *src, size_t len, int windowbits, bool zlib_only,
		size_t cap, uint8_t **out, size_t *out_len, struct tc_error *err) {
	struct tc_inflater f;
	if (!tc_inflater_init(&f, windowbits, zlib_only, src, len, err)) {
		return false;
	}
	struct obuf o;
	obuf_init(&o, len, cap);
	size_t pos = 0;
	bool ok = true;
	for (;;) {
		if (!obuf_room(&o, err)) {
			ok = false;
			break;
		}
		size_t used, got;
		bool ended;
		const char *why;
		if (!tc_inflater_step(&f, src + pos, len - pos, &used, o.p + o.len, o.cap - o.len,
				&got, &ended, &why)) {
			ok = tc_error_set(err, TC_EXIT_INPUT, "compressed data is corrupt: %s", why);
			break;
		}
		pos += used;
		o.len += got;
		if (ended) {
			break;
		}
		if (got == 0 && pos == len) {
			ok = tc_error_set(err, TC_EXIT_INPUT, "compressed data is truncated");
			break;
		}
	}
	tc_inflater_finish(&f);
	if (!ok) {
		free(o.p);
		return false;
	}
	*out = o.p;
	*out_len = o.len;
	return true;
}

bool tc_inflate(const uint8_t *src, size_t len, int windowbits, size_t cap,
		uint8_t **out, size_t *out_len, struct tc_error *err) {
	return inflate_whole(src, len, windowbits, false, cap, out, out_len, err);
}

bool tc_inflate_zlib(const uint8_t *src, size_t len, int windowbits, size_t cap,
		uint8_t **out, size_t *out_len, struct tc_error *err) {
	return inflate_whole(src, len, windowbits, true, cap, out, out_len, err);
}

bool tc_unzstd(const uint8_t *src, size_t len, size_t cap, uint8_t **out,
		size_t *out_len, struct tc_error *err) {
#if TC_HAVE_ZSTD
	ZSTD_DStream *zs = ZSTD_createDStream();
	if (!zs) {
		return tc_error_set(err, TC_EXIT_INPUT, "cannot initialise zstd");
	}
	struct obuf o;
	obuf_init(&o, len, cap);
	ZSTD_inBuffer ib = { src, len, 0 };
	size_t rc = 1;
	/* Until the input is used up and the last frame has ended. */
	while (ib.pos < len || rc != 0) {
		if (!obuf_room(&o, err)) {
			ZSTD_freeDStream(zs);
			return false;
		}
		ZSTD_outBuffer ob = { o.p, o.cap, o.len };
		rc = ZSTD_decompressStream(zs, &ob, &ib);
		if (ZSTD_isError(rc)) {
			ZSTD_freeDStream(zs);
			free(o.p);
			return tc_error_set(err, TC_EXIT_INPUT, "compressed data is corrupt: %s",
				ZSTD_getErrorName(rc));
		}
		o.len = ob.pos;
		/* Input used up, room left, and the frame wants more. */
		if (ib.pos == len && rc != 0 && o.len < o.cap) {
			ZSTD_freeDStream(zs);
			free(o.p);
			return tc_error_set(err, TC_EXIT_INPUT, "compressed data is truncated");
		}
	}
	ZSTD_freeDStream(zs);
	*out = o.p;
	*out_len = o.len;
	return true;
#else
	(void)src, (void)len, (void)cap, (void)out, (void)out_len;
	return tc_error_set(err, TC_EXIT_INPUT, "zstd-compressed data, and this "
		"tracectl was built without libzstd");
#endif
}
