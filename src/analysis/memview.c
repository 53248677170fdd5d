/*
 * Memory by op: allocator records paired into buffers by address, each
 * attributed to the op that asked for it, the per-op statistics of the
 * TensorBoard PyTorch plugin's memory view, and what each allocator held
 * at its peak (docs/analysis.md, "Memory by op").
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/memview.h"
#include "model/memcurve.h"
#include "util/numfmt.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#define TOP_BUFFERS 10

/* What an op is to the attribution, after the plugin's op tree. */
enum node {
	N_NONE = 0, /* not in the tree: runtime calls, kernels, plain Python frames */
	N_OTHER,    /* a node that is no operator: steps, data loading */
	N_SCOPE,    /* a module or annotation: no operator, names a scope */
	N_OPERATOR, /* a framework op */
};

static bool prefix(const char *s, const char *p) {
	return strncmp(s, p, strlen(p)) == 0;
}

static bool suffix(const char *s, size_t n, const char *p) {
	size_t k = strlen(p);
	return n >= k && memcmp(s + n - k, p, k) == 0;
}

/* The plugin leaves out data loading, optimizer and DataParallel wrappers. */
static enum node node_of(const struct tc_model *m, uint32_t op) {
	const struct tc_op *o = &m->ops[op];
	const char *s = tc_model_str(m, o->name);
	size_t n = tc_intern_len(&m->strings, o->name);
	switch (o->kind) {
	case TC_OP_HOST_OP:
		if ((prefix(s, "enumerate(DataLoader)#") && suffix(s, n, ".__next__")) ||
				prefix(s, "Optimizer.") || strcmp(s, "DataParallel.forward") == 0 ||
				strcmp(s, "DistributedDataParallel.forward") == 0) {
			return N_OTHER;
		}
		return N_OPERATOR;
	case TC_OP_ANNOTATION:
		return N_SCOPE;
	case TC_OP_PYTHON:
		return prefix(s, "nn.Module: ") ? N_SCOPE : N_NONE;
	case TC_OP_STEP:
	case TC_OP_DATALOAD:
	case TC_OP_COMPILE:
		return N_OTHER;
	default:
		return N_NONE;
	}
}

struct build {
	const struct tc_model *m;
	struct tc_mem_view *v;
	uint8_t *node;      /* enum node, per op */
	uint32_t *op;       /* per record: allocating op name, TC_NONE */
	uint32_t *scope;    /* per record: its scope, TC_NONE */
	uint32_t *pair;     /* per allocation: its free's record, TC_NONE */
	struct tc_u64map stat_at; /* (name, device) -> index in v->ops */
	size_t cap_ops;
};

static struct tc_mem_op *stat_of(struct build *b, uint32_t name, uint32_t device) {
	uint64_t key = (uint64_t)name << 32 | device;
	uint32_t *at = tc_u64map_find(&b->stat_at, key);
	if (at) {
		return &b->v->ops[*at];
	}
	struct tc_mem_view *v = b->v;
	TC_GROW(v->ops, b->cap_ops, v->n_ops + 1);
	struct tc_mem_op *s = &v->ops[v->n_ops];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->device = device;
	tc_u64map_put(&b->stat_at, key, (uint32_t)v->n_ops++);
	return s;
}

static void count_self(struct tc_mem_op *s, int64_t bytes) {
	s->self_increase += bytes;
	if (bytes > 0) {
		s->self_alloc_bytes += bytes;
		s->self_allocs++;
	}
}

static void count_total(struct tc_mem_op *s, int64_t bytes) {
	s->increase += bytes;
	if (bytes > 0) {
		s->alloc_bytes += bytes;
		s->allocs++;
	}
}

/*
 * Record r, at the time the stack holds the tree nodes enclosing it
 * (innermost last): the plugin counts it only when the innermost is an
 * operator, as that op's self and in every operator enclosing it. Its
 * owner is the innermost operator, else the innermost node.
 */
static void attribute(struct build *b, size_t r, const uint32_t *stack, size_t top) {
	const struct tc_model *m = b->m;
	const struct tc_alloc *a = &m->allocs[r];
	for (size_t k = top; k-- > 0;) {
		enum node nd = (enum node)b->node[m->ev.op[stack[k]]];
		uint32_t name = m->ops[m->ev.op[stack[k]]].name;
		if (nd == N_SCOPE && b->scope[r] == TC_NONE) {
			b->scope[r] = name;
		}
		if (nd == N_OPERATOR && b->op[r] == TC_NONE) {
			b->op[r] = name;
		}
	}
	if (b->op[r] == TC_NONE && top) {
		b->op[r] = m->ops[m->ev.op[stack[top - 1]]].name;
	}
	if (!top || b->node[m->ev.op[stack[top - 1]]] != N_OPERATOR) {
		return;
	}
	b->v->attributed++;
	count_self(stat_of(b, m->ops[m->ev.op[stack[top - 1]]].name, a->device), a->bytes);
	for (size_t k = 0; k < top; k++) {
		uint32_t op = m->ev.op[stack[k]];
		if (b->node[op] == N_OPERATOR) {
			count_total(stat_of(b, m->ops[op].name, a->device), a->bytes);
		}
	}
}

/*
 * One sweep per host thread over its events and its records, both in time
 * order, with the stack of open tree nodes ([start, end): a record at an
 * op's end is not in it). order holds the records by track.
 */
static void sweep_track(struct build *b, size_t t, const uint32_t *recs, size_t n,
		uint32_t *stack) {
	const struct tc_model *m = b->m;
	const struct tc_track *tr = &m->tracks[t];
	size_t e = tr->first, hi = (size_t)tr->first + tr->count, top = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t ts = m->allocs[recs[i]].ts;
		for (; e < hi && m->ev.start[e] <= ts; e++) {
			if (!b->node[m->ev.op[e]] || m->ev.dur[e] <= 0) {
				continue;
			}
			while (top && tc_model_end(m, stack[top - 1]) <= m->ev.start[e]) {
				top--;
			}
			stack[top++] = (uint32_t)e;
		}
		while (top && tc_model_end(m, stack[top - 1]) <= ts) {
			top--;
		}
		attribute(b, recs[i], stack, top);
	}
}

static void attribute_all(struct build *b) {
	const struct tc_model *m = b->m;
	size_t nt = m->n_tracks, na = m->n_allocs, depth = 1;
	uint32_t *first = tc_xcalloc(nt + 2, sizeof(*first));
	uint32_t *order = tc_xmalloc((na ? na : 1) * sizeof(*order));
	for (size_t r = 0; r < na; r++) {
		const struct tc_alloc *a = &m->allocs[r];
		if (a->op != TC_NONE) {
			/* The trace names the op (xplane tf_op): no tree to walk. */
			b->op[r] = a->op;
			b->v->attributed++;
			count_self(stat_of(b, a->op, a->device), a->bytes);
			count_total(stat_of(b, a->op, a->device), a->bytes);
		} else if (a->track < nt) {
			first[a->track + 2]++;
		}
	}
	for (size_t t = 0; t < nt; t++) {
		first[t + 2] += first[t + 1];
		if (first[t + 2] != first[t + 1] && m->tracks[t].max_depth + 1u > depth) {
			depth = m->tracks[t].max_depth + 1u;
		}
	}
	for (size_t r = 0; r < na; r++) {
		const struct tc_alloc *a = &m->allocs[r];
		if (a->op == TC_NONE && a->track < nt) {
			order[first[a->track + 1]++] = (uint32_t)r;
		}
	}
	uint32_t *stack = tc_xmalloc(depth * sizeof(*stack));
	for (size_t t = 0; t < nt; t++) {
		if (first[t + 1] > first[t]) {
			sweep_track(b, t, order + first[t], first[t + 1] - first[t], stack);
		}
	}
	free(stack);
	free(order);
	free(first);
}

/* Calls: every occurrence of an operator that has a row, on any thread. */
static void count_calls(struct build *b) {
	const struct tc_model *m = b->m;
	uint32_t *per_op = tc_xcalloc(m->n_ops ? m->n_ops : 1, sizeof(*per_op));
	for (size_t i = 0; i < m->ev.n; i++) {
		uint32_t op = m->ev.op[i];
		if (b->node[op] == N_OPERATOR && per_op[op] < UINT32_MAX) {
			per_op[op]++;
		}
	}
	struct tc_u64map by_name = { 0 };
	for (size_t op = 0; op < m->n_ops; op++) {
		if (!per_op[op]) {
			continue;
		}
		uint32_t *c = tc_u64map_find(&by_name, m->ops[op].name);
		uint64_t sum = (c ? *c : 0) + (uint64_t)per_op[op];
		tc_u64map_put(&by_name, m->ops[op].name, sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum);
	}
	for (size_t i = 0; i < b->v->n_ops; i++) {
		const uint32_t *c = tc_u64map_find(&by_name, b->v->ops[i].name);
		b->v->ops[i].calls = c ? *c : 0;
	}
	tc_u64map_finish(&by_name);
	free(per_op);
}

static struct tc_mem_device *dev_of(struct build *b, uint32_t device, uint32_t group,
		size_t *cap) {
	struct tc_mem_view *v = b->v;
	for (size_t i = v->n_devs; i-- > 0;) {
		if (v->devs[i].device == device && v->devs[i].group == group) {
			return &v->devs[i];
		}
	}
	TC_GROW(v->devs, *cap, v->n_devs + 1);
	struct tc_mem_device *d = &v->devs[v->n_devs++];
	memset(d, 0, sizeof(*d));
	d->device = device;
	d->group = group;
	d->total_at_peak = -1;
	return d;
}

/*
 * One pass over the records in time order: each free finds its allocation
 * by address in its allocator's running state (model/memcurve.c, which
 * also keeps the baseline); the curve is the baseline plus the running
 * sum, and its first maximum, the start included, is the peak.
 */
static struct tc_alloc_run *pair_all(struct build *b, uint32_t **dev_of_rec) {
	const struct tc_model *m = b->m;
	struct tc_mem_view *v = b->v;
	size_t cap = 0, cap_p = 0;
	struct tc_alloc_run *p = NULL;
	uint32_t *dr = tc_xmalloc((m->n_allocs ? m->n_allocs : 1) * sizeof(*dr));
	size_t last = SIZE_MAX;
	for (size_t r = 0; r < m->n_allocs; r++) {
		const struct tc_alloc *a = &m->allocs[r];
		size_t k;
		if (last < v->n_devs && v->devs[last].device == a->device &&
				v->devs[last].group == a->group) {
			k = last;
		} else {
			k = (size_t)(dev_of(b, a->device, a->group, &cap) - v->devs);
			if (v->n_devs > cap_p) {
				size_t old = cap_p;
				TC_GROW(p, cap_p, v->n_devs);
				memset(p + old, 0, (cap_p - old) * sizeof(*p));
			}
			last = k;
		}
		dr[r] = (uint32_t)k;
		struct tc_mem_device *d = &v->devs[k];
		d->records++;
		uint32_t at;
		switch (tc_alloc_run_add(&p[k], a, r, &at)) {
		case TC_AS_REUSE:
			d->reused++;
			/* fall through */
		case TC_AS_ALLOC:
			d->allocs++;
			break;
		case TC_AS_PAIRED:
			b->pair[at] = (uint32_t)r;
			d->paired++;
			d->frees++;
			break;
		case TC_AS_EARLY:
			d->before_start++;
			d->frees++;
			break;
		}
	}
	for (size_t k = 0; k < v->n_devs; k++) {
		struct tc_mem_device *d = &v->devs[k];
		d->baseline = tc_alloc_run_baseline(&p[k]);
		d->baseline_total = p[k].have_total;
		d->peak_bytes = d->baseline + p[k].max_cum;
		d->end_bytes = d->baseline + p[k].cum;
		const struct tc_alloc *pk = &m->allocs[p[k].peak_rec];
		d->peak_ps = pk->ts;
		d->total_at_peak = pk->total;
	}
	*dev_of_rec = dr;
	return p;
}

static int cmp_holder(const void *pa, const void *pb) {
	const struct tc_mem_holder *a = pa, *b = pb;
	if (a->bytes != b->bytes) {
		return a->bytes > b->bytes ? -1 : 1;
	}
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	return a->scope < b->scope ? -1 : a->scope > b->scope;
}

/* Keep the TOP_BUFFERS largest, largest first (earlier first on ties). */
static void keep_top(struct tc_mem_device *d, const struct tc_mem_buffer *x) {
	size_t n = d->n_top;
	if (n == TOP_BUFFERS && d->top[n - 1].bytes >= x->bytes) {
		return;
	}
	size_t i = n < TOP_BUFFERS ? n++ : n - 1;
	while (i > 0 && d->top[i - 1].bytes < x->bytes) {
		d->top[i] = d->top[i - 1];
		i--;
	}
	d->top[i] = *x;
	d->n_top = n;
}

/* What allocator k held at its peak, by allocating op and scope. */
static void live_at_peak(struct build *b, size_t k, const struct tc_alloc_run *s,
		const uint32_t *dr) {
	const struct tc_model *m = b->m;
	struct tc_mem_device *d = &b->v->devs[k];
	struct tc_u64map at = { 0 };
	size_t cap = 0;
	int64_t held = 0;
	d->top = tc_xmalloc(TOP_BUFFERS * sizeof(*d->top));
	for (size_t r = 0; r <= s->peak_rec && d->records; r++) {
		const struct tc_alloc *a = &m->allocs[r];
		if (dr[r] != k || a->bytes <= 0 || (b->pair[r] != TC_NONE && b->pair[r] <= s->peak_rec)) {
			continue;
		}
		uint64_t key = (uint64_t)b->op[r] << 32 | b->scope[r];
		uint32_t *h = tc_u64map_find(&at, key);
		if (!h) {
			TC_GROW(d->holders, cap, d->n_holders + 1);
			d->holders[d->n_holders] = (struct tc_mem_holder){
				.name = b->op[r], .scope = b->scope[r], .oldest_ps = -1, .newest_ps = -1,
			};
			h = tc_u64map_put(&at, key, (uint32_t)d->n_holders++);
		}
		struct tc_mem_holder *ho = &d->holders[*h];
		int64_t age = d->peak_ps - a->ts;
		ho->bytes += a->bytes;
		ho->buffers++;
		ho->oldest_ps = ho->oldest_ps < 0 || age > ho->oldest_ps ? age : ho->oldest_ps;
		ho->newest_ps = ho->newest_ps < 0 || age < ho->newest_ps ? age : ho->newest_ps;
		held += a->bytes;
		struct tc_mem_buffer buf = {
			.name = b->op[r], .scope = b->scope[r], .shape = a->shape, .dtype = a->dtype,
			.bytes = a->bytes, .addr = a->addr, .alloc_ps = a->ts,
			.free_ps = b->pair[r] != TC_NONE ? m->allocs[b->pair[r]].ts : TC_MEM_NEVER,
		};
		keep_top(d, &buf);
	}
	/* The rest of the peak was allocated before the trace began. */
	if (d->peak_bytes != held) {
		TC_GROW(d->holders, cap, d->n_holders + 1);
		d->holders[d->n_holders++] = (struct tc_mem_holder){
			.name = TC_NONE, .scope = TC_NONE, .bytes = d->peak_bytes - held,
			.oldest_ps = -1, .newest_ps = -1, .before_trace = true,
		};
	}
	if (d->n_holders > 1) {
		qsort(d->holders, d->n_holders, sizeof(*d->holders), cmp_holder);
	}
	tc_u64map_finish(&at);
}

/* The allocations never freed, by allocator and then allocating op. */
static void group_unfreed(struct build *b, const uint32_t *dr) {
	const struct tc_model *m = b->m;
	struct tc_mem_view *v = b->v;
	struct tc_u64map at = { 0 };
	size_t *cap = tc_xcalloc(v->n_devs, sizeof(*cap));
	for (size_t r = 0; r < m->n_allocs; r++) {
		if (m->allocs[r].bytes <= 0 || b->pair[r] != TC_NONE) {
			continue;
		}
		struct tc_mem_device *d = &v->devs[dr[r]];
		d->never_freed++;
		/* Keys: allocator in the top bits, op and scope below (ids < 2^24
		 * each in practice; a collision merges two rows, it loses none). */
		uint64_t key = (uint64_t)dr[r] << 48 ^ (uint64_t)b->op[r] << 24 ^ b->scope[r];
		uint32_t *h = tc_u64map_find(&at, key);
		if (!h) {
			TC_GROW(d->unfreed, cap[dr[r]], d->n_unfreed + 1);
			d->unfreed[d->n_unfreed] = (struct tc_mem_holder){
				.name = b->op[r], .scope = b->scope[r], .oldest_ps = -1, .newest_ps = -1,
			};
			h = tc_u64map_put(&at, key, (uint32_t)d->n_unfreed++);
		}
		d->unfreed[*h].bytes += m->allocs[r].bytes;
		d->unfreed[*h].buffers++;
	}
	for (size_t k = 0; k < v->n_devs; k++) {
		if (v->devs[k].n_unfreed > 1) {
			qsort(v->devs[k].unfreed, v->devs[k].n_unfreed, sizeof(*v->devs[k].unfreed),
				cmp_holder);
		}
	}
	free(cap);
	tc_u64map_finish(&at);
}

static int cmp_op(const void *pa, const void *pb) {
	const struct tc_mem_op *a = pa, *b = pb;
	if (a->device != b->device) {
		return a->device < b->device ? -1 : 1;
	}
	if (a->alloc_bytes != b->alloc_bytes) {
		return a->alloc_bytes > b->alloc_bytes ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

static int cmp_dev(const void *pa, const void *pb) {
	const struct tc_mem_device *a = pa, *b = pb;
	if (a->device != b->device) {
		return a->device < b->device ? -1 : 1;
	}
	return a->group < b->group ? -1 : a->group > b->group;
}

void tc_memview_build(const struct tc_model *m, struct tc_mem_view *v) {
	memset(v, 0, sizeof(*v));
	v->records = m->n_allocs;
	if (!m->n_allocs) {
		return;
	}
	int64_t last;
	tc_model_span(m, &v->first_ps, &last);
	if (m->ev.n == 0 || m->allocs[0].ts < v->first_ps) {
		v->first_ps = m->allocs[0].ts;
	}
	size_t na = m->n_allocs;
	struct build b = { .m = m, .v = v };
	b.node = tc_xmalloc(m->n_ops ? m->n_ops : 1);
	for (size_t op = 0; op < m->n_ops; op++) {
		b.node[op] = (uint8_t)node_of(m, (uint32_t)op);
	}
	b.op = tc_xmalloc(na * sizeof(*b.op));
	b.scope = tc_xmalloc(na * sizeof(*b.scope));
	b.pair = tc_xmalloc(na * sizeof(*b.pair));
	memset(b.op, 0xff, na * sizeof(*b.op));
	memset(b.scope, 0xff, na * sizeof(*b.scope));
	memset(b.pair, 0xff, na * sizeof(*b.pair));
	attribute_all(&b);
	count_calls(&b);
	if (v->n_ops > 1) {
		qsort(v->ops, v->n_ops, sizeof(*v->ops), cmp_op);
	}
	uint32_t *dr;
	struct tc_alloc_run *p = pair_all(&b, &dr);
	for (size_t k = 0; k < v->n_devs; k++) {
		live_at_peak(&b, k, &p[k], dr);
		tc_alloc_run_finish(&p[k]);
	}
	group_unfreed(&b, dr);
	if (v->n_devs > 1) {
		qsort(v->devs, v->n_devs, sizeof(*v->devs), cmp_dev);
	}
	free(p);
	free(dr);
	tc_u64map_finish(&b.stat_at);
	free(b.node);
	free(b.op);
	free(b.scope);
	free(b.pair);
}

/* The ops that held the most of device d's largest allocator peak, and
 * its largest buffer, after the text in sb (allocator records only). */
void tc_memview_holders_clause(const struct tc_model *m, const struct tc_mem_view *v,
		uint32_t d, struct tc_finding *f, struct tc_strbuf *sb) {
	const struct tc_mem_device *md = NULL;
	for (size_t i = 0; i < v->n_devs; i++) {
		if (v->devs[i].device == d && (!md || v->devs[i].peak_bytes > md->peak_bytes)) {
			md = &v->devs[i];
		}
	}
	if (!md) {
		return;
	}
	char g[TC_FMT_LEN];
	const char *sep = "; held at its peak by ";
	for (size_t i = 0; i < md->n_holders && f->n_ops < 3; i++) {
		const struct tc_mem_holder *h = &md->holders[i];
		if (h->before_trace || h->name == TC_NONE) {
			continue;
		}
		tc_strbuf_addf(sb, "%s'%s' %s (%.1f %%)", sep, tc_model_str(m, h->name),
			tc_fmt_bytes(g, (double)h->bytes),
			md->peak_bytes > 0 ? 100.0 * (double)h->bytes / (double)md->peak_bytes : 0);
		f->ops[f->n_ops++] = h->name;
		sep = ", ";
	}
	if (md->n_top) {
		const struct tc_mem_buffer *b = &md->top[0];
		tc_strbuf_addf(sb, "; largest buffer %s", tc_fmt_bytes(g, (double)b->bytes));
		if (b->shape != TC_NONE) {
			tc_strbuf_addf(sb, " %s", tc_model_str(m, b->shape));
		}
		if (b->name != TC_NONE) {
			tc_strbuf_addf(sb, " from '%s'", tc_model_str(m, b->name));
		}
	}
	tc_strbuf_addf(sb, " (tracectl memory)");
}

/* Live bytes of allocator md after the last record at or before each
 * step's end (from its start: the trace's own first record's). */
void tc_memview_live_at_ends(const struct tc_model *m, const struct tc_mem_device *md,
		const struct tc_step *steps, size_t n_steps, int64_t *live) {
	int64_t cum = md->baseline;
	size_t r = 0;
	for (size_t i = 0; i < n_steps; i++) {
		const struct tc_step *st = &steps[i];
		for (; r < m->n_allocs && m->allocs[r].ts <= st->start_ps + st->dur_ps; r++) {
			const struct tc_alloc *a = &m->allocs[r];
			cum += a->device == md->device && a->group == md->group ? a->bytes : 0;
		}
		live[i] = cum;
	}
}
