/*
 * Time the Perfetto reader alone: open, read into a fresh model, stop before
 * tc_model_finalize (whose sort belongs to the model, not the reader).
 * bench/perfetto.sh prints it between the no-op walk and the full CLI.
 */

#include <stdio.h>
#include <time.h>
#include "ingest/ingest.h"

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: perfetto_ingest TRACE\n");
		return 2;
	}
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!tc_input_open(&in, argv[1], &lim, &err)) {
		fprintf(stderr, "perfetto_ingest: %s\n", err.msg);
		return 3;
	}
	struct tc_model *m = tc_model_create();
	uint32_t src = tc_model_add_source(m, argv[1], "perfetto", "none", in.file_size, 0);
	bool ok = tc_reader_perfetto.read(m, &in, src, &lim, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	uint64_t bytes = tc_input_tell(&in);
	tc_input_finish(&in);
	if (!ok) {
		fprintf(stderr, "perfetto_ingest: %s (at byte %lld)\n", err.msg,
			(long long)err.offset);
		tc_model_destroy(m);
		return 3;
	}
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("events %zu samples %zu\n", m->ev.n, m->samples.n);
	printf("ingest %.3f s, %.0f MB/s\n", s, (double)bytes / 1e6 / s);
	tc_model_destroy(m);
	return 0;
}
