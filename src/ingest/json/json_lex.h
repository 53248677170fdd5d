#ifndef TC_INGEST_JSON_LEX_H
#define TC_INGEST_JSON_LEX_H

/*
 * A streaming JSON tokeniser for the trace reader: input is read in chunks
 * ("batches") and each is cut into tokens that point into the batch's bytes.
 * A token never spans two batches: the bytes of one cut by a chunk's end are
 * carried to the front of the next batch. Strings with escapes are decoded
 * in place (never longer than their text), so no token needs other memory.
 *
 * Beyond RFC 8259 it accepts what trace writers emit: a trailing comma before
 * ']' or '}' (counted), and input that stops between tokens (the caller
 * decides whether the document is complete enough). UTF-8 in strings is
 * checked by structure: a lead byte and its continuation bytes.
 *
 * Ownership: a source reads from an input it does not own; a batch owns its
 * bytes and tokens until tc_jbatch_finish(). The source refers to the last
 * batch it filled (its carried tail) until the next fill.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"
#include "util/input.h"

/* JSON's four whitespace bytes. */
static inline bool tc_json_ws(uint8_t c) {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* A UTF-8 byte order mark (3 bytes) starts p[0, n). */
static inline bool tc_json_bom(const uint8_t *p, size_t n) {
	return n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF;
}

enum tc_jtok_type {
	TC_JT_NULL, TC_JT_BOOL, TC_JT_NUM, TC_JT_STR, TC_JT_KEY,
	TC_JT_MAP, TC_JT_END_MAP, TC_JT_ARRAY, TC_JT_END_ARRAY,
};

/*
 * Strings (keys and values) are deduplicated by the tokeniser, whose thread
 * has just read their bytes: a string token names one of TC_JDD_SLOTS slots
 * that now holds its text (TC_JDD_VALID), and says whether the slot held
 * that text before (TC_JDD_HIT). Tokens come in order, so a reader that
 * mirrors the slots (an id per slot, forgotten on every miss) takes a
 * repeated string's id without reading its bytes, which the other thread
 * wrote. Strings longer than TC_JDD_MAX get no slot, and none does unless
 * the source's lx.dedup is set (bench/json_lex_noop times tokenising alone).
 * A small input uses fewer slots: a folder of small files, or a fuzzer,
 * should not pay for tables sized for gigabytes.
 */
#define TC_JDD_SLOTS 16384
#define TC_JDD_SLOT(dd) ((dd) & (TC_JDD_SLOTS - 1))
#define TC_JDD_VALID 0x8000
#define TC_JDD_HIT 0x4000
#define TC_JDD_MAX 1024

/* 16 bytes: a batch holds tens of thousands. */
struct tc_jtok {
	uint32_t off;      /* text (strings, keys: decoded; numbers) at buf + off */
	uint32_t len;
	uint32_t end;      /* the byte after the token, from buf */
	uint8_t type;
	bool b;            /* a bool's value */
	uint16_t dd;       /* a string's slot (TC_JDD_*), or 0 */
};

/* A string of up to 16 bytes is its first and last 8 (a, b) and its length,
 * compared without a call; only longer ones keep a copy in s. */
struct tc_jdd_slot {
	uint64_t a, b;
	uint32_t len, cap;
	uint8_t *s;
};

struct tc_jlex {
	uint8_t *stack;    /* per open container: 1 object, 0 array */
	size_t cap;
	uint32_t depth, max_depth;
	uint32_t max_string;
	uint8_t state;
	uint8_t after;     /* what came last: an opener, a comma, or neither */
	uint64_t trailing_commas;
	bool eof_in_token; /* the input ended inside a string, number or literal */
	bool dedup;        /* set string tokens' slots (the reader's choice) */
	uint8_t dd_bits;   /* slots used: 1 << dd_bits (fewer for small inputs) */
	struct tc_jdd_slot *dd; /* made on first use */
};

struct tc_jbatch {
	uint8_t *buf;      /* bytes [0, len), a NUL at len, slack after */
	size_t cap;
	size_t len;
	uint64_t offset_base; /* input offset of buf[0] */
	struct tc_jtok *tok;
	size_t n, tcap;
	size_t used;       /* bytes of whole tokens; the rest starts the next batch */
	bool last;         /* nothing follows: the end, or an error */
	bool failed;       /* reading or tokenising failed after the tokens (source's err) */
};

struct tc_jsrc {
	struct tc_input *in;
	struct tc_jlex lx;
	struct tc_error err;
	uint64_t offset;   /* input bytes read so far */
	const struct tc_jbatch *prev;
	bool eof;
};

void tc_jsrc_init(struct tc_jsrc *s, struct tc_input *in, const struct tc_limits *lim);
void tc_jsrc_finish(struct tc_jsrc *s);

/* Read the next chunk into bt behind the previous batch's unfinished token and
 * tokenise it; the previous batch's bytes must still be intact. Returns false
 * when bt is the last batch: the input ended, or bt->failed with s->err set,
 * to be reported after bt's tokens. */
bool tc_jsrc_fill(struct tc_jsrc *s, struct tc_jbatch *bt);

void tc_jbatch_finish(struct tc_jbatch *bt);

#endif
