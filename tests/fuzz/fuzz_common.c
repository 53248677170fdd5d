/*
 * Shared by the fuzz targets: small limits and a pass over everything
 * downstream of ingest (analysis and every writer) into /dev/null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/summary.h"
#include "digest/view.h"
#include "fuzz.h"
#include "output/analysis_write.h"
#include "output/summary_write.h"

void tc_fuzz_limits(struct tc_limits *lim) {
	tc_limits_default(lim);
	lim->max_input = 64u << 20;
	lim->max_events = 1u << 20;
	lim->max_string = 1u << 20;
}

FILE *tc_fuzz_devnull(void) {
	static FILE *f;
	if (!f) {
		f = fopen("/dev/null", "w");
		if (!f) {
			abort();
		}
	}
	return f;
}

void tc_fuzz_write_analysis(const struct tc_model *m, struct tc_analysis *a) {
	FILE *f = tc_fuzz_devnull();
	struct tc_summary_opts so = { .top = 10, .findings = 3, .analysis = a };
	struct tc_bottlenecks_opts bo = { .min_severity = TC_SEV_LOW };
	tc_write_summary_json(f, m, &a->summary, &so);
	tc_write_summary_text(f, m, &a->summary, &so);
	tc_write_bottlenecks_json(f, m, a, &bo);
	tc_write_bottlenecks_text(f, m, a, &bo);
	tc_write_steps_json(f, m, a);
	tc_write_steps_text(f, m, a);
	fflush(f);
}

void tc_fuzz_write_ranks(struct tc_model *skel, struct tc_analysis *a,
		Tracectl__Rank *const *ranks, size_t n) {
	tc_fuzz_write_analysis(skel, a);
	tc_analysis_finish(a);
	struct tc_op_table t;
	tc_digest_op_table(skel, ranks, n, "device", &t);
	tc_op_table_finish(&t);
	tc_model_destroy(skel);
}

/* Downstream code must cope with whatever a reader accepted. */
static void exercise(struct tc_model *m) {
	tc_model_finalize(m);
	struct tc_summary s;
	tc_analyze_summary(m, &s);
	struct tc_summary_opts so = { .top = 10 };
	FILE *f = tc_fuzz_devnull();
	tc_write_summary_json(f, m, &s, &so);
	tc_write_summary_text(f, m, &s, &so);
	tc_write_info_json(f, m);
	tc_write_info_text(f, m);
	/* What bottlenecks and steps run: the steps, the attribution and
	 * every rule. */
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct tc_analysis a;
	if (tc_analyze(m, &ao, TC_AN_FINDINGS, &a)) {
		struct tc_bottlenecks_opts bo = { .top = 0 };
		tc_write_bottlenecks_json(f, m, &a, &bo);
		tc_write_steps_text(f, m, &a);
	}
	tc_analysis_finish(&a);
	fflush(f);
	tc_summary_finish(&s);
}

/* Every reader pipelined (a producer thread tokenising JSON, a second
 * thread decoding xplane lines or Perfetto packets, forced on for any
 * size): it must give what the serial read gave. */
static void pipelined_agrees(const struct tc_reader *r, const uint8_t *data, size_t size,
		bool ok1, const struct tc_error *e1, const struct tc_model *m1) {
	struct tc_limits lim;
	tc_fuzz_limits(&lim);
	lim.reader_thread = r == &tc_reader_json ? 1 : TC_READER_THREAD_ALWAYS;
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	if (!tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
		abort();
	}
	struct tc_model *m = tc_model_create();
	bool ok = tc_ingest_input(m, &in, r, &lim, &err);
	tc_input_finish(&in);
	if (ok != ok1 || err.code != e1->code || strcmp(err.msg, e1->msg) != 0 ||
			err.offset != e1->offset || (ok && (m->ev.n != m1->ev.n ||
			m->n_argb != m1->n_argb ||
			(m->n_argb && memcmp(m->argb, m1->argb, m->n_argb) != 0) ||
			m->strings.n != m1->strings.n || m->n_ops != m1->n_ops ||
			m->samples.n != m1->samples.n || m->n_aggs != m1->n_aggs ||
			m->n_warnings != m1->n_warnings ||
			(m->ev.n && (memcmp(m->ev.start, m1->ev.start, m->ev.n * 8) != 0 ||
			memcmp(m->ev.dur, m1->ev.dur, m->ev.n * 8) != 0 ||
			memcmp(m->ev.op, m1->ev.op, m->ev.n * 4) != 0))))) {
		abort();
	}
	tc_model_destroy(m);
}

void tc_fuzz_ingest(const struct tc_reader *r, const uint8_t *data, size_t size) {
	struct tc_limits lim;
	tc_fuzz_limits(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	if (!tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
		return;
	}
	struct tc_model *m = tc_model_create();
	bool ok = tc_ingest_input(m, &in, r, &lim, &err);
	tc_input_finish(&in);
	pipelined_agrees(r, data, size, ok, &err, m);
	if (!ok && (err.code != TC_EXIT_INPUT && err.code != TC_EXIT_LIMIT)) {
		/* A failure must carry an input or limit exit code. */
		abort();
	}
	if (!ok && err.msg[0] == '\0') {
		abort();
	}
	if (ok) {
		exercise(m);
	}
	tc_model_destroy(m);
}
