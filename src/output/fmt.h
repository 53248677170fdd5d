#ifndef TC_OUTPUT_FMT_H
#define TC_OUTPUT_FMT_H

/* Number formatting for people: every figure carries its unit. */

#include <stddef.h>
#include <stdint.h>

#define TC_FMT_LEN 40

/* Duration with an adaptive unit: "812 ps", "3.250 us", "12.041 ms", "1.500 s". */
char *tc_fmt_dur(char *buf, int64_t ps);
/* Bytes in binary units: "512 B", "1.50 KiB", "3.20 GiB". */
char *tc_fmt_bytes(char *buf, double bytes);
/* Rate with SI prefix: tc_fmt_rate(buf, 1.2e12, "FLOP/s") -> "1.20 TFLOP/s". */
char *tc_fmt_rate(char *buf, double v, const char *unit);
/* Percentage with one decimal: "12.5 %". */
char *tc_fmt_pct(char *buf, double num, double den);
/* Integer with thousands separators: "26,723". */
char *tc_fmt_count(char *buf, uint64_t v);
/* Picoseconds as a decimal microsecond string with 6 decimals, exact. */
char *tc_fmt_us_exact(char *buf, int64_t ps);
/* Absolute time of model time ps in ns, exactly: origin_ns + ps / 1000
 * ("1700000000000000000", "1682725898237042123.500"). */
char *tc_fmt_abs_ns(char *buf, int64_t origin_ns, int64_t ps);

#endif
