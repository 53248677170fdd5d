/* Perfetto model build: track records become devices, tracks and counters. */
#include "ingest/perfetto/perfetto_private.h"

/* ---- building the model ---- */

struct assoc {
	int kind;      /* 0 none, 1 process, 2 thread */
	int64_t pid, tid;
	uint32_t thread_trk;
};

struct builder {
	struct tc_u64map proc_dev;   /* pid -> device */
	struct tc_u64map gpu_dev;    /* gpu ordinal + 1 -> device */
	struct tc_u64map thread_trk; /* pseudo(pid, tid) -> model track */
	uint32_t other_dev;
	/* per track record: its trk_assoc once known (as_state AS_DONE), and
	 * the way up of the walk in progress */
	struct assoc *as;
	uint8_t *as_state;
	uint32_t *as_path;
};

enum { AS_UNKNOWN, AS_WALK, AS_DONE };

/* The process/thread a track belongs to: its own descriptor or the nearest
 * ancestor's (a child of a thread track is that thread's sibling). Every
 * track on the way up shares the answer, which is kept: a walk to the top
 * per track made a deep chain of parents cost its square. */
static struct assoc trk_assoc(struct st *s, struct builder *b, uint32_t k) {
	struct assoc a = { .thread_trk = TC_NONE };
	size_t n = 0;
	for (;;) {
		if (b->as_state[k] == AS_DONE) {
			a = b->as[k];
			break;
		}
		if (b->as_state[k] == AS_WALK) {
			break; /* a parent cycle: treat as unassociated */
		}
		b->as_state[k] = AS_WALK;
		b->as_path[n++] = k;
		const struct trk *t = &s->trks[k];
		if (t->flags & TRK_THREAD) {
			a.kind = 2;
			a.pid = t->pid;
			a.tid = t->tid;
			a.thread_trk = k;
			break;
		}
		if (t->flags & TRK_PROCESS) {
			a.kind = 1;
			a.pid = t->pid;
			break;
		}
		uint32_t *p = t->parent_uuid ? tc_u64map_find(&s->trk_by_uuid, t->parent_uuid) : NULL;
		if (!p) {
			break;
		}
		k = *p;
	}
	for (size_t i = 0; i < n; i++) {
		b->as[b->as_path[i]] = a;
		b->as_state[b->as_path[i]] = AS_DONE;
	}
	return a;
}

static uint32_t proc_device(struct st *s, struct builder *b, int64_t pid) {
	uint32_t *p = tc_u64map_find(&b->proc_dev, (uint64_t)pid);
	if (p) {
		return *p;
	}
	uint32_t *np = tc_u64map_find(&s->procs.by_pid, (uint64_t)pid);
	uint32_t pname = np ? s->procs.v[*np].name : 0;
	char buf[64];
	const char *nm = pname ? tc_model_str(s->m, pname) : NULL;
	uint32_t name;
	if (nm && *nm) {
		name = tc_model_intern(s->m, tc_arena_strfmt(&s->m->arena, "%s (pid %" PRId64 ")",
			nm, pid));
	} else {
		snprintf(buf, sizeof(buf), "pid %" PRId64, pid);
		name = tc_model_intern(s->m, buf);
	}
	uint32_t d = tc_model_add_device(s->m, name, TC_DEV_CPU);
	s->m->devices[d].src_id = pid;
	s->m->devices[d].pid = pid;
	tc_u64map_put(&b->proc_dev, (uint64_t)pid, d);
	return d;
}

static uint32_t gpu_device(struct st *s, struct builder *b, int64_t ordinal) {
	uint32_t *p = tc_u64map_find(&b->gpu_dev, (uint64_t)(ordinal + 1));
	if (p) {
		return *p;
	}
	char buf[48];
	if (ordinal >= 0) {
		snprintf(buf, sizeof(buf), "GPU %" PRId64, ordinal);
	} else {
		snprintf(buf, sizeof(buf), "GPU");
	}
	uint32_t d = tc_model_add_device(s->m, tc_model_intern(s->m, buf), TC_DEV_GPU);
	s->m->devices[d].ordinal = (int32_t)ordinal;
	s->m->devices[d].src_id = ordinal;
	tc_u64map_put(&b->gpu_dev, (uint64_t)(ordinal + 1), d);
	return d;
}

static uint32_t other_device(struct st *s, struct builder *b) {
	if (b->other_dev == TC_NONE) {
		b->other_dev = tc_model_add_device(s->m,
			tc_model_intern(s->m, "Perfetto tracks"), TC_DEV_OTHER);
	}
	return b->other_dev;
}

/* A custom track that is GPU device work, by its own name; -2 if not, else
 * the ordinal after "GPU" (-1 none). */
static int64_t gpu_ordinal(const char *name) {
	if (!tc_perfetto_contains_ci(name, "gpu") && !tc_perfetto_contains_ci(name, "stream") &&
			!tc_perfetto_contains_ci(name, "render stage")) {
		return -2;
	}
	for (const char *p = name; *p; p++) {
		if ((p[0] | 0x20) == 'g' && (p[1] | 0x20) == 'p' && (p[2] | 0x20) == 'u') {
			const char *d = p + 3;
			while (*d == ' ' || *d == ':' || *d == '#') {
				d++;
			}
			if (*d >= '0' && *d <= '9') {
				return strtoll(d, NULL, 10);
			}
		}
	}
	return -1;
}

static uint32_t trk_name(struct st *s, const struct trk *t) {
	if (t->name) {
		return t->name;
	}
	char buf[64];
	if (t->flags & TRK_THREAD) {
		snprintf(buf, sizeof(buf), "thread %" PRId64, t->tid);
	} else if (t->flags & TRK_PROCESS) {
		uint32_t *np = tc_u64map_find(&s->procs.by_pid, (uint64_t)t->pid);
		if (np && s->procs.v[*np].name) {
			return s->procs.v[*np].name;
		}
		snprintf(buf, sizeof(buf), "process %" PRId64, t->pid);
	} else if (t->uuid == 0) {
		return s->s_global;
	} else if (t->ctr_type == 1) {
		return s->s_thread_time;
	} else if (t->ctr_type == 2) {
		return s->s_instr;
	} else {
		snprintf(buf, sizeof(buf), "track %" PRIu64, t->uuid);
	}
	return tc_model_intern(s->m, buf);
}

/* Track record k's model track, made here (k has none yet); *up is set to
 * the record of the parent whose model track becomes this one's parent,
 * or TC_NONE. */
static uint32_t build_one(struct st *s, struct builder *b, uint32_t k, uint32_t *up) {
	struct trk *t = &s->trks[k];
	*up = TC_NONE;
	if (!(t->flags & (TRK_DESC | TRK_GPU | TRK_SYNTH | TRK_UNKNOWN_WARNED)) &&
			t->uuid != 0) {
		t->flags |= TRK_UNKNOWN_WARNED;
		tc_model_warn(s->m, 1, "perfetto: events on track uuids with no descriptor "
			"were put on tracks of their own");
	}
	uint32_t name = trk_name(s, t);
	t = &s->trks[k];
	uint32_t mt;
	if (t->flags & TRK_GPU) {
		mt = tc_model_add_track(s->m, gpu_device(s, b, t->gpu_id), name,
			TC_TRACK_STREAM, t->src);
		t = &s->trks[k];
		t->mtrack = mt;
		return mt;
	}
	struct assoc a = trk_assoc(s, b, k);
	if (a.kind == 2 && a.thread_trk == k) {
		uint64_t key = pseudo_uuid(1, (uint64_t)a.pid, (uint64_t)a.tid);
		uint32_t *p = tc_u64map_find(&b->thread_trk, key);
		if (p) {
			mt = *p;
			/* A later descriptor may carry the thread name. */
			if (t->name && s->m->tracks[mt].name != t->name) {
				s->m->tracks[mt].name = t->name;
			}
		} else {
			mt = tc_model_add_track(s->m, proc_device(s, b, a.pid), name,
				TC_TRACK_HOST_THREAD, a.tid);
			tc_u64map_put(&b->thread_trk, key, mt);
		}
		s->trks[k].mtrack = mt;
		return mt;
	}
	int64_t ord = (t->flags & (TRK_THREAD | TRK_PROCESS)) ? -2 :
		gpu_ordinal(tc_model_str(s->m, name));
	uint32_t dev;
	enum tc_track_kind kind = TC_TRACK_OTHER;
	if (ord != -2) {
		dev = gpu_device(s, b, ord);
		kind = TC_TRACK_STREAM;
		s->trks[k].flags |= TRK_GPU;
	} else if (a.kind) {
		dev = proc_device(s, b, a.pid);
	} else {
		dev = other_device(s, b);
	}
	mt = tc_model_add_track(s->m, dev, name, kind, (s->trks[k].flags & TRK_SYNTH) ?
		s->trks[k].src : (int64_t)s->trks[k].uuid);
	s->trks[k].mtrack = mt;
	/* Keep the parent chain (parents get tracks of their own). */
	uint64_t pu = s->trks[k].parent_uuid;
	if (pu && kind != TC_TRACK_STREAM &&
			!(s->trks[k].flags & (TRK_THREAD | TRK_PROCESS))) {
		uint32_t *pp = tc_u64map_find(&s->trk_by_uuid, pu);
		/* A process parent is the device itself. */
		if (pp && *pp != k &&
				!(s->trks[*pp].flags & (TRK_COUNTER | TRK_PROCESS))) {
			*up = *pp;
		}
	}
	return mt;
}

/* Record k's model track, and those of the parents up its chain that have
 * none yet, child first. A loop, not recursion: a chain of parents may be
 * as deep as the trace has track descriptors. A record's track is set as
 * it is made, so a parent cycle stops at the first record met again. */
static uint32_t build_track(struct st *s, struct builder *b, uint32_t k) {
	if (s->trks[k].mtrack != TC_NONE) {
		return s->trks[k].mtrack;
	}
	uint32_t up, child = TC_NONE, first = TC_NONE;
	for (;;) {
		uint32_t mt = s->trks[k].mtrack;
		bool made = mt == TC_NONE;
		if (made) {
			mt = build_one(s, b, k, &up);
		}
		if (child != TC_NONE) {
			s->m->tracks[child].parent = mt;
		}
		first = first == TC_NONE ? mt : first;
		if (!made || up == TC_NONE) {
			return first;
		}
		child = mt;
		k = up;
	}
}

static uint32_t build_counter(struct st *s, struct builder *b, uint32_t k) {
	struct trk *t = &s->trks[k];
	if (t->mctr != TC_NONE) {
		return t->mctr;
	}
	uint32_t name = trk_name(s, t);
	uint32_t dev = TC_NONE, group = 0;
	t = &s->trks[k];
	if (t->flags & TRK_GPU) {
		dev = gpu_device(s, b, t->gpu_id);
	} else {
		struct assoc a = trk_assoc(s, b, k);
		if (a.kind) {
			dev = proc_device(s, b, a.pid);
		}
		if (a.kind == 2) {
			group = trk_name(s, &s->trks[a.thread_trk]);
		}
	}
	t = &s->trks[k];
	t->mctr = tc_model_counter(s->m, dev, name, t->unit, group);
	return t->mctr;
}

void tc_perfetto_build_model(struct st *s) {
	struct tc_model *m = s->m;
	struct builder b = { .other_dev = TC_NONE };
	size_t nt = s->n_trks ? s->n_trks : 1;
	b.as = tc_xmalloc(nt * sizeof(*b.as));
	b.as_state = tc_xcalloc(nt, sizeof(*b.as_state));
	b.as_path = tc_xmalloc(nt * sizeof(*b.as_path));

	tc_perfetto_pair_deferred(s);
	/* Unfinished slices end at the last timestamp of the trace. */
	size_t unfinished = 0;
	for (size_t k = 0; k < s->n_trks; k++) {
		struct trk *t = &s->trks[k];
		while (t->depth) {
			uint32_t ev = t->stack[--t->depth];
			m->ev.dur[ev] = s->last_ps - m->ev.start[ev];
			m->ev.flags[ev] |= TC_EV_UNFINISHED;
			unfinished++;
		}
	}
	if (unfinished) {
		tc_model_warn(m, unfinished, "perfetto: slices that never ended were closed "
			"at the end of the trace");
	}

	/* Tracks with events, in the order their descriptors came. */
	for (size_t k = 0; k < s->n_trks; k++) {
		struct trk *t = &s->trks[k];
		if (!t->nev) {
			continue;
		}
		build_track(s, &b, (uint32_t)k);
	}

	/* ps 0 = the earliest event or sample. */
	bool any = s->any_ev;
	int64_t lo = s->first_ps;
	for (size_t i = s->smp0; i < m->samples.n; i++) {
		if (!any || m->samples.ts[i] < lo) {
			lo = m->samples.ts[i];
			any = true;
		}
	}
	if (!any) {
		lo = 0;
	}

	/* Events, in one pass: internal track record -> model track,
	 * device-work ops, times from the origin. */
	uint32_t *trk = tc_model_track_column(m);
	for (size_t i = s->ev0; i < m->ev.n; i++) {
		uint32_t k = trk[i];
		const struct trk *t = &s->trks[k];
		uint32_t mt = t->mtrack != TC_NONE ? t->mtrack : build_track(s, &b, k);
		trk[i] = mt;
		m->ev.start[i] -= lo;
		if (s->trks[k].flags & TRK_GPU) {
			uint32_t op = m->ev.op[i];
			uint32_t *p = tc_u64map_find(&s->dev_op, op);
			if (!p) {
				const struct tc_op *o = &m->ops[op];
				uint32_t nop = tc_perfetto_class_op(m, o->name, o->category, true);
				p = tc_u64map_put(&s->dev_op, op, nop);
			}
			if (*p != op) {
				tc_model_costs_unnoted(m); /* its costs were noted for op */
			}
			m->ev.op[i] = *p;
		}
	}
	for (size_t i = s->smp0; i < m->samples.n; i++) {
		m->samples.counter[i] = build_counter(s, &b, m->samples.counter[i]);
		m->samples.ts[i] -= lo;
	}
	if (any) {
		m->origin_ns = s->base_ns + lo / 1000;
		m->origin_epoch = false;
	}

	/* Flows point from the earlier event to the later one. */
	for (size_t i = s->flow0; i < m->n_flows; i++) {
		struct tc_flow *fl = &m->flows[i];
		if (m->ev.start[fl->from] > m->ev.start[fl->to]) {
			uint32_t t = fl->from;
			fl->from = fl->to;
			fl->to = t;
		}
		if (m->ops[m->ev.op[fl->from]].kind == TC_OP_RUNTIME &&
				tc_track_kind_is_device_work(m->tracks[trk[fl->to]].kind)) {
			fl->kind = TC_FLOW_LAUNCH;
		}
	}
	tc_u64map_finish(&b.proc_dev);
	tc_u64map_finish(&b.gpu_dev);
	tc_u64map_finish(&b.thread_trk);
	free(b.as);
	free(b.as_state);
	free(b.as_path);
}
