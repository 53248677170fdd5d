/*
 * Rank identity: each host's rank from the trace, host or file names, or
 * file order, and the rank labels and counts the writers use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/rank.h"
#include "model/ranks.h"
#include "util/xalloc.h"

static bool is_digit(char c) {
	return c >= '0' && c <= '9';
}

static char lower(char c) {
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The number after the last word (lower case), word- or word_ in s; -1 if none. */
static int64_t number_after(const char *s, const char *word) {
	int64_t found = -1;
	size_t n = strlen(s), w = strlen(word);
	for (size_t i = 0; i + w < n; i++) {
		size_t j = 0;
		while (j < w && lower(s[i + j]) == word[j]) {
			j++;
		}
		if (j < w) {
			continue;
		}
		size_t k = i + w;
		if (s[k] == '-' || s[k] == '_') {
			k++;
		}
		int64_t v = 0;
		size_t e = k;
		/* "rank-007" and "rank7" are the same rank. */
		while (e < n && is_digit(s[e]) && e - k < 9) {
			v = v * 10 + (s[e++] - '0');
		}
		if (e > k) {
			found = v;
		}
	}
	return found;
}

static const char *base_name(const char *path) {
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The rank a host's or its file's name gives, -1 if none. */
static int64_t named_rank(const struct tc_model *m, const struct tc_host *h) {
	const char *name = tc_model_str(m, h->name);
	if (strncmp(name, "rank ", 5) == 0 && name[5] &&
			strspn(name + 5, "0123456789") == strlen(name + 5) && strlen(name + 5) < 10) {
		return strtoll(name + 5, NULL, 10);
	}
	if (h->source >= m->n_sources) {
		return -1;
	}
	const char *base = base_name(tc_model_str(m, m->sources[h->source].path));
	int64_t r = number_after(base, "rank");
	return r >= 0 ? r : number_after(base, "worker");
}

static int cmp_i32(const void *pa, const void *pb) {
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return a < b ? -1 : a > b;
}

/* Warn about ranks below the largest world_size that no host holds. */
static void warn_missing(struct tc_model *m, int32_t *sorted, size_t n) {
	int32_t world = 0;
	for (size_t h = 0; h < m->n_hosts; h++) {
		world = m->hosts[h].world_size > world ? m->hosts[h].world_size : world;
	}
	/* One rank of a big job is a normal profile, not a missing set. */
	if (world <= 0 || n < 2) {
		return;
	}
	/* By the gaps between the ranks read, never rank by rank: a
	 * world_size is input and may be 2^31 - 1. */
	char list[256] = "";
	size_t len = 0, listed = 0, present = 0;
	int32_t next = 0; /* lowest rank not yet seen or listed past */
	for (size_t k = 0; k <= n; k++) {
		int32_t upto = k < n && sorted[k] < world ? sorted[k] : world;
		for (int32_t r = next; r < upto && listed < 8; r++) {
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d",
				listed++ ? ", " : "", r);
		}
		if (upto == world) {
			break;
		}
		present++;
		next = sorted[k] + 1;
	}
	size_t missing = (size_t)world - present;
	if (missing) {
		tc_model_warn(m, 1, "world_size is %d but %zu ranks were read: missing rank%s %s%s; "
			"collectives are matched over the ranks read", world, n, missing > 1 ? "s" : "",
			list, missing > 8 ? ", ..." : "");
	}
}

void tc_model_assign_ranks(struct tc_model *m) {
	size_t unknown = 0;
	for (size_t h = 0; h < m->n_hosts; h++) {
		struct tc_host *ho = &m->hosts[h];
		if (ho->rank_from == TC_RANK_NONE) {
			int64_t r = named_rank(m, ho);
			if (r >= 0 && r <= INT32_MAX) {
				ho->rank = (int32_t)r;
				ho->rank_from = TC_RANK_NAME;
			}
		}
		unknown += ho->rank < 0;
	}
	int32_t *sorted = tc_xmalloc((m->n_hosts ? m->n_hosts : 1) * sizeof(*sorted));
	size_t n = 0;
	for (size_t h = 0; h < m->n_hosts; h++) {
		if (m->hosts[h].rank >= 0) {
			sorted[n++] = m->hosts[h].rank;
		}
	}
	qsort(sorted, n, sizeof(*sorted), cmp_i32);
	bool dup = false;
	for (size_t i = 1; i < n; i++) {
		dup |= sorted[i] == sorted[i - 1];
	}
	if (dup) {
		tc_model_warn(m, 1, "two inputs claim the same rank; ranks are numbered in file order");
	}
	if (m->n_hosts >= 2 && (dup || unknown)) {
		/* Only one host per file can stand for a rank. */
		bool per_file = true;
		for (size_t h = 1; h < m->n_hosts; h++) {
			per_file &= m->hosts[h].source != m->hosts[h - 1].source;
		}
		if (per_file || dup) {
			for (size_t h = 0; h < m->n_hosts; h++) {
				m->hosts[h].rank = (int32_t)h;
				m->hosts[h].rank_from = TC_RANK_ORDER;
			}
			n = 0;
		}
	}
	if (!dup && n) {
		warn_missing(m, sorted, n);
	}
	free(sorted);

	/* An accelerator's process: its own pid, else its host's only process. */
	for (size_t h = 0; h < m->n_hosts; h++) {
		int64_t pid = -1;
		size_t procs = 0;
		for (size_t d = 0; d < m->n_devices; d++) {
			const struct tc_device *dv = &m->devices[d];
			if (dv->host == h && dv->kind == TC_DEV_CPU && dv->pid >= 0 && dv->pid != pid) {
				pid = dv->pid;
				procs++;
			}
		}
		for (size_t d = 0; d < m->n_devices && procs == 1; d++) {
			/* Accelerators only: "other" pseudo-processes are not its. */
			uint8_t k = m->devices[d].kind;
			if (m->devices[d].host == h && m->devices[d].pid < 0 &&
					(k == TC_DEV_GPU || k == TC_DEV_TPU || k == TC_DEV_ACCEL)) {
				m->devices[d].pid = pid;
			}
		}
	}
}

uint32_t tc_model_add_hosts_of(struct tc_model *dst, const struct tc_model *src) {
	uint32_t base = (uint32_t)dst->n_sources;
	for (size_t i = 0; i < src->n_sources; i++) {
		const struct tc_source *s = &src->sources[i];
		uint32_t k = tc_model_add_source(dst, tc_model_str(src, s->path),
			tc_model_str(src, s->format), tc_model_str(src, s->compression), s->file_size,
			s->data_size);
		dst->sources[k].truncated = s->truncated;
		dst->sources[k].writer = s->writer ?
			tc_model_intern(dst, tc_model_str(src, s->writer)) : 0;
	}
	for (size_t h = 0; h < src->n_hosts; h++) {
		const struct tc_host *ho = &src->hosts[h];
		uint32_t k = tc_model_add_host(dst, tc_model_intern(dst, tc_model_str(src, ho->name)),
			ho->source < src->n_sources ? base + ho->source : TC_NONE);
		dst->hosts[k].rank = ho->rank;
		dst->hosts[k].world_size = ho->world_size;
		dst->hosts[k].rank_from = ho->rank_from;
	}
	return base;
}

int32_t tc_model_device_rank(const struct tc_model *m, uint32_t d) {
	if (d >= m->n_devices || m->devices[d].host >= m->n_hosts) {
		return -1;
	}
	return m->hosts[m->devices[d].host].rank;
}

void tc_model_device_label(const struct tc_model *m, uint32_t d, char *buf, size_t size) {
	const char *name = d < m->n_devices ? tc_model_str(m, m->devices[d].name) : "host";
	int32_t r = tc_model_device_rank(m, d);
	if (r >= 0 && tc_model_n_ranks(m) >= 2) {
		snprintf(buf, size, "rank %d: %s", r, name);
	} else {
		snprintf(buf, size, "%s", name);
	}
}

size_t tc_model_n_ranks(const struct tc_model *m) {
	int32_t *v = tc_xmalloc((m->n_hosts ? m->n_hosts : 1) * sizeof(*v));
	size_t n = 0, distinct = 0;
	for (size_t h = 0; h < m->n_hosts; h++) {
		if (m->hosts[h].rank >= 0) {
			v[n++] = m->hosts[h].rank;
		}
	}
	qsort(v, n, sizeof(*v), cmp_i32);
	for (size_t i = 0; i < n; i++) {
		distinct += i == 0 || v[i] != v[i - 1];
	}
	free(v);
	return distinct;
}

void tc_model_source_rank(const struct tc_model *m, uint32_t s, char *buf, size_t size) {
	const struct tc_source *src = &m->sources[s];
	if (src->host < m->n_hosts) {
		const struct tc_host *h = &m->hosts[src->host];
		/* A rank the files' order gave names no rank; before
		 * tc_model_assign_ranks the names still tell. */
		int64_t r = h->rank_from == TC_RANK_READER || h->rank_from == TC_RANK_NAME ?
			h->rank : named_rank(m, h);
		if (r >= 0) {
			snprintf(buf, size, "rank %lld", (long long)r);
			return;
		}
	}
	int64_t r = number_after(base_name(tc_model_str(m, src->path)), "rank");
	if (r >= 0) {
		snprintf(buf, size, "rank %lld", (long long)r);
	} else {
		snprintf(buf, size, "%s", base_name(tc_model_str(m, src->path)));
	}
}

/* Here, not beside the analysis that fills it: a model's results are
 * freed by the model layer (tc_analysis_finish in findings.c). */
void tc_ranks_finish(struct tc_ranks *r) {
	free(r->v);
	free(r->coll);
	memset(r, 0, sizeof(*r));
}
