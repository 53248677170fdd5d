/*
 * Rank identity in the writers: a device's rank cell, label and JSON
 * members, and the rank and collective tables of a multi-rank job.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/rank.h"
#include "model/ranks.h"
#include "output/fmt.h"
#include "output/rank_write.h"
#include "output/table.h"
#include "util/term.h"
#include "util/xalloc.h"

/* Instances listed: the ones with the largest arrival skew. */
#define TOP_COLL 10

static const char *S(const struct tc_model *m, uint32_t id) {
	return tc_model_str(m, id);
}

/* Members whose value may be unknown: null then. */
static void kv_or_null(struct tc_jw *w, const char *k, double v) {
	tc_jw_key(w, k);
	if (v >= 0) {
		tc_jw_double(w, v);
	} else {
		tc_jw_null(w);
	}
}

static void kv_int_or_null(struct tc_jw *w, const char *k, int64_t v) {
	tc_jw_key(w, k);
	if (v >= 0) {
		tc_jw_int(w, v);
	} else {
		tc_jw_null(w);
	}
}

static void kv_str_or_null(struct tc_jw *w, const char *k, const char *v) {
	tc_jw_key(w, k);
	if (v) {
		tc_jw_str(w, v);
	} else {
		tc_jw_null(w);
	}
}

const char *tc_write_rank(char *buf, const struct tc_model *m, uint32_t d) {
	int32_t r = tc_model_device_rank(m, d);
	if (r < 0) {
		return "-";
	}
	snprintf(buf, TC_FMT_LEN, "%d", r);
	return buf;
}

const char *tc_write_device_label(char *buf, size_t size, const struct tc_model *m, uint32_t d) {
	tc_model_device_label(m, d, buf, size);
	return buf;
}

void tc_write_device_identity_json(struct tc_jw *w, const struct tc_model *m, uint32_t d) {
	const struct tc_device *dev = &m->devices[d];
	kv_str_or_null(w, "host", dev->host < m->n_hosts ? S(m, m->hosts[dev->host].name) : NULL);
	kv_int_or_null(w, "rank", tc_model_device_rank(m, d));
	kv_int_or_null(w, "pid", dev->pid);
}

/* Instances by skew, largest first; the first TOP_COLL of them. */
static size_t *top_instances(const struct tc_ranks *r, size_t *n) {
	size_t *ix = tc_xmalloc((r->n_coll ? r->n_coll : 1) * sizeof(*ix));
	size_t k = 0;
	for (size_t i = 0; i < r->n_coll; i++) {
		/* Insertion into a short sorted list. */
		size_t at = k < TOP_COLL ? k++ : TOP_COLL;
		while (at > 0 && r->coll[ix[at - 1]].skew_ps < r->coll[i].skew_ps) {
			if (at < TOP_COLL) {
				ix[at] = ix[at - 1];
			}
			at--;
		}
		if (at < TOP_COLL) {
			ix[at] = i;
		}
	}
	*n = k;
	return ix;
}

static const char *rank_of(char *buf, const struct tc_ranks *r, size_t k) {
	snprintf(buf, TC_FMT_LEN, "rank %d", r->v[k].rank);
	return buf;
}

void tc_write_ranks_text(FILE *f, const struct tc_model *m, const struct tc_ranks *r) {
	if (r->n < 2) {
		return;
	}
	char b[8][TC_FMT_LEN];
	fprintf(f, "\nranks      %zu", r->n);
	if (r->world_size > 0) {
		fprintf(f, " of world size %d", r->world_size);
	}
	tc_term_fprintf(f, "; mean step time min %s, median %s, max %s (slowest: %s)\n",
		tc_fmt_dur(b[0], r->step_min_ps), tc_fmt_dur(b[1], r->step_median_ps),
		tc_fmt_dur(b[2], r->step_max_ps), rank_of(b[3], r, r->slowest));
	static const char *const h[] = {
		">rank", "device", ">steps", ">step time", ">compute", ">exposed comm", ">idle",
		">slowest step",
	};
	struct tc_table t;
	tc_table_init(&t, 8, h);
	for (size_t k = 0; k < r->n; k++) {
		const struct tc_rank_result *rr = &r->v[k];
		tc_table_cellf(&t, "%d", rr->rank);
		tc_table_cell(&t, rr->device < m->n_devices ? S(m, m->devices[rr->device].name) : "-");
		tc_table_cellf(&t, "%zu", rr->n_steps);
		tc_table_cell(&t, tc_fmt_dur(b[0], rr->step_ps));
		tc_table_cell(&t, tc_fmt_dur(b[1], rr->compute_ps));
		tc_table_cell(&t, tc_fmt_dur(b[2], rr->comm_ps));
		tc_table_cell(&t, tc_fmt_dur(b[3], rr->idle_ps));
		if (rr->slowest_num >= 0) {
			tc_table_cellf(&t, "%s (step %lld)", tc_fmt_dur(b[4], rr->slowest_ps),
				(long long)rr->slowest_num);
		} else {
			tc_table_cell(&t, "-");
		}
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
	if (!r->n_coll) {
		fprintf(f, "\ncollectives no collective matched across ranks\n");
		return;
	}
	if (strcmp(r->coll_source, "end") == 0) {
		/* analysis/collectives.c, match_ends. */
		fprintf(f, "\ncollectives %zu instances matched across ranks (each paired by its end "
			"under one clock offset per rank: no Seq, and more of them end together so than "
			"by occurrence)", r->n_coll);
	} else {
		fprintf(f, "\ncollectives %zu instances matched across ranks (k-th of each collective "
			"per process group, by %s)", r->n_coll, r->coll_source);
	}
	if (r->alignment) {
		fprintf(f, "; clocks aligned on %s", r->alignment);
	}
	/* Ranks leave together: ends far apart mean the instances do not match. */
	tc_term_fprintf(f, "; the ranks' ends of one instance differ by %s (median)%s\n",
		tc_fmt_dur(b[0], r->end_spread_ps), r->lined_up ? "" : ", more than a median "
		"transfer: the instances do not line up (traces cut at different collectives?) "
		"and the straggler finding does not use them");
	static const char *const ha[] = {
		">rank", ">arrived last", ">others waited", ">own wait", ">transfer", ">clock offset",
	};
	tc_table_init(&t, 6, ha);
	for (size_t k = 0; k < r->n; k++) {
		const struct tc_rank_result *rr = &r->v[k];
		tc_table_cellf(&t, "%d", rr->rank);
		tc_table_cellf(&t, "%llu", (unsigned long long)rr->n_last);
		tc_table_cell(&t, tc_fmt_dur(b[0], rr->caused_ps));
		tc_table_cell(&t, tc_fmt_dur(b[1], rr->wait_ps));
		tc_table_cell(&t, tc_fmt_dur(b[2], rr->transfer_ps));
		tc_table_cellf(&t, "%s%s", rr->clock_offset_ps < 0 ? "-" : "",
			tc_fmt_dur(b[3], rr->clock_offset_ps < 0 ? -rr->clock_offset_ps :
				rr->clock_offset_ps));
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
	size_t n;
	size_t *ix = top_instances(r, &n);
	fprintf(f, "  top %zu of %zu by arrival skew (last arrival - first)\n", n, r->n_coll);
	static const char *const hc[] = {
		"collective", ">#", ">step", ">ranks", ">skew", "last", ">transfer", ">size",
		">algbw", ">busbw",
	};
	tc_table_init(&t, 10, hc);
	tc_table_elastic(&t, 0);
	for (size_t i = 0; i < n; i++) {
		const struct tc_coll_instance *c = &r->coll[ix[i]];
		if (c->group) {
			tc_table_cellf(&t, "%s (%s)", S(m, c->name), S(m, c->group));
		} else {
			tc_table_cell(&t, S(m, c->name));
		}
		tc_table_cellf(&t, "%llu", (unsigned long long)c->index);
		if (c->last_step >= 0) {
			tc_table_cellf(&t, "%lld", (long long)c->last_step);
		} else {
			tc_table_cell(&t, "-");
		}
		tc_table_cellf(&t, "%zu", c->n_ranks);
		tc_table_cell(&t, tc_fmt_dur(b[0], c->skew_ps));
		tc_table_cell(&t, rank_of(b[1], r, c->last));
		tc_table_cell(&t, tc_fmt_dur(b[2], c->transfer_ps));
		tc_table_cell(&t, c->bytes >= 0 ? tc_fmt_bytes(b[3], c->bytes) : "-");
		tc_table_cell(&t, c->algbw >= 0 ? tc_fmt_rate(b[4], c->algbw, "B/s") : "-");
		tc_table_cell(&t, c->busbw >= 0 ? tc_fmt_rate(b[5], c->busbw, "B/s") : "-");
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
	free(ix);
}

void tc_write_ranks_json(struct tc_jw *w, const struct tc_model *m, const struct tc_ranks *r) {
	if (r->n < 2) {
		return;
	}
	tc_jw_key(w, "ranks");
	tc_jw_arr_begin(w);
	for (size_t k = 0; k < r->n; k++) {
		const struct tc_rank_result *rr = &r->v[k];
		tc_jw_obj_begin(w);
		tc_jw_kv_int(w, "rank", rr->rank);
		tc_jw_kv_str(w, "host", S(m, m->hosts[rr->host].name));
		kv_str_or_null(w, "device", rr->device < m->n_devices ?
			S(m, m->devices[rr->device].name) : NULL);
		kv_str_or_null(w, "steps_source", rr->steps_source);
		tc_jw_kv_uint(w, "steps", rr->n_steps);
		tc_jw_kv_int(w, "step_ps", rr->step_ps);
		tc_jw_kv_int(w, "compute_ps", rr->compute_ps);
		tc_jw_kv_int(w, "exposed_collective_ps", rr->comm_ps);
		tc_jw_kv_int(w, "idle_ps", rr->idle_ps);
		kv_int_or_null(w, "slowest_step", rr->slowest_num);
		tc_jw_kv_int(w, "slowest_step_ps", rr->slowest_ps);
		tc_jw_kv_int(w, "clock_offset_ps", rr->clock_offset_ps);
		tc_jw_kv_uint(w, "arrived_last", rr->n_last);
		tc_jw_kv_int(w, "others_waited_ps", rr->caused_ps);
		tc_jw_kv_int(w, "wait_ps", rr->wait_ps);
		tc_jw_kv_int(w, "transfer_ps", rr->transfer_ps);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_key(w, "rank_spread");
	tc_jw_obj_begin(w);
	tc_jw_kv_int(w, "world_size", r->world_size);
	tc_jw_kv_int(w, "step_min_ps", r->step_min_ps);
	tc_jw_kv_int(w, "step_median_ps", r->step_median_ps);
	tc_jw_kv_int(w, "step_max_ps", r->step_max_ps);
	tc_jw_kv_int(w, "slowest_rank", r->v[r->slowest].rank);
	tc_jw_obj_end(w);
	tc_jw_key(w, "collectives");
	tc_jw_obj_begin(w);
	kv_str_or_null(w, "matched_by", r->coll_source);
	kv_str_or_null(w, "clock_alignment", r->alignment);
	tc_jw_kv_uint(w, "instances_total", r->n_coll);
	tc_jw_kv_int(w, "skew_total_ps", r->skew_total_ps);
	tc_jw_kv_int(w, "end_spread_ps", r->end_spread_ps);
	tc_jw_kv_bool(w, "lined_up", r->lined_up);
	size_t n;
	size_t *ix = top_instances(r, &n);
	tc_jw_key(w, "top_by_skew");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		const struct tc_coll_instance *c = &r->coll[ix[i]];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "name", S(m, c->name));
		kv_str_or_null(w, "group", c->group ? S(m, c->group) : NULL);
		tc_jw_kv_uint(w, "index", c->index);
		kv_int_or_null(w, "step", c->last_step);
		tc_jw_kv_uint(w, "ranks", c->n_ranks);
		tc_jw_kv_int(w, "last_rank", r->v[c->last].rank);
		tc_jw_kv_int(w, "skew_ps", c->skew_ps);
		tc_jw_kv_int(w, "wait_ps", c->wait_ps);
		tc_jw_kv_int(w, "transfer_ps", c->transfer_ps);
		kv_or_null(w, "bytes", c->bytes);
		kv_or_null(w, "algbw_bytes_per_s", c->algbw);
		kv_or_null(w, "busbw_bytes_per_s", c->busbw);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	free(ix);
	tc_jw_obj_end(w);
}
