/* A streaming JSON writer: commas by nesting, strings escaped to strict. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "output/jsonw.h"
#include "util/utf8.h"

void tc_jw_init(struct tc_jw *w, FILE *f, bool pretty) {
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
	w->first[0] = true;
}

static void indent(struct tc_jw *w) {
	if (w->pretty) {
		fputc('\n', w->f);
		for (int i = 0; i < w->depth; i++) {
			fputs("  ", w->f);
		}
	}
}

/* Separator before a value or key. */
static void sep(struct tc_jw *w) {
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth]) {
		fputc(',', w->f);
	}
	w->first[w->depth] = false;
	if (w->depth > 0) {
		indent(w);
	}
}

static void open_(struct tc_jw *w, char c) {
	sep(w);
	fputc(c, w->f);
	if (w->depth < TC_JW_MAX_DEPTH - 1) {
		w->depth++;
	}
	w->first[w->depth] = true;
}

static void close_(struct tc_jw *w, char c) {
	bool empty = w->first[w->depth];
	if (w->depth > 0) {
		w->depth--;
	}
	if (!empty) {
		indent(w);
	}
	fputc(c, w->f);
}

void tc_jw_obj_begin(struct tc_jw *w) {
	open_(w, '{');
}

void tc_jw_obj_end(struct tc_jw *w) {
	close_(w, '}');
}

void tc_jw_arr_begin(struct tc_jw *w) {
	open_(w, '[');
}

void tc_jw_arr_end(struct tc_jw *w) {
	close_(w, ']');
}

/* Length of a valid UTF-8 sequence at s (max n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
	uint32_t cp;
	return s[0] < 0x80 ? 1 : tc_utf8_decode(s, n, &cp);
}

void tc_json_escape(FILE *f, const char *str, size_t n) {
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			size_t j = i;
			while (j < n && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\') {
				j++;
			}
			fwrite(s + i, 1, j - i, f);
			i = j;
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			/* DEL and C1 controls are valid JSON raw, but escaped they
			 * cannot act on a terminal showing the output. */
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
			} else {
				size_t len = utf8_len(s + i, n - i);
				if (len == 0) {
					fputs("\\ufffd", f);
					len = 1;
				} else if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) {
					fprintf(f, "\\u%04x", s[i + 1]);
				} else {
					fwrite(s + i, 1, len, f);
				}
				i += len;
				continue;
			}
		}
		i++;
	}
}

void tc_jw_key(struct tc_jw *w, const char *k) {
	sep(w);
	fputc('"', w->f);
	tc_json_escape(w->f, k, strlen(k));
	fputs(w->pretty ? "\": " : "\":", w->f);
	w->after_key = true;
}

void tc_jw_strn(struct tc_jw *w, const char *s, size_t n) {
	sep(w);
	fputc('"', w->f);
	tc_json_escape(w->f, s, n);
	fputc('"', w->f);
}

void tc_jw_str(struct tc_jw *w, const char *s) {
	tc_jw_strn(w, s, strlen(s));
}

void tc_jw_int(struct tc_jw *w, int64_t v) {
	sep(w);
	fprintf(w->f, "%" PRId64, v);
}

void tc_jw_uint(struct tc_jw *w, uint64_t v) {
	sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

void tc_jw_double(struct tc_jw *w, double v) {
	sep(w);
	/* Range test before the cast: (int64_t) of a larger double is undefined. */
	if (!isfinite(v)) {
		fputs("null", w->f);
	} else if (fabs(v) < 9e15 && v == (double)(int64_t)v) {
		fprintf(w->f, "%" PRId64, (int64_t)v);
	} else {
		fprintf(w->f, "%.17g", v);
	}
}

void tc_jw_bool(struct tc_jw *w, bool v) {
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void tc_jw_null(struct tc_jw *w) {
	sep(w);
	fputs("null", w->f);
}

void tc_jw_raw(struct tc_jw *w, const char *s) {
	sep(w);
	fputs(s, w->f);
}

void tc_jw_kv_str(struct tc_jw *w, const char *k, const char *v) {
	tc_jw_key(w, k);
	tc_jw_str(w, v);
}

void tc_jw_kv_int(struct tc_jw *w, const char *k, int64_t v) {
	tc_jw_key(w, k);
	tc_jw_int(w, v);
}

void tc_jw_kv_uint(struct tc_jw *w, const char *k, uint64_t v) {
	tc_jw_key(w, k);
	tc_jw_uint(w, v);
}

void tc_jw_kv_double(struct tc_jw *w, const char *k, double v) {
	tc_jw_key(w, k);
	tc_jw_double(w, v);
}

void tc_jw_kv_bool(struct tc_jw *w, const char *k, bool v) {
	tc_jw_key(w, k);
	tc_jw_bool(w, v);
}

void tc_jw_end(struct tc_jw *w) {
	fputc('\n', w->f);
}
