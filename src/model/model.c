/*
 * The trace model's core: creating and destroying it, adding sources,
 * hosts, devices, tracks, ops, events, counters, flows and warnings, and
 * the lookups the readers and passes use.
 */
#include <assert.h>
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
	m->key.step_num = tc_model_intern(m, "step_num");
	m->key.iteration = tc_model_intern(m, "iteration");
	m->key.hlo_module = tc_model_intern(m, "hlo_module");
	m->key.memory_kind = tc_model_intern(m, "memory_kind");
	m->key.blocks_per_sm = tc_model_intern(m, "blocks per SM");
	m->key.occupancy = tc_model_intern(m, "est. achieved occupancy %");
	m->key.coll_name = tc_model_intern(m, "Collective name");
	m->key.pg_name = tc_model_intern(m, "Process Group Name");
	m->key.pg_ranks = tc_model_intern(m, "Process Group Ranks");
	m->key.seq = tc_model_intern(m, "Seq");
	m->key.in_nelems = tc_model_intern(m, "In msg nelems");
	m->key.out_nelems = tc_model_intern(m, "Out msg nelems");
	m->key.dtype = tc_model_intern(m, "dtype");
	m->key.group_size = tc_model_intern(m, "Group size");
	m->key.compute_major = tc_model_intern(m, "computeMajor");
	m->key.compute_minor = tc_model_intern(m, "computeMinor");
	m->key_end = (uint32_t)m->strings.n;
	assert(m->key_end <= 64);
	const uint32_t flag_keys[] = {
		m->key.flops, m->key.bytes_accessed, m->key.blocks_per_sm, m->key.occupancy,
		m->key.bytes, m->key.memory_kind,
	};
	for (size_t i = 0; i < sizeof(flag_keys) / sizeof(flag_keys[0]); i++) {
		m->flag_keys |= (uint64_t)1 << flag_keys[i];
	}
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
	tc_model_costs_init(m);
	return m;
}

void tc_model_events_finish(struct tc_events *e) {
	free(e->start);
	free(e->dur);
	free(e->op);
	free(e->track);
	free(e->args);
	free(e->depth);
	free(e->flags);
	free(e->runs);
	free(e->abits);
	free(e->arank);
	free(e->avals);
	memset(e, 0, sizeof(*e));
}

void tc_model_destroy(struct tc_model *m) {
	if (!m) {
		return;
	}
	tc_model_costs_finish(m);
	tc_model_events_finish(&m->ev);
	free(m->samples.ts);
	free(m->samples.value);
	free(m->samples.counter);
	free(m->sources);
	free(m->hosts);
	free(m->devices);
	free(m->tracks);
	free(m->ops);
	free(m->op_kind);
	free(m->argb);
	free(m->aggs);
	free(m->counters);
	free(m->allocs);
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
	s->truncated = false;
	s->writer = 0;
	return (uint32_t)m->n_sources++;
}

uint32_t tc_model_add_host(struct tc_model *m, uint32_t name, uint32_t source) {
	TC_GROW(m->hosts, m->cap_hosts, m->n_hosts + 1);
	m->hosts[m->n_hosts] = (struct tc_host){ .name = name, .source = source, .rank = -1 };
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
		.pid = -1,
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

/* Op id into the (name, category, kind) table, unless an earlier op with
 * that key is there: tc_model_op finds the first anyway, and a reader that
 * adds one op per plane for the same name would otherwise probe past every
 * earlier copy (many planes cost their square). */
static void op_slot_put(uint32_t *slots, size_t nslots, const struct tc_op *ops, uint32_t id) {
	const struct tc_op *o = &ops[id];
	size_t i = op_hash(o->name, o->category, o->kind) & (nslots - 1);
	while (slots[i]) {
		const struct tc_op *q = &ops[slots[i] - 1];
		if (q->name == o->name && q->category == o->category && q->kind == o->kind) {
			return;
		}
		i = (i + 1) & (nslots - 1);
	}
	slots[i] = id + 1;
}

void tc_model_op_rehash(struct tc_model *m, size_t nslots) {
	free(m->op_slots);
	m->op_slots = tc_xcalloc(nslots, sizeof(*m->op_slots));
	m->op_nslots = nslots;
	for (size_t id = 0; id < m->n_ops; id++) {
		op_slot_put(m->op_slots, nslots, m->ops, (uint32_t)id);
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
	TC_GROW(m->op_kind, m->cap_op_kind, m->n_ops + 1);
	m->op_kind[m->n_ops] = (uint8_t)kind;
	uint32_t id = (uint32_t)m->n_ops++;
	if (m->n_ops * 2 > m->op_nslots) {
		tc_model_op_rehash(m, m->op_nslots * 2);
	} else {
		op_slot_put(m->op_slots, m->op_nslots, m->ops, id);
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
 * are still in the shared L3 when the reader writes them; further ahead
 * they had left it more often, nearer the reader catches up with the
 * helper (bench/README, tried and dropped). */
#define PREFAULT_EVENTS ((size_t)1 << 15)

static void prefault_events(struct tc_events *e, size_t i) {
	tc_prefault_next(e->start, sizeof(*e->start), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->dur, sizeof(*e->dur), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->op, sizeof(*e->op), i, PREFAULT_EVENTS, e->cap);
	tc_prefault_next(e->track, sizeof(*e->track), i, PREFAULT_EVENTS, e->cap);
	if (e->args) {
		tc_prefault_next(e->args, sizeof(*e->args), i, PREFAULT_EVENTS, e->cap);
	}
	tc_prefault_next(e->flags, sizeof(*e->flags), i, PREFAULT_EVENTS, e->cap);
}

/* A column of cap entries whose first n are written next: only those are
 * faulted in ahead (tc_xmalloc would fault in the capacity past them too,
 * pages the model may never use). */
static void *column_for(size_t cap, size_t n, size_t elem) {
	void *p = tc_xrealloc(NULL, (cap ? cap : 1) * elem);
	if (n * elem >= ((size_t)1 << 20)) {
		tc_prefault_hint(p, n * elem);
	}
	return p;
}

/* Sparse args: fewer than one event in ARGS_SPARSE_SHARE with a list
 * (past the first ARGS_SPARSE_FREE) keep the args sparse; an arg list takes
 * 4 bytes either way, the bits and ranks 0.19 bytes an event. */
#define ARGS_SPARSE_SHARE 16
#define ARGS_SPARSE_FREE 4096

/* Room in the sparse args' bits and ranks for events up to cap (had: the
 * capacity before); the new bits clear. */
static void args_bits_grow(struct tc_events *e, size_t had_cap, size_t cap) {
	size_t had = e->abits ? (had_cap + 63) / 64 : 0, words = (cap + 63) / 64 + 1;
	e->abits = tc_xrealloc(e->abits, words * sizeof(*e->abits));
	memset(e->abits + had, 0, (words - had) * sizeof(*e->abits));
	e->arank = tc_xrealloc(e->arank, words * sizeof(*e->arank));
}

void tc_model_args_dense(struct tc_events *e) {
	if (e->args) {
		return;
	}
	/* Events from n on set theirs as they come: the capacity past n is
	 * left untouched, so its pages stay out. */
	uint32_t *col = column_for(e->cap, e->n, sizeof(*col));
	for (size_t i = 0; i < e->n; i++) {
		col[i] = TC_NONE;
	}
	size_t k = 0;
	for (size_t w = 0; w < e->n_ranked; w++) {
		for (uint64_t b = e->abits[w]; b; b &= b - 1) {
			col[w * 64 + (size_t)__builtin_ctzll(b)] = e->avals[k++];
		}
	}
	free(e->abits);
	free(e->arank);
	free(e->avals);
	e->abits = NULL;
	e->arank = NULL;
	e->avals = NULL;
	e->n_avals = e->cap_avals = e->n_ranked = 0;
	e->args = col;
}

void tc_model_args_pack(struct tc_events *e) {
	if (!e->args) {
		return;
	}
	size_t n = e->n, k = 0;
	for (size_t i = 0; i < n; i++) {
		k += e->args[i] != TC_NONE;
	}
	if (k >= n / ARGS_SPARSE_SHARE + ARGS_SPARSE_FREE) {
		return;
	}
	size_t words = (e->cap + 63) / 64 + 1;
	e->abits = tc_xcalloc(words, sizeof(*e->abits));
	e->arank = tc_xmalloc(words * sizeof(*e->arank));
	e->avals = tc_xmalloc((k ? k : 1) * sizeof(*e->avals));
	e->cap_avals = k ? k : 1;
	for (size_t i = 0; i < n; i++) {
		if ((i & 63) == 0) {
			e->arank[i >> 6] = (uint32_t)e->n_avals;
			e->n_ranked = (i >> 6) + 1;
		}
		if (e->args[i] != TC_NONE) {
			e->abits[i >> 6] |= (uint64_t)1 << (i & 63);
			e->avals[e->n_avals++] = e->args[i];
			e->last_aval = i;
		}
	}
	free(e->args);
	e->args = NULL;
}

void tc_model_set_event_args_sparse(struct tc_model *m, size_t i, uint32_t args) {
	struct tc_events *e = &m->ev;
	size_t w = i >> 6;
	uint64_t bit = (uint64_t)1 << (i & 63);
	if (w < e->n_ranked && (e->abits[w] & bit)) {
		size_t k = e->arank[w] + (size_t)__builtin_popcountll(e->abits[w] & (bit - 1));
		if (args != TC_NONE) {
			e->avals[k] = args;
			return;
		}
		if (k + 1 == e->n_avals) { /* the last (an event written again) */
			e->n_avals--;
			e->abits[w] &= ~bit;
			return;
		}
	} else if (args == TC_NONE) {
		return;
	} else if ((!e->n_avals || e->last_aval <= i) &&
			e->n_avals < i / ARGS_SPARSE_SHARE + ARGS_SPARSE_FREE) {
		/* In order: no value for a later event. last_aval == i with i's
		 * bit clear is i's value taken out: the event cap's last event
		 * written again. */
		while (e->n_ranked <= w) {
			e->arank[e->n_ranked++] = (uint32_t)e->n_avals;
		}
		TC_GROW(e->avals, e->cap_avals, e->n_avals + 1);
		e->avals[e->n_avals++] = args;
		e->abits[w] |= bit;
		e->last_aval = i;
		return;
	}
	/* Out of order, or too many: the column. */
	tc_model_args_dense(e);
	e->args[i] = args;
}

void tc_model_events_reserve(struct tc_events *e, size_t need) {
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
	if (e->track) { /* else in runs, or dropped by finalize */
		TC_GROW(e->track, cap, need);
	}
	cap = e->cap;
	if (e->args) {
		TC_GROW(e->args, cap, need);
	}
	cap = e->cap;
	TC_GROW(e->flags, cap, need);
	if (!e->args) {
		args_bits_grow(e, e->cap, cap);
	}
	e->cap = cap;
}

/* Finalize drops the track column (the tracks' ranges say the same): an
 * event added afterwards, or a merge, brings it back. */
static void rebuild_track_column(struct tc_model *m) {
	struct tc_events *e = &m->ev;
	uint32_t *col = column_for(e->cap, e->n, sizeof(*col));
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

/* The runs as a column; the runs are gone. */
static void runs_to_column(struct tc_events *e) {
	uint32_t *col = column_for(e->cap, e->n, sizeof(*col));
	for (size_t r = 0; r < e->n_runs; r++) {
		size_t to = r + 1 < e->n_runs ? e->runs[r + 1].first : e->n;
		for (size_t i = e->runs[r].first; i < to; i++) {
			col[i] = e->runs[r].track;
		}
	}
	free(e->runs);
	e->runs = NULL;
	e->n_runs = e->cap_runs = 0;
	e->track = col;
}

/* Merges and readers that rewrite tracks ask: the track column, from the
 * runs or the tracks' ranges. */
void tc_model_restore_track_column(struct tc_model *m) {
	if (m->ev.track) {
		return;
	}
	if (m->ev.runs) {
		runs_to_column(&m->ev);
	} else {
		rebuild_track_column(m);
	}
}

uint32_t *tc_model_track_column(struct tc_model *m) {
	tc_model_restore_track_column(m);
	return m->ev.track;
}

/* Runs shorter than this on average (past the first few) are kept as a
 * column: a run takes 8 bytes. */
#define RUN_MIN_AVG 16
#define RUNS_FREE 4096

/* Event i's track outside the column's plain case: a new run, or the
 * column when runs are short. */
static void put_track(struct tc_events *e, size_t i, uint32_t track) {
	if (e->track) {
		e->track[i] = track;
		return;
	}
	/* i is the last event: a new one, or the last written again (the
	 * event cap). */
	if (e->n_runs && e->runs[e->n_runs - 1].first == i) {
		e->runs[e->n_runs - 1].track = track;
	} else if (e->n_runs && track == e->run_track) {
		return;
	} else if (e->n_runs >= i / RUN_MIN_AVG + RUNS_FREE) {
		runs_to_column(e);
		e->track[i] = track;
		return;
	} else {
		TC_GROW(e->runs, e->cap_runs, e->n_runs + 1);
		e->runs[e->n_runs++] = (struct tc_track_run){ track, (uint32_t)i };
	}
	e->run_track = track;
}

/* Event i's columns but the track's; the model is no longer finalized. */
static inline uint32_t put_event(struct tc_model *m, size_t i, uint32_t op,
		int64_t start_ps, int64_t dur_ps, uint8_t flags) {
	struct tc_events *e = &m->ev;
	e->start[i] = start_ps;
	e->dur[i] = dur_ps;
	e->op[i] = op;
	if (e->args) {
		e->args[i] = TC_NONE;
	} else if (i < e->n_ranked * 64 && (e->abits[i >> 6] >> (i & 63) & 1)) {
		tc_model_set_event_args_sparse(m, i, TC_NONE); /* written again */
	}
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
	if (!e->track && !e->runs && e->n > 0) {
		tc_model_restore_track_column(m); /* finalized: dropped */
	}
	if (m->max_events && e->n >= m->max_events && e->n > 0) {
		m->over_max_events = true;
		i = e->n - 1;
		tc_model_costs_unnoted(m); /* the last event's list was noted */
	} else {
		tc_model_events_reserve(e, e->n + 1);
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
	put_track(e, i, track);
	return put_event(m, i, op, start_ps, dur_ps, flags);
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
	if (__builtin_expect(i >= e->cap || (!e->track && (track != e->run_track || !e->runs)) ||
			i > m->max_events - 1 ||
			(i & (PREFAULT_EVENTS - 1)) == 0 ||
			(uint64_t)dur_ps > (uint64_t)TC_MAX_DUR_PS ||
			(uint64_t)start_ps + (uint64_t)TC_MAX_ABS_PS > 2 * (uint64_t)TC_MAX_ABS_PS, 0)) {
		return add_event_slow(m, track, op, start_ps, dur_ps, flags);
	}
	e->n = i + 1;
	if (e->track) {
		e->track[i] = track;
	}
	return put_event(m, i, op, start_ps, dur_ps, flags);
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

void tc_model_counter_move(struct tc_model *m, uint32_t counter, uint32_t device) {
	m->counters[counter].device = device;
	/* Its hash slot is keyed by the old device: index again on next use. */
	if (m->ctr_nslots) {
		memset(m->ctr_slots, 0, m->ctr_nslots * sizeof(*m->ctr_slots));
	}
	m->ctr_hashed = 0;
}

void tc_model_add_alloc(struct tc_model *m, const struct tc_alloc *a) {
	TC_GROW(m->allocs, m->cap_allocs, m->n_allocs + 1);
	struct tc_alloc *d = &m->allocs[m->n_allocs++];
	*d = *a;
	if (d->ts > TC_MAX_ABS_PS || d->ts < -TC_MAX_ABS_PS) {
		d->ts = d->ts > 0 ? TC_MAX_ABS_PS : -TC_MAX_ABS_PS;
		m->n_implausible++;
	}
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

void tc_model_warn_add(struct tc_model *m, uint32_t msg, uint64_t count, bool inputs) {
	for (size_t i = 0; i < m->n_warnings; i++) {
		if (m->warnings[i].msg == msg) {
			m->warnings[i].count += count;
			m->warnings[i].inputs |= inputs;
			return;
		}
	}
	TC_GROW(m->warnings, m->cap_warnings, m->n_warnings + 1);
	m->warnings[m->n_warnings++] =
		(struct tc_warning){ .msg = msg, .count = count, .inputs = inputs };
}

static void warn_v(struct tc_model *m, uint64_t count, bool inputs, const char *fmt,
		va_list ap) {
	char buf[1024];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	tc_model_warn_add(m, tc_model_intern(m, buf), count ? count : 1, inputs);
}

void tc_model_warn(struct tc_model *m, uint64_t count, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	warn_v(m, count, false, fmt, ap);
	va_end(ap);
}

void tc_model_warn_inputs(struct tc_model *m, uint64_t count, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	warn_v(m, count, true, fmt, ap);
	va_end(ap);
}

void tc_model_warn_from(struct tc_model *dst, const struct tc_model *src) {
	for (size_t i = 0; i < src->n_warnings; i++) {
		uint32_t msg = src->warnings[i].msg;
		tc_model_warn_add(dst, tc_model_intern_n(dst, tc_model_str(src, msg),
			tc_intern_len(&src->strings, msg)), src->warnings[i].count,
			src->warnings[i].inputs);
	}
}

/* How many of n records (stride bytes apart, each with a uint32_t first
 * event at offset off, ascending) start at or before event i. */
static size_t starting_by(const void *recs, size_t n, size_t stride, size_t off, size_t i) {
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t first;
		memcpy(&first, (const char *)recs + mid * stride + off, sizeof(first));
		if (first <= i) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* The run holding event i (runs are in event order). */
static size_t run_of(const struct tc_events *e, size_t i) {
	return starting_by(e->runs, e->n_runs, sizeof(*e->runs),
		offsetof(struct tc_track_run, first), i) - 1;
}

uint32_t tc_model_track_run(const struct tc_model *m, size_t i, size_t *end) {
	const struct tc_events *e = &m->ev;
	if (e->runs) {
		size_t r = run_of(e, i);
		*end = r + 1 < e->n_runs ? e->runs[r + 1].first : e->n;
		return e->runs[r].track;
	}
	uint32_t t = tc_model_event_track(m, i);
	*end = i + 1;
	if (!e->track && t != TC_NONE) {
		*end = (size_t)m->tracks[t].first + m->tracks[t].count;
	}
	return t;
}

uint32_t tc_model_event_track(const struct tc_model *m, size_t i) {
	if (m->ev.track) {
		return m->ev.track[i];
	}
	if (m->ev.runs) {
		return m->ev.runs[run_of(&m->ev, i)].track;
	}
	/* Finalized: track t holds [first, first + count), ascending in t, and
	 * events of no track come before track 0's. The last track starting
	 * at or before i holds it (an empty one there starts after it). */
	size_t lo = starting_by(m->tracks, m->n_tracks, sizeof(*m->tracks),
		offsetof(struct tc_track, first), i);
	if (lo == 0 || i >= (size_t)m->tracks[lo - 1].first + m->tracks[lo - 1].count) {
		return TC_NONE;
	}
	return (uint32_t)(lo - 1);
}

void tc_model_span(const struct tc_model *m, int64_t *first, int64_t *last) {
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	/* Finalized, only the events on no track (before track 0's) are
	 * looked at one by one. */
	size_t n = m->ev.n;
	if (m->finalized && m->n_tracks) {
		n = m->tracks[0].first;
		tc_model_tracks_span(m, NULL, m->n_tracks, &lo, &hi);
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

void tc_model_tracks_span(const struct tc_model *m, const uint32_t *tracks, size_t nt,
		int64_t *first, int64_t *last) {
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	/* Finalized, a track's first event starts first and its end is kept. */
	for (size_t j = 0; j < nt; j++) {
		const struct tc_track *tr = &m->tracks[tracks ? tracks[j] : j];
		if (tr->count) {
			lo = m->ev.start[tr->first] < lo ? m->ev.start[tr->first] : lo;
			hi = tr->end > hi ? tr->end : hi;
		}
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

/* Whether track tr is one of a host's threads (tc_host_tracks). */
static bool host_thread(const struct tc_model *m, const struct tc_track *tr) {
	return tc_model_on_host(m, tr->device) && tr->kind != TC_TRACK_DERIVED &&
		tr->kind != TC_TRACK_STEPS && tr->kind != TC_TRACK_COUNTER;
}

/* Device d's host record, TC_NONE for none (a host past the records is
 * none, as everywhere hosts are read). */
static uint32_t device_host(const struct tc_model *m, uint32_t d) {
	uint32_t h = d < m->n_devices ? m->devices[d].host : TC_NONE;
	return h < m->n_hosts ? h : TC_NONE;
}

uint32_t *tc_host_tracks(const struct tc_model *m, uint32_t dev, size_t *n) {
	uint32_t host = device_host(m, dev);
	/* Without a track of one of its host devices, the host has no threads
	 * named for it, and every host thread is taken. */
	bool any = false;
	for (size_t t = 0; t < m->n_tracks && host != TC_NONE && !any; t++) {
		const struct tc_track *tr = &m->tracks[t];
		any = tc_model_on_host(m, tr->device) && device_host(m, tr->device) == host;
	}
	uint32_t *v = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*v));
	size_t k = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (host_thread(m, tr) && (!any || device_host(m, tr->device) == host)) {
			v[k++] = (uint32_t)t;
		}
	}
	*n = k;
	return v;
}

uint32_t *tc_host_tracks_keys(const struct tc_model *m) {
	/* Per host: whether a host device's track names it, and how many host
	 * threads are on it; its lines are every thread when all are. */
	size_t nh = m->n_hosts;
	bool *named = tc_xcalloc(nh + 1, sizeof(*named));
	size_t *on = tc_xcalloc(nh + 1, sizeof(*on)), threads = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!tc_model_on_host(m, tr->device)) {
			continue;
		}
		uint32_t h = device_host(m, tr->device);
		bool th = host_thread(m, tr);
		threads += th;
		if (h != TC_NONE) {
			named[h] = true;
			on[h] += th;
		}
	}
	uint32_t *key = tc_xmalloc((m->n_devices + 1) * sizeof(*key));
	for (size_t d = 0; d <= m->n_devices; d++) {
		uint32_t h = device_host(m, (uint32_t)d);
		key[d] = h != TC_NONE && named[h] && on[h] < threads ? h : TC_NONE;
	}
	free(named);
	free(on);
	return key;
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
