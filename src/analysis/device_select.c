#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analyze.h"
#include "util/xalloc.h"

/* ASCII case-insensitive strstr: device names are ASCII in practice, and
 * bytes past it compare as they are. */
static bool contains_nocase(const char *hay, const char *needle) {
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
				tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) {
			i++;
		}
		if (i == n) {
			return true;
		}
	}
	return n == 0;
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
