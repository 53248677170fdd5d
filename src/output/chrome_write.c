/*
 * The Chrome Trace Event JSON writer for `export`: a model's kept events,
 * counters, allocator records, flows and annotations, streamed in constant memory.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/chrome_write.h"
#include "output/export_plan.h"
#include "output/fmt.h"
#include "output/jsonw.h"
#include "util/xalloc.h"

/*
 * Event lines are written through a local buffer with hand-rolled number
 * formatting rather than through struct tc_jw: this is the hot loop of a
 * multi-gigabyte export and printf costs more than the rest together.
 * Strings needing escapes still go through tc_json_escape, so the output is
 * strict JSON.
 */

/* Event text is gathered here and handed to stdio in large pieces: one
 * fwrite per 64 KiB instead of a dozen per event. */
struct out {
	FILE *f;
	size_t n;
	char buf[64 * 1024];
};

static void out_flush(struct out *o) {
	if (o->n) {
		fwrite(o->buf, 1, o->n, o->f);
		o->n = 0;
	}
}

static void out_n(struct out *o, const char *s, size_t n) {
	if (o->n + n > sizeof(o->buf)) {
		out_flush(o);
		if (n > sizeof(o->buf)) {
			fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

static void out_s(struct out *o, const char *s) {
	out_n(o, s, strlen(s));
}

static void out_c(struct out *o, char c) {
	if (o->n == sizeof(o->buf)) {
		out_flush(o);
	}
	o->buf[o->n++] = c;
}

/* Escaped string contents: printable ASCII without quote or backslash is
 * copied; anything else goes through tc_json_escape. */
static void out_esc(struct out *o, const char *s, size_t n) {
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
			out_flush(o);
			tc_json_escape(o->f, s, n);
			return;
		}
	}
	out_n(o, s, n);
}

struct writer {
	FILE *f;
	struct out *o;
	const struct tc_model *m;
	const struct tc_selection *sel;
	const struct tc_annotation *ann;
	struct tc_chrome_stats *st;
	struct tc_export_plan plan; /* tids, and the tracks and pids used */
	bool first;          /* no event written yet */
	struct tc_export_args args; /* the event's arg keys written */
};

static void put_u64(struct out *f, uint64_t v) {
	char buf[24];
	char *p = buf + sizeof(buf);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_n(f, p, (size_t)(buf + sizeof(buf) - p));
}

static void put_i64(struct out *f, int64_t v) {
	if (v < 0) {
		out_c(f, '-');
		put_u64(f, (uint64_t)0 - (uint64_t)v);
	} else {
		put_u64(f, (uint64_t)v);
	}
}

/* Picoseconds as exact decimal microseconds, trailing zeros trimmed:
 * 12345678 -> 12.345678, 1500000 -> 1.5, 3000000 -> 3. buf: 32 bytes. */
static char *fmt_us(char *buf, int64_t ps) {
	uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
	int n = snprintf(buf, 32, "%s%" PRIu64, ps < 0 ? "-" : "", a / 1000000);
	unsigned frac = (unsigned)(a % 1000000);
	if (frac) {
		buf[n++] = '.';
		for (int i = 5; i >= 0; i--) {
			buf[n + i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		n += 6;
		while (buf[n - 1] == '0') {
			n--;
		}
		buf[n] = '\0';
	}
	return buf;
}

static void put_us(struct out *f, int64_t ps) {
	uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
	if (ps < 0) {
		out_c(f, '-');
	}
	put_u64(f, a / 1000000);
	unsigned frac = (unsigned)(a % 1000000);
	if (frac) {
		char buf[8] = ".000000";
		for (int i = 6; i >= 1; i--) {
			buf[i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		int n = 7;
		while (buf[n - 1] == '0') {
			n--;
		}
		out_n(f, buf, (size_t)n);
	}
}

static void put_str(struct out *f, const char *s) {
	out_c(f, '"');
	out_esc(f, s, strlen(s));
	out_c(f, '"');
}

/* A finite double as the shortest text that reads back exactly. */
static void put_double(struct out *f, double v) {
	if (!isfinite(v)) {
		out_s(f, "null");
		return;
	}
	if (v == (double)(int64_t)v && fabs(v) < 9e15) {
		put_i64(f, (int64_t)v);
		return;
	}
	char buf[40];
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v) {
		snprintf(buf, sizeof(buf), "%.17g", v);
	}
	out_s(f, buf);
}

static void begin_event(struct writer *w, const char *ph) {
	out_s(w->o, w->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	w->first = false;
	out_s(w->o, ph);
	out_c(w->o, '"');
}

static void put_key_uint(struct out *f, const char *key, uint64_t v) {
	out_s(f, key);
	put_u64(f, v);
}

static void put_ts(struct writer *w, int64_t ps) {
	int64_t rel = ps - w->sel->zero_ps;
	out_s(w->o, ",\"ts\":");
	put_us(w->o, rel < 0 ? 0 : rel);
}

static uint64_t pid_of(const struct tc_model *m, uint32_t d) {
	return (uint64_t)tc_export_dev(m, d) + 1;
}

static uint64_t ann_pid(const struct tc_model *m) {
	return (uint64_t)m->n_devices + 2;
}

/* A name and a sort-index metadata event for a process (tid 0: none) or a
 * thread. kind, the model's device or track kind, is a hint that lets a
 * reader (ours) rebuild the model exactly; viewers read only args.name. */
static void meta(struct writer *w, uint64_t pid, uint64_t tid, const char *name,
		const char *kind, int64_t sort) {
	const char *what = tid ? "thread" : "process";
	for (int k = 0; k < 2; k++) {
		begin_event(w, "M");
		put_key_uint(w->o, ",\"pid\":", pid);
		if (tid) {
			put_key_uint(w->o, ",\"tid\":", tid);
		}
		out_s(w->o, ",\"name\":\"");
		out_s(w->o, what);
		if (k == 0) {
			out_s(w->o, "_name\",\"args\":{\"name\":");
			put_str(w->o, name);
			out_s(w->o, ",\"tracectl_kind\":");
			put_str(w->o, kind);
		} else {
			out_s(w->o, "_sort_index\",\"args\":{\"sort_index\":");
			put_i64(w->o, sort);
		}
		out_s(w->o, "}}");
	}
}

static bool host_name_shared(const struct tc_model *m, uint32_t h) {
	for (size_t i = 0; i < m->n_hosts; i++) {
		if (i != h && m->hosts[i].name == m->hosts[h].name) {
			return true;
		}
	}
	return false;
}

void tc_chrome_device_name(const struct tc_model *m, uint32_t d, char *name, size_t n) {
	const struct tc_device *dev = &m->devices[d];
	if (dev->host < m->n_hosts && host_name_shared(m, dev->host)) {
		/* Two files from one host name: tell them apart by file. */
		const struct tc_host *h = &m->hosts[dev->host];
		const char *path = h->source < m->n_sources ?
			tc_model_str(m, m->sources[h->source].path) : "?";
		const char *base = strrchr(path, '/');
		snprintf(name, n, "%s (%s, %s)", tc_model_str(m, dev->name),
			tc_model_str(m, h->name), base ? base + 1 : path);
	} else if (dev->host < m->n_hosts) {
		snprintf(name, n, "%s (%s)", tc_model_str(m, dev->name),
			tc_model_str(m, m->hosts[dev->host].name));
	} else {
		snprintf(name, n, "%s", tc_model_str(m, dev->name));
	}
}

static void write_metadata(struct writer *w) {
	const struct tc_model *m = w->m;
	char name[1024];
	for (uint32_t d = 0; d <= m->n_devices; d++) {
		if (!w->plan.pid_used[d]) {
			continue;
		}
		if (d == m->n_devices) {
			meta(w, pid_of(m, d), 0, "(no device)", "other", (int64_t)d);
			continue;
		}
		tc_chrome_device_name(m, d, name, sizeof(name));
		meta(w, pid_of(m, d), 0, name,
			tc_device_kind_name((enum tc_device_kind)m->devices[d].kind), (int64_t)d);
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		if (!w->plan.track_used[t]) {
			continue;
		}
		const struct tc_track *tr = &m->tracks[t];
		meta(w, pid_of(m, tr->device), w->plan.tid[t], tc_model_str(m, tr->name),
			tc_track_kind_name((enum tc_track_kind)tr->kind), tr->sort);
	}
	for (uint32_t d = 0; d <= m->n_devices; d++) {
		if (w->plan.alloc_tid[d]) {
			meta(w, pid_of(m, d), w->plan.alloc_tid[d], "allocator", "host_thread",
				(int64_t)w->plan.alloc_tid[d]);
		}
	}
	if (w->ann && (w->ann->n_marks || w->ann->n_points)) {
		meta(w, ann_pid(m), 0, "tracectl annotations", "other", -1);
		for (size_t t = 0; t < w->ann->n_tracks; t++) {
			meta(w, ann_pid(m), t + 1, w->ann->tracks[t], "annotation", (int64_t)t);
		}
	}
}

/* The args of list first whose key was not written yet for this event
 * (tc_export_args_begin): the event's own args, then its op's. */
static void put_arg_list(struct writer *w, uint32_t first, bool *comma) {
	const struct tc_model *m = w->m;
	struct tc_arg a;
	for (uint32_t p = first; tc_export_args_next(&w->args, m, &p, &a);) {
		const char *key = tc_model_str(m, a.key);
		out_s(w->o, *comma ? ",\"" : "\"");
		*comma = true;
		out_esc(w->o, key, strlen(key));
		out_s(w->o, "\":");
		switch (a.type) {
		case TC_ARG_INT:
			put_i64(w->o, a.v.i);
			break;
		case TC_ARG_UINT:
			put_u64(w->o, a.v.u);
			break;
		case TC_ARG_DOUBLE:
			put_double(w->o, a.v.d);
			break;
		case TC_ARG_STR:
			put_str(w->o, tc_model_str(m, a.v.s));
			break;
		case TC_ARG_BOOL:
			out_s(w->o, a.v.i ? "true" : "false");
			break;
		default:
			out_s(w->o, "null");
			break;
		}
	}
}

/* cat for an op without a category: the Kineto name for its kind where
 * there is one, so Kineto-aware tools (and readers) classify it, else the
 * kind name. */
const char *tc_chrome_kind_cat(enum tc_op_kind k) {
	switch (k) {
	case TC_OP_KERNEL:
		return "kernel";
	case TC_OP_MEMCPY_H2D:
	case TC_OP_MEMCPY_D2H:
	case TC_OP_MEMCPY_D2D:
	case TC_OP_MEMCPY_OTHER:
		return "gpu_memcpy";
	case TC_OP_MEMSET:
		return "gpu_memset";
	case TC_OP_HOST_OP:
		return "cpu_op";
	case TC_OP_RUNTIME:
		return "cuda_runtime";
	case TC_OP_SYNC:
		return "cuda_sync";
	case TC_OP_ANNOTATION:
		return "user_annotation";
	case TC_OP_PYTHON:
		return "python_function";
	case TC_OP_OVERHEAD:
		return "overhead";
	default:
		return tc_op_kind_name(k);
	}
}

static void write_event(struct writer *w, uint32_t t, size_t i) {
	const struct tc_model *m = w->m;
	const struct tc_op *op = tc_model_event_op(m, i);
	const struct tc_track *tr = &m->tracks[t];
	bool instant = m->ev.flags[i] & TC_EV_INSTANT;
	begin_event(w, instant ? "i" : "X");
	put_key_uint(w->o, ",\"pid\":", pid_of(m, tr->device));
	put_key_uint(w->o, ",\"tid\":", w->plan.tid[t]);
	put_ts(w, m->ev.start[i]);
	if (instant) {
		out_s(w->o, ",\"s\":\"t\"");
		w->st->instants++;
	} else {
		out_s(w->o, ",\"dur\":");
		put_us(w->o, m->ev.dur[i]);
		w->st->slices++;
	}
	out_s(w->o, ",\"name\":");
	put_str(w->o, tc_model_str(m, op->name));
	out_s(w->o, ",\"cat\":");
	put_str(w->o, op->category ? tc_model_str(m, op->category) :
		tc_chrome_kind_cat((enum tc_op_kind)op->kind));
	out_s(w->o, ",\"args\":{");
	bool comma = false;
	tc_export_args_begin(&w->args, m);
	put_arg_list(w, tc_model_event_args(m, i), &comma);
	put_arg_list(w, op->args, &comma);
	if (!w->args.op_kind) {
		out_s(w->o, comma ? ",\"op_kind\":" : "\"op_kind\":");
		put_str(w->o, tc_op_kind_name((enum tc_op_kind)op->kind));
		comma = true;
	}
	if (!w->args.flops && op->flops >= 0) {
		out_s(w->o, comma ? ",\"flops\":" : "\"flops\":");
		put_i64(w->o, op->flops);
		comma = true;
	}
	if (!w->args.bytes && op->bytes >= 0) {
		out_s(w->o, comma ? ",\"bytes_accessed\":" : "\"bytes_accessed\":");
		put_i64(w->o, op->bytes);
		comma = true;
	}
	if (m->ev.flags[i] & TC_EV_UNFINISHED) {
		out_s(w->o, comma ? ",\"unfinished\":true" : "\"unfinished\":true");
		comma = true;
	}
	if (m->ev.flags[i] & TC_EV_CLAMPED) {
		out_s(w->o, comma ? ",\"clamped\":true" : "\"clamped\":true");
	}
	out_s(w->o, "}}");
}

static void write_counter_event(struct writer *w, uint64_t pid, const char *name,
		const char *group, int64_t ts, double v) {
	begin_event(w, "C");
	put_key_uint(w->o, ",\"pid\":", pid);
	put_ts(w, ts);
	out_s(w->o, ",\"name\":\"");
	out_esc(w->o, name, strlen(name));
	if (group && *group) {
		out_s(w->o, " (");
		out_esc(w->o, group, strlen(group));
		out_c(w->o, ')');
	}
	out_s(w->o, "\",\"args\":{\"value\":");
	put_double(w->o, v);
	out_s(w->o, "}}");
}

static void write_sample(void *ctx, uint32_t c, int64_t ts, double v) {
	struct writer *w = ctx;
	const struct tc_counter *ctr = &w->m->counters[c];
	write_counter_event(w, pid_of(w->m, ctr->device), tc_model_str(w->m, ctr->name),
		ctr->group ? tc_model_str(w->m, ctr->group) : NULL, ts, v);
	w->st->samples++;
}

/* A point of a curve allocator records draw (export_plan.h), as the
 * counter the trace did not have. */
static void write_curve_sample(void *ctx, size_t k, int64_t ts, double v) {
	struct writer *w = ctx;
	const struct tc_mem_curve *c = &w->plan.curves[k];
	write_counter_event(w, pid_of(w->m, c->device), "memory.allocated",
		c->group ? tc_model_str(w->m, c->group) : NULL, ts, v);
	w->st->samples++;
}

/* An optional string arg of an allocator record (TC_NONE or 0: none). */
static void put_alloc_str(struct writer *w, const char *key, uint32_t id) {
	if (id != TC_NONE && id != 0) {
		out_s(w->o, key);
		put_str(w->o, tc_model_str(w->m, id));
	}
}

/*
 * Allocator records as Kineto "[memory]" instants on the thread that asked
 * (else on their device's process), with the args the JSON reader reads
 * back. "Device Id" is the export's pid of the device whose memory it is
 * (Kineto's is the device ordinal, which the reader maps to a pid the same
 * way); "Device Type" 0 says it is the thread's own process's memory. The
 * xplane fields Kineto lacks keep their tracectl names.
 */
static void write_allocs(struct writer *w) {
	const struct tc_model *m = w->m;
	for (size_t i = 0; i < m->n_allocs; i++) {
		if (!tc_export_alloc_kept(m, w->sel, i)) {
			continue;
		}
		const struct tc_alloc *a = &m->allocs[i];
		uint32_t t = a->track;
		if (t >= m->n_tracks || !w->plan.track_used[t] ||
				!tc_selection_device(w->sel, m, m->tracks[t].device)) {
			t = TC_NONE;
		}
		uint64_t pid = pid_of(m, t != TC_NONE ? m->tracks[t].device : a->device);
		begin_event(w, "i");
		put_key_uint(w->o, ",\"pid\":", pid);
		put_key_uint(w->o, ",\"tid\":", t != TC_NONE ? w->plan.tid[t] :
			w->plan.alloc_tid[tc_export_dev(m, a->device)]);
		put_ts(w, a->ts);
		out_s(w->o, ",\"s\":\"t\",\"name\":\"[memory]\",\"cat\":\"cpu_instant_event\"");
		put_key_uint(w->o, ",\"args\":{\"Addr\":", a->addr);
		out_s(w->o, ",\"Bytes\":");
		put_i64(w->o, a->bytes);
		if (a->total >= 0) {
			out_s(w->o, ",\"Total Allocated\":");
			put_i64(w->o, a->total);
		}
		bool own = pid == pid_of(m, a->device);
		put_key_uint(w->o, ",\"Device Type\":", own ? 0 : 1);
		put_key_uint(w->o, ",\"Device Id\":", pid_of(m, a->device));
		put_alloc_str(w, ",\"allocator\":", a->group);
		put_alloc_str(w, ",\"tf_op\":", a->op);
		put_alloc_str(w, ",\"shape\":", a->shape);
		put_alloc_str(w, ",\"dtype\":", a->dtype);
		out_s(w->o, "}}");
		w->st->allocs++;
	}
}

static void flow_end(struct writer *w, const char *ph, uint64_t id, uint32_t ev, uint32_t t,
		const char *name) {
	const struct tc_model *m = w->m;
	begin_event(w, ph);
	put_key_uint(w->o, ",\"id\":", id);
	put_key_uint(w->o, ",\"pid\":", pid_of(m, m->tracks[t].device));
	put_key_uint(w->o, ",\"tid\":", w->plan.tid[t]);
	put_ts(w, m->ev.start[ev]);
	out_s(w->o, ",\"name\":\"");
	out_s(w->o, name);
	out_s(w->o, "\",\"cat\":\"flow\"");
	if (ph[0] == 'f') {
		out_s(w->o, ",\"bp\":\"e\"");
	}
	out_c(w->o, '}');
}

static void write_flows(struct writer *w) {
	const struct tc_model *m = w->m;
	for (size_t k = 0; k < m->n_flows; k++) {
		const struct tc_flow *fl = &m->flows[k];
		if (fl->from >= m->ev.n || fl->to >= m->ev.n || !tc_selection_has(w->sel, fl->from) ||
				!tc_selection_has(w->sel, fl->to)) {
			continue;
		}
		/* An end on no track (a reader bug) has no thread to draw it on. */
		uint32_t tf = tc_model_event_track(m, fl->from), tt = tc_model_event_track(m, fl->to);
		if (tf == TC_NONE || tt == TC_NONE) {
			continue;
		}
		const char *name = fl->kind == TC_FLOW_LAUNCH ? "launch" : "flow";
		flow_end(w, "s", k + 1, fl->from, tf, name);
		flow_end(w, "f", k + 1, fl->to, tt, name);
		w->st->flows++;
	}
}

static void write_annotation(struct writer *w) {
	const struct tc_annotation *a = w->ann;
	const struct tc_model *m = w->m;
	for (size_t k = 0; k < a->n_marks; k++) {
		const struct tc_mark *mk = &a->marks[k];
		begin_event(w, "X");
		put_key_uint(w->o, ",\"pid\":", ann_pid(m));
		put_key_uint(w->o, ",\"tid\":", (uint64_t)mk->track + 1);
		put_ts(w, mk->start_ps);
		out_s(w->o, ",\"dur\":");
		put_us(w->o, mk->dur_ps);
		out_s(w->o, ",\"name\":");
		put_str(w->o, mk->name ? mk->name : "");
		out_s(w->o, ",\"cat\":\"tracectl\",\"args\":{");
		bool comma = false;
		if (mk->severity) {
			out_s(w->o, "\"severity\":");
			put_str(w->o, mk->severity);
			comma = true;
		}
		if (mk->detail) {
			out_s(w->o, comma ? ",\"detail\":" : "\"detail\":");
			put_str(w->o, mk->detail);
		}
		out_s(w->o, "}}");
		w->st->marks++;
	}
	char name[512];
	for (size_t k = 0; k < a->n_points; k++) {
		const struct tc_ann_point *p = &a->points[k];
		const struct tc_ann_series *s = &a->series[p->series];
		if (!isfinite(p->value)) {
			continue;
		}
		if (s->unit && *s->unit) {
			snprintf(name, sizeof(name), "%s [%s]", s->name, s->unit);
		} else {
			snprintf(name, sizeof(name), "%s", s->name);
		}
		write_counter_event(w, s->device < m->n_devices ? pid_of(m, s->device) : ann_pid(m),
			name, NULL, p->ts_ps, p->value);
	}
}

static void write_other(struct writer *w, const struct tc_chrome_opts *o) {
	const struct tc_model *m = w->m;
	const struct tc_selection *sel = w->sel;
	struct tc_jw j;
	out_s(w->o, "\n],\n\"otherData\":");
	/* The tail is small: plain tc_jw on the FILE. */
	out_flush(w->o);
	tc_jw_init(&j, w->f, false);
	tc_jw_obj_begin(&j);
	tc_jw_kv_str(&j, "generator", o->generator ? o->generator : "tracectl");
	tc_jw_key(&j, "time_note");
	tc_jw_str(&j, "ts and dur are microseconds; ts 0 is the trace start, whose "
		"absolute time in ns is ts_zero_ns = origin_ns + ts_zero_ps / 1000");
	tc_jw_kv_int(&j, "origin_ns", m->origin_ns);
	tc_jw_kv_bool(&j, "origin_epoch", m->origin_epoch);
	tc_jw_kv_int(&j, "ts_zero_ps", sel->zero_ps);
	char buf[TC_FMT_LEN];
	tc_jw_key(&j, "ts_zero_ns");
	/* Exact decimal text: epoch ns with a fraction is too long for a double. */
	tc_jw_raw(&j, tc_fmt_abs_ns(buf, m->origin_ns, sel->zero_ps));
	tc_jw_key(&j, "sources");
	tc_jw_arr_begin(&j);
	for (size_t i = 0; i < m->n_sources; i++) {
		tc_jw_obj_begin(&j);
		tc_jw_kv_str(&j, "path", tc_model_str(m, m->sources[i].path));
		tc_jw_kv_str(&j, "format", tc_model_str(m, m->sources[i].format));
		tc_jw_obj_end(&j);
	}
	tc_jw_arr_end(&j);
	tc_jw_kv_uint(&j, "events_in_trace", m->ev.n);
	tc_jw_key(&j, "written");
	tc_jw_obj_begin(&j);
	tc_jw_kv_uint(&j, "slices", w->st->slices);
	tc_jw_kv_uint(&j, "instants", w->st->instants);
	tc_jw_kv_uint(&j, "counter_samples", w->st->samples);
	tc_jw_kv_uint(&j, "flows", w->st->flows);
	tc_jw_kv_uint(&j, "annotation_marks", w->st->marks);
	if (w->st->allocs) {
		tc_jw_kv_uint(&j, "allocator_records", w->st->allocs);
	}
	tc_jw_obj_end(&j);
	if (w->st->nonfinite_samples) {
		tc_jw_kv_uint(&j, "skipped_nonfinite_counter_samples", w->st->nonfinite_samples);
	}
	tc_jw_key(&j, "cuts");
	tc_jw_arr_begin(&j);
	for (size_t i = 0; i < sel->n_notes; i++) {
		const struct tc_selection_note *n = &sel->notes[i];
		tc_jw_obj_begin(&j);
		tc_jw_kv_str(&j, "rule", n->rule);
		tc_jw_kv_uint(&j, "dropped_events", n->dropped);
		if (n->lo_ps >= 0 && n->hi_ps >= 0) {
			tc_jw_key(&j, "window_us");
			tc_jw_arr_begin(&j);
			tc_jw_raw(&j, fmt_us(buf, n->lo_ps - sel->zero_ps));
			tc_jw_raw(&j, fmt_us(buf, n->hi_ps - sel->zero_ps));
			tc_jw_arr_end(&j);
		} else if (n->lo_ps >= 0) {
			tc_jw_key(&j, "threshold_us");
			tc_jw_raw(&j, fmt_us(buf, n->lo_ps));
		}
		tc_jw_obj_end(&j);
	}
	tc_jw_arr_end(&j);
	int64_t agg = 0;
	for (size_t i = 0; i < m->n_aggs; i++) {
		agg += m->aggs[i].count;
	}
	tc_jw_kv_int(&j, "aggregated_events", agg);
	if (m->n_aggs) {
		tc_jw_key(&j, "aggregated");
		tc_jw_arr_begin(&j);
		for (size_t i = 0; i < m->n_aggs; i++) {
			const struct tc_aggregate *a = &m->aggs[i];
			const struct tc_track *tr = &m->tracks[a->track];
			if (!tc_selection_device(sel, m, tr->device)) {
				continue;
			}
			tc_jw_obj_begin(&j);
			tc_jw_kv_str(&j, "name", tc_model_str(m, m->ops[a->op].name));
			tc_jw_kv_uint(&j, "pid", pid_of(m, tr->device));
			tc_jw_kv_uint(&j, "tid", w->plan.tid[a->track]);
			tc_jw_kv_str(&j, "track", tc_model_str(m, tr->name));
			tc_jw_kv_int(&j, "count", a->count);
			tc_jw_kv_int(&j, "dur_ps", a->dur_ps);
			tc_jw_obj_end(&j);
		}
		tc_jw_arr_end(&j);
	}
	if (w->ann && w->ann->missing) {
		tc_jw_kv_str(&j, "annotation_missing", w->ann->missing);
	}
	tc_jw_key(&j, "warnings");
	tc_jw_arr_begin(&j);
	for (size_t i = 0; i < m->n_warnings; i++) {
		tc_jw_obj_begin(&j);
		tc_jw_kv_str(&j, "message", tc_model_str(m, m->warnings[i].msg));
		tc_jw_kv_uint(&j, "count", m->warnings[i].count);
		tc_jw_obj_end(&j);
	}
	tc_jw_arr_end(&j);
	tc_jw_obj_end(&j);
}

void tc_write_chrome(FILE *f, const struct tc_model *m, const struct tc_chrome_opts *o,
		struct tc_chrome_stats *st) {
	memset(st, 0, sizeof(*st));
	struct writer w = {
		.f = f, .m = m, .sel = o->sel, .ann = o->ann, .st = st, .first = true,
	};
	w.o = tc_xmalloc(sizeof(*w.o));
	w.o->f = f;
	w.o->n = 0;
	tc_export_plan_init(&w.plan, m, w.sel, w.ann);
	tc_export_plan_allocs(&w.plan, m, w.sel);
	out_s(w.o, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	write_metadata(&w);
	/* Before the slices: a reader's origin is often the first ts it reads,
	 * and memory by op takes a record before the origin (negative ps) for
	 * a missing one (memview's -1 "never freed"). */
	write_allocs(&w);
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (!w.plan.track_used[t]) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (tc_selection_has(w.sel, i)) {
				write_event(&w, (uint32_t)t, i);
			}
		}
	}
	tc_export_samples(m, w.sel, write_sample, &w, &st->nonfinite_samples);
	tc_export_curve_samples(m, w.sel, &w.plan, write_curve_sample, &w);
	write_flows(&w);
	if (w.ann) {
		write_annotation(&w);
	}
	write_other(&w, o);
	fputs("}\n", f);
	free(w.o);
	tc_export_plan_finish(&w.plan);
	tc_export_args_finish(&w.args);
}
