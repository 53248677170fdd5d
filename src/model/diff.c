/* Diff data: freeing sides and diffs, and the names of the diff's enums. */
#include <stdlib.h>
#include "model/diff.h"

static void ops_free(struct tc_diff_op *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].parent);
	}
	free(v);
}

void tc_diff_side_finish(struct tc_diff_side *s) {
	if (!s) {
		return;
	}
	free(s->label);
	free(s->format);
	free(s->steps_source);
	free(s->bd_device);
	for (size_t i = 0; i < s->n_ranks; i++) {
		free(s->ranks[i].label);
	}
	free(s->ranks);
	for (size_t i = 0; i < s->n_devices; i++) {
		free(s->devices[i].name);
	}
	free(s->devices);
	ops_free(s->ops, s->n_ops);
	ops_free(s->cats, s->n_cats);
	for (size_t i = 0; i < s->n_findings; i++) {
		free(s->findings[i].kind);
		free(s->findings[i].device);
		free(s->findings[i].text);
	}
	free(s->findings);
	for (size_t i = 0; i < s->n_mem; i++) {
		free(s->mem[i].label);
	}
	free(s->mem);
	for (size_t i = 0; i < s->n_mem_peaks; i++) {
		free(s->mem_peaks[i].label);
	}
	free(s->mem_peaks);
	for (size_t i = 0; i < s->n_mem_ops; i++) {
		free(s->mem_ops[i].device);
		free(s->mem_ops[i].name);
	}
	free(s->mem_ops);
	*s = (struct tc_diff_side){ 0 };
}

static void rows_free(struct tc_diff_row *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(v[i].own_key);
		free(v[i].paired);
	}
	free(v);
}

void tc_diff_finish(struct tc_diff *d) {
	if (!d) {
		return;
	}
	rows_free(d->ops, d->n_ops);
	rows_free(d->cats, d->n_cats);
	free(d->devices);
	free(d->findings);
	free(d->mem);
	free(d->mem_peaks);
	free(d->mem_ops);
	*d = (struct tc_diff){ 0 };
}

const char *tc_diff_norm_name(enum tc_diff_norm n) {
	switch (n) {
	case TC_NORM_TEMPLATE:
		return "template-args";
	case TC_NORM_HEX:
		return "hex-addresses";
	case TC_NORM_NUMBER:
		return "trailing-numbers";
	default:
		return "?";
	}
}

const char *tc_diff_change_name(enum tc_diff_change c) {
	static const char *const names[] = { "same", "appeared", "disappeared", "worse", "better" };
	return c <= TC_DIFF_BETTER ? names[c] : "?";
}

const char *tc_diff_scope_name(enum tc_diff_scope s) {
	return s == TC_DIFF_DEVICE ? "device" : "host";
}
