/* The model's arg lists: a packed varint encoding in one byte buffer. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "model/model_private.h"
#include "util/num.h"
#include "util/pbwire.h"
#include "util/prefault.h"
#include "util/xalloc.h"

/* ---- args ---- */

/*
 * Record codes (header bits 0-2): enum tc_arg_type, except that a bool's
 * value is in its code, so bools take no value bytes. Bit 3 marks a list's
 * last record; being in the header's first byte it can be set once the
 * record is written without changing its length.
 */
#define ARG_BOOL_TRUE 5
#define ARG_LAST 8
#define ARG_MAX_REC 16 /* header (36 bits: 6 bytes) + value (10) */

static size_t put_varint(uint8_t *p, uint64_t v) {
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static uint64_t get_varint(const uint8_t **pp) {
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			break;
		}
	}
	*pp = p;
	return v;
}

/* Mark the open list's last record (a list begun and never ended is closed
 * by the next begin, so lists stay contiguous and merge can walk them). */
static void args_close(struct tc_model *m) {
	if (m->arg_last_hdr != TC_NONE) {
		m->argb[m->arg_last_hdr] |= ARG_LAST;
		m->arg_last_hdr = TC_NONE;
	}
}

void tc_model_args_close(struct tc_model *m) {
	args_close(m);
}

/* A new list begins at offset at: it has no costs yet. */
static inline void notes_begin(struct tc_model *m, size_t at) {
	m->cn.list = (uint32_t)at;
	m->cn.seen = m->cn.set = 0;
}

uint32_t tc_model_args_begin(struct tc_model *m) {
	args_close(m);
	notes_begin(m, m->n_argb);
	return (uint32_t)m->n_argb;
}

/* Crossing a multiple of this many arg bytes hints the next stretch. */
#define PREFAULT_ARGB ((size_t)1 << 20)

/* Whether a record may be added: false past the cap (flagged); grows argb
 * for one more record. Out of line, so the common case saves no registers. */
static __attribute__((noinline)) bool arg_room(struct tc_model *m) {
	if (m->n_argb + ARG_MAX_REC > m->max_arg_bytes) {
		m->over_arg_bytes = true;
		return false;
	}
	TC_GROW(m->argb, m->cap_argb, m->n_argb + ARG_MAX_REC);
	return true;
}

/* The list's first record of a cost (bit 1 flops, 2 bytes), read as
 * tc_model_arg_costs reads it: a plain number is noted (a list whose
 * first is not, tc_model_note_costs does not note). */
static void note_cost_arg(struct tc_model *m, unsigned bit, unsigned code, uint64_t v) {
	struct tc_cost_notes *cn = &m->cn;
	if (cn->seen & bit) {
		return;
	}
	cn->seen |= (uint8_t)bit;
	if (code == TC_ARG_INT || code == TC_ARG_UINT) {
		*(bit == 1 ? &cn->flops : &cn->bytes) =
			code == TC_ARG_INT ? tc_pb_zigzag(v) : (int64_t)v;
		cn->set |= (uint8_t)bit;
	}
}

/* The model flags some keys set: analyses skip reading args without them. */
static __attribute__((noinline)) void arg_flags(struct tc_model *m, uint32_t key, unsigned code,
		uint64_t v) {
	if (key == m->key.flops || key == m->key.bytes_accessed) {
		m->event_costs = true;
		note_cost_arg(m, key == m->key.flops ? 1 : 2, code, v);
	}
	if (key == m->key.blocks_per_sm || key == m->key.occupancy) {
		m->fill_args = true;
	}
	if (key == m->key.bytes || key == m->key.memory_kind) {
		m->copy_args = true;
	}
}

/* Append one record (code: a record code, see above). Readers add one or
 * more per event, so the checks and flags are one test each here. */
static inline void arg_put(struct tc_model *m, uint32_t key, unsigned code, uint64_t v) {
	if (!tc_model_keeps_arg(m, key)) {
		return;
	}
	size_t was = m->n_argb;
	if (__builtin_expect(was + ARG_MAX_REC > m->cap_argb ||
			was + ARG_MAX_REC > m->max_arg_bytes, 0) && !arg_room(m)) {
		return;
	}
	if (key < 64 && (m->flag_keys >> key & 1)) {
		arg_flags(m, key, code, v);
	}
	m->arg_last_hdr = (uint32_t)was;
	uint8_t *p = m->argb + was;
	p += put_varint(p, (uint64_t)key << 4 | code);
	switch (code) {
	case TC_ARG_INT:
	case TC_ARG_UINT:
	case TC_ARG_STR:
		p += put_varint(p, v);
		break;
	case TC_ARG_DOUBLE:
		for (int i = 0; i < 8; i++) {
			*p++ = (uint8_t)(v >> (8 * i));
		}
		break;
	}
	m->n_argb = (size_t)(p - m->argb);
	if (__builtin_expect((was ^ m->n_argb) >= PREFAULT_ARGB, 0)) {
		tc_prefault_next(m->argb, 1, m->n_argb, PREFAULT_ARGB, m->cap_argb);
	}
}

void tc_model_arg_int(struct tc_model *m, uint32_t key, int64_t v) {
	arg_put(m, key, TC_ARG_INT, tc_pb_zigzag_enc(v));
}

void tc_model_arg_uint(struct tc_model *m, uint32_t key, uint64_t v) {
	arg_put(m, key, TC_ARG_UINT, v);
}

/* begin, one record, end: the common list of one number (a correlation id
 * on each device event) in one call. Written out rather than calling
 * begin and end: their checks of the open list cost 10 of the reader's
 * 700 instructions per event, and here the list is known to be this one
 * record or none. */
static inline uint32_t args_one(struct tc_model *m, uint32_t key, unsigned code, uint64_t v) {
	args_close(m);
	uint32_t at = (uint32_t)m->n_argb;
	notes_begin(m, at);
	arg_put(m, key, code, v);
	if (m->arg_last_hdr == TC_NONE) {
		return TC_NONE;
	}
	args_close(m);
	return at;
}

uint32_t tc_model_args_one_int(struct tc_model *m, uint32_t key, int64_t v) {
	return args_one(m, key, TC_ARG_INT, tc_pb_zigzag_enc(v));
}

uint32_t tc_model_args_one_uint(struct tc_model *m, uint32_t key, uint64_t v) {
	return args_one(m, key, TC_ARG_UINT, v);
}

void tc_model_arg_double(struct tc_model *m, uint32_t key, double v) {
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	arg_put(m, key, TC_ARG_DOUBLE, bits);
}

void tc_model_arg_str(struct tc_model *m, uint32_t key, uint32_t str) {
	arg_put(m, key, TC_ARG_STR, str);
}

void tc_model_arg_bool(struct tc_model *m, uint32_t key, bool v) {
	arg_put(m, key, v ? ARG_BOOL_TRUE : TC_ARG_BOOL, 0);
}

void tc_model_arg_add(struct tc_model *m, const struct tc_arg *a) {
	switch (a->type) {
	case TC_ARG_INT:
		tc_model_arg_int(m, a->key, a->v.i);
		break;
	case TC_ARG_UINT:
		tc_model_arg_uint(m, a->key, a->v.u);
		break;
	case TC_ARG_DOUBLE:
		tc_model_arg_double(m, a->key, a->v.d);
		break;
	case TC_ARG_STR:
		tc_model_arg_str(m, a->key, a->v.s);
		break;
	case TC_ARG_BOOL:
		tc_model_arg_bool(m, a->key, a->v.i != 0);
		break;
	}
}

uint32_t tc_model_args_end(struct tc_model *m, uint32_t begin) {
	if (m->arg_last_hdr == TC_NONE || m->arg_last_hdr < begin) {
		return TC_NONE;
	}
	args_close(m);
	return begin;
}

/* Decode the record at pos; returns the offset just past it. */
/* A record's value, its header h read: *out set, p past the record. */
static inline const uint8_t *arg_value(const uint8_t *p, uint64_t h, struct tc_arg *out) {
	unsigned code = (unsigned)(h & 7);
	out->key = (uint32_t)(h >> 4);
	out->v.u = 0;
	switch (code) {
	case TC_ARG_INT: {
		uint64_t z = get_varint(&p);
		out->v.i = tc_pb_zigzag(z);
		break;
	}
	case TC_ARG_UINT:
		out->v.u = get_varint(&p);
		break;
	case TC_ARG_DOUBLE: {
		uint64_t bits = 0;
		for (int i = 0; i < 8; i++) {
			bits |= (uint64_t)p[i] << (8 * i);
		}
		p += 8;
		memcpy(&out->v.d, &bits, sizeof(bits));
		break;
	}
	case TC_ARG_STR:
		out->v.s = (uint32_t)get_varint(&p);
		break;
	case ARG_BOOL_TRUE:
		out->v.i = 1;
		code = TC_ARG_BOOL;
		break;
	}
	out->type = (uint8_t)code;
	return p;
}

uint32_t tc_model_arg_decode(const struct tc_model *m, uint32_t pos, struct tc_arg *out,
		bool *last) {
	const uint8_t *p = m->argb + pos;
	uint64_t h = get_varint(&p);
	p = arg_value(p, h, out);
	*last = h & ARG_LAST;
	return (uint32_t)(p - m->argb);
}

uint32_t tc_model_arg_next(const struct tc_model *m, uint32_t pos, struct tc_arg *out) {
	bool last;
	uint32_t next = tc_model_arg_decode(m, pos, out, &last);
	return last ? TC_NONE : next;
}

/* The records decoded in line (launch linking looks up every device
 * event's correlation id). */
bool tc_model_arg_find(const struct tc_model *m, uint32_t first, uint32_t key,
		struct tc_arg *out) {
	if (first == TC_NONE) {
		return false;
	}
	const uint8_t *p = m->argb + first;
	for (;;) {
		uint64_t h = get_varint(&p);
		p = arg_value(p, h, out);
		if (out->key == key) {
			return true;
		}
		if (h & ARG_LAST) {
			return false;
		}
	}
}

unsigned tc_model_arg_find2(const struct tc_model *m, uint32_t first, uint32_t k0, uint32_t k1,
		struct tc_arg out[2]) {
	unsigned found = 0;
	if (first == TC_NONE) {
		return 0;
	}
	/* Decoded in line, as tc_model_arg_find: a cost walk reads every
	 * event's list. The other keys' values are stepped over, not
	 * decoded: costs mostly follow an event's ids. */
	const uint8_t *p = m->argb + first;
	for (;;) {
		uint64_t h = get_varint(&p);
		uint32_t key = (uint32_t)(h >> 4);
		unsigned want = key == k0 && !(found & 1) ? 1 : key == k1 && !(found & 2) ? 2 : 0;
		if (want) {
			p = arg_value(p, h, &out[want - 1]);
			found |= want;
		} else if ((h & 7) == TC_ARG_DOUBLE) {
			p += 8;
		} else if ((h & 7) <= TC_ARG_STR) {
			/* int, uint, string id: a varint (bools have no bytes) */
			while (*p++ & 0x80) {
			}
		}
		if (found == 3 || (h & ARG_LAST)) {
			return found;
		}
	}
}

/* One walk, integers decoded in line: the cost column reads every event's
 * list, and its costs are mostly integers. Any other value goes the
 * general way (arg_value, tc_model_arg_value_i64). */
unsigned tc_model_arg_costs(const struct tc_model *m, uint32_t first, int64_t *flops,
		int64_t *bytes) {
	if (first == TC_NONE) {
		return 0;
	}
	const uint32_t kf = m->key.flops, kb = m->key.bytes_accessed;
	const uint8_t *p = m->argb + first;
	unsigned seen = 0, set = 0;
	for (;;) {
		uint64_t h = get_varint(&p);
		uint32_t key = (uint32_t)(h >> 4);
		unsigned code = (unsigned)(h & 7);
		unsigned want = key == kf && !(seen & 1) ? 1 : key == kb && !(seen & 2) ? 2 : 0;
		if (want) {
			int64_t *out = want == 1 ? flops : bytes;
			seen |= want;
			if (code == TC_ARG_INT) {
				*out = tc_pb_zigzag(get_varint(&p));
				set |= want;
			} else if (code == TC_ARG_UINT) {
				*out = (int64_t)get_varint(&p);
				set |= want;
			} else {
				struct tc_arg a;
				p = arg_value(p, h, &a);
				set |= tc_model_arg_value_i64(m, &a, out) ? want : 0;
			}
		} else if (code == TC_ARG_DOUBLE) {
			p += 8;
		} else if (code <= TC_ARG_STR) {
			while (*p++ & 0x80) {
			}
		}
		if (seen == 3 || (h & ARG_LAST)) {
			return set;
		}
	}
}

bool tc_model_arg_value_num(const struct tc_model *m, const struct tc_arg *a, double *out) {
	if (!a) {
		return false;
	}
	switch (a->type) {
	case TC_ARG_INT:
	case TC_ARG_BOOL:
		*out = (double)a->v.i;
		return true;
	case TC_ARG_UINT:
		*out = (double)a->v.u;
		return true;
	case TC_ARG_DOUBLE:
		*out = a->v.d;
		return true;
	case TC_ARG_STR: {
		const char *s = tc_model_str(m, a->v.s);
		char *end;
		double d = strtod(s, &end);
		if (end == s || *end || !isfinite(d)) {
			return false;
		}
		*out = d;
		return true;
	}
	}
	return false;
}

bool tc_model_arg_num(const struct tc_model *m, uint32_t first, uint32_t key, double *out) {
	struct tc_arg a;
	return tc_model_arg_find(m, first, key, &a) && tc_model_arg_value_num(m, &a, out);
}

bool tc_model_arg_value_i64(const struct tc_model *m, const struct tc_arg *a, int64_t *out) {
	switch (a->type) {
	case TC_ARG_INT:
	case TC_ARG_BOOL:
		*out = a->v.i;
		return true;
	case TC_ARG_UINT:
		*out = (int64_t)a->v.u;
		return true;
	default: {
		double d;
		if (!tc_model_arg_value_num(m, a, &d) || !tc_double_fits_i64(d)) {
			return false;
		}
		*out = (int64_t)d;
		return true;
	}
	}
}

bool tc_model_arg_i64(const struct tc_model *m, uint32_t first, uint32_t key, int64_t *out) {
	struct tc_arg a;
	return tc_model_arg_find(m, first, key, &a) && tc_model_arg_value_i64(m, &a, out);
}
