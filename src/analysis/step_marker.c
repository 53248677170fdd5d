/*
 * --step-marker REGEX: checking the pattern, and finding the events it
 * marks as steps, on the device chosen as for the built-in markers.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/step_marker.h"
#include "util/xalloc.h"

bool tc_step_marker_valid(const char *pattern, struct tc_error *err) {
	regex_t re;
	int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char msg[256];
		regerror(rc, &re, msg, sizeof(msg));
		return tc_error_set(err, TC_EXIT_USAGE, "invalid --step-marker '%s' (%s)",
			pattern, msg);
	}
	regfree(&re);
	return true;
}

/* Annotations and markers, not device work or runtime calls: a pattern
 * that happens to match a kernel name should not make kernels steps. */
static bool marker_kind(uint8_t kind) {
	switch (kind) {
	case TC_OP_STEP:
	case TC_OP_ANNOTATION:
	case TC_OP_OTHER:
	case TC_OP_HOST_OP:
	case TC_OP_PYTHON:
	case TC_OP_MODULE:
		return true;
	default:
		return false;
	}
}

/* "train_iter_12", "step#3": the digits the name ends with. */
static bool trailing_number(const char *s, size_t n, int64_t *out) {
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && n - i < 18) {
		i--;
	}
	if (i == n || (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')) {
		return false;
	}
	int64_t v = 0;
	for (size_t k = i; k < n; k++) {
		v = v * 10 + (s[k] - '0');
	}
	*out = v;
	return true;
}

static int64_t marker_num(const struct tc_model *m, size_t i) {
	const uint32_t keys[] = { m->key.step_num, m->key.iteration, m->key.step };
	int64_t v;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (tc_model_arg_i64(m, tc_model_event_args(m, i), keys[k], &v)) {
			return v;
		}
	}
	uint32_t name = m->ops[m->ev.op[i]].name;
	if (trailing_number(tc_model_str(m, name), tc_intern_len(&m->strings, name), &v)) {
		return v;
	}
	return INT64_MIN;
}

static int cmp_marked(const void *pa, const void *pb) {
	const struct tc_marked_step *a = pa, *b = pb;
	if (a->start_ps != b->start_ps) {
		return a->start_ps < b->start_ps ? -1 : 1;
	}
	if (a->dur_ps != b->dur_ps) {
		return a->dur_ps > b->dur_ps ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

size_t tc_step_marker_find(const struct tc_model *m, const char *pattern,
		struct tc_marked_step **out, uint32_t *device, bool *on_device) {
	*out = NULL;
	*device = TC_NONE;
	*on_device = false;
	regex_t re;
	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
		return 0;
	}
	/* Match each op once, not each event. */
	uint8_t *hit = tc_xcalloc(m->n_ops ? m->n_ops : 1, 1);
	for (size_t o = 0; o < m->n_ops; o++) {
		hit[o] = marker_kind(m->ops[o].kind) &&
			regexec(&re, tc_model_str(m, m->ops[o].name), 0, NULL, 0) == 0;
	}
	regfree(&re);
	uint64_t *count = tc_xcalloc(m->n_devices + 1, sizeof(*count));
	uint32_t dev = TC_NONE;
	for (size_t t = 0; t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		if (tr->kind == TC_TRACK_DERIVED || tr->kind == TC_TRACK_COUNTER) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (!hit[m->ev.op[i]] || m->ev.dur[i] <= 0) {
				continue;
			}
			if (!tc_model_on_host(m, tr->device)) {
				dev = tr->device < dev ? tr->device : dev;
			}
			count[tr->device < m->n_devices ? tr->device : m->n_devices]++;
		}
	}
	size_t best = m->n_devices + 1;
	if (dev != TC_NONE) {
		best = dev;
	} else {
		for (size_t d = 0; d <= m->n_devices; d++) {
			if (count[d] && (best > m->n_devices || count[d] > count[best])) {
				best = d;
			}
		}
	}
	free(count);
	struct tc_marked_step *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t t = 0; best <= m->n_devices && t < m->n_tracks; t++) {
		const struct tc_track *tr = &m->tracks[t];
		size_t d = tr->device < m->n_devices ? tr->device : m->n_devices;
		if (d != best || tr->kind == TC_TRACK_DERIVED || tr->kind == TC_TRACK_COUNTER) {
			continue;
		}
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			if (hit[m->ev.op[i]] && m->ev.dur[i] > 0) {
				TC_GROW(v, cap, n + 1);
				v[n++] = (struct tc_marked_step){ .ev = (uint32_t)i,
					.num = marker_num(m, i), .start_ps = m->ev.start[i],
					.dur_ps = m->ev.dur[i] };
			}
		}
	}
	free(hit);
	/* Gathered track by track, each track in time order. */
	tc_sort_runs(v, n, sizeof(*v), cmp_marked);
	*out = v;
	*device = best < m->n_devices ? (uint32_t)best : TC_NONE;
	*on_device = dev != TC_NONE;
	return n;
}
