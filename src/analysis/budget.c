/*
 * Performance budgets for `tracectl check`: parsing metrics, limits and
 * budget files, measuring each metric from an analysis, and judging each
 * rank's values against the limits.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/budget.h"
#include "analysis/passes.h"
#include "model/memcurve.h"
#include "util/suggest.h"
#include "util/xalloc.h"

static char *dup_n(const char *s, size_t n) {
	char *d = tc_xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static bool has_prefix(const char *s, size_t n, const char *p) {
	size_t pl = strlen(p);
	return n >= pl && memcmp(s, p, pl) == 0;
}

static bool has_suffix(const char *s, size_t n, const char *p) {
	size_t pl = strlen(p);
	return n >= pl && memcmp(s + n - pl, p, pl) == 0;
}

/* "unknown metric", with the catalogue name it is closest to. */
static bool unknown_metric(const char *s, size_t len, struct tc_error *err) {
	if (has_prefix(s, len, "op:")) {
		return tc_error_set(err, TC_EXIT_USAGE, "unknown metric '%.*s' (op:NAME ends in "
			".time_per_step or .calls_per_step)", (int)len, s);
	}
	const char *names[TC_M_COUNT + TC_BD_COUNT];
	char shares[TC_BD_COUNT][32];
	size_t n = 0;
	for (int i = 0; i < TC_M_COUNT; i++) {
		if (i != TC_M_SHARE && !tc_metric_named(i)) {
			names[n++] = tc_metric_defs()[i].name;
		}
	}
	for (int c = 0; c < TC_BD_COUNT; c++) {
		snprintf(shares[c], sizeof(shares[c]), "share.%s", tc_bd_cat_name((enum tc_bd_cat)c));
		names[n++] = shares[c];
	}
	char word[65];
	const char *hint = NULL;
	if (len < sizeof(word)) {
		memcpy(word, s, len);
		word[len] = '\0';
		hint = tc_suggest(word, names, n);
	}
	if (hint) {
		return tc_error_set(err, TC_EXIT_USAGE, "unknown metric '%.*s' (did you mean '%s'?)",
			(int)len, s, hint);
	}
	return tc_error_set(err, TC_EXIT_USAGE, "unknown metric '%.*s'", (int)len, s);
}

bool tc_metric_parse(const char *s, size_t len, struct tc_metric *out, struct tc_error *err) {
	memset(out, 0, sizeof(*out));
	/* op:NAME.x: the name may hold dots, so the suffix decides. */
	if (has_prefix(s, len, "op:")) {
		static const struct { const char *suffix; uint8_t id; } ops[] = {
			{ ".time_per_step", TC_M_OP_TIME },
			{ ".calls_per_step", TC_M_OP_CALLS },
		};
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			size_t sl = strlen(ops[k].suffix);
			if (len > 3 + sl && has_suffix(s, len, ops[k].suffix)) {
				out->id = ops[k].id;
				out->op = dup_n(s + 3, len - 3 - sl);
				out->name = dup_n(s, len);
				return true;
			}
		}
	} else if (has_prefix(s, len, "memory.peak_by_op:") && len > 18) {
		out->id = TC_M_MEMORY_BY_OP;
		out->op = dup_n(s + 18, len - 18);
		out->name = dup_n(s, len);
		return true;
	} else if (has_prefix(s, len, "share.")) {
		for (int c = 0; c < TC_BD_COUNT; c++) {
			const char *cn = tc_bd_cat_name((enum tc_bd_cat)c);
			if (len == 6 + strlen(cn) && memcmp(s + 6, cn, len - 6) == 0) {
				out->id = TC_M_SHARE;
				out->cat = (uint8_t)c;
				out->name = dup_n(s, len);
				return true;
			}
		}
	} else {
		for (int i = 0; i < TC_M_COUNT; i++) {
			if (i != TC_M_SHARE && !tc_metric_named(i) &&
					strlen(tc_metric_defs()[i].name) == len && memcmp(tc_metric_defs()[i].name, s, len) == 0) {
				out->id = (uint8_t)i;
				out->name = dup_n(s, len);
				return true;
			}
		}
	}
	return unknown_metric(s, len, err);
}

struct unit_suffix {
	const char *suffix;
	double factor;
};

/* Times, sizes and shares need their unit: a bare "150" read as seconds
 * (or "5" as 500 %) would pass budgets it was meant to fail. */
static const struct unit_suffix time_units[] = {
	{ "ns", 1e-9 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	{ "min", 60 }, { NULL, 0 },
};

static const struct unit_suffix byte_units[] = {
	{ "B", 1 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	{ "TiB", 1099511627776.0 }, { "KB", 1e3 }, { "kB", 1e3 }, { "MB", 1e6 },
	{ "GB", 1e9 }, { "TB", 1e12 }, { NULL, 0 },
};

static const struct unit_suffix ratio_units[] = {
	{ "%", 0.01 }, { NULL, 0 },
};

static const struct unit_suffix count_units[] = {
	{ "", 1 }, { NULL, 0 },
};

static const char *unit_hint(enum tc_metric_unit u) {
	switch (u) {
	case TC_MU_TIME:
		return "a time such as 150ms, 2.5s, 80us or 500ns";
	case TC_MU_BYTES:
		return "a size such as 16KiB, 16KB, 1.5MiB or 4096B";
	case TC_MU_RATIO:
		return "a share such as 5% or 20%";
	case TC_MU_COUNT:
		return "a number such as 5 or 2.5";
	default:
		return "a severity: none, low, medium, high or critical";
	}
}

bool tc_metric_value_parse(enum tc_metric_unit unit, const char *s, double *out,
		struct tc_error *err) {
	if (unit == TC_MU_SEVERITY) {
		enum tc_severity sev;
		if (!tc_severity_parse(s, &sev)) {
			return tc_error_set(err, TC_EXIT_USAGE, "invalid value '%s' (%s)", s,
				unit_hint(unit));
		}
		*out = (double)sev;
		return true;
	}
	const struct unit_suffix *u = unit == TC_MU_TIME ? time_units :
		unit == TC_MU_BYTES ? byte_units : unit == TC_MU_RATIO ? ratio_units : count_units;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* strtod takes "inf", "nan", signs and hex floats: a limit is a plain
	 * decimal. */
	bool plain = ((*s >= '0' && *s <= '9') || *s == '.') &&
		strspn(s, "0123456789.eE+-") >= (size_t)(end - s);
	if (errno || end == s || !plain || !isfinite(v) || v < 0) {
		return tc_error_set(err, TC_EXIT_USAGE, "invalid value '%s' (%s)", s, unit_hint(unit));
	}
	while (*end == ' ') {
		end++;
	}
	for (; u->suffix; u++) {
		if (strcmp(end, u->suffix) == 0) {
			*out = v * u->factor;
			return true;
		}
	}
	if (!*end) {
		return tc_error_set(err, TC_EXIT_USAGE, "value '%s' has no unit (%s)", s,
			unit_hint(unit));
	}
	return tc_error_set(err, TC_EXIT_USAGE, "invalid value '%s' (%s)", s, unit_hint(unit));
}

void tc_budget_init(struct tc_budget *b) {
	memset(b, 0, sizeof(*b));
}

void tc_budget_finish(struct tc_budget *b) {
	if (!b) {
		return;
	}
	for (size_t i = 0; i < b->n; i++) {
		tc_metric_finish(&b->v[i].metric);
		free(b->v[i].text);
	}
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static bool add_limit(struct tc_budget *b, const char *name, size_t nl, const char *value,
		bool is_min, struct tc_error *err) {
	struct tc_metric mt;
	if (!tc_metric_parse(name, nl, &mt, err)) {
		return false;
	}
	double v;
	struct tc_error e2;
	tc_error_init(&e2);
	if (!tc_metric_value_parse((enum tc_metric_unit)tc_metric_defs()[mt.id].unit, value, &v, &e2)) {
		tc_error_set(err, TC_EXIT_USAGE, "metric '%s': %s", mt.name, e2.msg);
		tc_metric_finish(&mt);
		return false;
	}
	TC_GROW(b->v, b->cap, b->n + 1);
	b->v[b->n++] = (struct tc_limit){ .metric = mt, .is_min = is_min, .value = v,
		.text = dup_n(value, strlen(value)) };
	return true;
}

/*
 * The metric name at s[0, n), up to the first byte of stop outside double
 * quotes: its length in *used and the name without its quotes in *name
 * (malloc'd, *name_len bytes). Quotes let an op name in a budget file hold
 * what the line's syntax takes ('#', spaces, '<', '>'); inside them \" and
 * \\ stand for " and \. False on a quote left open.
 */
static bool scan_name(const char *s, size_t n, const char *stop, size_t *used, char **name,
		size_t *name_len) {
	char *d = tc_xmalloc(n + 1);
	size_t k = 0, i = 0;
	bool quoted = false;
	for (; i < n; i++) {
		char c = s[i];
		if (!quoted && strchr(stop, c)) {
			break;
		}
		if (c == '"') {
			quoted = !quoted;
		} else if (quoted && c == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\')) {
			d[k++] = s[++i];
		} else {
			d[k++] = c;
		}
	}
	d[k] = '\0';
	*used = i;
	*name = d;
	*name_len = k;
	return !quoted;
}

bool tc_budget_add_arg(struct tc_budget *b, const char *kv, bool is_min, struct tc_error *err) {
	/* A value never holds '=', an op name may: the last one splits. */
	const char *eq = strrchr(kv, '=');
	if (!eq || eq == kv || !eq[1]) {
		return tc_error_set(err, TC_EXIT_USAGE, "limit '%s' is not METRIC=VALUE", kv);
	}
	return add_limit(b, kv, (size_t)(eq - kv), eq + 1, is_min, err);
}

static bool is_space(char c) {
	return c == ' ' || c == '\t' || c == '\r';
}

/* After the metric name (name, nl bytes) at s[i, n): "<= VALUE" or
 * ">= VALUE". */
static bool parse_limit(struct tc_budget *b, const char *name, size_t nl, const char *s,
		size_t i, size_t n, struct tc_error *err) {
	while (i < n && is_space(s[i])) {
		i++;
	}
	if (nl == 0 || i + 2 > n || (s[i] != '<' && s[i] != '>') || s[i + 1] != '=') {
		return tc_error_set(err, TC_EXIT_USAGE,
			"expected 'METRIC <= VALUE' or 'METRIC >= VALUE', not '%.*s'", (int)n, s);
	}
	bool is_min = s[i] == '>';
	i += 2;
	while (i < n && is_space(s[i])) {
		i++;
	}
	if (i == n) {
		return tc_error_set(err, TC_EXIT_USAGE, "no value after '%c=' in '%.*s'",
			is_min ? '>' : '<', (int)n, s);
	}
	char value[128];
	if (n - i >= sizeof(value)) {
		return tc_error_set(err, TC_EXIT_USAGE, "value too long in '%.*s'", (int)n, s);
	}
	memcpy(value, s + i, n - i);
	value[n - i] = '\0';
	return add_limit(b, name, nl, value, is_min, err);
}

/* One line without its comment: "METRIC <= VALUE". */
static bool parse_line(struct tc_budget *b, const char *s, size_t n, struct tc_error *err) {
	while (n && is_space(*s)) {
		s++;
		n--;
	}
	while (n && is_space(s[n - 1])) {
		n--;
	}
	if (!n) {
		return true;
	}
	size_t i, nl;
	char *name;
	bool ok = scan_name(s, n, " \t\r<>", &i, &name, &nl);
	if (ok) {
		ok = parse_limit(b, name, nl, s, i, n, err);
	} else {
		tc_error_set(err, TC_EXIT_USAGE, "a quote left open in '%.*s'", (int)n, s);
	}
	free(name);
	return ok;
}

/* Where the line s[0, n) ends before its comment: the first '#' outside
 * double quotes. */
static size_t before_comment(const char *s, size_t n) {
	bool quoted = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"') {
			quoted = !quoted;
		} else if (quoted && s[i] == '\\' && i + 1 < n) {
			i++;
		} else if (!quoted && s[i] == '#') {
			return i;
		}
	}
	return n;
}

bool tc_budget_parse(struct tc_budget *b, const char *text, size_t len, const char *name,
		struct tc_error *err) {
	/* Editors on Windows start UTF-8 files with a byte-order mark. */
	size_t p = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
	size_t line = 1, before = b->n;
	for (; p < len; line++) {
		size_t e = p;
		while (e < len && text[e] != '\n') {
			e++;
		}
		size_t n = e - p;
		if (memchr(text + p, '\0', n)) {
			return tc_error_set(err, TC_EXIT_USAGE, "%s:%zu: a NUL byte (not a text file)",
				name, line);
		}
		n = before_comment(text + p, n);
		struct tc_error le;
		tc_error_init(&le);
		if (!parse_line(b, text + p, n, &le)) {
			return tc_error_set(err, TC_EXIT_USAGE, "%s:%zu: %s", name, line, le.msg);
		}
		p = e + 1;
	}
	/* An empty file (a truncated checkout, a wrong path) would hold nothing. */
	if (b->n == before) {
		return tc_error_set(err, TC_EXIT_USAGE, "%s: no limits in the budget", name);
	}
	return true;
}

/* A budget is a handful of lines; anything bigger is not one. */
#define BUDGET_MAX_BYTES (1 << 20)

bool tc_budget_read(struct tc_budget *b, const char *path, struct tc_error *err) {
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f) {
		return tc_error_set(err, TC_EXIT_INPUT, "cannot open budget '%s': %s", path,
			strerror(errno));
	}
	char *buf = tc_xmalloc(BUDGET_MAX_BYTES + 1);
	size_t n = fread(buf, 1, BUDGET_MAX_BYTES + 1, f);
	bool bad = ferror(f);
	if (f != stdin) {
		fclose(f);
	}
	bool ok;
	if (bad) {
		ok = tc_error_set(err, TC_EXIT_INPUT, "cannot read budget '%s'", path);
	} else if (n > BUDGET_MAX_BYTES) {
		ok = tc_error_set(err, TC_EXIT_INPUT, "budget '%s' is over %d bytes", path,
			BUDGET_MAX_BYTES);
	} else {
		ok = tc_budget_parse(b, buf, n, path, err);
	}
	free(buf);
	return ok;
}

/* ---- measuring ---- */

static size_t n_counted(const struct tc_analysis *a) {
	size_t n = 0;
	for (size_t i = 0; i < a->n_steps; i++) {
		n += tc_step_counted_in(a, &a->steps[i]);
	}
	return n;
}

static int cmp_i64(const void *pa, const void *pb) {
	int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
	return x < y ? -1 : x > y;
}

static bool step_time(const struct tc_analysis *a, enum tc_metric_id id, double *out) {
	size_t n = 0;
	int64_t *d = tc_xmalloc((a->n_steps ? a->n_steps : 1) * sizeof(*d));
	for (size_t i = 0; i < a->n_steps; i++) {
		if (tc_step_counted_in(a, &a->steps[i])) {
			d[n++] = a->steps[i].dur_ps;
		}
	}
	if (!n) {
		free(d);
		return false;
	}
	tc_sort(d, n, sizeof(*d), cmp_i64);
	double v;
	if (id == TC_M_STEP_MEAN) {
		double sum = 0;
		for (size_t i = 0; i < n; i++) {
			sum += (double)d[i];
		}
		v = sum / (double)n;
	} else if (id == TC_M_STEP_MEDIAN) {
		v = n % 2 ? (double)d[n / 2] : ((double)d[n / 2 - 1] + (double)d[n / 2]) / 2;
	} else if (id == TC_M_STEP_P90) {
		size_t k = (size_t)ceil(0.9 * (double)n);
		v = (double)d[k ? k - 1 : 0];
	} else {
		v = (double)d[n - 1];
	}
	free(d);
	*out = v / 1e12;
	return true;
}

static bool per_step_xfer(const struct tc_analysis *a, enum tc_xfer_dir dir, bool bytes,
		double *out) {
	size_t n = 0;
	double sum = 0;
	for (size_t i = 0; i < a->n_steps; i++) {
		if (tc_step_counted_in(a, &a->steps[i])) {
			n++;
			sum += bytes ? a->steps[i].xfer[dir].bytes : (double)a->steps[i].xfer[dir].count;
		}
	}
	if (!n) {
		return false;
	}
	*out = sum / (double)n;
	return true;
}

static bool device_busy(const struct tc_analysis *a, double *out) {
	int64_t busy = 0, total = 0;
	for (size_t i = 0; i < a->n_steps; i++) {
		if (tc_step_counted_in(a, &a->steps[i])) {
			busy += a->steps[i].busy_ps;
			total += a->steps[i].dur_ps;
		}
	}
	if (total <= 0 || a->bd_device == TC_NONE) {
		return false;
	}
	*out = (double)busy / (double)total;
	return true;
}

static void device_label(const struct tc_model *m, uint32_t d, char *buf, size_t size) {
	if (d < m->n_devices) {
		tc_analysis_device_label(m, d, buf, size);
	} else {
		snprintf(buf, size, "global");
	}
}

/* The memory counter with the highest peak (a->mem), or NULL. */
static const struct tc_mem_peak *top_memory(const struct tc_analysis *a) {
	const struct tc_mem_peak *best = NULL;
	for (size_t i = 0; i < a->n_mem; i++) {
		if (a->mem[i].samples && (!best || a->mem[i].peak_bytes > best->peak_bytes)) {
			best = &a->mem[i];
		}
	}
	return best;
}

/* The samples of peak p: its counter's, or the points of the curve its
 * allocator records draw (model/memcurve.c), copied into *own. */
struct mem_series {
	const int64_t *ts;
	const double *val;
	size_t n;
	int64_t *own_ts;
	double *own_val;
};

static void series_point(void *ctx, size_t rec, int64_t ts, double v) {
	struct mem_series *s = ctx;
	(void)rec;
	s->own_ts[s->n] = ts;
	s->own_val[s->n++] = v;
}

static void mem_series(const struct tc_model *m, const struct tc_mem_peak *p,
		struct mem_series *s) {
	memset(s, 0, sizeof(*s));
	for (size_t k = 0; k < m->n_counters; k++) {
		const struct tc_counter *c = &m->counters[k];
		if (c->device == p->device && c->name == p->name && c->group == p->group) {
			s->ts = m->samples.ts + c->first;
			s->val = m->samples.value + c->first;
			s->n = c->count;
			return;
		}
	}
	struct tc_mem_curve *cv;
	size_t n_cv = tc_mem_curves(m, &cv);
	for (size_t k = 0; k < n_cv; k++) {
		if (cv[k].device == p->device && cv[k].group == p->group) {
			s->own_ts = tc_xmalloc(cv[k].records * sizeof(*s->own_ts));
			s->own_val = tc_xmalloc(cv[k].records * sizeof(*s->own_val));
			tc_mem_curve_walk(m, &cv[k], series_point, s);
			s->ts = s->own_ts;
			s->val = s->own_val;
			break;
		}
	}
	free(cv);
}

/* Per counted step, the counter's highest value inside the step (the value
 * carried in from before when no sample falls inside); then stddev/mean. */
static bool memory_cv(const struct tc_model *m, const struct tc_analysis *a, double *out) {
	const struct tc_mem_peak *p = top_memory(a);
	if (!p) {
		return false;
	}
	struct mem_series ser;
	mem_series(m, p, &ser);
	const int64_t *ts = ser.ts;
	const double *val = ser.val;
	size_t n = 0, j = 0;
	double sum = 0, sq = 0;
	for (size_t i = 0; i < a->n_steps && ser.n; i++) {
		if (!tc_step_counted_in(a, &a->steps[i])) {
			continue;
		}
		int64_t lo = a->steps[i].start_ps, hi = lo + a->steps[i].dur_ps;
		while (j < ser.n && ts[j] < lo) {
			j++;
		}
		bool have = j > 0;
		double peak = have ? val[j - 1] : 0;
		for (size_t k = j; k < ser.n && ts[k] < hi; k++) {
			peak = !have || val[k] > peak ? val[k] : peak;
			have = true;
		}
		if (have) {
			n++;
			sum += peak;
			sq += peak * peak;
		}
	}
	free(ser.own_ts);
	free(ser.own_val);
	if (n < 2 || sum <= 0) {
		return false;
	}
	double mean = sum / (double)n;
	double var = sq / (double)n - mean * mean;
	*out = sqrt(var > 0 ? var : 0) / mean;
	return true;
}

/* Bytes live at the largest allocator peak that op mt->op allocated
 * (every scope); unmeasured without allocator records. */
static bool memory_by_op(const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_metric *mt, double *out, char *detail, size_t size) {
	const struct tc_mem_holder *h0;
	const struct tc_mem_device *d = tc_mem_view_top(&a->memview, &h0);
	/* A digest keeps the top holder only. */
	if (!d || a->memview.partial) {
		return false;
	}
	double sum = 0;
	for (size_t i = 0; i < d->n_holders; i++) {
		const struct tc_mem_holder *h = &d->holders[i];
		if (!h->before_trace && h->name != TC_NONE &&
				strcmp(tc_model_str(m, h->name), mt->op) == 0) {
			sum += (double)h->bytes;
		}
	}
	*out = sum;
	if (detail && size) {
		device_label(m, d->device, detail, size);
	}
	return true;
}

/* Events named mt->op (host and device, derived lines left out: they
 * repeat device work) that start inside a counted step, per step. */
static bool op_per_step(const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_metric *mt, double *out) {
	size_t steps = n_counted(a);
	if (!steps) {
		return false;
	}
	uint8_t *hit = tc_xcalloc(m->n_ops ? m->n_ops : 1, 1);
	for (size_t o = 0; o < m->n_ops; o++) {
		hit[o] = strcmp(tc_model_str(m, m->ops[o].name), mt->op) == 0;
	}
	double total = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->kind == TC_TRACK_DERIVED) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (!hit[m->ev.op[i]]) {
				continue;
			}
			size_t s = tc_step_at(a->steps, a->n_steps, m->ev.start[i]);
			if (s != SIZE_MAX && tc_step_counted_in(a, &a->steps[s])) {
				total += mt->id == TC_M_OP_TIME ? (double)m->ev.dur[i] / 1e12 : 1;
			}
		}
	}
	free(hit);
	*out = total / (double)steps;
	return true;
}

bool tc_metric_measure(const struct tc_model *m, const struct tc_analysis *a,
		const struct tc_metric *mt, double *out, char *detail, size_t size) {
	if (detail && size) {
		detail[0] = '\0';
	}
	switch ((enum tc_metric_id)mt->id) {
	case TC_M_STEP_COUNT:
		*out = (double)n_counted(a);
		return true;
	case TC_M_STEP_MEAN:
	case TC_M_STEP_MEDIAN:
	case TC_M_STEP_P90:
	case TC_M_STEP_MAX:
		return step_time(a, (enum tc_metric_id)mt->id, out);
	case TC_M_H2D_BYTES:
	case TC_M_H2D_COUNT:
		return per_step_xfer(a, TC_XFER_H2D, mt->id == TC_M_H2D_BYTES, out);
	case TC_M_D2H_BYTES:
	case TC_M_D2H_COUNT:
		return per_step_xfer(a, TC_XFER_D2H, mt->id == TC_M_D2H_BYTES, out);
	case TC_M_D2D_BYTES:
	case TC_M_D2D_COUNT:
		return per_step_xfer(a, TC_XFER_D2D, mt->id == TC_M_D2D_BYTES, out);
	case TC_M_SHARE:
		if (a->step_total_ps <= 0) {
			return false;
		}
		*out = (double)a->cat_total_ps[mt->cat] / (double)a->step_total_ps;
		return true;
	case TC_M_DEVICE_BUSY:
		return device_busy(a, out);
	case TC_M_COMPILE_COUNT:
		*out = (double)a->compile.n_events;
		return true;
	case TC_M_COMPILE_TIME:
		*out = (double)a->compile.union_ps / 1e12;
		return true;
	case TC_M_RECOMPILE_COUNT: {
		uint64_t n = 0;
		for (size_t i = 0; i < a->compile.n_recompiled; i++) {
			n += a->compile.recompiled[i].count - 1;
		}
		*out = (double)n;
		return true;
	}
	case TC_M_MEMORY_PEAK: {
		const struct tc_mem_peak *p = top_memory(a);
		if (!p) {
			return false;
		}
		*out = p->peak_bytes;
		if (detail && size) {
			char dev[256];
			device_label(m, p->device, dev, sizeof(dev));
			snprintf(detail, size, "%s %s", dev, tc_model_str(m, p->name));
		}
		return true;
	}
	case TC_M_MEMORY_CV:
		return memory_cv(m, a, out);
	case TC_M_MEMORY_BY_OP:
		return memory_by_op(m, a, mt, out, detail, size);
	case TC_M_OP_TIME:
	case TC_M_OP_CALLS:
		return op_per_step(m, a, mt, out);
	case TC_M_MAX_SEVERITY: {
		uint8_t sev = TC_SEV_NONE;
		for (size_t i = 0; i < a->n_findings; i++) {
			sev = a->findings[i].severity > sev ? a->findings[i].severity : sev;
		}
		*out = (double)sev;
		return true;
	}
	default:
		return false;
	}
}

/* ---- evaluation ---- */

static void row_init(struct tc_check_row *r, const struct tc_metric *mt, size_t n_ranks) {
	memset(r, 0, sizeof(*r));
	tc_metric_copy(&r->metric, mt);
	r->values = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*r->values));
	r->known = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*r->known));
	r->details = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*r->details));
	r->worst = SIZE_MAX;
}

void tc_check_init(struct tc_check *c, const struct tc_budget *b, size_t n_ranks) {
	memset(c, 0, sizeof(*c));
	c->n_ranks = n_ranks;
	c->ranks = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*c->ranks));
	c->steps_source = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*c->steps_source));
	c->n_steps = tc_xcalloc(n_ranks ? n_ranks : 1, sizeof(*c->n_steps));
	if (b && b->n) {
		c->rows = tc_xcalloc(b->n, sizeof(*c->rows));
		for (size_t i = 0; i < b->n; i++) {
			struct tc_check_row *r = &c->rows[c->n_rows++];
			row_init(r, &b->v[i].metric, n_ranks);
			r->has_limit = true;
			r->is_min = b->v[i].is_min;
			r->limit = b->v[i].value;
			r->limit_text = dup_n(b->v[i].text, strlen(b->v[i].text));
		}
		return;
	}
	/* No limits: the whole catalogue but the op metrics, which need a name. */
	c->rows = tc_xcalloc(TC_M_COUNT + TC_BD_COUNT, sizeof(*c->rows));
	for (int i = 0; i < TC_M_COUNT; i++) {
		if (tc_metric_named(i)) {
			continue;
		}
		for (int k = 0; k < (i == TC_M_SHARE ? TC_BD_COUNT : 1); k++) {
			char name[64];
			if (i == TC_M_SHARE) {
				snprintf(name, sizeof(name), "share.%s", tc_bd_cat_name((enum tc_bd_cat)k));
			} else {
				snprintf(name, sizeof(name), "%s", tc_metric_defs()[i].name);
			}
			struct tc_metric mt = { .id = (uint8_t)i, .cat = (uint8_t)k, .name = name };
			row_init(&c->rows[c->n_rows++], &mt, n_ranks);
		}
	}
}

void tc_check_measure(struct tc_check *c, size_t r, const char *name,
		const struct tc_model *m, const struct tc_analysis *a) {
	free(c->ranks[r]);
	c->ranks[r] = dup_n(name, strlen(name));
	free(c->steps_source[r]);
	c->steps_source[r] = a->steps_source ? tc_xstrdup(a->steps_source) : NULL;
	c->n_steps[r] = n_counted(a);
	c->step_marker = a->step_marker;
	bool ops = false;
	for (size_t i = 0; i < c->n_rows; i++) {
		ops |= c->rows[i].metric.op != NULL;
	}
	if (ops) {
		const char **names = tc_xmalloc((m->n_ops ? m->n_ops : 1) * sizeof(*names));
		for (size_t o = 0; o < m->n_ops; o++) {
			names[o] = tc_model_str(m, m->ops[o].name);
		}
		tc_check_note_ops(c, names, m->n_ops);
		free(names);
	}
	for (size_t i = 0; i < c->n_rows; i++) {
		struct tc_check_row *row = &c->rows[i];
		char detail[512];
		row->known[r] = tc_metric_measure(m, a, &row->metric, &row->values[r], detail,
			sizeof(detail));
		free(row->details[r]);
		row->details[r] = dup_n(detail, strlen(detail));
	}
}

void tc_check_note_ops(struct tc_check *c, const char *const *names, size_t n) {
	for (size_t i = 0; i < c->n_rows; i++) {
		struct tc_check_row *row = &c->rows[i];
		if (!row->metric.op || row->op_found) {
			continue;
		}
		for (size_t k = 0; k < n && !row->op_found; k++) {
			row->op_found = strcmp(names[k], row->metric.op) == 0;
		}
		const char *hint = row->op_found || row->op_hint ? NULL :
			tc_suggest(row->metric.op, names, n);
		if (hint) {
			row->op_hint = dup_n(hint, strlen(hint));
		}
	}
}

bool tc_check_ops_known(const struct tc_check *c, struct tc_error *err) {
	for (size_t i = 0; i < c->n_rows; i++) {
		const struct tc_check_row *r = &c->rows[i];
		if (!r->metric.op || r->op_found) {
			continue;
		}
		const char *where = c->n_ranks > 1 ? "any rank" : "the trace";
		if (r->op_hint) {
			return tc_error_set(err, TC_EXIT_USAGE, "metric '%s': no op named '%s' in %s "
				"(did you mean '%s'?)", r->metric.name, r->metric.op, where, r->op_hint);
		}
		return tc_error_set(err, TC_EXIT_USAGE, "metric '%s': no op named '%s' in %s",
			r->metric.name, r->metric.op, where);
	}
	return true;
}

static bool within(const struct tc_check_row *r, double v) {
	return r->is_min ? v >= r->limit : v <= r->limit;
}

void tc_check_evaluate(struct tc_check *c) {
	c->n_fail = 0;
	for (size_t i = 0; i < c->n_rows; i++) {
		struct tc_check_row *r = &c->rows[i];
		r->worst = SIZE_MAX;
		size_t missing = SIZE_MAX;
		for (size_t k = 0; k < c->n_ranks; k++) {
			if (!r->known[k]) {
				missing = missing == SIZE_MAX ? k : missing;
				continue;
			}
			/* Worst: the lowest against a minimum, else the highest. */
			if (r->worst == SIZE_MAX || (r->is_min ? r->values[k] < r->values[r->worst] :
					r->values[k] > r->values[r->worst])) {
				r->worst = k;
			}
		}
		if (!r->has_limit) {
			r->verdict = TC_VERDICT_MEASURED;
		} else if (missing != SIZE_MAX) {
			r->verdict = TC_VERDICT_MISSING;
			r->worst = missing;
		} else {
			r->verdict = within(r, r->values[r->worst]) ? TC_VERDICT_PASS : TC_VERDICT_FAIL;
		}
		c->n_fail += r->verdict == TC_VERDICT_FAIL || r->verdict == TC_VERDICT_MISSING;
	}
}
