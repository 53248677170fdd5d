/*
 * Time ingest alone, any format, as the CLI runs it for one file (prefault
 * helper and the reader's second thread when a core is spare): the reader
 * into a fresh model, then tc_model_finalize, each timed, and the two
 * together ("model ready", what every command waits for before analysing).
 * bench/json.sh and bench/perfetto.sh print it between their no-op parse
 * baseline and the full CLI. The model keeps only the args analyses read
 * back, as for summarize and the other analysis commands; --all-args keeps
 * every one, as for export. --zlib inflates gzip/zlib inputs with zlib
 * where ISA-L is built in, to compare the two. --analyze N then runs
 * summarize's analysis (tc_analyze: summary and findings) N times on the
 * model and prints the least wall and CPU time: the analysis alone,
 * without the reading that dominates `summarize`'s own time. --costs N
 * times the events' cost-key column alone (tc_model_costs), made N times.
 *
 *   ingest [--threads N] [--all-args] [--zlib] [--analyze N] [--costs N] TRACE
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "analysis/analyze.h"
#include "config.h"
#include "ingest/ingest.h"
#include "util/prefault.h"
#include "util/xalloc.h"

static double clock_s(clockid_t id) {
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void) {
	return clock_s(CLOCK_MONOTONIC);
}

int main(int argc, char **argv) {
	tc_malloc_tune(); /* as main() */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	bool all_args = false, zlib = false;
	long analyze = 0, costs = 0;
	int a = 1;
	for (; a < argc - 1; a++) {
		if (strcmp(argv[a], "--threads") == 0 && a + 2 < argc) {
			cpus = atol(argv[++a]);
		} else if (strcmp(argv[a], "--all-args") == 0) {
			all_args = true;
		} else if (strcmp(argv[a], "--zlib") == 0) {
			zlib = true;
		} else if (strcmp(argv[a], "--analyze") == 0 && a + 2 < argc) {
			analyze = atol(argv[++a]);
		} else if (strcmp(argv[a], "--costs") == 0 && a + 2 < argc) {
			costs = atol(argv[++a]);
		} else {
			break;
		}
	}
	if (argc - a != 1 || cpus < 1 || analyze < 0 || costs < 0) {
		fprintf(stderr, "usage: ingest [--threads N] [--all-args] [--zlib] [--analyze N] "
			"[--costs N] TRACE\n");
		return 2;
	}
	const char *path = argv[a];
	bool helper = cpus >= 2 && tc_prefault_start();
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.reader_thread = cpus >= 2; /* as tc_ingest for one file */
	lim.zlib_inflate = zlib;
	struct tc_error err;
	tc_error_init(&err);
	struct tc_model *m = tc_model_create();
	m->known_args_only = !all_args;
	double t0 = now();
	bool ok = tc_ingest_file(m, path, &lim, &err);
	double t1 = now();
	if (!ok) {
		fprintf(stderr, "ingest: %s (at byte %lld)\n", err.msg, (long long)err.offset);
		tc_model_destroy(m);
		return 3;
	}
	tc_model_finalize_mt(m, cpus >= 2);
	double t2 = now();
	uint64_t bytes = m->n_sources ? m->sources[0].file_size : 0;
	printf("events %zu, samples %zu, format %s, prefault helper %s, reader thread %s, "
		"args %s, inflate %s\n", m->ev.n, m->samples.n,
		m->n_sources ? tc_model_str(m, m->sources[0].format) : "?",
		helper ? "on" : "off", lim.reader_thread ? "allowed" : "off",
		all_args ? "all" : "read-back keys only",
		zlib || !TC_HAVE_ISAL ? "zlib" : "ISA-L");
	/* MB/s: file bytes (10^6) per wall second, as the other bench lines. */
	printf("read        %.3f s wall  %6.0f MB/s of file\n", t1 - t0,
		(double)bytes / 1e6 / (t1 - t0));
	printf("finalize    %.3f s wall\n", t2 - t1);
	printf("model ready %.3f s wall  %6.0f MB/s of file\n", t2 - t0,
		(double)bytes / 1e6 / (t2 - t0));
	double best_wall = 0, best_cpu = 0;
	for (long i = 0; i < analyze; i++) {
		struct tc_analysis_opts ao;
		tc_analysis_opts_init(&ao);
		ao.threads = cpus >= 2 ? 0 : 1;
		struct tc_analysis an;
		/* Each run resolves the costs again, as one CLI run does. */
		tc_model_costs_drop(m);
		double w = now(), c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		tc_analyze(m, &ao, TC_AN_SUMMARY | TC_AN_FINDINGS, &an);
		w = now() - w;
		c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c;
		tc_analysis_finish(&an);
		best_wall = !i || w < best_wall ? w : best_wall;
		best_cpu = !i || c < best_cpu ? c : best_cpu;
	}
	if (analyze) {
		printf("analyze     %.3f s wall  %.3f s CPU (least of %ld)\n", best_wall, best_cpu,
			analyze);
	}
	best_cpu = 0;
	for (long i = 0; i < costs; i++) {
		tc_model_costs_drop(m);
		double c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		const struct tc_costs *k = tc_model_costs(m);
		c = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c;
		best_cpu = !i || c < best_cpu ? c : best_cpu;
		if (i + 1 == costs) {
			printf("costs       %.4f s CPU (least of %ld), %zu keys\n", best_cpu, costs, k->n);
		}
	}
	tc_prefault_stop();
	tc_model_destroy(m);
	return 0;
}
