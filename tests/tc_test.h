#ifndef TC_TESTS_TC_TEST_H
#define TC_TESTS_TC_TEST_H

/* Helpers shared by the Check suites. */

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Real traces live in TC_TRACES (default ../shared/traces), which a fresh
 * clone lacks. The cases that read them go in TCases made by
 * tc_test_traces_tcase (tagged "traces"); tc_test_run runs one part of a
 * suite, chosen by TC_TEST_PART (meson registers both as tests):
 *   fixtures  every case but the traces ones;
 *   traces    only the traces ones; exits TC_TEST_SKIP (77) without the
 *             folder;
 *   unset     all, or the fixtures part with a note when the folder is
 *             absent.
 * A part with no cases also exits TC_TEST_SKIP.
 */
#define TC_TEST_TRACES_TAG "traces"
#define TC_TEST_SKIP 77
bool tc_test_have_traces(void);
TCase *tc_test_traces_tcase(const char *name);
/* Path of a real trace under TC_TRACES (static buffer); the test fails
 * when it is missing. Only for cases in a traces TCase. */
const char *tc_test_trace(const char *rel);
/* Path under the source tree / build tree (static buffer). */
const char *tc_test_src(const char *rel);
const char *tc_test_build(const char *rel);

struct tc_error;
struct tc_model;
/* Read one input (one thread) into a finalized model; the test fails when
 * it cannot be read. */
/* The file read as the CLI reads it, one thread; NULL with err filled when
 * it is refused. */
struct tc_model *tc_test_try_load(const char *path, struct tc_error *err);
struct tc_model *tc_test_load(const char *path);
/* The real trace rel (tc_test_trace) read as above. */
struct tc_model *tc_test_load_trace(const char *rel);
/* Read a whole file into a malloc'd buffer. */
unsigned char *tc_test_slurp(const char *path, size_t *len);
/* A new temporary file holding data[0, n); its path (static buffer). The
 * caller unlinks it. */
const char *tc_test_tmpfile(const void *data, size_t n);
/* src[0, n) compressed by zlib in one go: gzip (wbits 31) or zlib (15)
 * format, at level; malloc'd. */
uint8_t *tc_test_deflate(const void *src, size_t n, int wbits, int level, size_t *out_len);
/* Replace path's contents with data[0, n). */
void tc_test_write(const char *path, const void *data, size_t n);
struct tc_model;
struct tc_track;
/* Event ev's track (the model's tc_model_event_track), asserted to exist. */
const struct tc_track *tc_test_track_of(const struct tc_model *m, size_t ev);
/* Assert that two models hold the same records with the same ids (e.g.
 * one input read serially and pipelined). */
void tc_test_same_model(const struct tc_model *a, const struct tc_model *b, const char *what);
struct tc_analysis_opts;
struct tc_op_table;
/* The op table grouped by by (tc_analyze's TC_AN_OP_TABLE with o, op_by
 * set) into t, finished by the caller; false when by is unknown. */
bool tc_test_op_table(const struct tc_model *m, const struct tc_analysis_opts *o,
	const char *by, struct tc_op_table *t);
/* Run the part of a suite TC_TEST_PART names (above); the process exit
 * status: 0 all passed, 1 a failure, TC_TEST_SKIP nothing could run. */
int tc_test_run(Suite *s);

#endif
