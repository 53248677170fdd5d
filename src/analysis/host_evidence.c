/*
 * What the launch/host, input and sync findings cite: the host calls,
 * allocator calls and sync calls behind a device's time in the counted
 * steps. rules.c turns them into text.
 */
#include <stdlib.h>
#include <string.h>
#include "analysis/host_evidence.h"
#include "analysis/intervals.h"
#include "analysis/passes.h"
#include "util/pair.h"
#include "util/select.h"
#include "util/xalloc.h"

/* Union of device dev's work (none for TC_NONE). */
static void device_busy(const struct tc_model *m, uint32_t dev, struct tc_ivals *out) {
	out->n = 0;
	if (dev >= m->n_devices) {
		return;
	}
	struct tc_device_tracks dt;
	tc_device_tracks_init(&dt, m);
	size_t nt;
	uint32_t *work = tc_device_work_tracks(m, &dt, dev, &nt);
	tc_device_tracks_finish(&dt);
	tc_ivals_union_tracks(m, work, nt, NULL, NULL, out);
	free(work);
}

/* An open event of the self-time walk: its end, its children's time,
 * whether it counts (its kind in the mask, starting in a counted step), and
 * whether it or an event around it claims its time for another cause. */
struct open_ev {
	size_t i;
	int64_t end, child;
	bool counts, claims;
};

static void close_ev(const struct tc_model *m, const struct open_ev *o, int64_t *tot) {
	int64_t self = m->ev.dur[o->i] - o->child;
	tot[m->ev.op[o->i]] += o->counts && self > 0 ? self : 0;
}

/* tc_host_evidence_top_ops' walk over some of the lines, into tot. */
struct top_walk {
	const struct tc_model *m;
	const struct tc_analysis *a;
	const uint32_t *lines;
	size_t nt;
	const uint8_t *in_mask;
	bool by_self;
	uint32_t claim_mask;
	int64_t *tot;
};

static void *top_walk_run(void *p) {
	const struct top_walk *w = p;
	const struct tc_model *m = w->m;
	int64_t *tot = w->tot;
	/* One walk per track in start order keeps the open events on a stack. */
	struct open_ev *stack = NULL;
	size_t cap = 0;
	for (size_t t = 0; t < w->nt; t++) {
		const struct tc_track *tr = &m->tracks[w->lines[t]];
		size_t sp = 0, at = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			int64_t st = m->ev.start[i], dur = m->ev.dur[i];
			bool counts = w->in_mask[m->ev.op[i]] && tc_step_counted_from(w->a, &at, st);
			if (!w->by_self) {
				tot[m->ev.op[i]] += counts && dur > 0 ? dur : 0;
				continue;
			}
			/* Closed: what ended, and what does not hold this event
			 * whole (overlapping siblings are not nested). */
			int64_t en = st + (dur > 0 ? dur : 0);
			while (sp && (stack[sp - 1].end <= st || stack[sp - 1].end < en)) {
				close_ev(m, &stack[--sp], tot);
			}
			if (dur <= 0) {
				continue;
			}
			bool claimed = sp && stack[sp - 1].claims;
			if (sp) {
				stack[sp - 1].child += dur;
			}
			TC_GROW(stack, cap, sp + 1);
			stack[sp++] = (struct open_ev){ .i = i, .end = en, .counts = counts && !claimed,
				.claims = claimed || ((w->claim_mask >> m->op_kind[m->ev.op[i]]) & 1u) };
		}
		while (sp) {
			close_ev(m, &stack[--sp], tot);
		}
	}
	free(stack);
	return NULL;
}

void tc_host_evidence_top_ops(const struct tc_model *m, const struct tc_analysis *a,
		struct tc_finding *f, uint32_t kind_mask, bool by_self, uint32_t claim_mask,
		bool two) {
	size_t n_ops = m->n_ops ? m->n_ops : 1;
	uint8_t *in_mask = tc_xmalloc(n_ops);
	for (size_t o = 0; o < m->n_ops; o++) {
		in_mask[o] = (kind_mask >> m->ops[o].kind) & 1u;
	}
	size_t nt;
	uint32_t *lines = tc_host_tracks(m, f->device, &nt);
	/* Tracks are independent: with two threads, the later lines (about
	 * half the events) on the second, its sums added after. */
	size_t split = two ? tc_tracks_split(m, lines, nt) : nt;
	struct top_walk w[2] = {
		{ m, a, lines, split, in_mask, by_self, claim_mask, tc_xcalloc(n_ops, sizeof(int64_t)) },
		{ m, a, lines + split, nt - split, in_mask, by_self, claim_mask,
			tc_xcalloc(n_ops, sizeof(int64_t)) },
	};
	tc_run_pair(top_walk_run, &w[0], &w[1], split < nt);
	for (size_t o = 0; o < n_ops; o++) {
		w[0].tot[o] += w[1].tot[o];
	}
	free(w[1].tot);
	free(lines);
	free(in_mask);
	tc_finding_add_ops_by_time(f, m, w[0].tot);
	free(w[0].tot);
}

/* Synchronous, and slow when the driver maps new memory; the
 * stream-ordered *Async ones are neither. */
static bool alloc_call(const char *n) {
	static const char *const pre[] = { "cudaMalloc", "cudaFree", "hipMalloc", "hipFree",
		"cuMemAlloc", "cuMemFree" };
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t l = strlen(pre[i]);
		if (strncmp(n, pre[i], l) == 0) {
			return strstr(n + l, "Async") == NULL;
		}
	}
	return false;
}

void tc_host_evidence_alloc(const struct tc_model *m, const struct tc_analysis *a,
		uint32_t dev, uint64_t *calls, int64_t *idle_ps) {
	*calls = 0;
	*idle_ps = 0;
	uint8_t *is = tc_xcalloc(m->n_ops ? m->n_ops : 1, 1);
	bool any = false;
	for (size_t o = 0; o < m->n_ops; o++) {
		is[o] = m->ops[o].kind == TC_OP_RUNTIME && alloc_call(tc_model_str(m, m->ops[o].name));
		any |= is[o];
	}
	struct tc_ivals busy = { 0 };
	if (any) {
		device_busy(m, dev, &busy);
	}
	size_t nt = 0;
	uint32_t *lines = any ? tc_host_tracks(m, dev, &nt) : NULL;
	for (size_t t = 0; t < nt; t++) {
		const struct tc_track *tr = &m->tracks[lines[t]];
		size_t at = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			int64_t st = m->ev.start[i], dur = m->ev.dur[i];
			if (is[m->ev.op[i]] && tc_step_counted_from(a, &at, st)) {
				(*calls)++;
				*idle_ps += dur - tc_ivals_length_in(&busy, st, st + dur);
			}
		}
	}
	free(lines);
	tc_ivals_finish(&busy);
	free(is);
}

void tc_host_evidence_sync(const struct tc_model *m, const struct tc_analysis *a,
		uint32_t dev, uint64_t *calls, int64_t *blocked_ps, int64_t *after_ps) {
	*calls = 0;
	*blocked_ps = 0;
	*after_ps = 0;
	struct tc_ivals busy = { 0 };
	device_busy(m, dev, &busy);
	size_t nt;
	uint32_t *lines = tc_host_tracks(m, dev, &nt);
	for (size_t t = 0; t < nt; t++) {
		const struct tc_track *tr = &m->tracks[lines[t]];
		int64_t outer_end = INT64_MIN;
		size_t at = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			int64_t b = m->ev.start[i], e = b + m->ev.dur[i];
			if (m->op_kind[m->ev.op[i]] != TC_OP_SYNC || b < outer_end) {
				continue; /* a sync inside another is the same wait */
			}
			outer_end = e;
			if (!tc_step_counted_from(a, &at, b)) {
				continue;
			}
			(*calls)++;
			*blocked_ps += m->ev.dur[i];
			int64_t gap = tc_ivals_gap_end(&busy, e);
			*after_ps += gap != INT64_MAX ? gap - e : 0;
		}
	}
	free(lines);
	tc_ivals_finish(&busy);
}

/* A host runtime call that may be a one-off (1 ms or longer), seq its
 * place among the calls gathered. */
struct rt_call {
	uint32_t op;
	int64_t start, dur;
	size_t seq;
};

/* By op, then duration, then as gathered: the order of a stable sort by
 * (op, duration) of every call, which the stalls keep where they tie. */
static int cmp_rt_call(const void *pa, const void *pb) {
	const struct rt_call *a = pa, *b = pb;
	if (a->op != b->op) {
		return a->op < b->op ? -1 : 1;
	}
	if (a->dur != b->dur) {
		return a->dur < b->dur ? -1 : 1;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_stall(const void *pa, const void *pb) {
	const struct tc_stall *a = pa, *b = pb;
	if (a->idle_ps != b->idle_ps) {
		return a->idle_ps > b->idle_ps ? -1 : 1;
	}
	return a->start_ps < b->start_ps ? -1 : a->start_ps > b->start_ps;
}

/* A runtime call that sets things up by its name: context, stream,
 * event and module creation, allocation and freeing, initialisation. */
static bool startup_name(const char *name) {
	static const char *const words[] = {
		"Create", "Free", "Malloc", "Alloc", "Init", "SetDevice", "Ctx", "Context",
		"Register", "Load", "Priority", "GetDevice", "DeviceGet",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strstr(name, words[i])) {
			return true;
		}
	}
	return false;
}

/* One op's calls in one_off_calls: how many, whether one may be a
 * one-off, where its durations go and their lower median. */
struct op_calls {
	uint32_t n;
	bool cand;
	size_t at;
	int64_t med;
};

/*
 * dev's host calls of kind on lines, those in the counted steps or (outside)
 * all of them. Without durs, counts them into per; with it, puts each
 * candidate op's durations into durs from per[op].at on, and the calls that
 * may be one-offs (1 ms or longer, on the side outside asks for) into
 * (*q, *nq), in walk order.
 */
static void walk_calls(const struct tc_model *m, const struct tc_analysis *a,
		const uint32_t *lines, size_t nt, enum tc_op_kind kind, bool outside,
		struct op_calls *per, int64_t *durs, struct rt_call **q, size_t *nq) {
	const int64_t min_ps = 1000000000; /* 1 ms */
	size_t cap = 0;
	for (size_t t = 0; t < nt; t++) {
		const struct tc_track *tr = &m->tracks[lines[t]];
		size_t at = 0;
		for (size_t i = tr->first; i < (size_t)tr->first + tr->count; i++) {
			uint32_t op = m->ev.op[i];
			if (m->op_kind[op] != kind) {
				continue;
			}
			bool in = tc_step_counted_from(a, &at, m->ev.start[i]);
			if (!in && !outside) {
				continue;
			}
			int64_t dur = m->ev.dur[i];
			bool maybe = in != outside && dur >= min_ps;
			if (!durs) {
				per[op].n++;
				per[op].cand |= maybe;
			} else if (per[op].cand) {
				durs[per[op].at++] = dur;
				if (maybe) {
					TC_GROW(*q, cap, *nq + 1);
					(*q)[*nq] = (struct rt_call){ op, m->ev.start[i], dur, *nq };
					(*nq)++;
				}
			}
		}
	}
}

/*
 * One-off calls among dev's host calls of kind: those in the counted
 * steps (outside false), judged against the calls there, or those outside
 * them (before, after, in the warm-up step), judged against all calls of
 * their op (the first launch of a module against the launches in the
 * steps). Into a new array, *ns of them, unsorted, idle unmeasured.
 *
 * Most calls are far under 1 ms: only ops with a call of 1 ms or longer
 * have their durations gathered (for the median), and only those calls
 * are sorted, so the work is two walks and not a sort of every call.
 */
static struct tc_stall *one_off_calls(const struct tc_model *m, const struct tc_analysis *a,
		uint32_t dev, enum tc_op_kind kind, bool outside, size_t *ns_out) {
	*ns_out = 0;
	size_t nt;
	uint32_t *lines = tc_host_tracks(m, dev, &nt);
	struct op_calls *per = tc_xcalloc(m->n_ops ? m->n_ops : 1, sizeof(*per));
	walk_calls(m, a, lines, nt, kind, outside, per, NULL, NULL, NULL);
	size_t nd = 0;
	for (size_t o = 0; o < m->n_ops; o++) {
		per[o].at = nd;
		nd += per[o].cand ? per[o].n : 0;
	}
	struct rt_call *q = NULL;
	size_t nq = 0;
	int64_t *durs = NULL;
	if (nd) {
		durs = tc_xmalloc(nd * sizeof(*durs));
		walk_calls(m, a, lines, nt, kind, outside, per, durs, &q, &nq);
		for (size_t o = 0; o < m->n_ops; o++) {
			if (per[o].cand) {
				/* The lower median: a few slow calls among many
				 * fast ones leave it at the fast ones' time. */
				per[o].at -= per[o].n;
				per[o].med = tc_select_i64(durs + per[o].at, per[o].n, (per[o].n - 1) / 2);
			}
		}
	}
	free(durs);
	free(lines);
	tc_sort(q, nq, sizeof(*q), cmp_rt_call);
	struct tc_stall *s = NULL;
	size_t ns = 0, scap = 0;
	for (size_t i = 0; i < nq;) {
		size_t j = i;
		while (j < nq && q[j].op == q[i].op) {
			j++;
		}
		const struct op_calls *oc = &per[q[i].op];
		bool once = oc->n == 1;
		size_t first = ns;
		for (size_t k = i; k < j; k++) {
			if (once || (oc->med > 0 && q[k].dur / 100 >= oc->med)) {
				TC_GROW(s, scap, ns + 1);
				s[ns++] = (struct tc_stall){ q[k].op, q[k].start, q[k].dur, q[k].dur,
					!once || startup_name(tc_model_str(m, m->ops[q[k].op].name)) };
			}
		}
		/* Slow again in another step: a recurring stall, not start-up. */
		if (!outside && a->n_steps_counted > 1 && ns - first > 1) {
			ns = first;
		}
		i = j;
	}
	free(q);
	free(per);
	*ns_out = ns;
	return s;
}

/* Each stall's idle time (its time with dev running nothing), then the
 * stalls by it, longest first. */
static void stalls_idle(const struct tc_model *m, uint32_t dev, struct tc_stall *s, size_t ns) {
	if (!ns) {
		return;
	}
	struct tc_ivals busy = { 0 };
	device_busy(m, dev, &busy);
	for (size_t i = 0; i < ns; i++) {
		s[i].idle_ps -= tc_ivals_length_in(&busy, s[i].start_ps, s[i].start_ps + s[i].dur_ps);
	}
	tc_ivals_finish(&busy);
	tc_sort(s, ns, sizeof(*s), cmp_stall);
}

size_t tc_host_evidence_stalls(const struct tc_model *m, const struct tc_analysis *a,
		uint32_t dev, enum tc_op_kind kind, struct tc_stall *out, size_t max) {
	size_t ns;
	struct tc_stall *s = one_off_calls(m, a, dev, kind, false, &ns);
	stalls_idle(m, dev, s, ns);
	size_t k = ns < max ? ns : max;
	if (k) {
		memcpy(out, s, k * sizeof(*s));
	}
	free(s);
	return k;
}

void tc_host_evidence_startup(const struct tc_model *m, struct tc_analysis *a) {
	struct tc_startup *su = &a->startup;
	*su = (struct tc_startup){ 0 };
	/* Only real steps leave calls outside them: a whole-trace step holds
	 * every call (rules.c's host/launch finding names them there). */
	if (!a->n_steps_counted || a->bd_device >= m->n_devices || !a->steps_source ||
			strncmp(a->steps_source, "whole trace", 11) == 0) {
		return;
	}
	size_t ns;
	struct tc_stall *s = one_off_calls(m, a, a->bd_device, TC_OP_RUNTIME, true, &ns);
	stalls_idle(m, a->bd_device, s, ns);
	for (size_t i = 0; i < ns; i++) {
		/* A call waiting on device work (a copy, a sync) is that
		 * work's time, not start-up overhead. */
		if (2 * s[i].idle_ps < s[i].dur_ps) {
			continue;
		}
		su->total_ps += s[i].dur_ps;
		if (su->n_calls < TC_STARTUP_TOP) {
			su->name[su->n_calls] = tc_model_str(m, m->ops[s[i].op].name);
			su->dur_ps[su->n_calls] = s[i].dur_ps;
		}
		su->n_calls++;
	}
	free(s);
}
