#ifndef TC_OUTPUT_REPORT_SVG_H
#define TC_OUTPUT_REPORT_SVG_H

/*
 * The charts of `tracectl report` (output/html_write.c), one <section>
 * with one inline <svg> each. Drawing is bounded: fixed time bins, top-N
 * ops, at most a few hundred steps drawn and the rest summed up in a note.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "output/html_write.h"
#include "output/markup.h"

/* s with &, <, >, " and ' escaped and C0 controls dropped. */
void tc_html_escape(FILE *f, const char *s);
/* Milliseconds with three decimals: "12.345 ms". buf holds TC_FMT_LEN. */
char *tc_report_ms(char *buf, int64_t ps);
/* A label cut to n bytes, the full text in a title; cls may be NULL. */
void tc_report_label(FILE *f, const char *cls, double x, double y, const char *anchor,
	const char *s, size_t n);
/* Op i's label, right-aligned at x: shown[i] (short names from
 * tc_cxxname_distinct over the n rows) cut to fit, kept apart from the other
 * rows' cuts, the full name full[i] in a title. */
void tc_report_op_label(FILE *f, double x, double y, char *const *shown,
	const char *const *full, size_t n, size_t i);
/* A section of id holding one <svg> h high (closed by the caller). */
void tc_report_svg_begin(FILE *f, const char *id, const char *title, int h);
/* Some run has a memory counter that is not always 0 (the memory section). */
bool tc_report_has_memory(const struct tc_report *r);
/* CSS rules the charts' classes use. */
extern const char tc_report_svg_css[];

void tc_report_svg_steps(FILE *f, const struct tc_report *r);
void tc_report_svg_util(FILE *f, const struct tc_report *r);
void tc_report_svg_ops(FILE *f, const struct tc_report *r);
void tc_report_svg_memory(FILE *f, const struct tc_report *r);
void tc_report_svg_heatmap(FILE *f, const struct tc_report *r);
/* With --diff (output/report_diff.c): the change of each category per
 * step, and the ops that changed most, base against test. */
void tc_report_svg_attribution(FILE *f, const struct tc_report *r);
void tc_report_svg_ops_diff(FILE *f, const struct tc_report *r);
/* The roofline (output/report_roof.c): on a one-run page whose op rows
 * have FLOPs and bytes and whose device peaks are known. */
bool tc_report_has_roofline(const struct tc_report *r);
void tc_report_svg_roofline(FILE *f, const struct tc_report *r);
/* The launcher rows' table with their efficiency (output/report_roof.c),
 * on a one-run page where some row has one. */
bool tc_report_has_launchers(const struct tc_report *r);
void tc_report_launchers(FILE *f, const struct tc_report *r);

#endif
