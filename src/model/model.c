#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "util/num.h"
#include "util/prefault.h"
#include "util/xalloc.h"

struct tc_model *tc_model_create(void) {
	struct tc_model *m = tc_xcalloc(1, sizeof(*m));
	tc_arena_init(&m->arena, 256 * 1024);
	tc_intern_init(&m->strings, &m->arena);
	/* The keys read back first: they are the ids below key_end. */
	m->key.bytes = tc_model_intern(m, "bytes");
	m->key.flops = tc_model_intern(m, "flops");
	m->key.bytes_accessed = tc_model_intern(m, "bytes_accessed");
	m->key.correlation = tc_model_intern(m, "correlation");
	m->key.step = tc_model_intern(m, "step");
	m->key.hlo_module = tc_model_intern(m, "hlo_module");
	m->key.memory_kind = tc_model_intern(m, "memory_kind");
	m->key.blocks_per_sm = tc_model_intern(m, "blocks per SM");
	m->key.occupancy = tc_model_intern(m, "est. achieved occupancy %");
	m->key_end = (uint32_t)m->strings.n;
	m->key.external_id = tc_model_intern(m, "External id");
	m->key.stream = tc_model_intern(m, "stream");
	m->key.group_id = tc_model_intern(m, "group_id");
	m->key.hlo_op = tc_model_intern(m, "hlo_op");
	m->key.tf_op = tc_model_intern(m, "tf_op");
	m->key.long_name = tc_model_intern(m, "long_name");
	m->key.collective = tc_model_intern(m, "collective");
	m->arg_last_hdr = TC_NONE;
	m->max_arg_bytes = (size_t)UINT32_MAX - 32;
	m->op_nslots = 1024;
	m->op_slots = tc_xcalloc(m->op_nslots, sizeof(*m->op_slots));
	return m;
}

static void events_free(struct tc_events *e) {
	free(e->start);
	free(e->dur);
	free(e->op);
	free(e->track);
	free(e->args);
	free(e->depth);
	free(e->flags);
	memset(e, 0, sizeof(*e));
}

void tc_model_destroy(struct tc_model *m) {
	if (!m) {
		return;
	}
	events_free(&m->ev);
	free(m->samples.ts);
	free(m->samples.value);
	free(m->samples.counter);
	free(m->sources);
	free(m->hosts);
	free(m->devices);
	free(m->tracks);
	free(m->ops);
	free(m->argb);
	free(m->aggs);
	free(m->counters);
	free(m->flows);
	free(m->warnings);
	free(m->op_slots);
	free(m->ctr_slots);
	tc_intern_finish(&m->strings);
	tc_arena_finish(&m->arena);
	free(m);
}

uint32_t tc_model_add_source(struct tc_model *m, const char *path, const char *format,
		const char *compression, uint64_t file_size, uint64_t data_size) {
	TC_GROW(m->sources, m->cap_sources, m->n_sources + 1);
	struct tc_source *s = &m->sources[m->n_sources];
	s->path = tc_model_intern(m, path);
	s->format = tc_model_intern(m, format);
	s->compression = tc_model_intern(m, compression);
	s->file_size = file_size;
	s->data_size = data_size;
	s->host = TC_NONE;
	s->dev = s->ino = 0;
	return (uint32_t)m->n_sources++;
}

uint32_t tc_model_add_host(struct tc_model *m, uint32_t name, uint32_t source) {
	TC_GROW(m->hosts, m->cap_hosts, m->n_hosts + 1);
	m->hosts[m->n_hosts] = (struct tc_host){ .name = name, .source = source };
	if (source < m->n_sources && m->sources[source].host == TC_NONE) {
		m->sources[source].host = (uint32_t)m->n_hosts;
	}
	return (uint32_t)m->n_hosts++;
}

uint32_t tc_model_add_device(struct tc_model *m, uint32_t name, enum tc_device_kind kind) {
	TC_GROW(m->devices, m->cap_devices, m->n_devices + 1);
	m->devices[m->n_devices] = (struct tc_device){
		.name = name,
		.kind = (uint8_t)kind,
		.ordinal = -1,
		.host = m->n_hosts ? (uint32_t)m->n_hosts - 1 : TC_NONE,
		.args = TC_NONE,
	};
	return (uint32_t)m->n_devices++;
}

uint32_t tc_model_add_track(struct tc_model *m, uint32_t device, uint32_t name,
		enum tc_track_kind kind, int64_t src_id) {
	TC_GROW(m->tracks, m->cap_tracks, m->n_tracks + 1);
	m->tracks[m->n_tracks] = (struct tc_track){
		.name = name,
		.device = device,
		.kind = (uint8_t)kind,
		.src_id = src_id,
		.sort = (int32_t)m->n_tracks,
		.parent = TC_NONE,
	};
	return (uint32_t)m->n_tracks++;
}

static uint32_t op_hash(uint32_t name, uint32_t category, uint8_t kind) {
	uint64_t k = ((uint64_t)name * 0x9E3779B97F4A7C15ull) ^
		((uint64_t)category * 0xC2B2AE3D27D4EB4Full) ^ kind;
	return (uint32_t)(k ^ (k >> 29));
}

static void op_rehash(struct tc_model *m, size_t nslots) {
	free(m->op_slots);
	m->op_slots = tc_xcalloc(nslots, sizeof(*m->op_slots));
	m->op_nslots = nslots;
	for (size_t id = 0; id < m->n_ops; id++) {
		const struct tc_op *o = &m->ops[id];
		size_t i = op_hash(o->name, o->category, o->kind) & (nslots - 1);
		while (m->op_slots[i]) {
			i = (i + 1) & (nslots - 1);
		}
		m->op_slots[i] = (uint32_t)id + 1;
	}
}

uint32_t tc_model_add_op(struct tc_model *m, uint32_t name, uint32_t category,
		enum tc_op_kind kind) {
	TC_GROW(m->ops, m->cap_ops, m->n_ops + 1);
	m->ops[m->n_ops] = (struct tc_op){
		.name = name,
		.category = category,
		.kind = (uint8_t)kind,
		.flops = -1,
		.bytes = -1,
		.args = TC_NONE,
	};
	uint32_t id = (uint32_t)m->n_ops++;
	if (m->n_ops * 2 > m->op_nslots) {
		op_rehash(m, m->op_nslots * 2);
	} else {
		size_t i = op_hash(name, category, (uint8_t)kind) & (m->op_nslots - 1);
		while (m->op_slots[i]) {
			i = (i + 1) & (m->op_nslots - 1);
		}
		m->op_slots[i] = id + 1;
	}
	return id;
}

uint32_t tc_model_op(struct tc_model *m, uint32_t name, uint32_t category,
		enum tc_op_kind kind) {
	size_t i = op_hash(name, category, (uint8_t)kind) & (m->op_nslots - 1);
	while (m->op_slots[i]) {
		const struct tc_op *o = &m->ops[m->op_slots[i] - 1];
		if (o->name == name && o->category == category && o->kind == kind) {
			return m->op_slots[i] - 1;
		}
		i = (i + 1) & (m->op_nslots - 1);
	}
	return tc_model_add_op(m, name, category, kind);
}

/* Every PREFAULT_EVENTS events, hint each column's stretch after the next:
 * 1-2 MiB of all columns ahead of the writer. The pages the helper zeroes
 * are still in the shared L3 when the reader writes them; 4-8 MiB ahead
 * (1 << 17) they had left it more often (Perfetto read 2-8 % slower);
 * nearer (1 << 13, 1 << 14) the reader catches up with the helper. */
#define PREFAULT_EVENTS ((size_t)1 << 15)

static void prefault_events(struct tc_events *e, size_t i) {
	tc_prefault_next(e->start, sizeof(*e->start), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->dur, sizeof(*e->dur), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->op, sizeof(*e->op), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->track, sizeof(*e->track), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->args, sizeof(*e->args), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->flags, sizeof(*e->flags), i, PREFAULT_EVENTS, e->cap);
}

static void events_reserve(struct tc_events *e, size_t need) {
	if (need <= e->cap) {
		return;
	}
	size_t cap = e->cap;
	TC_GROW(e->start, cap, need);
	cap = e->cap;
	TC_GROW(e->dur, cap, need);
	cap = e->cap;
	TC_GROW(e->op, cap, need);
	cap = e->cap;
	TC_GROW(e->track, cap, need);
	cap = e->cap;
	TC_GROW(e->args, cap, need);
	cap = e->cap;
	TC_GROW(e->flags, cap, need);
	e->cap = cap;
}

/* Finalize drops the track column (the tracks' ranges say the same): an
 * event added afterwards, or a merge, brings it back. */
static void rebuild_track_column(struct tc_model *m) {
	struct tc_events *e = &m->ev;
	uint32_t *col = tc_xmalloc((e->cap ? e->cap : 1) * sizeof(*col));
	/* Events of no track (a reader bug, before track 0's) stay on none. */
	size_t lead = m->n_tracks ? m->tracks[0].first : e->n;
	for (size_t i = 0; i < lead; i++) {
		col[i] = (uint32_t)m->n_tracks;
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			col[i] = (uint32_t)t;
		}
	}
	e->track = col;
}

/* Inline: add_event_slow and merges ask. */
static inline void restore_track_column(struct tc_model *m) {
	if (!m->ev.track && m->ev.cap) {
		rebuild_track_column(m);
	}
}

/* Event i's columns; the model is no longer finalized. */
static inline uint32_t put_event(struct tc_model *m, size_t i, uint32_t track, uint32_t op,
		int64_t start_ps, int64_t dur_ps, uint8_t flags) {
	struct tc_events *e = &m->ev;
	e->start[i] = start_ps;
	e->dur[i] = dur_ps;
	e->op[i] = op;
	e->track[i] = track;
	e->args[i] = TC_NONE;
	e->flags[i] = flags;
	m->finalized = false;
	return (uint32_t)i;
}

/* Every case of tc_model_add_event; it calls this for all but the plain
 * one. */
static __attribute__((noinline)) uint32_t add_event_slow(struct tc_model *m, uint32_t track,
		uint32_t op, int64_t start_ps, int64_t dur_ps, uint8_t flags) {
	struct tc_events *e = &m->ev;
	size_t i;
	restore_track_column(m);
	if (m->max_events && e->n >= m->max_events && e->n > 0) {
		m->over_max_events = true;
		i = e->n - 1;
	} else {
		events_reserve(e, e->n + 1);
		i = e->n++;
		if ((i & (PREFAULT_EVENTS - 1)) == 0) {
			prefault_events(e, i);
		}
	}
	if (dur_ps < 0) {
		dur_ps = 0;
		flags |= TC_EV_CLAMPED;
		m->n_negative_dur++;
	} else if (dur_ps > TC_MAX_DUR_PS) {
		dur_ps = 0;
		flags |= TC_EV_CLAMPED;
		m->n_implausible++;
	}
	if (start_ps > TC_MAX_ABS_PS || start_ps < -TC_MAX_ABS_PS) {
		start_ps = start_ps > 0 ? TC_MAX_ABS_PS : -TC_MAX_ABS_PS;
		flags |= TC_EV_CLAMPED;
		m->n_implausible++;
	}
	return put_event(m, i, track, op, start_ps, dur_ps, flags);
}

/*
 * Readers call this once per event (23 M times for the Perfetto bench
 * trace): one test sends growth, the cap, a prefault hint, a missing track
 * column and clamping to add_event_slow, so the plain case is a few stores
 * with no call and no saved registers.
 */
uint32_t tc_model_add_event(struct tc_model *m, uint32_t track, uint32_t op,
		int64_t start_ps, int64_t dur_ps, uint8_t flags) {
	struct tc_events *e = &m->ev;
	size_t i = e->n;
	/* max_events - 1 wraps when there is no cap; dur_ps as unsigned is
	 * out of range when negative too. */
	if (__builtin_expect(i >= e->cap || !e->track || i > m->max_events - 1 ||
			(i & (PREFAULT_EVENTS - 1)) == 0 ||
			(uint64_t)dur_ps > (uint64_t)TC_MAX_DUR_PS ||
			(uint64_t)start_ps + (uint64_t)TC_MAX_ABS_PS > 2 * (uint64_t)TC_MAX_ABS_PS, 0)) {
		return add_event_slow(m, track, op, start_ps, dur_ps, flags);
	}
	e->n = i + 1;
	return put_event(m, i, track, op, start_ps, dur_ps, flags);
}

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

uint32_t tc_model_args_begin(struct tc_model *m) {
	args_close(m);
	return (uint32_t)m->n_argb;
}

/* Crossing a multiple of this many arg bytes hints the next stretch. */
#define PREFAULT_ARGB ((size_t)1 << 20)

/* Append one record (code: a record code, see above). */
static void arg_put(struct tc_model *m, uint32_t key, unsigned code, uint64_t v) {
	if (!tc_model_keeps_arg(m, key)) {
		return;
	}
	if (m->n_argb + ARG_MAX_REC > m->max_arg_bytes) {
		m->over_arg_bytes = true;
		return;
	}
	size_t was = m->n_argb;
	TC_GROW(m->argb, m->cap_argb, m->n_argb + ARG_MAX_REC);
	if (key == m->key.flops || key == m->key.bytes_accessed) {
		m->event_costs = true;
	}
	m->arg_last_hdr = (uint32_t)m->n_argb;
	uint8_t *p = m->argb + m->n_argb;
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
	if ((was ^ m->n_argb) >= PREFAULT_ARGB) {
		tc_prefault_next(m->argb, 1, m->n_argb, PREFAULT_ARGB, m->cap_argb);
	}
}

static uint64_t zigzag(int64_t v) {
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void tc_model_arg_int(struct tc_model *m, uint32_t key, int64_t v) {
	arg_put(m, key, TC_ARG_INT, zigzag(v));
}

void tc_model_arg_uint(struct tc_model *m, uint32_t key, uint64_t v) {
	arg_put(m, key, TC_ARG_UINT, v);
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
static uint32_t arg_decode(const struct tc_model *m, uint32_t pos, struct tc_arg *out,
		bool *last) {
	const uint8_t *p = m->argb + pos;
	uint64_t h = get_varint(&p);
	unsigned code = (unsigned)(h & 7);
	out->key = (uint32_t)(h >> 4);
	out->v.u = 0;
	switch (code) {
	case TC_ARG_INT: {
		uint64_t z = get_varint(&p);
		out->v.i = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
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
	*last = h & ARG_LAST;
	return (uint32_t)(p - m->argb);
}

uint32_t tc_model_arg_next(const struct tc_model *m, uint32_t pos, struct tc_arg *out) {
	bool last;
	uint32_t next = arg_decode(m, pos, out, &last);
	return last ? TC_NONE : next;
}

bool tc_model_arg_find(const struct tc_model *m, uint32_t first, uint32_t key,
		struct tc_arg *out) {
	for (uint32_t pos = first; pos != TC_NONE;) {
		pos = tc_model_arg_next(m, pos, out);
		if (out->key == key) {
			return true;
		}
	}
	return false;
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

bool tc_model_arg_i64(const struct tc_model *m, uint32_t first, uint32_t key, int64_t *out) {
	struct tc_arg a;
	if (!tc_model_arg_find(m, first, key, &a)) {
		return false;
	}
	switch (a.type) {
	case TC_ARG_INT:
	case TC_ARG_BOOL:
		*out = a.v.i;
		return true;
	case TC_ARG_UINT:
		*out = (int64_t)a.v.u;
		return true;
	default: {
		double d;
		if (!tc_model_arg_value_num(m, &a, &d) || !tc_double_fits_i64(d)) {
			return false;
		}
		*out = (int64_t)d;
		return true;
	}
	}
}

void tc_model_add_aggregate(struct tc_model *m, uint32_t track, uint32_t op,
		int64_t count, int64_t dur_ps) {
	TC_GROW(m->aggs, m->cap_aggs, m->n_aggs + 1);
	m->aggs[m->n_aggs++] = (struct tc_aggregate){
		.op = op, .track = track, .count = count, .dur_ps = dur_ps,
	};
}

static size_t ctr_hash(uint32_t device, uint32_t name, uint32_t group) {
	uint64_t k = ((uint64_t)name * 0x9E3779B97F4A7C15ull) ^
		((uint64_t)device * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)group * 0x165667B19E3779F9ull);
	return (size_t)(k ^ (k >> 29));
}

/* Slot of (device, name, group): its id + 1, or the empty slot to fill. */
static uint32_t *ctr_slot(const struct tc_model *m, uint32_t device, uint32_t name,
		uint32_t group) {
	size_t i = ctr_hash(device, name, group) & (m->ctr_nslots - 1);
	for (;; i = (i + 1) & (m->ctr_nslots - 1)) {
		uint32_t id = m->ctr_slots[i];
		if (!id) {
			return &m->ctr_slots[i];
		}
		const struct tc_counter *c = &m->counters[id - 1];
		if (c->device == device && c->name == name && c->group == group) {
			return &m->ctr_slots[i];
		}
	}
}

/* Hash the counters added since the last lookup (merge appends directly),
 * with room for one more. A later duplicate takes the slot, so lookups
 * return the last match as the scan from the end did. */
static void ctr_index(struct tc_model *m) {
	if (m->ctr_hashed > m->n_counters) {
		/* Emptied (merged away): start over. */
		memset(m->ctr_slots, 0, m->ctr_nslots * sizeof(*m->ctr_slots));
		m->ctr_hashed = 0;
	}
	if ((m->n_counters + 1) * 2 > m->ctr_nslots) {
		size_t n = m->ctr_nslots ? m->ctr_nslots : 64;
		while ((m->n_counters + 1) * 2 > n) {
			n *= 2;
		}
		free(m->ctr_slots);
		m->ctr_slots = tc_xcalloc(n, sizeof(*m->ctr_slots));
		m->ctr_nslots = n;
		m->ctr_hashed = 0;
	}
	for (; m->ctr_hashed < m->n_counters; m->ctr_hashed++) {
		const struct tc_counter *c = &m->counters[m->ctr_hashed];
		*ctr_slot(m, c->device, c->name, c->group) = (uint32_t)m->ctr_hashed + 1;
	}
}

uint32_t tc_model_counter(struct tc_model *m, uint32_t device, uint32_t name,
		uint32_t unit, uint32_t group) {
	/* Samples of one counter often come in a row. */
	if (m->n_counters) {
		const struct tc_counter *c = &m->counters[m->n_counters - 1];
		if (c->device == device && c->name == name && c->group == group) {
			return (uint32_t)m->n_counters - 1;
		}
	}
	/* A hash, not a scan: a trace with many series made this quadratic. */
	ctr_index(m);
	uint32_t *slot = ctr_slot(m, device, name, group);
	if (*slot) {
		return *slot - 1;
	}
	TC_GROW(m->counters, m->cap_counters, m->n_counters + 1);
	m->counters[m->n_counters] = (struct tc_counter){
		.name = name, .device = device, .unit = unit, .group = group,
	};
	*slot = (uint32_t)m->n_counters + 1;
	m->ctr_hashed = m->n_counters + 1;
	return (uint32_t)m->n_counters++;
}

void tc_model_add_sample(struct tc_model *m, uint32_t counter, int64_t ts_ps, double value) {
	struct tc_samples *s = &m->samples;
	if (s->n == s->cap) {
		size_t cap = s->cap;
		TC_GROW(s->ts, cap, s->n + 1);
		cap = s->cap;
		TC_GROW(s->value, cap, s->n + 1);
		cap = s->cap;
		TC_GROW(s->counter, cap, s->n + 1);
		s->cap = cap;
	}
	if (ts_ps > TC_MAX_ABS_PS || ts_ps < -TC_MAX_ABS_PS) {
		ts_ps = ts_ps > 0 ? TC_MAX_ABS_PS : -TC_MAX_ABS_PS;
		m->n_implausible++;
	}
	if ((s->n & (PREFAULT_EVENTS - 1)) == 0) {
		tc_prefault_next(s->ts, sizeof(*s->ts), s->n, PREFAULT_EVENTS, s->cap);
		tc_prefault_next(s->value, sizeof(*s->value), s->n, PREFAULT_EVENTS, s->cap);
		tc_prefault_next(s->counter, sizeof(*s->counter), s->n, PREFAULT_EVENTS, s->cap);
	}
	s->ts[s->n] = ts_ps;
	s->value[s->n] = value;
	s->counter[s->n] = counter;
	s->n++;
	m->finalized = false;
}

void tc_model_add_flow(struct tc_model *m, uint32_t from, uint32_t to,
		enum tc_flow_kind kind, uint64_t id) {
	TC_GROW(m->flows, m->cap_flows, m->n_flows + 1);
	m->flows[m->n_flows++] = (struct tc_flow){
		.from = from, .to = to, .kind = (uint8_t)kind, .id = id,
	};
}

static void warn_add(struct tc_model *m, uint32_t msg, uint64_t count) {
	for (size_t i = 0; i < m->n_warnings; i++) {
		if (m->warnings[i].msg == msg) {
			m->warnings[i].count += count;
			return;
		}
	}
	TC_GROW(m->warnings, m->cap_warnings, m->n_warnings + 1);
	m->warnings[m->n_warnings++] = (struct tc_warning){ .msg = msg, .count = count };
}

void tc_model_warn(struct tc_model *m, uint64_t count, const char *fmt, ...) {
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	warn_add(m, tc_model_intern(m, buf), count ? count : 1);
}

/* ---- merge ---- */

static uint32_t remap_str(uint32_t *map, uint32_t id) {
	return id == TC_NONE ? TC_NONE : map[id];
}

static uint32_t off(uint32_t idx, size_t base) {
	return idx == TC_NONE ? TC_NONE : idx + (uint32_t)base;
}

/* A src arg list's offset → its copy's in dst. */
struct list_map {
	uint32_t *from, *to;
	size_t n, cap;
};

/*
 * Copy src's arg lists into dst, re-encoded: keys and string values take
 * dst's string ids, which can change the records' lengths, so each list's
 * new offset is recorded (lists are contiguous and walked in order; the
 * offsets come out sorted for arg_map).
 */
static void merge_args(struct tc_model *dst, struct tc_model *src, const uint32_t *smap,
		struct list_map *lm) {
	args_close(dst);
	args_close(src);
	size_t cap_to = 0;
	bool start = true;
	for (uint32_t pos = 0; pos < src->n_argb;) {
		if (start) {
			TC_GROW(lm->from, lm->cap, lm->n + 1);
			TC_GROW(lm->to, cap_to, lm->n + 1);
			lm->from[lm->n] = pos;
			lm->to[lm->n++] = tc_model_args_begin(dst);
		}
		struct tc_arg a;
		pos = arg_decode(src, pos, &a, &start);
		a.key = smap[a.key];
		if (a.type == TC_ARG_STR) {
			a.v.s = smap[a.v.s];
		}
		tc_model_arg_add(dst, &a);
		if (start && dst->over_arg_bytes) {
			lm->to[lm->n - 1] = TC_NONE;
		}
	}
	args_close(dst);
}

static uint32_t arg_map(const struct list_map *lm, uint32_t first) {
	if (first == TC_NONE) {
		return TC_NONE;
	}
	size_t lo = 0, hi = lm->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (lm->from[mid] < first) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < lm->n && lm->from[lo] == first ? lm->to[lo] : TC_NONE;
}

void tc_model_merge(struct tc_model *dst, struct tc_model *src) {
	/* A finalized model has no track column: bring it back to copy it. */
	restore_track_column(dst);
	restore_track_column(src);
	uint32_t *smap = tc_xmalloc(src->strings.n * sizeof(*smap));
	for (size_t i = 0; i < src->strings.n; i++) {
		smap[i] = tc_intern_n(&dst->strings, src->strings.v[i].s, src->strings.v[i].len);
	}
	int64_t shift = 0;
	if (dst->n_sources == 0 && dst->ev.n == 0) {
		dst->origin_ns = src->origin_ns;
		dst->origin_epoch = src->origin_epoch;
	} else if (dst->origin_epoch == src->origin_epoch) {
		int64_t d = src->origin_ns - dst->origin_ns;
		if (d > INT64_MAX / 1000 || d < INT64_MIN / 1000) {
			tc_model_warn(dst, 1, "inputs' time bases are too far apart to align; each starts at 0");
		} else {
			shift = d * 1000;
		}
	} else {
		tc_model_warn(dst, 1, "inputs use different clocks; their timelines are aligned at their origins");
	}
	size_t b_src = dst->n_sources, b_host = dst->n_hosts, b_dev = dst->n_devices;
	size_t b_track = dst->n_tracks, b_op = dst->n_ops;
	size_t b_ev = dst->ev.n, b_ctr = dst->n_counters;

	for (size_t i = 0; i < src->n_sources; i++) {
		struct tc_source s = src->sources[i];
		s.path = smap[s.path];
		s.format = smap[s.format];
		s.compression = smap[s.compression];
		s.host = off(s.host, b_host);
		TC_GROW(dst->sources, dst->cap_sources, dst->n_sources + 1);
		dst->sources[dst->n_sources++] = s;
	}
	for (size_t i = 0; i < src->n_hosts; i++) {
		struct tc_host h = src->hosts[i];
		h.name = smap[h.name];
		h.source = off(h.source, b_src);
		TC_GROW(dst->hosts, dst->cap_hosts, dst->n_hosts + 1);
		dst->hosts[dst->n_hosts++] = h;
	}
	struct list_map lm = {0};
	merge_args(dst, src, smap, &lm);
	dst->over_arg_bytes = dst->over_arg_bytes || src->over_arg_bytes;
	dst->event_costs = dst->event_costs || src->event_costs;
	for (size_t i = 0; i < src->n_devices; i++) {
		struct tc_device d = src->devices[i];
		d.name = smap[d.name];
		d.model = smap[d.model];
		d.vendor = smap[d.vendor];
		d.host = off(d.host, b_host);
		d.args = arg_map(&lm, d.args);
		TC_GROW(dst->devices, dst->cap_devices, dst->n_devices + 1);
		dst->devices[dst->n_devices++] = d;
	}
	for (size_t i = 0; i < src->n_tracks; i++) {
		struct tc_track t = src->tracks[i];
		t.name = smap[t.name];
		t.device = off(t.device, b_dev);
		t.parent = off(t.parent, b_track);
		TC_GROW(dst->tracks, dst->cap_tracks, dst->n_tracks + 1);
		dst->tracks[dst->n_tracks++] = t;
	}
	for (size_t i = 0; i < src->n_ops; i++) {
		const struct tc_op *o = &src->ops[i];
		uint32_t id = tc_model_add_op(dst, smap[o->name], remap_str(smap, o->category),
			(enum tc_op_kind)o->kind);
		dst->ops[id].flags = o->flags;
		dst->ops[id].flops = o->flops;
		dst->ops[id].bytes = o->bytes;
		dst->ops[id].args = arg_map(&lm, o->args);
	}
	events_reserve(&dst->ev, dst->ev.n + src->ev.n);
	for (size_t i = 0; i < src->ev.n; i++) {
		size_t j = dst->ev.n++;
		int64_t st = tc_sat_add(src->ev.start[i], shift);
		if (st > TC_MAX_ABS_PS || st < -TC_MAX_ABS_PS) {
			st = st > 0 ? TC_MAX_ABS_PS : -TC_MAX_ABS_PS;
			dst->n_implausible++;
		}
		dst->ev.start[j] = st;
		dst->ev.dur[j] = src->ev.dur[i];
		dst->ev.op[j] = off(src->ev.op[i], b_op);
		dst->ev.track[j] = off(src->ev.track[i], b_track);
		dst->ev.args[j] = arg_map(&lm, src->ev.args[i]);
		dst->ev.flags[j] = src->ev.flags[i];
	}
	for (size_t i = 0; i < src->n_aggs; i++) {
		const struct tc_aggregate *a = &src->aggs[i];
		tc_model_add_aggregate(dst, off(a->track, b_track), off(a->op, b_op),
			a->count, a->dur_ps);
	}
	for (size_t i = 0; i < src->n_counters; i++) {
		struct tc_counter c = src->counters[i];
		c.name = smap[c.name];
		c.unit = smap[c.unit];
		c.group = smap[c.group];
		c.device = off(c.device, b_dev);
		TC_GROW(dst->counters, dst->cap_counters, dst->n_counters + 1);
		dst->counters[dst->n_counters++] = c;
	}
	for (size_t i = 0; i < src->samples.n; i++) {
		tc_model_add_sample(dst, off(src->samples.counter[i], b_ctr),
			tc_sat_add(src->samples.ts[i], shift), src->samples.value[i]);
	}
	for (size_t i = 0; i < src->n_flows; i++) {
		const struct tc_flow *f = &src->flows[i];
		tc_model_add_flow(dst, off(f->from, b_ev), off(f->to, b_ev),
			(enum tc_flow_kind)f->kind, f->id);
	}
	for (size_t i = 0; i < src->n_warnings; i++) {
		warn_add(dst, smap[src->warnings[i].msg], src->warnings[i].count);
	}
	free(smap);
	free(lm.from);
	free(lm.to);
	dst->n_implausible += src->n_implausible;
	dst->n_negative_dur += src->n_negative_dur;
	dst->finalized = false;

	/* Leave src empty but valid. */
	events_free(&src->ev);
	src->n_sources = src->n_hosts = src->n_devices = src->n_tracks = 0;
	src->n_argb = 0;
	src->n_aggs = src->n_counters = src->n_flows = src->n_warnings = 0;
	src->samples.n = 0;
	src->n_ops = 0;
	op_rehash(src, src->op_nslots);
}

/* ---- finalize ---- */

struct sort_rec {
	int64_t start;
	int64_t dur;
	uint32_t idx;
};

/* Start, then longer first (parents before children), then input order. */
static inline bool rec_before(const struct sort_rec *a, const struct sort_rec *b) {
	if (a->start != b->start) {
		return a->start < b->start;
	}
	if (a->dur != b->dur) {
		return a->dur > b->dur;
	}
	return a->idx < b->idx;
}

#define SORT_MINRUN 32

/*
 * Insertion sort while the records moved stay within a budget: tracks out
 * of order are nearly in order (Kineto-style writers emit a parent after
 * its children, so each parent moves back over its subtree). Returns how
 * far v is sorted; n when all of it.
 */
static size_t insert_sorted(struct sort_rec *v, size_t n, size_t budget) {
	size_t moved = 0, k;
	for (k = 1; k < n; k++) {
		if (!rec_before(&v[k], &v[k - 1])) {
			continue;
		}
		struct sort_rec x = v[k];
		/* A few places back, then bisect: an event that encloses
		 * much (a training step) moves far. */
		size_t m = k - 1, lo = 0;
		for (int step = 0; step < 8 && m > 0; step++, m--) {
			if (!rec_before(&x, &v[m - 1])) {
				lo = m;
				break;
			}
		}
		if (lo != m) {
			size_t hi = m;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (rec_before(&x, &v[mid])) {
					hi = mid;
				} else {
					lo = mid + 1;
				}
			}
			m = lo;
		}
		moved += k - m;
		if (moved > budget) {
			break;
		}
		memmove(v + m + 1, v + m, (k - m) * sizeof(*v));
		v[m] = x;
	}
	return k;
}

/*
 * Sort one track's records, comparisons in line: insertion while that is
 * cheap, else a natural merge sort whose runs shorter than SORT_MINRUN are
 * extended by insertion, O(n log(n / runs)). Not tc_sort_runs: with its
 * comparison callback, a 1 M-event track took 1.4-1.7x as long to
 * finalize (reversed 83 -> 101-140 ms, shuffled 146 -> 211-223 ms).
 */
static void sort_recs(struct sort_rec *v, size_t n) {
	if (insert_sorted(v, n, 8 * n + 4096) >= n) {
		return;
	}
	size_t *run = NULL, cap = 0, nrun = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && !rec_before(&v[j], &v[j - 1])) {
			j++;
		}
		if (j - i < SORT_MINRUN && j < n) {
			j = i + SORT_MINRUN < n ? i + SORT_MINRUN : n;
			insert_sorted(v + i, j - i, SIZE_MAX);
		}
		TC_GROW(run, cap, nrun + 2);
		run[nrun++] = i;
		i = j;
	}
	if (nrun <= 1) {
		free(run);
		return;
	}
	run[nrun] = n;
	struct sort_rec *tmp = tc_xmalloc(n * sizeof(*tmp));
	struct sort_rec *src = v, *dst = tmp;
	while (nrun > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nrun; r += 2) {
			size_t a = run[r], ae = run[r + 1];
			size_t b = ae, be = r + 1 < nrun ? run[r + 2] : ae;
			struct sort_rec *o = dst + a;
			while (a < ae && b < be) {
				*o++ = rec_before(&src[b], &src[a]) ? src[b++] : src[a++];
			}
			memcpy(o, src + a, (ae - a) * sizeof(*o));
			o += ae - a;
			memcpy(o, src + b, (be - b) * sizeof(*o));
			run[out++] = run[r];
		}
		run[out] = n;
		nrun = out;
		struct sort_rec *t = src;
		src = dst;
		dst = t;
	}
	if (src != v) {
		memcpy(v, src, n * sizeof(*v));
	}
	free(tmp);
	free(run);
}

/* The ends of the events enclosing the current one on a track. */
struct nest {
	int64_t *end;
	size_t cap, top;
};

/* Depth of an event starting at s lasting d, given the track's events
 * before it in order; then it encloses what starts before its end. */
static inline uint16_t nest_push(struct nest *st, int64_t s, int64_t d) {
	while (st->top > 0 && st->end[st->top - 1] <= s) {
		st->top--;
	}
	uint16_t depth = st->top > UINT16_MAX ? UINT16_MAX : (uint16_t)st->top;
	/* An instant never encloses anything. */
	if (d > 0) {
		TC_GROW(st->end, st->cap, st->top + 1);
		st->end[st->top++] = s + d;
	}
	return depth;
}

/* True when events are already grouped by track in track order (readers
 * that emit line by line): then finalize moves no event, and this sets the
 * track ranges. */
static bool events_grouped(struct tc_model *m) {
	const struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	uint32_t cur = TC_NONE;
	for (size_t t = 0; t < nt; t++) {
		m->tracks[t].count = 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t t = e->track[i];
		if (t == cur) {
			continue;
		}
		if (t >= nt || (cur != TC_NONE && cur > t)) {
			return false;
		}
		if (cur != TC_NONE) {
			m->tracks[cur].count = (uint32_t)(i - m->tracks[cur].first);
		}
		cur = t;
		m->tracks[t].first = (uint32_t)i;
	}
	if (cur != TC_NONE) {
		m->tracks[cur].count = (uint32_t)(n - m->tracks[cur].first);
	}
	/* Empty tracks start where the previous track ends, as in the general
	 * path. */
	size_t pos = 0;
	for (size_t t = 0; t < nt; t++) {
		if (m->tracks[t].count) {
			pos = (size_t)m->tracks[t].first + m->tracks[t].count;
		} else {
			m->tracks[t].first = (uint32_t)pos;
		}
	}
	return true;
}

static void drop_track_column(struct tc_events *e) {
	free(e->track);
	e->track = NULL;
}

/*
 * Grouping events by track is a stable counting sort done as a scatter: each
 * column is read once in order and written to one sequential stream per
 * track. (A gather through a permutation reads every cache line once per
 * track when tracks interleave.) Each column goes into a fresh buffer and
 * its old buffer takes the next column of the same width, so nothing is
 * copied back.
 *
 * Writers that buffer per thread (the Perfetto SDK's chunks) leave runs of
 * hundreds of events on one track. Then each run moves as one memcpy, and
 * the runs, not the track column, say where: that column's memory takes op
 * instead of a fresh buffer. Faulting in fresh pages is most of the cost.
 */
struct group_run {
	uint32_t bucket;        /* track + 1; 0 = invalid track */
	uint32_t len;
};

struct group {
	struct tc_model *m;
	const uint32_t *track;  /* the old track column */
	const size_t *starts;   /* bucket b's first slot; bucket 0 = invalid track */
	const struct group_run *runs; /* the track column as runs, or NULL */
	size_t n_runs;
};

/* Runs worth a memcpy each: at least this long on average. */
#define GROUP_RUN_MIN 16

#define SCATTER(dst, src, cur) do { \
	memcpy((cur), g->starts, (nt + 1) * sizeof(*(cur))); \
	if (g->runs) { \
		size_t i_ = 0; \
		for (size_t r_ = 0; r_ < g->n_runs; r_++) { \
			size_t b_ = g->runs[r_].bucket, l_ = g->runs[r_].len; \
			memcpy((dst) + (cur)[b_], (src) + i_, l_ * sizeof(*(src))); \
			(cur)[b_] += l_; \
			i_ += l_; \
		} \
	} else { \
		for (size_t i_ = 0; i_ < n; i_++) { \
			uint32_t t_ = g->track[i_]; \
			(dst)[(cur)[t_ < nt ? t_ + 1 : 0]++] = (src)[i_]; \
		} \
	} \
} while (0)

/* Two columns of one width: a into `into` or a fresh buffer, b into a's
 * old one; b's old one is left in *spare. Fresh buffers hold n: the
 * capacity past it would only be faulted in. */
#define SCATTER_PAIR(a, b, type, cur, into, spare) do { \
	type *fresh_ = (into) ? (type *)(void *)(into) : \
		tc_xmalloc((n ? n : 1) * sizeof(type)); \
	SCATTER(fresh_, (a), (cur)); \
	type *old_ = (a); \
	(a) = fresh_; \
	SCATTER(old_, (b), (cur)); \
	*(spare) = (b); \
	(b) = old_; \
} while (0)

/* Depths of track t's events, in order; false (depths unset) if they are
 * not in order: start, then longer first. */
static bool track_depths(struct tc_model *m, size_t t, struct nest *st) {
	struct tc_events *e = &m->ev;
	struct tc_track *tr = &m->tracks[t];
	size_t lo = tr->first, hi = lo + tr->count;
	uint16_t maxd = 0;
	int64_t end = INT64_MIN;
	st->top = 0;
	for (size_t i = lo; i < hi; i++) {
		if (i > lo && (e->start[i - 1] > e->start[i] ||
				(e->start[i - 1] == e->start[i] && e->dur[i - 1] < e->dur[i]))) {
			return false;
		}
		e->depth[i] = nest_push(st, e->start[i], e->dur[i]);
		maxd = e->depth[i] > maxd ? e->depth[i] : maxd;
		end = e->start[i] + e->dur[i] > end ? e->start[i] + e->dur[i] : end;
	}
	tr->max_depth = maxd;
	tr->end = hi > lo ? end : 0;
	return true;
}

/* Both threads take tracks from one counter: tracks are independent. */
struct depth_job {
	struct tc_model *m;
	bool *unsorted;
	atomic_size_t next;
};

static void *depth_worker(void *arg) {
	struct depth_job *j = arg;
	struct nest st = { 0 };
	size_t t;
	while ((t = atomic_fetch_add(&j->next, 1)) < j->m->n_tracks) {
		j->unsorted[t] = !track_depths(j->m, t, &st);
	}
	free(st.end);
	return NULL;
}

/*
 * Depths of every track, which must be grouped; marks the tracks out of
 * order instead. lead: the events on no track, before track 0's. The depth
 * column takes the track column's memory, which grouping no longer needs,
 * or else spare's (a column grouping left over; freed otherwise): their
 * pages are in already, where a fresh column would fault its own.
 */
static void set_depths(struct tc_model *m, size_t lead, bool *unsorted, bool second_thread,
		void *spare) {
	struct tc_events *e = &m->ev;
	size_t n = e->n;
	free(e->depth);
	if (e->track) {
		free(spare);
		spare = e->track;
		e->track = NULL;
	}
	e->depth = spare ? tc_xrealloc(spare, (n ? n : 1) * sizeof(*e->depth)) :
		tc_xmalloc((n ? n : 1) * sizeof(*e->depth));
	memset(e->depth, 0, lead * sizeof(*e->depth)); /* on no stack */
	struct depth_job j = { .m = m, .unsorted = unsorted };
	atomic_init(&j.next, 0);
	pthread_t th;
	bool threaded = second_thread && n >= ((size_t)1 << 20) && m->n_tracks > 1 &&
		pthread_create(&th, NULL, depth_worker, &j) == 0;
	depth_worker(&j);
	if (threaded) {
		pthread_join(th, NULL);
	}
}

/* The time columns; run beside group_rest. */
static void *group_times(void *arg) {
	struct group *g = arg;
	struct tc_model *m = g->m;
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	size_t *cur = tc_xmalloc((nt + 1) * sizeof(*cur));
	void *spare;
	SCATTER_PAIR(e->start, e->dur, int64_t, cur, NULL, &spare);
	free(spare);
	free(cur);
	return NULL;
}

/* The other columns; with flows, where each event went (*inv). A buffer
 * left over for the depths goes in *spare. */
static void group_rest(struct group *g, uint32_t **inv, void **spare) {
	struct tc_model *m = g->m;
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	size_t *cur = tc_xmalloc((nt + 1) * sizeof(*cur));
	/* Routed by runs, the track column is free: op goes into it, and
	 * args' old buffer is left for the depths. */
	uint32_t *into = NULL;
	if (g->runs) {
		into = e->track;
		e->track = NULL;
	}
	SCATTER_PAIR(e->op, e->args, uint32_t, cur, into, spare);
	uint8_t *z = tc_xmalloc((n ? n : 1) * sizeof(*z));
	SCATTER(z, e->flags, cur);
	free(e->flags);
	e->flags = z;
	*inv = NULL;
	if (m->n_flows) {
		*inv = tc_xmalloc(n * sizeof(**inv));
		memcpy(cur, g->starts, (nt + 1) * sizeof(*cur));
		if (g->runs) {
			for (size_t r = 0, i = 0; r < g->n_runs; r++) {
				size_t b = g->runs[r].bucket;
				for (size_t k = 0; k < g->runs[r].len; k++) {
					(*inv)[i++] = (uint32_t)cur[b]++;
				}
			}
		} else {
			for (size_t i = 0; i < n; i++) {
				uint32_t t = g->track[i];
				(*inv)[i] = (uint32_t)cur[t < nt ? t + 1 : 0]++;
			}
		}
	}
	free(cur);
}

#define PERMUTE_RANGE(col, type) do { \
	type *tmp_ = (type *)scratch; \
	for (size_t k_ = 0; k_ < cnt; k_++) { \
		tmp_[k_] = (col)[rec[k_].idx]; \
	} \
	memcpy((col) + lo, tmp_, cnt * sizeof(type)); \
} while (0)

/* Sort one track's grouped events (start, then longer first, then input
 * order); *g2f (grouped → final index, for flows) is made on first use. */
static void sort_track(struct tc_model *m, size_t t, uint32_t **g2f) {
	struct tc_events *e = &m->ev;
	size_t lo = m->tracks[t].first, cnt = m->tracks[t].count;
	struct sort_rec *rec = tc_xmalloc(cnt * sizeof(*rec));
	for (size_t k = 0; k < cnt; k++) {
		rec[k] = (struct sort_rec){ e->start[lo + k], e->dur[lo + k], (uint32_t)(lo + k) };
	}
	sort_recs(rec, cnt);
	for (size_t k = 0; k < cnt; k++) { /* the records carry these two */
		e->start[lo + k] = rec[k].start;
		e->dur[lo + k] = rec[k].dur;
	}
	uint32_t *scratch = tc_xmalloc(cnt * sizeof(*scratch));
	PERMUTE_RANGE(e->op, uint32_t);
	PERMUTE_RANGE(e->args, uint32_t);
	PERMUTE_RANGE(e->flags, uint8_t);
	free(scratch);
	if (m->n_flows) {
		if (!*g2f) {
			*g2f = tc_xmalloc(e->n * sizeof(**g2f));
			for (size_t i = 0; i < e->n; i++) {
				(*g2f)[i] = (uint32_t)i;
			}
		}
		for (size_t k = 0; k < cnt; k++) {
			(*g2f)[rec[k].idx] = (uint32_t)(lo + k);
		}
	}
	free(rec);
}

/* Group interleaved tracks' events (the scatter above); *inv gets where
 * each event went when there are flows to follow. */
static void group_events(struct tc_model *m, bool second_thread, bool *unsorted,
		uint32_t **inv) {
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	/* Bucket t + 1 holds track t; bucket 0 events on an invalid track (a
	 * reader bug), kept first so they are at least visible. */
	size_t *starts = tc_xcalloc(nt + 2, sizeof(*starts));
	struct group_run *runs = NULL;
	size_t n_runs = 0, cap_runs = 0, most_runs = n / GROUP_RUN_MIN;
	for (size_t i = 0; i < n;) {
		uint32_t t = e->track[i];
		size_t j = i + 1;
		while (j < n && e->track[j] == t && j - i < UINT32_MAX) {
			j++;
		}
		uint32_t b = t < nt ? t + 1 : 0;
		starts[b] += j - i;
		if (n_runs < most_runs) {
			TC_GROW(runs, cap_runs, n_runs + 1);
			runs[n_runs] = (struct group_run){ b, (uint32_t)(j - i) };
		}
		n_runs++;
		i = j;
	}
	if (n_runs > most_runs) {
		free(runs);
		runs = NULL;
		n_runs = 0;
	}
	size_t pos = 0;
	for (size_t b = 0; b <= nt; b++) {
		size_t c = starts[b];
		starts[b] = pos;
		pos += c;
	}
	starts[nt + 1] = n;
	for (size_t t = 0; t < nt; t++) {
		m->tracks[t].first = (uint32_t)starts[t + 1];
		m->tracks[t].count = (uint32_t)(starts[t + 2] - starts[t + 1]);
	}
	struct group g = { m, e->track, starts, runs, n_runs };
	pthread_t th;
	bool threaded = second_thread && n >= ((size_t)1 << 20) &&
		pthread_create(&th, NULL, group_times, &g) == 0;
	if (!threaded) {
		group_times(&g);
	}
	void *spare;
	group_rest(&g, inv, &spare);
	if (threaded) {
		pthread_join(th, NULL);
	}
	set_depths(m, starts[1], unsorted, second_thread, spare);
	free(starts);
	free(runs);
	/* The fresh columns hold n; the old ones more. */
	if (n) {
		e->cap = n;
	}
}

/* Where input event x ended up: through the grouping (inv), then its
 * track's sort (g2f); either may be the identity (NULL). */
static uint32_t final_index(uint32_t x, size_t n, const uint32_t *inv, const uint32_t *g2f) {
	if (x >= n) {
		return TC_NONE;
	}
	x = inv ? inv[x] : x;
	return g2f ? g2f[x] : x;
}

/* Sort events by track, then start (longer first), and set the track
 * ranges and the depths. Grouping moves whole tracks; only a track out of
 * order is sorted, in its own range. */
static void sort_events(struct tc_model *m, bool second_thread) {
	struct tc_events *e = &m->ev;
	size_t n = e->n, nt = m->n_tracks;
	bool *unsorted = tc_xcalloc(nt ? nt : 1, sizeof(*unsorted));
	uint32_t *inv = NULL, *g2f = NULL;
	if (events_grouped(m)) {
		set_depths(m, 0, unsorted, second_thread, NULL);
	} else {
		group_events(m, second_thread, unsorted, &inv);
	}
	drop_track_column(e);
	struct nest st = { 0 };
	for (size_t t = 0; t < nt; t++) {
		if (unsorted[t]) {
			sort_track(m, t, &g2f);
			track_depths(m, t, &st);
		}
	}
	free(st.end);
	/* Flows hold input indexes. */
	for (size_t i = 0; i < m->n_flows; i++) {
		struct tc_flow *f = &m->flows[i];
		f->from = final_index(f->from, n, inv, g2f);
		f->to = final_index(f->to, n, inv, g2f);
	}
	free(g2f);
	free(inv);
	free(unsorted);
}

struct sample_rec {
	uint32_t counter;
	int64_t ts;
	double value;
	size_t idx;
};

static int cmp_sample(const void *pa, const void *pb) {
	const struct sample_rec *a = pa, *b = pb;
	if (a->counter != b->counter) {
		return a->counter < b->counter ? -1 : 1;
	}
	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Sort the samples of the invalid-counter bucket: counter, ts, input order
 * (the counting sort kept input order, so position stands for it). */
static void sort_bucket(struct tc_samples *s, size_t lo, size_t hi) {
	size_t n = hi - lo;
	struct sample_rec *r = tc_xmalloc(n * sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		r[i] = (struct sample_rec){ s->counter[lo + i], s->ts[lo + i], s->value[lo + i], i };
	}
	tc_sort(r, n, sizeof(*r), cmp_sample);
	for (size_t i = 0; i < n; i++) {
		s->counter[lo + i] = r[i].counter;
		s->ts[lo + i] = r[i].ts;
		s->value[lo + i] = r[i].value;
	}
	free(r);
}

struct ts_val {
	int64_t ts;
	double value;
};

/*
 * Stable natural merge sort of one counter's samples by time. Readers give
 * a few sorted runs (one per thread or line feeding the counter), so this
 * costs n log(runs); stability keeps input order on equal times.
 */
static void merge_runs(int64_t *ts, double *value, size_t n, struct ts_val **buf, size_t *cap) {
	size_t run = 1;
	while (run < n && ts[run - 1] <= ts[run]) {
		run++;
	}
	if (run >= n) {
		return; /* one run already: the usual case */
	}
	TC_GROW(*buf, *cap, 2 * n);
	struct ts_val *a = *buf, *b = *buf + n;
	for (size_t i = 0; i < n; i++) {
		a[i] = (struct ts_val){ ts[i], value[i] };
	}
	for (;;) {
		size_t lo = 0;
		while (lo < n) {
			size_t mid = lo + 1;
			while (mid < n && a[mid - 1].ts <= a[mid].ts) {
				mid++;
			}
			if (mid == n) {
				if (lo == 0) {
					goto done;
				}
				memcpy(b + lo, a + lo, (n - lo) * sizeof(*a));
				break;
			}
			size_t hi = mid + 1;
			while (hi < n && a[hi - 1].ts <= a[hi].ts) {
				hi++;
			}
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				b[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
			}
			while (i < mid) {
				b[k++] = a[i++];
			}
			while (j < hi) {
				b[k++] = a[j++];
			}
			lo = hi;
		}
		struct ts_val *t = a;
		a = b;
		b = t;
	}
done:
	for (size_t i = 0; i < n; i++) {
		ts[i] = a[i].ts;
		value[i] = a[i].value;
	}
}

/*
 * Samples are sorted by counter, then time, in two steps: a stable counting
 * sort by counter (sample_scatter), then a merge of each counter's runs
 * (sample_merge), which two threads may share bucket by bucket.
 */
struct sample_sort {
	struct tc_model *m;
	size_t *ends;          /* end of bucket b (counter b; nc: invalid ones) */
	atomic_size_t next;    /* next bucket to merge */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool ready;            /* scattered: merging may start */
};

static void sample_scatter(struct sample_sort *j) {
	struct tc_model *m = j->m;
	struct tc_samples *s = &m->samples;
	bool sorted = true;
	for (size_t i = 1; i < s->n && sorted; i++) {
		sorted = s->counter[i - 1] < s->counter[i] ||
			(s->counter[i - 1] == s->counter[i] && s->ts[i - 1] <= s->ts[i]);
	}
	if (!sorted) {
		/* Readers interleave counters (one memory record gives several) but
		 * keep each counter's samples in time order: a stable counting sort
		 * by counter, then a sort of only the buckets that need it. Bucket
		 * nc holds samples of invalid counters. */
		size_t n = s->n, nc = m->n_counters;
		size_t *cnt = tc_xcalloc(nc + 2, sizeof(*cnt));
		for (size_t i = 0; i < n; i++) {
			cnt[(s->counter[i] < nc ? s->counter[i] : nc) + 1]++;
		}
		for (size_t b = 0; b <= nc; b++) {
			cnt[b + 1] += cnt[b];
		}
		/* One column at a time through bucket cursors restarted at the
		 * bucket starts: no destination array and no copy back. The new
		 * ts column is the one fresh buffer, the old one takes the
		 * values, and counters are rewritten as runs. */
		size_t *cur = tc_xmalloc((nc + 1) * sizeof(*cur));
		int64_t *ts = tc_xmalloc(n * sizeof(*ts)); /* n: see SCATTER_PAIR */
		memcpy(cur, cnt, (nc + 1) * sizeof(*cur));
		for (size_t i = 0; i < n; i++) {
			ts[cur[s->counter[i] < nc ? s->counter[i] : nc]++] = s->ts[i];
		}
		_Static_assert(sizeof(double) == sizeof(int64_t), "values take the old ts buffer");
		double *value = (double *)(void *)s->ts;
		memcpy(cur, cnt, (nc + 1) * sizeof(*cur));
		for (size_t i = 0; i < n; i++) {
			value[cur[s->counter[i] < nc ? s->counter[i] : nc]++] = s->value[i];
		}
		free(s->value);
		s->ts = ts;
		s->value = value;
		s->cap = n;
		/* Invalid counters keep their values, in input order: sort_bucket
		 * orders by them. */
		size_t n_bad = cur[nc] - cnt[nc], k = 0;
		uint32_t *bad = n_bad ? tc_xmalloc(n_bad * sizeof(*bad)) : NULL;
		for (size_t i = 0; i < n && k < n_bad; i++) {
			if (s->counter[i] >= nc) {
				bad[k++] = s->counter[i];
			}
		}
		for (size_t c = 0; c < nc; c++) {
			for (size_t i = cnt[c]; i < cur[c]; i++) {
				s->counter[i] = (uint32_t)c;
			}
		}
		if (n_bad) {
			memcpy(s->counter + cnt[nc], bad, n_bad * sizeof(*bad));
		}
		free(bad);
		memcpy(cnt, cur, (nc + 1) * sizeof(*cnt));
		free(cur);
		j->ends = cnt;
	}
	pthread_mutex_lock(&j->lock);
	j->ready = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->lock);
}

/* Merge buckets until none is left; either thread may call it once ready. */
static void sample_merge(struct sample_sort *j) {
	struct tc_samples *s = &j->m->samples;
	size_t nc = j->m->n_counters;
	struct ts_val *tmp = NULL;
	size_t tmp_cap = 0;
	for (size_t b; j->ends && (b = atomic_fetch_add(&j->next, 1)) <= nc;) {
		size_t lo = b ? j->ends[b - 1] : 0, hi = j->ends[b];
		if (b == nc) {
			if (hi > lo) {
				sort_bucket(s, lo, hi);
			}
		} else {
			merge_runs(s->ts + lo, s->value + lo, hi - lo, &tmp, &tmp_cap);
		}
	}
	free(tmp);
}

/* Each counter's range of samples. */
static void sample_index(struct tc_model *m) {
	const struct tc_samples *s = &m->samples;
	for (size_t c = 0; c < m->n_counters; c++) {
		m->counters[c].first = 0;
		m->counters[c].count = 0;
	}
	for (size_t i = 0; i < s->n; i++) {
		uint32_t c = s->counter[i];
		if (c >= m->n_counters) {
			continue;
		}
		if (m->counters[c].count == 0) {
			m->counters[c].first = i;
		}
		m->counters[c].count++;
	}
}

static void *sample_job(void *arg) {
	struct sample_sort *j = arg;
	sample_scatter(j);
	sample_merge(j);
	return NULL;
}

void tc_model_finalize(struct tc_model *m) {
	tc_model_finalize_mt(m, false);
}

void tc_model_finalize_mt(struct tc_model *m, bool second_thread) {
	if (m->finalized) {
		return;
	}
	if (m->n_implausible) {
		tc_model_warn(m, m->n_implausible, "events with a duration over 7 days or a time over "
			"53 days from the origin (corrupt) were clamped");
		m->n_implausible = 0;
	}
	if (m->n_negative_dur) {
		tc_model_warn(m, m->n_negative_dur, "events with a negative duration "
			"were clamped to 0");
		m->n_negative_dur = 0;
	}
	/* Samples and events share nothing: sort the samples beside, and
	 * help merge their buckets once the events are done. */
	struct sample_sort j = { .m = m };
	atomic_init(&j.next, 0);
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cv, NULL);
	pthread_t th;
	bool threaded = second_thread && m->samples.n >= ((size_t)1 << 18) &&
		pthread_create(&th, NULL, sample_job, &j) == 0;
	sort_events(m, second_thread);
	if (threaded) {
		pthread_mutex_lock(&j.lock);
		while (!j.ready) {
			pthread_cond_wait(&j.cv, &j.lock);
		}
		pthread_mutex_unlock(&j.lock);
		sample_merge(&j);
		pthread_join(th, NULL);
	} else {
		sample_job(&j);
	}
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.cv);
	free(j.ends);
	sample_index(m);
	m->finalized = true;
}

uint32_t tc_model_event_track(const struct tc_model *m, size_t i) {
	if (m->ev.track) {
		return m->ev.track[i];
	}
	/* Finalized: track t holds [first, first + count), ascending in t, and
	 * events of no track come before track 0's. The last track starting
	 * at or before i holds it (an empty one there starts after it). */
	size_t lo = 0, hi = m->n_tracks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->tracks[mid].first <= i) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo == 0 || i >= (size_t)m->tracks[lo - 1].first + m->tracks[lo - 1].count) {
		return TC_NONE;
	}
	return (uint32_t)(lo - 1);
}

int64_t tc_model_event_flops(const struct tc_model *m, size_t i) {
	int64_t v;
	if (m->event_costs && m->ev.args[i] != TC_NONE &&
			tc_model_arg_i64(m, m->ev.args[i], m->key.flops, &v)) {
		return v;
	}
	return m->ops[m->ev.op[i]].flops;
}

int64_t tc_model_event_bytes_accessed(const struct tc_model *m, size_t i) {
	int64_t v;
	if (m->event_costs && m->ev.args[i] != TC_NONE &&
			tc_model_arg_i64(m, m->ev.args[i], m->key.bytes_accessed, &v)) {
		return v;
	}
	return m->ops[m->ev.op[i]].bytes;
}

void tc_model_span(const struct tc_model *m, int64_t *first, int64_t *last) {
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	/* Finalized, a track's first event starts first and its end is kept:
	 * only the events on no track (before track 0's) are looked at. */
	size_t n = m->ev.n;
	if (m->finalized && m->n_tracks) {
		n = m->tracks[0].first;
		for (size_t t = 0; t < m->n_tracks; t++) {
			const struct tc_track *tr = &m->tracks[t];
			if (tr->count) {
				lo = m->ev.start[tr->first] < lo ? m->ev.start[tr->first] : lo;
				hi = tr->end > hi ? tr->end : hi;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (m->ev.start[i] < lo) {
			lo = m->ev.start[i];
		}
		if (m->ev.start[i] + m->ev.dur[i] > hi) {
			hi = m->ev.start[i] + m->ev.dur[i];
		}
	}
	if (lo > hi) {
		lo = hi = 0;
	}
	*first = lo;
	*last = hi;
}

void tc_device_tracks_init(struct tc_device_tracks *dt, const struct tc_model *m) {
	size_t nd = m->n_devices;
	dt->first = tc_xcalloc(nd + 2, sizeof(*dt->first));
	dt->order = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*dt->order));
	/* Counting sort by device, stable: count into first[b + 1], sum, place. */
	for (size_t t = 0; t < m->n_tracks; t++) {
		uint32_t d = m->tracks[t].device;
		dt->first[(d < nd ? d : nd) + 1]++;
	}
	for (size_t b = 0; b <= nd; b++) {
		dt->first[b + 1] += dt->first[b];
	}
	uint32_t *at = tc_xmalloc((nd + 1) * sizeof(*at));
	memcpy(at, dt->first, (nd + 1) * sizeof(*at));
	for (size_t t = 0; t < m->n_tracks; t++) {
		uint32_t d = m->tracks[t].device;
		dt->order[at[d < nd ? d : nd]++] = (uint32_t)t;
	}
	free(at);
}

void tc_device_tracks_finish(struct tc_device_tracks *dt) {
	free(dt->order);
	free(dt->first);
	dt->order = dt->first = NULL;
}

const char *tc_device_kind_name(enum tc_device_kind k) {
	static const char *const names[] = { "other", "cpu", "gpu", "tpu", "accelerator" };
	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "other";
}

const char *tc_track_kind_name(enum tc_track_kind k) {
	static const char *const names[] = {
		"other", "ops", "stream", "steps", "modules", "host_thread",
		"annotation", "derived", "counter",
	};
	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "other";
}

const char *tc_op_kind_name(enum tc_op_kind k) {
	static const char *const names[] = {
		"other", "kernel", "memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memcpy_other",
		"memset", "collective", "host_op", "runtime", "sync", "annotation", "step",
		"compile", "dataload", "module", "python", "memory", "overhead",
	};
	_Static_assert(sizeof(names) / sizeof(names[0]) == TC_OP_KIND_COUNT, "op kind names");
	return (size_t)k < TC_OP_KIND_COUNT ? names[k] : "other";
}

bool tc_track_kind_is_device_work(enum tc_track_kind k) {
	return k == TC_TRACK_OPS || k == TC_TRACK_STREAM;
}
