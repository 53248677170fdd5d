/*
 * The `tracectl report` page: one self-contained HTML file with its
 * sections and charts, and the summarize (and diff) JSON embedded.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/finding_text.h"
#include "output/fmt.h"
#include "output/html_write.h"
#include "output/markup.h"
#include "output/report_svg.h"

/*
 * The page: head (CSP that forbids every fetch, CSS, an error recorder),
 * one <section> per view, then the embedded JSON. Sections that do not
 * apply (no memory counters, one rank, no --diff) are left out, so each
 * section present holds exactly one chart or one table.
 */

static const char css[] =
	"body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\","
	"Arial,sans-serif;margin:1.5em auto;max-width:1280px;color:#222;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.6em}"
	"table{border-collapse:collapse;font-size:.9em}"
	"td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"th{background:#f4f4f4}.note{color:#555;font-size:.9em}"
	".sev-critical{background:#b2182b;color:#fff}.sev-high{background:#ef8a62}"
	".sev-medium{background:#fddbc7}.sev-low{background:#eee}"
	"svg{display:block;font-size:11px}svg text{fill:#333}"
	"code{font-family:ui-monospace,\"SFMono-Regular\",Menlo,Consolas,monospace}";

/* Errors the page meets, fetches the policy blocked and resources loaded
 * are kept where --dump-dom shows them (tests/report_browser.py). */
static const char js_head[] =
	"window.onerror=function(m){var e=document.documentElement;"
	"e.setAttribute('data-errors',(e.getAttribute('data-errors')||'')+m+';');};"
	"document.addEventListener('securitypolicyviolation',function(v){"
	"var e=document.documentElement;"
	"e.setAttribute('data-csp',(e.getAttribute('data-csp')||'')+v.blockedURI+';');});";
static const char js_tail[] =
	"(function(){var e=document.documentElement;"
	"try{JSON.parse(document.getElementById('tracectl-data').textContent);"
	"['tracectl-test','tracectl-diff'].forEach(function(i){"
	"var d=document.getElementById(i);if(d){JSON.parse(d.textContent);}});"
	"e.setAttribute('data-json','ok');}"
	"catch(x){e.setAttribute('data-errors',(e.getAttribute('data-errors')||'')+x+';');}"
	"e.setAttribute('data-resources',String(performance.getEntriesByType('resource').length));"
	"e.setAttribute('data-rendered','1');})();";

static const char *dev_name(const struct tc_model *m, uint32_t d) {
	return d < m->n_devices ? tc_model_str(m, m->devices[d].name) : "host";
}

static void section_begin(FILE *f, const char *id, const char *title) {
	fprintf(f, "<section id=\"%s\">\n<h2>%s</h2>\n", id, title);
}

static void th(FILE *f, const char *cls, const char *text) {
	fprintf(f, "<th%s>%s</th>", cls ? cls : "", text);
}

static void td_text(FILE *f, const char *text) {
	fputs("<td>", f);
	tc_markup_escape(f, text);
	fputs("</td>", f);
}

static void header_row(FILE *f, const char *key) {
	fprintf(f, "<tr><th>%s</th>", key);
}

static void header_inputs(FILE *f, const struct tc_model *m) {
	char x[TC_FMT_LEN];
	for (size_t i = 0; i < m->n_sources; i++) {
		const struct tc_source *src = &m->sources[i];
		fputs(i ? "<br>" : "", f);
		fputs("<code>", f);
		tc_markup_escape(f, tc_model_str(m, src->path));
		fputs("</code> (", f);
		tc_markup_escape(f, tc_model_str(m, src->format));
		if (strcmp(tc_model_str(m, src->compression), "none") != 0) {
			fputs(", ", f);
			tc_markup_escape(f, tc_model_str(m, src->compression));
		}
		fprintf(f, ", %s)", tc_fmt_bytes(x, (double)src->file_size));
		if (src->truncated) {
			/* as the text reports' "truncated" line */
			fputs(" <strong>truncated</strong>: ends mid-trace, read up to its last "
				"complete event", f);
		}
	}
}

static void header_devices(FILE *f, const struct tc_report_run *run) {
	const struct tc_analysis *a = run->a;
	fprintf(f, "%zu with device work", a->n_util);
	for (size_t i = 0; i < a->n_util && i < 16; i++) {
		fputs(i ? ", " : ": ", f);
		tc_markup_escape(f, dev_name(run->m, a->util[i].device));
	}
	fputs(a->n_util > 16 ? ", &hellip;" : "", f);
}

/* Row key, one cell per run. */
static void header_cell(FILE *f, const struct tc_report *r, size_t k, const char *key) {
	const struct tc_report_run *run = &r->run[k];
	const struct tc_analysis *a = run->a;
	const struct tc_summary *s = &a->summary;
	char x[2][TC_FMT_LEN];
	fputs("<td>", f);
	if (strcmp(key, "inputs") == 0) {
		header_inputs(f, run->m);
	} else if (strcmp(key, "framework") == 0) {
		tc_markup_escape(f, tc_framework_label((enum tc_framework)a->runtime.framework));
		if (tc_framework_source(&a->runtime)) {
			fputs(" <span class=\"note\">(", f);
			tc_markup_escape(f, tc_framework_source(&a->runtime));
			fputs(")</span>", f);
		}
	} else if (strcmp(key, "runtime") == 0) {
		tc_markup_escape(f, tc_runtime_label((enum tc_runtime)a->runtime.runtime));
	} else if (strcmp(key, "span") == 0) {
		fprintf(f, "<span data-ps=\"%" PRId64 "\">%s</span>, %s events",
			s->last_ps - s->first_ps, tc_report_ms(x[0], s->last_ps - s->first_ps),
			tc_fmt_count(x[1], s->n_events));
	} else if (strcmp(key, "steps") == 0) {
		fprintf(f, "%zu counted of %zu (", a->n_steps_counted, a->n_steps_all);
		tc_markup_escape(f, a->steps_source ? a->steps_source : "none");
		fprintf(f, "), step time <span data-ps=\"%" PRId64 "\">%s</span>",
			a->step_total_ps, tc_report_ms(x[0], a->step_total_ps));
	} else if (strcmp(key, "ranks") == 0) {
		fprintf(f, "%zu", r->n_ranks);
		for (size_t i = 0; i < r->n_ranks && r->n_ranks > 1; i++) {
			fputs(i ? ", " : ": ", f);
			tc_markup_escape(f, r->ranks[i].label);
		}
	} else {
		header_devices(f, run);
	}
	fputs("</td>", f);
}

/* The inputs, one column per run. */
static void header(FILE *f, const struct tc_report *r) {
	static const char *const keys[] = {
		"inputs", "framework", "runtime", "span", "steps", "ranks", "devices",
	};
	section_begin(f, "header", "Inputs");
	fputs("<table>\n", f);
	if (r->n_runs > 1) {
		fputs("<tr><th></th>", f);
		for (size_t k = 0; k < r->n_runs; k++) {
			th(f, NULL, r->run[k].label);
		}
		fputs("</tr>\n", f);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		/* With --diff the step bars' two rows are the runs, not ranks. */
		if (r->diff && strcmp(keys[i], "ranks") == 0) {
			continue;
		}
		header_row(f, keys[i]);
		for (size_t k = 0; k < r->n_runs; k++) {
			header_cell(f, r, k, keys[i]);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

static void evidence(FILE *f, const struct tc_model *m, const struct tc_finding *fd) {
	char x[TC_FMT_LEN];
	if (fd->explained_ps > 0) {
		fprintf(f, "explains %s (%.1f %% of step time)", tc_report_ms(x, fd->explained_ps),
			100 * fd->share);
	}
	if (fd->device != TC_NONE) {
		fputs(fd->explained_ps > 0 ? "; on " : "on ", f);
		tc_markup_escape(f, dev_name(m, fd->device));
	}
	for (size_t k = 0; k < fd->n_ops; k++) {
		fputs(k ? ", " : "<br>ops: ", f);
		fputs("<code>", f);
		tc_markup_escape(f, tc_model_str(m, fd->ops[k]));
		fputs("</code>", f);
	}
	for (size_t k = 0; k < fd->n_steps; k++) {
		fprintf(f, "%s%" PRId64, k ? ", " : "<br>steps: ", fd->steps[k]);
	}
}

/* The findings `bottlenecks` lists by default: severity low and up. */
static void findings(FILE *f, const struct tc_report *r) {
	const struct tc_analysis *a = r->run[0].a;
	section_begin(f, "findings", "Findings");
	fputs("<table>\n<tr>", f);
	th(f, NULL, "#");
	th(f, NULL, "severity");
	th(f, NULL, "finding");
	th(f, NULL, "evidence");
	th(f, NULL, "advice");
	fputs("</tr>\n", f);
	size_t n = 0;
	for (size_t i = 0; i < a->n_findings; i++) {
		const struct tc_finding *fd = &a->findings[i];
		if (fd->severity < TC_SEV_LOW) {
			continue;
		}
		const char *sev = tc_severity_name((enum tc_severity)fd->severity);
		fprintf(f, "<tr class=\"finding\" data-kind=\"%s\"><td class=\"n\">%zu</td>"
			"<td class=\"sev-%s\">%s</td><td><b>", fd->kind, ++n, sev, sev);
		tc_markup_escape(f, fd->kind);
		fputs("</b>: ", f);
		struct tc_strbuf sb = { 0 };
		tc_finding_wording(fd, &sb);
		tc_markup_escape(f, sb.s);
		tc_strbuf_finish(&sb);
		fputs("</td><td>", f);
		evidence(f, r->run[0].m, fd);
		fputs("</td>", f);
		td_text(f, fd->suggestion ? fd->suggestion : "");
		fputs("</tr>\n", f);
	}
	if (!n) {
		fputs("<tr><td colspan=\"5\">no findings</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

static void xfer_cells(FILE *f, const struct tc_xfer_stats *x) {
	char b[2][TC_FMT_LEN];
	for (int d = 0; d < TC_XFER_COUNT; d++) {
		fprintf(f, "<td class=\"n\">%s</td>", tc_fmt_count(b[0], x[d].count));
		fprintf(f, "<td class=\"n\" data-bytes=\"%.0f\">%s</td>", x[d].bytes,
			tc_fmt_bytes(b[1], x[d].bytes));
	}
}

#define REPORT_MAX_ROWS 200

/* Copies per step (the breakdown's steps) and over the whole trace. */
static void transfers(FILE *f, const struct tc_report *r) {
	const struct tc_analysis *a = r->run[0].a;
	section_begin(f, "transfers", "Transfers");
	fputs("<table>\n<tr>", f);
	th(f, NULL, "step");
	for (int d = 0; d < TC_XFER_COUNT; d++) {
		fprintf(f, "<th class=\"n\">%s count</th><th class=\"n\">%s bytes</th>",
			tc_xfer_dir_name((enum tc_xfer_dir)d), tc_xfer_dir_name((enum tc_xfer_dir)d));
	}
	fputs("</tr>\n<tr><td>whole trace</td>", f);
	xfer_cells(f, a->xfer);
	fputs("</tr>\n", f);
	size_t n = a->n_steps < REPORT_MAX_ROWS ? a->n_steps : REPORT_MAX_ROWS;
	for (size_t i = 0; i < n; i++) {
		const struct tc_step *st = &a->steps[i];
		fprintf(f, "<tr><td>%" PRId64 "%s</td>", st->num,
			st->warmup ? " (warm-up)" : st->partial ? " (partial)" : "");
		xfer_cells(f, st->xfer);
		fputs("</tr>\n", f);
	}
	if (a->n_steps > n) {
		fprintf(f, "<tr><td colspan=\"7\">%zu more steps not listed "
			"(see 'tracectl steps')</td></tr>\n", a->n_steps - n);
	}
	fputs("</table>\n</section>\n", f);
}

static double per_step(const struct tc_diff_side *s, int64_t v) {
	return (double)v / (double)(s->n_steps ? s->n_steps : 1);
}

static void diff_row(FILE *f, const char *what, const char *name, double base, double test) {
	char x[3][TC_FMT_LEN];
	fprintf(f, "<tr><td>%s</td>", what);
	td_text(f, name);
	fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
		tc_report_ms(x[0], (int64_t)llround(base)), tc_report_ms(x[1], (int64_t)llround(test)));
	int64_t d = (int64_t)llround(test) - (int64_t)llround(base);
	tc_report_ms(x[2], d);
	fprintf(f, "<td class=\"n\" data-ps=\"%" PRId64 "\">%s%s</td>", d, d > 0 ? "+" : "", x[2]);
	if (base != 0) {
		fprintf(f, "<td class=\"n\">%+.1f %%</td></tr>\n", 100.0 * (test - base) / base);
	} else {
		fprintf(f, "<td class=\"n\">%s</td></tr>\n", test != 0 ? "new" : "");
	}
}

/* A diff row of bytes: an allocator's peak, what an op held at it; "-"
 * for a side without it. */
static void diff_bytes_row(FILE *f, const char *what, const char *name, double base,
		double test) {
	char x[3][TC_FMT_LEN];
	fprintf(f, "<tr class=\"mem\"><td>%s</td>", what);
	td_text(f, name);
	fprintf(f, "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
		base >= 0 ? tc_fmt_bytes(x[0], base) : "-", test >= 0 ? tc_fmt_bytes(x[1], test) : "-");
	double d = (test >= 0 ? test : 0) - (base >= 0 ? base : 0);
	tc_fmt_bytes(x[2], d);
	fprintf(f, "<td class=\"n\" data-bytes=\"%.0f\">%s%s</td>", d, d > 0 ? "+" : "", x[2]);
	if (base > 0) {
		fprintf(f, "<td class=\"n\">%+.1f %%</td></tr>\n", 100.0 * (test - base) / base);
	} else {
		fprintf(f, "<td class=\"n\">%s</td></tr>\n", test > 0 ? "new" : "");
	}
}

/* Memory by op as `diff` orders it: each allocator's peak, then the ops
 * whose bytes held at the peak changed, largest growth first. */
static void diff_memory_rows(FILE *f, const struct tc_diff *d, size_t top) {
	for (size_t i = 0; i < d->n_mem_peaks; i++) {
		diff_bytes_row(f, "memory peak", d->mem_peaks[i].label, d->mem_peaks[i].base_bytes,
			d->mem_peaks[i].test_bytes);
	}
	for (size_t i = 0, shown = 0; i < d->n_mem_ops && shown < top; i++) {
		const struct tc_diff_mem_op_row *o = &d->mem_ops[i];
		int64_t b = o->base ? o->base->held : 0, t = o->test ? o->test->held : 0;
		if (b == t) {
			continue;
		}
		const struct tc_diff_mem_op *k = o->base ? o->base : o->test;
		char name[1024];
		snprintf(name, sizeof(name), "%s: %s", k->device, k->name);
		diff_bytes_row(f, "held at the peak", name, o->base ? (double)b : -1,
			o->test ? (double)t : -1);
		shown++;
	}
}

/* Findings of the two runs as `diff` pairs them: appeared, disappeared,
 * worse, better or the same. */
static void diff_findings(FILE *f, const struct tc_report *r) {
	const struct tc_diff *d = r->diff;
	section_begin(f, "findings", "Findings, base against test");
	fputs("<table>\n<tr>", f);
	th(f, NULL, "change");
	th(f, NULL, "severity");
	th(f, NULL, "finding");
	th(f, " class=\"n\"", "share of step time");
	th(f, NULL, "text (test, else base)");
	fputs("</tr>\n", f);
	for (size_t i = 0; i < d->n_findings; i++) {
		const struct tc_diff_finding_row *fr = &d->findings[i];
		const struct tc_diff_finding *x = fr->test ? fr->test : fr->base;
		const char *change = tc_diff_change_name((enum tc_diff_change)fr->change);
		fprintf(f, "<tr class=\"finding-change\" data-kind=\"%s\" data-change=\"%s\">"
			"<td>%s</td><td>", x->kind, change, change);
		for (int k = 0; k < 2; k++) {
			const struct tc_diff_finding *y = k ? fr->test : fr->base;
			fputs(k ? " &rarr; " : "", f);
			fputs(y ? tc_severity_name((enum tc_severity)y->severity) : "none", f);
		}
		fputs("</td><td><b>", f);
		tc_markup_escape(f, x->kind);
		fputs("</b>", f);
		const char *dev = tc_diff_finding_device(d, fr);
		if (dev) {
			fputs(" on ", f);
			tc_markup_escape(f, dev);
		}
		fputs("</td><td class=\"n\">", f);
		for (int k = 0; k < 2; k++) {
			const struct tc_diff_finding *y = k ? fr->test : fr->base;
			fputs(k ? " &rarr; " : "", f);
			if (y) {
				fprintf(f, "%.1f %%", 100 * y->share);
			} else {
				fputs("&ndash;", f);
			}
		}
		fputs("</td>", f);
		td_text(f, x->text ? x->text : "");
		fputs("</tr>\n", f);
	}
	if (!d->n_findings) {
		fputs("<tr><td colspan=\"5\">no findings in either run</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

/* Copies of each run over its whole trace and per counted step. */
static void diff_transfers(FILE *f, const struct tc_report *r) {
	char b[TC_FMT_LEN];
	section_begin(f, "transfers", "Transfers");
	fputs("<table>\n<tr>", f);
	th(f, NULL, "run");
	th(f, NULL, "over");
	for (int d = 0; d < TC_XFER_COUNT; d++) {
		fprintf(f, "<th class=\"n\">%s count</th><th class=\"n\">%s bytes</th>",
			tc_xfer_dir_name((enum tc_xfer_dir)d), tc_xfer_dir_name((enum tc_xfer_dir)d));
	}
	fputs("</tr>\n", f);
	for (size_t k = 0; k < r->n_runs; k++) {
		fprintf(f, "<tr><td>%s</td><td>whole trace</td>", r->run[k].label);
		xfer_cells(f, r->run[k].a->xfer);
		fputs("</tr>\n", f);
	}
	for (size_t k = 0; k < r->n_runs; k++) {
		const struct tc_diff_side *s = k ? r->diff->test : r->diff->base;
		double n = (double)(s->n_steps ? s->n_steps : 1);
		fprintf(f, "<tr><td>%s</td><td>per step</td>", r->run[k].label);
		for (int d = 0; d < TC_XFER_COUNT; d++) {
			fprintf(f, "<td class=\"n\">%.1f</td><td class=\"n\">%s</td>",
				(double)s->xfer[d].count / n, tc_fmt_bytes(b, s->xfer[d].bytes / n));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
}

/* What `diff` reports first: step time, attribution, then ops, per step. */
static void diff_view(FILE *f, const struct tc_report *r) {
	const struct tc_diff *d = r->diff;
	const struct tc_diff_side *b = d->base, *t = d->test;
	section_begin(f, "diff", "Diff");
	fputs("<table>\n<tr>", f);
	th(f, NULL, "what");
	th(f, NULL, "name");
	th(f, " class=\"n\"", "base");
	th(f, " class=\"n\"", "test");
	th(f, " class=\"n\"", "change");
	th(f, " class=\"n\"", "");
	fputs("</tr>\n", f);
	diff_row(f, d->whole_trace ? "whole trace" : "step time", "mean",
		b->step_mean_ps, t->step_mean_ps);
	for (int k = 0; k < TC_BD_COUNT; k++) {
		int c = d->bd_order[k];
		if (b->cat_ps[c] == 0 && t->cat_ps[c] == 0) {
			continue;
		}
		diff_row(f, "category per step", tc_bd_cat_name((enum tc_bd_cat)c),
			per_step(b, b->cat_ps[c]), per_step(t, t->cat_ps[c]));
	}
	size_t top = r->dwo && r->dwo->top ? r->dwo->top : d->n_ops;
	for (size_t i = 0; i < d->n_ops && i < top; i++) {
		const struct tc_diff_row *o = &d->ops[i];
		diff_row(f, "op per step", o->key, o->base.time_ps, o->test.time_ps);
	}
	diff_memory_rows(f, d, r->dwo && r->dwo->top ? r->dwo->top : d->n_mem_ops);
	fputs("</table>\n<p class=\"note\">base <code>", f);
	tc_markup_escape(f, b->label);
	fputs("</code>, test <code>", f);
	tc_markup_escape(f, t->label);
	fputs("</code>; the full comparison is in the embedded <code>tracectl-diff</code> "
		"JSON and 'tracectl diff'.</p>\n</section>\n", f);
}

/* JSON in a <script> block: "</" would end it and "<!--" change how it
 * is parsed; both occur only inside JSON strings, where the escapes
 * read back the same. */
static void embed_json(FILE *f, const char *id, const char *json, size_t n) {
	fprintf(f, "<script type=\"application/json\" id=\"%s\">", id);
	for (size_t i = 0; i < n; i++) {
		if (json[i] == '<' && i + 1 < n && json[i + 1] == '/') {
			fputs("<\\/", f);
			i++;
		} else if (json[i] == '<' && i + 3 < n && memcmp(json + i, "<!--", 4) == 0) {
			fputs("\\u003c", f);
		} else {
			fputc(json[i], f);
		}
	}
	fputs("</script>\n", f);
}

typedef void (*json_fn)(FILE *f, const struct tc_report *r);

static void summary_json(FILE *f, const struct tc_report *r) {
	tc_write_summary_json(f, r->run[0].m, &r->run[0].a->summary, r->so);
}

static void test_json(FILE *f, const struct tc_report *r) {
	struct tc_summary_opts so = *r->so;
	so.analysis = r->run[1].a;
	so.memory = r->run[1].mem;
	tc_write_summary_json(f, r->run[1].m, &r->run[1].a->summary, &so);
}

static void diff_json(FILE *f, const struct tc_report *r) {
	tc_write_diff_json(f, r->diff, r->dwo);
}

static void embed(FILE *f, const char *id, json_fn fn, const struct tc_report *r) {
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	if (!mem) {
		/* The error surfaces as a write error of f. */
		fputs("<script type=\"application/json\">null</script>\n", f);
		return;
	}
	fn(mem, r);
	fclose(mem);
	embed_json(f, id, buf, n);
	free(buf);
}

void tc_write_report_html(FILE *f, const struct tc_report *r) {
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"tracectl report\">\n<title>tracectl report: ", f);
	const struct tc_model *m = r->run[0].m;
	tc_markup_escape(f, m->n_sources ? tc_model_str(m, m->sources[0].path) : "");
	if (r->diff) {
		fputs(" against ", f);
		m = r->run[1].m;
		tc_markup_escape(f, m->n_sources ? tc_model_str(m, m->sources[0].path) : "");
	}
	fprintf(f, "%s</title>\n<style>%s%s</style>\n<script>%s</script>\n</head>\n<body>\n"
		"<h1>tracectl report%s</h1>\n", m->n_sources > 1 ? ", &hellip;" : "", css,
		tc_report_svg_css, js_head, r->diff ? ": base against test" : "");
	header(f, r);
	if (r->diff) {
		diff_findings(f, r);
	} else {
		findings(f, r);
	}
	tc_report_svg_steps(f, r);
	if (r->diff) {
		tc_report_svg_attribution(f, r);
	}
	tc_report_svg_util(f, r);
	if (r->diff) {
		tc_report_svg_ops_diff(f, r);
	} else {
		tc_report_svg_ops(f, r);
	}
	if (tc_report_has_roofline(r)) {
		tc_report_svg_roofline(f, r);
	}
	if (tc_report_has_launchers(r)) {
		tc_report_launchers(f, r);
	}
	if (tc_report_has_memory(r)) {
		tc_report_svg_memory(f, r);
	}
	if (r->n_ranks > 1 && !r->diff) {
		tc_report_svg_heatmap(f, r);
	}
	if (r->diff) {
		diff_transfers(f, r);
		diff_view(f, r);
	} else {
		transfers(f, r);
	}
	fputs("<p class=\"note\">Definitions: docs/report.md. The figures are those of "
		"<code>tracectl summarize --json</code>, embedded below", f);
	fputs(r->diff ? " for each run, with <code>tracectl diff --json</code>.</p>\n" :
		".</p>\n", f);
	embed(f, "tracectl-data", summary_json, r);
	if (r->diff) {
		embed(f, "tracectl-test", test_json, r);
		embed(f, "tracectl-diff", diff_json, r);
	}
	fprintf(f, "<script>%s</script>\n</body>\n</html>\n", js_tail);
}
