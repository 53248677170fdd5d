/*
 * Check suite for the Perfetto reader: packets, interning, clocks, tracks,
 * flows and counters, on fixtures and real traces.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#if TC_HAVE_ZSTD
#include <zstd.h>
#endif
#include "ingest/ingest.h"
#include "tc_test.h"

/* Perfetto reader: build-time fixtures (fixtures/perfetto; protoc is a
 * build requirement, so they are always there) and, in the traces part,
 * the real traces under ../shared/traces/perfetto. */

static const char *fixture(const char *name) {
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s", tc_test_build(name));
	ck_assert_msg(access(buf, R_OK) == 0, "%s: fixture not built", buf);
	return buf;
}

/*
 * Read path twice: in line, and with the packet and model halves on two
 * threads (forced, whatever the size). Both must give the same model, or
 * the same error at the same offset; the first is returned.
 */
static struct tc_model *load_err(const char *path, struct tc_error *err) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	tc_error_init(err);
	struct tc_model *m = tc_model_create();
	bool ok = tc_ingest_file(m, path, &lim, err);
	lim.reader_thread = TC_READER_THREAD_ALWAYS;
	struct tc_model *m2 = tc_model_create();
	struct tc_error e2;
	tc_error_init(&e2);
	bool ok2 = tc_ingest_file(m2, path, &lim, &e2);
	ck_assert_msg(ok == ok2 && err->code == e2.code && strcmp(err->msg, e2.msg) == 0 &&
		err->offset == e2.offset, "%s: in line '%s' at %lld, pipelined '%s' at %lld",
		path, err->msg, (long long)err->offset, e2.msg, (long long)e2.offset);
	if (ok) {
		tc_test_same_model(m, m2, path);
	}
	tc_model_destroy(m2);
	if (!ok) {
		tc_model_destroy(m);
		return NULL;
	}
	tc_model_finalize(m);
	return m;
}

static struct tc_model *load(const char *path) {
	struct tc_error err;
	struct tc_model *m = load_err(path, &err);
	ck_assert_msg(m != NULL, "%s: %s", path, err.msg);
	return m;
}

/* Index of the n-th event (in model order) whose op is called name. */
static size_t find_ev(const struct tc_model *m, const char *name, int nth) {
	for (size_t i = 0; i < m->ev.n; i++) {
		if (strcmp(tc_model_str(m, m->ops[m->ev.op[i]].name), name) == 0 && nth-- == 0) {
			return i;
		}
	}
	ck_abort_msg("no event '%s'", name);
	return 0;
}

static struct tc_arg arg(const struct tc_model *m, size_t ev, const char *key) {
	uint32_t k = tc_intern_find(&m->strings, key, strlen(key));
	ck_assert_msg(k != UINT32_MAX, "no key '%s'", key);
	struct tc_arg a;
	ck_assert_msg(tc_model_arg_find(m, tc_model_event_args(m, ev), k, &a), "no arg '%s'", key);
	return a;
}

static const char *arg_str(const struct tc_model *m, size_t ev, const char *key) {
	struct tc_arg a = arg(m, ev, key);
	ck_assert_uint_eq(a.type, TC_ARG_STR);
	return tc_model_str(m, a.v.s);
}

static const struct tc_counter *counter(const struct tc_model *m, const char *name) {
	for (size_t i = 0; i < m->n_counters; i++) {
		if (strcmp(tc_model_str(m, m->counters[i].name), name) == 0) {
			return &m->counters[i];
		}
	}
	ck_abort_msg("no counter '%s'", name);
	return NULL;
}

static bool has_warning(const struct tc_model *m, const char *part) {
	for (size_t i = 0; i < m->n_warnings; i++) {
		if (strstr(tc_model_str(m, m->warnings[i].msg), part)) {
			return true;
		}
	}
	return false;
}

static const char *dev_name(const struct tc_model *m, size_t ev) {
	return tc_model_str(m, m->devices[tc_test_track_of(m, ev)->device].name);
}

/* Copy a real trace's path into out (tc_test_trace's buffer rotates). */
static void real_trace(const char *rel, char out[4096]) {
	snprintf(out, 4096, "%s", tc_test_trace(rel));
}

/* Run fn on each named fixture. */
static void each_fixture(const char *const *names, size_t n, void (*fn)(const char *)) {
	for (size_t i = 0; i < n; i++) {
		const char *p = fixture(names[i]);
		char s[4096];
		snprintf(s, sizeof(s), "%s", p);
		fn(s);
	}
}

#define NEED(var, name) const char *var = fixture(name)

START_TEST(slices_nested) {
	NEED(p, "fixtures/perfetto/slices.pb");
	struct tc_model *m = load(p);
	ck_assert_int_eq(m->origin_ns, 5000000);
	ck_assert(!m->origin_epoch);
	ck_assert_uint_eq(m->ev.n, 7);
	size_t step = find_ev(m, "ProfilerStep#7", 0);
	size_t fwd = find_ev(m, "forward", 0);
	size_t launch = find_ev(m, "cudaLaunchKernel", 0);
	size_t mark = find_ev(m, "marker", 0);
	size_t jit = find_ev(m, "jit_compile", 0);
	size_t rd = find_ev(m, "read", 0);
	size_t gemm = find_ev(m, "gemm_kernel", 0);
	ck_assert_int_eq(m->ev.start[step], 0);
	ck_assert_int_eq(m->ev.dur[step], 10000000);
	ck_assert_int_eq(m->ev.start[fwd], 1000000);
	ck_assert_int_eq(m->ev.dur[fwd], 5000000);
	ck_assert_int_eq(m->ev.start[launch], 2000000);
	ck_assert_int_eq(m->ev.dur[launch], 1000000);
	ck_assert_int_eq(m->ev.start[mark], 2500000);
	ck_assert_int_eq(m->ev.dur[mark], 0);
	ck_assert(m->ev.flags[mark] & TC_EV_INSTANT);
	ck_assert_int_eq(m->ev.start[jit], 7000000);
	ck_assert_int_eq(m->ev.start[rd], 4000000);
	ck_assert_int_eq(m->ev.start[gemm], 3500000);
	ck_assert_int_eq(m->ev.dur[gemm], 2000000);
	ck_assert_uint_eq(m->ev.depth[step], 0);
	ck_assert_uint_eq(m->ev.depth[fwd], 1);
	ck_assert_uint_eq(m->ev.depth[launch], 2);
	ck_assert_uint_eq(m->ev.depth[mark], 3);
	ck_assert_uint_eq(m->ev.depth[jit], 1);
	/* Op kinds by name / track. */
	ck_assert_uint_eq(m->ops[m->ev.op[step]].kind, TC_OP_STEP);
	ck_assert_uint_eq(m->ops[m->ev.op[jit]].kind, TC_OP_COMPILE);
	ck_assert_uint_eq(m->ops[m->ev.op[launch]].kind, TC_OP_RUNTIME);
	ck_assert_uint_eq(m->ops[m->ev.op[fwd]].kind, TC_OP_ANNOTATION);
	ck_assert_uint_eq(m->ops[m->ev.op[gemm]].kind, TC_OP_KERNEL);
	int64_t sn;
	ck_assert(tc_model_arg_i64(m, tc_model_event_args(m, step), m->key.step, &sn));
	ck_assert_int_eq(sn, 7);
	/* Devices and tracks. */
	ck_assert_str_eq(dev_name(m, step), "trainer (pid 100)");
	ck_assert_uint_eq(m->devices[tc_test_track_of(m, step)->device].kind, TC_DEV_CPU);
	ck_assert_str_eq(tc_model_str(m, tc_test_track_of(m, step)->name), "main");
	ck_assert_uint_eq(tc_test_track_of(m, step)->kind, TC_TRACK_HOST_THREAD);
	ck_assert_int_eq(tc_test_track_of(m, step)->src_id, 101);
	ck_assert_str_eq(dev_name(m, rd), "trainer (pid 100)");
	ck_assert_uint_eq(tc_test_track_of(m, rd)->kind, TC_TRACK_OTHER);
	ck_assert_str_eq(dev_name(m, gemm), "GPU 1");
	ck_assert_uint_eq(tc_test_track_of(m, gemm)->kind, TC_TRACK_STREAM);
	ck_assert_int_eq(m->devices[tc_test_track_of(m, gemm)->device].ordinal, 1);
	/* Debug annotations. */
	ck_assert_int_eq(arg(m, fwd, "batch").v.i, -32);
	ck_assert(arg(m, fwd, "lr").v.d == 0.5);
	ck_assert_uint_eq(arg(m, fwd, "ok").type, TC_ARG_BOOL);
	ck_assert_uint_eq(arg(m, fwd, "size").v.u, UINT64_MAX);
	ck_assert_str_eq(arg_str(m, fwd, "who"), "alice");
	ck_assert_str_eq(arg_str(m, fwd, "ptr"), "0x1000");
	ck_assert_str_eq(arg_str(m, fwd, "shape"), "[2,3]");
	ck_assert_str_eq(arg_str(m, fwd, "cfg"), "{a:1,b:\"x\"}");
	/* The END's annotations join the BEGIN's; the correlation id is kept. */
	ck_assert_int_eq(arg(m, launch, "begin_arg").v.i, 4);
	ck_assert_int_eq(arg(m, launch, "end_arg").v.i, 5);
	struct tc_arg corr;
	ck_assert(tc_model_arg_find(m, tc_model_event_args(m, launch), m->key.correlation, &corr));
	ck_assert_uint_eq(corr.v.u, 99);
	ck_assert_uint_eq(m->n_warnings, 0);
	tc_model_destroy(m);
}
END_TEST

START_TEST(unbalanced) {
	NEED(p, "fixtures/perfetto/unbalanced.pb");
	struct tc_model *m = load(p);
	size_t ne = find_ev(m, "never ends", 0);
	ck_assert(m->ev.flags[ne] & TC_EV_UNFINISHED);
	ck_assert_int_eq(m->ev.start[ne], 0);
	ck_assert_int_eq(m->ev.dur[ne], 7000000);
	size_t in = find_ev(m, "inner", 0);
	ck_assert_int_eq(m->ev.dur[in], 1000000);
	ck_assert(!(m->ev.flags[in] & TC_EV_UNFINISHED));
	ck_assert(has_warning(m, "without a matching begin"));
	ck_assert(has_warning(m, "never ended"));
	/* Ends before begins in the file, two writers: paired by time. */
	size_t outer = find_ev(m, "outer", 0), inner_a = find_ev(m, "inner", 1);
	ck_assert_int_eq(m->ev.start[outer], 3000000);
	ck_assert_int_eq(m->ev.dur[outer], 3000000);
	ck_assert_int_eq(m->ev.start[inner_a], 4000000);
	ck_assert_int_eq(m->ev.dur[inner_a], 1000000);
	ck_assert_uint_eq(m->ev.depth[inner_a], 1);
	ck_assert(!(m->ev.flags[outer] & TC_EV_UNFINISHED));
	ck_assert_int_eq(arg(m, outer, "begin_note").v.i, 1);
	ck_assert_str_eq(arg_str(m, outer, "end_note"), "late");
	tc_model_destroy(m);
}
END_TEST

/* ---- a tiny encoder for hand-made traces ---- */

struct pbuf {
	uint8_t b[4096];
	size_t n;
};

static void pb_varint(struct pbuf *b, uint64_t v) {
	while (v >= 0x80) {
		b->b[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->b[b->n++] = (uint8_t)v;
}

static void pb_bytes(struct pbuf *b, uint32_t num, const void *p, size_t n) {
	pb_varint(b, (uint64_t)num << 3 | 2);
	pb_varint(b, n);
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void pb_len(struct pbuf *b, uint32_t num, const struct pbuf *inner) {
	pb_bytes(b, num, inner->b, inner->n);
}

static void pb_int(struct pbuf *b, uint32_t num, uint64_t v) {
	pb_varint(b, (uint64_t)num << 3);
	pb_varint(b, v);
}

/* A packet on sequence 1 at ts (0: none) holding msg as field num. */
static void pb_packet(struct pbuf *trace, uint64_t ts, uint32_t num, const struct pbuf *msg) {
	struct pbuf pkt = { 0 };
	if (ts) {
		pb_int(&pkt, 8, ts);
	}
	pb_int(&pkt, 10, 1);
	pb_len(&pkt, num, msg);
	pb_len(trace, 1, &pkt);
}

/* A track (uuid 1) and slice begin/end pairs named names[i] at the
 * given times, all on sequence 1. */
static struct tc_model *slices_model(const char *const *names, const uint64_t *begin,
		const uint64_t *end, size_t n, const struct tc_limits *lim) {
	struct pbuf trace = { 0 }, td = { 0 };
	pb_int(&td, 1, 1);
	pb_bytes(&td, 2, "lane", 4);
	pb_packet(&trace, 0, 60, &td);
	for (size_t i = 0; i < n; i++) {
		struct pbuf b = { 0 }, e = { 0 };
		pb_int(&b, 9, 1);
		pb_int(&b, 11, 1);
		pb_bytes(&b, 23, names[i], strlen(names[i]));
		pb_packet(&trace, begin[i], 11, &b);
		pb_int(&e, 9, 2);
		pb_int(&e, 11, 1);
		pb_packet(&trace, end[i], 11, &e);
	}
	const char *path = tc_test_tmpfile(trace.b, trace.n);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_model *m = tc_model_create();
	bool ok = tc_ingest_file(m, path, lim, &err);
	unlink(path);
	ck_assert_msg(ok, "%s", err.msg);
	tc_model_finalize(m);
	return m;
}

/* An end before its begin on the same track: 0 long, flagged and warned
 * about as a negative duration, as in the other formats. */
START_TEST(end_before_begin) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	static const char *const names[] = { "backwards", "fine" };
	static const uint64_t begin[] = { 5000, 7000 }, end[] = { 1000, 9000 };
	struct tc_model *m = slices_model(names, begin, end, 2, &lim);
	size_t b = find_ev(m, "backwards", 0), f = find_ev(m, "fine", 0);
	ck_assert_int_eq(m->ev.dur[b], 0);
	ck_assert(m->ev.flags[b] & TC_EV_CLAMPED);
	ck_assert_int_eq(m->ev.dur[f], 2000000);
	ck_assert(has_warning(m, "events with a negative duration were clamped to 0"));
	tc_model_destroy(m);
}
END_TEST

static struct tc_model *read_bytes(const struct pbuf *trace, const struct tc_limits *lim,
		struct tc_error *err) {
	const char *path = tc_test_tmpfile(trace->b, trace->n);
	tc_error_init(err);
	struct tc_model *m = tc_model_create();
	bool ok = tc_ingest_file(m, path, lim, err);
	unlink(path);
	if (!ok) {
		tc_model_destroy(m);
		return NULL;
	}
	return m;
}

/* Every limit error names the option that raises it. */
START_TEST(limit_errors_name_option) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	/* Annotations nested 4 deep under --max-depth 2. */
	struct pbuf a = { 0 };
	pb_int(&a, 7, 1); /* int_value */
	for (int i = 0; i < 4; i++) {
		struct pbuf outer = { 0 };
		pb_bytes(&outer, 10, "k", 1);
		pb_len(&outer, 11, &a);
		a = outer;
	}
	struct pbuf trace = { 0 }, td = { 0 }, ev = { 0 };
	pb_int(&td, 1, 1);
	pb_packet(&trace, 0, 60, &td);
	pb_int(&ev, 9, 3);
	pb_int(&ev, 11, 1);
	pb_bytes(&ev, 23, "deep", 4);
	pb_len(&ev, 4, &a);
	pb_packet(&trace, 1000, 11, &ev);
	lim.max_depth = 2;
	ck_assert(read_bytes(&trace, &lim, &err) == NULL);
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	ck_assert_msg(strstr(err.msg, "(raise it with --max-depth)") != NULL, "%s", err.msg);
	/* A compressed_packets bundle inflating past --max-input-size. */
	lim.max_depth = 64;
	size_t n = 4000, zn;
	uint8_t *inner = malloc(n);
	for (size_t i = 0; i < n; i += 4) {
		memcpy(inner + i, "\x0a\x02\x50\x01", 4);
	}
	uint8_t *z = tc_test_deflate(inner, n, 15, 6, &zn);
	struct pbuf bundle = { 0 }, pkt = { 0 };
	pb_bytes(&pkt, 50, z, zn);
	pb_len(&bundle, 1, &pkt);
	lim.max_input = 1000;
	ck_assert(read_bytes(&bundle, &lim, &err) == NULL);
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	ck_assert_msg(strstr(err.msg, "(raise it with --max-input-size)") != NULL, "%s",
		err.msg);
	free(z);
	free(inner);
}
END_TEST

/* Whether s is valid UTF-8 (well-formed sequences; overlongs not checked). */
static bool utf8_valid(const char *s) {
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int tail = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 :
			(*p & 0xF8) == 0xF0 ? 3 : -1;
		if (tail < 0) {
			return false;
		}
		p++;
		for (int i = 0; i < tail; i++, p++) {
			if ((*p & 0xC0) != 0x80) {
				return false;
			}
		}
	}
	return true;
}

/* --max-string cuts a slice name with 2-, 3- and 4-byte characters at
 * every length, backing off to the last whole character; so does the
 * text of a nested debug annotation. */
START_TEST(max_string_utf8) {
	static const char name[] = "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
	static const size_t keep[13] = { 0, 1, 2, 2, 4, 4, 4, 7, 7, 7, 7, 11, 12 };
	static const char *const names[] = { name };
	static const uint64_t begin[] = { 1000 }, end[] = { 2000 };
	for (uint32_t max = 1; max <= 12; max++) {
		struct tc_limits lim;
		tc_limits_default(&lim);
		lim.max_string = max;
		struct tc_model *m = slices_model(names, begin, end, 1, &lim);
		ck_assert_uint_eq(m->ev.n, 1);
		const char *got = tc_model_str(m, m->ops[m->ev.op[0]].name);
		ck_assert_msg(strlen(got) == keep[max] && memcmp(got, name, keep[max]) == 0,
			"max %u: kept %zu bytes, want %zu", max, strlen(got), keep[max]);
		tc_model_destroy(m);
	}
	/* {"k":"<name>"} as text: the value starts at byte 6 of it. */
	struct pbuf v = { 0 }, a = { 0 };
	pb_bytes(&v, 10, "k", 1);
	pb_bytes(&v, 6, name, strlen(name));
	pb_bytes(&a, 10, "d", 1);
	pb_len(&a, 11, &v);
	for (uint32_t max = 7; max <= 18; max++) {
		struct pbuf trace = { 0 }, td = { 0 }, ev = { 0 };
		pb_int(&td, 1, 1);
		pb_packet(&trace, 0, 60, &td);
		pb_int(&ev, 9, 3);
		pb_int(&ev, 11, 1);
		pb_bytes(&ev, 23, "i", 1);
		pb_len(&ev, 4, &a);
		pb_packet(&trace, 1000, 11, &ev);
		struct tc_limits lim;
		tc_limits_default(&lim);
		lim.max_string = max;
		struct tc_error err;
		struct tc_model *m = read_bytes(&trace, &lim, &err);
		ck_assert_msg(m != NULL, "%s", err.msg);
		tc_model_finalize(m);
		const char *t = arg_str(m, 0, "d");
		ck_assert_uint_le(strlen(t), max);
		ck_assert_msg(utf8_valid(t), "max %u: '%s' is not valid UTF-8", max, t);
		tc_model_destroy(m);
	}
}
END_TEST

static void ck_samples(const struct tc_model *m, const char *name, const char *unit,
		const double *want, size_t n) {
	const struct tc_counter *c = counter(m, name);
	ck_assert_str_eq(tc_model_str(m, c->unit), unit);
	ck_assert_uint_eq(c->count, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(fabs(m->samples.value[c->first + i] - want[i]) < 1e-9,
			"%s[%zu] = %g, want %g", name, i, m->samples.value[c->first + i], want[i]);
	}
}

START_TEST(counters) {
	NEED(p, "fixtures/perfetto/counters.pb");
	struct tc_model *m = load(p);
	ck_samples(m, "mem", "bytes", (double[]){ 3072 }, 1);
	ck_samples(m, "load", "%", (double[]){ 12.5 }, 1);
	/* Incremental: 100, +50; reset; 7, +1. */
	ck_samples(m, "bytes sent", "bytes", (double[]){ 100, 150, 7, 8 }, 4);
	ck_samples(m, "thread time", "ns", (double[]){ 700, 900 }, 2);
	ck_samples(m, "temp", "", (double[]){ 36.6 }, 1);
	const struct tc_counter *tt = counter(m, "thread time");
	ck_assert_str_eq(tc_model_str(m, tt->group), "t51");
	ck_assert_str_eq(tc_model_str(m, m->devices[tt->device].name), "app (pid 50)");
	ck_assert_uint_eq(counter(m, "load")->device, TC_NONE);
	/* Samples are ps from the origin (1000 ns). */
	const struct tc_counter *bs = counter(m, "bytes sent");
	ck_assert_int_eq(m->samples.ts[bs->first + 3], 5000000);
	/* The slice went to the default track (thread 51). */
	size_t w = find_ev(m, "work", 0);
	ck_assert_str_eq(tc_model_str(m, tc_test_track_of(m, w)->name), "t51");
	tc_model_destroy(m);
}
END_TEST

START_TEST(interning_reset) {
	NEED(p, "fixtures/perfetto/interning.pb");
	struct tc_model *m = load(p);
	ck_assert_uint_eq(m->ev.n, 4);
	const char *want[] = { "alpha", "beta", "gamma", "gamma" };
	for (size_t i = 0; i < 4; i++) {
		ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[i]].name), want[i]);
		ck_assert_int_eq(m->ev.start[i], (int64_t)i * 1000000);
	}
	ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[0]].category), "catA");
	ck_assert_str_eq(arg_str(m, 0, "argA"), "valueA");
	ck_assert_int_eq(arg(m, 2, "argG").v.i, 9);
	/* After the reset the category table is empty too. */
	ck_assert_uint_eq(m->ops[m->ev.op[3]].category, 0);
	ck_assert(has_warning(m, "need incremental state"));
	tc_model_destroy(m);
}
END_TEST

START_TEST(clocks) {
	NEED(p, "fixtures/perfetto/clocks.pb");
	struct tc_model *m = load(p);
	/* Earliest event: "mono" at MONOTONIC 4001000 = BOOTTIME 10001000. */
	ck_assert_int_eq(m->origin_ns, 10001000);
	size_t mono = find_ev(m, "mono", 0);
	size_t delta = find_ev(m, "delta", 0);
	size_t after = find_ev(m, "after resync", 0);
	ck_assert_int_eq(m->ev.start[mono], 0);
	ck_assert_int_eq(m->ev.dur[mono], 1000000);
	/* Clock 64: 10000 us + 5 us, then +20 us. */
	ck_assert_int_eq(m->ev.start[delta], 4000000);
	ck_assert_int_eq(m->ev.dur[delta], 20000000);
	/* The second snapshot: MONOTONIC 13000000 = BOOTTIME 20000000. */
	ck_assert_int_eq(m->ev.start[after], (20000500LL - 10001000LL) * 1000);
	ck_assert_uint_eq(m->n_warnings, 0);
	tc_model_destroy(m);
}
END_TEST

/* A hand-made trace that must read, finalized. */
static struct tc_model *read_finalized(const struct pbuf *trace) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	struct tc_model *m = read_bytes(trace, &lim, &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	tc_model_finalize(m);
	return m;
}

/* Snapshot fields of the wrong wire type are skipped, as they always were
 * (protobuf-c alone would refuse the snapshot). */
START_TEST(clock_snapshot_wrong_wire_types) {
	struct pbuf trace = { 0 }, cs = { 0 }, boot = { 0 }, mono = { 0 }, td = { 0 };
	pb_int(&boot, 1, 6);
	pb_bytes(&boot, 1, "x", 1);
	pb_int(&boot, 2, 10000000);
	pb_int(&mono, 1, 3);
	pb_int(&mono, 2, 4000000);
	pb_bytes(&mono, 3, "y", 1);
	pb_len(&cs, 1, &boot);
	pb_bytes(&cs, 2, "z", 1);
	pb_len(&cs, 1, &mono);
	pb_packet(&trace, 0, 6, &cs);
	pb_int(&td, 1, 1);
	pb_bytes(&td, 2, "lane", 4);
	pb_packet(&trace, 0, 60, &td);
	for (int i = 0; i < 2; i++) {
		struct pbuf ev = { 0 }, pkt = { 0 };
		pb_int(&ev, 9, i == 0 ? 1 : 2);
		pb_int(&ev, 11, 1);
		if (i == 0) {
			pb_bytes(&ev, 23, "mono", 4);
		}
		pb_int(&pkt, 8, i == 0 ? 4001000 : 4002000);
		pb_int(&pkt, 58, 3); /* timestamp_clock_id: MONOTONIC */
		pb_int(&pkt, 10, 1);
		pb_len(&pkt, 11, &ev);
		pb_len(&trace, 1, &pkt);
	}
	struct tc_model *m = read_finalized(&trace);
	/* MONOTONIC 4001000 = BOOTTIME 10001000. */
	ck_assert_int_eq(m->origin_ns, 10001000);
	ck_assert_int_eq(m->ev.dur[find_ev(m, "mono", 0)], 1000000);
	tc_model_destroy(m);
}
END_TEST

/* So are descriptor and defaults fields of the wrong wire type, and the
 * rest of each message is read. */
START_TEST(descriptors_wrong_wire_types) {
	struct pbuf trace = { 0 }, td = { 0 }, th = { 0 }, defs = { 0 }, ted = { 0 };
	struct pbuf ev = { 0 }, pkt = { 0 };
	pb_int(&th, 1, 7);
	pb_int(&th, 2, 8);
	pb_int(&th, 5, 1);         /* thread_name as a varint */
	pb_int(&td, 1, 1);
	pb_bytes(&td, 2, "lane", 4);
	pb_bytes(&td, 12, "x", 1); /* sibling_order_rank as LEN */
	pb_len(&td, 4, &th);
	pb_packet(&trace, 0, 60, &td);
	struct pbuf td2 = { 0 }, th2 = { 0 };
	pb_bytes(&th2, 5, "", 0);  /* empty names: protobuf-c leaves data NULL */
	pb_int(&td2, 1, 2);
	pb_bytes(&td2, 2, "", 0);
	pb_len(&td2, 4, &th2);
	pb_packet(&trace, 0, 60, &td2);
	pb_int(&ted, 11, 1);       /* the events' track: the lane */
	pb_bytes(&defs, 58, "y", 1); /* timestamp_clock_id as LEN */
	pb_len(&defs, 11, &ted);
	pb_int(&ev, 9, 3);
	pb_bytes(&ev, 23, "tick", 4);
	pb_int(&pkt, 8, 5000);
	pb_int(&pkt, 10, 1);
	pb_len(&pkt, 59, &defs);
	pb_len(&pkt, 11, &ev);
	pb_len(&trace, 1, &pkt);
	struct tc_model *m = read_finalized(&trace);
	uint32_t t = tc_model_event_track(m, find_ev(m, "tick", 0));
	ck_assert_str_eq(tc_model_str(m, m->tracks[t].name), "lane");
	tc_model_destroy(m);
}
END_TEST

static bool flow_between(const struct tc_model *m, const char *a, const char *b, uint64_t id) {
	for (size_t i = 0; i < m->n_flows; i++) {
		const struct tc_flow *f = &m->flows[i];
		if (f->id == id &&
				strcmp(tc_model_str(m, m->ops[m->ev.op[f->from]].name), a) == 0 &&
				strcmp(tc_model_str(m, m->ops[m->ev.op[f->to]].name), b) == 0) {
			return true;
		}
	}
	return false;
}

START_TEST(flows) {
	NEED(p, "fixtures/perfetto/flows.pb");
	struct tc_model *m = load(p);
	ck_assert_uint_eq(m->n_flows, 3);
	ck_assert(flow_between(m, "send", "relay", 42));
	ck_assert(flow_between(m, "relay", "recv", 42));
	ck_assert(flow_between(m, "send", "recv", 7));
	tc_model_destroy(m);
}
END_TEST

START_TEST(gpu_packets) {
	NEED(p, "fixtures/perfetto/gpu.pb");
	struct tc_model *m = load(p);
	ck_assert_uint_eq(m->ev.n, 3);
	/* Kernel name wins over the stage name; the queue names the track. */
	size_t va = find_ev(m, "vector_add", 0);
	size_t st = find_ev(m, "vertex", 0);
	size_t cp = find_ev(m, "Memcpy HtoD", 0);
	ck_assert_str_eq(dev_name(m, va), "GPU 0");
	ck_assert_str_eq(tc_model_str(m, tc_test_track_of(m, va)->name), "compute queue");
	ck_assert_uint_eq(tc_test_track_of(m, va)->kind, TC_TRACK_STREAM);
	ck_assert_uint_eq(tc_model_event_track(m, va), tc_model_event_track(m, st));
	ck_assert_int_eq(m->ev.start[va], 0);
	ck_assert_int_eq(m->ev.dur[va], 500000);
	ck_assert_int_eq(m->ev.start[st], 1000000);
	ck_assert_int_eq(m->ev.dur[st], 250000);
	ck_assert_uint_eq(m->ops[m->ev.op[va]].kind, TC_OP_KERNEL);
	ck_assert_uint_eq(m->ops[m->ev.op[cp]].kind, TC_OP_MEMCPY_H2D);
	ck_assert_str_eq(dev_name(m, cp), "GPU 1");
	ck_assert_int_eq(tc_test_track_of(m, cp)->src_id, 3);
	ck_samples(m, "GPU Frequency", "", (double[]){ 1500, 1750.5 }, 2);
	const struct tc_counter *c = counter(m, "GPU Frequency");
	ck_assert_str_eq(tc_model_str(m, m->devices[c->device].name), "GPU 0");
	ck_assert_uint_eq(m->n_ops, 3);
	tc_model_destroy(m);
}
END_TEST

START_TEST(legacy_descriptors) {
	NEED(p, "fixtures/perfetto/legacy.pb");
	struct tc_model *m = load(p);
	ck_assert_uint_eq(m->ev.n, 4);
	size_t fr = find_ev(m, "frame", 0), dr = find_ev(m, "draw", 0);
	size_t tick = find_ev(m, "delta tick", 0), ld = find_ev(m, "load", 0);
	ck_assert_str_eq(dev_name(m, fr), "renderer (pid 77)");
	ck_assert_str_eq(tc_model_str(m, tc_test_track_of(m, fr)->name), "compositor");
	ck_assert_uint_eq(tc_test_track_of(m, fr)->kind, TC_TRACK_HOST_THREAD);
	ck_assert_int_eq(tc_test_track_of(m, fr)->src_id, 78);
	ck_assert_int_eq(m->ev.dur[fr], 4000000);
	/* X: duration_us 2. */
	ck_assert_int_eq(m->ev.start[dr], 1000000);
	ck_assert_int_eq(m->ev.dur[dr], 2000000);
	ck_assert_uint_eq(m->ev.depth[dr], 1);
	/* reference_timestamp_us 1000 + delta 5 us. */
	ck_assert_int_eq(m->ev.start[tick], 5000000);
	ck_assert_uint_eq(tc_model_event_track(m, tick), tc_model_event_track(m, fr));
	/* Async S/F with global id 9: a track of its own, named after the event. */
	ck_assert_int_eq(m->ev.start[ld], 500000);
	ck_assert_int_eq(m->ev.dur[ld], 3000000);
	ck_assert_int_eq(tc_test_track_of(m, ld)->src_id, 9);
	ck_assert_str_eq(tc_model_str(m, tc_test_track_of(m, ld)->name), "load");
	tc_model_destroy(m);
}
END_TEST

/* Event count, sums of start/dur/depth and of sample values: equal models. */
static void digest(const struct tc_model *m, double out[6]) {
	memset(out, 0, 6 * sizeof(double));
	out[0] = (double)m->ev.n;
	for (size_t i = 0; i < m->ev.n; i++) {
		out[1] += (double)m->ev.start[i];
		out[2] += (double)m->ev.dur[i];
		out[3] += m->ev.depth[i];
	}
	for (size_t i = 0; i < m->samples.n; i++) {
		out[4] += m->samples.value[i];
	}
	out[5] = (double)m->n_flows * 1000 + (double)m->n_tracks;
}

static void same_model(const char *a, const char *b) {
	struct tc_model *ma = load(a), *mb = load(b);
	double da[6], db[6];
	digest(ma, da);
	digest(mb, db);
	for (int i = 0; i < 6; i++) {
		ck_assert_msg(da[i] == db[i], "%s vs %s: digest %d %g != %g", a, b, i,
			da[i], db[i]);
	}
	ck_assert_int_eq(ma->origin_ns, mb->origin_ns);
	tc_model_destroy(ma);
	tc_model_destroy(mb);
}

START_TEST(compressed_same) {
	const char *names[] = { "slices", "counters", "interning" };
	for (size_t i = 0; i < 3; i++) {
		char a[256], b[256];
		snprintf(a, sizeof(a), "fixtures/perfetto/%s.pb", names[i]);
		snprintf(b, sizeof(b), "fixtures/perfetto/%s.compressed.pb", names[i]);
		const char *pa = fixture(a);
		char sa[4096];
		snprintf(sa, sizeof(sa), "%s", pa);
		const char *pb = fixture(b);
		ck_assert(pb != NULL);
		same_model(sa, pb);
	}
	const char *pa = fixture("fixtures/perfetto/slices.pb");
	char sa[4096];
	snprintf(sa, sizeof(sa), "%s", pa);
	same_model(sa, fixture("fixtures/perfetto/slices.pb.gz"));
}
END_TEST

#if TC_HAVE_ZSTD
static size_t put_varint(unsigned char *p, uint64_t v) {
	size_t n = 0;
	do {
		p[n++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/*
 * path's packets re-wrapped `group` at a time into zstd_compressed_packets
 * bundles (field 133, one frame each), written to a temporary file. cut > 0
 * drops that many bytes off the end of the last frame.
 */
static const char *zstd_rewrap(const char *path, size_t group, size_t cut) {
	size_t n;
	unsigned char *in = tc_test_slurp(path, &n);
	/* A packet takes 2 bytes or more; a frame adds at most 64 + 32 framing. */
	size_t cap = ZSTD_compressBound(n) + (n / 2 + 1) * 96, len = 0;
	unsigned char *buf = malloc(cap), *frame = malloc(cap);
	size_t pos = 0;
	while (pos < n) {
		size_t start = pos;
		for (size_t k = 0; k < group && pos < n; k++) {
			ck_assert_uint_eq(in[pos], 0x0a);
			uint64_t plen = 0;
			size_t i = pos + 1;
			int shift = 0;
			do {
				plen |= (uint64_t)(in[i] & 0x7f) << shift;
				shift += 7;
			} while (in[i++] & 0x80);
			pos = i + plen;
		}
		size_t fl = ZSTD_compress(frame, cap, in + start, pos - start, 3);
		ck_assert(!ZSTD_isError(fl));
		if (pos >= n && cut) {
			fl -= cut;
		}
		unsigned char body[16];
		size_t bl = put_varint(body, 133u << 3 | 2);
		bl += put_varint(body + bl, fl);
		ck_assert_uint_le(len + 12 + bl + fl, cap);
		buf[len++] = 0x0a;
		len += put_varint(buf + len, bl + fl);
		memcpy(buf + len, body, bl);
		memcpy(buf + len + bl, frame, fl);
		len += bl + fl;
	}
	const char *out = tc_test_tmpfile(buf, len);
	free(in);
	free(buf);
	free(frame);
	return out;
}

/* The same trace whole in one zstd stream of two frames. */
static const char *zstd_file(const char *path) {
	size_t n;
	unsigned char *in = tc_test_slurp(path, &n);
	size_t cap = ZSTD_compressBound(n) * 2, half = n / 2;
	unsigned char *buf = malloc(cap);
	size_t a = ZSTD_compress(buf, cap, in, half, 1);
	ck_assert(!ZSTD_isError(a));
	size_t b = ZSTD_compress(buf + a, cap - a, in + half, n - half, 19);
	ck_assert(!ZSTD_isError(b));
	const char *out = tc_test_tmpfile(buf, a + b);
	free(in);
	free(buf);
	return out;
}
#endif

/* zstd bundles and zstd files read as their plain trace; a cut frame is an
 * error at its bundle's packet. */
START_TEST(zstd_same) {
#if TC_HAVE_ZSTD
	const char *names[] = { "slices", "counters", "interning", "flows" };
	for (size_t i = 0; i < 4; i++) {
		char a[256], plain[4096];
		snprintf(a, sizeof(a), "fixtures/perfetto/%s.pb", names[i]);
		const char *pa = fixture(a);
		snprintf(plain, sizeof(plain), "%s", pa);
		for (size_t group = 1; group <= 64; group *= 8) {
			const char *z = zstd_rewrap(plain, group, 0);
			same_model(plain, z);
			unlink(z);
		}
		const char *z = zstd_file(plain);
		same_model(plain, z);
		unlink(z);
	}
	char plain[4096];
	snprintf(plain, sizeof(plain), "%s", fixture("fixtures/perfetto/slices.pb"));
	const char *z = zstd_rewrap(plain, 1000, 5);
	struct tc_error err;
	ck_assert(load_err(z, &err) == NULL);
	ck_assert_int_eq(err.code, 3);
	ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
	ck_assert_int_eq(err.offset, 0);
	unlink(z);
#endif
}
END_TEST

/* slices.pb copies times over, with extra[0, nx) before copy `at` (after
 * the last when at == copies; none when nx is 0). *one: the fixture's
 * size. */
static unsigned char *slices_times(size_t copies, const unsigned char *extra, size_t nx,
		size_t at, size_t *len, size_t *one) {
	const char *pa = fixture("fixtures/perfetto/slices.pb");
	unsigned char *s = tc_test_slurp(pa, one);
	*len = copies * *one + nx;
	unsigned char *buf = malloc(*len), *o = buf;
	for (size_t i = 0; i <= copies; i++) {
		if (i == at && nx) {
			memcpy(o, extra, nx);
			o += nx;
		}
		if (i < copies) {
			memcpy(o, s, *one);
			o += *one;
		}
	}
	free(s);
	return buf;
}

static struct tc_model *read_with(const char *path, const struct tc_limits *lim,
		struct tc_error *err) {
	tc_error_init(err);
	struct tc_model *m = tc_model_create();
	if (!tc_ingest_file(m, path, lim, err)) {
		tc_model_destroy(m);
		return NULL;
	}
	return m;
}

/*
 * A gzip'd trace is walked while it is inflated (a view that grows): 20 MiB,
 * so several chunks, pipelined, with pages released behind the reader,
 * and a helper held to 64 KiB ahead of it so the two wait on each other
 * all along. The same events as the plain file, in line and pipelined;
 * cut, a truncated gzip stream; over the size cap, the cap's error.
 */
START_TEST(growing_view) {
	size_t copies = (20u << 20) / 562 + 1, len, n; /* 20 MiB: slices.pb is 562 B */
	unsigned char *big = slices_times(copies, NULL, 0, 0, &len, &n);
	size_t zn;
	uint8_t *z = tc_test_deflate(big, len, 15 + 16, 1, &zn);
	/* One path for all: the model keeps it. */
	char path[64];
	snprintf(path, sizeof(path), "%s", tc_test_tmpfile(big, len));
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.view_ahead = 64u << 10;
	const uint8_t modes[] = { 0, TC_READER_THREAD_ALWAYS };
	for (size_t k = 0; k < 2; k++) {
		lim.reader_thread = modes[k];
		lim.max_input = (uint64_t)64 << 30;
		struct tc_error err;
		tc_test_write(path, big, len);
		struct tc_model *a = read_with(path, &lim, &err);
		ck_assert_msg(a != NULL, "%s", err.msg);
		tc_test_write(path, z, zn);
		struct tc_model *b = read_with(path, &lim, &err);
		ck_assert_msg(b != NULL, "%s", err.msg);
		ck_assert_uint_ge(b->ev.n, copies);
		/* Not tc_test_same_model: the compression's name is a string. */
		tc_model_finalize(a);
		tc_model_finalize(b);
		double da[6], db[6];
		digest(a, da);
		digest(b, db);
		ck_assert_mem_eq(da, db, sizeof(da));
		ck_assert_int_eq(a->origin_ns, b->origin_ns);
		ck_assert_uint_eq(a->n_ops, b->n_ops);
		tc_model_destroy(a);
		tc_model_destroy(b);
		lim.max_input = 5u << 20;
		ck_assert(read_with(path, &lim, &err) == NULL);
		ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
		/* Cut: the helper may meet the cut long before the reader (the
		 * default reads 64 MiB ahead) or just in time. */
		lim.max_input = (uint64_t)64 << 30;
		tc_test_write(path, z, zn / 2);
		const size_t aheads[] = { 64u << 10, 0 };
		for (size_t j = 0; j < 2; j++) {
			lim.view_ahead = aheads[j];
			ck_assert(read_with(path, &lim, &err) == NULL);
			ck_assert_int_eq(err.code, TC_EXIT_INPUT);
			ck_assert_msg(strstr(err.msg, "gzip stream is truncated") != NULL,
				"ahead %zu: %s", aheads[j], err.msg);
		}
		lim.view_ahead = 64u << 10;
	}
	unlink(path);
	free(z);
	free(big);
}
END_TEST

/*
 * A gzip'd trace with a broken packet early and a cut stream later: the
 * packet's error comes first in the bytes, so it is the error, read in line
 * or pipelined (load_err compares the two), however far ahead the
 * decompression has got.
 */
START_TEST(growing_view_error_order) {
	/* A TracePacket whose one field is a truncated varint. */
	static const unsigned char bad[] = { 0x0a, 0x02, 0x40, 0xff };
	size_t len, n;
	unsigned char *buf = slices_times(1100, bad, sizeof(bad), 100, &len, &n);
	size_t zn;
	uint8_t *z = tc_test_deflate(buf, len, 15 + 16, 1, &zn);
	const char *path = tc_test_tmpfile(z, zn * 3 / 4);
	char keep[64];
	snprintf(keep, sizeof(keep), "%s", path);
	struct tc_error err;
	ck_assert(load_err(keep, &err) == NULL);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "TracePacket") != NULL, "%s", err.msg);
	ck_assert_int_eq(err.offset, (int64_t)(100 * n + 2)); /* its field */
	unlink(keep);
	free(z);
	free(buf);
}
END_TEST

/* A zstd_compressed_packets bundle that is not zstd, after a valid trace:
 * refused at the bundle's packet, with or without libzstd (never skipped). */
START_TEST(zstd_bundle_refused) {
	static const unsigned char bad[] = {
		0x0a, 19, 0xaa, 0x08, 16, 'n', 'o', 't', ' ', 'a', ' ', 'z', 's', 't', 'd', ' ',
		'f', 'r', 'a', 'm', 'e',
	};
	size_t len, n;
	unsigned char *in = slices_times(1, bad, sizeof(bad), 1, &len, &n);
	const char *path = tc_test_tmpfile(in, len);
	free(in);
	struct tc_error err;
	ck_assert(load_err(path, &err) == NULL);
	ck_assert_int_eq(err.code, 3);
	ck_assert_int_eq(err.offset, (int64_t)n);
	ck_assert_msg(strstr(err.msg, TC_HAVE_ZSTD ? "corrupt" : "without libzstd") != NULL,
		"%s", err.msg);
	unlink(path);
}
END_TEST

/*
 * A broken TrackEvent inside a compressed_packets bundle, after a valid
 * trace: the model half finds it, and reports the bundle's packet (offsets
 * inside the inflated bytes mean nothing in the file), in line or pipelined.
 */
START_TEST(bundle_error_at_bundle) {
	/* A packet whose TrackEvent (11) holds a cut varint (type, field 9). */
	static const unsigned char inner[] = { 0x0a, 0x04, 0x5a, 0x02, 0x48, 0xff };
	size_t zn;
	uint8_t *z = tc_test_deflate(inner, sizeof(inner), 15, 6, &zn);
	ck_assert_uint_lt(zn, 120);
	unsigned char bad[128] = { 0x0a, (unsigned char)(zn + 3), 0x92, 0x03, (unsigned char)zn };
	memcpy(bad + 5, z, zn);
	free(z);
	size_t len, n;
	unsigned char *in = slices_times(1, bad, 5 + zn, 1, &len, &n);
	const char *path = tc_test_tmpfile(in, len);
	free(in);
	struct tc_error err;
	ck_assert(load_err(path, &err) == NULL);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "malformed TrackEvent") != NULL, "%s", err.msg);
	ck_assert_int_eq(err.offset, (int64_t)n);
	unlink(path);
}
END_TEST

/* Offsets where a top-level packet ends (cutting there leaves a valid file). */
static bool on_boundary(const unsigned char *b, size_t len, size_t cut) {
	size_t i = 0;
	while (i < len) {
		if (i == cut) {
			return true;
		}
		size_t j = i + 1;
		uint64_t n = 0;
		for (unsigned sh = 0; j < len; sh += 7) {
			n |= (uint64_t)(b[j] & 0x7f) << sh;
			if (b[j++] < 0x80) {
				break;
			}
		}
		i = j + n;
	}
	return i == cut;
}

static void truncate_all(const char *path) {
	size_t len;
	unsigned char *b = tc_test_slurp(path, &len);
	ck_assert(b != NULL);
	/* tmpfs when there is one: a disk file per cut is slow. */
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%s/tc_perfetto_cut_XXXXXX",
		access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	int fd = mkstemp(tmp);
	ck_assert(fd >= 0);
	ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
	/* Cut from the end down, shrinking the one file. */
	for (size_t cut = len - 1; cut > 0; cut--) {
		ck_assert_int_eq(ftruncate(fd, (off_t)cut), 0);
		struct tc_error err;
		struct tc_model *m = load_err(tmp, &err);
		if (on_boundary(b, len, cut)) {
			ck_assert_msg(m != NULL, "%s cut at %zu (a packet boundary): %s",
				path, cut, err.msg);
		} else {
			ck_assert_msg(m == NULL, "%s cut at %zu read without error", path, cut);
			ck_assert_int_eq(err.code, TC_EXIT_INPUT);
			ck_assert(err.msg[0] != '\0');
		}
		tc_model_destroy(m);
	}
	close(fd);
	unlink(tmp);
	free(b);
}

/* Random byte changes: any outcome but a crash, hang or odd exit code. */
static void mutate_all(const char *path) {
	const unsigned rounds = 300;
	size_t len;
	unsigned char *b = tc_test_slurp(path, &len);
	ck_assert(b != NULL);
	unsigned char *c = malloc(len);
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%s/tc_perfetto_mut_XXXXXX",
		access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	int fd = mkstemp(tmp);
	ck_assert(fd >= 0);
	uint32_t seed = 12345;
	for (unsigned r = 0; r < rounds; r++) {
		memcpy(c, b, len);
		unsigned flips = 1 + r % 4;
		for (unsigned k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			c[at] = (unsigned char)(seed >> 16);
		}
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(pwrite(fd, c, len, 0), (ssize_t)len);
		struct tc_error err;
		struct tc_model *m = load_err(tmp, &err);
		if (!m) {
			ck_assert_msg(err.code == TC_EXIT_INPUT || err.code == TC_EXIT_LIMIT,
				"round %u: code %d (%s)", r, err.code, err.msg);
		}
		tc_model_destroy(m);
	}
	close(fd);
	unlink(tmp);
	free(c);
	free(b);
}

START_TEST(mutations) {
	const char *names[] = {
		"fixtures/perfetto/slices.pb", "fixtures/perfetto/counters.pb",
		"fixtures/perfetto/interning.pb", "fixtures/perfetto/clocks.pb",
		"fixtures/perfetto/flows.pb", "fixtures/perfetto/slices.compressed.pb",
	};
	each_fixture(names, sizeof(names) / sizeof(names[0]), mutate_all);
}
END_TEST

START_TEST(truncation) {
	const char *names[] = {
		"fixtures/perfetto/slices.pb", "fixtures/perfetto/counters.pb",
		"fixtures/perfetto/clocks.pb", "fixtures/perfetto/slices.compressed.pb",
	};
	each_fixture(names, sizeof(names) / sizeof(names[0]), truncate_all);
}
END_TEST

START_TEST(malformed_message) {
	char tmp[] = "/tmp/tc_perfetto_bad_XXXXXX";
	int fd = mkstemp(tmp);
	ck_assert(fd >= 0);
	/* A good packet {seq 1, timestamp 5}, then one that claims 100 bytes. */
	const unsigned char bad[] = { 0x0a, 0x04, 0x50, 0x01, 0x40, 0x05, 0x0a, 0x64, 0x50 };
	ck_assert_int_eq(write(fd, bad, sizeof(bad)), (ssize_t)sizeof(bad));
	close(fd);
	struct tc_error err;
	struct tc_model *m = load_err(tmp, &err);
	ck_assert(m == NULL);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_str_eq(err.msg, "perfetto: packet length runs past the end of the file");
	ck_assert_int_eq(err.offset, 6);
	/* A bad varint inside a TrackEvent. */
	const unsigned char bad2[] = {
		0x0a, 0x06, 0x40, 0x05, 0x5a, 0x02, 0x48, 0xff,
	};
	FILE *f = fopen(tmp, "wb");
	ck_assert(f != NULL);
	ck_assert_uint_eq(fwrite(bad2, 1, sizeof(bad2), f), sizeof(bad2));
	fclose(f);
	m = load_err(tmp, &err);
	ck_assert(m == NULL);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_str_eq(err.msg, "perfetto: malformed TrackEvent: truncated or over-long varint");
	ck_assert_int_eq(err.offset, 6);
	unlink(tmp);
}
END_TEST

START_TEST(sniff_rules) {
	/* TracePacket {timestamp 8, trusted_packet_sequence_id 10}. */
	const uint8_t pf[] = { 0x0a, 0x04, 0x40, 0x05, 0x50, 0x01 };
	ck_assert_int_ge(tc_reader_perfetto.sniff(pf, sizeof(pf)), 70);
	/* XSpace { XPlane { id 1, name "/host:CPU", lines {} } }. */
	const uint8_t xs[] = {
		0x0a, 0x0f, 0x08, 0x01, 0x12, 0x09, '/', 'h', 'o', 's', 't', ':', 'C', 'P', 'U',
		0x1a, 0x00,
	};
	ck_assert_int_eq(tc_reader_perfetto.sniff(xs, sizeof(xs)), 0);
	/* A head cut inside an XPlane's name: still not Perfetto. */
	const uint8_t cut[] = { 0x0a, 0xff, 0x05, 0x12 };
	ck_assert_int_eq(tc_reader_perfetto.sniff(cut, sizeof(cut)), 0);
	const struct tc_reader *r = tc_ingest_sniff(pf, sizeof(pf));
	ck_assert(r == &tc_reader_perfetto);
	const uint8_t json[] = "{\"traceEvents\": []}";
	ck_assert_int_eq(tc_reader_perfetto.sniff(json, sizeof(json) - 1), 0);
}
END_TEST

/* ---- real traces ---- */

static void ingest_dir(const char *rel, const char *suffix) {
	const char *d = tc_test_trace(rel);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", d);
	DIR *dp = opendir(dir);
	ck_assert(dp != NULL);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name), k = strlen(suffix);
		if (l < k || strcmp(de->d_name + l - k, suffix) != 0) {
			continue;
		}
		char p[8192];
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		struct tc_model *m = load(p);
		ck_assert_str_eq(tc_model_str(m, m->sources[0].format), "perfetto");
		tc_model_destroy(m);
		n++;
	}
	closedir(dp);
	ck_assert_int_gt(n, 0);
}

START_TEST(real_all_ingest) {
	ingest_dir("perfetto", ".pb");
	ingest_dir("perfetto", ".perfetto-trace");
	ingest_dir("perfetto/from_textproto", ".pb");
	ingest_dir("perfetto/synthetic", ".pftrace");
}
END_TEST

START_TEST(real_nested_tracks) {
	char plain[4096], c[4096];
	real_trace("perfetto/perfetto-nested_tracks.perfetto-trace", plain);
	struct tc_model *m = load(plain);
	ck_assert_uint_eq(m->ev.n, 1364);
	ck_assert_uint_eq(m->n_tracks, 1364);
	size_t with_parent = 0;
	for (size_t i = 0; i < m->n_tracks; i++) {
		with_parent += m->tracks[i].parent != TC_NONE;
	}
	/* Four top-level tracks; every other descriptor names its parent. */
	ck_assert_uint_eq(with_parent, 1360);
	for (size_t i = 0; i < m->ev.n; i++) {
		ck_assert(!(m->ev.flags[i] & TC_EV_UNFINISHED));
	}
	ck_assert_uint_eq(m->n_warnings, 0);
	tc_model_destroy(m);
	real_trace("perfetto/synthetic/nested_tracks.compressed_packets.pftrace", c);
	same_model(plain, c);
}
END_TEST

START_TEST(real_synthetic_interned) {
	char plain[4096], c[4096];
	real_trace("perfetto/synthetic/synthetic_interned.pftrace", plain);
	struct tc_model *m = load(plain);
	/* Origin: the first slice, MONOTONIC 900001000 = BOOTTIME 1000001000. */
	ck_assert_int_eq(m->origin_ns, 1000001000);
	size_t step = find_ev(m, "ProfilerStep#0", 0);
	size_t mm = find_ev(m, "aten::matmul", 0);
	size_t launch = find_ev(m, "cudaLaunchKernel", 0);
	size_t k = find_ev(m, "ampere_sgemm_128x64_tn", 0);
	/* iid 1 re-bound after the reset on sequence 4: a different name. */
	size_t cp = find_ev(m, "Memcpy HtoD (Pageable -> Device)", 0);
	size_t inst = find_ev(m, "non-interned instant", 0);
	ck_assert_uint_eq(m->ops[m->ev.op[step]].kind, TC_OP_STEP);
	ck_assert_uint_eq(m->ops[m->ev.op[mm]].kind, TC_OP_HOST_OP);
	ck_assert_uint_eq(m->ops[m->ev.op[launch]].kind, TC_OP_RUNTIME);
	ck_assert_uint_eq(m->ops[m->ev.op[k]].kind, TC_OP_KERNEL);
	ck_assert_uint_eq(m->ops[m->ev.op[cp]].kind, TC_OP_MEMCPY_H2D);
	ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[k]].category), "kernel");
	ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[cp]].category), "gpu_memcpy");
	ck_assert_int_eq(m->ev.start[step], 0);
	ck_assert_int_eq(m->ev.dur[step], 8000000);
	ck_assert_int_eq(m->ev.start[mm], 1000000);
	ck_assert_int_eq(m->ev.dur[mm], 2000000);
	ck_assert_int_eq(m->ev.start[launch], 1500000);
	ck_assert_int_eq(m->ev.dur[launch], 500000);
	ck_assert_uint_eq(m->ev.depth[launch], 2);
	ck_assert_int_eq(m->ev.start[inst], 11000000);
	/* Clock 64, µs deltas from 900000 µs (MONOTONIC): +5, +3; reset; +2, +2. */
	ck_assert_int_eq(m->ev.start[k], 4000000);
	ck_assert_int_eq(m->ev.dur[k], 3000000);
	ck_assert_int_eq(m->ev.start[cp], 9000000);
	ck_assert_int_eq(m->ev.dur[cp], 2000000);
	ck_assert_str_eq(dev_name(m, k), "GPU 0");
	ck_assert_str_eq(dev_name(m, launch), "python train.py (pid 4242)");
	ck_assert_int_eq(arg(m, mm, "External id").v.i, 17);
	/* One input whose shape is [64, 128]. */
	ck_assert_str_eq(arg_str(m, mm, "Input Dims"), "[[64,128]]");
	/* The flow links the launch to the kernel. */
	ck_assert_uint_eq(m->n_flows, 1);
	ck_assert_uint_eq(m->flows[0].from, launch);
	ck_assert_uint_eq(m->flows[0].to, k);
	ck_assert_uint_eq(m->flows[0].kind, TC_FLOW_LAUNCH);
	ck_assert_uint_eq(m->flows[0].id, 77);
	/* Incremental thread-time counter, µs → ns: 10, 15, 16, 18, 21, 25 µs. */
	ck_samples(m, "thread time", "ns",
		(double[]){ 10000, 15000, 16000, 18000, 21000, 25000 }, 6);
	ck_samples(m, "Allocated (bytes)", "bytes", (double[]){ 268435456 }, 1);
	tc_model_destroy(m);
	real_trace("perfetto/synthetic/synthetic_interned.compressed.pftrace", c);
	same_model(plain, c);
}
END_TEST

static Suite *suite(void) {
	Suite *s = suite_create("perfetto");
	TCase *tc = tcase_create("fixtures");
	tcase_add_test(tc, slices_nested);
	tcase_add_test(tc, unbalanced);
	tcase_add_test(tc, end_before_begin);
	tcase_add_test(tc, limit_errors_name_option);
	tcase_add_test(tc, max_string_utf8);
	tcase_add_test(tc, counters);
	tcase_add_test(tc, interning_reset);
	tcase_add_test(tc, clocks);
	tcase_add_test(tc, clock_snapshot_wrong_wire_types);
	tcase_add_test(tc, descriptors_wrong_wire_types);
	tcase_add_test(tc, flows);
	tcase_add_test(tc, gpu_packets);
	tcase_add_test(tc, legacy_descriptors);
	tcase_add_test(tc, compressed_same);
	tcase_add_test(tc, zstd_same);
	tcase_add_test(tc, zstd_bundle_refused);
	tcase_add_test(tc, bundle_error_at_bundle);
	tcase_add_test(tc, growing_view);
	tcase_add_test(tc, growing_view_error_order);
	tcase_add_test(tc, truncation);
	tcase_add_test(tc, mutations);
	tcase_add_test(tc, malformed_message);
	tcase_add_test(tc, sniff_rules);
	suite_add_tcase(s, tc);
	TCase *real = tc_test_traces_tcase("real");
	tcase_add_test(real, real_all_ingest);
	tcase_add_test(real, real_nested_tracks);
	tcase_add_test(real, real_synthetic_interned);
	suite_add_tcase(s, real);
	return s;
}

int main(void) {
	return tc_test_run(suite());
}
