#ifndef TC_OUTPUT_JSONW_H
#define TC_OUTPUT_JSONW_H

/*
 * A streaming JSON emitter: it tracks nesting to place commas and escapes
 * strings (invalid UTF-8 becomes U+FFFD), so output is always strict JSON.
 * Memory does not grow with output size. The FILE is borrowed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TC_JW_MAX_DEPTH 64

struct tc_jw {
	FILE *f;
	int depth;
	bool pretty;
	bool first[TC_JW_MAX_DEPTH]; /* no element written yet at this level */
	bool after_key;
};

void tc_jw_init(struct tc_jw *w, FILE *f, bool pretty);
void tc_jw_obj_begin(struct tc_jw *w);
void tc_jw_obj_end(struct tc_jw *w);
void tc_jw_arr_begin(struct tc_jw *w);
void tc_jw_arr_end(struct tc_jw *w);
void tc_jw_key(struct tc_jw *w, const char *k);
void tc_jw_str(struct tc_jw *w, const char *s);
void tc_jw_strn(struct tc_jw *w, const char *s, size_t n);
void tc_jw_int(struct tc_jw *w, int64_t v);
void tc_jw_uint(struct tc_jw *w, uint64_t v);
/* Non-finite values are written as null. */
void tc_jw_double(struct tc_jw *w, double v);
void tc_jw_bool(struct tc_jw *w, bool v);
void tc_jw_null(struct tc_jw *w);
/* A pre-formatted JSON number or literal, written as is. */
void tc_jw_raw(struct tc_jw *w, const char *s);
/* Key and value in one call, for the common object member. */
void tc_jw_kv_str(struct tc_jw *w, const char *k, const char *v);
void tc_jw_kv_int(struct tc_jw *w, const char *k, int64_t v);
void tc_jw_kv_uint(struct tc_jw *w, const char *k, uint64_t v);
void tc_jw_kv_double(struct tc_jw *w, const char *k, double v);
void tc_jw_kv_bool(struct tc_jw *w, const char *k, bool v);
/* Write s escaped, without quotes, to f (shared with other writers). C0
 * controls, DEL and C1 controls become \u00XX, invalid UTF-8 \ufffd; the
 * value read back is the name itself, so JSON output is exact. */
void tc_json_escape(FILE *f, const char *s, size_t n);
/* Finish the document with a newline. */
void tc_jw_end(struct tc_jw *w);

#endif
