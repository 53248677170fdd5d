/*
 * Device work no reader recognised: a trace whose host runs an ML program
 * but whose other rows match no device pattern (a new accelerator's card
 * rows) is said to be so, with the busiest rows left as host, rather than
 * read as "no devices, 100 % idle" (issue 48, class 8).
 */
#include <stdio.h>
#include <stdlib.h>
#include "ingest/ingest.h"
#include "util/numfmt.h"
#include "util/xalloc.h"

#define NAMED 3 /* processes named in the warning */

/* What an ML program's host records: framework ops, Python frames,
 * runtime calls, syncs, steps, input and compilation. */
static bool ml_host_kind(uint8_t k) {
	switch (k) {
	case TC_OP_HOST_OP:
	case TC_OP_RUNTIME:
	case TC_OP_SYNC:
	case TC_OP_STEP:
	case TC_OP_COMPILE:
	case TC_OP_DATALOAD:
	case TC_OP_PYTHON:
		return true;
	default:
		return false;
	}
}

struct row {
	uint32_t device;
	uint64_t ml, other;  /* events of ML host kinds; events of no kind */
	int64_t other_ps;    /* top-level time of the latter */
};

static int cmp_row(const void *pa, const void *pb) {
	const struct row *a = pa, *b = pb;
	if (a->other_ps != b->other_ps) {
		return a->other_ps > b->other_ps ? -1 : 1;
	}
	return a->device < b->device ? -1 : a->device > b->device;
}

void tc_ingest_warn_unrecognised(struct tc_model *m) {
	for (size_t d = 0; d < m->n_devices; d++) {
		uint8_t k = m->devices[d].kind;
		if ((k == TC_DEV_GPU || k == TC_DEV_TPU || k == TC_DEV_ACCEL)) {
			return; /* device rows were recognised */
		}
	}
	struct row *rows = tc_xcalloc(m->n_devices + 1, sizeof(*rows));
	for (size_t d = 0; d < m->n_devices; d++) {
		rows[d].device = (uint32_t)d;
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->device >= m->n_devices || m->devices[tr->device].kind != TC_DEV_CPU) {
			continue;
		}
		struct row *r = &rows[tr->device];
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			uint8_t k = m->ops[m->ev.op[i]].kind;
			if (ml_host_kind(k)) {
				r->ml++;
			} else if (k == TC_OP_OTHER && m->ev.dur[i] > 0) {
				r->other++;
				if (m->ev.depth[i] == 0 && m->ev.dur[i] <= INT64_MAX - r->other_ps) {
					r->other_ps += m->ev.dur[i];
				}
			}
		}
	}
	/* Only beside an ML host: a host-only trace of any other program
	 * (a browser, a test of the format) has no device to miss. */
	bool ml = false;
	size_t n = 0;
	for (size_t d = 0; d < m->n_devices; d++) {
		ml |= rows[d].ml > 0;
		if (!rows[d].ml && rows[d].other) {
			rows[n++] = rows[d];
		}
	}
	if (ml && n) {
		qsort(rows, n, sizeof(*rows), cmp_row);
		char msg[1024];
		size_t len = (size_t)snprintf(msg, sizeof(msg), "no device activity recognised: "
			"the busiest processes left as host hold no framework, Python or runtime "
			"events, only events of unknown kind:");
		for (size_t i = 0; i < n && i < NAMED && len < sizeof(msg); i++) {
			char t[TC_FMT_LEN], c[TC_FMT_LEN];
			tc_fmt_dur(t, rows[i].other_ps);
			tc_fmt_noun(c, rows[i].other, "event", "events");
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s '%s' (%s in %s)",
				i ? "," : "", tc_model_str(m, m->devices[rows[i].device].name), t, c);
		}
		if (n > NAMED && len < sizeof(msg)) {
			snprintf(msg + len, sizeof(msg) - len, " and %zu more", n - NAMED);
		}
		tc_model_warn_inputs(m, 1, "%s", msg);
	}
	free(rows);
}
