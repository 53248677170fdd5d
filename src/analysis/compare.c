/*
 * The diff itself: two side summaries compared row by row, ops matched by
 * normalised name, and the --fail-on-regression gate. Reads only the
 * sides, never a model.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "util/xalloc.h"

/*
 * Two side summaries compared row by row. Ops are matched by normalised
 * name (docs/analysis.md "diff"): runs of the same model name their
 * generated ops differently (XLA "fusion.123", kernel template arguments,
 * addresses), so exact names would report them all added and removed.
 */

/* Length of the balanced <...> starting at s[0] == '<', 0 if unbalanced. */
static size_t template_len(const char *s) {
	size_t depth = 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '<') {
			depth++;
		} else if (s[i] == '>' && --depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

static bool word_char(char c) {
	return isalnum((unsigned char)c) || c == '_';
}

uint32_t tc_diff_normalize(const char *name, char *buf, size_t size) {
	uint32_t used = 0;
	size_t w = 0;
	if (!size) {
		return 0;
	}
#define PUT(c) do { if (w + 1 < size) { buf[w++] = (c); } } while (0)
	for (size_t i = 0; name[i];) {
		size_t tl;
		/* "operator<" and friends are not templates; "<...>" stays. */
		if (name[i] == '<' && i > 0 && name[i - 1] != '<' && name[i + 1] != '<' &&
				(tl = template_len(name + i)) > 2 &&
				!(tl == 5 && strncmp(name + i, "<...>", 5) == 0)) {
			PUT('<'); PUT('.'); PUT('.'); PUT('.'); PUT('>');
			used |= TC_NORM_TEMPLATE;
			i += tl;
			continue;
		}
		if (name[i] == '0' && (name[i + 1] == 'x' || name[i + 1] == 'X') &&
				isxdigit((unsigned char)name[i + 2]) && (i == 0 || !word_char(name[i - 1]))) {
			size_t j = i + 2;
			while (isxdigit((unsigned char)name[j])) {
				j++;
			}
			if (!word_char(name[j])) {
				PUT('0'); PUT('x'); PUT('?');
				used |= TC_NORM_HEX;
				i = j;
				continue;
			}
		}
		PUT(name[i]);
		i++;
	}
#undef PUT
	buf[w] = '\0';
	/* Trailing numbers after a separator, repeatedly: "fusion.12.3" -> "fusion.N.N". */
	size_t end = w;
	for (;;) {
		size_t j = end;
		while (j > 0 && isdigit((unsigned char)buf[j - 1])) {
			j--;
		}
		if (j == end || j < 2 || !strchr("._#-", buf[j - 1])) {
			break;
		}
		/* Replace the digits by one 'N'; the string only shrinks. */
		memmove(buf + j + 1, buf + end, w - end + 1);
		buf[j] = 'N';
		w -= end - j - 1;
		used |= TC_NORM_NUMBER;
		end = j - 1;
	}
	return used;
}

/* An entry of one side for grouping: its key and where it came from. */
struct entry {
	char *key;              /* owned when norm != 0 */
	const struct tc_diff_op *op;
	uint32_t norm;
	uint8_t side;           /* 0 base, 1 test */
};

static int cmp_entry(const void *pa, const void *pb) {
	const struct entry *a = pa, *b = pb;
	if (a->op->scope != b->op->scope) {
		return a->op->scope < b->op->scope ? -1 : 1;
	}
	int c = strcmp(a->key, b->key);
	return c ? c : strcmp(a->op->name, b->op->name);
}

static void val_set(struct tc_diff_val *v, uint64_t count, int64_t total, double flops,
		size_t n_steps) {
	double n = n_steps ? (double)n_steps : 1;
	v->present = true;
	v->flop_rate = flops >= 0 && total > 0 ? flops / ((double)total * 1e-12) : -1;
	v->calls = (double)count / n;
	v->time_ps = (double)total / n;
	v->mean_ps = count ? (double)total / (double)count : 0;
}

static double row_change(const struct tc_diff_row *r) {
	return fabs(r->test.time_ps - r->base.time_ps);
}

static int cmp_row(const void *pa, const void *pb) {
	const struct tc_diff_row *a = pa, *b = pb;
	double da = row_change(a), db = row_change(b);
	if (da != db) {
		return da > db ? -1 : 1;
	}
	double ta = fmax(a->base.time_ps, a->test.time_ps), tb = fmax(b->base.time_ps, b->test.time_ps);
	if (ta != tb) {
		return ta > tb ? -1 : 1;
	}
	if (a->scope != b->scope) {
		return a->scope > b->scope ? -1 : 1;
	}
	return strcmp(a->key, b->key);
}

/* Rows from both sides' ops (or categories), matched by (scope, key). */
static struct tc_diff_row *match_rows(const struct tc_diff_side *base,
		const struct tc_diff_side *test, bool by_category, bool exact, uint32_t *norm_used,
		size_t *n_out) {
	const struct tc_diff_side *sides[2] = { base, test };
	size_t n = 0;
	for (int k = 0; k < 2; k++) {
		n += by_category ? sides[k]->n_cats : sides[k]->n_ops;
	}
	struct entry *e = tc_xmalloc((n ? n : 1) * sizeof(*e));
	size_t ne = 0;
	for (uint8_t k = 0; k < 2; k++) {
		const struct tc_diff_op *v = by_category ? sides[k]->cats : sides[k]->ops;
		size_t nv = by_category ? sides[k]->n_cats : sides[k]->n_ops;
		for (size_t i = 0; i < nv; i++) {
			struct entry *x = &e[ne++];
			*x = (struct entry){ .key = v[i].name, .op = &v[i], .side = k };
			if (!exact && !by_category) {
				size_t len = strlen(v[i].name) + 8;
				char *buf = tc_xmalloc(len);
				x->norm = tc_diff_normalize(v[i].name, buf, len);
				if (x->norm) {
					x->key = buf;
				} else {
					free(buf);
				}
			}
		}
	}
	tc_sort(e, ne, sizeof(*e), cmp_entry);
	struct tc_diff_row *rows = tc_xcalloc(ne ? ne : 1, sizeof(*rows));
	size_t nr = 0;
	for (size_t i = 0; i < ne;) {
		size_t j = i;
		uint64_t count[2] = { 0, 0 };
		int64_t total[2] = { 0, 0 };
		double flops[2] = { 0, 0 };
		bool present[2] = { false, false };
		struct tc_diff_row *r = &rows[nr++];
		r->scope = e[i].op->scope;
		r->kind = e[i].op->kind;
		r->nested = !by_category && r->scope == TC_DIFF_HOST;
		for (; j < ne && e[j].op->scope == e[i].op->scope && strcmp(e[j].key, e[i].key) == 0; j++) {
			const struct tc_diff_op *op = e[j].op;
			count[e[j].side] += op->count;
			total[e[j].side] += op->total_ps;
			flops[e[j].side] = flops[e[j].side] >= 0 && op->flops >= 0 ?
				flops[e[j].side] + op->flops : -1;
			r->nested &= op->nested == op->count;
			/* One enclosing op for the side, or none. */
			r->parent[e[j].side] = !present[e[j].side] ? op->parent :
				op->parent && r->parent[e[j].side] &&
				strcmp(op->parent, r->parent[e[j].side]) == 0 ? op->parent : NULL;
			present[e[j].side] = true;
			r->norm |= e[j].norm;
			r->n_names += j == i || strcmp(e[j].op->name, e[j - 1].op->name) != 0;
		}
		/* The key stays only if the row shows a normalised name. */
		r->key = e[i].key;
		r->own_key = e[i].norm ? e[i].key : NULL;
		for (size_t k = i + 1; k < j; k++) {
			if (e[k].norm) {
				free(e[k].key);
			}
		}
		if (present[0]) {
			val_set(&r->base, count[0], total[0], flops[0], base->n_steps);
		}
		if (present[1]) {
			val_set(&r->test, count[1], total[1], flops[1], test->n_steps);
		}
		/* A name normalisation that merged or renamed nothing across
		 * sides still renamed it: report it as used. */
		*norm_used |= r->norm;
		i = j;
	}
	free(e);
	tc_sort(rows, nr, sizeof(*rows), cmp_row);
	*n_out = nr;
	return rows;
}

static double per_step(int64_t v, size_t n_steps) {
	return (double)v / (double)(n_steps ? n_steps : 1);
}

static int cmp_dev_row(const void *pa, const void *pb) {
	const struct tc_diff_dev_row *a = pa, *b = pb;
	double da = fabs(a->test_busy_ps - a->base_busy_ps), db = fabs(b->test_busy_ps - b->base_busy_ps);
	if (da != db) {
		return da > db ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

static bool has_device(const struct tc_diff_side *s, const char *name) {
	for (size_t i = 0; i < s->n_devices; i++) {
		if (strcmp(s->devices[i].name, name) == 0) {
			return true;
		}
	}
	return false;
}

/* Device b of BASE is device t of TEST: the same name, or the two devices
 * the attributions are measured on when neither side has the other's (two
 * runs on different ranks, "GPU 3" and "GPU 1"). */
static bool same_device(const struct tc_diff *d, const char *b, const char *t) {
	if (!b || !t) {
		return !b && !t;
	}
	return strcmp(b, t) == 0 || (d->paired_label[0] && d->base->bd_device &&
		d->test->bd_device && strcmp(b, d->base->bd_device) == 0 &&
		strcmp(t, d->test->bd_device) == 0);
}

static void pair_devices(const struct tc_diff_side *base, const struct tc_diff_side *test,
		struct tc_diff *d) {
	const char *b = base->bd_device, *t = test->bd_device;
	if (b && t && strcmp(b, t) != 0 && !has_device(test, b) && !has_device(base, t)) {
		snprintf(d->paired_label, sizeof(d->paired_label), "%s / %s", b, t);
	}
}

/* BASE's device rows by name, to find the first row a TEST device is
 * (same_device) without a pass over every row per device: many devices
 * cost their square. by[] holds the rows' first names sorted, then by
 * row; a row renamed to the paired label leaves its name's run (renamed)
 * for the list ren of such rows. */
struct dev_name {
	const char *name;
	uint32_t row;
};

struct dev_index {
	struct dev_name *by;
	bool *renamed;
	uint32_t *ren;
	size_t n, n_ren;
	const char *label;
};

static int cmp_dev_name(const void *pa, const void *pb) {
	const struct dev_name *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	return c ? c : a->row < b->row ? -1 : a->row > b->row;
}

/* The first row named name (SIZE_MAX: none). */
static size_t dev_index_first(const struct dev_index *x, const char *name) {
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(x->by[mid].name, name) < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	size_t best = SIZE_MAX;
	for (; lo < x->n && strcmp(x->by[lo].name, name) == 0; lo++) {
		if (!x->renamed[x->by[lo].row]) {
			best = x->by[lo].row;
			break;
		}
	}
	for (size_t i = 0; i < x->n_ren && strcmp(name, x->label) == 0; i++) {
		best = x->ren[i] < best ? x->ren[i] : best;
	}
	return best;
}

/* The first BASE row that TEST device name is (same_device). */
static size_t dev_index_match(const struct dev_index *x, const struct tc_diff *d,
		const char *name) {
	size_t k = dev_index_first(x, name);
	if (d->paired_label[0] && d->base->bd_device && d->test->bd_device &&
			strcmp(name, d->test->bd_device) == 0) {
		size_t p = dev_index_first(x, d->base->bd_device);
		k = p < k ? p : k;
	}
	return k;
}

static void match_devices(const struct tc_diff_side *base, const struct tc_diff_side *test,
		struct tc_diff *d) {
	d->devices = tc_xcalloc(base->n_devices + test->n_devices + 1, sizeof(*d->devices));
	/* Nameless devices (same_device: only each other) take the plain walk. */
	bool named = true;
	for (size_t i = 0; i < base->n_devices; i++) {
		const struct tc_diff_device *b = &base->devices[i];
		d->devices[d->n_devices++] = (struct tc_diff_dev_row){ .name = b->name, .in_base = true,
			.base_busy_ps = per_step(b->busy_ps, base->n_steps),
			.base_idle_ps = per_step(b->idle_ps, base->n_steps) };
		named &= b->name != NULL;
	}
	for (size_t i = 0; i < test->n_devices; i++) {
		named &= test->devices[i].name != NULL;
	}
	struct dev_index x = { .n = base->n_devices, .label = d->paired_label };
	if (named) {
		x.by = tc_xmalloc((x.n ? x.n : 1) * sizeof(*x.by));
		x.renamed = tc_xcalloc(x.n ? x.n : 1, sizeof(*x.renamed));
		x.ren = tc_xmalloc((test->n_devices ? test->n_devices : 1) * sizeof(*x.ren));
		for (size_t k = 0; k < x.n; k++) {
			x.by[k] = (struct dev_name){ d->devices[k].name, (uint32_t)k };
		}
		tc_sort(x.by, x.n, sizeof(*x.by), cmp_dev_name);
	}
	for (size_t i = 0; i < test->n_devices; i++) {
		const struct tc_diff_device *t = &test->devices[i];
		struct tc_diff_dev_row *r = NULL;
		if (named) {
			size_t k = dev_index_match(&x, d, t->name);
			if (k != SIZE_MAX) {
				r = &d->devices[k];
				if (strcmp(r->name, t->name) != 0) {
					r->name = d->paired_label;
					x.renamed[k] = true;
					x.ren[x.n_ren++] = (uint32_t)k;
				}
			}
		}
		for (size_t k = 0; k < base->n_devices && !r && !named; k++) {
			if (same_device(d, d->devices[k].name, t->name)) {
				r = &d->devices[k];
				if (strcmp(r->name, t->name) != 0) {
					r->name = d->paired_label;
				}
			}
		}
		if (!r) {
			r = &d->devices[d->n_devices++];
			r->name = t->name;
		}
		r->in_test = true;
		r->test_busy_ps = per_step(t->busy_ps, test->n_steps);
		r->test_idle_ps = per_step(t->idle_ps, test->n_steps);
	}
	free(x.by);
	free(x.renamed);
	free(x.ren);
	tc_sort(d->devices, d->n_devices, sizeof(*d->devices), cmp_dev_row);
}

static bool same_finding(const struct tc_diff *d, const struct tc_diff_finding *a,
		const struct tc_diff_finding *b) {
	return strcmp(a->kind, b->kind) == 0 && same_device(d, a->device, b->device);
}

static int finding_rank(const struct tc_diff_finding_row *r) {
	/* Changes first: appeared and worse, then disappeared and better. */
	static const int order[] = { 4, 0, 2, 1, 3 };
	return order[r->change];
}

static int cmp_finding_row(const void *pa, const void *pb) {
	const struct tc_diff_finding_row *a = pa, *b = pb;
	int ra = finding_rank(a), rb = finding_rank(b);
	if (ra != rb) {
		return ra < rb ? -1 : 1;
	}
	const struct tc_diff_finding *fa = a->test ? a->test : a->base;
	const struct tc_diff_finding *fb = b->test ? b->test : b->base;
	if (fa->severity != fb->severity) {
		return fa->severity > fb->severity ? -1 : 1;
	}
	return strcmp(fa->kind, fb->kind);
}

static void match_findings(const struct tc_diff_side *base, const struct tc_diff_side *test,
		struct tc_diff *d) {
	d->findings = tc_xcalloc(base->n_findings + test->n_findings + 1, sizeof(*d->findings));
	for (size_t i = 0; i < base->n_findings; i++) {
		d->findings[d->n_findings++] = (struct tc_diff_finding_row){ .base = &base->findings[i],
			.change = TC_DIFF_DISAPPEARED };
	}
	for (size_t i = 0; i < test->n_findings; i++) {
		const struct tc_diff_finding *t = &test->findings[i];
		struct tc_diff_finding_row *r = NULL;
		for (size_t k = 0; k < base->n_findings && !r; k++) {
			if (!d->findings[k].test && same_finding(d, d->findings[k].base, t)) {
				r = &d->findings[k];
			}
		}
		if (!r) {
			d->findings[d->n_findings++] = (struct tc_diff_finding_row){ .test = t,
				.change = TC_DIFF_APPEARED };
			continue;
		}
		r->test = t;
		r->change = t->severity > r->base->severity ? TC_DIFF_WORSE :
			t->severity < r->base->severity ? TC_DIFF_BETTER : TC_DIFF_SAME;
	}
	tc_sort(d->findings, d->n_findings, sizeof(*d->findings), cmp_finding_row);
}

/* Base memory rows by label, then by their order: the first row of a label
 * is where a lower-bound search lands. */
struct mem_key {
	const char *label;
	size_t row;
};

static int cmp_mem_key(const void *pa, const void *pb) {
	const struct mem_key *a = pa, *b = pb;
	int c = strcmp(a->label, b->label);
	return c ? c : (a->row > b->row) - (a->row < b->row);
}

/* Each test row joins the first base row of its label (searched, so many
 * ranks' devices stay n log n), else is a row of its own. */
static void match_memory(const struct tc_diff_side *base, const struct tc_diff_side *test,
		struct tc_diff *d) {
	d->mem = tc_xcalloc(base->n_mem + test->n_mem + 1, sizeof(*d->mem));
	struct mem_key *keys = tc_xmalloc((base->n_mem + 1) * sizeof(*keys));
	for (size_t i = 0; i < base->n_mem; i++) {
		d->mem[d->n_mem++] = (struct tc_diff_mem_row){ .label = base->mem[i].label,
			.base_bytes = base->mem[i].peak_bytes, .test_bytes = -1 };
		keys[i] = (struct mem_key){ base->mem[i].label, i };
	}
	size_t nk = base->n_mem;
	tc_sort(keys, nk, sizeof(*keys), cmp_mem_key);
	for (size_t i = 0; i < test->n_mem; i++) {
		const char *label = test->mem[i].label;
		size_t lo = 0, hi = nk;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(keys[mid].label, label) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		struct tc_diff_mem_row *r;
		if (lo < nk && strcmp(keys[lo].label, label) == 0) {
			r = &d->mem[keys[lo].row];
		} else {
			r = &d->mem[d->n_mem++];
			*r = (struct tc_diff_mem_row){ .label = label, .base_bytes = -1 };
		}
		r->test_bytes = test->mem[i].peak_bytes;
	}
	free(keys);
}

/* Components of an op name: the runs between '.', '#', ':' and '/'. */
#define MAX_PARTS 16

static size_t name_parts(const char *s, const char **at, size_t *len) {
	size_t n = 0;
	while (*s && n < MAX_PARTS) {
		size_t l = strcspn(s, ".#:/");
		if (l) {
			at[n] = s;
			len[n++] = l;
		}
		s += l + (s[l] != '\0');
	}
	return *s ? 0 : n;
}

/* Two names of as many components, all but one the same, and at least
 * two the same (so "aten::stack" and "aten::cat" are two ops):
 * "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" and
 * "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__". */
static bool one_part_apart(const char *a, const char *b) {
	const char *pa[MAX_PARTS], *pb[MAX_PARTS];
	size_t la[MAX_PARTS], lb[MAX_PARTS];
	size_t na = name_parts(a, pa, la), nb = name_parts(b, pb, lb);
	if (na < 3 || na != nb) {
		return false;
	}
	size_t differ = 0;
	for (size_t i = 0; i < na; i++) {
		differ += la[i] != lb[i] || memcmp(pa[i], pb[i], la[i]) != 0;
	}
	return differ == 1;
}

/* The same enclosing op on both sides, by normalised name (a step's
 * marker is "ProfilerStep#N" on either). */
static bool same_parent(const char *a, const char *b) {
	if (!a || !b) {
		return false;
	}
	char na[512], nb[512];
	tc_diff_normalize(a, na, sizeof(na));
	tc_diff_normalize(b, nb, sizeof(nb));
	return strcmp(na, nb) == 0;
}

static bool same_role(const struct tc_diff_row *gone, const struct tc_diff_row *added) {
	return gone->base.present && !gone->test.present && added->test.present &&
		!added->base.present && gone->scope == TC_DIFF_HOST &&
		added->scope == TC_DIFF_HOST && gone->kind == added->kind &&
		same_parent(gone->parent[0], added->parent[1]) && one_part_apart(gone->key, added->key);
}

/*
 * A host op removed and one added that play the same role (the data
 * loader's iterator, single- then multi-process; the optimizer's step,
 * AdamW then SGD) are one row: the same kind, the same enclosing op on
 * every call, and names one component apart. Only one-to-one matches
 * pair; otherwise both stay. Device ops have no enclosing op to tell a
 * role by: kernels one template argument apart are different kernels.
 */
static void pair_roles(struct tc_diff *d) {
	size_t n = d->n_ops;
	bool *drop = tc_xcalloc(n ? n : 1, sizeof(*drop));
	for (size_t i = 0; i < n; i++) {
		size_t hit = SIZE_MAX, hits = 0;
		for (size_t j = 0; j < n; j++) {
			if (same_role(&d->ops[i], &d->ops[j])) {
				hit = j;
				hits++;
			}
		}
		size_t back = 0;
		for (size_t k = 0; hits == 1 && k < n; k++) {
			back += same_role(&d->ops[k], &d->ops[hit]);
		}
		if (hits != 1 || back != 1 || drop[hit]) {
			continue;
		}
		struct tc_diff_row *r = &d->ops[i], *t = &d->ops[hit];
		r->paired = tc_xstrdup(t->key);
		r->test = t->test;
		r->parent[1] = t->parent[1];
		r->nested &= t->nested;
		r->n_names += t->n_names;
		drop[hit] = true;
	}
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (drop[i]) {
			free(d->ops[i].own_key);
			continue;
		}
		d->ops[w++] = d->ops[i];
	}
	d->n_ops = w;
	free(drop);
	tc_sort(d->ops, d->n_ops, sizeof(*d->ops), cmp_row);
}

void tc_diff_compute(const struct tc_diff_side *base, const struct tc_diff_side *test,
		bool exact_names, struct tc_diff *d) {
	memset(d, 0, sizeof(*d));
	d->base = base;
	d->test = test;
	d->exact_names = exact_names;
	d->whole_trace = !base->has_steps || !test->has_steps;
	d->ops = match_rows(base, test, false, exact_names, &d->norm_used, &d->n_ops);
	pair_roles(d);
	uint32_t unused = 0;
	d->cats = match_rows(base, test, true, true, &unused, &d->n_cats);
	pair_devices(base, test, d);
	match_devices(base, test, d);
	match_findings(base, test, d);
	match_memory(base, test, d);
	tc_diff_mem_compute(base, test, d);
	/* Categories by |change in time per step|, ties in priority order. */
	double ch[TC_BD_COUNT];
	for (int c = 0; c < TC_BD_COUNT; c++) {
		d->bd_order[c] = c;
		ch[c] = fabs(per_step(test->cat_ps[c], test->n_steps) -
			per_step(base->cat_ps[c], base->n_steps));
	}
	for (int i = 1; i < TC_BD_COUNT; i++) {
		for (int j = i; j > 0 && ch[d->bd_order[j]] > ch[d->bd_order[j - 1]]; j--) {
			int t = d->bd_order[j];
			d->bd_order[j] = d->bd_order[j - 1];
			d->bd_order[j - 1] = t;
		}
	}
}

/* An attribution category's index, or -1. */
static int metric_category(const char *metric) {
	for (int c = 0; c < TC_BD_COUNT; c++) {
		if (strcmp(metric, tc_bd_cat_name((enum tc_bd_cat)c)) == 0) {
			return c;
		}
	}
	return -1;
}

bool tc_diff_metric_valid(const char *metric, struct tc_error *err) {
	if (strcmp(metric, "step") == 0 || strcmp(metric, "device-busy") == 0 ||
			metric_category(metric) >= 0 || (strncmp(metric, "op:", 3) == 0 && metric[3])) {
		return true;
	}
	char cats[256];
	size_t len = 0;
	for (int c = 0; c < TC_BD_COUNT && len < sizeof(cats); c++) {
		len += (size_t)snprintf(cats + len, sizeof(cats) - len, "%s, ",
			tc_bd_cat_name((enum tc_bd_cat)c));
	}
	return tc_error_set(err, TC_EXIT_USAGE,
		"unknown --metric '%s' (use step, device-busy, an attribution category: "
		"%sor op:NAME)", metric, cats);
}

/* The op row metric names: by exact key first, then by its normalised form. */
static const struct tc_diff_row *find_op(const struct tc_diff *d, const char *name) {
	const struct tc_diff_row *hit = NULL;
	for (int pass = 0; pass < 2 && !hit; pass++) {
		char buf[1024];
		const char *want = name;
		if (pass == 1) {
			if (d->exact_names || !tc_diff_normalize(name, buf, sizeof(buf))) {
				break;
			}
			want = buf;
		}
		/* Device rows first: host rows of the same name are their launches. */
		for (size_t i = 0; i < d->n_ops; i++) {
			const struct tc_diff_row *r = &d->ops[i];
			if (strcmp(r->key, want) == 0 && (!hit || r->scope > hit->scope)) {
				hit = r;
			}
		}
	}
	return hit;
}

bool tc_diff_gate(const struct tc_diff *d, const char *metric, double threshold_pct,
		struct tc_diff_gate *g, struct tc_error *err) {
	memset(g, 0, sizeof(*g));
	g->threshold_pct = threshold_pct;
	const struct tc_diff_side *b = d->base, *t = d->test;
	if (!tc_diff_metric_valid(metric, err)) {
		return false;
	}
	if (strcmp(metric, "step") == 0 && !d->whole_trace) {
		snprintf(g->label, sizeof(g->label), "step time (mean)");
		g->base = b->step_mean_ps;
		g->test = t->step_mean_ps;
	} else if (strcmp(metric, "step") == 0 || strcmp(metric, "device-busy") == 0) {
		/* No steps on a side: the whole traces' device busy time. */
		bool whole = d->whole_trace;
		snprintf(g->label, sizeof(g->label), whole ? "whole-trace device busy time" :
			"device busy time per step");
		g->base = whole ? (double)b->trace_busy_ps : per_step(b->device_busy_ps, b->n_steps);
		g->test = whole ? (double)t->trace_busy_ps : per_step(t->device_busy_ps, t->n_steps);
	} else if (metric_category(metric) >= 0) {
		/* The attribution table's figure: the category's time per step. */
		int c = metric_category(metric);
		snprintf(g->label, sizeof(g->label), "%s time per step", metric);
		g->base = per_step(b->cat_ps[c], b->n_steps);
		g->test = per_step(t->cat_ps[c], t->n_steps);
	} else {
		const char *name = metric + 3;
		const struct tc_diff_row *r = find_op(d, name);
		if (!r) {
			return tc_error_set(err, TC_EXIT_USAGE,
				"--metric op:%s: no op of that name on either side", name);
		}
		snprintf(g->label, sizeof(g->label), "op '%s' time per step", r->key);
		g->base = r->base.time_ps;
		g->test = r->test.time_ps;
	}
	g->change_pct = g->base > 0 ? 100.0 * (g->test - g->base) / g->base :
		g->test > 0 ? INFINITY : 0;
	g->failed = g->change_pct > threshold_pct;
	return true;
}
