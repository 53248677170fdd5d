#ifndef TC_OUTPUT_FMT_H
#define TC_OUTPUT_FMT_H

/* Number formatting for the writers: the units of util/numfmt.h, and exact
 * decimal times for machine-readable output. */

#include <stdint.h>
#include "util/numfmt.h"

/* Picoseconds as a decimal microsecond string with 6 decimals, exact. */
char *tc_fmt_us_exact(char *buf, int64_t ps);
/* Absolute time of model time ps in ns, exactly: origin_ns + ps / 1000
 * ("1700000000000000000", "1682725898237042123.500"). */
char *tc_fmt_abs_ns(char *buf, int64_t origin_ns, int64_t ps);

#endif
