#ifndef TC_UTIL_NUMFMT_H
#define TC_UTIL_NUMFMT_H

/*
 * Numbers for people: every figure carries its unit, one adaptive unit per
 * figure, counts with thousands separators and nouns that agree with them.
 * Pure formatting, shared by the text writers (output/) and the findings'
 * text (analysis/rules.c). Each function writes into buf (TC_FMT_LEN bytes)
 * and returns it, so several figures fit in one printf.
 */

#include <stddef.h>
#include <stdint.h>

#define TC_FMT_LEN 64

/* Duration with an adaptive unit: "812 ps", "3.250 us", "12.041 ms", "1.500 s"; "0". */
char *tc_fmt_dur(char *buf, int64_t ps);
/* Bytes in binary units: "512 B", "1.50 KiB", "3.20 GiB". */
char *tc_fmt_bytes(char *buf, double bytes);
/* Rate with SI prefix: tc_fmt_rate(buf, 1.2e12, "FLOP/s") -> "1.20 TFLOP/s". */
char *tc_fmt_rate(char *buf, double v, const char *unit);
/* num / den as a percentage with one decimal, "12.5 %"; "-" when den <= 0. */
char *tc_fmt_pct(char *buf, double num, double den);
/* Integer with thousands separators: "26,723". */
char *tc_fmt_count(char *buf, uint64_t v);
/* A count and its noun in agreement: "1 step", "8,772 kernels".
 * A longer result is cut at TC_FMT_LEN - 1 bytes. */
char *tc_fmt_noun(char *buf, uint64_t v, const char *one, const char *many);

#endif
