#ifndef TC_UTIL_INFLATE_H
#define TC_UTIL_INFLATE_H

/*
 * Decompressors: gzip, zlib and raw deflate through ISA-L where it is built
 * in (5-8x zlib's speed), else zlib; and zstd. Streams for util/input, and
 * whole-buffer calls for compressed blocks inside a trace (Perfetto
 * bundles, XPlane stats). Whole-buffer output is malloc'd and the caller's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include "util/error.h"

struct inflate_state;

/*
 * An inflater: ISA-L's where it is built in (and not refused), else zlib's,
 * behind one step. wbits as zlib's inflateInit2: 15 zlib, 15 + 16 gzip,
 * 15 + 32 either (ISA-L picks by the first bytes), -15 raw deflate.
 */
struct tc_inflater {
	z_stream z;
	bool z_init;
	struct inflate_state *is; /* non-NULL: ISA-L inflates, not z */
	uint32_t crc_flag;
};

/* Start f for wbits on data that begins with head[0, n); zlib_only refuses
 * ISA-L. */
bool tc_inflater_init(struct tc_inflater *f, int wbits, bool zlib_only,
	const uint8_t *head, size_t n, struct tc_error *err);
/* Ready for another stream (the next gzip member). */
void tc_inflater_reset(struct tc_inflater *f);
void tc_inflater_finish(struct tc_inflater *f);
/*
 * One call: *used bytes of in[0, n) consumed, *got bytes into out[0, cap),
 * *ended at the stream's end; false on corrupt data (*why). An inflater may
 * hold output past the end of its input (ISA-L does; zlib in a match cut by
 * a full buffer), so only a call that gives nothing with no input left
 * means a cut stream.
 */
bool tc_inflater_step(struct tc_inflater *f, const uint8_t *in, size_t n, size_t *used,
	uint8_t *out, size_t cap, size_t *got, bool *ended, const char **why);

/* Whether head starts with a zstd frame's magic number (RFC 8878). */
static inline bool tc_zstd_magic(const uint8_t *head, size_t n) {
	return n >= 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd;
}

/* A zstd stream (concatenated frames are one stream). Built only with
 * libzstd (TC_HAVE_ZSTD). create returns NULL when zstd cannot start. */
struct tc_unzstd;
struct tc_unzstd *tc_unzstd_create(void);
void tc_unzstd_destroy(struct tc_unzstd *z);
/* As tc_inflater_step; *mid while inside a frame (its end not yet seen). */
bool tc_unzstd_step(struct tc_unzstd *z, const uint8_t *in, size_t n, size_t *used,
	uint8_t *out, size_t cap, size_t *got, bool *mid, const char **why);

/* Inflate a whole buffer (windowbits as zlib's inflateInit2: 15 zlib,
 * 15+16 gzip, 15+32 auto, -15 raw) into a malloc'd buffer of at most cap
 * bytes, through ISA-L where it is built in. Bytes after the stream's end
 * are ignored. */
bool tc_inflate(const uint8_t *src, size_t len, int windowbits, size_t cap,
	uint8_t **out, size_t *out_len, struct tc_error *err);
/* The same through zlib always (tests compare the two). */
bool tc_inflate_zlib(const uint8_t *src, size_t len, int windowbits, size_t cap,
	uint8_t **out, size_t *out_len, struct tc_error *err);

/* The same for zstd frames; false with a message saying so when tracectl
 * is built without libzstd. */
bool tc_unzstd(const uint8_t *src, size_t len, size_t cap, uint8_t **out,
	size_t *out_len, struct tc_error *err);

#endif
