/*
 * Device lookup: --device NAME matching, device labels, the busiest device,
 * and each device's peak FLOP/s and memory bandwidth for the roofline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/device.h"
#include "util/ascii.h"
#include "util/xalloc.h"

/*
 * Device lookup: --device NAME matching, labels, and each device's peak
 * FLOP/s and memory bandwidth for the roofline.
 */

static bool contains_nocase(const char *hay, const char *needle) {
	return tc_ascii_contains_ci(hay, strlen(hay), needle);
}

void tc_analysis_device_label(const struct tc_model *m, uint32_t d, char *buf, size_t size) {
	const struct tc_device *dev = &m->devices[d];
	if (dev->host < m->n_hosts) {
		snprintf(buf, size, "%s: %s", tc_model_str(m, m->hosts[dev->host].name),
			tc_model_str(m, dev->name));
	} else {
		snprintf(buf, size, "%s", tc_model_str(m, dev->name));
	}
}

static void add(struct tc_device_match *dm, size_t *cap, uint32_t d) {
	TC_GROW(dm->candidates, *cap, dm->n_candidates + 1);
	dm->candidates[dm->n_candidates++] = d;
}

void tc_analysis_match_device(const struct tc_model *m, const char *name,
		struct tc_device_match *dm) {
	memset(dm, 0, sizeof(*dm));
	dm->device = TC_NONE;
	if (!name) {
		return;
	}
	char label[1024];
	size_t cap = 0;
	/* Exact names first: they win over any substring match, so a name
	 * that is a prefix of another ("GPU:1", "GPU:10") can be chosen. */
	for (uint32_t d = 0; d < m->n_devices; d++) {
		tc_analysis_device_label(m, d, label, sizeof(label));
		if (strcmp(tc_model_str(m, m->devices[d].name), name) == 0 ||
				strcmp(label, name) == 0) {
			add(dm, &cap, d);
		}
	}
	if (dm->n_candidates == 0) {
		/* The name only: a host name ("gpu-node-3") would drag in every
		 * device of its host. */
		for (uint32_t d = 0; d < m->n_devices; d++) {
			if (contains_nocase(tc_model_str(m, m->devices[d].name), name)) {
				add(dm, &cap, d);
			}
		}
		dm->status = dm->n_candidates == 1 ? TC_DEVICE_MATCH_UNIQUE :
			dm->n_candidates ? TC_DEVICE_MATCH_AMBIGUOUS : TC_DEVICE_MATCH_NONE;
	} else {
		/* The same name on several hosts: "host: name" tells them apart. */
		dm->status = dm->n_candidates == 1 ? TC_DEVICE_MATCH_EXACT :
			TC_DEVICE_MATCH_AMBIGUOUS;
	}
	if (dm->n_candidates == 1) {
		dm->device = dm->candidates[0];
	}
}

void tc_analysis_device_match_finish(struct tc_device_match *dm) {
	free(dm->candidates);
	dm->candidates = NULL;
	dm->n_candidates = 0;
}

uint32_t tc_analysis_find_device(const struct tc_model *m, const char *name) {
	struct tc_device_match dm;
	tc_analysis_match_device(m, name, &dm);
	uint32_t d = dm.device;
	tc_analysis_device_match_finish(&dm);
	return d;
}

/* The data-sheet table (model/peaks.c) gives the dense 16-bit tensor
 * peak: the roofline's compute roof for the mixed-precision work it is
 * drawn for. */
bool tc_peaks_lookup(const char *model, double *flops, double *bw) {
	const struct tc_peak_row *r = tc_peaks_match(model, 0, 0);
	if (!r) {
		return false;
	}
	*flops = r->flops[TC_PEAK_BF16];
	*bw = r->bw;
	return true;
}

const struct tc_peak_row *tc_device_peak_row(const struct tc_model *m, uint32_t d) {
	return tc_peaks_of_device(m, d);
}

const char *tc_device_peaks(const struct tc_model *m, uint32_t d,
		double flops_override, double bw_override, double *flops, double *bw) {
	*flops = 0;
	*bw = 0;
	const char *src = NULL;
	if (d < m->n_devices) {
		const struct tc_device *dev = &m->devices[d];
		if (dev->peak_flops > 0 && dev->peak_bw > 0) {
			*flops = dev->peak_flops;
			*bw = dev->peak_bw;
			src = "trace";
		} else {
			const struct tc_peak_row *r = tc_device_peak_row(m, d);
			if (r) {
				*flops = r->flops[TC_PEAK_BF16];
				*bw = r->bw;
				src = "table";
			}
		}
	}
	if (flops_override > 0) {
		*flops = flops_override;
		src = "override";
	}
	if (bw_override > 0) {
		*bw = bw_override;
		src = "override";
	}
	return *flops > 0 && *bw > 0 ? src : NULL;
}

uint32_t tc_busiest_device(const struct tc_device_util *util, size_t n_util) {
	uint32_t best = TC_NONE;
	int64_t bb = -1;
	for (size_t k = 0; k < n_util; k++) {
		if (util[k].busy_ps > bb) {
			bb = util[k].busy_ps;
			best = util[k].device;
		}
	}
	return best;
}
