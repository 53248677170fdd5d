#ifndef TC_OUTPUT_REPORT_SVG_H
#define TC_OUTPUT_REPORT_SVG_H

/*
 * The charts of `tracectl report` (output/html_write.c), one <section>
 * with one inline <svg> each. Drawing is bounded: fixed time bins, top-N
 * ops, at most a few hundred steps drawn and the rest summed up in a note.
 */

#include <stdint.h>
#include <stdio.h>
#include "output/html_write.h"
#include "output/markup.h"

/* s with &, <, >, " and ' escaped and C0 controls dropped. */
void tc_html_escape(FILE *f, const char *s);
/* Milliseconds with three decimals: "12.345 ms". buf holds TC_FMT_LEN. */
char *tc_report_ms(char *buf, int64_t ps);
/* CSS rules the charts' classes use. */
extern const char tc_report_svg_css[];

void tc_report_svg_steps(FILE *f, const struct tc_report *r);
void tc_report_svg_util(FILE *f, const struct tc_report *r);
void tc_report_svg_ops(FILE *f, const struct tc_report *r);
void tc_report_svg_memory(FILE *f, const struct tc_report *r);
void tc_report_svg_heatmap(FILE *f, const struct tc_report *r);

#endif
