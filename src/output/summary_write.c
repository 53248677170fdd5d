/* Text and JSON writers for `tracectl summarize` and `tracectl info`. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "model/peaks.h"
#include "model/rank.h"
#include "output/analysis_write.h"
#include "output/fmt.h"
#include "output/jsonw.h"
#include "output/memview_write.h"
#include "output/rank_write.h"
#include "output/summary_write.h"
#include "util/xalloc.h"
#include "output/table.h"
#include "util/term.h"

static const char *S(const struct tc_model *m, uint32_t id) {
	return tc_model_str(m, id);
}

/* Of more than LIST_MAX inputs or hosts (a job of many ranks), text lists
 * the first LIST_HEAD and the last: the devices table names every rank
 * and JSON lists them all. */
#define LIST_MAX 8
#define LIST_HEAD 3

static bool listed(size_t i, size_t n) {
	return n <= LIST_MAX || i < LIST_HEAD || i + 1 == n;
}

static void write_sources_text(FILE *f, const struct tc_model *m) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	for (size_t i = 0; i < m->n_sources; i++) {
		const struct tc_source *s = &m->sources[i];
		if (!listed(i, m->n_sources)) {
			if (i == LIST_HEAD) {
				double bytes = 0;
				for (size_t k = i; k + 1 < m->n_sources; k++) {
					bytes += (double)m->sources[k].file_size;
				}
				fprintf(f, "input      ... %zu more (%s)\n", m->n_sources - LIST_HEAD - 1,
					tc_fmt_bytes(b1, bytes));
			}
			continue;
		}
		tc_term_fprintf(f, "input      %s (%s, %s", S(m, s->path), S(m, s->format),
			tc_fmt_bytes(b1, (double)s->file_size));
		if (strcmp(S(m, s->compression), "none") != 0) {
			tc_term_fprintf(f, " %s, %s uncompressed", S(m, s->compression),
				tc_fmt_bytes(b2, (double)s->data_size));
		}
		if (s->writer) {
			tc_term_fprintf(f, ", %s", S(m, s->writer));
		}
		fprintf(f, ")\n");
	}
	if (m->n_hosts) {
		fprintf(f, "hosts      ");
		for (size_t i = 0; i < m->n_hosts; i++) {
			if (listed(i, m->n_hosts)) {
				tc_term_fprintf(f, "%s%s", i ? ", " : "", S(m, m->hosts[i].name));
			} else if (i == LIST_HEAD) {
				fprintf(f, ", ...");
			}
		}
		if (m->n_hosts > LIST_MAX) {
			fprintf(f, " (%zu hosts)", m->n_hosts);
		}
		fprintf(f, "\n");
	}
}

static void write_warnings_text(FILE *f, const struct tc_model *m) {
	if (!m->n_warnings) {
		return;
	}
	fprintf(f, "\nwarnings\n");
	for (size_t i = 0; i < m->n_warnings; i++) {
		if (m->warnings[i].count > 1) {
			char b[TC_FMT_LEN];
			tc_term_fprintf(f, "  %s (%s)\n", S(m, m->warnings[i].msg),
				tc_fmt_noun(b, m->warnings[i].count, "time", "times"));
		} else {
			tc_term_fprintf(f, "  %s\n", S(m, m->warnings[i].msg));
		}
	}
}

/* A counter value in its unit: bytes in binary units, the rest as a number. */
static char *counter_value(char *buf, const char *unit, double v) {
	if (strcmp(unit, "bytes") == 0) {
		return tc_fmt_bytes(buf, v);
	}
	snprintf(buf, TC_FMT_LEN, "%.6g", v);
	return buf;
}

static void write_counters_text(FILE *f, const struct tc_model *m, const struct tc_summary *s) {
	char b[6][TC_FMT_LEN];
	fprintf(f, "\ncounters (first and last sample from the trace start)\n");
	static const char *const h[] = {
		"counter", "unit", ">samples", ">min", ">max", ">mean", ">first", ">last",
	};
	struct tc_table t;
	tc_table_init(&t, 8, h);
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct tc_counter_summary *c = &s->counters[i];
		const struct tc_counter *ct = &m->counters[c->counter];
		const char *unit = S(m, ct->unit);
		if (ct->group) {
			tc_table_cellf(&t, "%s (%s)", S(m, ct->name), S(m, ct->group));
		} else {
			tc_table_cell(&t, S(m, ct->name));
		}
		tc_table_cell(&t, *unit ? unit : "-");
		tc_table_cell(&t, tc_fmt_count(b[0], c->samples));
		tc_table_cell(&t, counter_value(b[1], unit, c->min));
		tc_table_cell(&t, counter_value(b[2], unit, c->max));
		tc_table_cell(&t, counter_value(b[3], unit, c->mean));
		tc_table_cell(&t, tc_fmt_dur(b[4], c->first_ps - s->first_ps));
		tc_table_cell(&t, tc_fmt_dur(b[5], c->last_ps - s->first_ps));
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
}

static void write_threads_text(FILE *f, const struct tc_model *m, const struct tc_summary *s,
		size_t top) {
	char b[5][TC_FMT_LEN];
	/* --top 0: all, as for ops. */
	size_t n = top && top < s->n_threads ? top : s->n_threads;
	fprintf(f, "\nhost threads (busy = union of the thread's slices; span = first event to "
		"last event end)");
	if (n < s->n_threads) {
		fprintf(f, ", top %s of %s", tc_fmt_count(b[0], n), tc_fmt_count(b[1], s->n_threads));
	}
	fprintf(f, "\n");
	static const char *const h[] = {
		"thread", "process", ">events", ">busy", ">span", ">busy %",
	};
	struct tc_table t;
	tc_table_init(&t, 6, h);
	for (size_t i = 0; i < n; i++) {
		const struct tc_thread_summary *th = &s->threads[i];
		const struct tc_track *tr = &m->tracks[th->track];
		tc_table_cell(&t, S(m, tr->name));
		tc_table_cell(&t, tr->device < m->n_devices ? S(m, m->devices[tr->device].name) : "-");
		tc_table_cell(&t, tc_fmt_count(b[0], th->n_events));
		tc_table_cell(&t, tc_fmt_dur(b[1], th->busy_ps));
		tc_table_cell(&t, tc_fmt_dur(b[2], th->last_ps - th->first_ps));
		tc_table_cell(&t, tc_fmt_pct(b[3], (double)th->busy_ps,
			(double)(th->last_ps - th->first_ps)));
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
}

/* The marked steps as every analysis command has them; the markers' own
 * mean only where it differs (host markers end before their device work). */
static void write_steps_text(FILE *f, const struct tc_summary *s, const struct tc_analysis *a) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN];
	fprintf(f, "\nsteps      %s", tc_fmt_count(b1, s->n_steps));
	bool selected = a && a->n_steps_all > s->n_steps && a->n_steps == s->n_steps;
	if (selected) {
		fprintf(f, " of %s", tc_fmt_count(b1, a->n_steps_all));
	}
	fprintf(f, " marked (%s markers", s->steps_source);
	if (s->step_marker) {
		tc_term_fprintf(f, " matching --step-marker '%s'", s->step_marker);
	}
	fprintf(f, "%s): mean %s, min %s, max %s", selected ? "; --steps" : "",
		tc_fmt_dur(b1, s->steps_sum_ps / (int64_t)s->n_steps),
		tc_fmt_dur(b2, s->steps_min_ps), tc_fmt_dur(b3, s->steps_max_ps));
	if (a) {
		tc_write_startup_text(f, &a->startup);
	}
	fprintf(f, "\n");
	/* The analysis's steps are the same ones, with their markers' own
	 * durations (the summary's are aligned, as everywhere). */
	int64_t marker_sum = 0, sum = 0;
	for (size_t i = 0; a && a->n_steps == s->n_steps && i < a->n_steps; i++) {
		marker_sum += a->steps[i].marker_dur_ps;
		sum += a->steps[i].dur_ps;
	}
	if (marker_sum != sum) {
		fprintf(f, "           the markers alone: mean %s (a step ends no earlier than "
			"the device work it launched)\n",
			tc_fmt_dur(b1, marker_sum / (int64_t)s->n_steps));
	}
}

/*
 * Achieved FLOP/s where the trace gives the device ops' FLOPs: summed FLOPs
 * over summed device busy time, and model FLOPs utilisation = FLOPs over
 * the summed active span at the devices' peaks (the roofline's, so the
 * override, trace or data-sheet peak). *mfu < 0: no peak for every device.
 * False when no FLOPs are known.
 */
static bool achieved(const struct tc_summary *s, const struct tc_summary_opts *o, double *flops,
		double *rate, double *mfu, const char **peak_from) {
	*flops = 0;
	bool known = false;
	for (size_t i = 0; s->ops_scope && strcmp(s->ops_scope, "device") == 0 && i < s->n_ops; i++) {
		if (s->ops[i].flops > 0) {
			*flops += s->ops[i].flops;
			known = true;
		}
	}
	if (!known) {
		return false;
	}
	/* Each device's usage by its index: one pass, however many devices. */
	const struct tc_analysis *an = o->analysis;
	uint32_t top = 0;
	for (size_t k = 0; an && k < an->n_util; k++) {
		top = an->util[k].device > top ? an->util[k].device : top;
	}
	const struct tc_device_util **by_dev = tc_xcalloc((size_t)top + 1, sizeof(*by_dev));
	for (size_t k = 0; an && k < an->n_util; k++) {
		by_dev[an->util[k].device] = &an->util[k];
	}
	int64_t busy = 0;
	double peak_work = 0; /* peak FLOP/s x span, summed */
	bool peaks = an != NULL;
	*peak_from = NULL;
	for (size_t i = 0; i < s->n_devices; i++) {
		busy += s->devices[i].busy_ps;
		uint32_t d = s->devices[i].device;
		const struct tc_device_util *u = d <= top ? by_dev[d] : NULL;
		peaks &= u && u->peak_source && u->peak_flops > 0;
		if (peaks) {
			peak_work += u->peak_flops * (double)s->devices[i].span_ps * 1e-12;
			*peak_from = u->peak_source;
		}
	}
	free(by_dev);
	if (busy <= 0) {
		return false;
	}
	*rate = *flops / ((double)busy * 1e-12);
	*mfu = peaks && peak_work > 0 ? *flops / peak_work : -1;
	return true;
}

static void write_flops_text(FILE *f, const struct tc_summary *s,
		const struct tc_summary_opts *o) {
	double flops, rate, mfu;
	const char *from;
	if (!achieved(s, o, &flops, &rate, &mfu, &from)) {
		return;
	}
	char b[2][TC_FMT_LEN];
	fprintf(f, "flops      %s in device ops: %s achieved over device busy time",
		tc_fmt_rate(b[0], flops, "FLOP"), tc_fmt_rate(b[1], rate, "FLOP/s"));
	if (mfu >= 0) {
		fprintf(f, "; model FLOPs utilisation %.1f %% (over the active span, %s peak)",
			100 * mfu, from);
	}
	fprintf(f, "\n");
}

/* The span and the event count. */
static void write_span_text(FILE *f, const struct tc_summary *s) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	if (s->span_from_samples) {
		fprintf(f, "span       %s (first to last counter sample)\n",
			tc_fmt_dur(b1, s->last_ps - s->first_ps));
	} else if (s->n_events) {
		fprintf(f, "span       %s (first event to last event end)\n",
			tc_fmt_dur(b1, s->last_ps - s->first_ps));
	} else {
		fprintf(f, "span       none: no events or counter samples\n");
	}
	if (s->n_events) {
		fprintf(f, "events     %s", tc_fmt_count(b1, s->n_events));
	} else {
		fprintf(f, "events     none on the timeline");
	}
	if (s->n_aggregated) {
		fprintf(f, " (+%s aggregated, not on the timeline)", tc_fmt_count(b2, s->n_aggregated));
	}
	if (!s->n_events && s->n_counters) {
		uint64_t samples = 0;
		for (size_t i = 0; i < s->n_counters; i++) {
			samples += s->counters[i].samples;
		}
		fprintf(f, "; %s with %s", tc_fmt_noun(b1, s->n_counters, "counter", "counters"),
			tc_fmt_noun(b2, samples, "sample", "samples"));
	}
	fprintf(f, "\n");
}

/* The devices' table: busy, active span and idle time each. */
static void write_devices_text(FILE *f, const struct tc_model *m, const struct tc_summary *s,
		const struct tc_summary_opts *o) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN], b4[TC_FMT_LEN], b5[TC_FMT_LEN];
	fprintf(f, "\ndevices (busy = union of op/stream slices; idle = active span - busy)\n");
	static const char *const h[] = {
		">rank", "device", "kind", ">ops", ">busy", ">active span", ">idle", ">busy %",
	};
	/* A rank column only when the devices belong to several ranks. */
	bool ranks = tc_model_n_ranks(m) >= 2;
	struct tc_table t;
	tc_table_init(&t, ranks ? 8 : 7, ranks ? h : h + 1);
	for (size_t i = 0; i < s->n_devices; i++) {
		const struct tc_device_summary *d = &s->devices[i];
		const struct tc_device *dev = &m->devices[d->device];
		if (ranks) {
			tc_table_cell(&t, tc_write_rank(b1, m, d->device));
		}
		tc_table_cell(&t, S(m, dev->name));
		tc_table_cell(&t, tc_device_kind_name((enum tc_device_kind)dev->kind));
		tc_table_cell(&t, tc_fmt_count(b1, d->n_events));
		tc_table_cell(&t, tc_fmt_dur(b2, d->busy_ps));
		tc_table_cell(&t, tc_fmt_dur(b3, d->span_ps));
		tc_table_cell(&t, tc_fmt_dur(b4, d->span_ps - d->busy_ps));
		tc_table_cell(&t, tc_fmt_pct(b5, (double)d->busy_ps, (double)d->span_ps));
		if (2 * d->busy_ps < d->span_ps) {
			tc_table_style(&t, TC_STYLE_BAD); /* mostly idle */
		}
	}
	tc_table_elastic(&t, 0);
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
	write_flops_text(f, s, o);
}

/* The top ops' table, by total time. */
static void write_top_ops_text(FILE *f, const struct tc_model *m, const struct tc_summary *s,
		size_t top) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN], b4[TC_FMT_LEN], b5[TC_FMT_LEN];
	fprintf(f, "\ntop %s of %s by total time (%s; share of %s)\n", tc_fmt_count(b1, top),
		tc_fmt_noun(b2, s->n_ops, "op", "ops"),
		strcmp(s->ops_scope, "device") == 0 ? "device ops" :
		"host events, no device activity",
		strcmp(s->ops_scope, "device") == 0 ? "summed device busy time" :
		"summed self time");
	static const char *const h[] = {
		"op", "category", ">calls", ">total", ">mean", ">min", ">max", ">share",
	};
	struct tc_table t;
	tc_table_init(&t, 8, h);
	for (size_t i = 0; i < top; i++) {
		const struct tc_op_summary *r = &s->ops[i];
		tc_table_cell(&t, S(m, r->name));
		tc_table_cell(&t, r->category ? S(m, r->category) :
			tc_op_kind_name((enum tc_op_kind)r->kind));
		tc_table_cell(&t, tc_fmt_count(b1, r->count));
		tc_table_cell(&t, tc_fmt_dur(b2, r->total_ps));
		tc_table_cell(&t, tc_fmt_dur(b3, r->total_ps / (int64_t)r->count));
		tc_table_cell(&t, tc_fmt_dur(b4, r->min_ps));
		tc_table_cell(&t, tc_fmt_dur(b5, r->max_ps));
		tc_table_cell(&t, tc_fmt_pct(b1, (double)(strcmp(s->ops_scope, "device") == 0 ?
			r->total_ps : r->self_ps), (double)s->ops_busy_ps));
	}
	/* Under a width limit: the name shrinks, then min, max, mean go. */
	tc_table_elastic(&t, 0);
	tc_table_optional(&t, 5, 4);
	tc_table_optional(&t, 6, 3);
	tc_table_optional(&t, 4, 2);
	tc_table_optional(&t, 1, 1);
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
}

void tc_write_summary_text(FILE *f, const struct tc_model *m, const struct tc_summary *s,
		const struct tc_summary_opts *o) {
	write_sources_text(f, m);
	write_span_text(f, s);
	if (o->memory) {
		tc_write_memory_line(f, m, o->memory, s->first_ps);
	}
	if (o->analysis) {
		tc_write_runtime_text(f, &o->analysis->runtime);
	}
	if (!s->n_events) {
		/* Counters (or nothing) only: no devices, ops or steps to list. */
		if (s->n_counters) {
			write_counters_text(f, m, s);
		}
		if (o->analysis) {
			tc_write_analysis_section_text(f, m, o->analysis, o->findings);
		}
		write_warnings_text(f, m);
		return;
	}

	if (s->n_devices == 0) {
		fprintf(f, "\ndevices    none: no device activity in this trace\n");
		write_threads_text(f, m, s, o->top);
	} else {
		write_devices_text(f, m, s, o);
	}

	size_t top = o->top < s->n_ops ? o->top : s->n_ops;
	if (top) {
		write_top_ops_text(f, m, s, top);
	}

	if (s->n_steps) {
		write_steps_text(f, s, o->analysis);
	} else if (s->step_marker) {
		tc_term_fprintf(f, "\nsteps      none: no event matches --step-marker '%s'\n",
			s->step_marker);
	} else {
		fprintf(f, "\nsteps      none marked in the trace\n");
	}
	if (s->n_devices == 0 && s->n_counters) {
		write_counters_text(f, m, s);
	}
	if (o->analysis) {
		tc_write_analysis_section_text(f, m, o->analysis, o->findings);
	}
	write_warnings_text(f, m);
}

static void json_sources(struct tc_jw *w, const struct tc_model *m) {
	tc_jw_key(w, "inputs");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < m->n_sources; i++) {
		const struct tc_source *s = &m->sources[i];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "path", S(m, s->path));
		tc_jw_kv_str(w, "format", S(m, s->format));
		tc_jw_kv_str(w, "compression", S(m, s->compression));
		tc_jw_kv_uint(w, "file_bytes", s->file_size);
		tc_jw_kv_uint(w, "data_bytes", s->data_size);
		if (s->writer) {
			tc_jw_kv_str(w, "writer", S(m, s->writer));
		}
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_key(w, "hosts");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < m->n_hosts; i++) {
		tc_jw_str(w, S(m, m->hosts[i].name));
	}
	tc_jw_arr_end(w);
}

static void json_warnings(struct tc_jw *w, const struct tc_model *m) {
	tc_jw_key(w, "warnings");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < m->n_warnings; i++) {
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "message", S(m, m->warnings[i].msg));
		tc_jw_kv_uint(w, "count", m->warnings[i].count);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

/* key: the device's name, or null for none. */
static void json_device(struct tc_jw *w, const struct tc_model *m, const char *key, uint32_t d) {
	tc_jw_key(w, key);
	if (d < m->n_devices) {
		tc_jw_str(w, S(m, m->devices[d].name));
	} else {
		tc_jw_null(w);
	}
}

static void json_counters(struct tc_jw *w, const struct tc_model *m, const struct tc_summary *s) {
	tc_jw_key(w, "counters");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct tc_counter_summary *c = &s->counters[i];
		const struct tc_counter *ct = &m->counters[c->counter];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "name", S(m, ct->name));
		if (ct->group) {
			tc_jw_kv_str(w, "group", S(m, ct->group));
		}
		if (*S(m, ct->unit)) {
			tc_jw_kv_str(w, "unit", S(m, ct->unit));
		}
		json_device(w, m, "device", ct->device);
		tc_jw_kv_uint(w, "samples", c->samples);
		tc_jw_kv_double(w, "min", c->min);
		tc_jw_kv_double(w, "max", c->max);
		tc_jw_kv_double(w, "mean", c->mean);
		tc_jw_kv_int(w, "first_ps", c->first_ps - s->first_ps);
		tc_jw_kv_int(w, "last_ps", c->last_ps - s->first_ps);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

/* Only for a trace without device activity, the top ones as the text. */
static void json_threads(struct tc_jw *w, const struct tc_model *m, const struct tc_summary *s,
		size_t top) {
	if (!s->n_threads) {
		return;
	}
	tc_jw_kv_uint(w, "host_threads_total", s->n_threads);
	tc_jw_key(w, "host_threads");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < s->n_threads && (!top || i < top); i++) {
		const struct tc_thread_summary *th = &s->threads[i];
		const struct tc_track *tr = &m->tracks[th->track];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "name", S(m, tr->name));
		json_device(w, m, "process", tr->device);
		tc_jw_kv_uint(w, "events", th->n_events);
		tc_jw_kv_int(w, "first_ps", th->first_ps - s->first_ps);
		tc_jw_kv_int(w, "last_ps", th->last_ps - s->first_ps);
		tc_jw_kv_int(w, "busy_ps", th->busy_ps);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}

void tc_write_summary_json(FILE *f, const struct tc_model *m, const struct tc_summary *s,
		const struct tc_summary_opts *o) {
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_SUMMARY_SCHEMA);
	json_sources(&w, m);
	tc_jw_kv_int(&w, "span_ps", s->last_ps - s->first_ps);
	tc_jw_kv_uint(&w, "events", s->n_events);
	tc_jw_kv_uint(&w, "aggregated_events", s->n_aggregated);
	if (o->memory) {
		tc_write_memory_line_json(&w, m, o->memory, s->first_ps);
	}
	if (o->analysis) {
		tc_write_runtime_json(&w, &o->analysis->runtime);
	}
	tc_jw_key(&w, "devices");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < s->n_devices; i++) {
		const struct tc_device_summary *d = &s->devices[i];
		const struct tc_device *dev = &m->devices[d->device];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", S(m, dev->name));
		tc_jw_kv_str(&w, "kind", tc_device_kind_name((enum tc_device_kind)dev->kind));
		tc_write_device_identity_json(&w, m, d->device);
		tc_jw_kv_uint(&w, "ops", d->n_events);
		tc_jw_kv_uint(&w, "tracks", d->n_tracks);
		/* From the trace start, as the text's times (s->first_ps). */
		tc_jw_kv_int(&w, "first_ps", d->first_ps - s->first_ps);
		tc_jw_kv_int(&w, "last_ps", d->last_ps - s->first_ps);
		tc_jw_kv_int(&w, "busy_ps", d->busy_ps);
		tc_jw_kv_int(&w, "idle_ps", d->span_ps - d->busy_ps);
		tc_jw_kv_int(&w, "computation_ps", d->computation_ps);
		tc_jw_kv_double(&w, "busy_fraction", d->span_ps ? (double)d->busy_ps / (double)d->span_ps : 0);
		if (dev->peak_flops > 0) {
			tc_jw_kv_double(&w, "peak_flops_per_s", dev->peak_flops);
		}
		if (dev->peak_bw > 0) {
			tc_jw_kv_double(&w, "peak_bytes_per_s", dev->peak_bw);
		}
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	double flops, rate, mfu;
	const char *from;
	if (achieved(s, o, &flops, &rate, &mfu, &from)) {
		tc_jw_kv_double(&w, "flops", flops);
		tc_jw_kv_double(&w, "achieved_flops_per_s", rate);
		if (mfu >= 0) {
			tc_jw_kv_double(&w, "mfu", mfu);
			tc_jw_kv_str(&w, "mfu_peak_source", from);
		}
	}
	tc_jw_kv_str(&w, "ops_scope", s->ops_scope);
	tc_jw_kv_uint(&w, "ops_total", s->n_ops);
	tc_jw_key(&w, "ops");
	tc_jw_arr_begin(&w);
	size_t top = o->top < s->n_ops ? o->top : s->n_ops;
	for (size_t i = 0; i < top; i++) {
		const struct tc_op_summary *r = &s->ops[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", S(m, r->name));
		tc_jw_kv_str(&w, "category", S(m, r->category));
		tc_jw_kv_str(&w, "kind", tc_op_kind_name((enum tc_op_kind)r->kind));
		tc_jw_kv_uint(&w, "calls", r->count);
		tc_jw_kv_int(&w, "total_ps", r->total_ps);
		tc_jw_kv_int(&w, "self_ps", r->self_ps);
		tc_jw_kv_int(&w, "min_ps", r->min_ps);
		tc_jw_kv_int(&w, "max_ps", r->max_ps);
		tc_jw_key(&w, "share");
		tc_jw_double(&w, s->ops_busy_ps ? (double)(strcmp(s->ops_scope, "device") == 0 ?
			r->total_ps : r->self_ps) / (double)s->ops_busy_ps : 0);
		if (r->flops >= 0) {
			tc_jw_kv_double(&w, "flops", r->flops);
		}
		if (r->bytes >= 0) {
			tc_jw_kv_double(&w, "bytes_accessed", r->bytes);
		}
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "steps_source");
	if (s->steps_source) {
		tc_jw_str(&w, s->steps_source);
	} else {
		tc_jw_null(&w);
	}
	if (s->step_marker) {
		tc_jw_kv_str(&w, "step_marker", s->step_marker);
	}
	tc_jw_key(&w, "steps");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < s->n_steps; i++) {
		tc_jw_obj_begin(&w);
		tc_jw_kv_int(&w, "num", s->steps[i].num);
		tc_jw_kv_str(&w, "name", S(m, s->steps[i].name));
		tc_jw_kv_int(&w, "start_ps", s->steps[i].start_ps - s->first_ps);
		tc_jw_kv_int(&w, "dur_ps", s->steps[i].dur_ps);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	if (o->analysis) {
		tc_write_startup_json(&w, &o->analysis->startup);
	}
	json_counters(&w, m, s);
	json_threads(&w, m, s, o->top);
	if (o->analysis) {
		tc_write_analysis_section_json(&w, m, o->analysis, o->findings);
	}
	json_warnings(&w, m);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}

/*
 * A track's source id as text. Negative ids are unsigned ones stored in a
 * signed field (XProf's derived lines count down from 0xdeadbeef, Kineto
 * writes 32-bit thread ids as int32): shown as the hex pattern they stand
 * for, which the name (or a hex-reading user) can still match.
 */
static const char *track_id(char *buf, int64_t id) {
	if (id >= 0) {
		snprintf(buf, TC_FMT_LEN, "%" PRId64, id);
	} else if (id >= INT32_MIN) {
		snprintf(buf, TC_FMT_LEN, "0x%08" PRIx32, (uint32_t)id);
	} else {
		snprintf(buf, TC_FMT_LEN, "0x%016" PRIx64, (uint64_t)id);
	}
	return buf;
}

void tc_write_info_text(FILE *f, const struct tc_model *m) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN];
	write_sources_text(f, m);
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	fprintf(f, "origin     %" PRId64 " ns%s\n", m->origin_ns,
		m->origin_epoch ? " (Unix epoch)" : "");
	if (!m->ev.n && m->samples.n) {
		/* Counters only: the samples span the time the events do not. */
		int64_t slo = INT64_MAX, shi = INT64_MIN;
		for (size_t i = 0; i < m->samples.n; i++) {
			slo = m->samples.ts[i] < slo ? m->samples.ts[i] : slo;
			shi = m->samples.ts[i] > shi ? m->samples.ts[i] : shi;
		}
		fprintf(f, "span       %s (first to last counter sample)\n", tc_fmt_dur(b1, shi - slo));
	} else {
		fprintf(f, "span       %s\n", tc_fmt_dur(b1, hi - lo));
	}
	char b4[TC_FMT_LEN], b5[TC_FMT_LEN], b6[TC_FMT_LEN], b7[TC_FMT_LEN], b8[TC_FMT_LEN];
	fprintf(f, "events     %s on %s, %s; %s, %s (%s), %s, %s\n",
		tc_fmt_count(b1, m->ev.n), tc_fmt_noun(b4, m->n_tracks, "track", "tracks"),
		tc_fmt_noun(b7, m->n_devices, "device", "devices"),
		tc_fmt_noun(b5, m->n_ops, "op", "ops"),
		tc_fmt_noun(b8, m->n_counters, "counter", "counters"),
		tc_fmt_noun(b2, m->samples.n, "sample", "samples"),
		tc_fmt_noun(b6, m->n_flows, "flow", "flows"),
		tc_fmt_noun(b3, m->n_aggs, "aggregate", "aggregates"));
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	bool ranks = tc_model_n_ranks(m) >= 2;
	for (size_t d = 0; d < m->n_devices; d++) {
		const struct tc_device *dev = &m->devices[d];
		tc_term_fprintf(f, "\ndevice %s (", S(m, dev->name));
		if (ranks && tc_model_device_rank(m, (uint32_t)d) >= 0) {
			fprintf(f, "rank %d, ", tc_model_device_rank(m, (uint32_t)d));
		}
		if (ranks && dev->pid >= 0) {
			fprintf(f, "pid %lld, ", (long long)dev->pid);
		}
		fprintf(f, "%s", tc_device_kind_name((enum tc_device_kind)dev->kind));
		if (dev->model) {
			tc_term_fprintf(f, ", %s", S(m, dev->model));
		}
		if (dev->peak_flops > 0) {
			fprintf(f, ", peak %s", tc_fmt_rate(b1, dev->peak_flops, "FLOP/s"));
		}
		if (dev->peak_bw > 0) {
			fprintf(f, ", %s", tc_fmt_rate(b1, dev->peak_bw, "B/s"));
		}
		if (dev->memory_bytes > 0) {
			fprintf(f, ", %s memory", tc_fmt_bytes(b1, (double)dev->memory_bytes));
		}
		fprintf(f, ")\n");
		const struct tc_peak_row *ds = tc_peaks_of_device(m, (uint32_t)d);
		if (ds) {
			/* Where a roofline without trace peaks takes them from. */
			fprintf(f, "  data sheet: %s, bf16 %s, fp32 %s, %s (%s)\n", ds->part,
				tc_fmt_rate(b1, ds->flops[TC_PEAK_BF16], "FLOP/s"),
				tc_fmt_rate(b2, ds->flops[TC_PEAK_FP32], "FLOP/s"),
				tc_fmt_rate(b3, ds->bw, "B/s"), ds->source);
		}
		static const char *const h[] = { "track", "kind", ">id", ">events", ">depth", ">span" };
		struct tc_table t;
		tc_table_init(&t, 6, h);
		size_t rows;
		const uint32_t *dtr = tc_device_tracks_of(&dt, m, d, &rows);
		for (size_t k = 0; k < rows; k++) {
			const struct tc_track *tr = &m->tracks[dtr[k]];
			tc_table_cell(&t, S(m, tr->name));
			tc_table_cell(&t, tc_track_kind_name((enum tc_track_kind)tr->kind));
			tc_table_cell(&t, track_id(b3, tr->src_id));
			tc_table_cell(&t, tc_fmt_count(b2, tr->count));
			tc_table_cellf(&t, "%u", tr->count ? tr->max_depth + 1u : 0u);
			if (tr->count) {
				tc_table_cell(&t, tc_fmt_dur(b3, tr->end - m->ev.start[tr->first]));
			} else {
				tc_table_cell(&t, "-");
			}
		}
		if (rows) {
			tc_table_elastic(&t, 0);
			tc_table_print(&t, f, "  ");
		} else {
			fprintf(f, "  (no tracks)\n");
		}
		tc_table_finish(&t);
	}
	tc_device_tracks_finish(&dt);
	if (m->n_counters) {
		fprintf(f, "\ncounters\n");
		for (size_t c = 0; c < m->n_counters; c++) {
			const struct tc_counter *ct = &m->counters[c];
			/* No "[]" for a counter without a unit. */
			const char *unit = S(m, ct->unit);
			tc_term_fprintf(f, "  %s%s%s%s%s%s%s: %s\n", S(m, ct->name),
				ct->group ? " (" : "", S(m, ct->group), ct->group ? ")" : "",
				*unit ? " [" : "", unit, *unit ? "]" : "",
				tc_fmt_noun(b1, ct->count, "sample", "samples"));
		}
	}
	write_warnings_text(f, m);
}

void tc_write_info_json(FILE *f, const struct tc_model *m) {
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_INFO_SCHEMA);
	json_sources(&w, m);
	tc_jw_kv_int(&w, "origin_ns", m->origin_ns);
	tc_jw_kv_bool(&w, "origin_epoch", m->origin_epoch);
	/* Exact decimal text: epoch ns with a fraction is too long for a double. */
	int64_t lo, hi;
	tc_model_span(m, &lo, &hi);
	char buf[TC_FMT_LEN];
	tc_jw_key(&w, "start_ns");
	tc_jw_raw(&w, tc_fmt_abs_ns(buf, m->origin_ns, lo));
	tc_jw_kv_uint(&w, "events", m->ev.n);
	tc_jw_key(&w, "devices");
	tc_jw_arr_begin(&w);
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	for (size_t d = 0; d < m->n_devices; d++) {
		const struct tc_device *dev = &m->devices[d];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", S(m, dev->name));
		tc_jw_kv_str(&w, "kind", tc_device_kind_name((enum tc_device_kind)dev->kind));
		const struct tc_peak_row *ds = tc_peaks_of_device(m, (uint32_t)d);
		if (ds) {
			tc_jw_key(&w, "datasheet");
			tc_jw_obj_begin(&w);
			tc_jw_kv_str(&w, "part", ds->part);
			tc_jw_kv_str(&w, "source", ds->source);
			for (int t = 0; t < TC_PEAK_DTYPES; t++) {
				char key[32];
				snprintf(key, sizeof(key), "%s_flops_per_s",
					tc_peak_dtype_name((enum tc_peak_dtype)t));
				tc_jw_kv_double(&w, key, ds->flops[t]);
			}
			tc_jw_kv_double(&w, "bytes_per_s", ds->bw);
			tc_jw_obj_end(&w);
		}
		tc_write_device_identity_json(&w, m, (uint32_t)d);
		tc_jw_key(&w, "tracks");
		tc_jw_arr_begin(&w);
		size_t nt;
		const uint32_t *dtr = tc_device_tracks_of(&dt, m, d, &nt);
		for (size_t k = 0; k < nt; k++) {
			const struct tc_track *tr = &m->tracks[dtr[k]];
			tc_jw_obj_begin(&w);
			tc_jw_kv_str(&w, "name", S(m, tr->name));
			tc_jw_kv_str(&w, "kind", tc_track_kind_name((enum tc_track_kind)tr->kind));
			tc_jw_kv_int(&w, "id", tr->src_id);
			tc_jw_kv_uint(&w, "events", tr->count);
			tc_jw_obj_end(&w);
		}
		tc_jw_arr_end(&w);
		tc_jw_obj_end(&w);
	}
	tc_device_tracks_finish(&dt);
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "counters");
	tc_jw_arr_begin(&w);
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ct = &m->counters[c];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", S(m, ct->name));
		tc_jw_kv_str(&w, "group", S(m, ct->group));
		tc_jw_kv_str(&w, "unit", S(m, ct->unit));
		tc_jw_kv_uint(&w, "samples", ct->count);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_kv_uint(&w, "flows", m->n_flows);
	tc_jw_kv_uint(&w, "aggregates", m->n_aggs);
	json_warnings(&w, m);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}
