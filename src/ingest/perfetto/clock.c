/* Perfetto clock graph: snapshots, conversion paths, trace-clock timestamps. */
#include "ingest/perfetto/perfetto_private.h"
#include "perfetto_trace_min.pb-c.h"
#include "util/pbkeep.h"

/* ---- clocks ---- */

static uint32_t clk_get(struct pre *s, uint64_t key) {
	uint32_t *p = tc_u64map_find(&s->clk_by_key, key);
	if (p) {
		return *p;
	}
	TC_GROW(s->clks, s->cap_clks, s->n_clks + 1);
	uint32_t k = (uint32_t)s->n_clks++;
	s->clks[k] = (struct clk){ .key = key, .mult = 1, .path_ver = UINT32_MAX };
	tc_u64map_put(&s->clk_by_key, key, k);
	return k;
}

static void pair_add(struct pre *s, uint32_t a, int64_t ta, uint32_t b, int64_t tb) {
	if (a == b) {
		return;
	}
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
		int64_t tt = ta;
		ta = tb;
		tb = tt;
	}
	uint64_t key = (uint64_t)a << 32 | b;
	uint32_t *p = tc_u64map_find(&s->pair_by_key, key);
	uint32_t k;
	if (p) {
		k = *p;
	} else {
		TC_GROW(s->pairs, s->cap_pairs, s->n_pairs + 1);
		k = (uint32_t)s->n_pairs++;
		s->pairs[k] = (struct pair){ .a = a, .b = b };
		tc_u64map_put(&s->pair_by_key, key, k);
		s->graph_ver++;
	}
	struct pair *pr = &s->pairs[k];
	s->snap_ver++;
	TC_GROW(pr->v, pr->cap, pr->n + 1);
	/* Keep sorted by the a side (snapshots normally arrive in order). */
	size_t i = pr->n++;
	while (i > 0 && pr->v[i - 1][0] > ta) {
		pr->v[i][0] = pr->v[i - 1][0];
		pr->v[i][1] = pr->v[i - 1][1];
		i--;
	}
	pr->v[i][0] = ta;
	pr->v[i][1] = tb;
}

/* Breadth-first search from clock c to the trace clock over the snapshot
 * graph; the path is cached in c until the graph gains an edge. */
static void clk_path(struct pre *s, uint32_t c) {
	struct clk *k = &s->clks[c];
	k->path_ver = s->graph_ver;
	k->n_hops = 0;
	k->reachable = false;
	uint32_t *tp = tc_u64map_find(&s->clk_by_key, s->trace_clock);
	if (!tp) {
		return;
	}
	uint32_t target = *tp;
	if (target == c) {
		k->reachable = true;
		return;
	}
	size_t n = s->n_clks;
	uint32_t *prev = tc_xmalloc(n * sizeof(*prev)); /* pair*2+dir used to reach */
	uint32_t *queue = tc_xmalloc(n * sizeof(*queue));
	for (size_t i = 0; i < n; i++) {
		prev[i] = UINT32_MAX;
	}
	size_t qh = 0, qt = 0;
	queue[qt++] = c;
	prev[c] = UINT32_MAX - 1;
	while (qh < qt && prev[target] == UINT32_MAX) {
		uint32_t u = queue[qh++];
		for (size_t p = 0; p < s->n_pairs; p++) {
			const struct pair *pr = &s->pairs[p];
			uint32_t v;
			uint32_t dir;
			if (pr->a == u) {
				v = pr->b;
				dir = 0;
			} else if (pr->b == u) {
				v = pr->a;
				dir = 1;
			} else {
				continue;
			}
			if (prev[v] == UINT32_MAX) {
				prev[v] = (uint32_t)p * 2 + dir;
				queue[qt++] = v;
			}
		}
	}
	if (prev[target] != UINT32_MAX) {
		k->reachable = true;
		/* Walk back from the target, then reverse. */
		for (uint32_t v = target; v != c;) {
			uint32_t h = prev[v];
			TC_GROW(k->hops, k->cap_hops, k->n_hops + 1);
			k->hops[k->n_hops++] = h;
			const struct pair *pr = &s->pairs[h / 2];
			v = (h & 1) ? pr->b : pr->a;
		}
		for (size_t i = 0; i < k->n_hops / 2; i++) {
			uint32_t t = k->hops[i];
			k->hops[i] = k->hops[k->n_hops - 1 - i];
			k->hops[k->n_hops - 1 - i] = t;
		}
		free(k->hint);
		k->hint = tc_xcalloc(k->n_hops ? k->n_hops : 1, sizeof(*k->hint));
	}
	free(prev);
	free(queue);
}

/* Latest snapshot at or before v on the from side (else the first). */
static int64_t hop_convert(const struct pair *pr, uint32_t dir, int64_t v, uint32_t *hint) {
	int from = dir ? 1 : 0, to = dir ? 0 : 1;
	size_t n = pr->n, i = *hint < n ? *hint : 0;
	if (!(pr->v[i][from] <= v && (i + 1 == n || pr->v[i + 1][from] > v))) {
		size_t lo = 0, hi = n; /* first index with value > v */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (pr->v[mid][from] <= v) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		i = lo ? lo - 1 : 0;
	}
	*hint = (uint32_t)i;
	return wrap_add(wrap_sub(v, pr->v[i][from]), pr->v[i][to]);
}

/* The fields read, with the wire type each must have. */
static const struct tc_pb_keep clock_keep[] = {
	{ CLK_ID, TC_PB_VARINT, NULL }, { CLK_TIMESTAMP, TC_PB_VARINT, NULL },
	{ CLK_IS_INCREMENTAL, TC_PB_VARINT, NULL }, { CLK_UNIT_MULTIPLIER_NS, TC_PB_VARINT, NULL },
	{ 0 },
};
static const struct tc_pb_keep snapshot_keep[] = {
	{ CS_CLOCKS, TC_PB_LEN, clock_keep }, { CS_PRIMARY_TRACE_CLOCK, TC_PB_VARINT, NULL }, { 0 },
};

/*
 * A snapshot protobuf-c refused: the wire error the reader has always
 * reported (a clock's as it comes, then the snapshot's), or, when the wire
 * is clean, the snapshot unpacked again without the fields of the wrong
 * wire type, which the reader has always skipped. NULL after an error.
 */
static Perfetto__Protos__ClockSnapshot *unpack_again(struct pre *s, const uint8_t *p,
		size_t len) {
	struct tc_pb r, rc;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num != CS_CLOCKS || f.wt != TC_PB_LEN) {
			continue;
		}
		tc_pb_init(&rc, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&rc, &g)) > 0) {
		}
		if (rv2 < 0) {
			tc_perfetto_pre_pb_fail(s, &rc, "ClockSnapshot");
			return NULL;
		}
	}
	if (rv < 0) {
		tc_perfetto_pre_pb_fail(s, &r, "ClockSnapshot");
		return NULL;
	}
	struct tc_arena a;
	tc_arena_init(&a, 4096);
	uint8_t *t = tc_arena_alloc(&a, len ? len : 1);
	size_t n = tc_pb_keep_fields(&a, p, len, snapshot_keep, t);
	Perfetto__Protos__ClockSnapshot *cs = perfetto__protos__clock_snapshot__unpack(NULL, n, t);
	tc_arena_finish(&a);
	if (!cs) {
		tc_pb_init(&r, s->base, p, len);
		tc_pb_fail(&r, p, "a message protobuf-c cannot unpack");
		tc_perfetto_pre_pb_fail(s, &r, "ClockSnapshot");
	}
	return cs;
}

/* A snapshot is cold (one per sequence start or so): protobuf-c unpacks it. */
void tc_perfetto_parse_snapshot(struct pre *s, struct pseq *q, const uint8_t *p, size_t len,
		bool *ok) {
	Perfetto__Protos__ClockSnapshot *cs = perfetto__protos__clock_snapshot__unpack(NULL, len, p);
	if (!cs && !(cs = unpack_again(s, p, len))) {
		*ok = false;
		return;
	}
	if (cs->has_primary_trace_clock && !s->trace_clock_fixed) {
		s->trace_clock = cs->primary_trace_clock;
	}
	s->trace_clock_fixed = true;
	uint32_t ids[64];
	int64_t ts[64];
	size_t n = 0;
	for (size_t i = 0; i < cs->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *ck = cs->clocks[i];
		uint32_t c = clk_get(s, clock_key(q->id, ck->clock_id));
		struct clk *k = &s->clks[c];
		if (ck->unit_multiplier_ns) {
			k->mult = (int64_t)ck->unit_multiplier_ns;
		}
		k->incr = ck->is_incremental;
		int64_t ns = wrap_mul((int64_t)ck->timestamp, k->mult);
		k->last_ns = ns;
		if (n < 64) {
			ids[n] = c;
			ts[n] = ns;
			n++;
		}
	}
	perfetto__protos__clock_snapshot__free_unpacked(cs, NULL);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			pair_add(s, ids[i], ts[i], ids[j], ts[j]);
		}
	}
}

/* Clock-c value v (ns) to the trace clock, the general way. */
bool tc_perfetto_clk_convert(struct pre *s, uint32_t c, int64_t v, int64_t *out) {
	struct clk *k = &s->clks[c];
	if (k->key == s->trace_clock) {
		*out = v;
		return true;
	}
	/* A found path stays valid when edges are added (a shorter one could
	 * appear, but re-searching for every new sequence's clock would cost
	 * sequences squared); an unreachable clock searches again. */
	if (k->path_ver == UINT32_MAX || (!k->reachable && k->path_ver != s->graph_ver)) {
		clk_path(s, c);
		k = &s->clks[c];
	}
	if (!k->reachable) {
		return false;
	}
	for (size_t h = 0; h < k->n_hops; h++) {
		uint32_t hop = k->hops[h];
		const struct pair *pr = &s->pairs[hop / 2];
		int64_t in = v;
		v = hop_convert(pr, hop & 1, v, &k->hint[h]);
		if (k->n_hops == 1) {
			/* One hop (the usual SDK case): the offset holds until the
			 * next snapshot of the source clock; to_trace_ns reuses it
			 * while values stay in range. */
			size_t i = k->hint[0];
			int from = hop & 1;
			k->c_ver = s->snap_ver;
			k->c_lo = i == 0 ? INT64_MIN : pr->v[i][from];
			k->c_hi = i + 1 < pr->n ? pr->v[i + 1][from] : INT64_MAX;
			k->c_off = wrap_sub(v, in);
		}
	}
	*out = v;
	return true;
}

bool tc_perfetto_clk_lookup(struct pre *s, struct pseq *q, uint32_t clock_id, uint64_t ts,
		uint32_t *c, int64_t *out, uint16_t *warn) {
	uint64_t key = clock_key(q->id, clock_id);
	uint32_t *p = tc_u64map_find(&s->clk_by_key, key);
	if (p) {
		*c = *p;
		q->last_clk = *p;
		q->last_clock_key = key;
		return true;
	}
	*c = TC_NONE;
	if (key == s->trace_clock) {
		*out = (int64_t)ts;
		return true;
	}
	if (s->n_pairs == 0 && clock_id < 64) {
		/* No snapshot anywhere yet: a builtin clock is the only timeline
		 * there is. */
		*warn |= PW_NO_SNAPSHOT;
		*out = (int64_t)ts;
		return true;
	}
	return false;
}

