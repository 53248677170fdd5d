/*
 * The digest message in memory: arena allocation, duration sketches,
 * canonical rank order, validation, and merges that do not depend on order.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "digest/msg.h"
#include "model/devcat.h"
#include "model/findings.h"
#include "model/model.h"
#include "util/num.h"
#include "util/pbwire.h"
#include "util/xalloc.h"

void tc_digest_init(struct tc_digest *d) {
	tc_arena_init(&d->arena, 1 << 16);
	d->msg = NULL;
}

void tc_digest_finish(struct tc_digest *d) {
	tc_arena_finish(&d->arena);
	d->msg = NULL;
}

struct tc_digest *tc_digest_create(void) {
	struct tc_digest *d = tc_xmalloc(sizeof(*d));
	tc_digest_init(d);
	return d;
}

void tc_digest_destroy(struct tc_digest *d) {
	if (d) {
		tc_digest_finish(d);
		free(d);
	}
}

size_t tc_digest_n_ranks(const struct tc_digest *d) {
	return d->msg ? d->msg->n_ranks : 0;
}

bool tc_digest_rank_check(const struct tc_digest *d, size_t i, struct tc_error *err) {
	return tc_digest_rank_valid(d->msg->ranks[i], err);
}

void tc_digest_compact(struct tc_digest *d) {
	for (size_t r = 0; r < tc_digest_n_ranks(d); r++) {
		tc_digest_rank_compact(d->msg->ranks[r], &d->arena);
	}
}

void tc_digest_packed_init(struct tc_digest_packed *p) {
	tc_arena_init(&p->arena, 1 << 16);
	p->raw = NULL;
	p->heads = NULL;
}

void tc_digest_packed_finish(struct tc_digest_packed *p) {
	tc_arena_finish(&p->arena);
	p->raw = NULL;
	p->heads = NULL;
}

struct tc_digest_packed *tc_digest_packed_create(void) {
	struct tc_digest_packed *p = tc_xmalloc(sizeof(*p));
	tc_digest_packed_init(p);
	return p;
}

void tc_digest_packed_destroy(struct tc_digest_packed *p) {
	if (p) {
		tc_digest_packed_finish(p);
		free(p);
	}
}

static void *arena_alloc(void *data, size_t size) {
	return tc_arena_alloc(data, size ? size : 1);
}

static void arena_free(void *data, void *p) {
}

void tc_digest_allocator(struct tc_arena *a, ProtobufCAllocator *out) {
	*out = (ProtobufCAllocator){ arena_alloc, arena_free, a };
}

Tracectl__Digest *tc_digest_new_msg(struct tc_digest *d) {
	Tracectl__Digest *msg = tc_arena_alloc(&d->arena, sizeof(*msg));
	tracectl__digest__init(msg);
	msg->magic = TC_DIGEST_MAGIC;
	msg->version = TC_DIGEST_VERSION;
	d->msg = msg;
	return msg;
}

/* ---- sketch ---- */

/* Job threads build sketches at once; racing to store the same value is
 * harmless but must be atomic to be defined. */
static double log_gamma(void) {
	static _Atomic double lg;
	double v = atomic_load_explicit(&lg, memory_order_relaxed);
	if (!v) {
		v = log((1 + TC_SKETCH_ALPHA) / (1 - TC_SKETCH_ALPHA));
		atomic_store_explicit(&lg, v, memory_order_relaxed);
	}
	return v;
}

/* Bucket i holds (gamma^(i-1), gamma^i]. */
static int32_t bucket_of(int64_t v) {
	return (int32_t)ceil(log((double)v) / log_gamma());
}

static int64_t bucket_value(int32_t i) {
	double g = exp(log_gamma());
	return (int64_t)llround(2 * exp(log_gamma() * i) / (g + 1));
}

static int cmp_i64(const void *pa, const void *pb) {
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/* The exact form's values: stored as the first value, then differences
 * (small varints). */
static int64_t *values_of(const Tracectl__Sketch *s) {
	int64_t *v = tc_xmalloc((s->n_values ? s->n_values : 1) * sizeof(*v));
	int64_t x = 0;
	for (size_t i = 0; i < s->n_values; i++) {
		x += s->values[i];
		v[i] = x;
	}
	return v;
}

/* A growing bucket array: counts for indexes [lo, lo + n). */
struct buckets {
	int32_t lo;
	uint64_t *c;
	size_t n;
	uint64_t zero;
};

static void buckets_add_at(struct buckets *b, int32_t i, uint64_t count) {
	if (!b->n) {
		b->lo = i;
		b->c = tc_xcalloc(1, sizeof(*b->c));
		b->n = 1;
	} else if (i < b->lo) {
		size_t add = (size_t)(b->lo - i);
		b->c = tc_xrealloc(b->c, (b->n + add) * sizeof(*b->c));
		memmove(b->c + add, b->c, b->n * sizeof(*b->c));
		memset(b->c, 0, add * sizeof(*b->c));
		b->n += add;
		b->lo = i;
	} else if ((size_t)(i - b->lo) >= b->n) {
		size_t n = (size_t)(i - b->lo) + 1;
		b->c = tc_xrealloc(b->c, n * sizeof(*b->c));
		memset(b->c + b->n, 0, (n - b->n) * sizeof(*b->c));
		b->n = n;
	}
	b->c[i - b->lo] += count;
}

static void buckets_add(struct buckets *b, int64_t v, uint64_t count) {
	if (v <= 0) {
		b->zero += count;
	} else {
		buckets_add_at(b, bucket_of(v), count);
	}
}

static void buckets_add_sketch(struct buckets *b, const Tracectl__Sketch *s) {
	if (!s->bucketed) {
		int64_t *v = values_of(s);
		for (size_t i = 0; i < s->n_values; i++) {
			buckets_add(b, v[i], s->counts[i]);
		}
		free(v);
		return;
	}
	b->zero += s->zero;
	for (size_t i = 0; i < s->n_buckets; i++) {
		if (s->buckets[i]) {
			buckets_add_at(b, s->offset + (int32_t)i, s->buckets[i]);
		}
	}
}

/* Exact (value, count) pairs, sorted by value. */
struct exact {
	int64_t *v;
	uint64_t *c;
	size_t n, cap;
};

static Tracectl__Sketch *sketch_from(struct tc_arena *a, const struct exact *e,
		const struct buckets *b, bool bucketed) {
	Tracectl__Sketch *s = tc_arena_alloc(a, sizeof(*s));
	tracectl__sketch__init(s);
	if (!bucketed) {
		s->n_values = s->n_counts = e->n;
		s->values = tc_arena_alloc(a, (e->n ? e->n : 1) * sizeof(int64_t));
		s->counts = tc_arena_alloc(a, (e->n ? e->n : 1) * sizeof(uint64_t));
		for (size_t i = 0; i < e->n; i++) {
			s->values[i] = e->v[i] - (i ? e->v[i - 1] : 0);
		}
		if (e->n) {
			memcpy(s->counts, e->c, e->n * sizeof(uint64_t));
		}
		return s;
	}
	/* Trim empty ends so equal contents give equal bytes. */
	size_t lo = 0, hi = b->n;
	while (lo < hi && !b->c[lo]) {
		lo++;
	}
	while (hi > lo && !b->c[hi - 1]) {
		hi--;
	}
	s->bucketed = true;
	s->zero = b->zero;
	s->offset = hi > lo ? b->lo + (int32_t)lo : 0;
	s->n_buckets = hi - lo;
	s->buckets = tc_arena_alloc(a, (s->n_buckets ? s->n_buckets : 1) * sizeof(uint64_t));
	if (s->n_buckets) {
		memcpy(s->buckets, b->c + lo, s->n_buckets * sizeof(uint64_t));
	}
	return s;
}

Tracectl__Sketch *tc_sketch_build(struct tc_arena *a, int64_t *v, size_t n) {
	tc_sort(v, n, sizeof(*v), cmp_i64);
	struct exact e = { 0 };
	struct buckets b = { 0 };
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++) {
		distinct += !i || v[i] != v[i - 1];
	}
	bool bucketed = distinct > TC_SKETCH_EXACT_MAX;
	if (!bucketed) {
		e.v = tc_xmalloc((distinct ? distinct : 1) * sizeof(*e.v));
		e.c = tc_xmalloc((distinct ? distinct : 1) * sizeof(*e.c));
		for (size_t i = 0; i < n; i++) {
			if (!i || v[i] != v[i - 1]) {
				e.v[e.n] = v[i];
				e.c[e.n++] = 0;
			}
			e.c[e.n - 1]++;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			buckets_add(&b, v[i], 1);
		}
	}
	Tracectl__Sketch *s = sketch_from(a, &e, &b, bucketed);
	free(e.v);
	free(e.c);
	free(b.c);
	return s;
}

int64_t tc_sketch_percentile(const Tracectl__Sketch *s, uint64_t n, double p,
		int64_t lo, int64_t hi) {
	if (!n || !s) {
		return -1;
	}
	/* The rank tc_percentile_i64 takes. */
	uint64_t r = (uint64_t)(p / 100.0 * (double)n + 0.999999999);
	r = r < 1 ? 1 : r > n ? n : r;
	uint64_t seen = 0;
	int64_t v = hi;
	if (!s->bucketed) {
		int64_t x = 0;
		for (size_t i = 0; i < s->n_values; i++) {
			x += s->values[i];
			seen += s->counts[i];
			if (seen >= r) {
				return x;
			}
		}
		return hi;
	}
	seen = s->zero;
	if (seen >= r) {
		v = 0;
	}
	for (size_t i = 0; i < s->n_buckets && seen < r; i++) {
		seen += s->buckets[i];
		if (seen >= r) {
			v = bucket_value(s->offset + (int32_t)i);
		}
	}
	return v < lo ? lo : v > hi ? hi : v;
}

/* Merge sketch s into the running (exact or bucketed) state. */
static void merge_sketch(struct exact *e, struct buckets *b, bool *bucketed,
		const Tracectl__Sketch *s) {
	if (!s) {
		return;
	}
	if (!*bucketed && !s->bucketed) {
		/* Merge two sorted lists. */
		int64_t *sv = values_of(s);
		size_t n = e->n + s->n_values;
		int64_t *v = tc_xmalloc((n ? n : 1) * sizeof(*v));
		uint64_t *c = tc_xmalloc((n ? n : 1) * sizeof(*c));
		size_t i = 0, j = 0, k = 0;
		while (i < e->n || j < s->n_values) {
			if (j == s->n_values || (i < e->n && e->v[i] < sv[j])) {
				v[k] = e->v[i];
				c[k++] = e->c[i++];
			} else if (i == e->n || sv[j] < e->v[i]) {
				v[k] = sv[j];
				c[k++] = s->counts[j++];
			} else {
				v[k] = e->v[i];
				c[k++] = e->c[i++] + s->counts[j++];
			}
		}
		free(sv);
		free(e->v);
		free(e->c);
		e->v = v;
		e->c = c;
		e->n = k;
		if (k <= TC_SKETCH_EXACT_MAX) {
			return;
		}
	}
	if (!*bucketed) {
		*bucketed = true;
		for (size_t i = 0; i < e->n; i++) {
			buckets_add(b, e->v[i], e->c[i]);
		}
		e->n = 0;
		if (!s->bucketed && e->v) {
			/* s was merged into the exact list just converted. */
			return;
		}
	}
	buckets_add_sketch(b, s);
}

/* ---- job-level op statistics ---- */

struct op_acc {
	const char *name, *cat;
	uint32_t kind;
	Tracectl__OpStat *st;
	struct exact e;
	struct buckets b;
	bool bucketed;
	uint32_t n_ranks;
	int64_t p50, p99;       /* of the one rank that has it */
};

static uint64_t str_hash(const char *s, uint64_t h) {
	for (; *s; s++) {
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	}
	return h;
}

static uint64_t key_hash(const char *name, const char *cat, uint32_t kind) {
	return str_hash(cat, str_hash(name, 0xcbf29ce484222325ull) * 31) ^ kind * 0x9E3779B97F4A7C15ull;
}

Tracectl__OpStat **tc_digest_merge_ops(struct tc_arena *a, Tracectl__Rank *const *ranks,
		size_t n, size_t *n_out) {
	size_t total = 0;
	for (size_t r = 0; r < n; r++) {
		total += ranks[r]->n_ops;
	}
	size_t nslots = 64;
	while (nslots < total * 2) {
		nslots *= 2;
	}
	uint32_t *slots = tc_xcalloc(nslots, sizeof(*slots));
	struct op_acc *acc = tc_xcalloc(total ? total : 1, sizeof(*acc));
	size_t k = 0;
	for (size_t r = 0; r < n; r++) {
		const Tracectl__Rank *rk = ranks[r];
		for (size_t i = 0; i < rk->n_ops; i++) {
			const Tracectl__OpStat *o = rk->ops[i];
			const char *name = o->name < rk->n_strings ? rk->strings[o->name] : "";
			const char *cat = o->category < rk->n_strings ? rk->strings[o->category] : "";
			size_t h = key_hash(name, cat, o->kind) & (nslots - 1);
			while (slots[h]) {
				struct op_acc *x = &acc[slots[h] - 1];
				if (x->kind == o->kind && strcmp(x->name, name) == 0 &&
						strcmp(x->cat, cat) == 0) {
					break;
				}
				h = (h + 1) & (nslots - 1);
			}
			struct op_acc *x;
			if (!slots[h]) {
				x = &acc[k];
				slots[h] = (uint32_t)++k;
				x->name = name;
				x->cat = cat;
				x->kind = o->kind;
				x->st = tc_arena_alloc(a, sizeof(*x->st));
				tracectl__op_stat__init(x->st);
				*x->st = (Tracectl__OpStat){ .base = x->st->base, .kind = o->kind,
					.count = o->count, .total_ps = o->total_ps, .self_ps = o->self_ps,
					.min_ps = o->min_ps, .max_ps = o->max_ps, .flops = o->flops,
					.bytes = o->bytes, .name_str = (char *)name,
					.category_str = (char *)cat };
				x->p50 = o->p50_ps;
				x->p99 = o->p99_ps;
			} else {
				x = &acc[slots[h] - 1];
				Tracectl__OpStat *s = x->st;
				s->count += o->count;
				s->total_ps = tc_sat_add(s->total_ps, o->total_ps);
				s->self_ps = tc_sat_add(s->self_ps, o->self_ps);
				s->min_ps = o->min_ps < s->min_ps ? o->min_ps : s->min_ps;
				s->max_ps = o->max_ps > s->max_ps ? o->max_ps : s->max_ps;
				if (o->flops >= 0) {
					s->flops = (s->flops < 0 ? 0 : s->flops) + o->flops;
				}
				if (o->bytes >= 0) {
					s->bytes = (s->bytes < 0 ? 0 : s->bytes) + o->bytes;
				}
			}
			x->n_ranks++;
			merge_sketch(&x->e, &x->b, &x->bucketed, o->sketch);
		}
	}
	free(slots);
	Tracectl__OpStat **out = tc_arena_alloc(a, (k ? k : 1) * sizeof(*out));
	for (size_t i = 0; i < k; i++) {
		struct op_acc *x = &acc[i];
		Tracectl__OpStat *s = x->st;
		s->sketch = sketch_from(a, &x->e, &x->b, x->bucketed);
		/* One rank's exact percentiles stand; several need the sketch. */
		if (x->n_ranks == 1) {
			s->p50_ps = x->p50;
			s->p99_ps = x->p99;
		} else {
			s->p50_ps = tc_sketch_percentile(s->sketch, s->count, 50, s->min_ps, s->max_ps);
			s->p99_ps = tc_sketch_percentile(s->sketch, s->count, 99, s->min_ps, s->max_ps);
		}
		out[i] = s;
		free(x->e.v);
		free(x->e.c);
		free(x->b.c);
	}
	free(acc);
	*n_out = k;
	return out;
}

/* ---- merging ---- */

int tc_digest_rank_cmp(const void *pa, const void *pb) {
	const Tracectl__Rank *a = *(Tracectl__Rank *const *)pa, *b = *(Tracectl__Rank *const *)pb;
	/* Numbered ranks first, by number; then by name and input. */
	bool na = a->number >= 0, nb = b->number >= 0;
	if (na != nb) {
		return na ? -1 : 1;
	}
	if (a->number != b->number) {
		return a->number < b->number ? -1 : 1;
	}
	int c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->input, b->input);
}

static int cmp_op_key(const void *pa, const void *pb) {
	const Tracectl__OpStat *a = *(Tracectl__OpStat *const *)pa;
	const Tracectl__OpStat *b = *(Tracectl__OpStat *const *)pb;
	int c = strcmp(a->name_str, b->name_str);
	if (!c) {
		c = strcmp(a->category_str, b->category_str);
	}
	return c ? c : (a->kind > b->kind) - (a->kind < b->kind);
}

struct rank_from {
	Tracectl__Rank *r;
	const char *label;
	ProtobufCBinaryData raw;        /* packed merge: the rank's bytes */
};

static int cmp_rank_from(const void *pa, const void *pb) {
	const struct rank_from *a = pa, *b = pb;
	return tc_digest_rank_cmp(&a->r, &b->r);
}

/* Sort v canonically; false when a rank is given twice. */
static bool sort_ranks(struct rank_from *v, size_t n, struct tc_error *err) {
	tc_sort(v, n, sizeof(*v), cmp_rank_from);
	for (size_t r = 1; r < n; r++) {
		if (strcmp(v[r].r->name, v[r - 1].r->name) == 0) {
			return tc_error_set(err, TC_EXIT_INPUT, "%s is given twice (in '%s' and '%s')",
				v[r].r->name, v[r - 1].label, v[r].label);
		}
	}
	return true;
}

/* Job-level op statistics of the sorted ranks: the same set gives the
 * same rows. None for one rank: they would copy its own. */
static Tracectl__OpStat **job_ops(struct tc_arena *a, Tracectl__Rank *const *ranks, size_t n,
		size_t *n_out) {
	if (n < 2) {
		*n_out = 0;
		return NULL;
	}
	Tracectl__OpStat **v = tc_digest_merge_ops(a, ranks, n, n_out);
	tc_sort(v, *n_out, sizeof(*v), cmp_op_key);
	return v;
}

bool tc_digest_merge(struct tc_digest *const *in, const char *const *labels, size_t n,
		struct tc_digest *out, struct tc_error *err) {
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += in[i]->msg->n_ranks;
	}
	struct rank_from *v = tc_xcalloc(total ? total : 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < in[i]->msg->n_ranks; r++) {
			Tracectl__Rank *rk = in[i]->msg->ranks[r];
			v[k++] = (struct rank_from){ rk, labels ? labels[i] : rk->input, { 0, NULL } };
		}
	}
	if (!sort_ranks(v, total, err)) {
		free(v);
		return false;
	}
	Tracectl__Digest *msg = tc_digest_new_msg(out);
	msg->ranks = tc_arena_alloc(&out->arena, (total ? total : 1) * sizeof(*msg->ranks));
	for (size_t r = 0; r < total; r++) {
		msg->ranks[msg->n_ranks++] = v[r].r;
	}
	free(v);
	msg->job_ops = job_ops(&out->arena, msg->ranks, msg->n_ranks, &msg->n_job_ops);
	return true;
}

bool tc_digest_merge_packed(struct tc_digest_packed *const *in, const char *const *labels,
		size_t n, struct tc_digest_packed *out, struct tc_error *err) {
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += in[i]->raw->n_ranks;
	}
	struct rank_from *v = tc_xcalloc(total ? total : 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < in[i]->raw->n_ranks; r++) {
			/* A Rank shell with what sorting and the op merge read. */
			const Tracectl__RankHead *h = in[i]->heads[r];
			Tracectl__Rank *rk = tc_arena_alloc(&out->arena, sizeof(*rk));
			tracectl__rank__init(rk);
			rk->name = h->name;
			rk->number = h->number;
			rk->input = h->input;
			rk->n_strings = h->n_strings;
			rk->strings = h->strings;
			rk->n_ops = h->n_ops;
			rk->ops = h->ops;
			v[k++] = (struct rank_from){ rk, labels ? labels[i] : rk->input,
				in[i]->raw->ranks[r] };
		}
	}
	if (!sort_ranks(v, total, err)) {
		free(v);
		return false;
	}
	Tracectl__DigestRaw *raw = out->raw = tc_arena_alloc(&out->arena, sizeof(*raw));
	tracectl__digest_raw__init(raw);
	raw->magic = TC_DIGEST_MAGIC;
	raw->version = TC_DIGEST_VERSION;
	raw->ranks = tc_arena_alloc(&out->arena, (total ? total : 1) * sizeof(*raw->ranks));
	Tracectl__Rank **shells = tc_xmalloc((total ? total : 1) * sizeof(*shells));
	for (size_t r = 0; r < total; r++) {
		raw->ranks[raw->n_ranks++] = v[r].raw;
		shells[r] = v[r].r;
	}
	raw->job_ops = job_ops(&out->arena, shells, total, &raw->n_job_ops);
	free(shells);
	free(v);
	return true;
}

/* ---- unknown fields ---- */

/*
 * b[0..n), a message of type desc, without the fields desc does not know,
 * at any depth, compacted in place: every write lands at or before what
 * is still to be read, a shorter message's length taking no more bytes.
 * Its new length; *bad set when the wire is malformed.
 */
static size_t strip(uint8_t *b, size_t n, const ProtobufCMessageDescriptor *desc, bool *bad) {
	struct tc_pb r;
	struct tc_pb_field f;
	tc_pb_init(&r, b, b, n);
	size_t w = 0;
	const uint8_t *at = b;
	int got;
	while ((got = tc_pb_next(&r, &f)) > 0) {
		size_t from = (size_t)(at - b), end = (size_t)(r.p - b);
		at = r.p;
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(desc,
			f.num);
		if (!fd) {
			continue;
		}
		if (f.wt != TC_PB_LEN || fd->type != PROTOBUF_C_TYPE_MESSAGE) {
			memmove(b + w, b + from, end - from);
			w += end - from;
			continue;
		}
		size_t c = (size_t)(f.data - b);
		size_t len = strip(b + c, f.len, fd->descriptor, bad);
		if (*bad) {
			return n;
		}
		w += tc_pb_put_varint(b + w, (uint64_t)f.num << 3 | TC_PB_LEN);
		w += tc_pb_put_varint(b + w, len);
		memmove(b + w, b + c, len);
		w += len;
	}
	*bad |= got < 0;
	return w;
}

bool tc_digest_strip_unknown(uint8_t *b, size_t *n, const ProtobufCMessageDescriptor *desc) {
	bool bad = false;
	*n = strip(b, *n, desc, &bad);
	return !bad;
}

/* ---- checking a rank read from a file ---- */

/* d names one of n (or none, -1, where none is allowed). */
static bool idx_ok(int64_t d, size_t n, bool none) {
	return (none && d == -1) || (d >= 0 && (uint64_t)d < n);
}

#define CHECK(cond, what) do { \
	if (!(cond)) { \
		return tc_error_set(err, TC_EXIT_INPUT, "malformed digest: rank '%s': %s out " \
			"of range", r->name, what); \
	} \
} while (0)

/* A sketch as merging reads it: a count per value, values rising from a
 * first that their differences do not overflow, buckets in the range
 * durations reach (1 % buckets of int64 picoseconds: a few thousand). */
static bool sketch_ok(const Tracectl__Sketch *s) {
	if (!s) {
		return true;
	}
	if (s->n_counts != s->n_values) {
		return false;
	}
	int64_t x = 0;
	for (size_t i = 0; i < s->n_values; i++) {
		if ((i && s->values[i] <= 0) || __builtin_add_overflow(x, s->values[i], &x)) {
			return false;
		}
	}
	return s->offset >= -(1 << 16) && s->offset <= (1 << 16) && s->n_buckets <= (1u << 16);
}

static bool holders_ok(Tracectl__MemHolder *const *h, size_t n, size_t ns) {
	for (size_t i = 0; i < n; i++) {
		if (h[i]->op > ns || h[i]->scope > ns) {
			return false;
		}
	}
	return true;
}

/* Every name ref of the view (1 + index in its strings, 0 none). */
static bool mem_view_names_ok(const Tracectl__MemView *v) {
	size_t ns = v ? v->n_strings : 0;
	for (size_t i = 0; v && i < v->n_allocators; i++) {
		const Tracectl__MemAllocator *a = v->allocators[i];
		if (!holders_ok(a->holders, a->n_holders, ns) ||
				!holders_ok(a->unfreed, a->n_unfreed, ns)) {
			return false;
		}
		for (size_t k = 0; k < a->n_top; k++) {
			const Tracectl__MemBuffer *b = a->top[k];
			if (b->op > ns || b->scope > ns || b->shape > ns || b->dtype > ns) {
				return false;
			}
		}
	}
	return true;
}

static bool indexes_ok(const Tracectl__Rank *r, struct tc_error *err) {
	size_t nd = r->n_devices, ns = r->n_strings;
	for (size_t i = 0; i < nd; i++) {
		CHECK(r->devices[i]->kind <= TC_DEV_ACCEL, "a device's kind");
	}
	for (size_t i = 0; i < r->n_ops; i++) {
		CHECK(r->ops[i]->name < ns && r->ops[i]->category < ns, "an op's name");
		CHECK(r->ops[i]->kind < TC_OP_KIND_COUNT, "an op's kind");
		CHECK(r->ops[i]->count >= 1 && r->ops[i]->count <= INT64_MAX, "an op's calls");
		CHECK(sketch_ok(r->ops[i]->sketch), "an op's duration sketch");
	}
	for (size_t i = 0; i < r->n_device_ops; i++) {
		CHECK(r->device_ops[i]->device < nd, "a device's ops");
	}
	for (size_t i = 0; i < r->n_category_ops; i++) {
		CHECK(r->category_ops[i]->device < TC_DEVCAT_COUNT, "a category's ops");
	}
	for (size_t i = 0; i < r->n_step_ops; i++) {
		CHECK(r->step_ops[i]->name_ref <= ns, "a step op's name");
	}
	for (size_t i = 0; i < r->n_mem; i++) {
		CHECK(idx_ok(r->mem[i]->device, nd, true), "a memory peak's device");
	}
	for (size_t i = 0; i < r->n_exposed; i++) {
		CHECK(idx_ok(r->exposed[i]->device, nd, false), "an exposed time's device");
	}
	CHECK(!r->mem_top || idx_ok(r->mem_top->device, nd, true), "the memory line's device");
	const Tracectl__MemView *mv = r->mem_view;
	for (size_t i = 0; mv && i < mv->n_allocators; i++) {
		CHECK(idx_ok(mv->allocators[i]->device, nd, true), "an allocator's device");
	}
	for (size_t i = 0; mv && i < mv->n_ops; i++) {
		CHECK(idx_ok(mv->ops[i]->device, nd, true), "a memory op's device");
		CHECK(mv->ops[i]->name <= mv->n_strings, "a memory op's name");
	}
	CHECK(mem_view_names_ok(mv), "a name of the memory view");
	const Tracectl__Steps *st = r->steps;
	if (st) {
		CHECK(idx_ok(st->bd_device, nd, true), "the breakdown device");
		for (size_t i = 0; i < st->n_steps; i++) {
			CHECK(idx_ok(st->steps[i]->device, nd, true), "a step's device");
		}
		for (size_t i = 0; i < st->n_attr; i++) {
			CHECK(st->attr[i]->device < nd, "an attributed device");
		}
	}
	const Tracectl__DiffSide *sd = r->side;
	for (size_t i = 0; sd && i < sd->n_ops; i++) {
		CHECK(sd->ops[i]->name_ref <= ns, "a diff op's name");
		CHECK(sd->ops[i]->parent_ref <= ns, "a diff op's parent");
	}
	for (size_t i = 0; sd && i < sd->n_cats; i++) {
		CHECK(sd->cats[i]->name_ref <= ns, "a diff category's name");
	}
	const Tracectl__Result *o = r->result;
	size_t nt = o->n_tracks, nc = o->n_counters;
	CHECK(o->framework < TC_FW_COUNT && o->runtime < TC_RT_COUNT, "the framework");
	for (size_t i = 0; i < nt; i++) {
		CHECK(idx_ok(o->tracks[i]->device, nd, true), "a track's device");
		CHECK(o->tracks[i]->kind <= TC_TRACK_COUNTER, "a track's kind");
	}
	for (size_t i = 0; i < o->n_sum_ops; i++) {
		CHECK(o->sum_ops[i]->kind < TC_OP_KIND_COUNT, "a summary op's kind");
		CHECK(o->sum_ops[i]->count >= 1 && o->sum_ops[i]->count <= INT64_MAX,
			"a summary op's calls");
	}
	for (size_t i = 0; i < nc; i++) {
		CHECK(idx_ok(o->counters[i]->device, nd, true), "a counter's device");
	}
	for (size_t i = 0; i < o->n_sum_devices; i++) {
		CHECK(o->sum_devices[i]->device < nd, "a summary device");
	}
	for (size_t i = 0; i < o->n_sum_steps; i++) {
		CHECK(idx_ok(o->sum_steps[i]->device, nd, true), "a summary step's device");
	}
	for (size_t i = 0; i < o->n_sum_counters; i++) {
		CHECK(o->sum_counters[i]->counter < nc, "a summary counter");
	}
	for (size_t i = 0; i < o->n_threads; i++) {
		CHECK(o->threads[i]->track < nt, "a host thread's track");
	}
	for (size_t i = 0; i < o->n_util; i++) {
		CHECK(o->util[i]->device < nd, "a utilisation device");
	}
	for (size_t i = 0; i < o->n_streams; i++) {
		CHECK(o->streams[i]->track < nt, "a stream's track");
	}
	for (size_t i = 0; i < o->n_findings; i++) {
		CHECK(idx_ok(o->findings[i]->device, nd, true), "a finding's device");
		CHECK(o->findings[i]->severity <= TC_SEV_CRITICAL, "a finding's severity");
	}
	return true;
}

/* Fields only a job's rank held in memory has (its bulk set aside in a
 * temporary file, lean steps, marked steps counted): from a file, aside_at
 * would read the temporary file anywhere. */
static bool memory_only_ok(const Tracectl__Rank *r, struct tc_error *err) {
	const char *f = NULL;
	const Tracectl__Steps *st = r->steps;
	const Tracectl__Result *o = r->result;
	if (r->aside_at || r->aside_len) {
		f = "aside_at and aside_len";
	} else if (r->collectives_packed.len) {
		f = "collectives_packed";
	} else if (st && (st->n_lean_start_ps || st->n_lean_dur_ps || st->n_lean_num ||
			st->n_lean_flags)) {
		f = "Steps.lean_*";
	} else if (o->sum_steps_counted || o->sum_steps_sum_ps || o->sum_steps_min_ps ||
			o->sum_steps_max_ps) {
		f = "Result.sum_steps_counted";
	}
	return !f || tc_error_set(err, TC_EXIT_INPUT, "malformed digest: rank '%s': holds %s, "
		"a field only held in memory", r->name, f);
}

static bool time_ok(int64_t t) {
	return t >= -TC_DIGEST_TIME_MAX && t <= TC_DIGEST_TIME_MAX;
}

/* Both times in range and in order. */
static bool span_ok(int64_t first, int64_t last) {
	return time_ok(first) && time_ok(last) && first <= last;
}

/* The memory view's times, and its buffers' ages the writers print. */
static bool mem_view_times_ok(const Tracectl__MemView *v) {
	if (v && !time_ok(v->first_ps)) {
		return false;
	}
	for (size_t i = 0; v && i < v->n_allocators; i++) {
		const Tracectl__MemAllocator *a = v->allocators[i];
		if (!time_ok(a->peak_ps)) {
			return false;
		}
		for (size_t k = 0; k < a->n_holders; k++) {
			if (!time_ok(a->holders[k]->oldest_ps) || !time_ok(a->holders[k]->newest_ps)) {
				return false;
			}
		}
		for (size_t k = 0; k < a->n_top; k++) {
			if (!time_ok(a->top[k]->alloc_ps) || !time_ok(a->top[k]->free_ps)) {
				return false;
			}
		}
	}
	return true;
}

/* The times a job shifts to its clock and the writers subtract, within
 * TC_DIGEST_TIME_MAX: no sum of a few of them overflows, and no span is
 * negative. */
static bool times_ok(const Tracectl__Rank *r, struct tc_error *err) {
	CHECK(time_ok(r->first_ps) && time_ok(r->span_ps) && r->span_ps >= 0, "the clock");
	const Tracectl__Steps *st = r->steps;
	for (size_t i = 0; st && i < st->n_steps; i++) {
		const Tracectl__Step *s = st->steps[i];
		CHECK(time_ok(s->start_ps) && time_ok(s->dur_ps) && time_ok(s->marker_start_ps) &&
			time_ok(s->marker_dur_ps), "a step's time");
	}
	CHECK(!st || (time_ok(st->window_lo_ps) && time_ok(st->window_hi_ps)), "the step window");
	const Tracectl__Result *o = r->result;
	CHECK(span_ok(o->first_ps, o->last_ps), "the summary's span");
	for (size_t i = 0; i < o->n_sum_devices; i++) {
		const Tracectl__SumDevice *x = o->sum_devices[i];
		CHECK(span_ok(x->first_ps, x->last_ps) && time_ok(x->span_ps), "a device's span");
	}
	for (size_t i = 0; i < o->n_sum_steps; i++) {
		CHECK(time_ok(o->sum_steps[i]->start_ps) && time_ok(o->sum_steps[i]->dur_ps),
			"a summary step's time");
	}
	for (size_t i = 0; i < o->n_sum_counters; i++) {
		CHECK(span_ok(o->sum_counters[i]->first_ps, o->sum_counters[i]->last_ps),
			"a counter's span");
	}
	for (size_t i = 0; i < o->n_threads; i++) {
		CHECK(span_ok(o->threads[i]->first_ps, o->threads[i]->last_ps), "a thread's span");
	}
	for (size_t i = 0; i < o->n_util; i++) {
		CHECK(span_ok(o->util[i]->first_ps, o->util[i]->last_ps), "a device's busy span");
	}
	for (size_t i = 0; i < o->n_mem; i++) {
		CHECK(time_ok(o->mem[i]->peak_ts_ps), "a memory peak's time");
	}
	CHECK(span_ok(o->compile_first_ps, o->compile_last_ps), "the compilation span");
	CHECK(!r->mem_top || time_ok(r->mem_top->peak_ps), "the memory line's peak time");
	CHECK(mem_view_times_ok(r->mem_view), "a time of the memory view");
	for (size_t i = 0; i < o->n_findings; i++) {
		CHECK(span_ok(o->findings[i]->window_lo_ps, o->findings[i]->window_hi_ps),
			"a finding's window");
	}
	return true;
}

bool tc_digest_rank_valid(const Tracectl__Rank *r, struct tc_error *err) {
	if (!r->result) {
		return tc_error_set(err, TC_EXIT_INPUT, "malformed digest: rank '%s' holds no summary",
			r->name);
	}
	return indexes_ok(r, err) && memory_only_ok(r, err) && times_ok(r, err);
}

#undef CHECK
