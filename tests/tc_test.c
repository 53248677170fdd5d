/*
 * Helpers for the Check suites: paths to fixtures and real traces, loading
 * models, temporary files, and running one part (fixtures or traces) of a
 * suite, a skip when the traces folder is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "analysis/analyze.h"
#include "ingest/ingest.h"
#include "model/model.h"
#include "tc_test.h"

static const char *join(const char *env, const char *dflt, const char *rel) {
	static char buf[4][4096];
	static int k;
	const char *base = getenv(env);
	if (!base) {
		base = dflt;
	}
	char *b = buf[k++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", base, rel);
	return b;
}

bool tc_test_have_traces(void) {
	struct stat st;
	return stat(join("TC_TRACES", "../shared/traces", ""), &st) == 0 && S_ISDIR(st.st_mode);
}

const char *tc_test_trace(const char *rel) {
	const char *p = join("TC_TRACES", "../shared/traces", rel);
	struct stat st;
	/* tc_test_run runs the traces cases only with the folder there: a
	 * missing file is a failure, never a quiet pass. */
	ck_assert_msg(stat(p, &st) == 0, "%s: missing from the traces folder", p);
	return p;
}

const char *tc_test_src(const char *rel) {
	return join("TC_SOURCE_ROOT", ".", rel);
}

const char *tc_test_build(const char *rel) {
	return join("TC_BUILD_ROOT", ".", rel);
}

struct tc_model *tc_test_try_load(const char *path, struct tc_error *err) {
	struct tc_ingest_opts o;
	tc_ingest_opts_default(&o);
	o.threads = 1;
	tc_error_init(err);
	return tc_ingest(&path, 1, &o, err);
}

struct tc_model *tc_test_load(const char *path) {
	struct tc_error err;
	struct tc_model *m = tc_test_try_load(path, &err);
	ck_assert_msg(m != NULL, "%s: %s", path, err.msg);
	return m;
}

struct tc_model *tc_test_load_trace(const char *rel) {
	return tc_test_load(tc_test_trace(rel));
}

unsigned char *tc_test_slurp(const char *path, size_t *len) {
	FILE *f = fopen(path, "rb");
	if (!f) {
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	size_t r;
	while ((r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap);
		}
	}
	fclose(f);
	*len = n;
	return b;
}

const char *tc_test_tmpfile(const void *data, size_t n) {
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/tc_test_XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
	return path;
}

uint8_t *tc_test_deflate(const void *src, size_t n, int wbits, int level, size_t *out_len) {
	z_stream z = { 0 };
	ck_assert_int_eq(deflateInit2(&z, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	uint8_t *out = malloc(cap);
	z.next_in = (Bytef *)(uintptr_t)src;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

void tc_test_write(const char *path, const void *data, size_t n) {
	FILE *f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "%s", path);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

TCase *tc_test_traces_tcase(const char *name) {
	TCase *tc = tcase_create(name);
	tcase_set_tags(tc, TC_TEST_TRACES_TAG);
	return tc;
}

int tc_test_run(Suite *s) {
	const char *part = getenv("TC_TEST_PART");
	bool traces = part && strcmp(part, "traces") == 0;
	bool fixtures = part && strcmp(part, "fixtures") == 0;
	SRunner *sr = srunner_create(s);
	if (traces && !tc_test_have_traces()) {
		printf("SKIP: no traces folder (%s)\n", join("TC_TRACES", "../shared/traces", ""));
		/* The runner owns the suite: a skip frees it as a run does, so
		 * LeakSanitizer sees the skip path as clean. */
		srunner_free(sr);
		return TC_TEST_SKIP;
	}
	if (!part && !tc_test_have_traces()) {
		/* By hand, without the folder: what can run, and say so. */
		printf("note: no traces folder; the cases tagged '%s' are left out\n",
			TC_TEST_TRACES_TAG);
		fixtures = true;
	}
	srunner_run_tagged(sr, NULL, NULL, traces ? TC_TEST_TRACES_TAG : NULL,
		fixtures ? TC_TEST_TRACES_TAG : NULL, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	int run = srunner_ntests_run(sr);
	srunner_free(sr);
	if (run == 0) {
		printf("SKIP: no cases in this part\n");
		return TC_TEST_SKIP;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct tc_track *tc_test_track_of(const struct tc_model *m, size_t ev) {
	uint32_t t = tc_model_event_track(m, ev);
	ck_assert_msg(t < m->n_tracks, "event %zu has no track", ev);
	return &m->tracks[t];
}

/* Field by field (struct padding may differ). */
void tc_test_same_model(const struct tc_model *a, const struct tc_model *b, const char *what) {
	ck_assert_msg(a->strings.n == b->strings.n, "%s: %zu strings against %zu", what,
		(size_t)a->strings.n, (size_t)b->strings.n);
	for (size_t i = 0; i < a->strings.n; i++) {
		ck_assert_msg(a->strings.v[i].len == b->strings.v[i].len &&
			memcmp(a->strings.v[i].s, b->strings.v[i].s, a->strings.v[i].len) == 0,
			"%s: string %zu differs", what, i);
	}
	ck_assert_msg(a->origin_ns == b->origin_ns && a->origin_epoch == b->origin_epoch,
		"%s: origins differ", what);
	ck_assert_msg(a->n_devices == b->n_devices, "%s: devices", what);
	for (size_t i = 0; i < a->n_devices; i++) {
		const struct tc_device *x = &a->devices[i], *y = &b->devices[i];
		ck_assert_msg(x->name == y->name && x->kind == y->kind && x->ordinal == y->ordinal &&
			x->host == y->host && x->src_id == y->src_id && x->model == y->model &&
			x->vendor == y->vendor && x->peak_flops == y->peak_flops &&
			x->peak_bw == y->peak_bw && x->memory_bytes == y->memory_bytes &&
			x->core_count == y->core_count && x->clock_khz == y->clock_khz &&
			x->args == y->args, "%s: device %zu differs", what, i);
	}
	ck_assert_msg(a->n_tracks == b->n_tracks, "%s: tracks", what);
	for (size_t i = 0; i < a->n_tracks; i++) {
		const struct tc_track *x = &a->tracks[i], *y = &b->tracks[i];
		ck_assert_msg(x->name == y->name && x->device == y->device && x->kind == y->kind &&
			x->src_id == y->src_id && x->sort == y->sort && x->parent == y->parent,
			"%s: track %zu differs", what, i);
	}
	ck_assert_msg(a->n_ops == b->n_ops, "%s: %zu ops against %zu", what, a->n_ops, b->n_ops);
	for (size_t i = 0; i < a->n_ops; i++) {
		const struct tc_op *x = &a->ops[i], *y = &b->ops[i];
		ck_assert_msg(x->name == y->name && x->category == y->category && x->kind == y->kind &&
			x->flags == y->flags && x->flops == y->flops && x->bytes == y->bytes &&
			x->args == y->args, "%s: op %zu differs", what, i);
	}
	ck_assert_msg(a->n_argb == b->n_argb &&
		(a->n_argb == 0 || memcmp(a->argb, b->argb, a->n_argb) == 0),
		"%s: arg bytes differ", what);
	ck_assert_msg(a->ev.n == b->ev.n, "%s: %zu events against %zu", what, a->ev.n, b->ev.n);
	for (size_t i = 0; i < a->ev.n; i++) {
		ck_assert_msg(a->ev.start[i] == b->ev.start[i] && a->ev.dur[i] == b->ev.dur[i] &&
			a->ev.op[i] == b->ev.op[i] &&
			tc_model_event_args(a, i) == tc_model_event_args(b, i) &&
			a->ev.flags[i] == b->ev.flags[i] &&
			tc_model_event_track(a, i) == tc_model_event_track(b, i),
			"%s: event %zu differs", what, i);
	}
	ck_assert_msg(a->n_aggs == b->n_aggs, "%s: aggregates", what);
	for (size_t i = 0; i < a->n_aggs; i++) {
		const struct tc_aggregate *x = &a->aggs[i], *y = &b->aggs[i];
		ck_assert_msg(x->op == y->op && x->track == y->track && x->count == y->count &&
			x->dur_ps == y->dur_ps, "%s: aggregate %zu differs", what, i);
	}
	ck_assert_msg(a->n_counters == b->n_counters, "%s: counters", what);
	for (size_t i = 0; i < a->n_counters; i++) {
		const struct tc_counter *x = &a->counters[i], *y = &b->counters[i];
		ck_assert_msg(x->name == y->name && x->device == y->device && x->unit == y->unit &&
			x->group == y->group, "%s: counter %zu differs", what, i);
	}
	ck_assert_msg(a->samples.n == b->samples.n, "%s: samples", what);
	for (size_t i = 0; i < a->samples.n; i++) {
		ck_assert_msg(a->samples.ts[i] == b->samples.ts[i] &&
			memcmp(&a->samples.value[i], &b->samples.value[i], sizeof(double)) == 0 &&
			a->samples.counter[i] == b->samples.counter[i], "%s: sample %zu differs",
			what, i);
	}
	ck_assert_msg(a->n_flows == b->n_flows, "%s: flows", what);
	for (size_t i = 0; i < a->n_flows; i++) {
		const struct tc_flow *x = &a->flows[i], *y = &b->flows[i];
		ck_assert_msg(x->from == y->from && x->to == y->to && x->kind == y->kind &&
			x->id == y->id, "%s: flow %zu differs", what, i);
	}
	ck_assert_msg(a->n_warnings == b->n_warnings, "%s: warnings", what);
	for (size_t i = 0; i < a->n_warnings; i++) {
		ck_assert_msg(a->warnings[i].msg == b->warnings[i].msg &&
			a->warnings[i].count == b->warnings[i].count, "%s: warning %zu differs", what, i);
	}
}

bool tc_test_op_table(const struct tc_model *m, const struct tc_analysis_opts *o,
		const char *by, struct tc_op_table *t) {
	struct tc_analysis_opts oo = *o;
	oo.op_by = by;
	struct tc_analysis a;
	bool ok = tc_analyze(m, &oo, TC_AN_OP_TABLE, &a);
	*t = a.op_table;
	memset(&a.op_table, 0, sizeof(a.op_table));
	tc_analysis_finish(&a);
	return ok;
}
