#ifndef TC_ANALYSIS_RULES_PRIVATE_H
#define TC_ANALYSIS_RULES_PRIVATE_H

/*
 * What the bottleneck rules share: the context every rule reads and adds
 * its finding to, a cause of step time and how it was measured, and the
 * helpers that build a finding's text and figures (rules.c). The rules
 * themselves live by concern: rules.c (the rule table, device and job
 * rules), rules_host.c (the host-side causes) and rules_memory.c (the
 * memory rules). Only files in src/analysis/ include it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/ftext.h"
#include "analysis/passes.h"
#include "util/numfmt.h"

struct rule_ctx {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	struct tc_analysis *a;
	size_t cap;
	char (*label)[96]; /* per device: "rank 3: GPU 0" with several ranks, NULL else */
	bool slots;        /* texts record a job's slots (tc_analysis_opts.rank_slots) */
	/* The straggler finding explains the others' wait for the late rank
	 * (tc_dev_attr.wait_ps): communication keeps the rest of the
	 * collective time. */
	bool split_wait;
	const struct tc_op_sums *sums; /* the usage pass's op sums, or NULL */
};

/*
 * A cause of step time: its categories' share of the attribution on one
 * device. Measured on every device with device work; the finding is made
 * on the device where the cause explains the most time, and says on how
 * many devices it reaches the moderate band. Without per-device
 * attribution (a host-only trace) the breakdown of the steps is used.
 */
struct cause {
	uint32_t device;
	int64_t explained_ps, step_ps;
	double pct;                /* explained / step time, % */
	const int64_t *step_cat;   /* per step x TC_BD_COUNT, NULL for the steps' own */
	const int64_t *step_less;  /* per step, taken from the collectives; NULL none */
	size_t n_devices, n_over;  /* devices measured; at or above the moderate band */
};

/* Figures in the text: each with its own adaptive unit (util/numfmt.h). */
struct figs {
	char b[10][TC_FMT_LEN];
};

/* A new finding in c's analysis, on no device until the rule says. */
struct tc_finding *tc_rule_add(struct rule_ctx *c, const char *kind, enum tc_severity sev,
	double value);
/* What to try, for the framework and runtime the trace shows (advice.c). */
void tc_rule_advise(const struct rule_ctx *c, struct tc_finding *f, enum tc_advice_topic topic);
/* Threshold id as the options set it. */
double tc_rule_th(const struct rule_ctx *c, enum tc_threshold_id id);
/* Severity of a percentage against a moderate and a high band; anything
 * over the critical share is critical. */
enum tc_severity tc_rule_bands(const struct rule_ctx *c, double pct, enum tc_threshold_id mod,
	enum tc_threshold_id high);
/* Appends device d's name to a text: its label with several ranks; in a
 * rank's text for a job, with a slot for the job's rank before it. No
 * device ("host") has no slot: a job names the rank first. */
void tc_rule_add_dev(const struct rule_ctx *c, struct tc_ftext *t, uint32_t d);
/* Device d's utilisation, NULL for none. */
const struct tc_device_util *tc_rule_util_of(const struct rule_ctx *c, uint32_t d);
/* The counted totals of device d's attribution, else of the steps'. */
const int64_t *tc_rule_cats_of(const struct rule_ctx *c, uint32_t d, int64_t *step_ps);
/* The cause the categories cats (a mask of TC_BD_*) make, on the device
 * where it explains the most; mod is the band that counts a device. */
void tc_rule_measure(const struct rule_ctx *c, uint32_t cats, enum tc_threshold_id mod,
	struct cause *out);
/* Ends a cause's text, its sources' parenthesis open: the spread ("; 3 of
 * 8 devices at or above the moderate band" when measured on several; in a
 * rank's text for a job, where the job puts its own count), then ")". */
void tc_rule_finish_cause(const struct rule_ctx *c, struct tc_ftext *t, const struct cause *k);
/* ps over the counted steps, per step. */
int64_t tc_rule_per_step_ps(const struct rule_ctx *c, int64_t ps);
/* "over 1 step" / "over 6 steps": the counted steps, written into buf. */
const char *tc_rule_steps_noun(const struct rule_ctx *c, char *buf);
/* A finding for cause k, with its explained time, share and figures. */
struct tc_finding *tc_rule_add_cause(struct rule_ctx *c, const char *kind, enum tc_severity sev,
	const struct cause *k);
/* Window of the counted steps, and the steps where the categories are
 * largest on the finding's device (k NULL: the steps' own breakdown). */
void tc_rule_step_window(const struct rule_ctx *c, struct tc_finding *f, const struct cause *k,
	uint32_t cats);
/* Ops of a kind mask (bound < 0: any roofline class), by total time, into
 * the finding. */
void tc_rule_top_ops(const struct rule_ctx *c, struct tc_finding *f, uint32_t kind_mask,
	int bound);

/* rules_host.c: the host keeps the device waiting (host-bound,
 * launch-bound), input and host synchronisation. */
void tc_rule_host_launch(struct rule_ctx *c);
void tc_rule_input_bound(struct rule_ctx *c);
void tc_rule_sync_bound(struct rule_ctx *c);

/* rules_memory.c: memory held, grown and filled. */
void tc_rule_fragmented_memory(struct rule_ctx *c);
void tc_rule_memory_leak(struct rule_ctx *c);
void tc_rule_memory_pressure(struct rule_ctx *c);

#endif
