#ifndef TC_OUTPUT_CHECK_WRITE_H
#define TC_OUTPUT_CHECK_WRITE_H

/* Writers for `tracectl check`: the metric catalogue (--list), the table,
 * tracectl.check/1 JSON and JUnit XML. They only read a struct tc_check. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "model/check.h"

#define TC_CHECK_SCHEMA "tracectl.check/1"

/* A value in its unit for people: "12.041 ms", "80.00 KiB", "24", "12.5 %",
 * "high". Returns buf (TC_FMT_LEN bytes or more). */
char *tc_check_fmt_value(char *buf, size_t size, enum tc_metric_unit u, double v);
/* A row's limit as "<= 5" / ">= 20%" (the value as written), "" without. */
char *tc_check_fmt_limit(char *buf, size_t size, const struct tc_check_row *r);

void tc_write_check_list(FILE *f);
void tc_write_check_text(FILE *f, const struct tc_check *c);
void tc_write_check_json(FILE *f, const struct tc_check *c);
/* One testsuite, one testcase per row; a failed row carries a <failure>. */
void tc_write_check_junit(FILE *f, const struct tc_check *c);

#endif
