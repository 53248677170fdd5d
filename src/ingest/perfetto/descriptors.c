/* Perfetto interned data, sequence defaults and track descriptors. */
#include "ingest/perfetto/perfetto_private.h"

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

bool tc_perfetto_parse_defaults(struct st *s, struct seq *q, const uint8_t *p, size_t len) {
	struct tc_pb r, e;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rv, rv2;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == DEF_TRACK_EVENT_DEFAULTS && f.wt == TC_PB_LEN) {
			q->def_extra.n = 0;
			q->def_extra_d.n = 0;
			q->has_def_track = false;
			tc_pb_init(&e, s->base, f.data, f.len);
			while ((rv2 = tc_pb_next(&e, &g)) > 0) {
				if (g.num == TED_TRACK_UUID && g.wt == TC_PB_VARINT) {
					q->has_def_track = true;
					q->def_track = g.u;
				} else if (g.num == TED_EXTRA_COUNTER_UUIDS) {
					tc_perfetto_parse_u64_list(&g, &q->def_extra, false);
				} else if (g.num == TED_EXTRA_DOUBLE_COUNTER_UUIDS) {
					tc_perfetto_parse_u64_list(&g, &q->def_extra_d, false);
				}
			}
			if (rv2 < 0) {
				return tc_perfetto_pb_fail(s, &e, "TrackEventDefaults");
			}
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "TracePacketDefaults");
	}
	return true;
}

/* The packet half's share of the defaults: the clock. It walks the same
 * outer fields as parse_defaults, so it fails where that would first fail
 * unless a TrackEventDefaults inside is malformed, which parse_defaults
 * reports on its own. */
bool tc_perfetto_defaults_clock(struct pre *b, struct pseq *q, const uint8_t *p, size_t len) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, b->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == DEF_TIMESTAMP_CLOCK_ID && f.wt == TC_PB_VARINT) {
			q->has_def_clock = true;
			q->def_clock = (uint32_t)f.u;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pre_pb_fail(b, &r, "TracePacketDefaults");
	}
	return true;
}

/* ---- descriptors ---- */

bool tc_perfetto_parse_process(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *pname) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.num == PD_PID && f.wt == TC_PB_VARINT) {
			t->pid = (int64_t)f.u;
		} else if (f.num == PD_PROCESS_NAME && f.wt == TC_PB_LEN) {
			*pname = str_id(s, f.data, f.len);
		} else if (f.num == PD_CMDLINE && f.wt == TC_PB_LEN && !*pname) {
			*pname = str_id(s, f.data, f.len); /* first cmdline word */
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "ProcessDescriptor");
	}
	return true;
}

bool tc_perfetto_parse_thread(struct st *s, struct trk *t, const uint8_t *p, size_t len,
		uint32_t *tname, int64_t *ref_us) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.wt == TC_PB_VARINT) {
			if (f.num == TD_PID) {
				t->pid = (int64_t)(int32_t)f.u;
			} else if (f.num == TD_TID) {
				t->tid = (int64_t)f.u;
			} else if (f.num == TD_REFERENCE_TIMESTAMP_US && ref_us) {
				*ref_us = (int64_t)f.u;
			}
		} else if (f.num == TD_THREAD_NAME && f.wt == TC_PB_LEN) {
			*tname = str_id(s, f.data, f.len);
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "ThreadDescriptor");
	}
	return true;
}

static bool parse_counter_desc(struct st *s, struct trk *t, const uint8_t *p, size_t len) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	uint32_t unit_name = 0, unit_enum = 0;
	tc_pb_init(&r, s->base, p, len);
	t->flags |= TRK_COUNTER;
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		if (f.wt == TC_PB_VARINT) {
			switch (f.num) {
			case CD_TYPE: t->ctr_type = (uint32_t)f.u; break;
			case CD_UNIT: unit_enum = (uint32_t)f.u; break;
			case CD_UNIT_MULTIPLIER: t->mult = (int64_t)f.u ? (int64_t)f.u : 1; break;
			case CD_IS_INCREMENTAL:
				if (f.u) {
					t->flags |= TRK_INCR;
				}
				break;
			}
		} else if (f.num == CD_UNIT_NAME && f.wt == TC_PB_LEN) {
			unit_name = str_id(s, f.data, f.len);
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "CounterDescriptor");
	}
	if (unit_name) {
		t->unit = unit_name;
	} else if (unit_enum == CD_UNIT_TIME_NS || t->ctr_type == CD_TYPE_THREAD_TIME_NS) {
		t->unit = s->s_ns;
	} else if (unit_enum == CD_UNIT_SIZE_BYTES) {
		t->unit = s->s_bytes;
	} else if (unit_enum == CD_UNIT_COUNT || t->ctr_type == CD_TYPE_THREAD_INSTRUCTION_COUNT) {
		t->unit = s->s_count;
	}
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

bool tc_perfetto_parse_track_desc(struct st *s, const uint8_t *p, size_t len) {
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	int rv;
	uint64_t uuid = 0, parent = 0;
	uint32_t name = 0;
	bool has_name = false;
	const uint8_t *proc = NULL, *thr = NULL, *ctr = NULL;
	size_t proc_len = 0, thr_len = 0, ctr_len = 0;
	tc_pb_init(&r, s->base, p, len);
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		switch (f.num) {
		case TRD_UUID:
			if (f.wt == TC_PB_VARINT) {
				uuid = f.u;
			}
			break;
		case TRD_PARENT_UUID:
			if (f.wt == TC_PB_VARINT) {
				parent = f.u;
			}
			break;
		case TRD_NAME: case TRD_STATIC_NAME: case TRD_ATRACE_NAME:
			if (f.wt == TC_PB_LEN) {
				name = str_id(s, f.data, f.len);
				has_name = true;
			}
			break;
		case TRD_PROCESS: case TRD_CHROME_PROCESS: /* process, chrome_process: chrome's has no pid */
			if (f.wt == TC_PB_LEN && f.num == TRD_PROCESS) {
				proc = f.data;
				proc_len = f.len;
			}
			break;
		case TRD_THREAD:
			if (f.wt == TC_PB_LEN) {
				thr = f.data;
				thr_len = f.len;
			}
			break;
		case TRD_COUNTER:
			if (f.wt == TC_PB_LEN) {
				ctr = f.data;
				ctr_len = f.len;
			}
			break;
		}
	}
	if (rv < 0) {
		return tc_perfetto_pb_fail(s, &r, "TrackDescriptor");
	}
	uint32_t k = trk_get(s, uuid);
	struct trk *t = &s->trks[k];
	t->flags |= TRK_DESC;
	t->parent_uuid = parent;
	if (has_name) {
		t->name = name;
	}
	if (thr) {
		uint32_t tname = 0;
		if (!tc_perfetto_parse_thread(s, t, thr, thr_len, &tname, NULL)) {
			return false;
		}
		t->flags |= TRK_THREAD;
		if (tname && !has_name) {
			t->name = tname;
		}
	} else if (proc) {
		uint32_t pname = 0;
		if (!tc_perfetto_parse_process(s, t, proc, proc_len, &pname)) {
			return false;
		}
		t->flags |= TRK_PROCESS;
		tc_perfetto_proc_set(s, t->pid, pname);
	}
	if (ctr && !parse_counter_desc(s, t, ctr, ctr_len)) {
		return false;
	}
	return true;
}
