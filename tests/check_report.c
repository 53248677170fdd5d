/*
 * Check suite for the report writer: the utilisation timeline's bins,
 * markup escaping of names and hostile bytes, and a finding's wording
 * from its fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "analysis/timeline.h"
#include "output/finding_text.h"
#include "output/report_svg.h"
#include "tc_test.h"

/* A GPU with two streams of work starting at t0, and a memory counter. */
static struct tc_model *model(int64_t t0, int64_t step) {
	struct tc_model *m = tc_model_create();
	uint32_t d = tc_model_add_device(m, tc_model_intern(m, "GPU 0"), TC_DEV_GPU);
	uint32_t s1 = tc_model_add_track(m, d, tc_model_intern(m, "stream 7"), TC_TRACK_STREAM, 7);
	uint32_t s2 = tc_model_add_track(m, d, tc_model_intern(m, "stream 8"), TC_TRACK_STREAM, 8);
	uint32_t k = tc_model_op(m, tc_model_intern(m, "gemm"), 0, TC_OP_KERNEL);
	uint32_t c = tc_model_op(m, tc_model_intern(m, "copy"), 0, TC_OP_MEMCPY_H2D);
	uint32_t mem = tc_model_counter(m, d, tc_model_intern(m, "memory.allocated"),
		tc_model_intern(m, "bytes"), 0);
	for (int64_t i = 0; i < 50; i++) {
		int64_t t = t0 + i * step;
		tc_model_add_event(m, s1, k, t, step / 2, 0);
		tc_model_add_event(m, s2, c, t + step / 4, step / 2, 0); /* overlaps s1 */
		tc_model_add_sample(m, mem, t, (double)(1000 + (i * 37) % 101));
	}
	tc_model_finalize(m);
	return m;
}

static void check_timeline(int64_t t0, int64_t step) {
	struct tc_model *m = model(t0, step);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_analysis a;
	tc_analyze(m, &o, TC_AN_SUMMARY | TC_AN_FINDINGS, &a);
	struct tc_timeline tl;
	tc_timeline_build(m, &a, a.summary.first_ps, a.summary.last_ps, &tl);
	ck_assert_uint_eq(tl.n_dev, 1);
	/* The bins split the span exactly: their busy time sums to the
	 * device's, each share within 0..1. */
	int64_t sum = 0;
	for (size_t b = 0; b < TC_TL_BINS; b++) {
		sum += tl.dev[0].bin_busy_ps[b];
		ck_assert(tl.dev[0].busy[b] >= 0 && tl.dev[0].busy[b] <= 1.0 + 1e-12);
	}
	ck_assert_int_eq(sum, a.util[0].busy_ps);
	ck_assert_int_eq(tl.dev[0].busy_ps, a.util[0].busy_ps);
	/* The memory curve's highest bin is the peak the memory pass found,
	 * and every bin after the first sample holds a value. */
	ck_assert_uint_eq(tl.n_mem, 1);
	double max = -1;
	for (size_t b = 0; b < TC_TL_BINS; b++) {
		ck_assert(tl.mem[0].has[b]);
		max = tl.mem[0].max[b] > max ? tl.mem[0].max[b] : max;
	}
	ck_assert(max == a.mem[0].peak_bytes);
	tc_timeline_finish(&tl);
	tc_analysis_finish(&a);
	tc_model_destroy(m);
}

START_TEST(timeline_bins_sum_to_busy) {
	check_timeline(0, 1000);
	check_timeline(12345, 777); /* a span that bins do not divide */
	/* Steps of an hour, far from the origin: no overflow in the edges. */
	check_timeline((int64_t)1 << 61, (int64_t)3600 * 1000000000000);
}
END_TEST

START_TEST(html_escape_names) {
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	tc_markup_escape(f, "<a href=\"x\">&'\x01\tb\xff");
	fclose(f);
	ck_assert_str_eq(buf, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\xef\xbf\xbd\tb\xef\xbf\xbd");
	free(buf);
}
END_TEST

/* What XML 1.0 cannot hold becomes U+FFFD, one for each byte of invalid
 * UTF-8: lead bytes past 0xF4, overlong forms, surrogates, sequences cut
 * short or beyond U+10FFFF, and the non-characters U+FFFE and U+FFFF. */
START_TEST(html_escape_hostile) {
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "a\xf5\x80\x80" "b", "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "b" },
		{ "\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf8\x88\x80\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xe2\x82<", "\xef\xbf\xbd\xef\xbf\xbd&lt;" },
		{ "\xef\xbf\xbe|\xef\xbf\xbf", "\xef\xbf\xbd|\xef\xbf\xbd" },
		{ "\x1b[1m\x7f", "\xef\xbf\xbd[1m\xef\xbf\xbd" },
		/* Valid UTF-8 passes: U+FFFD itself, U+10FFFF, U+E000. */
		{ "\xef\xbf\xbd\xf4\x8f\xbf\xbf\xee\x80\x80", "\xef\xbf\xbd\xf4\x8f\xbf\xbf\xee\x80\x80" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);
		tc_markup_escape(f, cases[i].in);
		fclose(f);
		ck_assert_msg(strcmp(buf, cases[i].out) == 0, "case %zu", i);
		free(buf);
	}
}
END_TEST

static char *wording(const struct tc_finding *f) {
	struct tc_strbuf sb = { 0 };
	tc_finding_wording(f, &sb);
	return sb.s;
}

/* The rank at each slot (first without any), the job's spread in place of
 * the rank's, and nothing but the text without has_rank. */
START_TEST(finding_wording_from_fields) {
	const char *text = "idle on GPU 0 for 40 % (worse than GPU 1; 1 of 2 devices at or "
		"above the moderate band)";
	char t[160];
	snprintf(t, sizeof(t), "%s", text);
	const char *clause = "; 1 of 2 devices at or above the moderate band";
	uint32_t at = (uint32_t)(strstr(t, clause) - t);
	struct tc_finding f = { .kind = "idle-device", .text = t, .n_measured = 8, .n_over = 3,
		.n_slots = 2, .has_spread = true, .spread_at = at,
		.spread_len = (uint32_t)strlen(clause) };
	f.slot[0] = (uint32_t)(strstr(t, "GPU 0") - t);
	f.slot[1] = (uint32_t)(strstr(t, "GPU 1") - t);
	char *w = wording(&f);
	ck_assert_str_eq(w, text);
	free(w);
	f.has_rank = true;
	f.rank = 3;
	w = wording(&f);
	ck_assert_str_eq(w, "idle on rank 3: GPU 0 for 40 % (worse than rank 3: GPU 1; 3 of 8 "
		"devices at or above the moderate band)");
	free(w);
	/* A job of one device each: no spread clause. */
	f.n_measured = 1;
	f.n_over = 1;
	w = wording(&f);
	ck_assert_str_eq(w, "idle on rank 3: GPU 0 for 40 % (worse than rank 3: GPU 1)");
	free(w);
	/* No slots (no device named, or a digest from before them): first. */
	f.n_slots = 0;
	f.has_spread = false;
	w = wording(&f);
	ck_assert_str_eq(w, "rank 3: idle on GPU 0 for 40 % (worse than GPU 1; 1 of 2 devices at "
		"or above the moderate band)");
	free(w);
}
END_TEST

/* Offsets from a damaged digest: out of order or past the end, they are
 * left out, never read past the text. */
START_TEST(finding_wording_bad_offsets) {
	char t[] = "abc";
	struct tc_finding f = { .kind = "x", .text = t, .has_rank = true, .rank = 1, .n_slots = 3,
		.has_spread = true, .spread_at = 2, .spread_len = 1000, .n_measured = 2, .n_over = 1 };
	f.slot[0] = 2;
	f.slot[1] = 1;
	f.slot[2] = 99;
	char *w = wording(&f);
	ck_assert_str_eq(w, "abrank 1: ; 1 of 2 devices at or above the moderate band");
	free(w);
	f.spread_at = 50;
	f.n_slots = 1;
	f.slot[0] = 3;
	w = wording(&f);
	ck_assert_str_eq(w, "abcrank 1: ");
	free(w);
}
END_TEST

int main(void) {
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, timeline_bins_sum_to_busy);
	tcase_add_test(tc, html_escape_names);
	tcase_add_test(tc, html_escape_hostile);
	tcase_add_test(tc, finding_wording_from_fields);
	tcase_add_test(tc, finding_wording_bad_offsets);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
