/*
 * XPlane lines and events, and the pipeline that decodes a big plane's
 * lines on a second thread: the hot loop, kept in one file.
 */
#include "ingest/xplane/xplane_private.h"

/* A decoded value back as an xstat (its string already interned). */
static struct xstat xstat_of(uint32_t k, const struct sval *v) {
	struct xstat x = { .k = k, .tl = (uint32_t)v->type << 28 };
	switch (v->type) {
	case SV_INT:
		x.v = (uint64_t)v->v.i;
		break;
	case SV_UINT:
		x.v = v->v.u;
		break;
	case SV_DOUBLE:
		memcpy(&x.v, &v->v.d, sizeof(x.v));
		break;
	case SV_STR:
		x.v = v->v.s;
		break;
	case SV_BYTES:
		x.v = v->raw_len; /* all an arg keeps of it */
		break;
	default:
		break;
	}
	return x;
}

void tc_xplane_add_arg(struct reader *r, uint32_t key, const struct sval *v) {
	switch (v->type) {
	case SV_INT:
		tc_model_arg_int(r->m, key, v->v.i);
		break;
	case SV_UINT:
		tc_model_arg_uint(r->m, key, v->v.u);
		break;
	case SV_DOUBLE:
		tc_model_arg_double(r->m, key, v->v.d);
		break;
	case SV_STR:
		tc_model_arg_str(r->m, key, v->v.s);
		break;
	case SV_BYTES:
		/* Serialized protos: their size is all a summary can use. */
		tc_model_arg_uint(r->m, key, v->raw_len);
		break;
	default:
		break;
	}
}

/* ---- events ---- */

struct line_ctx {
	uint32_t track;
	enum lclass cls;
	int64_t base_ps; /* line start in model time */
};

static bool memcpy_size(const struct tc_model *m, uint32_t s, int64_t *out) {
	const char *p = strstr(tc_model_str(m, s), "size:");
	if (!p) {
		return false;
	}
	char *end;
	long long v = strtoll(p + 5, &end, 10);
	if (end == p + 5 || v < 0) {
		return false;
	}
	*out = v;
	return true;
}

/* Counter lines: one sample per event, value = its first numeric stat. */
static bool parse_counter_event(struct reader *r, const struct line_ctx *lc,
		const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	int64_t mid = 0, off = 0;
	bool have = false;
	double val = 0;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= XEVENT_NUM_OCCURRENCES && f.wt != (f.num == XEVENT_STATS ? TC_PB_LEN : TC_PB_VARINT)) {
			return tc_xplane_fail(r, p, "xplane: %s has a field of the wrong wire type", "XEvent");
		}
		if (f.num == XEVENT_METADATA_ID) {
			mid = (int64_t)f.u;
		} else if (f.num == XEVENT_OFFSET_PS) {
			off = (int64_t)f.u;
		} else if (f.num == XEVENT_STATS && f.wt == TC_PB_LEN && !have) {
			uint32_t k;
			struct sval v;
			if (!parse_stat(r, f.data, f.len, &k, &v)) {
				return false;
			}
			have = sval_num(&v, &val);
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "XEvent");
	}
	if (!have || off < 0 || off > INT64_MAX / 2) {
		return true;
	}
	uint32_t ei = idmap_get(&r->emap, mid);
	uint32_t name = ei == TC_NONE ? r->em[r->unknown_em].name : r->em[ei].name;
	tc_model_add_sample(r->m, tc_model_counter(r->m, r->device, name, 0, 0),
		lc->base_ps + off, val);
	return true;
}

struct mem_rec {
	uint32_t allocator;
	double v[4]; /* allocated, reserved, peak, available; < 0 absent */
};

static void mem_samples(struct reader *r, const struct mem_rec *mr, int64_t ts) {
	const uint32_t names[4] = {
		r->k_mem_alloc, r->k_mem_reserved, r->k_mem_peak, r->k_mem_avail,
	};
	for (int i = 0; i < 4; i++) {
		if (mr->v[i] >= 0) {
			tc_model_add_sample(r->m, tc_model_counter(r->m, r->device, names[i],
				r->k_unit_bytes, mr->allocator), ts, mr->v[i]);
		}
	}
}

#define FAST_STATS 16

/* What an allocator record's stats say of its buffer. */
struct buf_rec {
	bool have_addr;
	uint64_t addr;
	int64_t bytes;      /* allocation_bytes, -1 none */
	uint32_t op, shape, dtype; /* TC_NONE none */
};

/* What an event's stats say beyond its args. */
struct ev_extra {
	int64_t group;      /* group_id, -1 none */
	bool have_step;     /* step_num seen */
	bool mem;           /* memory counters seen */
	bool have_corr;
	bool cold;          /* mr and buf are set */
	uint64_t corr;      /* correlation_id */
	struct mem_rec mr;
	struct buf_rec buf;
};

/* An event's extras with nothing seen. mr and buf, for allocator records
 * only, are left unset (ev_cold sets them): zeroing them for every event
 * with stats cost more than the event's args. */
static inline void ev_extra_init(struct ev_extra *x) {
	x->group = -1;
	x->have_step = x->mem = x->have_corr = x->cold = false;
}

static inline void ev_cold(struct ev_extra *x) {
	if (!x->cold) {
		x->mr = (struct mem_rec){ 0, { -1, -1, -1, -1 } };
		x->buf = (struct buf_rec){ .bytes = -1, .op = TC_NONE, .shape = TC_NONE,
			.dtype = TC_NONE };
		x->cold = true;
	}
}

/* TF's DataType numbers (types.proto) as a framework user writes them. */
static const char *tf_dtype(int64_t t) {
	static const char *const names[] = {
		[1] = "float32", [2] = "float64", [3] = "int32", [4] = "uint8", [5] = "int16",
		[6] = "int8", [7] = "string", [8] = "complex64", [9] = "int64", [10] = "bool",
		[14] = "bfloat16", [17] = "uint16", [18] = "complex128", [19] = "float16",
		[22] = "uint32", [23] = "uint64",
	};
	if (t <= 0 || t >= (int64_t)(sizeof(names) / sizeof(names[0]))) {
		return NULL;
	}
	return names[t];
}

/* A MemoryAllocation / MemoryDeallocation event's buffer, as an
 * allocator record of the plane's device (own_allocators() gives a GPU
 * allocator's records to that GPU). */
static void buf_record(struct reader *r, const struct line_ctx *lc, uint32_t op,
		const struct ev_extra *x, int64_t ts) {
	const struct tc_op *o = &r->m->ops[op];
	if (o->kind != TC_OP_MEMORY || !x->buf.have_addr || x->buf.bytes <= 0) {
		return;
	}
	bool free = strcmp(tc_model_str(r->m, o->name), "MemoryDeallocation") == 0;
	struct tc_alloc a = {
		.ts = ts,
		.bytes = free ? -x->buf.bytes : x->buf.bytes,
		.total = x->mr.v[0] >= 0 ? tc_double_to_i64(x->mr.v[0], 0, INT64_MAX / 2) : -1,
		.addr = x->buf.addr,
		.device = r->device,
		.group = x->mr.allocator,
		.track = lc->track,
		.op = x->buf.op, .shape = x->buf.shape, .dtype = x->buf.dtype,
	};
	tc_model_add_alloc(r->m, &a);
}

/* One stat of an event: an arg, with well-known stats normalised. */
static void event_stat(struct reader *r, const struct xstat *xs, struct ev_extra *x) {
	struct sval sv;
	xstat_value(r, xs, &sv);
	const struct sval *v = &sv;
	if (xs->k == TC_NONE || v->type == SV_NONE) {
		return;
	}
	const struct smeta *sm = &r->sm[xs->k];
	if (sm->role == R_NONE) {
		tc_xplane_add_arg(r, sm->name, v);
		return;
	}
	int64_t iv;
	double dv;
	ev_cold(x);
	switch (sm->role) {
	case R_CORRELATION:
		if (sval_i64(v, &iv)) {
			x->corr = (uint64_t)iv;
			x->have_corr = true;
		}
		tc_xplane_add_arg(r, r->m->key.correlation, v);
		return;
	case R_STEP_NUM:
		tc_xplane_add_arg(r, r->m->key.step, v);
		x->have_step = true;
		return;
	case R_GROUP_ID:
		if (sval_i64(v, &iv)) {
			x->group = iv;
		}
		break;
	case R_MEMCPY_DETAILS:
		if (v->type == SV_STR && memcpy_size(r->m, v->v.s, &iv)) {
			tc_model_arg_int(r->m, r->m->key.bytes, iv);
		}
		break;
	case R_ALLOCATOR:
		if (v->type == SV_STR) {
			x->mr.allocator = v->v.s;
		}
		break;
	case R_ADDR:
		if (sval_i64(v, &iv)) {
			x->buf.addr = (uint64_t)iv;
			x->buf.have_addr = true;
		}
		break;
	case R_ALLOC_BYTES:
		if (sval_i64(v, &iv)) {
			x->buf.bytes = iv;
		}
		break;
	case R_TF_OP:
	case R_SHAPE:
		if (v->type == SV_STR) {
			*(sm->role == R_TF_OP ? &x->buf.op : &x->buf.shape) = v->v.s;
		}
		break;
	case R_DATA_TYPE:
		if (sval_i64(v, &iv) && tf_dtype(iv)) {
			x->buf.dtype = tc_model_intern(r->m, tf_dtype(iv));
		}
		break;
	case R_BYTES_ALLOCATED:
	case R_BYTES_RESERVED:
	case R_PEAK_BYTES:
	case R_BYTES_AVAILABLE:
		if (sval_num(v, &dv)) {
			x->mr.v[sm->role == R_BYTES_ALLOCATED ? 0 : sm->role == R_BYTES_RESERVED ? 1 :
				sm->role == R_PEAK_BYTES ? 2 : 3] = dv;
			x->mem = true;
		}
		break;
	default:
		break;
	}
	tc_xplane_add_arg(r, sm->name, v);
}

/*
 * An XEvent as the decoders hand it on: 24 bytes, with its stats (struct
 * xstat) following in their own array. The decoding thread also hands on
 * line headers and the events it leaves to this thread, by file offset.
 */
enum xe_kind {
	XE_EVENT = 0,   /* a: start (ps, model time), b: duration (ps) */
	XE_AGG,         /* a: occurrences, b: duration as written */
	XE_SLOW,        /* a, b: offset and length of an XEvent for parse_event_slow */
	XE_COUNTER,     /* a, b: an XEvent of a counter line */
	XE_LINE,        /* a: index of the line header in its chunk, b: line offset */
	XE_LINE_SERIAL, /* a, b: an XLine for parse_line (its header is bad) */
};

struct xev {
	uint32_t ei;    /* event metadata index */
	uint8_t kind;   /* enum xe_kind */
	uint8_t ns;     /* stats (XE_EVENT) */
	int64_t a, b;
};

/* Event start and end within the model's time bounds. */
static bool event_time(int64_t base_ps, int64_t off, int64_t dur, int64_t *start,
		const char **what) {
	if ((off > 0 && base_ps > INT64_MAX / 2 - off) ||
			(off < 0 && base_ps < INT64_MIN / 2 - off)) {
		*what = "event offset";
		return false;
	}
	*start = base_ps + off;
	/* A duration past the model's bound becomes 0 there (with a warning,
	 * as in every format), so only a plausible one can overflow. */
	if (dur > 0 && dur <= TC_MAX_DUR_PS && *start > INT64_MAX / 2 - dur) {
		*what = "event duration";
		return false;
	}
	return true;
}

/* The event's metadata index; a missing one is counted and gets the
 * plane's "(unknown event metadata)" slot. */
static inline uint32_t event_meta(const struct idmap *emap, uint32_t unknown, int64_t mid,
		uint64_t *missing) {
	uint32_t ei = idmap_get(emap, mid);
	if (ei == TC_NONE) {
		(*missing)++;
		ei = unknown;
	}
	return ei;
}

/* Host runtime call ev, with correlation id corr, for launch linking. */
static inline void note_launch(struct reader *r, const struct line_ctx *lc, uint32_t op,
		uint64_t corr, uint32_t ev) {
	if (lc->cls == LC_HOST && r->m->ops[op].kind == TC_OP_RUNTIME) {
		TC_GROW(r->launch, r->cap_launch, r->n_launch + 1);
		r->launch[r->n_launch++] = (struct tc_corr){ corr, ev };
	}
}

/* The metadata of a stat that is a plain number (int or uint) of a known
 * name, NULL for any other. */
static inline const struct smeta *number_meta(const struct reader *r, const struct xstat *xs) {
	unsigned type = xs->tl >> 28;
	return xs->k != TC_NONE && (type == SV_INT || type == SV_UINT) ? &r->sm[xs->k] : NULL;
}

/*
 * Event ev's args when its one stat is a plain number (the usual device
 * event: a correlation id) in one call, as event_stat would add them;
 * false for any other stat, left to the general path.
 */
static inline bool one_number(struct reader *r, const struct line_ctx *lc, uint32_t op,
		uint32_t ev, const struct xstat *xs) {
	const struct smeta *sm = number_meta(r, xs);
	if (!sm || (sm->role != R_NONE && sm->role != R_CORRELATION)) {
		return false;
	}
	struct tc_model *m = r->m;
	uint32_t key = sm->role == R_CORRELATION ? m->key.correlation : sm->name;
	tc_model_set_event_args(m, ev, xs->tl >> 28 == SV_INT ?
		tc_model_args_one_int(m, key, (int64_t)xs->v) : tc_model_args_one_uint(m, key, xs->v));
	if (sm->role == R_CORRELATION) {
		note_launch(r, lc, op, xs->v, ev);
	}
	return true;
}

/*
 * A plain-number stat of no role, or a correlation or group id, added as
 * event_stat adds it but without building its value: most stats of device
 * events are these. False for any other, left to event_stat.
 */
static inline bool number_stat(struct reader *r, const struct xstat *xs, struct ev_extra *x) {
	const struct smeta *sm = number_meta(r, xs);
	if (!sm) {
		return false;
	}
	uint32_t key = sm->name;
	switch (sm->role) {
	case R_NONE:
		break;
	case R_CORRELATION:
		x->corr = xs->v;
		x->have_corr = true;
		key = r->m->key.correlation;
		break;
	case R_GROUP_ID:
		x->group = (int64_t)xs->v;
		break;
	default:
		return false;
	}
	if (xs->tl >> 28 == SV_INT) {
		tc_model_arg_int(r->m, key, (int64_t)xs->v);
	} else {
		tc_model_arg_uint(r->m, key, xs->v);
	}
	return true;
}

/* The op, then an aggregate or a timeline event whose stats become args. */
static void emit_event(struct reader *r, const struct line_ctx *lc, const struct xev *e,
		const struct xstat *st, size_t ns) {
	uint32_t op = r->em_op[(size_t)lc->cls * r->n_em + e->ei];
	if (op == TC_NONE) {
		op = tc_xplane_make_op(r, e->ei, lc->cls);
	}
	if (e->kind == XE_AGG) {
		tc_model_add_aggregate(r->m, lc->track, op, e->a, e->b);
		return;
	}
	int64_t start = e->a, dur = e->b;
	uint32_t ev = tc_model_add_event(r->m, lc->track, op, start, dur,
		dur == 0 ? TC_EV_INSTANT : 0);
	/* A host step marker without a step_num stat ("ProfilerStep#3"):
	 * its number is in the name. Step events are few. */
	bool named_step = lc->cls == LC_HOST && r->m->ops[op].kind == TC_OP_STEP;
	if (ns == 0 && !named_step) {
		return;
	}
	if (ns == 1 && !named_step && one_number(r, lc, op, ev, &st[0])) {
		return;
	}
	struct ev_extra x;
	ev_extra_init(&x);
	r->cur_ei = e->ei;
	uint32_t args = tc_model_args_begin(r->m);
	for (size_t i = 0; i < ns; i++) {
		if (!number_stat(r, &st[i], &x)) {
			event_stat(r, &st[i], &x);
		}
	}
	if (!x.have_step && x.group >= 0 && lc->cls == LC_STEPS) {
		tc_model_arg_int(r->m, r->m->key.step, x.group);
	}
	int64_t sn;
	uint32_t nm = r->m->ops[op].name;
	if (!x.have_step && named_step && tc_classify_step(tc_model_str(r->m, nm),
			tc_intern_len(&r->m->strings, nm), &sn) && sn >= 0) {
		tc_model_arg_int(r->m, r->m->key.step, sn);
	}
	tc_model_set_event_args(r->m, ev, tc_model_args_end(r->m, args));
	if (x.mem) {
		mem_samples(r, &x.mr, start);
		buf_record(r, lc, op, &x, start);
	}
	if (x.have_corr) {
		note_launch(r, lc, op, x.corr, ev);
	}
}

/* The general XEvent decoder: any field order, unknown fields, checks. */
static bool parse_event_slow(struct reader *r, const struct line_ctx *lc,
		const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t mid = 0, off = 0, dur = 0, occ = 0;
	bool agg = false;
	size_t ns = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= XEVENT_NUM_OCCURRENCES && f.wt != (f.num == XEVENT_STATS ? TC_PB_LEN : TC_PB_VARINT)) {
			return tc_xplane_fail(r, p, "xplane: %s has a field of the wrong wire type", "XEvent");
		}
		switch (f.num) {
		case XEVENT_METADATA_ID:
			mid = (int64_t)f.u;
			break;
		case XEVENT_OFFSET_PS:
			off = (int64_t)f.u;
			agg = false;
			break;
		case XEVENT_DURATION_PS:
			dur = (int64_t)f.u;
			break;
		case XEVENT_STATS:
			TC_GROW(r->sp, r->cap_sp, ns + 1);
			TC_GROW(r->sl, r->cap_sl, ns + 1);
			r->sp[ns] = f.data;
			r->sl[ns++] = f.len;
			break;
		case XEVENT_NUM_OCCURRENCES:
			occ = (int64_t)f.u;
			agg = true;
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "XEvent");
	}
	struct xev e = { .ei = event_meta(&r->emap, r->unknown_em, mid, &r->missing_meta) };
	if (agg) {
		e.kind = XE_AGG;
		e.a = occ;
		e.b = dur;
		emit_event(r, lc, &e, NULL, 0);
		return true;
	}
	const char *what;
	e.kind = XE_EVENT;
	e.b = dur;
	if (!event_time(lc->base_ps, off, dur, &e.a, &what)) {
		return tc_xplane_fail(r, p, "xplane: %s overflows the time range", what);
	}
	/* Every stat is decoded (its strings interned) before any is emitted,
	 * as the fast path does: a damaged one fails the event first. Stats
	 * the model would drop are left out here, as decode_event does. */
	TC_GROW(r->xs, r->cap_xs, ns + 1);
	size_t kept = 0;
	for (size_t i = 0; i < ns; i++) {
		uint32_t k;
		struct sval v;
		if (!parse_stat(r, r->sp[i], r->sl[i], &k, &v)) {
			return false;
		}
		if (k == TC_NONE || !r->sm[k].drop) {
			r->xs[kept++] = xstat_of(k, &v);
		}
	}
	emit_event(r, lc, &e, r->xs, kept);
	return true;
}

/* The varint field at *q if its one-byte tag is tag: 1 with *v set and *q
 * past it, 0 when the next field is another, -1 when it is damaged. */
static inline int field_varint(const uint8_t **q, const uint8_t *end, const uint8_t *room,
		uint8_t tag, int64_t *v) {
	if (*q >= end || **q != tag) {
		return 0;
	}
	(*q)++;
	uint64_t u;
	if (!rd_varint_room(q, end, room, &u)) {
		return -1;
	}
	*v = (int64_t)u;
	return 1;
}

/* An event's next stat into st[*kept]; false past FAST_STATS or for a
 * shape stat_fast leaves to the slow path. */
static inline bool event_stat_fast(const struct dec *d, const uint8_t *p, size_t len,
		struct xstat *st, size_t *ns, size_t *kept, uint64_t *dang) {
	if (*ns == FAST_STATS ||
			!stat_fast(d->smap, d->sm, d->base, d->room, p, len, &st[*kept], dang)) {
		return false;
	}
	(*ns)++;
	/* Checked whole, but no record for a stat the model drops. */
	*kept += st[*kept].k == TC_NONE || !d->sm[st[*kept].k].drop;
	return true;
}

/*
 * The hot path, shared by both threads: an XEvent with one-byte tags for
 * fields 1..5 and up to FAST_STATS stats of the common shapes, its time
 * within bounds. Anything else (unknown fields, odd wire types, damage,
 * many stats) returns false and goes to parse_event_slow, which also
 * produces the precise error. Counts go to *missing / *dangling only for an
 * event decoded here, so the slow path never counts one twice.
 */
static inline bool decode_event(const struct dec *d, int64_t base_ps, const uint8_t *p,
		size_t len, struct xev *e, struct xstat *st, uint64_t *missing,
		uint64_t *dangling) {
	const uint8_t *q = p, *end = p + len;
	int64_t mid = 0, off = 0, dur = 0, occ = 0;
	bool agg = false;
	size_t ns = 0, kept = 0;
	uint64_t u, dang = 0;
	/* Writers put the fields in number order: read them so first, each
	 * behind a branch that predicts well, unlike the switch's jump. What
	 * is left (any order, repeats, unknown fields) takes the loop. */
	if (field_varint(&q, end, d->room, XP_TAG(XEVENT_METADATA_ID, TC_PB_VARINT), &mid) < 0 ||
			field_varint(&q, end, d->room, XP_TAG(XEVENT_OFFSET_PS, TC_PB_VARINT),
				&off) < 0 ||
			field_varint(&q, end, d->room, XP_TAG(XEVENT_DURATION_PS, TC_PB_VARINT),
				&dur) < 0) {
		return false;
	}
	while (q < end && *q == XP_TAG(XEVENT_STATS, TC_PB_LEN)) {
		q++;
		if (!rd_varint_room(&q, end, d->room, &u) || u > (uint64_t)(end - q) ||
				!event_stat_fast(d, q, (size_t)u, st, &ns, &kept, &dang)) {
			return false;
		}
		q += u;
	}
	while (q < end) {
		uint8_t tag = *q++;
		if (!rd_varint(&q, end, &u)) {
			return false;
		}
		switch (tag) {
		case XP_TAG(XEVENT_METADATA_ID, TC_PB_VARINT):
			mid = (int64_t)u;
			break;
		case XP_TAG(XEVENT_OFFSET_PS, TC_PB_VARINT):
			off = (int64_t)u;
			agg = false;
			break;
		case XP_TAG(XEVENT_DURATION_PS, TC_PB_VARINT):
			dur = (int64_t)u;
			break;
		case XP_TAG(XEVENT_STATS, TC_PB_LEN):
			if (u > (uint64_t)(end - q) ||
					!event_stat_fast(d, q, (size_t)u, st, &ns, &kept, &dang)) {
				return false;
			}
			q += u;
			break;
		case XP_TAG(XEVENT_NUM_OCCURRENCES, TC_PB_VARINT):
			occ = (int64_t)u;
			agg = true;
			break;
		default:
			return false;
		}
	}
	if (agg) {
		/* Its stats are not kept, nor their dangling refs counted. */
		e->kind = XE_AGG;
		e->ns = 0;
		e->a = occ;
		e->b = dur;
		dang = 0;
	} else {
		const char *what;
		e->kind = XE_EVENT;
		e->b = dur;
		if (!event_time(base_ps, off, dur, &e->a, &what)) {
			return false;
		}
		e->ns = (uint8_t)kept;
	}
	*dangling += dang;
	e->ei = event_meta(d->emap, d->unknown_em, mid, missing);
	return true;
}

static bool parse_event(struct reader *r, const struct dec *d, const struct line_ctx *lc,
		const uint8_t *p, size_t len) {
	struct xev e;
	struct xstat st[FAST_STATS];
	if (!decode_event(d, lc->base_ps, p, len, &e, st, &r->missing_meta,
			&r->dangling_refs)) {
		return parse_event_slow(r, lc, p, len);
	}
	emit_event(r, lc, &e, st, e.ns);
	return true;
}

static size_t line_hash(int64_t id, uint32_t name, size_t cap) {
	return tc_u64map_hash((uint64_t)id * 0x9E3779B97F4A7C15ull + name, cap);
}

/* The slot of (id, name) in the line table: its track's, or the empty one
 * where it goes. A slot of a track before first_track (an earlier plane's)
 * counts as empty, so the table is never cleared between planes. */
static uint32_t *line_slot(const struct reader *r, size_t first_track, int64_t id,
		uint32_t name) {
	size_t mask = r->line_cap - 1;
	for (size_t i = line_hash(id, name, r->line_cap);; i = (i + 1) & mask) {
		uint32_t *s = &r->line_slots[i];
		if (!*s || *s - 1 < first_track) {
			return s;
		}
		const struct tc_track *tr = &r->m->tracks[*s - 1];
		if (tr->src_id == id && tr->name == name) {
			return s;
		}
	}
}

/* Find or add the track for a line; lines sharing an id are one timeline.
 * Found in a table of the plane's lines: a scan of the plane's tracks per
 * line made many lines cost their square. */
static uint32_t line_track(struct reader *r, size_t first_track, uint32_t name,
		enum tc_track_kind kind, int64_t id) {
	if (r->line_first != first_track) {
		r->line_first = first_track;
		r->line_n = 0;
	}
	if ((r->line_n + 1) * 2 > r->line_cap) {
		uint32_t *old = r->line_slots;
		size_t old_cap = r->line_cap;
		r->line_cap = old_cap ? old_cap * 2 : 64;
		r->line_slots = tc_xcalloc(r->line_cap, sizeof(*r->line_slots));
		for (size_t i = 0; i < old_cap; i++) {
			if (old[i] && old[i] - 1 >= first_track) {
				const struct tc_track *tr = &r->m->tracks[old[i] - 1];
				*line_slot(r, first_track, tr->src_id, tr->name) = old[i];
			}
		}
		free(old);
	}
	uint32_t *s = line_slot(r, first_track, id, name);
	if (*s && *s - 1 >= first_track) {
		return *s - 1;
	}
	uint32_t t = tc_model_add_track(r->m, r->device, name, kind, id);
	*s = t + 1;
	r->line_n++;
	return t;
}

struct line_hdr {
	int64_t id, ts;
	const uint8_t *name, *disp;
	size_t name_len, disp_len;
	bool any_events;
};

/* Where a line's events are, every XP_IDX_STRIDE-th, from its header walk:
 * at[k] is just past event k * XP_IDX_STRIDE (at[0] the line's start), so
 * a walk stepping over a chunk another thread decodes jumps instead of
 * walking each event's framing again. */
#define XP_IDX_STRIDE 64
struct line_idx {
	const uint8_t **at;
	size_t n, cap;
	uint64_t n_events;
};

/* One more event passed at q, its count now n_events. */
static inline void idx_event(struct line_idx *ix, const uint8_t *q) {
	if (!(++ix->n_events & (XP_IDX_STRIDE - 1))) {
		TC_GROW(ix->at, ix->cap, ix->n + 1);
		ix->at[ix->n++] = q;
	}
}

/* The walks over a line's fields find each tag from the length before it,
 * so the loads wait one on another: a prefetch 1 KiB ahead starts the next
 * lines' loads early (device-op-heavy files: read 3-5 % faster; 256 B and
 * 4 KiB gained nothing). */
#define XP_PREFETCH 1024

/* The header fields the reader reads, as spans of line_header. */
enum { LH_ID, LH_NAME, LH_TIMESTAMP_NS, LH_DISPLAY_NAME, LH_COUNT };

/* h from the header fields' last occurrences, by protobuf-c. */
static bool line_unpack(const struct tc_xplane_span *sp, struct line_hdr *h) {
	Tensorflow__Profiler__XLineHeader *m =
		tc_xplane_unpack_spans(&tensorflow__profiler__xline_header__descriptor, sp, LH_COUNT);
	if (!m) {
		return false;
	}
	h->id = m->id;
	h->ts = m->timestamp_ns;
	if (m->name_field_case == TENSORFLOW__PROFILER__XLINE_HEADER__NAME_FIELD_NAME) {
		h->name = tc_xplane_span_bytes(&sp[LH_NAME], m->name);
		h->name_len = m->name.len;
	}
	if (sp[LH_DISPLAY_NAME].len) {
		h->disp = tc_xplane_span_bytes(&sp[LH_DISPLAY_NAME], m->display_name);
		h->disp_len = m->display_name.len;
	}
	tensorflow__profiler__xline_header__free_unpacked(m, NULL);
	return true;
}

/* A line's header walk keeps this much of the line mapped for the reader,
 * and lets go of the rest as it passes, this much at a time. */
#define XP_DROP_AFTER ((size_t)2 << 20)
#define XP_DROP_STEP ((size_t)2 << 20)

/* The walk mapped [*from, q) in; the reader comes to it much later, and
 * those pages would count in the peak memory. Returns where to drop next. */
static const uint8_t *walk_drop(struct tc_input *in, const uint8_t *base, const uint8_t **from,
		const uint8_t *q) {
	tc_input_drop(in, (size_t)(*from - base), (size_t)(q - base));
	*from = q;
	return q + XP_DROP_STEP;
}

/*
 * One walk over an XLine's fields with the unrolled varint reader: it
 * validates every field and finds the header fields for line_unpack
 * (display_name comes after the events on the wire, so the header needs
 * the whole walk). On damage, *at and *why say where and what. Touches
 * nothing else, so either thread may run it. With `in` (base: the start
 * of its mapping), a long line's pages are let go as the walk passes them.
 */
static bool line_header(const uint8_t *p, size_t len, struct line_hdr *h,
		const uint8_t **at_out, const char **why, struct tc_input *in, const uint8_t *base,
		struct line_idx *ix) {
	const uint8_t *q = p, *end = p + len, *at = p;
	if (ix) {
		ix->n = ix->n_events = 0;
		TC_GROW(ix->at, ix->cap, 1);
		ix->at[ix->n++] = p;
	}
	const char *bad;
	struct tc_xplane_span sp[LH_COUNT] = { 0 };
	const uint8_t *from = p + XP_DROP_AFTER;
	const uint8_t *stop = in && len > XP_DROP_AFTER + XP_DROP_STEP ? from + XP_DROP_STEP : NULL;
	while (q < end) {
		/* The events, most of the line, stepped over first: a
		 * one-byte tag, mostly a one-byte length. */
		while (end - q >= 2 && q[0] == XP_TAG(XLINE_EVENTS, TC_PB_LEN)) {
			uint64_t u;
			const uint8_t *f = q;
			__builtin_prefetch(q + XP_PREFETCH);
			q++;
			if (!rd_varint(&q, end, &u) || u > (uint64_t)(end - q)) {
				at = f;
				bad = "length runs past the end of its XLine";
				goto fail;
			}
			q += u;
			h->any_events = true;
			if (ix) {
				idx_event(ix, q);
			}
			if (stop && q >= stop) {
				stop = walk_drop(in, base, &from, q);
			}
		}
		if (q >= end) {
			break;
		}
		at = q;
		__builtin_prefetch(q + XP_PREFETCH);
		uint64_t key, u = 0;
		if (!rd_varint(&q, end, &key)) {
			bad = "truncated field tag in XLine";
			goto fail;
		}
		uint64_t num = key >> 3;
		unsigned wt = key & 7;
		if (num == 0 || num > 0x1fffffff) {
			bad = "invalid field number in XLine";
			goto fail;
		}
		if (wt != (num == XLINE_NAME || num == XLINE_EVENTS || num == XLINE_DISPLAY_NAME ?
				TC_PB_LEN : TC_PB_VARINT) && num <= XLINE_DISPLAY_NAME) {
			bad = "XLine has a field of the wrong wire type";
			goto fail;
		}
		switch (wt) {
		case TC_PB_VARINT:
			if (!rd_varint(&q, end, &u)) {
				bad = "truncated varint in XLine";
				goto fail;
			}
			if (num == XLINE_ID || num == XLINE_TIMESTAMP_NS) {
				sp[num == XLINE_ID ? LH_ID : LH_TIMESTAMP_NS] =
					(struct tc_xplane_span){ at, (size_t)(q - at) };
			}
			break;
		case TC_PB_I64:
		case TC_PB_I32:
			if ((size_t)(end - q) < (wt == TC_PB_I64 ? 8u : 4u)) {
				bad = "truncated fixed-size field in XLine";
				goto fail;
			}
			q += wt == TC_PB_I64 ? 8 : 4;
			break;
		case TC_PB_LEN:
			if (!rd_varint(&q, end, &u) || u > (uint64_t)(end - q)) {
				bad = "length runs past the end of its XLine";
				goto fail;
			}
			q += u;
			if (num == XLINE_NAME || num == XLINE_DISPLAY_NAME) {
				sp[num == XLINE_NAME ? LH_NAME : LH_DISPLAY_NAME] =
					(struct tc_xplane_span){ at, (size_t)(q - at) };
			} else if (num == XLINE_EVENTS) {
				h->any_events = true;
				if (ix) {
					idx_event(ix, q);
				}
			}
			break;
		default:
			bad = "unsupported wire type in XLine";
			goto fail;
		}
	}
	if (stop) {
		walk_drop(in, base, &from, end);
	}
	if (line_unpack(sp, h)) {
		return true;
	}
	at = p;
	bad = "protobuf-c cannot unpack the XLine header";
fail:
	*at_out = at;
	*why = bad;
	return false;
}

/*
 * The next XEvent of a line whose header walk succeeded (so every field is
 * whole): *ev and *ev_len, or false at the line's end. *q moves on.
 */
static inline bool next_event(const uint8_t **q, const uint8_t *end, const uint8_t **ev,
		size_t *ev_len) {
	/* Most events are under 128 bytes: a one-byte length. */
	const uint8_t *p = *q;
	if (end - p >= 2 && p[0] == XP_TAG(XLINE_EVENTS, TC_PB_LEN) && p[1] < 0x80 &&
			p[1] <= end - p - 2) {
		__builtin_prefetch(p + XP_PREFETCH);
		*ev = p + 2;
		*ev_len = p[1];
		*q = p + 2 + p[1];
		return true;
	}
	while (*q < end) {
		uint64_t key, u = 0;
		__builtin_prefetch(*q + XP_PREFETCH);
		if (!rd_varint(q, end, &key)) {
			return false;
		}
		switch (key & 7) {
		case TC_PB_VARINT:
			if (!rd_varint(q, end, &u)) {
				return false;
			}
			break;
		case TC_PB_I64:
			*q += 8;
			break;
		case TC_PB_I32:
			*q += 4;
			break;
		case TC_PB_LEN:
			if (!rd_varint(q, end, &u) || u > (uint64_t)(end - *q)) {
				return false;
			}
			*q += u;
			if (key == XP_TAG(XLINE_EVENTS, TC_PB_LEN)) {
				*ev = *q - u;
				*ev_len = (size_t)u;
				return true;
			}
			break;
		default:
			return false;
		}
	}
	return false;
}

static enum lclass hdr_class(const struct line_hdr *h, bool host_plane) {
	if (h->name) {
		return tc_xplane_line_class(h->name, h->name_len, host_plane);
	}
	return tc_xplane_line_class(h->disp ? h->disp : (const uint8_t *)"", h->disp_len, host_plane);
}

/*
 * A line's start in model time, which is relative to the profile start: a
 * line still on the epoch clock is shifted by the origin, and without a
 * Task Environment the first such line sets it (*set). False when the line
 * is too far from the profile start. Pure, so the pipeline's decoding
 * thread keeps its own copy of the origin in step with this thread's.
 */
static bool line_base(struct origin *o, int64_t ts, int64_t *base_ps, bool *set) {
	int64_t rel = ts;
	*set = false;
	if (o->have && ts >= o->ns) {
		rel = ts - o->ns;
	} else if (!o->have && ts > INT64_MAX / 2000) {
		o->ns = ts;
		o->have = true;
		*set = true;
		rel = 0;
	}
	if (rel > INT64_MAX / 4000 || rel < INT64_MIN / 4000) {
		return false;
	}
	*base_ps = rel * 1000;
	return true;
}

/* A line's track and time base, from its header: this thread's part. */
static bool line_start(struct reader *r, const uint8_t *p, const struct line_hdr *h,
		size_t first_track, struct line_ctx *lc) {
	lc->cls = hdr_class(h, r->host_plane);
	uint32_t tname = h->disp && h->disp_len ? tc_xplane_intern(r, h->disp, h->disp_len) :
		h->name ? tc_xplane_intern(r, h->name, h->name_len) : 0;
	lc->track = line_track(r, first_track, tname, tc_xplane_track_kind(lc->cls), h->id);
	bool set;
	if (!line_base(&r->org, h->ts, &lc->base_ps, &set)) {
		return tc_xplane_fail(r, p, "xplane: %s is too far from the profile start",
			"line timestamp");
	}
	if (set) {
		r->m->origin_ns = r->org.ns;
	}
	return true;
}

bool tc_xplane_parse_line(struct reader *r, const uint8_t *p, size_t len, size_t first_track) {
	struct line_hdr h = { 0 };
	const uint8_t *at;
	const char *why;
	if (!line_header(p, len, &h, &at, &why, r->in, r->base, NULL)) {
		return tc_xplane_fail(r, at, "xplane: %s", why);
	}
	struct line_ctx lc;
	if (!line_start(r, p, &h, first_track, &lc)) {
		return false;
	}
	if (!h.any_events) {
		return true;
	}
	const struct dec d = plane_dec(r);
	const uint8_t *q = p, *end = p + len, *ev;
	size_t ev_len;
	while (next_event(&q, end, &ev, &ev_len)) {
		if (!(lc.cls == LC_COUNTERS ? parse_counter_event(r, &lc, ev, ev_len) :
				parse_event(r, &d, &lc, ev, ev_len))) {
			return false;
		}
		release(r, q);
	}
	return true;
}

/*
 * ---- the pipeline ----
 *
 * With a spare core, a plane's lines are decoded on two threads while this
 * one emits them into the model in file order, so strings, ops, args and
 * events get the ids a serial read gives. Both threads walk the same
 * framing (the plane's lines, their headers, their events' boundaries) and
 * cut it into the same chunks of XP_EVS records. Each chunk is decoded
 * (decode_event, stat_fast) by whichever thread claims it first: the
 * decoding thread runs ahead while this one emits, and when this one
 * catches up it decodes the next chunk itself (emitting costs less than
 * decoding) while the other steps over it. Decoding reads only the mapped
 * file and the plane's metadata maps;
 * whatever needs the model or may fail (line tracks, counter lines,
 * unusual events, damaged lines) goes by offset to the serial code, which
 * also makes the errors.
 */
#define XP_CHUNKS 4
#define XP_EVS 4096
#define XP_STATS (XP_EVS * FAST_STATS) /* never the reason for a cut */

/* A chunk is written event by event by the thread decoding it, while the
 * other thread decodes or emits its neighbour: each on its own cache
 * line, or the line moves between cores on every event (info on the
 * costs-event shape took 0.43 or 0.55 s of CPU by where malloc put the
 * pipe, bench/README). */
struct xchunk {
	_Alignas(TC_CACHE_LINE) struct xev *ev;
	struct xstat *st;
	struct line_hdr *ln;
	size_t n_ev, n_st, n_ln, cap_ln;
	uint64_t index;    /* which chunk of the plane */
};

/* Lines at least this long have their header walk shared: the walk
 * covers every event of the line, and both threads need its result.
 * Tests that force the pipeline on small inputs share every line. */
#define XP_HDR_SHARE_MIN (64 * 1024)
#define XP_HDRS 64

struct xpipe {
	struct dec d;
	struct tc_input *in;
	const uint8_t *plane;
	size_t plane_len;
	bool host_plane;
	struct origin org;       /* at the plane's start */
	uint64_t missing, dangling; /* the decoding thread's counts */
	struct xchunk c[XP_CHUNKS];  /* the decoding thread's chunks */
	struct xchunk own;           /* this thread's */
	/* The first chunk nobody decodes yet (a line of its own, off the
	 * chunks'). */
	_Alignas(TC_CACHE_LINE) atomic_uint_fast64_t next_claim;
	atomic_size_t released;  /* the file offset this thread released up to */
	/* The decoding thread's chunks, counted: filled, emitted. */
	uint64_t produced, consumed;
	bool stop;               /* this thread gave up */
	/* Headers of long lines, by where the line starts: whichever thread
	 * walks one first leaves it for the other (under lock). */
	struct {
		const uint8_t *line, *at;
		const char *why;
		struct line_hdr h;
		struct line_idx ix; /* its own copy */
		bool ok;
	} hdr[XP_HDRS];
	size_t n_hdr, hdr_share_min;
	const uint8_t *hdr_passed; /* the decoding walk's last long line */
	pthread_mutex_t lock;
	pthread_cond_t cv;
};

/* Take chunk j to decode, unless the other thread took it. */
static inline bool xp_claim(struct xpipe *p, uint64_t j) {
	uint_fast64_t want = j;
	return atomic_compare_exchange_strong(&p->next_claim, &want, j + 1);
}

/* One thread's walk over the plane's framing. */
struct xwalk {
	struct tc_pb pb;         /* the plane's fields */
	const uint8_t *q, *lend; /* the current line's fields left */
	bool counters;
	int64_t base_ps;
	struct origin org;       /* this walk's copy */
	bool emits;              /* the emitting thread's walk */
	bool done;
	struct line_idx ix;      /* the current line's events */
	uint64_t ev_at;          /* events of the line passed */
};

static void xw_init(struct xwalk *w, const struct xpipe *p) {
	memset(w, 0, sizeof(*w));
	tc_pb_init(&w->pb, p->d.base, p->plane, p->plane_len);
	w->org = p->org;
}

static inline void xp_rec(struct xchunk *c, enum xe_kind kind, int64_t a, int64_t b) {
	c->ev[c->n_ev++] = (struct xev){ .kind = (uint8_t)kind, .a = a, .b = b };
}

/* A copy of a line's event index: a table slot is taken again XP_HDRS
 * long lines later, so each walk keeps its own. */
static void idx_copy(struct line_idx *to, const struct line_idx *from) {
	TC_GROW(to->at, to->cap, from->n ? from->n : 1);
	if (from->n) {
		memcpy(to->at, from->at, from->n * sizeof(*to->at));
	}
	to->n = from->n;
	to->n_events = from->n_events;
}

/*
 * line_header for the walks, sharing long lines' headers: whichever walk
 * reaches a line first keeps its result (damage included) and the line's
 * event index for the other; w->ix gets the index.
 * The emitting thread, stepping over a chunk the decoding thread decodes
 * (wait), waits for that thread to pass the line rather than walk it
 * again; it walks it only if the result already left the table.
 */
static bool xw_line_header(struct xpipe *p, struct xwalk *w, const uint8_t *line,
		size_t len, bool wait, struct line_hdr *h, const uint8_t **at, const char **why) {
	if (len < p->hdr_share_min) {
		return line_header(line, len, h, at, why, NULL, NULL, &w->ix);
	}
	pthread_mutex_lock(&p->lock);
	for (;;) {
		for (size_t i = 0; i < XP_HDRS; i++) {
			if (p->hdr[i].line == line) {
				*h = p->hdr[i].h;
				*at = p->hdr[i].at;
				*why = p->hdr[i].why;
				bool ok = p->hdr[i].ok;
				if (ok) {
					idx_copy(&w->ix, &p->hdr[i].ix);
				}
				if (!w->emits && p->hdr_passed < line) {
					p->hdr_passed = line;
					pthread_cond_broadcast(&p->cv);
				}
				pthread_mutex_unlock(&p->lock);
				return ok;
			}
		}
		if (!wait || (p->hdr_passed && p->hdr_passed >= line) || p->stop) {
			break;
		}
		pthread_cond_wait(&p->cv, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	bool ok = line_header(line, len, h, at, why, p->in, p->d.base, &w->ix);
	pthread_mutex_lock(&p->lock);
	size_t k = p->n_hdr++ % XP_HDRS;
	if (ok) {
		idx_copy(&p->hdr[k].ix, &w->ix);
	}
	p->hdr[k].line = line;
	p->hdr[k].h = *h;
	p->hdr[k].ok = ok;
	p->hdr[k].at = ok ? NULL : *at;
	p->hdr[k].why = ok ? NULL : *why;
	if (!w->emits) {
		p->hdr_passed = line;
	}
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->lock);
	return ok;
}

/*
 * The next chunk: its records decoded into c, or with c NULL only stepped
 * over. A line header and an event are one record each, so both threads
 * cut at the same places. Returns the file offset where the next chunk
 * starts; w->done after the plane's last chunk.
 */
static size_t xw_chunk(struct xwalk *w, struct xpipe *p, struct xchunk *c,
		uint64_t *missing, uint64_t *dangling) {
	/* Only the emitting thread waits: the other one is never needed next. */
	bool wait = !c && w->emits;
	const uint8_t *base = p->d.base;
	size_t n = 0;
	if (c) {
		c->n_ev = c->n_st = c->n_ln = 0;
	}
	for (;;) {
		if (!c && w->q < w->lend) {
			/* Stepping over: to the indexed event nearest short of where
			 * the walk would stop, the chunk full or the line's events
			 * passed; the loop walks the rest as before. */
			uint64_t room = XP_EVS - n, left = w->ix.n_events - w->ev_at;
			uint64_t to = w->ev_at + (room < left ? room : left);
			uint64_t k = to / XP_IDX_STRIDE;
			if (k > w->ev_at / XP_IDX_STRIDE && k < w->ix.n) {
				n += (size_t)(k * XP_IDX_STRIDE - w->ev_at);
				w->ev_at = k * XP_IDX_STRIDE;
				w->q = w->ix.at[k];
			}
		}
		while (w->q < w->lend) {
			if (n + 1 > XP_EVS) {
				return (size_t)(w->q - base);
			}
			const uint8_t *ev;
			size_t ev_len;
			if (!next_event(&w->q, w->lend, &ev, &ev_len)) {
				w->q = w->lend; /* only other fields were left */
				break;
			}
			n++;
			w->ev_at++;
			if (!c) {
				continue;
			}
			if (w->counters) {
				xp_rec(c, XE_COUNTER, ev - base, (int64_t)ev_len);
				continue;
			}
			struct xev *e = &c->ev[c->n_ev];
			if (decode_event(&p->d, w->base_ps, ev, ev_len, e, c->st + c->n_st,
					missing, dangling)) {
				c->n_ev++;
				c->n_st += e->ns;
			} else {
				xp_rec(c, XE_SLOW, ev - base, (int64_t)ev_len);
			}
		}
		/* A line header needs one slot, an event one more. */
		if (n + 2 > XP_EVS) {
			return (size_t)(w->pb.p - base);
		}
		/* The plane's fields were walked whole before: no error here. */
		struct tc_pb_field f = { 0 };
		int rc;
		while ((rc = tc_pb_next(&w->pb, &f)) > 0 && f.num != XPLANE_LINES) {
		}
		if (rc <= 0) {
			w->done = true;
			return (size_t)(p->plane + p->plane_len - base);
		}
		n++;
		w->q = w->lend = NULL;
		w->ev_at = 0;
		struct line_hdr h = { 0 };
		const uint8_t *at;
		const char *why;
		bool set;
		if (!xw_line_header(p, w, f.data, f.len, wait, &h, &at, &why) ||
				!line_base(&w->org, h.ts, &w->base_ps, &set)) {
			/* This thread's parse_line reports it (and stops). */
			if (c) {
				xp_rec(c, XE_LINE_SERIAL, f.data - base, (int64_t)f.len);
			}
			continue;
		}
		if (c) {
			TC_GROW(c->ln, c->cap_ln, c->n_ln + 1);
			c->ln[c->n_ln] = h;
			xp_rec(c, XE_LINE, (int64_t)c->n_ln++, f.data - base);
		}
		if (h.any_events) {
			w->counters = hdr_class(&h, p->host_plane) == LC_COUNTERS;
			w->q = f.data;
			w->lend = f.data + f.len;
		}
	}
}

static void *xp_decode(void *arg) {
	struct xpipe *p = arg;
	struct xwalk w;
	xw_init(&w, p);
	uint64_t k = 0;
	size_t at = (size_t)(p->plane - p->d.base); /* where the walk is */
	for (uint64_t j = 0; !w.done; j++) {
		/* A free slot first, then the claim. */
		pthread_mutex_lock(&p->lock);
		while (!p->stop && p->produced - p->consumed >= XP_CHUNKS) {
			pthread_cond_wait(&p->cv, &p->lock);
		}
		bool stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop) {
			break;
		}
		if (!xp_claim(p, j)) {
			size_t end = xw_chunk(&w, p, NULL, NULL, NULL);
			/* This thread fell behind (a busy host): stepping over, it
			 * mapped again pages the other one had let go of. */
			size_t rel = atomic_load_explicit(&p->released, memory_order_relaxed);
			if (at < rel) {
				tc_input_drop(p->in, at, end < rel ? end : rel);
			}
			at = end;
			continue;
		}
		struct xchunk *c = &p->c[k++ % XP_CHUNKS];
		at = xw_chunk(&w, p, c, &p->missing, &p->dangling);
		c->index = j;
		pthread_mutex_lock(&p->lock);
		p->produced++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
	}
	free(w.ix.at);
	return NULL;
}

/* Emit one chunk's records. */
static bool xp_emit(struct reader *r, const struct xchunk *c, size_t first_track,
		struct line_ctx *lc) {
	const struct xstat *st = c->st;
	for (size_t i = 0; i < c->n_ev; i++) {
		const struct xev *e = &c->ev[i];
		switch (e->kind) {
		case XE_EVENT:
		case XE_AGG:
			emit_event(r, lc, e, st, e->ns);
			st += e->ns;
			break;
		case XE_SLOW:
			if (!parse_event_slow(r, lc, r->base + e->a, (size_t)e->b)) {
				return false;
			}
			break;
		case XE_COUNTER:
			if (!parse_counter_event(r, lc, r->base + e->a, (size_t)e->b)) {
				return false;
			}
			break;
		case XE_LINE: {
			const struct line_hdr *h = &c->ln[e->a];
			if (!line_start(r, r->base + e->b, h, first_track, lc)) {
				return false;
			}
			break;
		}
		default:
			if (!tc_xplane_parse_line(r, r->base + e->a, (size_t)e->b, first_track)) {
				return false;
			}
			break;
		}
	}
	return true;
}

/* The file up to end is emitted: let it go, and tell the decoding thread. */
static void xp_release(struct reader *r, struct xpipe *p, size_t end) {
	release(r, r->base + end);
	atomic_store_explicit(&p->released, r->released, memory_order_relaxed);
}

static void xchunk_alloc(struct xchunk *c) {
	c->ev = tc_xmalloc(XP_EVS * sizeof(*c->ev));
	c->st = tc_xmalloc(XP_STATS * sizeof(*c->st));
}

static void xchunk_free(struct xchunk *c) {
	free(c->ev);
	free(c->st);
	free(c->ln);
}

/* A plane's lines through the pipeline; *started false when no thread
 * could be made (nothing was read then). */
bool tc_xplane_run(struct reader *r, const uint8_t *plane, size_t len, size_t first_track,
		bool *started) {
	struct xpipe *p = tc_xcalloc_lines(sizeof(*p));
	p->d = plane_dec(r);
	p->in = r->in;
	p->plane = plane;
	p->plane_len = len;
	p->host_plane = r->host_plane;
	p->org = r->org;
	p->hdr_share_min = r->lim->reader_thread == TC_READER_THREAD_ALWAYS ? 1 : XP_HDR_SHARE_MIN;
	for (int i = 0; i < XP_CHUNKS; i++) {
		xchunk_alloc(&p->c[i]);
	}
	xchunk_alloc(&p->own);
	atomic_init(&p->next_claim, 0);
	atomic_init(&p->released, 0);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_t th;
	bool ok = true;
	*started = pthread_create(&th, NULL, xp_decode, p) == 0;
	if (*started) {
		struct line_ctx lc = { 0 };
		struct xwalk w;
		xw_init(&w, p);
		w.emits = true;
		uint64_t j = 0, k = 0;
		while (ok && !w.done) {
			if (xp_claim(p, j++)) {
				size_t end = xw_chunk(&w, p, &p->own, &r->missing_meta,
					&r->dangling_refs);
				ok = xp_emit(r, &p->own, first_track, &lc);
				if (ok) {
					xp_release(r, p, end);
				}
				continue;
			}
			/* The other thread has this chunk: step over it, and rather
			 * than wait for it, decode the next one if nobody has. */
			size_t end = xw_chunk(&w, p, NULL, NULL, NULL), end_ahead = 0;
			pthread_mutex_lock(&p->lock);
			bool ready = p->produced > k;
			pthread_mutex_unlock(&p->lock);
			bool ahead = !ready && !w.done && xp_claim(p, j);
			if (ahead) {
				end_ahead = xw_chunk(&w, p, &p->own, &r->missing_meta, &r->dangling_refs);
				j++;
			}
			pthread_mutex_lock(&p->lock);
			while (p->produced == k) {
				pthread_cond_wait(&p->cv, &p->lock);
			}
			pthread_mutex_unlock(&p->lock);
			const struct xchunk *c = &p->c[k++ % XP_CHUNKS];
			assert(c->index == j - 1 - ahead);
			ok = xp_emit(r, c, first_track, &lc);
			pthread_mutex_lock(&p->lock);
			p->consumed++;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->lock);
			if (ok) {
				xp_release(r, p, end);
			}
			if (ok && ahead) {
				ok = xp_emit(r, &p->own, first_track, &lc);
				if (ok) {
					xp_release(r, p, end_ahead);
				}
			}
		}
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
		pthread_join(th, NULL);
		free(w.ix.at);
		r->missing_meta += p->missing;
		r->dangling_refs += p->dangling;
	}
	for (int i = 0; i < XP_CHUNKS; i++) {
		xchunk_free(&p->c[i]);
	}
	xchunk_free(&p->own);
	for (size_t i = 0; i < XP_HDRS; i++) {
		free(p->hdr[i].ix.at);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p);
	return ok;
}
