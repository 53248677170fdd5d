/*
 * Malformed input, in-process: every real trace and fixture truncated at
 * many offsets and bit-flipped, plus hand-made hostile inputs (over-long
 * varints, lengths past the end, deep nesting, huge strings, absurd
 * timestamps, unmatched B/E, decompression bombs, empty files and folders).
 * The rule checked everywhere: ingest either succeeds (and downstream code
 * copes) or fails with exit 3 or 5 and a one-line message; never a signal,
 * never a sanitizer report. Inputs are exact-size heap copies opened with
 * tc_input_open_mem, so ASan sees any read past the end.
 */
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "config.h"
#if TC_HAVE_ZSTD
#include <zstd.h>
#endif
#include "analysis/summary.h"
#include "ingest/ingest.h"
#include "output/summary_write.h"
#include "tc_test.h"
#include "util/inflate.h"
#include "util/xalloc.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif
#ifdef HAVE_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* What is being ingested, printed if a sanitizer kills the test. */
static char current[1024];

#ifdef HAVE_ASAN
static void on_death(void) {
	fprintf(stderr, "check_malformed: died on %s\n", current);
}
#endif

static void setup(void) {
#ifdef HAVE_ASAN
	__sanitizer_set_death_callback(on_death);
#endif
	current[0] = '\0';
}

static FILE *devnull(void) {
	static FILE *f;
	if (!f) {
		f = fopen("/dev/null", "w");
		ck_assert_ptr_nonnull(f);
	}
	return f;
}

static uint64_t n_cases, n_ok, n_input, n_limit;

/* Invariants of a finalized model that downstream arithmetic relies on. */
static void check_model(const struct tc_model *m) {
	for (size_t i = 0; i < m->ev.n; i++) {
		ck_assert_msg(m->ev.dur[i] >= 0, "%s: event %zu has negative duration", current, i);
		ck_assert_msg(m->ev.start[i] <= INT64_MAX - m->ev.dur[i],
			"%s: event %zu end overflows", current, i);
		uint32_t t = tc_model_event_track(m, i);
		ck_assert_msg(t < m->n_tracks, "%s: event %zu bad track", current, i);
		ck_assert_msg(m->ev.op[i] < m->n_ops, "%s: event %zu bad op", current, i);
	}
}

/* Finalize, summarize and run every writer into /dev/null. */
static void downstream(struct tc_model *m) {
	tc_model_finalize(m);
	check_model(m);
	struct tc_summary s;
	tc_analyze_summary(m, &s);
	struct tc_summary_opts so = { .top = 10 };
	tc_write_summary_json(devnull(), m, &s, &so);
	tc_write_summary_text(devnull(), m, &s, &so);
	tc_write_info_json(devnull(), m);
	tc_write_info_text(devnull(), m);
	tc_summary_finish(&s);
}

/*
 * Ingest one buffer (copied to an exact-size allocation). r NULL sniffs.
 * Returns the exit code the CLI would give (0, 3 or 5); fails the test on
 * anything else. With a model that loaded, runs finalize, the summary and
 * every writer into /dev/null.
 */
static int ingest_full(const uint8_t *data, size_t len, const struct tc_reader *r,
		const struct tc_limits *lim, struct tc_error *err_out) {
	uint8_t *copy = tc_xmalloc(len ? len : 1);
	memcpy(copy, data, len);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	struct tc_model *m = tc_model_create();
	bool ok = false;
	if (tc_input_open_mem(&in, "case", copy, len, lim, &err)) {
		ok = tc_ingest_input(m, &in, r, lim, &err);
		tc_input_finish(&in);
	}
	n_cases++;
	int code = 0;
	if (ok) {
		n_ok++;
		downstream(m);
	} else {
		code = err.code;
		ck_assert_msg(code == TC_EXIT_INPUT || code == TC_EXIT_LIMIT,
			"%s: failed with exit %d (%s)", current, code, err.msg);
		ck_assert_msg(err.msg[0] != '\0' && !strchr(err.msg, '\n'),
			"%s: error message empty or multi-line: '%s'", current, err.msg);
		n_input += code == TC_EXIT_INPUT;
		n_limit += code == TC_EXIT_LIMIT;
	}
	if (err_out) {
		*err_out = err;
	}
	tc_model_destroy(m);
	free(copy);
	return code;
}

/*
 * Every reader reads serially or, with a spare core, pipelined (a producer
 * thread tokenises JSON; a second thread decodes xplane lines; Perfetto's
 * packet half runs beside its model half): both must give the same answer,
 * error text and offset included, so every case runs both ways (xplane's
 * and Perfetto's pipelines forced on for small inputs).
 */
static int ingest(const uint8_t *data, size_t len, const struct tc_reader *r) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.max_input = 512u << 20;
	struct tc_error e1, e2;
	int code = ingest_full(data, len, r, &lim, &e1);
	const struct tc_reader *s = r ? r : tc_ingest_sniff(data, len < TC_INPUT_HEAD ? len : TC_INPUT_HEAD);
	if (s) {
		lim.reader_thread = s == &tc_reader_json ? 1 : TC_READER_THREAD_ALWAYS;
		int code2 = ingest_full(data, len, r, &lim, &e2);
		ck_assert_msg(code == code2, "%s: serial exit %d, pipelined %d (%s / %s)", current,
			code, code2, e1.msg, e2.msg);
		ck_assert_msg(strcmp(e1.msg, e2.msg) == 0 && e1.offset == e2.offset,
			"%s: serial '%s' at %lld, pipelined '%s' at %lld", current, e1.msg,
			(long long)e1.offset, e2.msg, (long long)e2.offset);
	}
	return code;
}

/* ---- real traces and fixtures ---- */

struct files {
	char **v;
	size_t n, cap;
};

/* Digests (.tcd) are not traces: a reader refuses them with exit 2 by
 * design; fuzz_digest and fuzz_digest_fields damage them instead. */
static bool is_trace_file(const char *name) {
	size_t n = strlen(name);
	return !(n >= 3 && strcmp(name + n - 3, ".md") == 0) &&
		!(n >= 4 && strcmp(name + n - 4, ".tcd") == 0) &&
		!(n >= 10 && strcmp(name + n - 10, ".textproto") == 0) &&
		!(n >= 4 && strcmp(name + n - 4, ".txt") == 0);
}

static void collect(const char *dir, struct files *out, int depth) {
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	if (!d) {
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') {
			continue;
		}
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) != 0) {
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			collect(path, out, depth + 1);
		} else if (S_ISREG(st.st_mode) && is_trace_file(de->d_name)) {
			TC_GROW(out->v, out->cap, out->n + 1);
			out->v[out->n++] = tc_xstrdup(path);
		}
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b) {
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The real traces (traces part), else the built and source fixtures,
 * sorted; never empty. */
static struct files corpus(bool traces) {
	struct files f = { 0 };
	if (traces) {
		collect(tc_test_trace(""), &f, 0);
	} else {
		collect(tc_test_build("fixtures"), &f, 0);
		collect(tc_test_src("fixtures"), &f, 0);
	}
	ck_assert_msg(f.n > 0, "no %s to damage", traces ? "traces" : "fixtures");
	qsort(f.v, f.n, sizeof(char *), cmp_str);
	return f;
}

static void files_free(struct files *f) {
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i]);
	}
	free(f->v);
}

/* Bytes re-parsed per file by the truncation sweep: keeps the ASan run fast
 * on multi-megabyte traces (TC_MALFORMED_BUDGET_MB raises it). */
static size_t budget(void) {
	const char *e = getenv("TC_MALFORMED_BUDGET_MB");
	size_t mb = e ? (size_t)strtoul(e, NULL, 10) : 24;
	return (mb ? mb : 1) << 20;
}

#define N_OFFSETS 200

/*
 * N_OFFSETS truncation points: every offset below 64 (headers, first tags),
 * then evenly over a prefix sized so the sweep parses about budget() bytes,
 * then a few across the whole file (end-of-stream handling), as many as the
 * budget allows. scale: bytes parsed per input byte (the gzip ratio for a
 * compressed file).
 */
static void truncations(const char *what, const uint8_t *data, size_t len, size_t scale) {
	size_t prefix = budget() / (N_OFFSETS / 2) / (scale ? scale : 1);
	if (prefix < 4096) {
		prefix = 4096;
	}
	if (prefix > len) {
		prefix = len;
	}
	size_t tail = 0;
	if (len > prefix) {
		tail = budget() / (len * (scale ? scale : 1));
		tail = tail < 1 ? 1 : tail > 8 ? 8 : tail;
	}
	for (size_t k = 0; k < N_OFFSETS; k++) {
		size_t off;
		if (k < 64) {
			off = k;
		} else if (k < N_OFFSETS - tail) {
			off = 64 + (prefix > 64 ? (prefix - 64) * (k - 64) / (N_OFFSETS - tail - 64) : 0);
		} else {
			off = len - (len - prefix) * (N_OFFSETS - k) / (tail + 1);
		}
		if (off > len) {
			off = len;
		}
		snprintf(current, sizeof(current), "%s truncated at %zu of %zu", what, off, len);
		ingest(data, off, NULL);
	}
}

/* Deterministic damage: bit flips and byte stores inside the first 256 KiB
 * (the damaged prefix is what gets parsed). */
static void flips(const char *what, const uint8_t *data, size_t len, unsigned n) {
	if (len == 0) {
		return;
	}
	size_t use = len < (256u << 10) ? len : (256u << 10);
	if (use * n > budget()) {
		n = (unsigned)(budget() / use);
		n = n < 16 ? 16 : n;
	}
	uint8_t *buf = tc_xmalloc(use);
	uint64_t x = 0x9E3779B97F4A7C15ull ^ len;
	for (unsigned i = 0; i < n; i++) {
		memcpy(buf, data, use);
		for (int j = 0; j < 1 + (int)(i % 4); j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			size_t pos = (size_t)(x % use);
			switch (i % 3) {
			case 0:
				buf[pos] ^= (uint8_t)(1u << ((x >> 40) & 7));
				break;
			case 1:
				buf[pos] = (x >> 32) & 1 ? 0xff : 0x00;
				break;
			default:
				buf[pos] = (uint8_t)(x >> 48);
				break;
			}
		}
		snprintf(current, sizeof(current), "%s damaged (seed %u)", what, i);
		ingest(buf, use, NULL);
	}
	free(buf);
}

static bool gunzip(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len) {
	struct tc_error err;
	tc_error_init(&err);
	return len >= 2 && data[0] == 0x1f && data[1] == 0x8b &&
		tc_inflate(data, len, 15 + 32, 512u << 20, out, out_len, &err);
}

/* _i 0: the fixtures; 1: the real traces (in the traces part). */
START_TEST(truncate_real) {
	struct files f = corpus(_i == 1);
	for (size_t i = 0; i < f.n; i++) {
		size_t len;
		uint8_t *data = tc_test_slurp(f.v[i], &len);
		ck_assert_ptr_nonnull(data);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		uint8_t *plain;
		size_t plain_len;
		if (gunzip(data, len, &plain, &plain_len)) {
			truncations(f.v[i], data, len, len ? plain_len / len + 1 : 1);
			char what[4200];
			snprintf(what, sizeof(what), "%s (decompressed)", f.v[i]);
			truncations(what, plain, plain_len, 1);
			free(plain);
		} else {
			truncations(f.v[i], data, len, 1);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (getenv("TC_MALFORMED_VERBOSE")) {
			fprintf(stderr, "%6.2f s  %s\n", (double)(t1.tv_sec - t0.tv_sec) +
				(double)(t1.tv_nsec - t0.tv_nsec) / 1e9, f.v[i]);
		}
		free(data);
	}
	fprintf(stderr, "truncate_real: %zu files, %" PRIu64 " cases: %" PRIu64 " loaded, %"
		PRIu64 " exit 3, %" PRIu64 " exit 5\n", f.n, n_cases, n_ok, n_input, n_limit);
	files_free(&f);
}
END_TEST

/* _i 0: the fixtures; 1: the real traces (in the traces part). */
START_TEST(damage_real) {
	struct files f = corpus(_i == 1);
	for (size_t i = 0; i < f.n; i++) {
		size_t len;
		uint8_t *data = tc_test_slurp(f.v[i], &len);
		ck_assert_ptr_nonnull(data);
		uint8_t *plain;
		size_t plain_len;
		if (gunzip(data, len, &plain, &plain_len)) {
			flips(f.v[i], plain, plain_len, 64);
			free(plain);
		} else {
			flips(f.v[i], data, len, 64);
		}
		free(data);
	}
	fprintf(stderr, "damage_real: %zu files, %" PRIu64 " cases: %" PRIu64 " loaded, %"
		PRIu64 " exit 3, %" PRIu64 " exit 5\n", f.n, n_cases, n_ok, n_input, n_limit);
	files_free(&f);
}
END_TEST

/* ---- hand-made protobuf ---- */

struct pbuf {
	uint8_t *p;
	size_t n, cap;
};

static void pb_bytes(struct pbuf *b, const void *data, size_t len) {
	TC_GROW(b->p, b->cap, b->n + len + 1);
	memcpy(b->p + b->n, data, len);
	b->n += len;
}

/* Encode v into tmp (10 bytes); returns the length. */
static size_t varint_enc(uint8_t *tmp, uint64_t v) {
	size_t n = 0;
	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static void pb_varint(struct pbuf *b, uint64_t v) {
	uint8_t tmp[10];
	pb_bytes(b, tmp, varint_enc(tmp, v));
}

static void pb_int(struct pbuf *b, uint32_t field, uint64_t v) {
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

static void pb_len(struct pbuf *b, uint32_t field, const void *data, size_t len) {
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, len);
	pb_bytes(b, data, len);
}

static void pb_double(struct pbuf *b, uint32_t field, double d) {
	union { double d; uint64_t u; } c = { .d = d };
	uint8_t le[8];
	for (int i = 0; i < 8; i++) {
		le[i] = (uint8_t)(c.u >> (8 * i));
	}
	pb_varint(b, (uint64_t)field << 3 | 1);
	pb_bytes(b, le, 8);
}

static void pb_str(struct pbuf *b, uint32_t field, const char *s) {
	pb_len(b, field, s, strlen(s));
}

/*
 * depth messages nested in one another (fields cycling 1, 3, 4: XSpace.planes,
 * XPlane.lines, XLine.events), innermost an int field. Written back to front
 * so each level costs O(1).
 */
static void pb_deep(struct pbuf *b, size_t depth) {
	size_t cap = depth * 7 + 16, pos = cap;
	uint8_t *buf = tc_xmalloc(cap);
	buf[--pos] = 0x01;
	buf[--pos] = 0x08;
	for (size_t i = 0; i < depth; i++) {
		uint8_t tmp[10];
		size_t n = varint_enc(tmp, cap - pos);
		pos -= n;
		memcpy(buf + pos, tmp, n);
		uint32_t field = i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 4;
		buf[--pos] = (uint8_t)(field << 3 | 2);
	}
	b->n = 0;
	pb_bytes(b, buf + pos, cap - pos);
	free(buf);
}

static const struct tc_reader *const pb_readers[] = {
	&tc_reader_xplane, &tc_reader_perfetto, NULL,
};

/* Feed to both protobuf readers (forced) and to sniffing. */
static void pb_case(const char *what, const struct pbuf *b) {
	for (size_t i = 0; i < 3; i++) {
		snprintf(current, sizeof(current), "%s (reader %s)", what,
			pb_readers[i] ? pb_readers[i]->name : "sniffed");
		ingest(b->p, b->n, pb_readers[i]);
	}
}

/* An XSpace with one plane, one line, one event with the given times. */
static void xspace(struct pbuf *out, int64_t line_ts_ns, int64_t offset_ps, int64_t dur_ps,
		bool ten_byte_ids) {
	struct pbuf ev = { 0 }, line = { 0 }, md = { 0 }, entry = { 0 }, plane = { 0 };
	pb_int(&ev, 1, ten_byte_ids ? UINT64_MAX : 1);
	pb_int(&ev, 2, (uint64_t)offset_ps);
	pb_int(&ev, 3, (uint64_t)dur_ps);
	pb_int(&line, 1, 7);
	pb_str(&line, 2, "XLA Ops");
	pb_int(&line, 3, (uint64_t)line_ts_ns);
	pb_len(&line, 4, ev.p, ev.n);
	pb_len(&line, 4, ev.p, ev.n);
	pb_int(&md, 1, ten_byte_ids ? UINT64_MAX : 1);
	pb_str(&md, 2, "fusion.1");
	pb_int(&entry, 1, ten_byte_ids ? UINT64_MAX : 1);
	pb_len(&entry, 2, md.p, md.n);
	pb_int(&plane, 1, ten_byte_ids ? UINT64_MAX : 3);
	pb_str(&plane, 2, "/device:GPU:0");
	pb_len(&plane, 3, line.p, line.n);
	pb_len(&plane, 4, entry.p, entry.n);
	pb_len(out, 1, plane.p, plane.n);
	free(ev.p);
	free(line.p);
	free(md.p);
	free(entry.p);
	free(plane.p);
}

START_TEST(protobuf_hostile) {
	struct pbuf b = { 0 };

	/* Valid shape first, so the hostile variants are near misses. */
	xspace(&b, 1000, 10, 20, false);
	pb_case("xspace baseline", &b);
	b.n = 0;
	xspace(&b, 1000, 10, 20, true);
	pb_case("xspace with 10-byte ids", &b);

	/* Times that overflow ns -> ps or start + duration. */
	static const int64_t times[][3] = {
		{ INT64_MAX, 0, 1 },
		{ INT64_MAX / 1000 + 1, 0, 1 },
		{ 0, INT64_MAX, INT64_MAX },
		{ 0, INT64_MIN, 5 },
		{ -1, -1, -1 },
		{ INT64_MIN, INT64_MAX, INT64_MAX },
		{ 1, 0, INT64_MIN },
	};
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		b.n = 0;
		xspace(&b, times[i][0], times[i][1], times[i][2], false);
		char what[64];
		snprintf(what, sizeof(what), "xspace times #%zu", i);
		pb_case(what, &b);
	}

	/* An 11-byte varint and a 10-byte one with a bad last byte. */
	static const uint8_t long_varint[] = {
		0x0a, 0x0c, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};
	b.n = 0;
	pb_bytes(&b, long_varint, sizeof(long_varint));
	pb_case("11-byte varint", &b);
	static const uint8_t bad_tenth[] = {
		0x0a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
	};
	b.n = 0;
	pb_bytes(&b, bad_tenth, sizeof(bad_tenth));
	pb_case("10-byte varint overflowing 64 bits", &b);

	/* Lengths past the end, at the top and nested. */
	static const uint8_t past_end[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x00 };
	b.n = 0;
	pb_bytes(&b, past_end, sizeof(past_end));
	pb_case("length past the end", &b);
	static const uint8_t past_end2[] = {
		0x0a, 0x06, 0x1a, 0x04, 0x22, 0x7f, 0x08, 0x01, 0x12, 0x00,
	};
	b.n = 0;
	pb_bytes(&b, past_end2, sizeof(past_end2));
	pb_case("nested length past its parent", &b);
	static const uint8_t huge_len[] = {
		0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};
	b.n = 0;
	pb_bytes(&b, huge_len, sizeof(huge_len));
	pb_case("2^64-1 length", &b);

	/* Groups and reserved wire types. */
	static const uint8_t groups[] = { 0x0b, 0x0c, 0x0e, 0x0f, 0x0a, 0x00 };
	b.n = 0;
	pb_bytes(&b, groups, sizeof(groups));
	pb_case("wire types 3, 4, 6, 7", &b);

	/* Regression (fuzz_ingest_xplane): a Task Environment plane whose
	 * stats (or stat_metadata) field is a varint, read before the plane's
	 * wire types are checked, reached the decoder with no payload. */
	static const uint8_t env_varint_stat[] = {
		0x0a, 0x14, 0x12, 0x10, 'T', 'a', 's', 'k', ' ', 'E', 'n', 'v', 'i', 'r', 'o', 'n',
		'm', 'e', 'n', 't', 0x30, 0x01,
	};
	b.n = 0;
	pb_bytes(&b, env_varint_stat, sizeof(env_varint_stat));
	pb_case("Task Environment stat as a varint", &b);
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error e;
	ck_assert_int_eq(ingest_full(b.p, b.n, &tc_reader_xplane, &lim, &e), TC_EXIT_INPUT);
	ck_assert_msg(strstr(e.msg, "XPlane.stats has the wrong wire type"), "%s", e.msg);
	b.p[20] = 0x28; /* field 5, stat_metadata, as a varint */
	pb_case("Task Environment stat metadata as a varint", &b);
	ck_assert_int_eq(ingest_full(b.p, b.n, &tc_reader_xplane, &lim, &e), TC_EXIT_INPUT);
	ck_assert_msg(strstr(e.msg, "XPlane.stat_metadata has the wrong wire type"), "%s", e.msg);

	/* Deep nesting: field 1 inside field 1 ... 100000 levels. */
	pb_deep(&b, 100000);
	pb_case("100000 nested messages", &b);
	pb_deep(&b, 66);
	pb_case("66 nested messages", &b);
	free(b.p);
}
END_TEST

/* Regression (fuzz_ingest_xplane): device properties as absurd doubles
 * reached (int32_t)/(int64_t) casts. */
START_TEST(xplane_device_stats) {
	static const char *const names[] = { "core_count", "memory_size", "clock_rate",
		"peak_teraflops_per_second", "peak_hbm_bw_gigabytes_per_second" };
	static const double values[] = { 1.69455e10, 1e300, -1e300, NAN, INFINITY };
	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		struct pbuf plane = { 0 }, out = { 0 };
		pb_int(&plane, 1, 1);
		pb_str(&plane, 2, "/device:GPU:0");
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			struct pbuf sm = { 0 }, entry = { 0 }, stat = { 0 };
			pb_int(&sm, 1, k + 1);
			pb_str(&sm, 2, names[k]);
			pb_int(&entry, 1, k + 1);
			pb_len(&entry, 2, sm.p, sm.n);
			pb_len(&plane, 5, entry.p, entry.n);
			pb_int(&stat, 1, k + 1);
			pb_double(&stat, 2, values[v]);
			pb_len(&plane, 6, stat.p, stat.n);
			free(sm.p);
			free(entry.p);
			free(stat.p);
		}
		pb_len(&out, 1, plane.p, plane.n);
		char what[64];
		snprintf(what, sizeof(what), "xplane device stats = %g", values[v]);
		pb_case(what, &out);
		free(plane.p);
		free(out.p);
	}
}
END_TEST

/* A Perfetto TracePacket stream with one track and the given events. */
static void perfetto_slices(struct pbuf *out, const int *types, const int64_t *ts, size_t n) {
	struct pbuf td = { 0 }, pkt = { 0 };
	pb_int(&td, 1, 42);
	pb_str(&td, 2, "track");
	pb_int(&pkt, 10, 1);
	pb_len(&pkt, 60, td.p, td.n);
	pb_len(out, 1, pkt.p, pkt.n);
	for (size_t i = 0; i < n; i++) {
		struct pbuf te = { 0 }, p = { 0 };
		pb_int(&te, 9, (uint64_t)types[i]);
		pb_int(&te, 11, 42);
		pb_str(&te, 23, "slice");
		pb_int(&p, 8, (uint64_t)ts[i]);
		pb_int(&p, 10, 1);
		pb_len(&p, 11, te.p, te.n);
		pb_len(out, 1, p.p, p.n);
		free(te.p);
		free(p.p);
	}
	free(td.p);
	free(pkt.p);
}

START_TEST(perfetto_hostile) {
	struct pbuf b = { 0 };
	static const struct {
		const char *what;
		int types[4];
		int64_t ts[4];
		size_t n;
	} cases[] = {
		{ "begin/end", { 1, 2 }, { 100, 200 }, 2 },
		{ "end without begin", { 2, 2 }, { 100, 200 }, 2 },
		{ "begin without end", { 1, 1, 3 }, { 100, 200, 300 }, 3 },
		{ "end before begin", { 1, 2 }, { 200, 100 }, 2 },
		{ "negative timestamps", { 1, 2 }, { -5, INT64_MIN }, 2 },
		{ "max timestamps", { 1, 2, 3 }, { INT64_MAX, INT64_MAX, INT64_MAX }, 3 },
		{ "unknown event type", { 77, 0 }, { 1, 2 }, 2 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		b.n = 0;
		perfetto_slices(&b, cases[i].types, cases[i].ts, cases[i].n);
		pb_case(cases[i].what, &b);
	}
	/* A compressed_packets (field 50) block that is not zlib. */
	b.n = 0;
	struct pbuf pkt = { 0 };
	pb_str(&pkt, 50, "\x78\x9c not deflate");
	pb_len(&b, 1, pkt.p, pkt.n);
	pb_case("corrupt compressed_packets", &b);
	free(pkt.p);
	free(b.p);
}
END_TEST

/* ---- hand-made JSON ---- */

static void json_case(const char *what, const char *text) {
	snprintf(current, sizeof(current), "json: %s", what);
	ingest((const uint8_t *)text, strlen(text), &tc_reader_json);
	snprintf(current, sizeof(current), "json (sniffed): %s", what);
	ingest((const uint8_t *)text, strlen(text), NULL);
}

START_TEST(json_hostile) {
	static const char *const cases[][2] = {
		{ "baseline", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":1,\"dur\":2}]}" },
		{ "ts 1e308", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":1e308,\"dur\":2}]}" },
		{ "ts -1e308", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":-1e308,\"dur\":1e308}]}" },
		{ "ts 2^64", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":18446744073709551616,\"dur\":-9223372036854775809}]}" },
		{ "ts int64 max", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":9223372036854775807,\"dur\":9223372036854775807}]}" },
		{ "negative dur", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":5,\"dur\":-3}]}" },
		{ "NaN-ish strings", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":\"NaN\",\"dur\":\"inf\"},{\"ph\":\"X\",\"ts\":NaN}]}" },
		{ "ts null and objects", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":{},\"pid\":[],"
			"\"tid\":null,\"ts\":null,\"dur\":{}}]}" },
		{ "E without B", "{\"traceEvents\":[{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":5}]}" },
		{ "B without E", "{\"traceEvents\":[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":5},{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":6}]}" },
		{ "E before B", "{\"traceEvents\":[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":50},{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10}]}" },
		{ "B/E on other threads", "{\"traceEvents\":[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,"
			"\"tid\":1,\"ts\":5},{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":6},{\"ph\":\"E\","
			"\"pid\":2,\"tid\":1,\"ts\":7}]}" },
		{ "bad ph", "{\"traceEvents\":[{\"ph\":\"\",\"ts\":1},{\"ph\":\"XYZ\",\"ts\":1},"
			"{\"ph\":7,\"ts\":1},{}]}" },
		{ "flows to nowhere", "{\"traceEvents\":[{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,"
			"\"ts\":1},{\"ph\":\"f\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":2,\"bp\":\"e\"}]}" },
		{ "counter with junk", "{\"traceEvents\":[{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,"
			"\"ts\":1,\"args\":{\"v\":\"x\",\"w\":1e400,\"u\":[1]}}]}" },
		{ "metadata junk", "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\","
			"\"pid\":1,\"args\":{\"name\":7}},{\"ph\":\"M\",\"name\":\"thread_name\"}]}" },
		{ "array form", "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}," },
		{ "trailing comma", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1},]}" },
		{ "truncated", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"du" },
		{ "garbage after", "{\"traceEvents\":[]} xyz" },
		{ "bad utf-8", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"\xff\xfe\xc0\",\"ts\":1,"
			"\"dur\":1,\"pid\":1,\"tid\":1}]}" },
		{ "escaped NUL", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\\u0000b\\ud800\","
			"\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]}" },
		{ "traceEvents not an array", "{\"traceEvents\":{\"ph\":\"X\"}}" },
		{ "empty object", "{}" },
		{ "empty array", "[]" },
		{ "whitespace only", "   \n\t  " },
		/* Regressions (fuzz_ingest_json): double -> int out of range. */
		{ "sort index out of int range", "{\"traceEvents\":[{\"ph\":\"M\",\"name\":"
			"\"process_sort_index\",\"pid\":1,\"args\":{\"sort_index\":5.3687e9}},"
			"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":1,\"args\":"
			"{\"sort_index\":-1e300}},{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,"
			"\"ts\":1,\"dur\":1}]}" },
		{ "memory device id 1e300", "{\"traceEvents\":[{\"ph\":\"i\",\"name\":\"[memory]\","
			"\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"Device Type\":1,\"Device Id\":1e300,"
			"\"Total Allocated\":5}}]}" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_case(cases[i][0], cases[i][1]);
	}
}
END_TEST

/* Deep nesting must stop at lim->max_depth, not on the C stack. */
START_TEST(json_deep) {
	static const char head[] = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"args\":";
	size_t depth = 200000;
	char *s = tc_xmalloc(sizeof(head) + depth * 3 + 1);
	size_t n = 0;
	memcpy(s, head, sizeof(head) - 1);
	n += sizeof(head) - 1;
	for (size_t i = 0; i < depth; i++) {
		if (i % 2) {
			s[n++] = '[';
		} else {
			memcpy(s + n, "{\"a\":", 5);
			n += 5;
		}
	}
	s[n] = '\0';
	json_case("200000 levels, unclosed", s);
	/* The same at the top level with nothing else. */
	memset(s, '[', depth);
	s[depth] = '\0';
	json_case("200000 '['", s);
	free(s);
}
END_TEST

START_TEST(json_huge_string) {
	size_t big = 3u << 20;
	static const char head[] = "{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,"
		"\"dur\":1,\"name\":\"";
	static const char tail[] = "\"}]}";
	char *s = tc_xmalloc(sizeof(head) + big + sizeof(tail));
	memcpy(s, head, sizeof(head) - 1);
	memset(s + sizeof(head) - 1, 'x', big);
	memcpy(s + sizeof(head) - 1 + big, tail, sizeof(tail));
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.max_string = 64u << 10;
	snprintf(current, sizeof(current), "json: 3 MiB name over a 64 KiB --max-string");
	ingest_full((const uint8_t *)s, strlen(s), &tc_reader_json, &lim, NULL);
	snprintf(current, sizeof(current), "json: 3 MiB name, default limits");
	ingest((const uint8_t *)s, strlen(s), &tc_reader_json);
	free(s);
}
END_TEST

/* ---- compression ---- */

static uint8_t *gzip_of(const char *prefix, size_t fill, char fill_byte, int windowbits,
		size_t *out_len) {
	z_stream z;
	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(deflateInit2(&z, 1, Z_DEFLATED, windowbits, 9, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = 1u << 20, n = 0;
	uint8_t *out = tc_xmalloc(cap);
	uint8_t chunk[65536];
	memset(chunk, fill_byte, sizeof(chunk));
	size_t plen = strlen(prefix);
	bool prefix_done = false;
	size_t left = fill;
	int flush = Z_NO_FLUSH;
	do {
		if (!prefix_done) {
			z.next_in = (Bytef *)prefix;
			z.avail_in = (uInt)plen;
			prefix_done = true;
		} else if (z.avail_in == 0) {
			size_t k = left < sizeof(chunk) ? left : sizeof(chunk);
			z.next_in = chunk;
			z.avail_in = (uInt)k;
			left -= k;
			flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
		}
		do {
			if (cap - n < 65536) {
				cap *= 2;
				out = tc_xrealloc(out, cap);
			}
			z.next_out = out + n;
			z.avail_out = (uInt)(cap - n);
			int rc = deflate(&z, flush);
			ck_assert(rc != Z_STREAM_ERROR);
			n = cap - z.avail_out;
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
	*out_len = n;
	return out;
}

START_TEST(gzip_bomb) {
	/* 8 MiB of spaces after a JSON opening, against a 1 MiB cap. */
	size_t len;
	uint8_t *gz = gzip_of("{\"traceEvents\":[", 8u << 20, ' ', 15 + 16, &len);
	ck_assert_uint_lt(len, 64u << 10);
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.max_input = 1u << 20;
	struct tc_error err;
	/* The input layer alone stops it... */
	struct tc_input in;
	tc_error_init(&err);
	ck_assert(tc_input_open_mem(&in, "bomb", gz, len, &lim, &err));
	uint8_t buf[65536];
	ssize_t got;
	uint64_t total = 0;
	while ((got = tc_input_read(&in, buf, sizeof(buf), &err)) > 0) {
		total += (uint64_t)got;
	}
	tc_input_finish(&in);
	ck_assert_int_eq(got, -1);
	ck_assert_uint_le(total, lim.max_input);
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	/* ...and so does ingest through the sniffed reader. */
	snprintf(current, sizeof(current), "gzip bomb past --max-input-size");
	ck_assert_int_eq(ingest_full(gz, len, NULL, &lim, &err), TC_EXIT_LIMIT);
	ck_assert_msg(strstr(err.msg, "decompressed size exceeds the limit"), "%s", err.msg);
	/* Each reader, forced, must hit the same cap. */
	for (size_t i = 0; i < 2; i++) {
		snprintf(current, sizeof(current), "gzip bomb into %s", pb_readers[i]->name);
		int code = ingest_full(gz, len, pb_readers[i], &lim, &err);
		ck_assert_msg(code == TC_EXIT_LIMIT || code == TC_EXIT_INPUT, "exit %d", code);
	}
	free(gz);

	/* The ratio check, past its 256 MiB floor. */
	gz = gzip_of("{\"traceEvents\":[", 300u << 20, ' ', 15 + 16, &len);
	tc_limits_default(&lim);
	lim.max_ratio = 100;
	snprintf(current, sizeof(current), "gzip bomb past --max-ratio");
	ck_assert_int_eq(ingest_full(gz, len, NULL, &lim, &err), TC_EXIT_LIMIT);
	ck_assert_msg(strstr(err.msg, "compression ratio exceeds 100:1"), "%s", err.msg);
	free(gz);
}
END_TEST

START_TEST(gzip_damaged) {
	static const char text[] = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,"
		"\"tid\":1,\"ts\":1,\"dur\":2}]}";
	size_t len;
	uint8_t *gz = gzip_of(text, 0, ' ', 15 + 16, &len);
	snprintf(current, sizeof(current), "gzip intact");
	ingest(gz, len, NULL);
	for (size_t cut = 0; cut < len; cut++) {
		snprintf(current, sizeof(current), "gzip truncated at %zu", cut);
		int code = ingest(gz, cut, NULL);
		ck_assert_msg(cut < 2 || code != 0 || cut + 12 >= len,
			"%s: a truncated gzip stream loaded", current);
	}
	/* Two members, then trailing garbage. */
	uint8_t *two = tc_xmalloc(2 * len + 5);
	memcpy(two, gz, len);
	memcpy(two + len, gz, len);
	memcpy(two + 2 * len, "junk!", 5);
	snprintf(current, sizeof(current), "gzip two members + junk");
	ingest(two, 2 * len + 5, NULL);
	free(two);
	uint8_t *z = gzip_of(text, 0, ' ', 15, &len);
	snprintf(current, sizeof(current), "zlib stream");
	ingest(z, len, NULL);
	free(z);
	free(gz);
}
END_TEST

#if TC_HAVE_ZSTD
/* prefix then n bytes of fill, as one zstd frame, streamed (no n-byte buffer). */
static uint8_t *zstd_of(const char *prefix, size_t n, char fill, size_t *out_len) {
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = 1u << 16, len = 0;
	uint8_t *out = tc_xmalloc(cap);
	static char chunk[1u << 16];
	memset(chunk, fill, sizeof(chunk));
	size_t left = n;
	bool first = true;
	for (;;) {
		ZSTD_EndDirective end = ZSTD_e_continue;
		ZSTD_inBuffer ib;
		if (first) {
			ib = (ZSTD_inBuffer){ prefix, strlen(prefix), 0 };
			first = false;
		} else {
			size_t k = left < sizeof(chunk) ? left : sizeof(chunk);
			left -= k;
			ib = (ZSTD_inBuffer){ chunk, k, 0 };
		}
		if (left == 0 && !first) {
			end = ZSTD_e_end;
		}
		size_t rc;
		do {
			if (cap - len < ZSTD_CStreamOutSize()) {
				cap *= 2;
				out = tc_xrealloc(out, cap);
			}
			ZSTD_outBuffer ob = { out, cap, len };
			rc = ZSTD_compressStream2(c, &ob, &ib, end);
			ck_assert(!ZSTD_isError(rc));
			len = ob.pos;
		} while (ib.pos < ib.size || (end == ZSTD_e_end && rc != 0));
		if (end == ZSTD_e_end) {
			break;
		}
	}
	ZSTD_freeCCtx(c);
	*out_len = len;
	return out;
}
#endif

/* zstd inputs: the same caps as gzip, and every damaged copy refused. */
START_TEST(zstd_bomb_and_damage) {
#if TC_HAVE_ZSTD
	size_t len;
	uint8_t *z = zstd_of("{\"traceEvents\":[", 8u << 20, ' ', &len);
	ck_assert_uint_lt(len, 64u << 10);
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.max_input = 1u << 20;
	struct tc_error err;
	snprintf(current, sizeof(current), "zstd bomb past --max-input-size");
	ck_assert_int_eq(ingest_full(z, len, NULL, &lim, &err), TC_EXIT_LIMIT);
	ck_assert_msg(strstr(err.msg, "decompressed size exceeds the limit"), "%s", err.msg);
	free(z);
	z = zstd_of("{\"traceEvents\":[", 300u << 20, ' ', &len);
	tc_limits_default(&lim);
	lim.max_ratio = 100;
	snprintf(current, sizeof(current), "zstd bomb past --max-ratio");
	ck_assert_int_eq(ingest_full(z, len, NULL, &lim, &err), TC_EXIT_LIMIT);
	ck_assert_msg(strstr(err.msg, "compression ratio exceeds 100:1"), "%s", err.msg);
	free(z);

	static const char text[] = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,"
		"\"tid\":1,\"ts\":1,\"dur\":2}]}";
	uint8_t frame[256];
	size_t fl = ZSTD_compress(frame, sizeof(frame), text, sizeof(text) - 1, 3);
	ck_assert(!ZSTD_isError(fl));
	snprintf(current, sizeof(current), "zstd intact");
	ck_assert_int_eq(ingest(frame, fl, NULL), 0);
	for (size_t cut = 4; cut < fl; cut++) {
		snprintf(current, sizeof(current), "zstd truncated at %zu", cut);
		tc_limits_default(&lim);
		ck_assert_int_eq(ingest_full(frame, cut, NULL, &lim, &err), TC_EXIT_INPUT);
		ck_assert_msg(strstr(err.msg, "zstd"), "%s: %s", current, err.msg);
	}
	for (size_t at = 4; at < fl; at++) {
		uint8_t bad[256];
		memcpy(bad, frame, fl);
		bad[at] ^= 0x5a;
		snprintf(current, sizeof(current), "zstd damaged at %zu", at);
		ingest(bad, fl, NULL);
	}
	/* Two frames are one stream; bytes after them are not a frame. */
	uint8_t two[520];
	memcpy(two, frame, fl);
	memcpy(two + fl, frame, fl);
	snprintf(current, sizeof(current), "zstd two frames");
	ck_assert_int_ne(ingest(two, 2 * fl, NULL), 0); /* the JSON twice: junk after ] */
	memcpy(two + 2 * fl, "junk!", 5);
	snprintf(current, sizeof(current), "zstd two frames + junk");
	ck_assert_int_eq(ingest(two, 2 * fl + 5, NULL), TC_EXIT_INPUT);
#endif
}
END_TEST

START_TEST(empty_and_tiny) {
	struct tc_error err;
	struct tc_limits lim;
	tc_limits_default(&lim);
	snprintf(current, sizeof(current), "empty buffer");
	ck_assert_int_eq(ingest_full((const uint8_t *)"", 0, NULL, &lim, &err), TC_EXIT_INPUT);
	ck_assert_str_eq(err.msg, "file is empty");
	static const uint8_t tiny[][2] = { { 0x1f, 0x8b }, { 0x78, 0x9c }, { '{', 0 }, { 0x0a, 0 } };
	for (size_t i = 0; i < sizeof(tiny) / sizeof(tiny[0]); i++) {
		for (size_t n = 1; n <= 2; n++) {
			snprintf(current, sizeof(current), "tiny input #%zu (%zu bytes)", i, n);
			ingest(tiny[i], n, NULL);
			ingest(tiny[i], n, &tc_reader_json);
			ingest(tiny[i], n, &tc_reader_xplane);
			ingest(tiny[i], n, &tc_reader_perfetto);
		}
	}
}
END_TEST

/* A reader may accept an input that yields no events at all; everything
 * downstream must cope (regression: qsort(NULL, 0) in tc_analyze_ops,
 * found by fuzz_ingest_xplane). */
START_TEST(empty_model) {
	struct tc_model *m = tc_model_create();
	for (int pass = 0; pass < 2; pass++) {
		downstream(m);
		/* Second pass: a device and an empty track, still no events. */
		uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
		tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
		m->finalized = false;
	}
	tc_model_destroy(m);
}
END_TEST

/* Regression (fuzz_ingest_xplane): a device peak of 1.7e34 FLOP/s reached
 * an (int64_t) cast in the JSON writer. */
START_TEST(huge_doubles_out) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	m->devices[d].peak_flops = 1.69341e34;
	m->devices[d].peak_bw = 1e300;
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "s"), TC_TRACK_STREAM, 1);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	m->ops[op].flops = INT64_MAX;
	m->ops[op].bytes = INT64_MAX;
	tc_model_add_event(m, t, op, 0, INT64_MAX / 2, 0);
	tc_model_add_event(m, t, op, INT64_MAX / 2, INT64_MAX / 2, 0);
	downstream(m);
	tc_model_destroy(m);
}
END_TEST

/* Regression (fuzz_ingest_perfetto): host-only events of absurd durations
 * overflowed the summed self time in tc_analyze_summary (summary.c:289).
 * Durations over 7 days and far times are clamped by the model; sums of
 * many long events saturate instead of overflowing. */
START_TEST(absurd_durations_host_only) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "host"), TC_DEV_CPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "main"), TC_TRACK_HOST_THREAD, 1);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "x"), 0, TC_OP_HOST_OP);
	tc_model_add_event(m, t, op, 0, 8444249287819677000, 0);
	tc_model_add_event(m, t, op, INT64_MAX - 5, 2814749762102559000, 0);
	for (int i = 0; i < 40; i++) {
		tc_model_add_event(m, t, op, (int64_t)i, TC_MAX_DUR_PS, 0);
	}
	downstream(m);
	ck_assert_int_le(m->ev.dur[0], TC_MAX_DUR_PS);
	for (size_t i = 0; i < m->ev.n; i++) {
		ck_assert_int_le(m->ev.start[i], TC_MAX_ABS_PS);
	}
	ck_assert_uint_ge(m->n_warnings, 1);
	tc_model_destroy(m);
}
END_TEST

/* A reader that adds a million events and sets args on each, unaware of
 * any limit. */
static int flood_sniff(const uint8_t *head, size_t len) {
	return 100;
}

static bool flood_read(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "s"), TC_TRACK_STREAM, 1);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	for (int64_t i = 0; i < 1000000; i++) {
		uint32_t ev = tc_model_add_event(m, t, op, i * 10, 5, 0);
		tc_model_set_event_args(m, ev, TC_NONE);
	}
	return true;
}

static const struct tc_reader flood = {
	.name = "flood", .description = "flood", .sniff = flood_sniff, .read = flood_read,
};

/* --max-events holds while reading: the columns stop growing at the cap. */
START_TEST(event_cap) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	lim.max_events = 1000;
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	ck_assert(tc_input_open_mem(&in, "flood", (const uint8_t *)"x", 1, &lim, &err));
	struct tc_model *m = tc_model_create();
	ck_assert(!tc_ingest_input(m, &in, &flood, &lim, &err));
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	ck_assert_str_eq(err.msg, "more than 1000 events (raise it with --max-events)");
	ck_assert_uint_le(m->ev.n, 1000);
	ck_assert_uint_le(m->ev.cap, 2048);
	tc_input_finish(&in);
	tc_model_destroy(m);

	/* At exactly the cap it loads. */
	lim.max_events = 1000000;
	tc_error_init(&err);
	ck_assert(tc_input_open_mem(&in, "flood", (const uint8_t *)"x", 1, &lim, &err));
	m = tc_model_create();
	ck_assert_msg(tc_ingest_input(m, &in, &flood, &lim, &err), "%s", err.msg);
	ck_assert_uint_eq(m->ev.n, 1000000);
	tc_input_finish(&in);
	tc_model_destroy(m);
}
END_TEST

/* A reader whose events carry a few args each. */
static bool argflood_read(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t t = tc_model_add_track(m, d, tc_model_intern(m, "s"), TC_TRACK_STREAM, 1);
	uint32_t op = tc_model_op(m, tc_model_intern(m, "k"), 0, TC_OP_KERNEL);
	uint32_t k = tc_model_intern(m, "correlation id");
	for (int64_t i = 0; i < 10000; i++) {
		uint32_t ev = tc_model_add_event(m, t, op, i * 10, 5, 0);
		uint32_t a = tc_model_args_begin(m);
		tc_model_arg_int(m, k, i);
		tc_model_arg_double(m, k + 1, 0.5);
		tc_model_set_event_args(m, ev, tc_model_args_end(m, a));
	}
	return true;
}

static const struct tc_reader argflood = {
	.name = "argflood", .description = "argflood", .sniff = flood_sniff,
	.read = argflood_read,
};

/* Arg lists are addressed by 32-bit offsets: past the model's arg-byte cap
 * (4 GiB, lowered here) the ingest fails with a resource-limit error. */
START_TEST(arg_bytes_cap) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	ck_assert(tc_input_open_mem(&in, "argflood", (const uint8_t *)"x", 1, &lim, &err));
	struct tc_model *m = tc_model_create();
	m->max_arg_bytes = 4096;
	ck_assert(!tc_ingest_input(m, &in, &argflood, &lim, &err));
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	ck_assert_str_eq(err.msg, "more than 4096 bytes of args (the model's limit)");
	ck_assert_uint_le(m->n_argb, 4096);
	tc_input_finish(&in);
	tc_model_destroy(m);

	/* Under the default cap the same input loads. */
	tc_error_init(&err);
	ck_assert(tc_input_open_mem(&in, "argflood", (const uint8_t *)"x", 1, &lim, &err));
	m = tc_model_create();
	ck_assert_msg(tc_ingest_input(m, &in, &argflood, &lim, &err), "%s", err.msg);
	ck_assert(!m->over_arg_bytes);
	tc_input_finish(&in);
	tc_model_destroy(m);
}
END_TEST

/* ---- folders and paths, through tc_ingest ---- */

static char tmpdir[256];

static void tmp_setup(void) {
	setup();
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tc-malformed-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void) {
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *rel, const char *text) {
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static int load(const char *const *paths, size_t n, struct tc_error *err) {
	struct tc_ingest_opts o;
	tc_ingest_opts_default(&o);
	o.threads = 2;
	tc_error_init(err);
	struct tc_model *m = tc_ingest(paths, n, &o, err);
	if (m) {
		tc_model_destroy(m);
		return 0;
	}
	ck_assert(err->code != 0 && err->msg[0] != '\0');
	return err->code;
}

START_TEST(folders) {
	struct tc_error err;
	char dir[512], sub[512], file[512];
	snprintf(dir, sizeof(dir), "%s/none", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	write_file("none/readme.txt", "not a trace\n");
	write_file("none/empty.json", "");
	const char *p1[] = { dir };
	ck_assert_int_eq(load(p1, 1, &err), TC_EXIT_INPUT);
	ck_assert_str_eq(err.msg, "folder holds no trace file");

	/* A dangling link and an empty folder beside nothing readable. */
	snprintf(sub, sizeof(sub), "%s/none/emptydir", tmpdir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(file, sizeof(file), "%s/none/dangling.json", tmpdir);
	ck_assert_int_eq(symlink("/nonexistent/x.json", file), 0);
	ck_assert_int_eq(load(p1, 1, &err), TC_EXIT_INPUT);

	/* An unreadable file (meaningless as root, who reads anything). */
	write_file("none/locked.json", "{\"traceEvents\":[]}");
	snprintf(file, sizeof(file), "%s/none/locked.json", tmpdir);
	ck_assert_int_eq(chmod(file, 0), 0);
	int code = load(p1, 1, &err);
	ck_assert(code == 0 || code == TC_EXIT_INPUT);

	/* stdin twice, a missing path, a directory given as a file's parent. */
	const char *p2[] = { "-", "-" };
	ck_assert_int_eq(load(p2, 2, &err), TC_EXIT_USAGE);
	ck_assert_str_eq(err.msg, "standard input ('-') can be read only once");
	const char *p3[] = { "/nonexistent/trace.pb" };
	ck_assert_int_eq(load(p3, 1, &err), TC_EXIT_INPUT);
	const char *p4[] = { "/dev/null" };
	ck_assert_int_eq(load(p4, 1, &err), TC_EXIT_INPUT);
	ck_assert_str_eq(err.msg, "file is empty");
}
END_TEST

static Suite *suite(void) {
	Suite *s = suite_create("malformed");
	/* The same damage over the fixtures (_i 0) and the real traces (1). */
	for (int part = 0; part < 2; part++) {
		TCase *tc = part ? tc_test_traces_tcase("real") : tcase_create("fixtures");
		tcase_add_checked_fixture(tc, setup, NULL);
		tcase_set_timeout(tc, 600);
		tcase_add_loop_test(tc, truncate_real, part, part + 1);
		tcase_add_loop_test(tc, damage_real, part, part + 1);
		suite_add_tcase(s, tc);
	}
	TCase *made = tcase_create("made");
	tcase_add_checked_fixture(made, setup, NULL);
	tcase_set_timeout(made, 300);
	tcase_add_test(made, protobuf_hostile);
	tcase_add_test(made, xplane_device_stats);
	tcase_add_test(made, perfetto_hostile);
	tcase_add_test(made, json_hostile);
	tcase_add_test(made, json_deep);
	tcase_add_test(made, json_huge_string);
	tcase_add_test(made, gzip_bomb);
	tcase_add_test(made, gzip_damaged);
	tcase_add_test(made, zstd_bomb_and_damage);
	tcase_add_test(made, empty_and_tiny);
	tcase_add_test(made, empty_model);
	tcase_add_test(made, event_cap);
	tcase_add_test(made, arg_bytes_cap);
	tcase_add_test(made, huge_doubles_out);
	tcase_add_test(made, absurd_durations_host_only);
	suite_add_tcase(s, made);
	TCase *fs = tcase_create("folders");
	tcase_add_checked_fixture(fs, tmp_setup, tmp_teardown);
	tcase_add_test(fs, folders);
	suite_add_tcase(s, fs);
	return s;
}

int main(void) {
	return tc_test_run(suite());
}
