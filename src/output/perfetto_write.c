/*
 * The native Perfetto protobuf writer (`export --perfetto`): what the
 * Chrome writer writes, as TracePackets streamed in constant memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/export_plan.h"
#include "output/perfetto_write.h"
#include "perfetto_trace_min.pb-c.h"
#include "util/ascii.h"
#include "util/num.h"
#include "util/xalloc.h"

/*
 * One TracePacket, TrackEvent and InternedData are reused for every packet,
 * and the arrays behind their repeated fields (annotations, flow ids,
 * interned entries) only grow: writing an event allocates nothing.
 */

/* The generated names are long; these are the ones used here. */
typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent TrackEvent;
typedef Perfetto__Protos__TrackDescriptor TrackDescriptor;
typedef Perfetto__Protos__DebugAnnotation DebugAnnotation;
typedef Perfetto__Protos__EventName EventName;
typedef Perfetto__Protos__EventCategory EventCategory;
typedef Perfetto__Protos__DebugAnnotationName DebugAnnotationName;
typedef Perfetto__Protos__InternedString InternedString;

#define SEQ_ID 1
#define SEQ_CLEARED PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED
#define SEQ_NEEDS PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE

/* Interning tables: event names, categories, annotation names, annotation
 * string values. Each numbers its iids from 1. */
enum { IT_NAME, IT_CAT, IT_KEY, IT_SVAL, IT_COUNT };

/* Keys and categories that are not model strings. */
enum { X_OP_KIND, X_UNFINISHED, X_CLAMPED, X_SEVERITY, X_DETAIL, X_COUNT };
static const char *const extra_keys[X_COUNT] = {
	"op_kind", "unfinished", "clamped", "severity", "detail",
};

/* The interned entries a packet introduces. All four entry types are
 * generated structs; v holds them, p points at each (InternedData's
 * repeated fields are arrays of pointers). */
struct pend {
	void *v;
	void **p;
	size_t n, cap, size;
};

/* A track's slices as a stack of open ends; a track that needs more than
 * one (slices overlapping without nesting) gets extra lanes. */
struct lane {
	uint64_t uuid;
	int64_t *end;
	size_t n, cap;
};

/* A flow end on an event: flow_ids, or terminating_flow_ids on the end
 * written second. */
struct fend {
	uint32_t ev;
	bool term;
	uint64_t id;
};

struct pw {
	FILE *f;
	const struct tc_model *m;
	const struct tc_selection *sel;
	const struct tc_annotation *ann;
	struct tc_chrome_stats *st;

	Perfetto__Protos__Trace trace; /* holds pkt only */
	Packet pkt, *pkt_p;
	TrackEvent ev;
	Perfetto__Protos__InternedData in;
	uint8_t *buf;
	size_t cap;

	/* Per model string id and table: the iid, 0 = not sent yet. */
	uint32_t *iid[IT_COUNT];
	uint32_t next_iid[IT_COUNT];
	uint32_t kind_cat[TC_OP_KIND_COUNT], kind_val[TC_OP_KIND_COUNT];
	uint32_t extra[X_COUNT], tracectl_cat;
	struct pend pend[IT_COUNT];

	DebugAnnotation *annos;
	DebugAnnotation **anno_p;
	size_t n_annos, cap_annos;
	uint64_t cat_iid; /* the event's one category */
	uint64_t *flow_ids, *term_ids;
	size_t n_flow, n_term, cap_flow, cap_term;
	struct fend *fends;
	size_t n_fends, at_fend;

	struct tc_export_args args; /* the event's arg keys written */

	struct tc_export_plan plan; /* tids, and the tracks and pids used */
	struct lane *lanes;
	size_t n_lanes, cap_lanes;
	uint64_t next_uuid;  /* for lanes */
	int64_t next_tid;    /* for lanes of threads */
	uint64_t trk_base, ctr_base, ann_trk_base, ann_ser_base, curve_base;
	int64_t base_ns; /* the ns of model ps 0 */
};

/* ---- packets ---- */

static void pkt_reset(struct pw *w) {
	static const Packet init = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	w->pkt = init;
}

/* Pack the packet as a Trace.packet field and write it; the packet and the
 * pending interned entries start over. */
static void emit(struct pw *w) {
	Packet *p = &w->pkt;
	p->optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	p->trusted_packet_sequence_id = SEQ_ID;
	bool interned = false;
	for (int k = 0; k < IT_COUNT; k++) {
		interned |= w->pend[k].n > 0;
	}
	if (interned) {
		Perfetto__Protos__InternedData *in = &w->in;
		in->n_event_names = w->pend[IT_NAME].n;
		in->event_names = (EventName **)w->pend[IT_NAME].p;
		in->n_event_categories = w->pend[IT_CAT].n;
		in->event_categories = (EventCategory **)w->pend[IT_CAT].p;
		in->n_debug_annotation_names = w->pend[IT_KEY].n;
		in->debug_annotation_names = (DebugAnnotationName **)w->pend[IT_KEY].p;
		in->n_debug_annotation_string_values = w->pend[IT_SVAL].n;
		in->debug_annotation_string_values = (InternedString **)w->pend[IT_SVAL].p;
		p->interned_data = in;
	}
	/* A Trace of this one packet is its bytes in the file: tag, length,
	 * packet. */
	size_t n = perfetto__protos__trace__get_packed_size(&w->trace);
	if (n > w->cap) {
		w->cap = n * 2;
		free(w->buf);
		w->buf = tc_xmalloc(w->cap);
	}
	perfetto__protos__trace__pack(&w->trace, w->buf);
	fwrite(w->buf, 1, n, w->f);
	for (int k = 0; k < IT_COUNT; k++) {
		w->pend[k].n = 0;
	}
	pkt_reset(w);
}

/* ---- interning ---- */

static void *pend_add(struct pend *q) {
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 16;
		q->v = tc_xrealloc(q->v, cap * q->size);
		q->p = tc_xrealloc(q->p, cap * sizeof(*q->p));
		q->cap = cap;
		/* The entries moved: point at them again. */
		for (size_t i = 0; i < q->n; i++) {
			q->p[i] = (char *)q->v + i * q->size;
		}
	}
	void *e = (char *)q->v + q->n * q->size;
	q->p[q->n++] = e;
	return e;
}

/* The iid of s in table k, sending it with the next packet the first time
 * (*slot is where the iid is kept: per string id, or a fixed slot). */
static uint64_t intern(struct pw *w, int k, uint32_t *slot, const char *s) {
	if (*slot) {
		return *slot;
	}
	uint32_t iid = *slot = ++w->next_iid[k];
	void *e = pend_add(&w->pend[k]);
	/* EventName, EventCategory and DebugAnnotationName: iid and name. */
#define NAMED(type, init_value) do { \
		static const type init = init_value; \
		type *x = e; \
		*x = init; \
		x->has_iid = true; \
		x->iid = iid; \
		x->name = (char *)s; \
	} while (0)
	switch (k) {
	case IT_NAME:
		NAMED(EventName, PERFETTO__PROTOS__EVENT_NAME__INIT);
		break;
	case IT_CAT:
		NAMED(EventCategory, PERFETTO__PROTOS__EVENT_CATEGORY__INIT);
		break;
	case IT_KEY:
		NAMED(DebugAnnotationName, PERFETTO__PROTOS__DEBUG_ANNOTATION_NAME__INIT);
		break;
	default: {
		static const InternedString init = PERFETTO__PROTOS__INTERNED_STRING__INIT;
		InternedString *x = e;
		*x = init;
		x->has_iid = true;
		x->iid = iid;
		x->has_str = true;
		x->str.data = (uint8_t *)s;
		x->str.len = strlen(s);
		break;
	}
	}
#undef NAMED
	return iid;
}

static uint64_t intern_sid(struct pw *w, int k, uint32_t sid) {
	return intern(w, k, &w->iid[k][sid], tc_model_str(w->m, sid));
}

/* ---- times and ids ---- */

static int64_t round_ns(int64_t ps) {
	int64_t ns = ps / 1000, r = ps % 1000;
	return r >= 500 ? ns + 1 : r < -500 ? ns - 1 : ns;
}

/* Model ps to ns on the trace clock, rounded to the nearest: absolute
 * (origin_ns + ps / 1000) unless the trace would start before 0 there. */
static uint64_t ts_ns(const struct pw *w, int64_t ps) {
	int64_t v = tc_sat_add(w->base_ns, round_ns(ps));
	return v < 0 ? 0 : (uint64_t)v;
}

static uint64_t proc_uuid(uint32_t pid_index) {
	return (uint64_t)pid_index + 1;
}

static int cmp_i64(int64_t a, int64_t b) {
	return (a > b) - (a < b);
}

static bool device_work(const struct tc_track *tr) {
	return tc_track_kind_is_device_work((enum tc_track_kind)tr->kind);
}

/* ---- descriptors ---- */

/* The descriptors' names are bytes in the schema (see its header). */
static ProtobufCBinaryData bin(const char *s) {
	return (ProtobufCBinaryData){ .len = strlen(s), .data = (uint8_t *)s };
}

static void emit_descriptor(struct pw *w, TrackDescriptor *td) {
	w->pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	w->pkt.track_descriptor = td;
	emit(w);
}

static void process_desc(struct pw *w, uint32_t pid_index, const char *name, int32_t sort) {
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	pd.has_pid = true;
	pd.pid = (int32_t)pid_index + 1;
	pd.has_process_name = true;
	pd.process_name = bin(name);
	pd.has_legacy_sort_index = true;
	pd.legacy_sort_index = sort;
	td.has_uuid = true;
	td.uuid = proc_uuid(pid_index);
	td.process = &pd;
	td.has_child_ordering = true;
	td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
	emit_descriptor(w, &td);
}

static void thread_desc(struct pw *w, uint64_t uuid, uint32_t pid_index, int64_t tid,
		const char *name, int32_t sort) {
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	th.has_pid = true;
	th.pid = (int32_t)pid_index + 1;
	th.has_tid = true;
	th.tid = tid;
	th.has_thread_name = true;
	th.thread_name = bin(name);
	th.has_legacy_sort_index = true;
	th.legacy_sort_index = sort;
	td.has_uuid = true;
	td.uuid = uuid;
	td.thread = &th;
	td.has_sibling_order_rank = true;
	td.sibling_order_rank = sort;
	emit_descriptor(w, &td);
}

/* A track under a process (device work) or a counter track. */
static void child_desc(struct pw *w, uint64_t uuid, uint32_t pid_index, const char *name,
		int32_t sort, Perfetto__Protos__CounterDescriptor *cd) {
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	td.has_uuid = true;
	td.uuid = uuid;
	td.has_parent_uuid = true;
	td.parent_uuid = proc_uuid(pid_index);
	td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td.name = bin(name);
	td.has_sibling_order_rank = true;
	td.sibling_order_rank = sort;
	td.counter = cd;
	emit_descriptor(w, &td);
}

static void counter_desc(struct pw *w, uint64_t uuid, uint32_t pid_index, const char *name,
		const char *unit, int32_t sort) {
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	if (unit && *unit) {
		cd.has_unit_name = true;
		cd.unit_name = bin(unit);
	}
	child_desc(w, uuid, pid_index, name, sort, &cd);
}

/* The name of a device-work track, marked so that readers that go by the
 * name (tracectl's) see device work. buf: 1024 bytes. */
static const char *work_name(const char *name, char *buf) {
	size_t n = strlen(name);
	if (tc_ascii_contains_ci(name, n, "gpu") || tc_ascii_contains_ci(name, n, "stream") ||
			tc_ascii_contains_ci(name, n, "render stage")) {
		return name;
	}
	snprintf(buf, 1024, "%s (stream)", name);
	return buf;
}

static void track_desc(struct pw *w, uint32_t t, uint64_t uuid, int64_t tid) {
	const struct tc_model *m = w->m;
	const struct tc_track *tr = &m->tracks[t];
	const char *name = tc_model_str(m, tr->name);
	uint32_t pi = tc_export_dev(m, tr->device);
	if (device_work(tr)) {
		char buf[1024];
		child_desc(w, uuid, pi, work_name(name, buf), tr->sort, NULL);
	} else {
		thread_desc(w, uuid, pi, tid, name, tr->sort);
	}
}

static bool counter_used(const struct pw *w, size_t c) {
	const struct tc_counter *ctr = &w->m->counters[c];
	for (size_t i = ctr->first; i < ctr->first + ctr->count; i++) {
		if (tc_export_sample_kept(w->m, w->sel, i) && isfinite(w->m->samples.value[i])) {
			return true;
		}
	}
	return false;
}

/* The descriptors of the processes, tracks and counters that appear (as
 * the Chrome writer decides), and the uuids. */
static void plan(struct pw *w) {
	const struct tc_model *m = w->m;
	const struct tc_annotation *a = w->ann;
	tc_export_plan_init(&w->plan, m, w->sel, a);
	bool ann_used = a && (a->n_marks || a->n_points);
	w->trk_base = proc_uuid((uint32_t)m->n_devices + 2);
	w->ctr_base = w->trk_base + m->n_tracks;
	w->ann_trk_base = w->ctr_base + m->n_counters;
	w->ann_ser_base = w->ann_trk_base + (a ? a->n_tracks : 0);
	w->curve_base = w->ann_ser_base + (a ? a->n_series : 0);
	w->next_uuid = w->curve_base + w->plan.n_curves;
	w->next_tid = (int64_t)m->n_tracks + (a ? (int64_t)a->n_tracks : 0) + 1;

	char name[1024];
	for (uint32_t d = 0; d <= m->n_devices; d++) {
		if (!w->plan.pid_used[d]) {
			continue;
		}
		if (d == m->n_devices) {
			process_desc(w, d, "(no device)", (int32_t)d);
		} else {
			tc_chrome_device_name(m, d, name, sizeof(name));
			process_desc(w, d, name, (int32_t)d);
		}
	}
	for (size_t t = 0; t < m->n_tracks; t++) {
		if (w->plan.track_used[t]) {
			track_desc(w, (uint32_t)t, w->trk_base + t, w->plan.tid[t]);
		}
	}
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ctr = &m->counters[c];
		if (!counter_used(w, c)) {
			continue;
		}
		const char *cn = tc_model_str(m, ctr->name);
		if (ctr->group && *tc_model_str(m, ctr->group)) {
			snprintf(name, sizeof(name), "%s (%s)", cn, tc_model_str(m, ctr->group));
			cn = name;
		}
		counter_desc(w, w->ctr_base + c, tc_export_dev(m, ctr->device), cn,
			ctr->unit ? tc_model_str(m, ctr->unit) : NULL, (int32_t)c);
	}
	for (size_t k = 0; k < w->plan.n_curves; k++) {
		const struct tc_mem_curve *cv = &w->plan.curves[k];
		const char *cn = "memory.allocated";
		if (!w->plan.curve_used[k]) {
			continue;
		}
		if (cv->group && *tc_model_str(m, cv->group)) {
			snprintf(name, sizeof(name), "%s (%s)", cn, tc_model_str(m, cv->group));
			cn = name;
		}
		counter_desc(w, w->curve_base + k, tc_export_dev(m, cv->device), cn, "bytes",
			(int32_t)(m->n_counters + k));
	}
	if (ann_used) {
		uint32_t ap = (uint32_t)m->n_devices + 1;
		process_desc(w, ap, "tracectl annotations", -1);
		for (size_t t = 0; t < a->n_tracks; t++) {
			thread_desc(w, w->ann_trk_base + t, ap, (int64_t)t + 1, a->tracks[t], (int32_t)t);
		}
		for (size_t s = 0; s < a->n_series; s++) {
			/* The unit is the counter's, not in the name as in JSON. */
			const struct tc_ann_series *se = &a->series[s];
			counter_desc(w, w->ann_ser_base + s,
				se->device < m->n_devices ? se->device : ap, se->name, se->unit,
				(int32_t)s);
		}
	}
}

/* ---- events ---- */

static void event_begin(struct pw *w, uint64_t track, int64_t ps, int type) {
	static const TrackEvent init = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	w->ev = init;
	w->ev.has_type = true;
	w->ev.type = type;
	w->ev.has_track_uuid = true;
	w->ev.track_uuid = track;
	w->n_annos = 0;
	w->pkt.has_timestamp = true;
	w->pkt.timestamp = ts_ns(w, ps);
	w->pkt.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	w->pkt.track_event = &w->ev;
}

static void event_emit(struct pw *w) {
	if (w->n_annos) {
		w->ev.n_debug_annotations = w->n_annos;
		w->ev.debug_annotations = w->anno_p;
	}
	/* Only events that refer to interned data say so (slice ends and
	 * counter values do not). */
	if (w->n_annos || w->ev.n_category_iids ||
			w->ev.name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID) {
		w->pkt.has_sequence_flags = true;
		w->pkt.sequence_flags = SEQ_NEEDS;
	}
	emit(w);
}

static void emit_end(struct pw *w, uint64_t track, int64_t ps) {
	event_begin(w, track, ps, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END);
	event_emit(w);
}

static DebugAnnotation *anno_add(struct pw *w, uint64_t key_iid) {
	static const DebugAnnotation init = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
	if (w->n_annos == w->cap_annos) {
		size_t cap = w->cap_annos ? w->cap_annos * 2 : 16;
		w->annos = tc_xrealloc(w->annos, cap * sizeof(*w->annos));
		w->anno_p = tc_xrealloc(w->anno_p, cap * sizeof(*w->anno_p));
		w->cap_annos = cap;
		for (size_t i = 0; i < w->n_annos; i++) {
			w->anno_p[i] = &w->annos[i];
		}
	}
	DebugAnnotation *a = &w->annos[w->n_annos];
	*a = init;
	a->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
	a->name_iid = key_iid;
	w->anno_p[w->n_annos++] = a;
	return a;
}

static void anno_str(struct pw *w, uint64_t key_iid, const char *v) {
	DebugAnnotation *a = anno_add(w, key_iid);
	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
	a->string_value = (char *)v;
}

static void anno_int(struct pw *w, uint64_t key_iid, int64_t v) {
	DebugAnnotation *a = anno_add(w, key_iid);
	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
	a->int_value = v;
}

static void anno_true(struct pw *w, int x) {
	DebugAnnotation *a = anno_add(w, intern(w, IT_KEY, &w->extra[x], extra_keys[x]));
	a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
	a->bool_value = true;
}

/* The annotation value field of each arg type. */
static const Perfetto__Protos__DebugAnnotation__ValueCase value_of_type[] = {
	[TC_ARG_INT] = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE,
	[TC_ARG_UINT] = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE,
	[TC_ARG_DOUBLE] = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE,
	[TC_ARG_STR] = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID,
	[TC_ARG_BOOL] = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE,
};

static void add_args(struct pw *w, uint32_t first) {
	const struct tc_model *m = w->m;
	struct tc_arg a;
	for (uint32_t p = first; tc_export_args_next(&w->args, m, &p, &a);) {
		DebugAnnotation *d = anno_add(w, intern_sid(w, IT_KEY, a.key));
		if (a.type >= sizeof(value_of_type) / sizeof(value_of_type[0])) {
			/* No value: the Chrome writer's null. */
			d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_LEGACY_JSON_VALUE;
			d->legacy_json_value = (char *)"null";
			continue;
		}
		d->value_case = value_of_type[a.type];
		switch (a.type) {
		case TC_ARG_INT: d->int_value = a.v.i; break;
		case TC_ARG_UINT: d->uint_value = a.v.u; break;
		case TC_ARG_DOUBLE: d->double_value = a.v.d; break;
		case TC_ARG_STR: d->string_value_iid = intern_sid(w, IT_SVAL, a.v.s); break;
		default: d->bool_value = a.v.i != 0; break;
		}
	}
}

/* The flow ends on event i; fends is sorted by event and i only grows. */
static void add_flows(struct pw *w, uint32_t i) {
	w->n_flow = w->n_term = 0;
	while (w->at_fend < w->n_fends && w->fends[w->at_fend].ev < i) {
		w->at_fend++;
	}
	for (; w->at_fend < w->n_fends && w->fends[w->at_fend].ev == i; w->at_fend++) {
		const struct fend *fe = &w->fends[w->at_fend];
		if (fe->term) {
			TC_GROW(w->term_ids, w->cap_term, w->n_term + 1);
			w->term_ids[w->n_term++] = fe->id;
		} else {
			TC_GROW(w->flow_ids, w->cap_flow, w->n_flow + 1);
			w->flow_ids[w->n_flow++] = fe->id;
		}
	}
	w->ev.n_flow_ids = w->n_flow;
	w->ev.flow_ids = w->flow_ids;
	w->ev.n_terminating_flow_ids = w->n_term;
	w->ev.terminating_flow_ids = w->term_ids;
}

static void write_event(struct pw *w, uint64_t track, uint32_t i) {
	const struct tc_model *m = w->m;
	const struct tc_op *op = tc_model_event_op(m, i);
	bool instant = m->ev.flags[i] & TC_EV_INSTANT;
	event_begin(w, track, m->ev.start[i], instant ?
		PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT :
		PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN);
	TrackEvent *e = &w->ev;
	e->name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
	e->name_iid = intern_sid(w, IT_NAME, op->name);
	enum tc_op_kind kind = (enum tc_op_kind)op->kind;
	w->cat_iid = op->category ? intern_sid(w, IT_CAT, op->category) :
		intern(w, IT_CAT, &w->kind_cat[kind], tc_chrome_kind_cat(kind));
	e->n_category_iids = 1;
	e->category_iids = &w->cat_iid;
	tc_export_args_begin(&w->args, m);
	add_args(w, tc_model_event_args(m, i));
	add_args(w, op->args);
	if (!w->args.op_kind) {
		DebugAnnotation *a = anno_add(w, intern(w, IT_KEY, &w->extra[X_OP_KIND],
			extra_keys[X_OP_KIND]));
		a->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
		a->string_value_iid = intern(w, IT_SVAL, &w->kind_val[kind], tc_op_kind_name(kind));
	}
	if (!w->args.flops && op->flops >= 0) {
		anno_int(w, intern_sid(w, IT_KEY, m->key.flops), op->flops);
	}
	if (!w->args.bytes && op->bytes >= 0) {
		anno_int(w, intern_sid(w, IT_KEY, m->key.bytes_accessed), op->bytes);
	}
	if (m->ev.flags[i] & TC_EV_UNFINISHED) {
		anno_true(w, X_UNFINISHED);
	}
	if (m->ev.flags[i] & TC_EV_CLAMPED) {
		anno_true(w, X_CLAMPED);
	}
	if (w->n_fends) {
		add_flows(w, i);
	}
	event_emit(w);
	if (instant) {
		w->st->instants++;
	} else {
		w->st->slices++;
	}
}

/* ---- lanes ---- */

/* Close the lane's slices that end at or before ps. */
static void lane_close(struct pw *w, struct lane *l, int64_t ps) {
	while (l->n && l->end[l->n - 1] <= ps) {
		emit_end(w, l->uuid, l->end[--l->n]);
	}
}

/* The lane a slice [s, e) nests in: the track's own, or an extra one that
 * new_lane describes (made when none fits). */
static struct lane *lane_for(struct pw *w, int64_t s, int64_t e, uint64_t own,
		void (*new_lane)(struct pw *, uint64_t, const void *), const void *ctx) {
	for (size_t k = 0;; k++) {
		if (k == w->n_lanes) {
			if (k == w->cap_lanes) {
				size_t cap = w->cap_lanes;
				TC_GROW(w->lanes, w->cap_lanes, k + 1);
				memset(w->lanes + cap, 0, (w->cap_lanes - cap) * sizeof(*w->lanes));
			}
			w->lanes[k].n = 0;
			w->lanes[k].uuid = k ? w->next_uuid++ : own;
			if (k) {
				new_lane(w, w->lanes[k].uuid, ctx);
			}
			w->n_lanes++;
		}
		struct lane *l = &w->lanes[k];
		lane_close(w, l, s);
		if (!l->n || l->end[l->n - 1] >= e) {
			return l;
		}
	}
}

static void lane_push(struct lane *l, int64_t end) {
	TC_GROW(l->end, l->cap, l->n + 1);
	l->end[l->n++] = end;
}

static void lanes_close(struct pw *w) {
	for (size_t k = 0; k < w->n_lanes; k++) {
		lane_close(w, &w->lanes[k], INT64_MAX);
	}
	w->n_lanes = 0;
}

static void track_lane(struct pw *w, uint64_t uuid, const void *ctx) {
	uint32_t t = *(const uint32_t *)ctx;
	track_desc(w, t, uuid, w->next_tid++);
}

static void write_track(struct pw *w, uint32_t t) {
	const struct tc_model *m = w->m;
	const struct tc_track *tr = &m->tracks[t];
	for (uint32_t i = tr->first; i < tr->first + tr->count; i++) {
		if (!tc_selection_has(w->sel, i)) {
			continue;
		}
		int64_t s = m->ev.start[i], d = m->ev.dur[i];
		bool instant = m->ev.flags[i] & TC_EV_INSTANT;
		struct lane *l = lane_for(w, s, instant ? s : s + d, w->trk_base + t, track_lane, &t);
		write_event(w, l->uuid, i);
		if (!instant) {
			if (d > 0) {
				lane_push(l, s + d);
			} else {
				emit_end(w, l->uuid, s);
			}
		}
	}
	lanes_close(w);
}

/* ---- counters, flows, annotations ---- */

static void counter_event(struct pw *w, uint64_t track, int64_t ps, double v) {
	event_begin(w, track, ps, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER);
	w->ev.counter_value_field_case =
		PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
	w->ev.double_counter_value = v;
	event_emit(w);
}

static void write_sample(void *ctx, uint32_t c, int64_t ts, double v) {
	struct pw *w = ctx;
	counter_event(w, w->ctr_base + c, ts, v);
	w->st->samples++;
}

/* A point of a curve allocator records draw (export_plan.h). */
static void write_curve_sample(void *ctx, size_t k, int64_t ts, double v) {
	struct pw *w = ctx;
	counter_event(w, w->curve_base + k, ts, v);
	w->st->samples++;
}

static int cmp_fend(const void *pa, const void *pb) {
	const struct fend *a = pa, *b = pb;
	int c = cmp_i64(a->ev, b->ev);
	return c ? c : cmp_i64((int64_t)a->id, (int64_t)b->id);
}

/* Both ends of every kept flow, by event. Events are written in index
 * order, so the end with the lower index is written first. */
static void plan_flows(struct pw *w) {
	const struct tc_model *m = w->m;
	size_t cap = 0;
	for (size_t k = 0; k < m->n_flows; k++) {
		const struct tc_flow *fl = &m->flows[k];
		if (fl->from >= m->ev.n || fl->to >= m->ev.n || fl->from == fl->to ||
				!tc_selection_has(w->sel, fl->from) ||
				!tc_selection_has(w->sel, fl->to) ||
				tc_model_event_track(m, fl->from) == TC_NONE ||
				tc_model_event_track(m, fl->to) == TC_NONE) {
			continue;
		}
		TC_GROW(w->fends, cap, w->n_fends + 2);
		uint32_t a = fl->from < fl->to ? fl->from : fl->to;
		uint32_t b = fl->from < fl->to ? fl->to : fl->from;
		/* Viewers take the direction from time: the second end terminates
		 * the flow only when it is not earlier. */
		w->fends[w->n_fends++] = (struct fend){ .ev = a, .id = k + 1 };
		w->fends[w->n_fends++] = (struct fend){ .ev = b, .id = k + 1,
			.term = m->ev.start[b] >= m->ev.start[a] };
		w->st->flows++;
	}
	tc_sort(w->fends, w->n_fends, sizeof(*w->fends), cmp_fend);
}

/* A mark in the order written: by track, then time, parents first. */
struct mref {
	uint32_t track, k;
	int64_t start, dur;
};

static int cmp_mref(const void *pa, const void *pb) {
	const struct mref *a = pa, *b = pb;
	int c = cmp_i64(a->track, b->track);
	c = c ? c : cmp_i64(a->start, b->start);
	c = c ? c : cmp_i64(b->dur, a->dur);
	return c ? c : cmp_i64(a->k, b->k);
}

static void mark_lane(struct pw *w, uint64_t uuid, const void *ctx) {
	const struct tc_mark *mk = ctx;
	thread_desc(w, uuid, (uint32_t)w->m->n_devices + 1, w->next_tid++,
		w->ann->tracks[mk->track], (int32_t)mk->track);
}

static void write_annotation(struct pw *w) {
	const struct tc_annotation *a = w->ann;
	/* Marks come by analysis, not by time; a track's slices must come in
	 * time order, parents first. */
	struct mref *order = tc_xmalloc((a->n_marks ? a->n_marks : 1) * sizeof(*order));
	for (size_t k = 0; k < a->n_marks; k++) {
		order[k] = (struct mref){ .track = a->marks[k].track, .k = (uint32_t)k,
			.start = a->marks[k].start_ps, .dur = a->marks[k].dur_ps };
	}
	tc_sort(order, a->n_marks, sizeof(*order), cmp_mref);
	for (size_t k = 0; k < a->n_marks; k++) {
		const struct tc_mark *mk = &a->marks[order[k].k];
		if (k && order[k].track != order[k - 1].track) {
			lanes_close(w);
		}
		int64_t s = mk->start_ps, e = s + (mk->dur_ps > 0 ? mk->dur_ps : 0);
		struct lane *l = lane_for(w, s, e, w->ann_trk_base + mk->track, mark_lane, mk);
		event_begin(w, l->uuid, s, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN);
		w->ev.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
		w->ev.name = (char *)(mk->name ? mk->name : "");
		w->cat_iid = intern(w, IT_CAT, &w->tracectl_cat, "tracectl");
		w->ev.n_category_iids = 1;
		w->ev.category_iids = &w->cat_iid;
		if (mk->severity) {
			anno_str(w, intern(w, IT_KEY, &w->extra[X_SEVERITY], extra_keys[X_SEVERITY]),
				mk->severity);
		}
		if (mk->detail) {
			anno_str(w, intern(w, IT_KEY, &w->extra[X_DETAIL], extra_keys[X_DETAIL]),
				mk->detail);
		}
		event_emit(w);
		if (e > s) {
			lane_push(l, e);
		} else {
			emit_end(w, l->uuid, s);
		}
		w->st->marks++;
	}
	lanes_close(w);
	free(order);
	for (size_t k = 0; k < a->n_points; k++) {
		const struct tc_ann_point *p = &a->points[k];
		if (isfinite(p->value)) {
			counter_event(w, w->ann_ser_base + p->series, p->ts_ps, p->value);
		}
	}
}

void tc_write_perfetto(FILE *f, const struct tc_model *m, const struct tc_chrome_opts *o,
		struct tc_chrome_stats *st) {
	static const Perfetto__Protos__InternedData in_init =
		PERFETTO__PROTOS__INTERNED_DATA__INIT;
	memset(st, 0, sizeof(*st));
	struct pw *w = tc_xcalloc(1, sizeof(*w));
	w->f = f;
	w->m = m;
	w->sel = o->sel;
	w->ann = o->ann;
	w->st = st;
	w->in = in_init;
	static const Perfetto__Protos__Trace trace_init = PERFETTO__PROTOS__TRACE__INIT;
	w->trace = trace_init;
	w->pkt_p = &w->pkt;
	w->trace.n_packet = 1;
	w->trace.packet = &w->pkt_p;
	pkt_reset(w);
	int64_t zero = round_ns(w->sel->zero_ps);
	w->base_ns = tc_sat_add(m->origin_ns, zero) < 0 ? -zero : m->origin_ns;
	size_t ns = m->strings.n ? m->strings.n : 1;
	for (int k = 0; k < IT_COUNT; k++) {
		w->iid[k] = tc_xcalloc(ns, sizeof(*w->iid[k]));
	}
	w->pend[IT_NAME].size = sizeof(EventName);
	w->pend[IT_CAT].size = sizeof(EventCategory);
	w->pend[IT_KEY].size = sizeof(DebugAnnotationName);
	w->pend[IT_SVAL].size = sizeof(InternedString);

	/* The first packet starts the sequence's incremental state (interning);
	 * the file is a trace even when nothing else is kept. */
	w->pkt.has_sequence_flags = true;
	w->pkt.sequence_flags = SEQ_CLEARED;
	w->pkt.has_first_packet_on_sequence = true;
	w->pkt.first_packet_on_sequence = true;
	emit(w);
	plan(w);
	plan_flows(w);
	for (size_t t = 0; t < m->n_tracks; t++) {
		if (w->plan.track_used[t]) {
			write_track(w, (uint32_t)t);
		}
	}
	tc_export_samples(m, w->sel, write_sample, w, &st->nonfinite_samples);
	tc_export_curve_samples(m, w->sel, &w->plan, write_curve_sample, w);
	if (w->ann) {
		write_annotation(w);
	}

	for (int k = 0; k < IT_COUNT; k++) {
		free(w->iid[k]);
		free(w->pend[k].v);
		free(w->pend[k].p);
	}
	for (size_t k = 0; k < w->cap_lanes; k++) {
		free(w->lanes[k].end);
	}
	void *owned[] = {
		w->lanes, w->annos, w->anno_p, w->flow_ids, w->term_ids, w->fends, w->buf,
	};
	for (size_t k = 0; k < sizeof(owned) / sizeof(owned[0]); k++) {
		free(owned[k]);
	}
	tc_export_args_finish(&w->args);
	tc_export_plan_finish(&w->plan);
	free(w);
}
