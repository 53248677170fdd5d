/* Perfetto interned data, sequence defaults and track descriptors. */
#include "ingest/perfetto/perfetto_private.h"
#include "perfetto_trace_min.pb-c.h"
#include "util/pbkeep.h"

/* ---- interned data ---- */

bool tc_perfetto_parse_interned(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		/* Every kept table's entries are {iid, name or str}. */
		int t;
		switch (f.num) {
		case ID_EVENT_CATEGORIES: t = IT_CAT; break;
		case ID_EVENT_NAMES: t = IT_NAME; break;
		case ID_DEBUG_ANNOTATION_NAMES: t = IT_DBGNAME; break;
		case ID_DEBUG_ANNOTATION_STRINGS: t = IT_DBGSTR; break;
		case ID_GPU_SPECIFICATIONS: t = IT_GPUSPEC; break;
		case ID_COMPUTE_KERNELS: t = IT_KERNEL; break;
		default:
			continue;
		}
		if (f.wt != TC_PB_LEN) {
			continue;
		}
		uint64_t iid = 0;
		const uint8_t *str = NULL;
		size_t slen = 0;
		tc_pb_init(&e, s->base, f.data, f.len);
		while ((rv2 = tc_pb_next(&e, &g)) > 0) {
			if (g.num == ENTRY_IID && g.wt == TC_PB_VARINT) {
				iid = g.u;
			} else if (g.num == ENTRY_NAME && g.wt == TC_PB_LEN) {
				str = g.data;
				slen = g.len;
			}
		}
		if (rv2 < 0) {
			return tc_perfetto_pb_fail(s, &e, "InternedData entry");
		}
		if (iid == 0) {
			continue;
		}
		itab_set(&q->it[t], iid, str ? str_id(s, str, slen) : 0);
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "InternedData");
	}
	return true;
}

void tc_perfetto_parse_u64_list(const struct tc_pb_field *f, struct u64vec *out, bool fixed) {
	if (f->wt == TC_PB_LEN) {
		const uint8_t *p = f->data, *end = f->data + f->len;
		while (p < end) {
			uint64_t v;
			if (fixed) {
				if (end - p < 8) {
					return;
				}
				v = 0;
				for (int i = 7; i >= 0; i--) {
					v = (v << 8) | p[i];
				}
				p += 8;
			} else if (!tc_pb_varint(&p, end, &v)) {
				return;
			}
			u64_push(out, v);
		}
		return;
	}
	if (fixed ? f->wt == TC_PB_I64 : f->wt == TC_PB_VARINT) {
		u64_push(out, f->u);
	}
}

/*
 * ---- cold messages ----
 *
 * TracePacketDefaults and the descriptors are cold (one per sequence or
 * track), so protobuf-c's generated code unpacks them. A wire walk first
 * finds the errors the reader has always reported, in the order it has
 * reported them. protobuf-c then refuses a whole message for a known field
 * of the wrong wire type, which the reader has always skipped: such a
 * message is unpacked again from a copy without the mistyped fields.
 */

/* The fields read, with the wire type each must have. */
static const struct tc_pb_keep ted_keep[] = {
	{ TED_TRACK_UUID, TC_PB_VARINT, NULL },
	{ TED_EXTRA_COUNTER_UUIDS, TC_PB_VARINT, NULL },
	{ TED_EXTRA_COUNTER_UUIDS, TC_PB_LEN, NULL },
	{ TED_EXTRA_DOUBLE_COUNTER_UUIDS, TC_PB_VARINT, NULL },
	{ TED_EXTRA_DOUBLE_COUNTER_UUIDS, TC_PB_LEN, NULL },
	{ 0 },
};
static const struct tc_pb_keep defaults_keep[] = {
	{ DEF_TIMESTAMP_CLOCK_ID, TC_PB_VARINT, NULL },
	{ DEF_TRACK_EVENT_DEFAULTS, TC_PB_LEN, ted_keep },
	{ 0 },
};
static const struct tc_pb_keep defaults_clock_keep[] = {
	{ DEF_TIMESTAMP_CLOCK_ID, TC_PB_VARINT, NULL }, { 0 },
};
static const struct tc_pb_keep process_keep[] = {
	{ PD_PID, TC_PB_VARINT, NULL }, { PD_CMDLINE, TC_PB_LEN, NULL },
	{ PD_PROCESS_NAME, TC_PB_LEN, NULL }, { 0 },
};
static const struct tc_pb_keep thread_keep[] = {
	{ TD_PID, TC_PB_VARINT, NULL }, { TD_TID, TC_PB_VARINT, NULL },
	{ TD_THREAD_NAME, TC_PB_LEN, NULL }, { TD_REFERENCE_TIMESTAMP_US, TC_PB_VARINT, NULL },
	{ 0 },
};
static const struct tc_pb_keep counter_keep[] = {
	{ CD_TYPE, TC_PB_VARINT, NULL }, { CD_UNIT, TC_PB_VARINT, NULL },
	{ CD_UNIT_MULTIPLIER, TC_PB_VARINT, NULL }, { CD_IS_INCREMENTAL, TC_PB_VARINT, NULL },
	{ CD_UNIT_NAME, TC_PB_LEN, NULL }, { 0 },
};
static const struct tc_pb_keep track_keep[] = {
	{ TRD_UUID, TC_PB_VARINT, NULL }, { TRD_PARENT_UUID, TC_PB_VARINT, NULL },
	{ TRD_NAME, TC_PB_LEN, NULL }, { TRD_STATIC_NAME, TC_PB_LEN, NULL },
	{ TRD_ATRACE_NAME, TC_PB_LEN, NULL }, { TRD_PROCESS, TC_PB_LEN, process_keep },
	{ TRD_THREAD, TC_PB_LEN, thread_keep }, { TRD_COUNTER, TC_PB_LEN, counter_keep },
	{ 0 },
};

/* Walks p[0, len) whole; false with *r at the damage. */
static bool walk(struct tc_pb *r, const uint8_t *base, const uint8_t *p, size_t len) {
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(r, base, p, len);
	while ((rv = tc_pb_next(r, &f)) > 0) {
	}
	return rv == 0;
}

/*
 * protobuf-c's unpack of a message that walks cleanly: as it is, else from
 * a copy with only the fields keep lists. NULL with *r set to say so when
 * protobuf-c refuses both (a damaged packed list, say).
 */
static void *unpack(const ProtobufCMessageDescriptor *desc, const struct tc_pb_keep *keep,
		struct tc_pb *r, const uint8_t *base, const uint8_t *p, size_t len) {
	void *m = protobuf_c_message_unpack(desc, NULL, len, p);
	if (m) {
		return m;
	}
	struct tc_arena a;
	tc_arena_init(&a, 4096);
	uint8_t *t = tc_arena_alloc(&a, len ? len : 1);
	size_t n = tc_pb_keep_fields(&a, p, len, keep, t);
	m = protobuf_c_message_unpack(desc, NULL, n, t);
	tc_arena_finish(&a);
	if (!m) {
		tc_pb_init(r, base, p, len);
		tc_pb_fail(r, p, "a message protobuf-c cannot unpack");
	}
	return m;
}

static void u64_append(struct u64vec *out, const uint64_t *v, size_t n) {
	for (size_t i = 0; i < n; i++) {
		u64_push(out, v[i]);
	}
}

/* Every TrackEventDefaults as it comes, then the rest of the defaults. */
static bool defaults_check(struct tc_pb *r, const uint8_t *base, const uint8_t *p, size_t len,
		const char **what) {
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(r, base, p, len);
	while ((rv = tc_pb_next(r, &f)) > 0) {
		if (f.num == DEF_TRACK_EVENT_DEFAULTS && f.wt == TC_PB_LEN &&
				!walk(r, base, f.data, f.len)) {
			*what = "TrackEventDefaults";
			return false;
		}
	}
	*what = "TracePacketDefaults";
	return rv == 0;
}

bool tc_perfetto_parse_defaults(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r;
	const char *what;
	if (!defaults_check(&r, s->base, p, len, &what)) {
		return tc_perfetto_pb_fail(s, &r, what);
	}
	Perfetto__Protos__TracePacketDefaults *d =
		unpack(&perfetto__protos__trace_packet_defaults__descriptor, defaults_keep,
			&r, s->base, p, len);
	if (!d) {
		return tc_perfetto_pb_fail(s, &r, "TracePacketDefaults");
	}
	const Perfetto__Protos__TrackEventDefaults *ted = d->track_event_defaults;
	if (ted) {
		q->has_def_track = ted->has_track_uuid;
		q->def_track = ted->has_track_uuid ? ted->track_uuid : q->def_track;
		q->def_extra.n = 0;
		q->def_extra_d.n = 0;
		u64_append(&q->def_extra, ted->extra_counter_track_uuids,
			ted->n_extra_counter_track_uuids);
		u64_append(&q->def_extra_d, ted->extra_double_counter_track_uuids,
			ted->n_extra_double_counter_track_uuids);
	}
	perfetto__protos__trace_packet_defaults__free_unpacked(d, NULL);
	return true;
}

/* The packet half's share of the defaults: the clock. It fails where
 * parse_defaults would first fail unless a TrackEventDefaults inside is
 * malformed, which parse_defaults reports on its own (the copy that
 * unpack falls back on keeps the clock alone). */
bool tc_perfetto_defaults_clock(struct pre *b, struct pseq *q, const uint8_t *p, size_t len) {
	struct tc_pb r;
	if (!walk(&r, b->base, p, len)) {
		return tc_perfetto_pre_pb_fail(b, &r, "TracePacketDefaults");
	}
	Perfetto__Protos__TracePacketDefaults *d =
		unpack(&perfetto__protos__trace_packet_defaults__descriptor, defaults_clock_keep,
			&r, b->base, p, len);
	if (!d) {
		return tc_perfetto_pre_pb_fail(b, &r, "TracePacketDefaults");
	}
	if (d->has_timestamp_clock_id) {
		q->has_def_clock = true;
		q->def_clock = d->timestamp_clock_id;
	}
	perfetto__protos__trace_packet_defaults__free_unpacked(d, NULL);
	return true;
}

/* ---- descriptors ---- */

/* protobuf-c leaves an empty value's data NULL, which interning may not
 * copy from. */
static uint32_t bin_id(struct st *s, ProtobufCBinaryData b) {
	return str_id(s, b.len ? b.data : (const uint8_t *)"", b.len);
}

static void process_fields(struct st *s, struct trk *t,
		const Perfetto__Protos__ProcessDescriptor *pd, uint32_t *pname) {
	if (pd->has_pid) {
		t->pid = pd->pid;
	}
	if (pd->has_process_name) {
		*pname = bin_id(s, pd->process_name);
	}
	if (!*pname && pd->n_cmdline) {
		*pname = bin_id(s, pd->cmdline[0]); /* first cmdline word */
	}
}

static void thread_fields(struct st *s, struct trk *t,
		const Perfetto__Protos__ThreadDescriptor *td, uint32_t *tname, int64_t *ref_us) {
	if (td->has_pid) {
		t->pid = td->pid;
	}
	if (td->has_tid) {
		t->tid = td->tid;
	}
	if (td->has_reference_timestamp_us && ref_us) {
		*ref_us = td->reference_timestamp_us;
	}
	if (td->has_thread_name) {
		*tname = bin_id(s, td->thread_name);
	}
}

static void counter_fields(struct st *s, struct trk *t,
		const Perfetto__Protos__CounterDescriptor *cd) {
	t->flags |= TRK_COUNTER;
	if (cd->has_type) {
		t->ctr_type = (uint32_t)cd->type;
	}
	if (cd->has_unit_multiplier) {
		t->mult = cd->unit_multiplier ? cd->unit_multiplier : 1;
	}
	if (cd->has_is_incremental && cd->is_incremental) {
		t->flags |= TRK_INCR;
	}
	uint32_t unit_name = cd->has_unit_name ? bin_id(s, cd->unit_name) : 0;
	uint32_t unit_enum = cd->has_unit ? (uint32_t)cd->unit : 0;
	if (unit_name) {
		t->unit = unit_name;
	} else if (unit_enum == CD_UNIT_TIME_NS || t->ctr_type == CD_TYPE_THREAD_TIME_NS) {
		t->unit = s->s_ns;
	} else if (unit_enum == CD_UNIT_SIZE_BYTES) {
		t->unit = s->s_bytes;
	} else if (unit_enum == CD_UNIT_COUNT || t->ctr_type == CD_TYPE_THREAD_INSTRUCTION_COUNT) {
		t->unit = s->s_count;
	}
}

bool tc_perfetto_parse_process(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *pname) {
	struct tc_pb r;
	Perfetto__Protos__ProcessDescriptor *pd;
	if (!walk(&r, s->base, p, len) ||
			!(pd = unpack(&perfetto__protos__process_descriptor__descriptor, process_keep,
			&r, s->base, p, len))) {
		return tc_perfetto_pb_fail(s, &r, "ProcessDescriptor");
	}
	process_fields(s, t, pd, pname);
	perfetto__protos__process_descriptor__free_unpacked(pd, NULL);
	return true;
}

bool tc_perfetto_parse_thread(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *tname, int64_t *ref_us) {
	struct tc_pb r;
	Perfetto__Protos__ThreadDescriptor *td;
	if (!walk(&r, s->base, p, len) ||
			!(td = unpack(&perfetto__protos__thread_descriptor__descriptor, thread_keep,
			&r, s->base, p, len))) {
		return tc_perfetto_pb_fail(s, &r, "ThreadDescriptor");
	}
	thread_fields(s, t, td, tname, ref_us);
	perfetto__protos__thread_descriptor__free_unpacked(td, NULL);
	return true;
}

/* Process names by pid, from process descriptors of every kind. */
void tc_perfetto_proc_set(struct st *s, int64_t pid, uint32_t name) {
	struct procs *ps = &s->procs;
	uint32_t *p = tc_u64map_find(&ps->by_pid, (uint64_t)pid);
	if (p) {
		if (name) {
			ps->v[*p].name = name;
		}
		return;
	}
	TC_GROW(ps->v, ps->cap, ps->n + 1);
	ps->v[ps->n] = (struct proc_name){ .pid = pid, .name = name };
	tc_u64map_put(&ps->by_pid, (uint64_t)pid, (uint32_t)ps->n++);
}

/*
 * A track descriptor's wire errors as the reader has always reported them:
 * the descriptor's own, then its last thread (else process), then its last
 * counter. The ones not read (a process beside a thread) are not looked at.
 */
static bool track_desc_check(struct tc_pb *r, const uint8_t *base, const uint8_t *p,
		size_t len, const char **what) {
	struct tc_pb_field f = { 0 };
	int rv;
	const uint8_t *proc = NULL, *thr = NULL, *ctr = NULL;
	size_t proc_len = 0, thr_len = 0, ctr_len = 0;
	tc_pb_init(r, base, p, len);
	while ((rv = tc_pb_next(r, &f)) > 0) {
		if (f.wt != TC_PB_LEN) {
			continue;
		}
		if (f.num == TRD_PROCESS) {
			proc = f.data;
			proc_len = f.len;
		} else if (f.num == TRD_THREAD) {
			thr = f.data;
			thr_len = f.len;
		} else if (f.num == TRD_COUNTER) {
			ctr = f.data;
			ctr_len = f.len;
		}
	}
	*what = "TrackDescriptor";
	if (rv < 0) {
		return false;
	}
	*what = thr ? "ThreadDescriptor" : "ProcessDescriptor";
	if (thr ? !walk(r, base, thr, thr_len) : proc && !walk(r, base, proc, proc_len)) {
		return false;
	}
	*what = "CounterDescriptor";
	return !ctr || walk(r, base, ctr, ctr_len);
}

bool tc_perfetto_parse_track_desc(struct st *s, const uint8_t *p, size_t len) {
	struct tc_pb r;
	const char *what;
	if (!track_desc_check(&r, s->base, p, len, &what)) {
		return tc_perfetto_pb_fail(s, &r, what);
	}
	Perfetto__Protos__TrackDescriptor *td =
		unpack(&perfetto__protos__track_descriptor__descriptor, track_keep, &r, s->base, p, len);
	if (!td) {
		return tc_perfetto_pb_fail(s, &r, "TrackDescriptor");
	}
	uint32_t k = trk_get(s, td->uuid);
	struct trk *t = &s->trks[k];
	t->flags |= TRK_DESC;
	t->parent_uuid = td->parent_uuid;
	bool has_name = td->static_or_dynamic_name_case !=
		PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME__NOT_SET;
	if (has_name) {
		/* name, static_name and atrace_name: one oneof, the last wins. */
		t->name = bin_id(s, td->static_or_dynamic_name_case ==
			PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME ? td->name :
			td->static_or_dynamic_name_case ==
			PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_STATIC_NAME ?
			td->static_name : td->atrace_name);
	}
	/* chrome_process is not in the schema: it has no pid. */
	if (td->thread) {
		uint32_t tname = 0;
		thread_fields(s, t, td->thread, &tname, NULL);
		t->flags |= TRK_THREAD;
		if (tname && !has_name) {
			t->name = tname;
		}
	} else if (td->process) {
		uint32_t pname = 0;
		process_fields(s, t, td->process, &pname);
		t->flags |= TRK_PROCESS;
		tc_perfetto_proc_set(s, t->pid, pname);
	}
	if (td->counter) {
		counter_fields(s, t, td->counter);
	}
	perfetto__protos__track_descriptor__free_unpacked(td, NULL);
	return true;
}
