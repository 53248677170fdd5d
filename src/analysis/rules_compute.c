/*
 * The compute-side rules: what the device's compute time is spent on, by
 * device-work category (analysis/devwork.h): FP32 matrix math on a device
 * with tensor/matrix cores, layout conversions, and many tiny GEMMs. Each
 * explains its part of the attribution's compute time, so it ranks with
 * the other findings by step time explained.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/device.h"
#include "analysis/devwork.h"
#include "analysis/ftext.h"
#include "analysis/passes.h"
#include "model/rank.h"
#include "util/numfmt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct cctx {
	const struct tc_model *m;
	const struct tc_analysis_opts *o;
	struct tc_analysis *a;
	uint32_t device;
	char label[96];
	struct tc_devwork w;
	int64_t work_ps;    /* the device's summed work (self) time */
	int64_t compute_ps; /* the attribution's compute time on it */
	int64_t step_ps;    /* its counted step time */
	size_t cap;
};

static double th(const struct cctx *c, enum tc_threshold_id id) {
	return c->o->th[id];
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
	struct tc_strbuf sb = { 0 };
	va_list ap;
	va_start(ap, f);
	tc_strbuf_vaddf(&sb, f, ap);
	va_end(ap);
	tc_strbuf_add(&sb, "", 1);
	return sb.s;
}

/* The part of compute time that ps of the device's work explains: work
 * time and compute time differ (overlap, the step window), the share
 * carries over. */
static int64_t explained(const struct cctx *c, int64_t ps) {
	if (c->work_ps <= 0) {
		return 0;
	}
	double f = (double)ps / (double)c->work_ps;
	return (int64_t)((double)c->compute_ps * (f > 1 ? 1 : f));
}

/* A rule speaks only where its work explains 1 % of the step time or
 * more: without counted steps or compute there is none to explain, and
 * a mostly idle device's kernels are not what holds its steps back. */
static bool explains(const struct cctx *c, int64_t part_ps) {
	return c->step_ps > 0 && 100.0 * (double)explained(c, part_ps) >= (double)c->step_ps;
}

/* Severity by the step time explained, as the cause rules band theirs:
 * 10 % of it medium, 30 % high, else low. */
static enum tc_severity severity(const struct cctx *c, int64_t part_ps) {
	double pct = c->step_ps > 0 ? 100.0 * (double)explained(c, part_ps) / (double)c->step_ps : 0;
	return pct >= 30 ? TC_SEV_HIGH : pct >= 10 ? TC_SEV_MEDIUM : TC_SEV_LOW;
}

static struct tc_finding *add(struct cctx *c, const char *kind, double value, int64_t part_ps) {
	enum tc_severity sev = severity(c, part_ps);
	struct tc_analysis *a = c->a;
	TC_GROW(a->findings, c->cap, a->n_findings + 1);
	struct tc_finding *f = &a->findings[a->n_findings++];
	*f = (struct tc_finding){ .kind = kind, .severity = (uint8_t)sev, .value = value,
		.device = c->device, .n_measured = 1 };
	f->explained_ps = explained(c, part_ps);
	f->share = c->step_ps > 0 ? (double)f->explained_ps / (double)c->step_ps : 0;
	f->n_over = 1;
	return f;
}

/* Starts f's text; in a job's rank it records the slot before the
 * device's name, so a job reads "... of rank 3: GPU 0's", as a merged
 * model of the ranks does. */
static void start(const struct cctx *c, struct tc_ftext *t, struct tc_finding *f) {
	tc_ftext_init(t, f, c->o->rank_slots && tc_model_n_ranks(c->m) < 2);
}

static const char *framework_text(const struct cctx *c, const char *torch, const char *jax,
		const char *tf, const char *other) {
	switch ((enum tc_framework)c->a->runtime.framework) {
	case TC_FW_PYTORCH:
	case TC_FW_TORCH_COMPILE:
	case TC_FW_VLLM:
	case TC_FW_SGLANG:
		return torch;
	case TC_FW_JAX:
		return jax;
	case TC_FW_TENSORFLOW:
		return tf;
	default:
		return other;
	}
}

static double per_step(const struct cctx *c, double v) {
	return c->a->n_steps_counted ? v / (double)c->a->n_steps_counted : v;
}

/* "per step", or "in all" when no step is counted (figures are totals). */
static const char *step_unit(const struct cctx *c) {
	return c->a->n_steps_counted ? "per step" : "in all";
}

/* FP32 GEMMs and convolutions on CUDA cores where tensor cores would run
 * them several times faster. Only on a device the peaks table knows to
 * have them (its bf16 peak well above fp32). */
static void rule_fp32_math(struct cctx *c) {
	const struct tc_peak_row *pr = tc_device_peak_row(c->m, c->device);
	if (!pr || pr->flops[TC_PEAK_FP32] <= 0 ||
			pr->flops[TC_PEAK_BF16] < 2 * pr->flops[TC_PEAK_FP32] || c->work_ps <= 0) {
		return;
	}
	double pct = 100.0 * (double)c->w.fp32_ps / (double)c->work_ps;
	if (pct < th(c, TC_TH_FP32_SHARE) || !explains(c, c->w.fp32_free_ps)) {
		return;
	}
	struct tc_finding *f = add(c, "fp32-math", pct, c->w.fp32_free_ps);
	char b[4][TC_FMT_LEN];
	struct tc_ftext t;
	start(c, &t, f);
	tc_ftext_addf(&t, "FP32 GEMM and convolution kernels over %s (sgemm, scudnn, ffma: CUDA "
		"cores) take %.1f %% of ", tc_fmt_dur(b[3], TC_TINY_GEMM_PS), pct);
	tc_ftext_device(&t, c->label);
	tc_ftext_addf(&t, "'s device work, %s %s in %.1f calls %s, on a device (%s, peaks "
		"table) whose tensor cores run bf16 at %s against %s for fp32 (threshold %.0f %%: "
		"tracectl)", tc_fmt_dur(b[0], (int64_t)per_step(c, (double)c->w.fp32_ps)),
		step_unit(c), per_step(c, (double)c->w.fp32_count), step_unit(c), pr->part,
		tc_fmt_rate(b[1], pr->flops[TC_PEAK_BF16], "FLOP/s"),
		tc_fmt_rate(b[2], pr->flops[TC_PEAK_FP32], "FLOP/s"), th(c, TC_TH_FP32_SHARE));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "device_work_share", pct, "%");
	tc_finding_add_fig(f, "time_per_step", 1e-12 * per_step(c, (double)c->w.fp32_ps), "s");
	tc_finding_add_fig(f, "calls_per_step", per_step(c, (double)c->w.fp32_count), "");
	bool tf32 = pr->flops[TC_PEAK_TF32] > 0;
	f->suggestion = tc_xstrdup(framework_text(c, tf32 ?
		"run the model in mixed precision (torch.autocast(\"cuda\", dtype=torch.bfloat16)), or "
		"let FP32 matmuls and convolutions use TF32 tensor cores: "
		"torch.set_float32_matmul_precision(\"high\") and "
		"torch.backends.cudnn.allow_tf32 = True" :
		"run the model in mixed precision (torch.autocast(\"cuda\", dtype=torch.float16) with "
		"a torch.amp.GradScaler for training): this device has FP16 tensor cores, no TF32",
		"compute in bf16 (params and inputs as jnp.bfloat16), or let XLA use tensor cores "
		"for FP32 dots: jax.config.update(\"jax_default_matmul_precision\", \"tensorfloat32\") "
		"or jax.default_matmul_precision(\"bfloat16\")",
		"use mixed precision (tf.keras.mixed_precision.set_global_policy(\"mixed_bfloat16\")) "
		"or TF32 (tf.config.experimental.enable_tensor_float_32_execution(True))",
		tf32 ? "run the GEMMs and convolutions in bf16/fp16 (mixed precision) or TF32 so they "
		"use the tensor cores" : "run the GEMMs and convolutions in fp16/bf16 (mixed "
		"precision) so they use the tensor cores"));
}

/* Layout conversions: transposes, permute/contiguous copies, NCHW<->NHWC
 * kernels, XLA copy and transpose fusions. */
static void rule_layout(struct cctx *c) {
	if (c->work_ps <= 0) {
		return;
	}
	double pct = 100.0 * (double)c->w.layout_ps / (double)c->work_ps;
	if (pct < th(c, TC_TH_LAYOUT_SHARE) || !explains(c, c->w.layout_free_ps)) {
		return;
	}
	struct tc_finding *f = add(c, "layout", pct, c->w.layout_free_ps);
	char b[TC_FMT_LEN];
	struct tc_ftext t;
	start(c, &t, f);
	tc_ftext_addf(&t, "layout conversions (transposes, permutes, NCHW<->NHWC, XLA "
		"copy/transpose fusions) take %.1f %% of ", pct);
	tc_ftext_device(&t, c->label);
	tc_ftext_addf(&t, "'s device work, %s %s in %.1f calls %s (threshold %.0f %%: tracectl)",
		tc_fmt_dur(b, (int64_t)per_step(c, (double)c->w.layout_ps)), step_unit(c),
		per_step(c, (double)c->w.layout_count), step_unit(c), th(c, TC_TH_LAYOUT_SHARE));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "device_work_share", pct, "%");
	tc_finding_add_fig(f, "time_per_step", 1e-12 * per_step(c, (double)c->w.layout_ps), "s");
	tc_finding_add_fig(f, "calls_per_step", per_step(c, (double)c->w.layout_count), "");
	f->suggestion = tc_xstrdup(framework_text(c,
		"keep tensors in the layout the kernels want: model and inputs in channels_last "
		"(model.to(memory_format=torch.channels_last)) for convolutions, and no "
		".permute()/.transpose() + .contiguous() round trips in the step",
		"give XLA the layout its kernels want: NHWC convolutions "
		"(dimension_numbers=(\"NHWC\", \"HWIO\", \"NHWC\")), transposes moved out of the "
		"step, and check the remaining transpose/copy fusions in the HLO dump",
		"use NHWC (data_format=\"channels_last\") so cuDNN needs no conversion, and avoid "
		"tf.transpose in the step",
		"keep data in one layout end to end (NHWC for convolutions on tensor cores) so no "
		"kernel converts between layouts"));
}

/* Many launch-sized GEMMs: each pays a launch and reaches a fraction of
 * the matrix units. */
static void rule_tiny_gemms(struct cctx *c) {
	uint64_t gemms = c->w.cat[TC_DEVCAT_GEMM].count;
	double per = per_step(c, (double)c->w.tiny_gemm_count);
	if (!gemms || per < th(c, TC_TH_TINY_GEMMS) ||
			100.0 * (double)c->w.tiny_gemm_count / (double)gemms < 50 ||
			!explains(c, c->w.tiny_gemm_free_ps)) {
		return;
	}
	struct tc_finding *f = add(c, "tiny-gemms", per, c->w.tiny_gemm_free_ps);
	char b[2][TC_FMT_LEN];
	struct tc_ftext t;
	start(c, &t, f);
	tc_ftext_addf(&t, "%.0f GEMM kernels %s on ", per, step_unit(c));
	tc_ftext_device(&t, c->label);
	tc_ftext_addf(&t, " run %s or less (%.1f %% of its GEMMs, %s %s; "
		"thresholds %.0f per step and half the GEMMs: tracectl)",
		tc_fmt_dur(b[0], TC_TINY_GEMM_PS),
		100.0 * (double)c->w.tiny_gemm_count / (double)gemms,
		tc_fmt_dur(b[1], (int64_t)per_step(c, (double)c->w.tiny_gemm_ps)), step_unit(c),
		th(c, TC_TH_TINY_GEMMS));
	tc_ftext_finish(&t);
	tc_finding_add_fig(f, "tiny_gemms_per_step", per, "");
	tc_finding_add_fig(f, "gemm_share", 100.0 * (double)c->w.tiny_gemm_count / (double)gemms, "%");
	tc_finding_add_fig(f, "time_per_step", 1e-12 * per_step(c, (double)c->w.tiny_gemm_ps), "s");
	f->suggestion = tc_xstrdup(framework_text(c,
		"batch the small matmuls into one (torch.bmm or one matmul over stacked inputs, "
		"grouped GEMMs), or torch.compile the region so they fuse",
		"batch them into one dot_general (jax.vmap, jnp.einsum over a stacked axis) and "
		"jax.jit a larger region so XLA fuses them",
		"batch them (tf.linalg.matmul over a stacked axis) and compile with XLA "
		"(jit_compile=True)",
		"batch the small GEMMs into fewer, larger ones (batched or grouped GEMMs)"));
}

/*
 * Evidence for the roofline findings of the breakdown device: how fast each
 * category with FLOPs (compute-bound) or bytes (memory-bound) known runs
 * against the roofline's peak, the largest three by time ("GEMM at 38.2 %
 * of the 989 TFLOP/s peak").
 */
static void roofline_evidence(struct cctx *c, struct tc_finding *f, bool compute) {
	const struct tc_op_table *t = &c->a->ops;
	double peak = compute ? t->peak_flops : t->peak_bw;
	if (peak <= 0) {
		return;
	}
	bool used[TC_DEVCAT_COUNT] = { false };
	struct tc_strbuf sb = { 0 };
	char b[2][TC_FMT_LEN];
	for (int n = 0; n < 3; n++) {
		int best = -1;
		for (int k = 0; k < TC_DEVCAT_COUNT; k++) {
			const struct tc_devcat_acc *a = &c->w.cat[k];
			bool known = compute ? a->flops > 0 : a->bytes > 0;
			if (!used[k] && known && a->total_ps > 0 && k != TC_DEVCAT_MEMCPY &&
					k != TC_DEVCAT_COLLECTIVE &&
					(best < 0 || a->total_ps > c->w.cat[best].total_ps)) {
				best = k;
			}
		}
		if (best < 0) {
			break;
		}
		used[best] = true;
		const struct tc_devcat_acc *a = &c->w.cat[best];
		double rate = (compute ? a->flops : a->bytes) / ((double)a->total_ps * 1e-12);
		tc_strbuf_addf(&sb, "%s%s %s %s of %s (%.1f %%)", n ? ", " : "; by category: ",
			tc_devcat_name((enum tc_devcat)best), compute ? "runs" : "moves",
			tc_fmt_rate(b[0], rate, compute ? "FLOP/s" : "B/s"),
			tc_fmt_rate(b[1], peak, compute ? "FLOP/s" : "B/s"), 100 * rate / peak);
	}
	if (!sb.len) {
		return;
	}
	tc_strbuf_add(&sb, "", 1);
	char *text = fmt("%s%s", f->text ? f->text : "", sb.s);
	free(sb.s);
	free(f->text);
	f->text = text;
}

void tc_rules_compute(const struct tc_model *m, const struct tc_analysis_opts *o,
		struct tc_analysis *a, const struct tc_devwork_ahead *ahead) {
	uint32_t d = a->bd_device;
	if (d >= m->n_devices) {
		return;
	}
	struct cctx *c = tc_xcalloc(1, sizeof(*c));
	*c = (struct cctx){ .m = m, .o = o, .a = a, .device = d, .cap = a->n_findings };
	if (tc_model_n_ranks(m) < 2) {
		snprintf(c->label, sizeof(c->label), "%s", tc_model_str(m, m->devices[d].name));
	} else {
		tc_model_device_label(m, d, c->label, sizeof(c->label));
	}
	if (ahead && ahead->device == d) {
		c->w = ahead->w;
	} else {
		tc_devwork_scan(m, d, &c->w);
	}
	for (int k = 0; k < TC_DEVCAT_COUNT; k++) {
		c->work_ps += c->w.cat[k].self_ps;
	}
	c->compute_ps = a->cat_total_ps[TC_BD_COMPUTE];
	c->step_ps = a->step_total_ps;
	for (size_t k = 0; k < a->n_attr; k++) {
		if (a->attr[k].device == d) {
			c->compute_ps = a->attr[k].cat_ps[TC_BD_COMPUTE];
			c->step_ps = a->attr[k].step_ps;
		}
	}
	for (size_t i = 0; i < a->n_findings; i++) {
		struct tc_finding *f = &a->findings[i];
		if (f->device == d && (strcmp(f->kind, "compute-bound") == 0 ||
				strcmp(f->kind, "memory-bound") == 0)) {
			roofline_evidence(c, f, strcmp(f->kind, "compute-bound") == 0);
		}
	}
	rule_fp32_math(c);
	rule_layout(c);
	rule_tiny_gemms(c);
	free(c);
}
