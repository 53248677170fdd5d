/*
 * The op table pass: op statistics with roofline classes (memory- or
 * compute-bound against the device's ridge point), and the track filters
 * they are gathered over.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/devwork.h"
#include "analysis/passes.h"
#include "analysis/summary.h"
#include "util/num.h"
#include "util/xalloc.h"

/*
 * Op table with roofline classes. Operational intensity = FLOPs / bytes
 * accessed; ridge point = peak FLOP/s / peak B/s; an op below the ridge is
 * memory-bound, at or above it compute-bound (XProf roofline model).
 */

bool tc_track_device_work(const struct tc_model *m, uint32_t t, void *ctx) {
	return tc_track_kind_is_device_work((enum tc_track_kind)m->tracks[t].kind);
}

bool tc_track_device_work_of(const struct tc_model *m, uint32_t t, void *ctx) {
	return m->tracks[t].device == *(const uint32_t *)ctx && tc_track_device_work(m, t, NULL);
}

bool tc_track_host(const struct tc_model *m, uint32_t t, void *ctx) {
	return m->tracks[t].kind != TC_TRACK_DERIVED;
}

static bool host_track_of(const struct tc_model *m, uint32_t t, void *ctx) {
	return m->tracks[t].device == *(const uint32_t *)ctx && tc_track_host(m, t, NULL);
}

static struct tc_op_row row_from(const struct tc_op_summary *s) {
	return (struct tc_op_row){
		.name = s->name, .category = s->category, .kind = s->kind, .device = TC_NONE,
		.count = s->count, .total_ps = s->total_ps, .self_ps = s->self_ps,
		.min_ps = s->min_ps, .max_ps = s->max_ps, .p50_ps = s->p50_ps, .p99_ps = s->p99_ps,
		.flops = s->flops, .bytes = s->bytes,
	};
}

static void row_add(struct tc_op_row *r, const struct tc_op_summary *s) {
	r->count += s->count;
	r->total_ps = tc_sat_add(r->total_ps, s->total_ps);
	r->self_ps = tc_sat_add(r->self_ps, s->self_ps);
	r->min_ps = s->min_ps < r->min_ps ? s->min_ps : r->min_ps;
	r->max_ps = s->max_ps > r->max_ps ? s->max_ps : r->max_ps;
	if (s->flops >= 0) {
		r->flops = (r->flops < 0 ? 0 : r->flops) + s->flops;
	}
	if (s->bytes >= 0) {
		r->bytes = (r->bytes < 0 ? 0 : r->bytes) + s->bytes;
	}
	r->p50_ps = -1;
	r->p99_ps = -1;
}

struct tc_op_row tc_op_row_sum(const struct tc_op_summary *s, size_t n) {
	struct tc_op_row r = row_from(&s[0]);
	for (size_t i = 1; i < n; i++) {
		row_add(&r, &s[i]);
	}
	r.p50_ps = r.p99_ps = -1;
	return r;
}

static int cmp_row(const void *pa, const void *pb) {
	const struct tc_op_row *a = pa, *b = pb;
	if (a->total_ps != b->total_ps) {
		return a->total_ps > b->total_ps ? -1 : 1;
	}
	if (a->count != b->count) {
		return a->count > b->count ? -1 : 1;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Group rows by a key (category id or kind) with a linear probe: groups
 * are few. */
static void regroup(struct tc_op_table *t, const struct tc_op_summary *s, size_t n, bool by_kind) {
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		size_t g = 0;
		for (; g < t->n; g++) {
			if (by_kind ? t->rows[g].kind == s[i].kind : t->rows[g].category == s[i].category) {
				break;
			}
		}
		if (g == t->n) {
			TC_GROW(t->rows, cap, t->n + 1);
			t->rows[t->n] = row_from(&s[i]);
			t->rows[t->n].name = by_kind ? 0 : s[i].category;
			t->rows[t->n].label = by_kind ? tc_op_kind_name((enum tc_op_kind)s[i].kind) :
				(s[i].category ? NULL : "(none)");
			t->rows[t->n].p50_ps = -1;
			t->rows[t->n].p99_ps = -1;
			t->n++;
		} else {
			row_add(&t->rows[g], &s[i]);
		}
	}
}

bool tc_pass_op_table(const struct tc_model *m, const char *by, bool percentiles,
		uint32_t only, const struct tc_usage *u, const struct tc_summary *sum,
		struct tc_op_table *t) {
	memset(t, 0, sizeof(*t));
	bool by_name = strcmp(by, "name") == 0, by_cat = strcmp(by, "category") == 0;
	bool by_kind = strcmp(by, "kind") == 0, by_dev = strcmp(by, "device") == 0;
	if (!by_name && !by_cat && !by_kind && !by_dev) {
		return false;
	}
	/* Denominator: summed device busy time (union per device). */
	bool any_device = false;
	for (size_t k = 0; k < m->n_tracks; k++) {
		const struct tc_track *tr = &m->tracks[k];
		any_device |= tr->device < m->n_devices && tr->count > 0 &&
			(only == TC_NONE || tr->device == only) &&
			tc_track_kind_is_device_work((enum tc_track_kind)tr->kind);
	}
	bool (*track_ok)(const struct tc_model *, uint32_t, void *) =
		any_device ? tc_track_device_work : tc_track_host;
	if (only != TC_NONE) {
		track_ok = any_device ? tc_track_device_work_of : host_track_of;
	}
	size_t n;
	struct tc_op_summary *s;
	/* The summary's rows, when it walked the same lines. */
	const char *scope = sum && sum->ops_scope ? sum->ops_scope : "";
	bool same = (track_ok == tc_track_device_work && strcmp(scope, "device") == 0) ||
		(track_ok == tc_track_host && strcmp(scope, "host") == 0);
	if (same && !(by_name && percentiles)) {
		n = sum->n_ops;
		s = tc_xmalloc((n ? n : 1) * sizeof(*s));
		if (n) {
			memcpy(s, sum->ops, n * sizeof(*s));
		}
	} else {
		s = tc_analyze_ops(m, track_ok, &only, by_name && percentiles, &n);
	}
	struct tc_op_row *dev_rows = NULL;
	size_t n_dev = 0;
	if (by_dev && any_device) {
		dev_rows = tc_device_op_rows(m, only, &n_dev);
	} else if (by_cat && any_device) {
		/* Device work by what it does (model/devcat.h), not by the
		 * writer's category ("kernel", "gpu_memset"). */
		struct tc_devwork w;
		tc_devwork_scan(m, only, &w);
		dev_rows = tc_devwork_rows(&w, &n_dev);
	}
	int64_t busy = 0;
	const struct tc_device_util *peaks = NULL;
	for (size_t k = 0; k < u->n_util && any_device; k++) {
		if (only == TC_NONE || u->util[k].device == only) {
			busy += u->util[k].busy_ps;
			/* Roofline peaks: the first device with known peaks. */
			if (!peaks && u->util[k].peak_source) {
				peaks = &u->util[k];
			}
		}
	}
	tc_op_table_from_rows(t, by, only, any_device, s, n, dev_rows, n_dev, busy,
		peaks ? peaks->peak_flops : 0, peaks ? peaks->peak_bw : 0,
		peaks ? peaks->peak_source : NULL);
	free(s);
	return true;
}

void tc_op_table_from_rows(struct tc_op_table *t, const char *by, uint32_t only,
		bool any_device, const struct tc_op_summary *s, size_t n, struct tc_op_row *dev_rows,
		size_t n_dev, int64_t busy, double peak_flops, double peak_bw,
		const char *peak_source) {
	memset(t, 0, sizeof(*t));
	bool by_name = strcmp(by, "name") == 0, by_cat = strcmp(by, "category") == 0;
	bool by_kind = strcmp(by, "kind") == 0;
	t->by = by_name ? "name" : by_cat ? "category" : by_kind ? "kind" : "device";
	t->device = only;
	t->scope = any_device ? "device" : "host";
	if (by_name) {
		t->rows = tc_xmalloc((n ? n : 1) * sizeof(*t->rows));
		for (size_t i = 0; i < n; i++) {
			t->rows[i] = row_from(&s[i]);
		}
		t->n = n;
	} else if ((by_cat && !dev_rows) || by_kind) {
		regroup(t, s, n, by_kind);
	} else {
		t->rows = dev_rows; /* taken */
		t->n = n_dev;
		dev_rows = NULL;
	}
	free(dev_rows);
	/* Shares: of summed device busy, or (host-only) of summed self time.
	 * Group rows (category, kind, device) take self time over summed self
	 * time: concurrent streams make totals overlap, and the groups must
	 * partition the time so their shares add up to 100 %. */
	int64_t denom = 0;
	bool by_self = !any_device || !by_name;
	t->share_of = !any_device ? "summed host self time" :
		by_self ? "summed device self time" : "summed device busy";
	if (any_device) {
		denom = busy;
		t->peak_flops = peak_flops;
		t->peak_bw = peak_bw;
		t->peak_source = peak_source;
	}
	if (by_self) {
		denom = 0;
		/* saturated: rows rebuilt from a digest carry its figures */
		for (size_t i = 0; i < n; i++) {
			denom = tc_sat_add(denom, s[i].self_ps);
		}
	}
	t->busy_ps = denom;
	if (t->peak_bw > 0) {
		t->ridge = t->peak_flops / t->peak_bw;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct tc_op_row *r = &t->rows[i];
		double secs = (double)r->total_ps * 1e-12;
		int64_t num = by_self ? r->self_ps : r->total_ps;
		r->share = denom > 0 ? (double)num / (double)denom : 0;
		r->flop_rate = r->flops >= 0 && secs > 0 ? r->flops / secs : -1;
		r->byte_rate = r->bytes >= 0 && secs > 0 ? r->bytes / secs : -1;
		r->intensity = r->flops >= 0 && r->bytes > 0 ? r->flops / r->bytes : -1;
		r->efficiency = -1;
		r->bound = TC_BOUND_UNKNOWN;
		/* Copies, communication and waits are not on the roofline: their
		 * time is transfer, network or waiting (an XLA copy-done waits
		 * for its copy), judged by the transfer and communication rules.
		 * Name and kind rows hold one kind; category and device rows
		 * may mix kinds and stay on it. */
		enum tc_op_kind k = (enum tc_op_kind)r->kind;
		bool off_roofline = (by_name || by_kind) &&
			((k >= TC_OP_MEMCPY_H2D && k <= TC_OP_MEMCPY_OTHER) ||
			k == TC_OP_COLLECTIVE || k == TC_OP_SYNC);
		if (!off_roofline && r->intensity >= 0 && t->ridge > 0 &&
				(r->flops > 0 || r->bytes > 0)) {
			r->bound = r->intensity < t->ridge ? TC_BOUND_MEMORY : TC_BOUND_COMPUTE;
			double attainable = r->intensity * t->peak_bw;
			if (attainable > t->peak_flops) {
				attainable = t->peak_flops;
			}
			/* Memory-bound ops with no FLOPs are judged on bandwidth. */
			if (r->flops > 0 && attainable > 0 && r->flop_rate >= 0) {
				r->efficiency = r->flop_rate / attainable;
			} else if (r->byte_rate >= 0) {
				r->efficiency = r->byte_rate / t->peak_bw;
			}
		}
	}
	tc_sort(t->rows, t->n, sizeof(*t->rows), cmp_row);
}
