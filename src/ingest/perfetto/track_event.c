/*
 * Perfetto model half: TrackEvent, GPU packets and the per-packet dispatch
 * (apply), kept in one file because they are the hot loop.
 */
#include "ingest/perfetto/perfetto_private.h"

/* ---- ops ---- */

bool tc_perfetto_contains_ci(const char *s, const char *needle) {
	size_t n = strlen(needle);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && (s[i] | 0x20) == (needle[i] | 0x20)) {
			i++;
		}
		if (i == n) {
			return true;
		}
	}
	return false;
}

/* An op's class: Perfetto's own fact is the track (GPU tracks and render
 * stages hold device work); a bare host slice is an annotation. */
static void op_class(const struct tc_model *m, uint32_t name, uint32_t cat, bool device,
		struct tc_class *k) {
	tc_classify(tc_model_str(m, name), tc_intern_len(&m->strings, name),
		cat ? tc_model_str(m, cat) : NULL, cat ? tc_intern_len(&m->strings, cat) : 0,
		device ? TC_PLACE_DEVICE : TC_PLACE_HOST, TC_OP_ANNOTATION, k);
}

/* The op for (name, cat) on a host or device track: classified once. */
uint32_t tc_perfetto_class_op(struct tc_model *m, uint32_t name, uint32_t cat, bool device) {
	struct tc_class k;
	op_class(m, name, cat, device, &k);
	uint32_t ocat = k.category ? tc_model_intern(m, k.category) : cat;
	return tc_model_op(m, name, ocat, k.kind);
}

static uint32_t op_for(struct st *s, uint32_t name, uint32_t cat) {
	uint64_t key = (uint64_t)name << 32 | cat;
	/* A direct-mapped cache in front of the map: few distinct ops, hot. */
	size_t slot = (size_t)((name * 0x9E3779B1u) ^ cat) & (OP_CACHE - 1);
	if (s->opc_key[slot] == key + 1) {
		return s->opc_val[slot];
	}
	uint32_t *p = tc_u64map_find(&s->op_cache, key);
	if (p) {
		s->opc_key[slot] = key + 1;
		s->opc_val[slot] = *p;
		return *p;
	}
	uint32_t op = tc_perfetto_class_op(s->m, name, cat, false);
	tc_u64map_put(&s->op_cache, key, op);
	s->opc_key[slot] = key + 1;
	s->opc_val[slot] = op;
	return op;
}

/* ---- debug annotations ---- */

/* Appends to an annotation's text, cut on a UTF-8 boundary at the string
 * limit. */
static void txt_put(struct st *s, const char *p, size_t n) {
	if (s->txt.len + n > s->lim->max_string) {
		n = tc_utf8_cut((const uint8_t *)p, n,
			s->lim->max_string > s->txt.len ? s->lim->max_string - s->txt.len : 0);
	}
	tc_strbuf_add(&s->txt, p, n);
}

static void txt_fmt(struct st *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* txt_put of printf output: numbers, so a byte cut is a UTF-8 cut. */
static void txt_fmt(struct st *s, const char *fmt, ...) {
	size_t at = s->txt.len;
	va_list ap;
	va_start(ap, fmt);
	tc_strbuf_vaddf(&s->txt, fmt, ap);
	va_end(ap);
	if (s->txt.len > s->lim->max_string) {
		s->txt.len = at < s->lim->max_string ? s->lim->max_string : at;
	}
}

enum anno_val {
	AV_NONE,
	AV_BOOL,
	AV_UINT,
	AV_INT,
	AV_DOUBLE,
	AV_STR,
	AV_NESTED,
};

struct anno {
	bool has_name;
	uint32_t name;
	int type;
	uint64_t u;
	uint32_t str;
	bool nested_dict;
	bool nested_array;
	const uint8_t *p;
	size_t len;
};

static bool anno_text(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		uint32_t depth, bool with_name);

/* Decode one DebugAnnotation's scalar parts; nested parts stay as bytes. */
static bool anno_parse(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		struct anno *a) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	*a = (struct anno){ .p = p, .len = len };
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		switch (f.num) {
		case DA_NAME_IID:
			if (f.wt == TC_PB_VARINT) {
				a->has_name = itab_get(&q->it[IT_DBGNAME], f.u, &a->name);
				if (!a->has_name) {
					tc_model_warn(s->m, 1, "perfetto: debug annotation names "
						"with an unknown iid were dropped");
				}
			}
			break;
		case DA_NAME:
			if (f.wt == TC_PB_LEN) {
				a->has_name = true;
				a->name = str_id(s, f.data, f.len);
			}
			break;
		case DA_BOOL_VALUE: a->type = AV_BOOL; a->u = f.u; break;
		case DA_UINT_VALUE: a->type = AV_UINT; a->u = f.u; break;
		case DA_INT_VALUE: a->type = AV_INT; a->u = f.u; break;
		case DA_DOUBLE_VALUE: a->type = AV_DOUBLE; a->u = f.u; break;
		case DA_STRING_VALUE: case DA_LEGACY_JSON_VALUE:
			if (f.wt == TC_PB_LEN) {
				a->type = AV_STR;
				a->str = str_id(s, f.data, f.len);
			}
			break;
		case DA_STRING_VALUE_IID:
			if (f.wt == TC_PB_VARINT) {
				uint32_t sid;
				if (itab_get(&q->it[IT_DBGSTR], f.u, &sid)) {
					a->type = AV_STR;
					a->str = sid;
				}
			}
			break;
		case DA_POINTER_VALUE: {
			char buf[32];
			snprintf(buf, sizeof(buf), "0x%" PRIx64, f.u);
			a->type = AV_STR;
			a->str = tc_model_intern(s->m, buf);
			break;
		}
		case DA_DICT_ENTRIES:
			a->type = AV_NESTED;
			a->nested_dict = true;
			break;
		case DA_ARRAY_VALUES:
			a->type = AV_NESTED;
			a->nested_array = true;
			break;
		case DA_NESTED_VALUE: case DA_PROTO_VALUE:
			if (a->type == AV_NONE) {
				a->type = AV_NESTED;
			}
			break;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "DebugAnnotation");
	}
	return true;
}

static void anno_scalar_text(struct st *s, const struct anno *a) {
	switch (a->type) {
	case AV_BOOL: txt_put(s, a->u ? "true" : "false", a->u ? 4 : 5); break;
	case AV_UINT: txt_fmt(s, "%" PRIu64, a->u); break;
	case AV_INT: txt_fmt(s, "%" PRId64, (int64_t)a->u); break;
	case AV_DOUBLE: txt_fmt(s, "%.17g", tc_pb_double(a->u)); break;
	case AV_STR:
		txt_put(s, "\"", 1);
		txt_put(s, tc_model_str(s->m, a->str), tc_intern_len(&s->m->strings, a->str));
		txt_put(s, "\"", 1);
		break;
	default: txt_put(s, "null", 4); break;
	}
}

/* Compact text of a nested annotation: {k:v,...} or [v,...]. */
static bool anno_text(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		uint32_t depth, bool with_name) {
	if (depth > s->lim->max_depth) {
		tc_error_set(s->err, TC_EXIT_LIMIT, "perfetto: debug annotation nested "
			"deeper than %u levels (raise it with --max-depth)", s->lim->max_depth);
		return tc_error_at(s->err, (int64_t)s->pkt_off);
	}
	struct anno a;
	if (!anno_parse(s, q, p, len, &a)) {
		return false;
	}
	if (with_name) {
		const char *n = a.has_name ? tc_model_str(s->m, a.name) : "";
		txt_put(s, n, strlen(n));
		txt_put(s, ":", 1);
	}
	if (a.type != AV_NESTED) {
		anno_scalar_text(s, &a);
		return true;
	}
	bool dict = a.nested_dict;
	txt_put(s, dict ? "{" : "[", 1);
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	bool first = true;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if ((f.num == DA_DICT_ENTRIES || f.num == DA_ARRAY_VALUES) && f.wt == TC_PB_LEN) {
			if (!first) {
				txt_put(s, ",", 1);
			}
			first = false;
			if (!anno_text(s, q, f.data, f.len, depth + 1, f.num == DA_DICT_ENTRIES)) {
				return false;
			}
		}
	}
	txt_put(s, dict ? "}" : "]", 1);
	return true;
}

/* Add the event's annotations to the current arg list. */
static bool add_annos(struct st *s, struct seq *q) {
	for (size_t i = 0; i < s->n_annos; i++) {
		struct anno a;
		if (!anno_parse(s, q, s->annos[i], s->anno_len[i], &a)) {
			return false;
		}
		if (!a.has_name) {
			continue;
		}
		switch (a.type) {
		case AV_BOOL: tc_model_arg_bool(s->m, a.name, a.u != 0); break;
		case AV_UINT: tc_model_arg_uint(s->m, a.name, a.u); break;
		case AV_INT: tc_model_arg_int(s->m, a.name, (int64_t)a.u); break;
		case AV_DOUBLE: tc_model_arg_double(s->m, a.name, tc_pb_double(a.u)); break;
		case AV_STR: tc_model_arg_str(s->m, a.name, a.str); break;
		case AV_NESTED:
			tc_strbuf_reset(&s->txt);
			if (!anno_text(s, q, a.p, a.len, 1, false)) {
				return false;
			}
			tc_model_arg_str(s->m, a.name, tc_model_intern_n(s->m, s->txt.s, s->txt.len));
			break;
		default:
			break;
		}
	}
	return true;
}

/*
 * An END's annotations belong to its slice (trace_processor merges them).
 * Arg lists cannot grow in place, so the BEGIN's list is copied into a new
 * one followed by the END's; rare enough that the copy does not matter.
 */
static void copy_args(struct tc_model *m, uint32_t first) {
	for (uint32_t p = first; p != TC_NONE;) {
		struct tc_arg a; /* decoded by value: adding may move the bytes */
		p = tc_model_arg_next(m, p, &a);
		tc_model_arg_add(m, &a);
	}
}

static bool merge_end_args(struct st *s, struct seq *q, uint32_t ev) {
	struct tc_model *m = s->m;
	uint32_t a0 = tc_model_args_begin(m);
	copy_args(m, tc_model_event_args(m, ev));
	if (!add_annos(s, q)) {
		return false;
	}
	tc_model_set_event_args(m, ev, tc_model_args_end(m, a0));
	return true;
}

/* ---- counters and flows ---- */

static void add_sample(struct st *s, struct seq *q, uint32_t k, int64_t ps, double v) {
	struct trk *t = &s->trks[k];
	if (t->flags & TRK_INCR) {
		uint64_t key = (uint64_t)(q - s->seqs) << 32 | k;
		uint32_t *p = tc_u64map_find(&s->accum_by_key, key);
		struct accum *a;
		if (!p) {
			TC_GROW(s->accums, s->cap_accums, s->n_accums + 1);
			s->accums[s->n_accums] = (struct accum){ .gen = q->gen };
			tc_u64map_put(&s->accum_by_key, key, (uint32_t)s->n_accums);
			a = &s->accums[s->n_accums++];
		} else {
			a = &s->accums[*p];
		}
		if (a->gen != q->gen) {
			a->gen = q->gen;
			a->v = 0;
		}
		a->v += v;
		v = a->v;
	}
	tc_model_add_sample(s->m, k, ps, v * (double)t->mult);
}

/* Extra counter values (int64 or double bits) paired with track uuids by
 * position; the event's uuids replace the sequence defaults. */
static void extra_samples(struct st *s, struct seq *q, int64_t ps, const struct u64vec *uuids,
		const struct u64vec *vals, bool dbl) {
	for (size_t i = 0; i < vals->n; i++) {
		if (i >= uuids->n) {
			tc_model_warn(s->m, 1, "perfetto: extra counter values without a track "
				"were dropped");
			return;
		}
		double v = dbl ? tc_pb_double(vals->v[i]) : (double)(int64_t)vals->v[i];
		add_sample(s, q, trk_cached(s, uuids->v[i]), ps, v);
	}
}

static void bind_flows(struct st *s, uint32_t ev) {
	for (int pass = 0; pass < 2; pass++) {
		const struct u64vec *ids = pass ? &s->tflows : &s->flows;
		for (size_t i = 0; i < ids->n; i++) {
			uint64_t id = ids->v[i];
			uint32_t *p = tc_u64map_find(&s->flow_last, id);
			if (p && *p != TC_NONE && *p != ev) {
				tc_model_add_flow(s->m, *p, ev, TC_FLOW_GENERIC, id);
			}
			if (pass) {
				if (p) {
					*p = TC_NONE;
				}
			} else {
				tc_u64map_put(&s->flow_last, id, ev);
			}
		}
	}
}

/* ---- slices on tracks that several sequences write ---- */

/*
 * Slices pair with a per-track stack in file order, which is time order for
 * a track one sequence writes. A track that a second sequence writes, or
 * that sees an END with nothing open, may arrive out of order (the service
 * writes chunks of different writers in any order): from then on its begins
 * and ends are kept and paired after sorting by time, like trace_processor's
 * sort. Its open slices move over.
 */
static void defer_push(struct st *s, uint32_t k, int64_t ts, uint32_t ev) {
	TC_GROW(s->defer, s->cap_defer, s->n_defer + 1);
	s->defer[s->n_defer] = (struct dslice){
		.ts = ts, .trk = k, .ev = ev, .order = s->n_defer, .args = TC_NONE,
	};
	s->n_defer++;
}

static void defer_track(struct st *s, uint32_t k) {
	struct trk *t = &s->trks[k];
	t->flags |= TRK_DEFER;
	for (size_t i = 0; i < t->depth; i++) {
		defer_push(s, k, s->m->ev.start[t->stack[i]], t->stack[i]);
	}
	t->depth = 0;
}

/* Called for every slice begin/end: is k to be deferred? Thread tracks
 * (the bulk) never are. */
static inline bool deferred(struct st *s, struct seq *q, uint32_t k, bool is_end) {
	struct trk *t = &s->trks[k];
	if (t->flags & TRK_DEFER) {
		return true;
	}
	if (t->flags & TRK_THREAD) {
		return false;
	}
	uint32_t qi = (uint32_t)(q - s->seqs);
	if (t->seq == TC_NONE) {
		t->seq = qi;
	}
	if (t->seq != qi || (is_end && t->depth == 0)) {
		defer_track(s, k);
		return true;
	}
	return false;
}

static int cmp_dslice(const void *a, const void *b) {
	const struct dslice *x = a, *y = b;
	if (x->trk != y->trk) {
		return x->trk < y->trk ? -1 : 1;
	}
	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Pair deferred begins and ends; leftovers go back on the track stacks so
 * they end as unfinished slices. */
void tc_perfetto_pair_deferred(struct st *s) {
	struct tc_model *m = s->m;
	if (!s->n_defer) {
		return;
	}
	tc_sort(s->defer, s->n_defer, sizeof(*s->defer), cmp_dslice);
	uint64_t unmatched = 0;
	for (size_t i = 0; i < s->n_defer; i++) {
		const struct dslice *d = &s->defer[i];
		struct trk *t = &s->trks[d->trk];
		if (d->ev != TC_NONE) {
			TC_GROW(t->stack, t->cap, t->depth + 1);
			t->stack[t->depth++] = d->ev;
		} else if (t->depth == 0) {
			unmatched++;
		} else {
			uint32_t ev = t->stack[--t->depth];
			m->ev.dur[ev] = d->ts - m->ev.start[ev];
			if (d->args != TC_NONE) {
				uint32_t a0 = tc_model_args_begin(m);
				copy_args(m, tc_model_event_args(m, ev));
				copy_args(m, d->args);
				tc_model_set_event_args(m, ev, tc_model_args_end(m, a0));
			}
		}
	}
	if (unmatched) {
		tc_model_warn(m, unmatched, "perfetto: slice ends without a matching begin "
			"were dropped");
	}
}

/* ---- TrackEvent ---- */

/* Add an event and keep the earliest start as stored (the model clamps),
 * so build_model needs no pass of its own to find the origin. */
static uint32_t add_event(struct st *s, uint32_t k, uint32_t op, int64_t ps, int64_t dur,
		uint8_t flags) {
	uint32_t ev = tc_model_add_event(s->m, k, op, ps, dur, flags);
	int64_t v = s->m->ev.start[ev];
	if (!s->any_ev || v < s->first_ps) {
		s->first_ps = v;
		s->any_ev = true;
	}
	return ev;
}

/* A TrackEvent's fields. Only the head, up to name, is cleared for each
 * event (a few stores, where clearing it all took a dozen a packet); the
 * rest is read only under its flag. */
struct tev {
	uint32_t type;
	bool has_name, name_inline, has_cat_iid, cat_inline, has_track, has_cv, cv_double,
		has_corr, has_abs_us, has_delta_us, has_legacy;
	uint64_t name_iid;      /* 0 when absent: legacy async tracks use it */
	uint32_t name, cat;
	uint64_t cat_iid, track, cv, corr;
	int64_t abs_us, delta_us;
	const uint8_t *legacy;
	size_t legacy_len;
};

static bool legacy_event(struct st *s, struct tev *e, uint64_t *dur_us, int *phase,
		uint64_t *id, bool *has_id) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, s->base, e->legacy, e->legacy_len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.wt != TC_PB_VARINT) {
			continue;
		}
		switch (f.num) {
		case LE_NAME_IID:
			e->has_name = true;
			e->name_iid = f.u;
			e->name_inline = false;
			break;
		case LE_PHASE: *phase = (int)f.u; break;
		case LE_DURATION_US: *dur_us = f.u; break;
		case LE_UNSCOPED_ID: case LE_LOCAL_ID: case LE_GLOBAL_ID: *id = f.u; *has_id = true; break;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "LegacyEvent");
	}
	return true;
}

/* A TrackEvent's fields into *e, and its lists into s (extra counters,
 * flows, annotations). The hot loop's field walk: inlined. */
static inline __attribute__((always_inline)) bool track_event_fields(struct st *s,
		const uint8_t *p, size_t len, struct tev *e) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	memset(e, 0, offsetof(struct tev, name));
	s->x_uuids.n = s->x_vals.n = s->xd_uuids.n = s->xd_vals.n = 0;
	s->flows.n = s->tflows.n = 0;
	s->n_annos = 0;
	bool bad_flow = false;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = next_field(&r, &f)) > 0) {
		switch (f.num) {
		case TE_TYPE: e->type = (uint32_t)f.u; break;
		case TE_NAME_IID:
			e->has_name = true;
			e->name_iid = f.u;
			break;
		case TE_NAME:
			if (f.wt == TC_PB_LEN) {
				e->has_name = e->name_inline = true;
				e->name = str_id(s, f.data, f.len);
			}
			break;
		case TE_CATEGORY_IIDS:
			/* The model keeps one category: the first. */
			if (!e->has_cat_iid && !e->cat_inline) {
				if (f.wt == TC_PB_VARINT) {
					e->has_cat_iid = true;
					e->cat_iid = f.u;
				} else if (f.wt == TC_PB_LEN) {
					const uint8_t *cp = f.data;
					e->has_cat_iid = tc_pb_varint(&cp, f.data + f.len,
						&e->cat_iid);
				}
			}
			break;
		case TE_CATEGORIES:
			if (f.wt == TC_PB_LEN && !e->cat_inline) {
				e->cat_inline = true;
				e->has_cat_iid = false;
				e->cat = str_id(s, f.data, f.len);
			}
			break;
		case TE_TRACK_UUID:
			e->has_track = true;
			e->track = f.u;
			break;
		case TE_COUNTER_VALUE:
			e->has_cv = true;
			e->cv = f.u;
			e->cv_double = false;
			break;
		case TE_DOUBLE_COUNTER_VALUE:
			e->has_cv = true;
			e->cv = f.u;
			e->cv_double = true;
			break;
		case TE_EXTRA_COUNTER_UUIDS: tc_perfetto_parse_u64_list(&f, &s->x_uuids, false); break;
		case TE_EXTRA_COUNTER_VALUES: tc_perfetto_parse_u64_list(&f, &s->x_vals, false); break;
		case TE_EXTRA_DOUBLE_COUNTER_UUIDS: tc_perfetto_parse_u64_list(&f, &s->xd_uuids, false); break;
		case TE_EXTRA_DOUBLE_COUNTER_VALUES: tc_perfetto_parse_u64_list(&f, &s->xd_vals, true); break;
		case TE_FLOW_IDS:
		case TE_TERMINATING_FLOW_IDS:
			if (f.wt == TC_PB_VARINT) {
				bad_flow = true;
			} else {
				tc_perfetto_parse_u64_list(&f, f.num == TE_FLOW_IDS ? &s->flows : &s->tflows, true);
			}
			break;
		case TE_FLOW_IDS_OLD: tc_perfetto_parse_u64_list(&f, &s->flows, false); break;
		case TE_TERMINATING_FLOW_IDS_OLD: tc_perfetto_parse_u64_list(&f, &s->tflows, false); break;
		case TE_DEBUG_ANNOTATIONS:
			if (f.wt == TC_PB_LEN) {
				if (s->n_annos == s->cap_annos) {
					size_t c = s->cap_annos;
					TC_GROW(s->annos, c, s->n_annos + 1);
					TC_GROW(s->anno_len, s->cap_anno_len, s->n_annos + 1);
					s->cap_annos = c;
				}
				s->annos[s->n_annos] = f.data;
				s->anno_len[s->n_annos++] = f.len;
			}
			break;
		case TE_CORRELATION_ID:
			e->has_corr = true;
			e->corr = f.u;
			break;
		case TE_TIMESTAMP_ABSOLUTE_US:
			e->has_abs_us = true;
			e->abs_us = (int64_t)f.u;
			break;
		case TE_TIMESTAMP_DELTA_US:
			e->has_delta_us = true;
			e->delta_us = (int64_t)f.u;
			break;
		case TE_LEGACY_EVENT:
			if (f.wt == TC_PB_LEN) {
				e->has_legacy = true;
				e->legacy = f.data;
				e->legacy_len = f.len;
			}
			break;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "TrackEvent");
	}
	if (bad_flow) {
		tc_model_warn(s->m, 1, "perfetto: flow ids with a varint wire type were ignored");
	}
	return true;
}

/* Legacy timestamps (old Chrome): microseconds on the trace clock. False
 * when the event has no usable time. */
static bool legacy_time(struct st *s, struct seq *q, const struct tev *e, int64_t *ps) {
	if (e->has_abs_us) {
		q->legacy_ts_us = e->abs_us;
	} else {
		q->legacy_ts_us = wrap_add(q->legacy_ts_us, e->delta_us);
	}
	return ns_to_ps(s, wrap_mul(q->legacy_ts_us, 1000), ps);
}

/* The track record an event goes to. */
static inline uint32_t event_track(struct st *s, const struct seq *q, const struct tev *e) {
	uint64_t uuid = e->has_track ? e->track : (q->has_def_track ? q->def_track : 0);
	if (uuid) {
		return trk_cached(s, uuid);
	}
	if (q->legacy_trk != TC_NONE) {
		return q->legacy_trk;
	}
	return trk_get(s, 0);
}

/* The TrackEvent type of a legacy phase; async phases move *k to the
 * async id's own track. */
static uint32_t legacy_type(struct st *s, struct seq *q, const struct tev *e, int phase,
		bool has_id, uint64_t async_id, uint32_t *k) {
	switch (phase) {
	case 'B': return 1;
	case 'E': return 2;
	case 'X': return 1;
	case 'i': case 'I': case 'R': case 'n': return 3;
	case 'b': case 'e': case 'S': case 'F':
		if (has_id) {
			*k = trk_get(s, pseudo_uuid(2, async_id, e->name_iid));
			struct trk *at = &s->trks[*k];
			at->flags |= TRK_SYNTH;
			at->src = (int64_t)async_id;
			if (!at->name && itab_get(&q->it[IT_NAME], e->name_iid, &at->name)) {
				/* async tracks are named after their first event */
			}
			return phase == 'b' || phase == 'S' ? 1 : 2;
		}
		return 0;
	}
	return 0;
}

/* A slice end: closes the track's open slice (or queues the end on a
 * deferred track). */
static bool slice_end(struct st *s, struct seq *q, uint32_t k, int64_t ps) {
	struct trk *t = &s->trks[k];
	if (deferred(s, q, k, true)) {
		defer_push(s, k, ps, TC_NONE);
		if (s->n_annos) {
			uint32_t a0 = tc_model_args_begin(s->m);
			if (!add_annos(s, q)) {
				return false;
			}
			s->defer[s->n_defer - 1].args = tc_model_args_end(s->m, a0);
		}
		if (s->flows.n || s->tflows.n) {
			tc_model_warn(s->m, 1, "perfetto: flows on slice ends of tracks "
				"written out of order were dropped");
		}
		return true;
	}
	if (t->depth == 0) {
		tc_model_warn(s->m, 1, "perfetto: slice ends without a matching begin "
			"were dropped");
		return true;
	}
	uint32_t ev = t->stack[--t->depth];
	if (s->n_annos && !merge_end_args(s, q, ev)) {
		return false;
	}
	s->m->ev.dur[ev] = ps - s->m->ev.start[ev];
	if (s->m->ev.dur[ev] < 0) {
		s->m->ev.dur[ev] = 0;
		s->m->ev.flags[ev] |= TC_EV_CLAMPED;
		s->m->n_negative_dur++;
	}
	if (s->flows.n || s->tflows.n) {
		bind_flows(s, ev);
	}
	return true;
}

/* The event's name and category ids; an unnamed bare track takes the
 * name. */
static inline void event_name(struct st *s, struct seq *q, const struct tev *e,
		struct trk *t, uint32_t *name_out, uint32_t *cat_out) {
	uint32_t name = 0, cat = 0;
	if (e->has_name && !e->name_inline) {
		if (!itab_get(&q->it[IT_NAME], e->name_iid, &name)) {
			tc_model_warn(s->m, 1, "perfetto: event names with an unknown iid were "
				"shown as \"<unknown>\"");
			name = tc_model_intern(s->m, "<unknown>");
		}
	} else if (e->name_inline) {
		name = e->name;
	}
	if (e->cat_inline) {
		cat = e->cat;
	} else if (e->has_cat_iid) {
		itab_get(&q->it[IT_CAT], e->cat_iid, &cat);
	}
	/* Unnamed tracks with no thread/process (legacy async ids, bare
	 * descriptors) take their first event's name, as trace_processor does. */
	if (!t->name && t->uuid != 0 &&
			!(t->flags & (TRK_THREAD | TRK_PROCESS | TRK_COUNTER))) {
		t->name = name;
	}
	*name_out = name;
	*cat_out = cat;
}

/* Event ev's args: annotations, correlation id, step number. */
static bool event_args(struct st *s, struct seq *q, const struct tev *e, uint32_t ev,
		uint32_t op, uint32_t name, uint32_t cat) {
	bool step = s->m->ops[op].kind == TC_OP_STEP;
	if (!s->n_annos && !step && !e->has_corr) {
		return true;
	}
	uint32_t a0 = tc_model_args_begin(s->m);
	if (!add_annos(s, q)) {
		return false;
	}
	if (e->has_corr) {
		tc_model_arg_uint(s->m, s->m->key.correlation, e->corr);
	}
	if (step) {
		/* The number is in the name: parse it once per op. */
		uint32_t *sp = tc_u64map_find(&s->step_of_op, op);
		if (!sp) {
			struct tc_class c;
			op_class(s->m, name, cat, false, &c);
			sp = tc_u64map_put(&s->step_of_op, op, (uint32_t)(c.step < 0 ? 0 : c.step));
		}
		tc_model_arg_int(s->m, s->m->key.step, *sp);
	}
	tc_model_set_event_args(s->m, ev, tc_model_args_end(s->m, a0));
	return true;
}

static bool track_event(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		bool has_ts, int64_t ps) {
	struct tev e;
	if (!track_event_fields(s, p, len, &e)) {
		return false;
	}
	if (!has_ts && (e.has_abs_us || e.has_delta_us)) {
		if (!legacy_time(s, q, &e, &ps)) {
			return true;
		}
		has_ts = true;
	}
	if (!has_ts) {
		tc_model_warn(s->m, 1, "perfetto: track events without a timestamp were dropped");
		return true;
	}
	uint32_t k = event_track(s, q, &e);

	/* Legacy events map onto the phases tracectl knows. */
	uint64_t dur_us = 0, async_id = 0;
	int phase = 0;
	bool has_id = false;
	if (e.has_legacy && !legacy_event(s, &e, &dur_us, &phase, &async_id, &has_id)) {
		return false;
	}

	/* Extra counter values ride on any event type. */
	if (s->x_vals.n) {
		extra_samples(s, q, ps, s->x_uuids.n ? &s->x_uuids : &q->def_extra,
			&s->x_vals, false);
	}
	if (s->xd_vals.n) {
		extra_samples(s, q, ps, s->xd_uuids.n ? &s->xd_uuids : &q->def_extra_d,
			&s->xd_vals, true);
	}

	uint32_t type = e.type;
	if (type == 0 && e.has_legacy) {
		type = legacy_type(s, q, &e, phase, has_id, async_id, &k);
	}
	if (type == 4) {
		if (!e.has_cv) {
			tc_model_warn(s->m, 1, "perfetto: counter events without a value "
				"were dropped");
			return true;
		}
		double v = e.cv_double ? tc_pb_double(e.cv) : (double)(int64_t)e.cv;
		add_sample(s, q, k, ps, v);
		return true;
	}
	if (type < 1 || type > 3) {
		tc_model_warn(s->m, 1, "perfetto: track events of an unsupported type "
			"were skipped");
		return true;
	}
	if (type == 2) {
		return slice_end(s, q, k, ps);
	}

	uint32_t name, cat;
	event_name(s, q, &e, &s->trks[k], &name, &cat);
	uint32_t op = op_for(s, name, cat);
	uint8_t flags = type == 3 ? TC_EV_INSTANT : 0;
	int64_t dur = 0;
	if (phase == 'X') {
		/* Past the model's bound the model sets 0 and warns, as it does
		 * for every format; this keeps the product from overflowing. */
		dur = dur_us <= (uint64_t)TC_MAX_DUR_PS / 1000000 ?
			(int64_t)dur_us * 1000000 : TC_MAX_DUR_PS + 1;
	}
	uint32_t ev = add_event(s, k, op, ps, dur, flags);
	s->trks[k].nev++;
	if (!event_args(s, q, &e, ev, op, name, cat)) {
		return false;
	}
	if (type == 1 && phase != 'X') {
		if (deferred(s, q, k, false)) {
			defer_push(s, k, ps, ev);
		} else {
			struct trk *t = &s->trks[k];
			TC_GROW(t->stack, t->cap, t->depth + 1);
			t->stack[t->depth++] = ev;
		}
	}
	if (phase == 'X') {
		/* As stored: both within the model's bounds, so no overflow. */
		int64_t end = s->m->ev.start[ev] + s->m->ev.dur[ev];
		if (end > s->last_ps) {
			s->last_ps = end;
		}
	}
	if (s->flows.n || s->tflows.n) {
		bind_flows(s, ev);
	}
	return true;
}

/* ---- GPU packets ---- */

static bool gpu_render_stage(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		int64_t ps) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	uint64_t dur = 0, hw_iid = 0, stage_iid = 0, kernel_iid = 0;
	int64_t hw_id = -1, gpu_id = 0;
	uint32_t name = 0;
	bool has_name = false;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		switch (f.num) {
		case RS_DURATION: dur = f.u; break;
		case RS_HW_QUEUE_IID: hw_iid = f.u; break;
		case RS_STAGE_IID: stage_iid = f.u; break;
		case RS_KERNEL_IID: kernel_iid = f.u; break;
		case RS_GPU_ID: gpu_id = (int32_t)f.u; break;
		case RS_HW_QUEUE_ID: hw_id = (int32_t)f.u; break;
		case RS_NAME:
			if (f.wt == TC_PB_LEN) {
				name = str_id(s, f.data, f.len);
				has_name = true;
			}
			break;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "GpuRenderStageEvent");
	}
	uint32_t sid;
	if (!has_name && kernel_iid && itab_get(&q->it[IT_KERNEL], kernel_iid, &sid)) {
		name = sid;
		has_name = true;
	}
	if (!has_name && stage_iid && itab_get(&q->it[IT_GPUSPEC], stage_iid, &sid)) {
		name = sid;
		has_name = true;
	}
	if (!has_name) {
		name = tc_model_intern(s->m, "render stage");
	}
	uint32_t qname = 0;
	if (hw_iid && itab_get(&q->it[IT_GPUSPEC], hw_iid, &sid)) {
		qname = sid;
	} else {
		char buf[48];
		snprintf(buf, sizeof(buf), "queue %" PRId64, hw_iid ? (int64_t)hw_iid : hw_id);
		qname = tc_model_intern(s->m, buf);
	}
	uint32_t k = trk_get(s, pseudo_uuid(3, (uint64_t)gpu_id, qname));
	struct trk *t = &s->trks[k];
	t->flags |= TRK_GPU;
	t->gpu_id = (int32_t)gpu_id;
	t->name = qname;
	t->src = hw_iid ? (int64_t)hw_iid : hw_id;
	t->nev++;
	uint32_t op = tc_perfetto_class_op(s->m, name, 0, true);
	uint64_t maxd = (uint64_t)INT64_MAX / 2000;
	add_event(s, k, op, ps, (int64_t)(dur < maxd ? dur : maxd) * 1000,
		dur ? 0 : TC_EV_INSTANT);
	if (dur < maxd && ps + (int64_t)dur * 1000 > s->last_ps) {
		s->last_ps = ps + (int64_t)dur * 1000;
	}
	return true;
}

static bool gpu_counter_specs(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num != GCD_SPECS || f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t id = 0;
		uint32_t name = 0;
		tc_pb_init(&e, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&e, &g)) > 0) {
			if (g.num == GCS_COUNTER_ID && g.wt == TC_PB_VARINT) {
				id = g.u;
			} else if (g.num == GCS_NAME && g.wt == TC_PB_LEN) {
				name = str_id(s, g.data, g.len);
			}
		}
		if (rv2 < 0) {
			return tc_perfetto_pb_fail(s, &e, "GpuCounterSpec");
		}
		tc_u64map_put(&q->gpu_ctr, id, name);
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "GpuCounterDescriptor");
	}
	return true;
}

static bool gpu_counter(struct st *s, struct seq *q, const uint8_t *p, size_t len,
		int64_t ps) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	int64_t gpu_id = 0;
	/* gpu_id may follow the counters: find it first. */
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == GC_GPU_ID && f.wt == TC_PB_VARINT) {
			gpu_id = (int32_t)f.u;
		} else if (f.num == GC_COUNTER_DESCRIPTOR && f.wt == TC_PB_LEN &&
				!gpu_counter_specs(s, q, f.data, f.len)) {
			return false;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "GpuCounterEvent");
	}
	tc_pb_init(&r, s->base, p, len);
	while (tc_pb_next(&r, &f) > 0) {
		if (f.num != GC_COUNTERS || f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t id = 0, v = 0;
		bool dbl = false, has_v = false;
		tc_pb_init(&e, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&e, &g)) > 0) {
			if (g.num == GCV_COUNTER_ID) {
				id = g.u;
			} else if (g.num == GCV_INT_VALUE) {
				v = g.u;
				has_v = true;
			} else if (g.num == GCV_DOUBLE_VALUE) {
				v = g.u;
				dbl = has_v = true;
			}
		}
		if (rv2 < 0) {
			return tc_perfetto_pb_fail(s, &e, "GpuCounter");
		}
		if (!has_v) {
			continue;
		}
		uint32_t *np = tc_u64map_find(&q->gpu_ctr, id);
		uint32_t name;
		if (np) {
			name = *np;
		} else {
			char buf[48];
			snprintf(buf, sizeof(buf), "gpu counter %" PRIu64, id);
			name = tc_model_intern(s->m, buf);
		}
		uint32_t k = trk_get(s, pseudo_uuid(4, (uint64_t)gpu_id, id));
		struct trk *t = &s->trks[k];
		t->flags |= TRK_GPU | TRK_COUNTER;
		t->gpu_id = (int32_t)gpu_id;
		t->name = name;
		add_sample(s, q, k, ps, dbl ? tc_pb_double(v) : (double)(int64_t)v);
	}
	return true;
}

/* The model half of one packet (or a bundle's bound), in file order. */
bool tc_perfetto_apply(struct st *s, const struct prec *r) {
	switch (r->kind) {
	case PR_BUNDLE_BEGIN:
		if (s->bundle_depth++ == 0) {
			s->pkt_off = prec_off(s->base, r);
		}
		return true;
	case PR_BUNDLE_END:
		s->bundle_depth--;
		free((void *)r->p);
		return true;
	}
	if (s->bundle_depth == 0) {
		s->pkt_off = prec_off(s->base, r);
		release(s, s->pkt_off);
	}
	const uint8_t *data = r->p;
	size_t data_len = r->len;
	uint32_t kind = r->kind;
	struct pkt k;
	bool full = r->flags & PF_FULL;
	if (full) {
		/* The packet half decoded it whole: this cannot fail. */
		struct tc_pb pb;
		packet_fields(&pb, s->base, data, data_len, &k);
		data = k.data;
		data_len = k.data_len;
		kind = k.kind;
	}
	struct seq *q = seq_get(s, r->seq_id);
	if (r->flags & PF_RESET) {
		seq_reset(q);
	}
	if (r->warn & PW_DROPPED) {
		tc_model_warn(s->m, 1, "perfetto: the writer reported lost packets "
			"(previous_packet_dropped); the timeline has gaps");
	}
	if (r->warn & PW_NEEDS_STATE) {
		tc_model_warn(s->m, 1, "perfetto: packets that need incremental state "
			"the trace lost were skipped");
		return true;
	}
	if (full && k.defaults && !tc_perfetto_parse_defaults(s, q, k.defaults, k.defaults_len)) {
		return false;
	}
	if (full && k.interned && !tc_perfetto_parse_interned(s, q, k.interned, k.interned_len)) {
		return false;
	}
	if ((r->flags & PF_STOP) || kind == PKT_CLOCK_SNAPSHOT) {
		return true;
	}
	if (r->warn & PW_NO_SNAPSHOT) {
		tc_model_warn(s->m, 1, "perfetto: no clock snapshot; "
			"builtin clocks were taken as the trace clock");
	}
	if (r->warn & PW_NO_PATH) {
		tc_model_warn(s->m, 1, "perfetto: packets whose clock has no path to the "
			"trace clock were dropped");
		return true;
	}
	int64_t ps = 0;
	bool ts_ok = false;
	if (r->flags & PF_TS) {
		if (!ns_to_ps(s, r->ns, &ps)) {
			return true;
		}
		ts_ok = true;
	}
	switch (kind) {
	case PKT_TRACK_EVENT:
		return track_event(s, q, data, data_len, ts_ok, ps);
	case PKT_TRACK_DESCRIPTOR:
		return tc_perfetto_parse_track_desc(s, data, data_len);
	case PKT_PROCESS_DESCRIPTOR: {
		struct trk tmp = { 0 };
		uint32_t pname = 0;
		if (!tc_perfetto_parse_process(s, &tmp, data, data_len, &pname)) {
			return false;
		}
		tc_perfetto_proc_set(s, tmp.pid, pname);
		return true;
	}
	case PKT_THREAD_DESCRIPTOR: {
		struct trk tmp = { 0 };
		uint32_t tname = 0;
		int64_t ref = 0;
		if (!tc_perfetto_parse_thread(s, &tmp, data, data_len, &tname, &ref)) {
			return false;
		}
		uint32_t tk = trk_get(s, pseudo_uuid(1, (uint64_t)tmp.pid, (uint64_t)tmp.tid));
		struct trk *t = &s->trks[tk];
		t->flags |= TRK_THREAD | TRK_DESC;
		t->pid = tmp.pid;
		t->tid = tmp.tid;
		if (tname) {
			t->name = tname;
		}
		q->legacy_trk = tk;
		q->legacy_ts_us = ref;
		tc_perfetto_proc_set(s, tmp.pid, 0);
		return true;
	}
	case PKT_GPU_COUNTER_EVENT:
		if (ts_ok) {
			return gpu_counter(s, q, data, data_len, ps);
		}
		return true;
	case PKT_GPU_RENDER_STAGE_EVENT:
		if (ts_ok) {
			return gpu_render_stage(s, q, data, data_len, ps);
		}
		return true;
	}
	return true;
}
