/*
 * `tracectl diff`'s memory by op: each side's allocator peaks and per-op
 * figures from the allocator records' view (a trace's tc_mem_view, or
 * each rank's unpacked from its digest's Rank.mem_view), and their
 * comparison, so the diff says which op's memory grew.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "model/memview.h"
#include "util/xalloc.h"

/* What `tracectl memory` calls the holders without an op. */
#define BEFORE_TRACE "(allocated before the trace)"
#define OUTSIDE_OPS "(outside any op)"

struct acc {
	struct tc_diff_mem_op *v;
	size_t n, cap;
	size_t cap_peaks;
};

static void add_op(struct acc *a, const char *device, const char *name,
		const struct tc_diff_mem_op *x) {
	TC_GROW(a->v, a->cap, a->n + 1);
	struct tc_diff_mem_op *o = &a->v[a->n++];
	*o = *x;
	o->device = tc_xstrdup(device);
	o->name = tc_xstrdup(name);
}

/* An allocator's peak; a label seen before (ranks of one name) keeps the
 * larger. */
static void add_peak(struct acc *a, struct tc_diff_side *s, const char *device,
		const char *group, int64_t peak) {
	char label[1024];
	snprintf(label, sizeof(label), "%s%s%s", device, group[0] ? " " : "", group);
	for (size_t i = 0; i < s->n_mem_peaks; i++) {
		if (strcmp(s->mem_peaks[i].label, label) == 0) {
			if ((double)peak > s->mem_peaks[i].peak_bytes) {
				s->mem_peaks[i].peak_bytes = (double)peak;
			}
			return;
		}
	}
	TC_GROW(s->mem_peaks, a->cap_peaks, s->n_mem_peaks + 1);
	s->mem_peaks[s->n_mem_peaks++] = (struct tc_diff_mem){ .label = tc_xstrdup(label),
		.peak_bytes = (double)peak };
}

static int cmp_key(const struct tc_diff_mem_op *a, const struct tc_diff_mem_op *b) {
	int c = strcmp(a->device, b->device);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_op(const void *pa, const void *pb) {
	return cmp_key(pa, pb);
}

/* Rows by (device, name), the figures of one key summed into one row. */
static void finish(struct acc *a, struct tc_diff_side *s) {
	tc_sort(a->v, a->n, sizeof(*a->v), cmp_op);
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		struct tc_diff_mem_op *x = &a->v[i];
		if (k && cmp_key(&a->v[k - 1], x) == 0) {
			struct tc_diff_mem_op *o = &a->v[k - 1];
			o->held += x->held;
			o->alloc_bytes += x->alloc_bytes;
			o->allocs += x->allocs;
			o->calls += x->calls;
			free(x->device);
			free(x->name);
			continue;
		}
		a->v[k++] = *x;
	}
	s->mem_ops = a->v;
	s->n_mem_ops = k;
}

static const char *holder_name(const struct tc_model *m, const struct tc_mem_holder *h) {
	return h->before_trace ? BEFORE_TRACE : h->name == TC_NONE ? OUTSIDE_OPS :
		tc_model_str(m, h->name);
}

/*
 * A device's name in the rows: a host process is "host", as a run's pid
 * in its name ("python3 (pid 19392)") would keep its rows from matching
 * the other run's; "#k" added for the k-th device of a name, as the diff's
 * devices.
 */
static char *row_device(const char *name, uint8_t kind, size_t nth) {
	char buf[1024];
	const char *base = kind == TC_DEV_CPU ? "host" : name;
	if (nth > 1) {
		snprintf(buf, sizeof(buf), "%s #%zu", base, nth);
	} else {
		snprintf(buf, sizeof(buf), "%s", base);
	}
	return tc_xstrdup(buf);
}

static bool same_row_device(const char *a, uint8_t ka, const char *b, uint8_t kb) {
	return ka == TC_DEV_CPU ? kb == TC_DEV_CPU : kb != TC_DEV_CPU && strcmp(a, b) == 0;
}

/* Device d's row name, made the first time it is asked for (names[d]):
 * a view names few of a job's devices. */
static const char *model_device(const struct tc_model *m, char **names, uint32_t d) {
	if (!names[d]) {
		const struct tc_device *dv = &m->devices[d];
		size_t nth = 1;
		for (uint32_t e = 0; e < d; e++) {
			nth += same_row_device(tc_model_str(m, m->devices[e].name), m->devices[e].kind,
				tc_model_str(m, dv->name), dv->kind);
		}
		names[d] = row_device(tc_model_str(m, dv->name), dv->kind, nth);
	}
	return names[d];
}

/* Where device d's rows go: NULL left out (not the --device one). */
static const char *side_device(const struct tc_model *m, char **names, uint32_t only,
		uint32_t d) {
	if (d >= m->n_devices) {
		return only == TC_NONE ? "global" : NULL;
	}
	return only == TC_NONE || d == only ? model_device(m, names, d) : NULL;
}

/* v's peaks and rows (the devices of m) added to a and s. */
static void add_view(struct acc *a, const struct tc_model *m, char **names,
		const struct tc_mem_view *v, uint32_t only, struct tc_diff_side *s) {
	for (size_t i = 0; i < v->n_devs; i++) {
		const struct tc_mem_device *x = &v->devs[i];
		const char *dev = side_device(m, names, only, x->device);
		if (!dev) {
			continue;
		}
		add_peak(a, s, dev, x->group ? tc_model_str(m, x->group) : "", x->peak_bytes);
		for (size_t k = 0; k < x->n_holders; k++) {
			const struct tc_mem_holder *h = &x->holders[k];
			add_op(a, dev, holder_name(m, h), &(struct tc_diff_mem_op){ .held = h->bytes });
		}
	}
	for (size_t i = 0; i < v->n_ops; i++) {
		const struct tc_mem_op *o = &v->ops[i];
		const char *dev = side_device(m, names, only, o->device);
		if (dev) {
			/* A digest's op without a name is memory outside any op. */
			add_op(a, dev, o->name == TC_NONE ? OUTSIDE_OPS : tc_model_str(m, o->name),
				&(struct tc_diff_mem_op){ .alloc_bytes = o->self_alloc_bytes,
				.allocs = o->self_allocs, .calls = o->calls });
		}
	}
}

void tc_diff_mem_side_views(const struct tc_model *m, const struct tc_mem_view *v, size_t n,
		uint32_t only, struct tc_diff_side *s) {
	char **names = tc_xcalloc(m->n_devices + 1, sizeof(*names));
	struct acc a = { 0 };
	for (size_t k = 0; k < n; k++) {
		add_view(&a, m, names, &v[k], only, s);
	}
	finish(&a, s);
	for (uint32_t d = 0; d < m->n_devices; d++) {
		free(names[d]);
	}
	free(names);
}

void tc_diff_mem_side(const struct tc_model *m, const struct tc_mem_view *v, uint32_t only,
		struct tc_diff_side *s) {
	tc_diff_mem_side_views(m, v, 1, only, s);
}

/* ---- comparison ---- */

static int64_t held_growth(const struct tc_diff_mem_op_row *r) {
	return (r->test ? r->test->held : 0) - (r->base ? r->base->held : 0);
}

static int64_t alloc_growth(const struct tc_diff_mem_op_row *r) {
	return (r->test ? r->test->alloc_bytes : 0) - (r->base ? r->base->alloc_bytes : 0);
}

static int cmp_growth(const void *pa, const void *pb) {
	const struct tc_diff_mem_op_row *a = pa, *b = pb;
	int64_t ga = held_growth(a), gb = held_growth(b);
	if (ga != gb) {
		return ga > gb ? -1 : 1;
	}
	ga = alloc_growth(a);
	gb = alloc_growth(b);
	if (ga != gb) {
		return ga > gb ? -1 : 1;
	}
	return cmp_key(a->base ? a->base : a->test, b->base ? b->base : b->test);
}

static void match_peaks(const struct tc_diff_side *base, const struct tc_diff_side *test,
		struct tc_diff *d) {
	d->mem_peaks = tc_xcalloc(base->n_mem_peaks + test->n_mem_peaks + 1, sizeof(*d->mem_peaks));
	for (size_t i = 0; i < base->n_mem_peaks; i++) {
		d->mem_peaks[d->n_mem_peaks++] = (struct tc_diff_mem_row){
			.label = base->mem_peaks[i].label, .base_bytes = base->mem_peaks[i].peak_bytes,
			.test_bytes = -1 };
	}
	/* A handful of allocators a side: a scan is enough. */
	for (size_t i = 0; i < test->n_mem_peaks; i++) {
		const struct tc_diff_mem *t = &test->mem_peaks[i];
		size_t j = 0;
		while (j < base->n_mem_peaks && strcmp(d->mem_peaks[j].label, t->label) != 0) {
			j++;
		}
		if (j == base->n_mem_peaks) {
			j = d->n_mem_peaks++;
			d->mem_peaks[j] = (struct tc_diff_mem_row){ .label = t->label, .base_bytes = -1 };
		}
		d->mem_peaks[j].test_bytes = t->peak_bytes;
	}
}

void tc_diff_mem_compute(const struct tc_diff_side *base, const struct tc_diff_side *test,
		struct tc_diff *d) {
	match_peaks(base, test, d);
	/* Both sides' rows are sorted by (device, name): merge them. */
	d->mem_ops = tc_xcalloc(base->n_mem_ops + test->n_mem_ops + 1, sizeof(*d->mem_ops));
	size_t i = 0, j = 0;
	while (i < base->n_mem_ops || j < test->n_mem_ops) {
		const struct tc_diff_mem_op *b = i < base->n_mem_ops ? &base->mem_ops[i] : NULL;
		const struct tc_diff_mem_op *t = j < test->n_mem_ops ? &test->mem_ops[j] : NULL;
		int c = !b ? 1 : !t ? -1 : cmp_key(b, t);
		d->mem_ops[d->n_mem_ops++] = (struct tc_diff_mem_op_row){ c <= 0 ? b : NULL,
			c >= 0 ? t : NULL };
		i += c <= 0;
		j += c >= 0;
	}
	tc_sort(d->mem_ops, d->n_mem_ops, sizeof(*d->mem_ops), cmp_growth);
}
