/*
 * Kernel -> launching op (`ops --by launcher`): device events linked by
 * their launch flows to the runtime call and the framework op stack above
 * it; each op's kernel time includes its child ops'. Costs come from the
 * event's own FLOPs or from its recorded shapes (analysis/opcost.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/device.h"
#include "analysis/launcher.h"
#include "analysis/opcost.h"
#include "model/findings.h"
#include "model/peaks.h"
#include "util/num.h"
#include "util/xalloc.h"

/* Host events (those on tracks that are not device work) get dense slots:
 * track t's events [first, first + count) are slots base[t] + (i - first). */
struct host_index {
	uint32_t *base;   /* per track, TC_NONE for device tracks */
	uint32_t *parent; /* per slot: the enclosing event, TC_NONE at the top */
	int64_t *ps;      /* per slot: device time launched below it */
	uint32_t *n;      /* per slot: device events launched below it */
	size_t n_slots;
};

/* Bounds on a walk of one host stack: the open events searched for an
 * enclosing one, and the levels a launch is charged up (a real op stack is
 * tens deep; a pathological trace must not make each launch cost its
 * depth). */
#define MAX_SCAN 64
#define MAX_LEVELS 512

/* Track t is a device line of the device asked for (TC_NONE: any). */
static bool device_line(const struct tc_model *m, uint32_t t, uint32_t only) {
	const struct tc_track *tr = &m->tracks[t];
	return tc_track_kind_is_device_work((enum tc_track_kind)tr->kind) &&
		(only == TC_NONE || tr->device == only);
}

static bool device_kind(enum tc_op_kind k) {
	return k == TC_OP_KERNEL || (k >= TC_OP_MEMCPY_H2D && k <= TC_OP_MEMSET) ||
		k == TC_OP_COLLECTIVE;
}

/* sums: with the per-slot sums (ps, n) a table charges launches to. */
static void host_index_init(struct host_index *h, const struct tc_model *m, bool sums) {
	memset(h, 0, sizeof(*h));
	h->base = tc_xmalloc((m->n_tracks ? m->n_tracks : 1) * sizeof(*h->base));
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		bool host = !tc_track_kind_is_device_work((enum tc_track_kind)tr->kind) &&
			tr->kind != TC_TRACK_DERIVED;
		h->base[t] = host ? (uint32_t)h->n_slots : TC_NONE;
		h->n_slots += host ? tr->count : 0;
	}
	size_t n = h->n_slots ? h->n_slots : 1;
	h->parent = tc_xmalloc(n * sizeof(*h->parent));
	if (sums) {
		h->ps = tc_xcalloc(n, sizeof(*h->ps));
		h->n = tc_xcalloc(n, sizeof(*h->n));
	}
	/* Parents: the nearest open event that encloses the whole event.
	 * Finalize's depths nest any overlap; a partial overlap (async
	 * slices, a synthetic trace) is no parent, or a launch would be
	 * charged to every op it overlaps. */
	struct open_ev {
		int64_t end;
		uint32_t ev;
	} *open = NULL;
	size_t cap = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (h->base[t] == TC_NONE) {
			continue;
		}
		size_t top = 0;
		for (uint32_t i = tr->first; i < tr->first + tr->count; i++) {
			int64_t st = m->ev.start[i], end = tc_model_end(m, i);
			while (top > 0 && open[top - 1].end <= st) {
				top--;
			}
			uint32_t parent = TC_NONE;
			for (size_t k = top, steps = 0; k-- > 0 && steps < MAX_SCAN; steps++) {
				if (open[k].end >= end) {
					parent = open[k].ev;
					break;
				}
			}
			h->parent[h->base[t] + (i - tr->first)] = parent;
			if (m->ev.dur[i] > 0) {
				TC_GROW(open, cap, top + 1);
				open[top++] = (struct open_ev){ end, i };
			}
		}
	}
	free(open);
}

static void host_index_finish(struct host_index *h) {
	free(h->base);
	free(h->parent);
	free(h->ps);
	free(h->n);
}

/* ev's track, trying *hint first: consecutive launches mostly come from
 * one host thread onto one stream, and a finalized model's track holds
 * one range of events (no track column: a search per event). */
static uint32_t track_near(const struct tc_model *m, uint32_t ev, uint32_t *hint) {
	if (!m->ev.track && !m->ev.runs && *hint < m->n_tracks &&
			ev - m->tracks[*hint].first < m->tracks[*hint].count) {
		return *hint;
	}
	uint32_t t = tc_model_event_track(m, ev);
	*hint = t;
	return t;
}

static uint32_t slot_of(const struct tc_model *m, const struct host_index *h, uint32_t ev,
		uint32_t *hint) {
	uint32_t t = track_near(m, ev, hint);
	if (t == TC_NONE || h->base[t] == TC_NONE) {
		return TC_NONE;
	}
	return h->base[t] + (ev - m->tracks[t].first);
}

static bool is_framework_op(const struct tc_model *m, uint32_t ev) {
	return m->op_kind[m->ev.op[ev]] == TC_OP_HOST_OP;
}

/* Add each linked device event's time to every framework op above its
 * launch; each device event once, whatever flows name it. With innermost,
 * only the first framework op above each launch is wanted: it goes there,
 * and nothing is charged (h has no sums, t and linked are not kept). */
static void link_launches(const struct tc_model *m, uint32_t only, struct host_index *h,
		struct tc_launch_table *t, uint8_t *linked, uint32_t *innermost) {
	uint8_t *seen = tc_xcalloc(m->ev.n / 8 + 1, 1);
	uint32_t from_hint = TC_NONE, to_hint = TC_NONE;
	for (size_t f = 0; f < m->n_flows; f++) {
		const struct tc_flow *fl = &m->flows[f];
		uint32_t d = fl->to;
		if (fl->kind != TC_FLOW_LAUNCH || d >= m->ev.n || fl->from >= m->ev.n ||
				!device_kind((enum tc_op_kind)m->op_kind[m->ev.op[d]]) ||
				(seen[d / 8] & (1u << (d % 8)))) {
			continue;
		}
		uint32_t s = slot_of(m, h, fl->from, &from_hint), dt = track_near(m, d, &to_hint);
		if (s == TC_NONE || dt == TC_NONE || !device_line(m, dt, only)) {
			continue;
		}
		seen[d / 8] |= (uint8_t)(1u << (d % 8));
		bool any = false;
		/* the stack above a call is on its track: one lookup */
		int64_t off = (int64_t)s - (int64_t)fl->from;
		size_t levels = 0;
		for (uint32_t cur = fl->from; cur != TC_NONE && levels < MAX_LEVELS; levels++) {
			uint32_t cs = (uint32_t)((int64_t)cur + off);
			if (is_framework_op(m, cur)) {
				if (innermost) {
					innermost[d] = cur;
					break;
				}
				h->ps[cs] = tc_sat_add(h->ps[cs], m->ev.dur[d]);
				h->n[cs]++;
				any = true;
			}
			cur = h->parent[cs];
		}
		if (any) {
			linked[d / 8] |= (uint8_t)(1u << (d % 8));
			t->linked++;
			t->linked_ps = tc_sat_add(t->linked_ps, m->ev.dur[d]);
		}
	}
	free(seen);
}

struct call {
	uint32_t name, dims, types, conc, ev;
};

static int cmp_call(const void *pa, const void *pb) {
	const struct call *a = pa, *b = pb;
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	if (a->dims != b->dims) {
		return a->dims < b->dims ? -1 : 1;
	}
	if (a->types != b->types) {
		return a->types < b->types ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

static uint32_t str_arg(const struct tc_model *m, uint32_t ev, uint32_t key) {
	struct tc_arg a;
	if (key == TC_NONE || !tc_model_arg_find(m, tc_model_event_args(m, ev), key, &a) ||
			a.type != TC_ARG_STR) {
		return 0;
	}
	return a.v.s;
}

static uint32_t key_id(const struct tc_model *m, const char *k) {
	return tc_intern_find(&m->strings, k, strlen(k));
}

/* The outermost framework op above ev (or ev), its module scope (the
 * nearest nn.Module frame, else the nearest annotation) and whether a
 * framework op encloses it. */
static void call_context(const struct tc_model *m, const struct host_index *h, uint32_t ev,
		struct tc_launch_row *r) {
	uint32_t outer = m->ev.op[ev], module = 0, annot = 0, hint = TC_NONE;
	size_t levels = 0;
	for (uint32_t cur = h->parent[slot_of(m, h, ev, &hint)]; cur != TC_NONE && levels < MAX_LEVELS;
			levels++) {
		const struct tc_op *op = &m->ops[m->ev.op[cur]];
		const char *name = tc_model_str(m, op->name);
		if (op->kind == TC_OP_HOST_OP) {
			outer = m->ev.op[cur];
			r->nested = true;
		}
		if (!module && strncmp(name, "nn.Module: ", 11) == 0) {
			module = op->name;
		}
		if (!annot && op->kind == TC_OP_ANNOTATION) {
			annot = op->name;
		}
		cur = h->parent[slot_of(m, h, cur, &hint)];
	}
	r->outer = m->ops[outer].name;
	r->scope = module ? module : annot;
}

/* A row's rates from its totals (< 0 unknown). */
static void finish_rates(struct tc_launch_row *r, double flops, double bytes, double call_mean) {
	double secs = (double)r->kernel_ps * 1e-12;
	r->flops = flops;
	r->bytes = bytes;
	r->flop_rate = flops >= 0 && secs > 0 ? flops / secs : -1;
	r->flop_rate_call_mean = call_mean;
	r->byte_rate = bytes >= 0 && secs > 0 ? bytes / secs : -1;
	r->intensity = flops >= 0 && bytes > 0 ? flops / bytes : -1;
	r->peak_fraction = -1;
}

/* One row from the calls [c, c + n) of one name, shapes and dtypes. */
static void fill_row(const struct tc_model *m, const struct host_index *h,
		const struct call *c, size_t n, struct tc_launch_row *r) {
	memset(r, 0, sizeof(*r));
	r->name = c[0].name;
	r->dims = c[0].dims;
	r->types = c[0].types;
	call_context(m, h, c[0].ev, r);
	struct tc_opargs a;
	struct tc_opcost cost = { TC_OPCOST_NONE, -1, -1 };
	if (tc_opargs_parse(&a, r->dims ? tc_model_str(m, r->dims) : NULL,
			r->types ? tc_model_str(m, r->types) : NULL,
			c[0].conc ? tc_model_str(m, c[0].conc) : NULL)) {
		tc_opcost_of(tc_model_str(m, r->name), &a, &cost);
	}
	r->cls = cost.cls != TC_OPCOST_NONE ? tc_opcost_class_name(cost.cls) : NULL;
	r->flops_call = -1;
	r->bytes_call = cost.bytes;
	double flops = 0, rate_sum = 0;
	size_t rated = 0;
	bool flops_known = true;
	uint32_t hint = TC_NONE;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = slot_of(m, h, c[i].ev, &hint);
		r->calls++;
		r->kernels += h->n[s];
		r->kernel_ps = tc_sat_add(r->kernel_ps, h->ps[s]);
		/* Kineto's own count (with_flops) wins over the shapes' */
		int64_t f = tc_model_event_flops(m, c[i].ev);
		if (f >= 0) {
			r->flops_from = "trace";
		} else {
			f = cost.flops;
			r->flops_from = f >= 0 && !r->flops_from ? "shapes" : r->flops_from;
		}
		if (i == 0) {
			r->flops_call = f;
		}
		flops_known &= f >= 0;
		flops += f >= 0 ? (double)f : 0;
		if (f >= 0 && h->ps[s] > 0) {
			rate_sum += (double)f / ((double)h->ps[s] * 1e-12);
			rated++;
		}
	}
	r->via = "host_op";
	finish_rates(r, flops_known ? flops : -1,
		cost.bytes >= 0 ? (double)cost.bytes * (double)r->calls : -1,
		flops_known && rated == n && n ? rate_sum / (double)n : -1);
}

/* XLA programs launch from the runtime's own threads, under no framework
 * op: their device events name their HLO op (or are it, on an XLA Ops
 * line), module and scope instead; TensorFlow's name their TF op. */
static void xla_rows(const struct tc_model *m, uint32_t only, const uint8_t *linked,
		struct tc_launch_table *t, size_t *rcap) {
	uint32_t k_name = key_id(m, "name");
	struct call *calls = NULL;
	size_t n = 0, cap = 0;
	for (size_t k = 0; k < m->n_tracks; k++) {
		const struct tc_track *tr = &m->tracks[k];
		if (!device_line(m, (uint32_t)k, only)) {
			continue;
		}
		for (uint32_t i = tr->first; i < tr->first + tr->count; i++) {
			if ((linked[i / 8] & (1u << (i % 8))) ||
					!device_kind((enum tc_op_kind)m->op_kind[m->ev.op[i]])) {
				continue;
			}
			/* the HLO op the event names, else (an XLA Ops line) the
			 * event itself, else the TensorFlow op */
			uint32_t via = 0, op = str_arg(m, i, m->key.hlo_op);
			if (!op && tr->kind == TC_TRACK_OPS) {
				op = m->ops[m->ev.op[i]].name;
			}
			if (!op && (op = str_arg(m, i, m->key.tf_op)) &&
					strncmp(tc_model_str(m, op), "XlaModule:", 10) != 0) {
				via = 1;
			} else if (!op) {
				continue;
			}
			TC_GROW(calls, cap, n + 1);
			calls[n++] = (struct call){
				.name = op, .dims = str_arg(m, i, m->key.hlo_module), .types = via,
				.conc = str_arg(m, i, k_name), .ev = i,
			};
		}
	}
	tc_sort(calls, n, sizeof(*calls), cmp_call);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && calls[j].name == calls[i].name && calls[j].dims == calls[i].dims &&
				calls[j].types == calls[i].types) {
			j++;
		}
		TC_GROW(t->rows, *rcap, t->n + 1);
		struct tc_launch_row *r = &t->rows[t->n++];
		memset(r, 0, sizeof(*r));
		r->name = calls[i].name;
		r->outer = calls[i].dims;
		r->scope = calls[i].conc;
		r->via = calls[i].types ? "tf_op" : "xla_op";
		r->flops_call = tc_model_event_flops(m, calls[i].ev);
		r->bytes_call = tc_model_event_bytes_accessed(m, calls[i].ev);
		double flops = 0, bytes = 0, rate_sum = 0;
		bool fk = true, bk = true;
		for (size_t c = i; c < j; c++) {
			uint32_t ev = calls[c].ev;
			int64_t f = tc_model_event_flops(m, ev), b = tc_model_event_bytes_accessed(m, ev);
			r->calls++;
			r->kernels++;
			r->kernel_ps = tc_sat_add(r->kernel_ps, m->ev.dur[ev]);
			fk &= f >= 0;
			bk &= b >= 0;
			flops += f >= 0 ? (double)f : 0;
			bytes += b >= 0 ? (double)b : 0;
			rate_sum += f >= 0 && m->ev.dur[ev] > 0 ? (double)f / ((double)m->ev.dur[ev] * 1e-12) : 0;
		}
		r->flops_from = fk ? "trace" : NULL;
		finish_rates(r, fk ? flops : -1, bk ? bytes : -1, fk ? rate_sum / (double)(j - i) : -1);
		/* copies and collectives are judged as transfers, not on the
		 * roofline (as in the op table) */
		if (m->op_kind[m->ev.op[calls[i].ev]] != TC_OP_KERNEL) {
			r->intensity = -1;
		}
		t->linked_hlo += j - i;
		i = j;
	}
	free(calls);
}

static int cmp_row(const void *pa, const void *pb) {
	const struct tc_launch_row *a = pa, *b = pb;
	if (a->kernel_ps != b->kernel_ps) {
		return a->kernel_ps > b->kernel_ps ? -1 : 1;
	}
	if (a->calls != b->calls) {
		return a->calls > b->calls ? -1 : 1;
	}
	if (a->name != b->name) {
		return a->name < b->name ? -1 : 1;
	}
	return a->dims < b->dims ? -1 : a->dims > b->dims;
}

/* The data-sheet column for a row's dtypes ("Input type"): its
 * lowest-precision tensor input sets the math units (a _scaled_mm's FP8
 * operands, not its float scales); TC_PEAK_DTYPES where the types say
 * nothing (XLA rows, Triton kernels, no shapes). */
static enum tc_peak_dtype row_dtype(const struct tc_model *m, const struct tc_launch_row *r) {
	const char *s = r->types ? tc_model_str(m, r->types) : "";
	if (strstr(s, "Float8")) {
		return TC_PEAK_FP8;
	}
	if (strstr(s, "BFloat16") || strstr(s, "Half")) {
		return TC_PEAK_BF16;
	}
	if (strstr(s, "\"float\"")) {
		return TC_PEAK_FP32;
	}
	return strstr(s, "\"double\"") ? TC_PEAK_FP64 : TC_PEAK_DTYPES;
}

/* Where the peaks came from, for the header line: the trace's own, the
 * data sheet's row, the overrides. */
static void peak_source(bool trace, const struct tc_peak_row *sheet, double peak_flops,
		double peak_bw, char *out, size_t cap) {
	int n = 0;
	out[0] = 0;
	if (peak_flops <= 0 || peak_bw <= 0) {
		n = trace ? snprintf(out, cap, "trace") :
			sheet ? snprintf(out, cap, "data sheet: %s", sheet->part) : 0;
	}
	n = n < 0 || (size_t)n >= cap ? 0 : n;
	if (peak_flops > 0) {
		int k = snprintf(out + n, cap - (size_t)n, "%s--peak-flops", n ? ", " : "");
		n = k < 0 || (size_t)(n + k) >= cap ? n : n + k;
	}
	if (peak_bw > 0) {
		snprintf(out + n, cap - (size_t)n, "%s--peak-bw", n ? ", " : "");
	}
}

/* A row's efficiency: memory-bound rows (and rows with bytes but no
 * FLOPs) against the bandwidth, the others' FLOP/s against the peak of
 * their dtype where the data sheet has it, else the dense BF16 peak
 * ("bf16 assumed" where the dtype is unknown). */
static void efficiency(const struct tc_model *m, const struct tc_peak_row *sheet,
		bool sheet_flops, const struct tc_launch_table *t, struct tc_launch_row *r) {
	r->peak_fraction = -1;
	r->peak_roof = NULL;
	if (t->ridge <= 0) {
		return;
	}
	if (r->byte_rate >= 0 && (r->bound == TC_BOUND_MEMORY || r->flop_rate < 0)) {
		r->peak_fraction = r->byte_rate / t->peak_bw;
		r->peak_roof = "bandwidth";
		return;
	}
	if (r->flop_rate < 0) {
		return;
	}
	double peak = t->peak_flops;
	r->peak_roof = "flops";
	if (sheet_flops) {
		enum tc_peak_dtype dt = row_dtype(m, r);
		/* An unknown dtype is held to the dense 16-bit peak, the one the
		 * ridge is drawn for, and says so. */
		r->peak_roof = dt == TC_PEAK_DTYPES ? "bf16 assumed" : NULL;
		dt = dt < TC_PEAK_DTYPES && sheet->flops[dt] > 0 ? dt : TC_PEAK_BF16;
		peak = sheet->flops[dt];
		r->peak_roof = r->peak_roof ? r->peak_roof : tc_peak_dtype_name(dt);
	}
	r->peak_fraction = r->flop_rate / peak;
}

/* The roofline class and efficiency against the peaks of the device
 * asked for, else of the first non-host device with known ones. */
static void classify(const struct tc_model *m, uint32_t only, double peak_flops,
		double peak_bw, struct tc_launch_table *t) {
	const struct tc_peak_row *sheet = NULL;
	bool sheet_flops = false;
	/* The peak table holds GPUs and TPUs: a class on every part of it says
	 * nothing of another kind of accelerator (MTIA). */
	bool table_kind = true;
	for (size_t d = 0; d < m->n_devices && t->ridge <= 0; d++) {
		if (m->devices[d].kind == TC_DEV_CPU || (only != TC_NONE && d != only)) {
			continue;
		}
		table_kind &= m->devices[d].kind != TC_DEV_ACCEL;
		double f, b;
		const char *src = tc_device_peaks(m, (uint32_t)d, peak_flops, peak_bw, &f, &b);
		if (src) {
			t->peak_flops = f;
			t->peak_bw = b;
			t->ridge = f / b;
			/* the data sheet's row only where the peaks are its */
			bool trace = m->devices[d].peak_flops > 0 && m->devices[d].peak_bw > 0;
			sheet = trace ? NULL : tc_device_peak_row(m, (uint32_t)d);
			sheet_flops = sheet && peak_flops <= 0 && sheet->flops[TC_PEAK_BF16] > 0;
			peak_source(trace, sheet, peak_flops, peak_bw, t->peak_source,
				sizeof(t->peak_source));
		}
	}
	t->class_source = t->ridge > 0 ? t->peak_source : table_kind ?
		"no device identity: class only where it holds on every part in the peak table" :
		"a device of no kind in the peak table: class unknown";
	for (size_t i = 0; i < t->n; i++) {
		struct tc_launch_row *r = &t->rows[i];
		r->bound = TC_BOUND_UNKNOWN;
		r->bound_dtype = NULL;
		if (t->ridge > 0 && r->intensity >= 0) {
			r->bound = r->intensity < t->ridge ? TC_BOUND_MEMORY : TC_BOUND_COMPUTE;
		} else if (r->intensity >= 0 && table_kind) {
			/* Without the device the class is the one every known part
			 * agrees on; efficiency stays unknown. */
			enum tc_peak_dtype dt = row_dtype(m, r);
			r->bound = (uint8_t)tc_peaks_bound_any(r->intensity, dt);
			r->bound_dtype = r->bound == TC_BOUND_UNKNOWN ? NULL :
				dt == TC_PEAK_DTYPES ? "bf16 assumed" : tc_peak_dtype_name(dt);
		}
		efficiency(m, sheet, sheet_flops, t, r);
	}
}

void tc_launcher_table(const struct tc_model *m, uint32_t only, double peak_flops,
		double peak_bw, struct tc_launch_table *t) {
	memset(t, 0, sizeof(*t));
	for (size_t k = 0; k < m->n_tracks; k++) {
		const struct tc_track *tr = &m->tracks[k];
		if (!device_line(m, (uint32_t)k, only)) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (device_kind((enum tc_op_kind)m->op_kind[m->ev.op[i]])) {
				t->device_events++;
				t->device_ps = tc_sat_add(t->device_ps, m->ev.dur[i]);
			}
		}
	}
	struct host_index h;
	host_index_init(&h, m, true);
	uint8_t *linked = tc_xcalloc(m->ev.n / 8 + 1, 1);
	link_launches(m, only, &h, t, linked, NULL);
	uint32_t k_dims = key_id(m, "Input Dims"), k_types = key_id(m, "Input type");
	uint32_t k_conc = key_id(m, "Concrete Inputs");
	struct call *calls = NULL;
	size_t n_calls = 0, cap = 0;
	for (size_t k = 0; k < m->n_tracks; k++) {
		const struct tc_track *tr = &m->tracks[k];
		if (h.base[k] == TC_NONE) {
			continue;
		}
		for (uint32_t i = tr->first; i < tr->first + tr->count; i++) {
			if (!h.n[h.base[k] + (i - tr->first)] || !is_framework_op(m, i)) {
				continue;
			}
			TC_GROW(calls, cap, n_calls + 1);
			calls[n_calls++] = (struct call){
				.name = m->ops[m->ev.op[i]].name, .dims = str_arg(m, i, k_dims),
				.types = str_arg(m, i, k_types), .conc = str_arg(m, i, k_conc), .ev = i,
			};
		}
	}
	tc_sort(calls, n_calls, sizeof(*calls), cmp_call);
	size_t rcap = 0;
	for (size_t i = 0; i < n_calls;) {
		size_t j = i + 1;
		while (j < n_calls && calls[j].name == calls[i].name &&
				calls[j].dims == calls[i].dims && calls[j].types == calls[i].types) {
			j++;
		}
		TC_GROW(t->rows, rcap, t->n + 1);
		fill_row(m, &h, calls + i, j - i, &t->rows[t->n++]);
		i = j;
	}
	free(calls);
	host_index_finish(&h);
	xla_rows(m, only, linked, t, &rcap);
	free(linked);
	classify(m, only, peak_flops, peak_bw, t);
	tc_sort(t->rows, t->n, sizeof(*t->rows), cmp_row);
}

void tc_launcher_of_events(const struct tc_model *m, uint32_t *out) {
	for (size_t i = 0; i < m->ev.n; i++) {
		out[i] = TC_NONE;
	}
	struct host_index h;
	struct tc_launch_table t = { 0 };
	host_index_init(&h, m, false);
	uint8_t *linked = tc_xcalloc(m->ev.n / 8 + 1, 1);
	link_launches(m, TC_NONE, &h, &t, linked, out);
	free(linked);
	host_index_finish(&h);
}
