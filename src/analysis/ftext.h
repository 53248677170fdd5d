#ifndef TC_ANALYSIS_FTEXT_H
#define TC_ANALYSIS_FTEXT_H

/*
 * A finding's text, built by a rule piece by piece. In a rank's analysis
 * for a job (tc_analysis_opts.rank_slots) the builder also records, as
 * the pieces go in, where the job names the rank (a slot before each
 * device name: tc_finding.slot) and where the cause's spread over the
 * rank's devices stands (spread_at, spread_len). Those are fields of the
 * finding: its text holds only the words.
 */

#include <stdbool.h>
#include "model/findings.h"
#include "util/strbuf.h"

struct tc_ftext {
	struct tc_finding *f;   /* (borrowed) the finding the text is for */
	struct tc_strbuf sb;    /* (owned) the text so far; a rule may append to it */
	bool slots;             /* record the slots and the spread */
};

/* Starts f's text; slots: record where a job puts its rank and spread. */
void tc_ftext_init(struct tc_ftext *t, struct tc_finding *f, bool slots);
void tc_ftext_add(struct tc_ftext *t, const char *s);
void tc_ftext_addf(struct tc_ftext *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends a device's name, with a slot for the job's rank before it. */
void tc_ftext_device(struct tc_ftext *t, const char *name);
/* What is appended between these two calls is the cause's spread over
 * the devices (it may be empty), which a job replaces with its own. */
void tc_ftext_spread_begin(struct tc_ftext *t);
void tc_ftext_spread_end(struct tc_ftext *t);
/* Hands the text to the finding (f->text, malloc'd; freed with the
 * analysis) and leaves t zeroed. */
void tc_ftext_finish(struct tc_ftext *t);

#endif
