#ifndef TC_UTIL_PBWIRE_H
#define TC_UTIL_PBWIRE_H

/*
 * A lean protobuf wire reader for hot repeated messages (XEvent, XStat,
 * TracePacket): it walks fields in place and never allocates. protobuf-c
 * serves the cold messages; this serves the millions of small ones.
 *
 * All data pointers borrow from the caller's buffer.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tc_pb_wiretype {
	TC_PB_VARINT = 0,
	TC_PB_I64 = 1,
	TC_PB_LEN = 2,
	TC_PB_I32 = 5,
};

struct tc_pb {
	const uint8_t *p;
	const uint8_t *end;
	const uint8_t *base; /* start of the whole input, for error offsets */
	const char *why;     /* static message after a failure */
	const uint8_t *at;   /* where the failure was found */
};

struct tc_pb_field {
	uint32_t num;
	uint8_t wt;
	uint64_t u;          /* VARINT, I64 or I32 value */
	const uint8_t *data; /* LEN payload */
	size_t len;
};

static inline void tc_pb_init(struct tc_pb *r, const uint8_t *base,
		const uint8_t *p, size_t len) {
	r->base = base;
	r->p = p;
	r->end = p + len;
	r->why = NULL;
	r->at = NULL;
}

/* Decode one varint; false if it runs past end or over 10 bytes. */
static inline bool tc_pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out) {
	const uint8_t *p = *pp;
	if (p < end && *p < 0x80) {
		*out = *p;
		*pp = p + 1;
		return true;
	}
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p >= end) {
			return false;
		}
		uint8_t b = *p++;
		if (shift == 63 && b > 1) {
			return false; /* the 10th byte may carry only one bit */
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			*pp = p;
			return true;
		}
	}
	return false;
}

/* Encode v as a varint at p (room for 10 bytes); the bytes written. */
static inline size_t tc_pb_put_varint(uint8_t *p, uint64_t v) {
	size_t n = 0;
	for (; v >= 0x80; v >>= 7) {
		p[n++] = (uint8_t)(v | 0x80);
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline int tc_pb_fail(struct tc_pb *r, const uint8_t *at, const char *why) {
	r->why = why;
	r->at = at;
	return -1;
}

/*
 * Read the next field. Returns 1 with *f filled, 0 at the end of the message,
 * -1 on malformed input (r->why, r->at say what and where). Groups (wire types
 * 3, 4) and types 6, 7 are corruption in every schema tracectl reads.
 */
static inline int tc_pb_next(struct tc_pb *r, struct tc_pb_field *f) {
	if (r->p >= r->end) {
		return 0;
	}
	const uint8_t *start = r->p;
	uint64_t key;
	if (!tc_pb_varint(&r->p, r->end, &key)) {
		return tc_pb_fail(r, start, "truncated field tag");
	}
	f->num = (uint32_t)(key >> 3);
	f->wt = key & 7;
	if (f->num == 0 || (key >> 3) > 0x1fffffff) {
		return tc_pb_fail(r, start, "invalid field number");
	}
	switch (f->wt) {
	case TC_PB_VARINT:
		if (!tc_pb_varint(&r->p, r->end, &f->u)) {
			return tc_pb_fail(r, start, "truncated or over-long varint");
		}
		return 1;
	case TC_PB_I64:
		if (r->end - r->p < 8) {
			return tc_pb_fail(r, start, "truncated 64-bit field");
		}
		f->u = 0;
		for (int i = 7; i >= 0; i--) {
			f->u = (f->u << 8) | r->p[i];
		}
		r->p += 8;
		return 1;
	case TC_PB_I32:
		if (r->end - r->p < 4) {
			return tc_pb_fail(r, start, "truncated 32-bit field");
		}
		f->u = (uint64_t)r->p[0] | (uint64_t)r->p[1] << 8 |
			(uint64_t)r->p[2] << 16 | (uint64_t)r->p[3] << 24;
		r->p += 4;
		return 1;
	case TC_PB_LEN: {
		uint64_t len;
		if (!tc_pb_varint(&r->p, r->end, &len)) {
			return tc_pb_fail(r, start, "truncated length");
		}
		if (len > (uint64_t)(r->end - r->p)) {
			return tc_pb_fail(r, start, "length runs past the end of its message");
		}
		f->data = r->p;
		f->len = (size_t)len;
		r->p += len;
		return 1;
	}
	default:
		return tc_pb_fail(r, start, "unsupported wire type");
	}
}

/* Byte offset of the last failure (or of the cursor) from base. */
static inline int64_t tc_pb_offset(const struct tc_pb *r) {
	return (int64_t)((r->at ? r->at : r->p) - r->base);
}

static inline int64_t tc_pb_zigzag(uint64_t v) {
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The inverse: sint64's wire value of v. */
static inline uint64_t tc_pb_zigzag_enc(int64_t v) {
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline double tc_pb_double(uint64_t v) {
	union { uint64_t u; double d; } c = { .u = v };
	return c.d;
}

#endif
