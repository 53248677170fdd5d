/*
 * Memory by op in a digest (Rank.mem_view): the view `tracectl memory`
 * prints, packed with names as strings and times from the summary's
 * first event, and unpacked into a skeleton model's view, so `memory`,
 * summarize's memory line and check's memory.peak_by_op print the same
 * from a digest as from its trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "digest/view.h"
#include "util/num.h"
#include "util/u64map.h"
#include "util/xalloc.h"

static void *dalloc(struct tc_digest *d, size_t n) {
	return tc_arena_calloc(&d->arena, n ? n : 1);
}

/* The view's names, each once (MemView.strings): a TF job's ops repeat
 * in its per-op rows, holders and buffers. */
struct names {
	struct tc_digest *d;
	const struct tc_model *m;
	struct tc_u64map at;    /* model string id -> 1 + index */
	char **v;
	size_t n, cap;
};

static uint32_t mstr(struct names *t, uint32_t id) {
	if (id == TC_NONE) {
		return 0;
	}
	uint32_t *at = tc_u64map_find(&t->at, id);
	if (at) {
		return *at;
	}
	TC_GROW(t->v, t->cap, t->n + 1);
	t->v[t->n++] = tc_arena_strdup(&t->d->arena, tc_model_str(t->m, id));
	*tc_u64map_put(&t->at, id, (uint32_t)t->n) = (uint32_t)t->n;
	return (uint32_t)t->n;
}

static int32_t pdev(const struct tc_model *m, uint32_t dv) {
	return dv < m->n_devices ? (int32_t)dv : -1;
}

static Tracectl__MemHolder **pack_holders(struct tc_digest *d, struct names *t,
		const struct tc_mem_holder *h, size_t n) {
	Tracectl__MemHolder **out = dalloc(d, n * sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		Tracectl__MemHolder *o = out[i] = dalloc(d, sizeof(*o));
		tracectl__mem_holder__init(o);
		o->op = mstr(t, h[i].name);
		o->scope = mstr(t, h[i].scope);
		o->before_trace = h[i].before_trace;
		o->bytes = h[i].bytes;
		o->buffers = h[i].buffers;
		o->oldest_ps = h[i].oldest_ps;
		o->newest_ps = h[i].newest_ps;
	}
	return out;
}

static Tracectl__MemAllocator *pack_allocator(struct tc_digest *d, struct names *t,
		const struct tc_mem_device *x, int64_t first) {
	const struct tc_model *m = t->m;
	Tracectl__MemAllocator *o = dalloc(d, sizeof(*o));
	tracectl__mem_allocator__init(o);
	o->device = pdev(m, x->device);
	o->allocator = tc_arena_strdup(&d->arena, x->group ? tc_model_str(m, x->group) : "");
	char buf[512] = "global";
	if (x->device < m->n_devices) {
		tc_analysis_device_label(m, x->device, buf, sizeof(buf));
	}
	o->device_label = tc_arena_strdup(&d->arena, buf);
	o->records = x->records;
	o->allocs = x->allocs;
	o->frees = x->frees;
	o->paired = x->paired;
	o->never_freed = x->never_freed;
	o->before_start = x->before_start;
	o->reused = x->reused;
	o->baseline = x->baseline;
	o->baseline_total = x->baseline_total;
	o->peak_bytes = x->peak_bytes;
	o->peak_ps = x->peak_ps - first;
	o->total_at_peak = x->total_at_peak;
	o->end_bytes = x->end_bytes;
	o->n_holders = x->n_holders;
	o->holders = pack_holders(d, t, x->holders, x->n_holders);
	o->n_unfreed = x->n_unfreed;
	o->unfreed = pack_holders(d, t, x->unfreed, x->n_unfreed);
	o->n_top = x->n_top;
	o->top = dalloc(d, x->n_top * sizeof(*o->top));
	for (size_t i = 0; i < x->n_top; i++) {
		const struct tc_mem_buffer *b = &x->top[i];
		Tracectl__MemBuffer *u = o->top[i] = dalloc(d, sizeof(*u));
		tracectl__mem_buffer__init(u);
		u->op = mstr(t, b->name);
		u->scope = mstr(t, b->scope);
		u->shape = mstr(t, b->shape);
		u->dtype = mstr(t, b->dtype);
		u->bytes = b->bytes;
		u->addr = b->addr;
		u->alloc_ps = b->alloc_ps - first;
		u->freed = b->free_ps != TC_MEM_NEVER;
		u->free_ps = u->freed ? b->free_ps - first : 0;
	}
	return o;
}

void tc_digest_memview_pack(struct tc_digest *d, const struct tc_model *m,
		const struct tc_mem_view *v, int64_t first, Tracectl__Rank *r) {
	Tracectl__MemView *o = r->mem_view = dalloc(d, sizeof(*o));
	tracectl__mem_view__init(o);
	if (!v->records) {
		return;
	}
	struct names t = { .d = d, .m = m };
	o->records = v->records;
	o->attributed = v->attributed;
	o->first_ps = v->first_ps - first;
	o->n_allocators = v->n_devs;
	o->allocators = dalloc(d, v->n_devs * sizeof(*o->allocators));
	for (size_t i = 0; i < v->n_devs; i++) {
		o->allocators[i] = pack_allocator(d, &t, &v->devs[i], first);
	}
	o->n_ops = v->n_ops;
	o->ops = dalloc(d, v->n_ops * sizeof(*o->ops));
	for (size_t i = 0; i < v->n_ops; i++) {
		const struct tc_mem_op *x = &v->ops[i];
		Tracectl__MemOp *p = o->ops[i] = dalloc(d, sizeof(*p));
		tracectl__mem_op__init(p);
		p->device = pdev(m, x->device);
		p->name = mstr(&t, x->name);
		p->self_increase = x->self_increase;
		p->self_alloc_bytes = x->self_alloc_bytes;
		p->self_allocs = x->self_allocs;
		p->increase = x->increase;
		p->alloc_bytes = x->alloc_bytes;
		p->allocs = x->allocs;
		p->calls = x->calls;
	}
	o->n_strings = t.n;
	o->strings = dalloc(d, t.n * sizeof(*o->strings));
	if (t.n) {
		memcpy(o->strings, t.v, t.n * sizeof(*o->strings));
	}
	free(t.v);
	tc_u64map_finish(&t.at);
}

/* ---- back ---- */

/* Name ref (checked by tc_digest_rank_valid) in skel, TC_NONE for 0. */
static uint32_t ustr(struct tc_model *skel, const Tracectl__MemView *v, uint32_t ref) {
	return ref ? tc_model_intern(skel, v->strings[ref - 1]) : TC_NONE;
}

static uint32_t udev(int32_t d, uint32_t base) {
	return d < 0 ? TC_NONE : base + (uint32_t)d;
}

static struct tc_mem_holder *unpack_holders(struct tc_model *skel, const Tracectl__MemView *v,
		Tracectl__MemHolder *const *h, size_t n) {
	struct tc_mem_holder *out = tc_xcalloc(n ? n : 1, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		out[i] = (struct tc_mem_holder){ .name = ustr(skel, v, h[i]->op),
			.scope = ustr(skel, v, h[i]->scope), .before_trace = h[i]->before_trace,
			.bytes = h[i]->bytes, .buffers = h[i]->buffers,
			.oldest_ps = h[i]->oldest_ps, .newest_ps = h[i]->newest_ps };
	}
	return out;
}

static void unpack_allocator(struct tc_model *skel, const Tracectl__MemView *v,
		const Tracectl__MemAllocator *o, uint32_t base, int64_t first,
		struct tc_mem_device *x) {
	*x = (struct tc_mem_device){ .device = udev(o->device, base),
		.group = o->allocator[0] ? tc_model_intern(skel, o->allocator) : 0,
		.records = o->records, .allocs = o->allocs, .frees = o->frees,
		.paired = o->paired, .never_freed = o->never_freed,
		.before_start = o->before_start, .reused = o->reused,
		.baseline = o->baseline, .baseline_total = o->baseline_total,
		.peak_bytes = o->peak_bytes, .peak_ps = tc_sat_add(o->peak_ps, first),
		.total_at_peak = o->total_at_peak, .end_bytes = o->end_bytes };
	x->n_holders = o->n_holders;
	x->holders = unpack_holders(skel, v, o->holders, o->n_holders);
	x->n_unfreed = o->n_unfreed;
	x->unfreed = unpack_holders(skel, v, o->unfreed, o->n_unfreed);
	x->n_top = o->n_top;
	x->top = tc_xcalloc(o->n_top ? o->n_top : 1, sizeof(*x->top));
	for (size_t i = 0; i < o->n_top; i++) {
		const Tracectl__MemBuffer *b = o->top[i];
		x->top[i] = (struct tc_mem_buffer){ .name = ustr(skel, v, b->op),
			.scope = ustr(skel, v, b->scope), .shape = ustr(skel, v, b->shape),
			.dtype = ustr(skel, v, b->dtype), .bytes = b->bytes, .addr = b->addr,
			.alloc_ps = tc_sat_add(b->alloc_ps, first),
			.free_ps = b->freed ? tc_sat_add(b->free_ps, first) : TC_MEM_NEVER };
	}
}

void tc_digest_memview_unpack(struct tc_model *skel, const Tracectl__Rank *r, uint32_t base,
		int64_t first, struct tc_mem_view *v) {
	memset(v, 0, sizeof(*v));
	const Tracectl__MemView *o = r->mem_view;
	if (!o || !o->records) {
		return;
	}
	v->records = o->records;
	v->attributed = o->attributed;
	v->first_ps = tc_sat_add(o->first_ps, first);
	v->n_devs = o->n_allocators;
	v->devs = tc_xcalloc(v->n_devs ? v->n_devs : 1, sizeof(*v->devs));
	for (size_t i = 0; i < v->n_devs; i++) {
		unpack_allocator(skel, o, o->allocators[i], base, first, &v->devs[i]);
	}
	v->n_ops = o->n_ops;
	v->ops = tc_xcalloc(v->n_ops ? v->n_ops : 1, sizeof(*v->ops));
	for (size_t i = 0; i < v->n_ops; i++) {
		const Tracectl__MemOp *p = o->ops[i];
		v->ops[i] = (struct tc_mem_op){ .device = udev(p->device, base),
			.name = ustr(skel, o, p->name), .self_increase = p->self_increase,
			.self_alloc_bytes = p->self_alloc_bytes, .self_allocs = p->self_allocs,
			.increase = p->increase, .alloc_bytes = p->alloc_bytes, .allocs = p->allocs,
			.calls = p->calls };
	}
}

bool tc_digest_memview_by_op(const Tracectl__Rank *r, const char *op, double *out,
		char *detail, size_t size) {
	const Tracectl__MemView *o = r->mem_view;
	const Tracectl__MemAllocator *best = NULL;
	/* The largest peak, the first of equals, as tc_mem_view_top. */
	for (size_t i = 0; o && i < o->n_allocators; i++) {
		if (!best || o->allocators[i]->peak_bytes > best->peak_bytes) {
			best = o->allocators[i];
		}
	}
	if (!best) {
		return false;
	}
	double sum = 0;
	for (size_t i = 0; i < best->n_holders; i++) {
		const Tracectl__MemHolder *h = best->holders[i];
		if (!h->before_trace && h->op && strcmp(o->strings[h->op - 1], op) == 0) {
			sum += (double)h->bytes;
		}
	}
	*out = sum;
	snprintf(detail, size, "%s", best->device_label);
	return true;
}

void tc_diff_mem_side_digest(Tracectl__Rank *const *ranks, size_t n, struct tc_diff_side *s) {
	/* The ranks' devices one after another, named as in one model. */
	struct tc_model *skel = tc_digest_skeleton(ranks, n);
	struct tc_mem_view *v = tc_xcalloc(n ? n : 1, sizeof(*v));
	uint32_t base = 0;
	for (size_t k = 0; k < n; k++) {
		tc_digest_memview_unpack(skel, ranks[k], base, 0, &v[k]);
		base += (uint32_t)ranks[k]->n_devices;
	}
	tc_diff_mem_side_views(skel, v, n, TC_NONE, s);
	for (size_t k = 0; k < n; k++) {
		tc_mem_view_finish(&v[k]);
	}
	free(v);
	tc_model_destroy(skel);
}
