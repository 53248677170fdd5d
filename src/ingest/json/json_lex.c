/*
 * JSON tokeniser (see json_lex.h). One pass per byte: a grammar state per
 * position instead of a parser stack of callbacks, strings scanned 16 bytes
 * at a time, and a NUL after each batch's bytes so no scan loop needs a
 * bounds check (it stops at the NUL, then position n tells "cut here"
 * from "bad byte").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "ingest/json/json_lex.h"
#include "util/num.h"
#include "util/xalloc.h"

#define CHUNK (256 * 1024)
#define SLACK 64 /* readable bytes past a batch's NUL: 16-byte loads */

enum {
	LX_VALUE,  /* a value; in an array, or ']' after '[' or ',' */
	LX_KEY,    /* a key; or '}' after '{' or ',' */
	LX_COLON,
	LX_NEXT,   /* ',' or the container's closer */
	LX_DONE,   /* the top-level value is complete */
};

enum { AFTER_NONE, AFTER_OPEN, AFTER_COMMA };

static bool is_digit(uint8_t c) {
	return (unsigned)(c - '0') < 10;
}

static int hex_val(uint8_t c) {
	if (is_digit(c)) {
		return c - '0';
	}
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

void tc_jsrc_init(struct tc_jsrc *s, struct tc_input *in, const struct tc_limits *lim) {
	memset(s, 0, sizeof(*s));
	s->in = in;
	tc_error_init(&s->err);
	s->lx.max_depth = lim->max_depth ? lim->max_depth : 64;
	s->lx.max_string = lim->max_string;
	s->lx.state = LX_VALUE;
	/* 64 slots up to 64 KiB of input, a slot more a KiB up to all of them
	 * (16 MiB); all where the size is unknown (stdin). */
	uint64_t size = in->file_size ? in->file_size : UINT64_MAX;
	s->lx.dd_bits = 6;
	while ((1u << s->lx.dd_bits) < TC_JDD_SLOTS && ((uint64_t)1 << (s->lx.dd_bits + 10)) < size) {
		s->lx.dd_bits++;
	}
}

void tc_jsrc_finish(struct tc_jsrc *s) {
	free(s->lx.stack);
	s->lx.stack = NULL;
	if (s->lx.dd) {
		for (size_t i = 0; i < (size_t)1 << s->lx.dd_bits; i++) {
			free(s->lx.dd[i].s);
		}
		free(s->lx.dd);
		s->lx.dd = NULL;
	}
}

/* The slot of string p[0, n): a hit when it holds these bytes, else it
 * takes them (see TC_JDD_SLOTS). p has 8 readable bytes past its start. */
static uint16_t dedup(struct tc_jlex *lx, const uint8_t *p, size_t n) {
	if (n > TC_JDD_MAX) {
		return 0;
	}
	if (!lx->dd) {
		lx->dd = tc_xcalloc((size_t)1 << lx->dd_bits, sizeof(*lx->dd));
	}
	/* The first and last 8 bytes and the length. */
	uint64_t a = tc_load_le64_prefix(p, n), b = n > 8 ? tc_load_le64(p + n - 8) : 0;
	uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xBF58476D1CE4E5B9ull;
	h ^= h >> 31;
	size_t i = (size_t)(h >> (64 - lx->dd_bits));
	struct tc_jdd_slot *d = &lx->dd[i];
	if (d->a == a && d->b == b && d->len == n) {
		if (n <= 16 || memcmp(d->s, p, n) == 0) {
			return (uint16_t)(i | TC_JDD_VALID | TC_JDD_HIT);
		}
	}
	if (n > 16) {
		if (d->cap < n) {
			free(d->s);
			d->cap = n < 64 ? 64 : (uint32_t)n;
			d->s = tc_xmalloc(d->cap);
		}
		memcpy(d->s, p, n);
	}
	d->a = a;
	d->b = b;
	d->len = (uint32_t)n;
	return (uint16_t)(i | TC_JDD_VALID);
}

void tc_jbatch_finish(struct tc_jbatch *bt) {
	free(bt->buf);
	free(bt->tok);
	memset(bt, 0, sizeof(*bt));
}

/* "'x'" for a printable byte, else its value: for one-line messages. */
static const char *show(uint8_t c, char *buf, size_t size) {
	if (c >= 0x20 && c < 0x7f) {
		snprintf(buf, size, "'%c'", c);
	} else {
		snprintf(buf, size, "byte 0x%02x", c);
	}
	return buf;
}

static bool lex_fail(struct tc_error *err, uint64_t at, const char *what, uint8_t c) {
	char b[16];
	tc_error_set(err, TC_EXIT_INPUT, "json: %s, found %s", what, show(c, b, sizeof(b)));
	return tc_error_at(err, (int64_t)at);
}

static void put_utf8(uint8_t **w, uint32_t cp) {
	uint8_t *o = *w;
	if (cp < 0x80) {
		*o++ = (uint8_t)cp;
	} else if (cp < 0x800) {
		*o++ = (uint8_t)(0xC0 | cp >> 6);
		*o++ = (uint8_t)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (uint8_t)(0xE0 | cp >> 12);
		*o++ = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (uint8_t)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (uint8_t)(0xF0 | cp >> 18);
		*o++ = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
		*o++ = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (uint8_t)(0x80 | (cp & 0x3F));
	}
	*w = o;
}

static uint32_t hex4(const uint8_t *p) {
	return (uint32_t)(hex_val(p[0]) << 12 | hex_val(p[1]) << 8 | hex_val(p[2]) << 4 |
		hex_val(p[3]));
}

/* Decode the escapes of a checked string's text [p, end) in place; returns
 * the decoded length. A surrogate without its pair becomes U+FFFD. */
static size_t unescape(uint8_t *p, const uint8_t *end) {
	uint8_t *w = p;
	const uint8_t *r = p;
	while (r < end) {
		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		uint8_t e = r[1];
		r += 2;
		switch (e) {
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'u': {
			uint32_t cp = hex4(r);
			r += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && end - r >= 6 && r[0] == '\\' &&
					r[1] == 'u') {
				uint32_t lo = hex4(r + 2);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					r += 6;
				}
			}
			if (cp >= 0xD800 && cp <= 0xDFFF) {
				cp = 0xFFFD;
			}
			put_utf8(&w, cp);
			break;
		}
		default: *w++ = e; break; /* '"', '\\', '/' */
		}
	}
	return (size_t)(w - p);
}

/* Bytes after a UTF-8 lead byte, by structure (as yajl checks); -1 if c
 * cannot start a character. */
static int utf8_tail(uint8_t c) {
	if (c >> 5 == 0x6) {
		return 1;
	}
	if (c >> 4 == 0xE) {
		return 2;
	}
	if (c >> 3 == 0x1E) {
		return 3;
	}
	return -1;
}

enum { SCAN_OK, SCAN_CUT, SCAN_FAIL };

/* Index of the next '"', '\\', control or non-ASCII byte at or after j (the
 * NUL at n stops it). */
static inline size_t scan_str(const uint8_t *p, size_t j) {
#ifdef __SSE2__
	const __m128i vq = _mm_set1_epi8('"'), vb = _mm_set1_epi8('\\');
	const __m128i vc = _mm_set1_epi8(0x20);
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
		/* Signed compare: bytes >= 0x80 are negative, so below 0x20 too. */
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, vq), _mm_cmpeq_epi8(v, vb)),
			_mm_cmplt_epi8(v, vc));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits) {
			return j + (size_t)__builtin_ctz(bits);
		}
		j += 16;
	}
#else
	while (p[j] != '"' && p[j] != '\\' && p[j] >= 0x20 && p[j] < 0x80) {
		j++;
	}
	return j;
#endif
}

/* The string whose quote is at s: *close gets its closing quote, *len the
 * length of its text once its escapes are decoded (in place). */
static int lex_string(struct tc_jlex *lx, uint8_t *p, size_t s, size_t n, uint64_t base,
		size_t *close, size_t *len, struct tc_error *err) {
	size_t j = s + 1;
	bool esc = false;
	for (;;) {
		j = scan_str(p, j);
		uint8_t c = p[j];
		if (c == '"') {
			break;
		}
		if (j >= n) {
			goto cut;
		}
		if (c == '\\') {
			esc = true;
			if (j + 1 >= n) {
				goto cut;
			}
			uint8_t e = p[j + 1];
			if (e == 'u') {
				if (j + 6 > n) {
					goto cut;
				}
				for (int k = 2; k < 6; k++) {
					if (hex_val(p[j + k]) < 0) {
						lex_fail(err, base + j + k, "bad \\u escape in a string", p[j + k]);
						return SCAN_FAIL;
					}
				}
				j += 6;
			} else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' ||
					e == 'n' || e == 'r' || e == 't') {
				j += 2;
			} else {
				lex_fail(err, base + j + 1, "bad escape in a string", e);
				return SCAN_FAIL;
			}
		} else if (c >= 0x80) {
			int t = utf8_tail(c), k = t < 0 ? 0 : 1;
			for (; k <= t; k++) {
				if (j + (size_t)k >= n) {
					goto cut;
				}
				if ((p[j + k] & 0xC0) != 0x80) {
					break;
				}
			}
			if (k <= t || t < 0) {
				lex_fail(err, base + j + k, "invalid UTF-8 in a string", p[j + k]);
				return SCAN_FAIL;
			}
			j += 1 + (size_t)t;
		} else {
			lex_fail(err, base + j, "control character in a string (escape it)", c);
			return SCAN_FAIL;
		}
	}
	/* Held to the cap once scanned (a batch bounds the scan). */
	if (j - s - 1 > lx->max_string) {
		goto long_string;
	}
	*close = j;
	*len = esc ? unescape(p + s + 1, p + j) : j - s - 1;
	return SCAN_OK;
cut:
	if (j - s - 1 <= lx->max_string) {
		return SCAN_CUT;
	}
long_string:
	tc_error_set(err, TC_EXIT_LIMIT, "json: string longer than the limit of %" PRIu32
		" bytes (raise it with --max-string)", lx->max_string);
	tc_error_at(err, (int64_t)(base + s + 1 + lx->max_string));
	return SCAN_FAIL;
}

/* The number at i: *end gets the byte after it. SCAN_CUT when it reaches n
 * (it may go on in the next batch, or it is incomplete). */
static int lex_number(const uint8_t *p, size_t i, size_t n, size_t *end, bool *complete) {
	size_t j = i + (p[i] == '-');
	*complete = false;
	if (p[j] == '0') {
		j++;
	} else if (is_digit(p[j])) {
		while (is_digit(p[j])) {
			j++;
		}
	} else {
		*end = j;
		return j >= n ? SCAN_CUT : SCAN_FAIL;
	}
	if (p[j] == '.') {
		j++;
		if (!is_digit(p[j])) {
			*end = j;
			return j >= n ? SCAN_CUT : SCAN_FAIL;
		}
		while (is_digit(p[j])) {
			j++;
		}
	}
	if ((p[j] | 0x20) == 'e') {
		j++;
		if (p[j] == '+' || p[j] == '-') {
			j++;
		}
		if (!is_digit(p[j])) {
			*end = j;
			return j >= n ? SCAN_CUT : SCAN_FAIL;
		}
		while (is_digit(p[j])) {
			j++;
		}
	}
	*end = j;
	*complete = true;
	return j >= n ? SCAN_CUT : SCAN_OK;
}

static bool push(struct tc_jlex *lx, bool obj, uint64_t at, struct tc_error *err) {
	/* One past the reader's own limit: the reader reports it first. */
	if (lx->depth > lx->max_depth) {
		tc_error_set(err, TC_EXIT_LIMIT, "json: nesting deeper than %u levels "
			"(raise it with --max-depth)", lx->max_depth);
		return tc_error_at(err, (int64_t)at);
	}
	TC_GROW(lx->stack, lx->cap, lx->depth + 1);
	lx->stack[lx->depth++] = obj;
	return true;
}

#define EMIT(tp, o, l, e, bv) (tok[nt++] = (struct tc_jtok){ (uint32_t)(o), (uint32_t)(l), \
	(uint32_t)(e), (tp), (bv) })

/*
 * Tokenise bt's bytes p[0, n) (p[n] is NUL, SLACK bytes readable after) into
 * bt->tok. bt->used gets the bytes of whole tokens: a token cut by n is left
 * for the next batch, or, when final, marks eof_in_token. Errors give input
 * offsets (bt->offset_base + position).
 */
static bool lex(struct tc_jlex *lx, struct tc_jbatch *bt, bool final, struct tc_error *err) {
	uint8_t *p = bt->buf;
	size_t n = bt->len, i = 0, nt = 0;
	uint64_t base = bt->offset_base;
	struct tc_jtok *tok = bt->tok;
	uint8_t st = lx->state, after = lx->after;
	bool top_obj = lx->depth && lx->stack[lx->depth - 1];
	bool ok = true;
	for (;;) {
		/* At most one token an iteration. Grown on demand, not sized for
		 * the worst case (a token a byte): huge pages would make all of it
		 * resident. */
		if (nt == bt->tcap) {
			tok = TC_GROW(bt->tok, bt->tcap, nt + 1);
		}
		while (tc_json_ws(p[i])) {
			i++;
		}
		if (i >= n) {
			break;
		}
		size_t s = i;
		uint8_t c = p[i];
		/* Strings first: keys and values, the most common tokens. */
		if (c == '"' && (st == LX_KEY || st == LX_VALUE)) {
			size_t q, len;
			int rv = lex_string(lx, p, s, n, base, &q, &len, err);
			if (rv != SCAN_OK) {
				ok = rv == SCAN_CUT;
				goto cut;
			}
			bool key = st == LX_KEY;
			EMIT(key ? TC_JT_KEY : TC_JT_STR, s + 1, len, q + 1, false);
			if (lx->dedup && len > (key ? 4u : 1u)) {
				tok[nt - 1].dd = dedup(lx, p + s + 1, len);
			}
			i = q + 1;
			st = key ? LX_COLON : lx->depth ? LX_NEXT : LX_DONE;
			after = AFTER_NONE;
			continue;
		}
		switch (st) {
		case LX_NEXT:
			if (c == ',') {
				i++;
				st = top_obj ? LX_KEY : LX_VALUE;
				after = AFTER_COMMA;
				continue;
			}
			if (c == (top_obj ? '}' : ']')) {
				goto close;
			}
			ok = lex_fail(err, base + i, top_obj ? "expected ',' or '}' after an object "
				"member" : "expected ',' or ']' after an array element", c);
			goto out;
		case LX_COLON:
			if (c == ':') {
				i++;
				st = LX_VALUE;
				continue;
			}
			ok = lex_fail(err, base + i, "expected ':' after an object key", c);
			goto out;
		case LX_KEY:
			if (c == '}' && after != AFTER_NONE) {
				goto close;
			}
			ok = lex_fail(err, base + i, "expected an object key (a string)", c);
			goto out;
		case LX_VALUE:
			switch (c) {
			case '{':
			case '[':
				if (!push(lx, c == '{', base + i, err)) {
					ok = false;
					goto out;
				}
				top_obj = c == '{';
				EMIT(top_obj ? TC_JT_MAP : TC_JT_ARRAY, 0, 0, i + 1, false);
				i++;
				st = top_obj ? LX_KEY : LX_VALUE;
				after = AFTER_OPEN;
				continue;
			case ']':
				if (lx->depth && !top_obj && after != AFTER_NONE) {
					goto close;
				}
				ok = lex_fail(err, base + i, "expected a value", c);
				goto out;
			case 't':
			case 'f':
			case 'n': {
				const char *lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
				size_t k = 0;
				for (; lit[k]; k++) {
					if (i + k >= n) {
						goto cut;
					}
					if (p[i + k] != (uint8_t)lit[k]) {
						ok = lex_fail(err, base + i + k, "expected a value (bad literal)",
							p[i + k]);
						goto out;
					}
				}
				EMIT(c == 'n' ? TC_JT_NULL : TC_JT_BOOL, 0, 0, i + k, c == 't');
				i += k;
				break;
			}
			default: {
				if (c != '-' && !is_digit(c)) {
					ok = lex_fail(err, base + i, "expected a value", c);
					goto out;
				}
				size_t e;
				bool complete;
				int rv = lex_number(p, i, n, &e, &complete);
				if (rv == SCAN_FAIL) {
					ok = lex_fail(err, base + e, "bad number", p[e]);
					goto out;
				}
				if (rv == SCAN_CUT && !(final && complete)) {
					goto cut;
				}
				EMIT(TC_JT_NUM, i, e - i, e, false);
				i = e;
				break;
			}
			}
			st = lx->depth ? LX_NEXT : LX_DONE;
			after = AFTER_NONE;
			continue;
		default:
			ok = lex_fail(err, base + i, "unexpected data after the end of the document", c);
			goto out;
		}
close:
		if (after == AFTER_COMMA) {
			lx->trailing_commas++;
		}
		EMIT(top_obj ? TC_JT_END_MAP : TC_JT_END_ARRAY, 0, 0, i + 1, false);
		i++;
		lx->depth--;
		top_obj = lx->depth && lx->stack[lx->depth - 1];
		st = lx->depth ? LX_NEXT : LX_DONE;
		after = AFTER_NONE;
		continue;
cut:
		/* A token cut by the end of the batch (or bad: ok is false). */
		i = s;
		if (ok && final) {
			lx->eof_in_token = true;
		}
		break;
	}
out:
	lx->state = st;
	lx->after = after;
	bt->n = nt;
	bt->used = i;
	return ok;
}

bool tc_jsrc_fill(struct tc_jsrc *s, struct tc_jbatch *bt) {
	const struct tc_jbatch *prev = s->prev;
	size_t tail = prev ? prev->len - prev->used : 0;
	/* A long token doubles the read, so it is scanned O(log) times. */
	size_t want = tail > CHUNK ? tail : CHUNK;
	bt->n = 0;
	bt->used = 0;
	bt->failed = false;
	bt->last = true;
	s->prev = NULL;
	if (tail + want + 1 + SLACK > UINT32_MAX) {
		tc_error_set(&s->err, TC_EXIT_LIMIT, "json: a token longer than 4 GiB");
		tc_error_at(&s->err, (int64_t)(s->offset - tail));
		bt->len = 0;
		bt->failed = true;
		return false;
	}
	if (bt->cap < tail + want + 1 + SLACK) {
		bt->cap = tail + want + 1 + SLACK;
		free(bt->buf);
		bt->buf = tc_xmalloc(bt->cap);
	}
	if (tail) {
		memcpy(bt->buf, prev->buf + prev->used, tail);
	}
	bt->offset_base = s->offset - tail;
	/* Fill the batch: reads may come short (the sniffed head, pipes), and
	 * a carried token is scanned again with each batch. */
	size_t got = 0;
	while (got < want && !s->eof) {
		ssize_t k = tc_input_read(s->in, bt->buf + tail + got, want - got, &s->err);
		if (k < 0) {
			bt->len = 0;
			bt->failed = true;
			return false;
		}
		s->eof = k == 0;
		got += (size_t)k;
	}
	if (s->offset == 0 && tc_json_bom(bt->buf, got)) {
		memset(bt->buf, ' ', 3); /* a UTF-8 BOM: whitespace to the lexer */
	}
	s->offset += got;
	bt->len = tail + got;
	memset(bt->buf + bt->len, 0, 1 + SLACK);
	if (!lex(&s->lx, bt, s->eof, &s->err)) {
		bt->failed = true;
		return false;
	}
	s->prev = bt;
	bt->last = s->eof;
	return !s->eof;
}
