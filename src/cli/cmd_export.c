/*
 * `tracectl export`: traces rewritten as Chrome JSON or native Perfetto,
 * cut by --steps, --window, --device and the other rules, optionally
 * gzipped and annotated with the findings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/annotate.h"
#include "analysis/cut.h"
#include "cli/cli.h"
#include "config.h"
#include "model/annotation.h"
#include "model/selection.h"
#include "output/chrome_write.h"
#include "output/fmt.h"
#include "output/perfetto_write.h"
#include "util/gzout.h"
#include "util/xalloc.h"

enum {
	OPT_CHROME = TC_OPT_FIRST_COMMAND_SPECIFIC,
	OPT_PERFETTO,
	OPT_GZIP,
	OPT_STEPS,
	OPT_WINDOW,
	OPT_DEVICE,
	OPT_MIN_DUR,
	OPT_TOP_OPS,
	OPT_MAX_EVENTS,
	OPT_ANNOTATE,
};

static const struct tc_option options[] = {
	{ "chrome", 0, NULL, "Chrome Trace Event JSON",
		"Write Chrome Trace Event JSON (exact times).", OPT_CHROME },
	{ "perfetto", 0, NULL, "Perfetto protobuf (smaller, faster to load)",
		"Write a native Perfetto protobuf trace (TracePacket/TrackEvent with "
		"interned names; times in whole ns): about a third of the JSON's size "
		"and faster to load.", OPT_PERFETTO },
	{ "output", 'o', "FILE", "write to FILE atomically; '-' = stdout; a name ending in "
		".gz is gzip-compressed",
		"Write to _FILE_ through a temporary file renamed into place (see "
		"OUTPUT); *-* is standard output. A name ending in *.gz* is "
		"gzip-compressed. Required.", 'o' },
	{ "gzip", 0, NULL, "gzip-compress whatever the name", NULL, OPT_GZIP },
	{ "steps", 0, "A:B", "keep the time from step A's start to step B's end (A, A:, :B "
		"also work)",
		"Keep the time from the start of step _A_ to the end of step _B_, the "
		"steps *tracectl steps* shows (host markers end no earlier than the "
		"device work they launched; _A_, _A_:, :_B_ also work).", OPT_STEPS },
	TC_CLI_STEP_MARKER_OPTION,
	{ "window", 0, "T0:T1", "keep T0..T1 from the trace start (units ns, us, ms, s: "
		"1.5ms:20ms; either side may be empty)",
		"Keep _T0_ to _T1_ from the trace start (units ns, us, ms, s: "
		"1.5ms:20ms; either side may be empty).", OPT_WINDOW },
	{ "device", 0, "NAME", "keep the device named NAME, else every device whose name "
		"contains it, any case (repeatable)",
		"Keep the device named _NAME_, else every device whose name contains "
		"it, in any case (repeatable).", OPT_DEVICE },
	{ "min-dur", 0, "DUR", "drop events shorter than DUR (e.g. 10us)", NULL, OPT_MIN_DUR },
	{ "top-ops", 0, "N", "keep the N ops with the most device time, with their "
		"enclosing events and launches (0 = all)", NULL, OPT_TOP_OPS },
	{ "max-events", 0, "N", "write at most N slices and instants, the longest first "
		"(with their parents); the rest is dropped and reported (counter samples are "
		"not counted)",
		"Write at most _N_ slices and instants, the longest first, with their "
		"parents; the rest is dropped and reported (counter samples are not "
		"counted). Here it caps the output, not the input.", OPT_MAX_EVENTS },
	{ "annotate", 0, NULL, "add the bottleneck analysis: a steps track with each step's "
		"time breakdown, a findings track, per-step breakdown and device busy counters",
		"Add the bottleneck analysis as tracks: a steps track with each step's "
		"time breakdown, a findings track, and per-step breakdown and device "
		"busy counters.", OPT_ANNOTATE },
	{ 0 },
};

const struct tc_cli_spec tc_export_spec = {
	.name = "export",
	.usage = "--chrome|--perfetto [OPTIONS] TRACE... -o OUT",
	.about =
		"Rewrite traces as Chrome Trace Event JSON for Perfetto UI\n"
		"(ui.perfetto.dev) or chrome://tracing, or as a native Perfetto trace,\n"
		"optionally cut down to what you need. Devices become processes, tracks\n"
		"threads; JSON times are exact, Perfetto times whole ns.\n",
	.options = options,
	/* No output group: it writes one format, to -o (its own). */
	.groups = (const struct tc_option_group *const[]){ &tc_cli_input_group, NULL },
	.epilogue =
		"Cuts keep or drop whole events (never clipped), in the order steps,\n"
		"window, device, min-dur, top-ops, max-events; every cut is listed on\n"
		"stderr and, in JSON, in otherData.cuts.\n",
};

/* chrome://tracing's practical limits (trace-json reference, section 9). */
#define VIEWER_EVENTS 1500000
#define VIEWER_BYTES (256ull << 20)

struct export_opts {
	bool chrome, perfetto, gzip, annotate;
	const char *steps, *window, *min_dur, *top_ops, *max_events;
	const char *step_marker; /* --step-marker for --steps and --annotate */
	const char **devices;
	size_t n_devices;
};

/* "1.5ms" -> picoseconds, exactly (decimal text, no floating point). A bare
 * 0 needs no unit. */
static bool parse_dur(const char *s, int64_t *out) {
	static const struct {
		const char *unit;
		int64_t ps;
		int digits; /* fraction digits a ps can hold */
	} units[] = {
		{ "ps", 1, 0 }, { "ns", 1000, 3 }, { "us", 1000000, 6 },
		{ "ms", 1000000000, 9 }, { "s", 1000000000000, 12 },
	};
	const char *p = s;
	int64_t ip = 0;
	if (*p < '0' || *p > '9') {
		return false;
	}
	while (*p >= '0' && *p <= '9') {
		if (ip > (INT64_MAX - 9) / 10) {
			return false;
		}
		ip = ip * 10 + (*p++ - '0');
	}
	const char *frac = NULL;
	size_t nfrac = 0;
	if (*p == '.') {
		frac = ++p;
		while (*p >= '0' && *p <= '9') {
			p++;
		}
		nfrac = (size_t)(p - frac);
		if (nfrac == 0) {
			return false;
		}
	}
	if (*p == '\0') {
		if (ip == 0 && (!frac || strspn(frac, "0") == nfrac)) {
			*out = 0;
			return true;
		}
		return false;
	}
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (strcmp(p, units[u].unit) != 0) {
			continue;
		}
		if (ip > INT64_MAX / units[u].ps) {
			return false;
		}
		int64_t v = ip * units[u].ps, scale = units[u].ps;
		for (size_t k = 0; k < nfrac; k++) {
			scale /= 10;
			if (scale == 0) {
				break; /* below a picosecond: ignored */
			}
			v += (frac[k] - '0') * scale;
		}
		if (v < 0) {
			return false;
		}
		*out = v;
		return true;
	}
	return false;
}

/* "T0:T1", "T0:", ":T1" durations into [lo, hi] (open ends INT64_MIN/MAX). */
static bool parse_window(const char *s, int64_t *lo, int64_t *hi) {
	const char *colon = strchr(s, ':');
	char a[64];
	if (!colon || (size_t)(colon - s) >= sizeof(a) || (colon == s && !colon[1])) {
		return false;
	}
	memcpy(a, s, (size_t)(colon - s));
	a[colon - s] = '\0';
	*lo = INT64_MIN;
	*hi = INT64_MAX;
	return (!*a || parse_dur(a, lo)) && (!colon[1] || parse_dur(colon + 1, hi)) &&
		*lo <= *hi;
}

static bool ends_with(const char *s, const char *suffix) {
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Apply the cuts in their documented order; prints and returns the exit
 * code on a bad request. */
static int cut(const struct tc_model *m, const struct export_opts *e,
		struct tc_selection *sel) {
	struct tc_error err;
	tc_error_init(&err);
	char rule[160];
	int64_t lo, hi;
	if (e->steps) {
		/* The same step-range syntax as the analysis commands. */
		struct tc_analysis_opts ao;
		tc_analysis_opts_init(&ao);
		tc_analysis_opts_steps(&ao, e->steps, &err);
		if (e->step_marker) {
			snprintf(rule, sizeof(rule), "--steps %s --step-marker '%s'", e->steps,
				e->step_marker);
		} else {
			snprintf(rule, sizeof(rule), "--steps %s", e->steps);
		}
		if (!tc_cut_steps_marked(m, sel, e->step_marker, ao.step_first, ao.step_last,
				rule, &err)) {
			return tc_cli_error(&err);
		}
	}
	if (e->window) {
		snprintf(rule, sizeof(rule), "--window %s", e->window);
		parse_window(e->window, &lo, &hi);
		/* Relative to the trace start; saturate open ends. */
		lo = lo == INT64_MIN ? sel->zero_ps : sel->zero_ps + lo;
		hi = hi > sel->end_ps - sel->zero_ps ? sel->end_ps : sel->zero_ps + hi;
		tc_cut_window(m, sel, lo, hi, rule);
	}
	if (e->n_devices) {
		size_t len = 0;
		len += (size_t)snprintf(rule, sizeof(rule), "--device");
		for (size_t i = 0; i < e->n_devices && len < sizeof(rule); i++) {
			len += (size_t)snprintf(rule + len, sizeof(rule) - len, " %s", e->devices[i]);
		}
		if (!tc_cut_devices(m, sel, e->devices, e->n_devices, rule, &err)) {
			return tc_cli_error(&err);
		}
	}
	if (e->min_dur) {
		snprintf(rule, sizeof(rule), "--min-dur %s", e->min_dur);
		parse_dur(e->min_dur, &lo);
		tc_cut_min_dur(m, sel, lo, rule);
	}
	/* 0 = all, as for every --top: no cut. */
	if (e->top_ops && strtoull(e->top_ops, NULL, 10) != 0) {
		snprintf(rule, sizeof(rule), "--top-ops %s", e->top_ops);
		tc_cut_top_ops(m, sel, (size_t)strtoull(e->top_ops, NULL, 10), rule);
	}
	if (e->max_events) {
		uint64_t n;
		tc_cli_parse_size(e->max_events, &n);
		snprintf(rule, sizeof(rule), "--max-events %s", e->max_events);
		tc_cut_max_events(m, sel, (size_t)n, rule);
	}
	return TC_EXIT_OK;
}

static void print_notes(const struct tc_selection *sel) {
	char a[TC_FMT_LEN], b[TC_FMT_LEN], c[TC_FMT_LEN];
	for (size_t i = 0; i < sel->n_notes; i++) {
		const struct tc_selection_note *n = &sel->notes[i];
		tc_term_fprintf(stderr, "tracectl: %s: dropped %s", n->rule,
			tc_fmt_noun(c, n->dropped, "event", "events"));
		if (n->lo_ps >= 0 && n->hi_ps >= 0) {
			fprintf(stderr, " outside %s .. %s from the trace start",
				tc_fmt_dur(a, n->lo_ps - sel->zero_ps),
				tc_fmt_dur(b, n->hi_ps - sel->zero_ps));
		} else if (n->lo_ps >= 0 && strncmp(n->rule, "--max-events", 12) == 0) {
			fprintf(stderr, " (the shortest; events kept are at least %s long,"
				" with their parents)", tc_fmt_dur(a, n->lo_ps));
		}
		fputc('\n', stderr);
	}
}

static int validate(const struct export_opts *e) {
	int64_t lo, hi;
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	if (!e->chrome && !e->perfetto) {
		return tc_cli_usage_error("export", "choose an output format: --chrome or --perfetto");
	}
	if (e->chrome && e->perfetto) {
		return tc_cli_usage_error("export", "--chrome and --perfetto cannot be combined");
	}
	if (e->steps && !tc_analysis_opts_steps(&ao, e->steps, NULL)) {
		return tc_cli_usage_error("export", "invalid --steps '%s' (use A:B, A, A: or :B)",
			e->steps);
	}
	struct tc_error err;
	tc_error_init(&err);
	if (e->step_marker && !tc_analysis_opts_step_marker(&ao, e->step_marker, &err)) {
		return tc_cli_usage_error("export", "%s", err.msg);
	}
	if (e->window && !parse_window(e->window, &lo, &hi)) {
		return tc_cli_usage_error("export",
			"invalid --window '%s' (use T0:T1 with units ns, us, ms or s)", e->window);
	}
	if (e->min_dur && !parse_dur(e->min_dur, &lo)) {
		return tc_cli_usage_error("export",
			"invalid --min-dur '%s' (use a duration such as 10us)", e->min_dur);
	}
	uint64_t n;
	if (e->top_ops && (!tc_cli_parse_size(e->top_ops, &n) ||
			strspn(e->top_ops, "0123456789") != strlen(e->top_ops))) {
		return tc_cli_usage_error("export", "invalid --top-ops '%s'", e->top_ops);
	}
	if (e->max_events && (!tc_cli_parse_size(e->max_events, &n) || n == 0)) {
		return tc_cli_usage_error("export", "invalid --max-events '%s'", e->max_events);
	}
	return TC_EXIT_OK;
}

/* Write to the opened output (gzip when asked or named .gz); commits it. */
static int write_output(const struct tc_cli_common *c, const struct export_opts *e,
		struct tc_outfile *out, const struct tc_model *m,
		const struct tc_chrome_opts *co, struct tc_chrome_stats *st, uint64_t *bytes) {
	struct tc_error err;
	tc_error_init(&err);
	bool gzip = e->gzip || ends_with(c->output, ".gz");
	FILE *f = out->fp;
	struct tc_gzout *gz = NULL;
	if (gzip) {
		/* Errors name the target, as the plain path's do. */
		gz = tc_gzout_open(out->fp, strcmp(c->output, "-") == 0 ? NULL : c->output,
			TC_GZOUT_FAST, &err);
		if (!gz) {
			tc_outfile_abort(out);
			return tc_cli_error(&err);
		}
		f = tc_gzout_file(gz);
	}
	/* A large stdio buffer (static: stdout may still use it at exit). */
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	off_t pos0 = gz ? 0 : ftello(f); /* stdout may append to a file */
	if (e->perfetto) {
		tc_write_perfetto(f, m, co, st);
	} else {
		tc_write_chrome(f, m, co, st);
	}
	*bytes = 0;
	if (gz) {
		if (!tc_gzout_close(gz, bytes, NULL, &err)) {
			tc_outfile_abort(out);
			return tc_cli_error(&err);
		}
	} else {
		/* A pipe has no position: its size stays unknown (0). */
		fflush(f);
		off_t pos = ftello(f);
		*bytes = pos0 >= 0 && pos > pos0 ? (uint64_t)(pos - pos0) : 0;
	}
	return tc_cli_close_output(out);
}

/* Reads export's options into c and e. False when the command ends here
 * (--help, or a usage error) with *code its exit status. */
static bool parse_args(struct tc_cli_common *c, struct export_opts *e,
		int argc, char **argv, int *code) {
	int opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_export_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		if (tc_cli_common_opt(c, opt, arg, code)) {
			if (*code) {
				return false;
			}
			continue;
		}
		switch (opt) {
		case OPT_CHROME:
			e->chrome = true;
			break;
		case OPT_PERFETTO:
			e->perfetto = true;
			break;
		case OPT_GZIP:
			e->gzip = true;
			break;
		case OPT_STEPS:
			e->steps = arg;
			break;
		case OPT_WINDOW:
			e->window = arg;
			break;
		case OPT_DEVICE:
			e->devices[e->n_devices++] = arg;
			break;
		case OPT_MIN_DUR:
			e->min_dur = arg;
			break;
		case OPT_TOP_OPS:
			e->top_ops = arg;
			break;
		case OPT_MAX_EVENTS:
			e->max_events = arg;
			break;
		case OPT_ANNOTATE:
			e->annotate = true;
			break;
		case TC_OPT_STEP_MARKER:
			e->step_marker = arg;
			break;
		}
	}
	if (opt < 0) {
		*code = p.code;
		return false;
	}
	if ((*code = validate(e)) != TC_EXIT_OK) {
		return false;
	}
	if (optind >= argc) {
		*code = tc_cli_usage_error("export", "no TRACE given");
		return false;
	}
	if (!c->output) {
		*code = tc_cli_usage_error("export", "no output given (use -o FILE, or -o - for stdout)");
		return false;
	}
	return true;
}

/* A Chrome file past what chrome://tracing opens gets a pointer to where it
 * does open, or to the cuts that make it smaller. */
static void note_viewer_limits(const struct tc_chrome_stats *st, uint64_t bytes) {
	uint64_t events = st->slices + st->instants + st->samples + 2 * st->flows + st->marks;
	if (events > VIEWER_EVENTS || bytes > VIEWER_BYTES) {
		char a[TC_FMT_LEN], b[TC_FMT_LEN + 16] = "";
		if (bytes) {
			char z[TC_FMT_LEN];
			snprintf(b, sizeof(b), " (%s of JSON)", tc_fmt_bytes(z, (double)bytes));
		}
		fprintf(stderr, "tracectl: note: wrote %s events%s; chrome://tracing "
			"manages about 1.5 M events or 256 MiB: open it in ui.perfetto.dev, or cut "
			"with --steps, --window, --device or --max-events\n",
			tc_fmt_count(a, events), b);
	}
}

int tc_cmd_export(int argc, char **argv) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "export");
	c.output = NULL;
	c.data = true;
	c.ingest.known_args_only = false; /* it writes every arg */
	struct export_opts e = { 0 };
	e.devices = tc_xcalloc((size_t)argc, sizeof(*e.devices));
	int code = TC_EXIT_OK;
	if (!parse_args(&c, &e, argc, argv, &code)) {
		goto out;
	}
	/* Open (and check) the output first: refusing to overwrite an input
	 * should not wait for a long read. Nothing is left behind on failure. */
	struct tc_outfile outf;
	if (!tc_cli_open_output(&c, argv + optind, argc - optind, NULL, &outf)) {
		code = TC_EXIT_OUTPUT;
		goto out;
	}
	struct tc_model *m = tc_cli_load(&c, argv + optind, argc - optind, &code);
	if (!m) {
		tc_outfile_abort(&outf);
		goto out;
	}
	/* Folder members and a file on stdin are known only now. */
	if (!tc_cli_check_output(&outf, m)) {
		code = TC_EXIT_OUTPUT;
		tc_cli_model_done(m);
		goto out;
	}
	struct tc_selection sel;
	tc_selection_init(&sel, m);
	struct tc_annotation ann;
	tc_annotation_init(&ann);
	if ((code = cut(m, &e, &sel)) != TC_EXIT_OK) {
		tc_outfile_abort(&outf);
		goto out_model;
	}
	if (e.annotate) {
		tc_annotate(m, &sel, e.steps, e.step_marker, c.ingest.threads, &ann);
	}
	struct tc_chrome_opts co = {
		.sel = &sel,
		.ann = e.annotate ? &ann : NULL,
		.generator = "tracectl " TC_VERSION,
	};
	struct tc_chrome_stats st;
	uint64_t bytes = 0;
	code = write_output(&c, &e, &outf, m, &co, &st, &bytes);
	if (code != TC_EXIT_OK) {
		goto out_model;
	}
	print_notes(&sel);
	if (e.annotate && ann.missing) {
		fprintf(stderr, "tracectl: --annotate: %s\n", ann.missing);
	}
	if (e.chrome) {
		note_viewer_limits(&st, bytes);
	}
	code = tc_cli_strict(&c, m);
out_model:
	tc_annotation_finish(&ann);
	tc_selection_finish(&sel);
	tc_cli_model_done(m);
out:
	free(e.devices);
	return code;
}
