/* Chrome JSON linking: correlations, flows, device steps and device settling. */
#include "ingest/json/json_private.h"
#include "ingest/json/number.h"

/* Runtime call → device activity by correlation id. */
size_t tc_json_link_correlations(struct reader *r) {
	if (!r->n_host_corr || !r->n_dev_corr) {
		return 0;
	}
	struct tc_corr_index ix;
	tc_corr_index_init(&ix, r->host_corr, r->n_host_corr);
	size_t links = 0;
	for (size_t i = 0; i < r->n_dev_corr; i++) {
		uint64_t c = r->dev_corr[i].id;
		uint32_t host = tc_corr_index_find(&ix, c);
		if (host != TC_NONE) {
			tc_model_add_flow(r->m, host, r->dev_corr[i].ev, TC_FLOW_LAUNCH, c);
			links++;
		}
	}
	tc_corr_index_finish(&ix);
	return links;
}

struct tev {
	uint32_t track;
	int64_t start, end;
	uint32_t ev;
};

static int cmp_tev(const void *pa, const void *pb) {
	const struct tev *a = pa, *b = pb;
	if (a->track != b->track) {
		return a->track < b->track ? -1 : 1;
	}
	if (a->start != b->start) {
		return a->start < b->start ? -1 : 1;
	}
	if (a->end != b->end) {
		return a->end > b->end ? -1 : 1;
	}
	return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* The plain and the host-category track of an endpoint's (pid, tid). */
static void flow_tracks(const struct reader *r, const struct flow_end *f, uint32_t cand[2]) {
	const struct thr_info *t = &r->thrs[f->thr];
	cand[0] = t->track;
	uint32_t a = tc_json_thr_index(r, t->pid, t->tid, FL_ASIDE, 0);
	cand[1] = a != TC_NONE ? r->thrs[a].track : TC_NONE;
}

/* The slice on track t an endpoint at ts binds to: the latest-starting one
 * enclosing ts, or (not enclosing) the first starting at or after ts. */
static uint32_t bind_end(const struct tev *tv, size_t ntv, uint32_t t, int64_t ts,
		bool enclosing) {
	size_t lo = 0, hi = ntv;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tv[mid].track < t || (tv[mid].track == t && tv[mid].start <= ts)) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (!enclosing) {
		size_t j = lo;
		while (j > 0 && tv[j - 1].track == t && tv[j - 1].start == ts) {
			j--;
		}
		if (j < ntv && tv[j].track == t) {
			return tv[j].ev;
		}
	}
	size_t steps = 0;
	for (size_t j = lo; j-- > 0 && tv[j].track == t && steps < 4096; steps++) {
		if (tv[j].end >= ts) {
			return tv[j].ev;
		}
	}
	return TC_NONE;
}

static int cmp_fe(const void *pa, const void *pb) {
	const struct flow_end *a = pa, *b = pb;
	if (a->cat != b->cat) {
		return a->cat < b->cat ? -1 : 1;
	}
	if (a->id != b->id) {
		return a->id < b->id ? -1 : 1;
	}
	if (a->ts != b->ts) {
		return a->ts < b->ts ? -1 : 1;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Bind v1 flow endpoints to slices, then link consecutive endpoints of each
 * id: an endpoint that may start a link to the next that may end one. */
void tc_json_link_flows(struct reader *r, bool skip_launch_cats) {
	struct tc_model *m = r->m;
	size_t k = 0;
	for (size_t i = 0; i < r->n_fe; i++) {
		uint32_t c = r->fe[i].cat;
		if (skip_launch_cats && c && (c == r->s.ac2g || c == r->s.async_cpu_to_gpu ||
				c == r->s.async)) {
			continue;
		}
		r->fe[k++] = r->fe[i];
	}
	r->n_fe = k;
	if (!k) {
		return;
	}
	/* Events of the tracks that endpoints refer to, sorted per track. */
	uint8_t *want = tc_xcalloc(m->n_tracks + 1, 1);
	for (size_t i = 0; i < r->n_fe; i++) {
		if (r->fe[i].ev == TC_NONE) {
			uint32_t cand[2];
			flow_tracks(r, &r->fe[i], cand);
			for (int c = 0; c < 2; c++) {
				if (cand[c] != TC_NONE) {
					want[cand[c]] = 1;
				}
			}
		}
	}
	struct tev *tv = NULL;
	size_t ntv = 0, cap = 0;
	const uint32_t *trk = tc_model_track_column(m);
	for (size_t i = 0; i < m->ev.n; i++) {
		uint32_t t = trk[i];
		if (t < m->n_tracks && want[t]) {
			TC_GROW(tv, cap, ntv + 1);
			tv[ntv++] = (struct tev){ t, m->ev.start[i], m->ev.start[i] + m->ev.dur[i],
				(uint32_t)i };
		}
	}
	free(want);
	if (ntv) {
		tc_sort(tv, ntv, sizeof(*tv), cmp_tev);
	}
	for (size_t i = 0; i < r->n_fe; i++) {
		struct flow_end *f = &r->fe[i];
		if (f->ev != TC_NONE) {
			continue;
		}
		uint32_t cand[2];
		flow_tracks(r, f, cand);
		for (int c = 0; c < 2 && f->ev == TC_NONE; c++) {
			if (cand[c] != TC_NONE) {
				f->ev = bind_end(tv, ntv, cand[c], f->ts, f->enclosing);
			}
		}
	}
	free(tv);
	tc_sort(r->fe, r->n_fe, sizeof(*r->fe), cmp_fe); /* n_fe > 0 here */
	/* Each endpoint that may end a link is linked from the latest earlier
	 * endpoint of the same id that may start one. */
	size_t last_out = SIZE_MAX;
	for (size_t i = 0; i < r->n_fe; i++) {
		const struct flow_end *b = &r->fe[i];
		if (i > 0 && (b->cat != r->fe[i - 1].cat || b->id != r->fe[i - 1].id)) {
			last_out = SIZE_MAX;
		}
		if (b->in && last_out != SIZE_MAX) {
			const struct flow_end *a = &r->fe[last_out];
			if (a->ev == TC_NONE || b->ev == TC_NONE) {
				r->n_flows_unbound++;
			} else if (a->ev != b->ev) {
				tc_model_add_flow(m, a->ev, b->ev, TC_FLOW_GENERIC, a->id);
			}
		}
		if (b->out) {
			last_out = i;
		}
	}
}

/* Device kinds and names, track kinds and names, now that all metadata is in. */
struct step_span {
	int64_t start, end, num;
	uint32_t ev;
};

static int cmp_span_start(const void *pa, const void *pb) {
	const struct step_span *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_span_num(const void *pa, const void *pb) {
	const struct step_span *a = pa, *b = pb;
	return a->num < b->num ? -1 : a->num > b->num;
}

static size_t step_spans(const struct tc_model *m, const uint32_t *evs, size_t n,
		struct step_span *out) {
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t num;
		if (tc_model_arg_i64(m, tc_model_event_args(m, evs[i]), m->key.step, &num)) {
			out[k++] = (struct step_span){ m->ev.start[evs[i]],
				m->ev.start[evs[i]] + m->ev.dur[evs[i]], num, evs[i] };
		}
	}
	return k;
}

/*
 * Kineto projects ProfilerStep#N onto the GPU as the span of the GPU work the
 * step launched, and such a device marker wins over the host's. ROCm traces
 * cut the projection short (mi250 minitoy: 8 of the step's 16 kernels fall
 * after it), so a device whose projections miss GPU work launched inside the
 * matching host step keeps them as annotations: the host markers count.
 */
void tc_json_check_device_steps(struct reader *r) {
	struct tc_model *m = r->m;
	if (!r->n_dev_steps || !r->n_host_steps) {
		return;
	}
	const uint32_t *trk = tc_model_track_column(m);
	struct step_span *hs = tc_xmalloc(r->n_host_steps * sizeof(*hs));
	struct step_span *ds = tc_xmalloc(r->n_dev_steps * sizeof(*ds));
	size_t nh = step_spans(m, r->host_steps, r->n_host_steps, hs);
	size_t nd = step_spans(m, r->dev_steps, r->n_dev_steps, ds);
	qsort(hs, nh, sizeof(*hs), cmp_span_start);
	qsort(ds, nd, sizeof(*ds), cmp_span_num);
	uint8_t *short_dev = tc_xcalloc(m->n_devices + 1, 1);
	const int64_t slack = 1000000; /* 1 us: the writer's µs rounding */
	for (size_t f = 0; f < m->n_flows && nh && nd; f++) {
		const struct tc_flow *fl = &m->flows[f];
		if (fl->kind != TC_FLOW_LAUNCH) {
			continue;
		}
		/* The host step whose span holds the launch: the last starting
		 * at or before it. */
		int64_t t = m->ev.start[fl->from];
		size_t lo = 0, hi = nh;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (hs[mid].start <= t) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (!lo || t > hs[lo - 1].end) {
			continue;
		}
		int64_t num = hs[lo - 1].num;
		uint32_t dev = m->tracks[trk[fl->to]].device;
		int64_t a = m->ev.start[fl->to], b = a + m->ev.dur[fl->to];
		lo = 0;
		hi = nd;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (ds[mid].num < num) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		for (size_t k = lo; k < nd && ds[k].num == num; k++) {
			if (m->tracks[trk[ds[k].ev]].device == dev &&
					(a < ds[k].start - slack || b > ds[k].end + slack)) {
				short_dev[dev < m->n_devices ? dev : m->n_devices] = 1;
			}
		}
	}
	uint64_t demoted = 0;
	for (size_t k = 0; k < r->n_dev_steps; k++) {
		uint32_t i = r->dev_steps[k];
		uint32_t dev = m->tracks[trk[i]].device;
		if (short_dev[dev < m->n_devices ? dev : m->n_devices]) {
			const struct tc_op *o = &m->ops[m->ev.op[i]];
			m->ev.op[i] = tc_model_op(m, o->name, o->category, TC_OP_ANNOTATION);
			tc_model_costs_unnoted(m); /* its costs were noted for its op */
			demoted++;
		}
	}
	if (demoted) {
		tc_model_warn(m, demoted, "json: device-side ProfilerStep markers miss GPU work "
			"their host step launched; kept as annotations, host step markers used");
	}
	free(short_dev);
	free(hs);
	free(ds);
}

/*
 * Device d's kind and name from its pid row p: the row's label or name
 * where it says ("GPU 0", "/device:GPU:0", "TPU:0", "/host:CPU"), else
 * what the row holds (device work: a GPU; a numbered process: a host).
 * *ordinal: the device's number where the name gives one, else -1.
 */
static enum tc_device_kind device_kind(struct reader *r, const struct pid_info *p,
		struct tc_device *d, int32_t *ordinal) {
	struct tc_model *m = r->m;
	char buf[512];
	/* TensorFlow 1.x stream rows: the physical device's name. */
	const char *name = p->tf1_dev ? tc_model_str(m, p->tf1_dev) :
		p->name ? tc_model_str(m, p->name) : NULL;
	const char *label = p->label ? tc_model_str(m, p->label) : NULL;
	const char *key = tc_model_str(m, p->key);
	enum tc_device_kind kind;
	*ordinal = -1;
	/* A row is a host by what it holds, whatever its number: Kineto
	 * labels pids 0..N-1 "GPU n" for every visible device, and in a
	 * container the Python process is often pid 1. A pid with host
	 * ops and no device ops of its own is that host. */
	bool is_host = p->host_activity && !p->device_activity;
	if (is_host && p->numeric) {
		label = NULL;
		name = name && tc_json_starts_with(name, "GPU ") ? NULL : name;
	}
	if (label && (tc_json_starts_with(label, "GPU") || tc_json_starts_with(label, "MTIA") ||
			tc_json_starts_with(label, "TPU"))) {
		kind = label[0] == 'G' ? TC_DEV_GPU : label[0] == 'T' ? TC_DEV_TPU : TC_DEV_ACCEL;
		d->name = p->label;
		const char *sp = strchr(label, ' ');
		int64_t o;
		if (sp && parse_i64(sp + 1, strlen(sp + 1), &o)) {
			*ordinal = (int32_t)o;
		}
	} else if (name && (tc_json_starts_with(name, "/device:") || tc_json_starts_with(name, "TPU:") ||
			tc_json_starts_with(name, "/host:"))) {
		d->name = p->tf1_dev ? p->tf1_dev : p->name;
		if (tc_json_starts_with(name, "/host:")) {
			kind = TC_DEV_CPU;
		} else if (strstr(name, "GPU")) {
			kind = TC_DEV_GPU;
		} else if (strstr(name, "TPU")) {
			kind = TC_DEV_TPU;
		} else {
			kind = TC_DEV_ACCEL;
		}
		const char *colon = strrchr(name, ':');
		int64_t o;
		if (colon && parse_i64(colon + 1, strlen(colon + 1), &o)) {
			*ordinal = (int32_t)o;
		}
	} else if (name && tc_json_starts_with(name, "GPU ")) {
		kind = TC_DEV_GPU;
		d->name = p->name;
		*ordinal = p->numeric ? (int32_t)p->num : -1;
	} else if (!is_host && (p->device_activity || p->accel_hint)) {
		kind = TC_DEV_GPU;
		snprintf(buf, sizeof(buf), "GPU %s", key);
		d->name = tc_model_intern(m, buf);
		*ordinal = p->numeric ? (int32_t)p->num : -1;
	} else if (p->numeric) {
		kind = TC_DEV_CPU;
		if (name && *name) {
			snprintf(buf, sizeof(buf), "%s (pid %s)", name, key);
		} else {
			snprintf(buf, sizeof(buf), "pid %s", key);
		}
		d->name = tc_model_intern(m, buf);
	} else {
		kind = TC_DEV_OTHER;
		d->name = name ? p->name : p->key;
		if (!*tc_model_str(m, d->name)) {
			d->name = tc_model_intern(m, "(no pid)");
		}
	}
	return kind;
}

/* The deviceProperties entry of device ordinal. ROCm numbers the entries
 * of the visible devices from 0 while kernels keep the physical index
 * (HIP_VISIBLE_DEVICES=2: one entry, id 0; kernels on device 2): where no
 * entry has the ordinal and all entries describe one part, that part. */
static const struct devprop *devprop_of(const struct reader *r, int32_t ordinal) {
	for (size_t k = 0; k < r->n_dps; k++) {
		if (r->dps[k].id == ordinal) {
			return &r->dps[k];
		}
	}
	for (size_t k = 1; k < r->n_dps; k++) {
		const struct devprop *a = &r->dps[0], *b = &r->dps[k];
		if (a->name != b->name || a->mem != b->mem || a->sms != b->sms ||
				a->major != b->major || a->minor != b->minor) {
			return NULL;
		}
	}
	return r->n_dps ? &r->dps[0] : NULL;
}

static void apply_devprop(struct tc_model *m, struct tc_device *d, const struct devprop *dp) {
	if (!dp) {
		return;
	}
	d->model = dp->name;
	d->memory_bytes = dp->mem;
	d->core_count = (int32_t)dp->sms;
	const char *mn = tc_model_str(m, dp->name);
	if (strstr(mn, "NVIDIA") || strstr(mn, "Tesla")) {
		d->vendor = tc_model_intern(m, "NVIDIA");
	} else if (strstr(mn, "AMD")) {
		d->vendor = tc_model_intern(m, "AMD");
	}
	if (dp->has_major) {
		uint32_t b = tc_model_args_begin(m);
		tc_model_arg_int(m, m->key.compute_major, dp->major);
		if (dp->has_minor) {
			tc_model_arg_int(m, m->key.compute_minor, dp->minor);
		}
		d->args = tc_model_args_end(m, b);
	}
}

/*
 * Thread line t's track kind and name, now that its device is known: an
 * annotation, async or host-side line by its flavour, else by the line's
 * name on its device. has_stream, stream_args: by device, as
 * tc_json_settle_devices finds them.
 */
static void settle_track(struct reader *r, const struct thr_info *t, const uint8_t *has_stream,
		const uint8_t *stream_args) {
	struct tc_model *m = r->m;
	char buf[512];
	struct tc_track *tr = &m->tracks[t->track];
	const struct tc_device *d = &m->devices[tr->device];
	uint32_t tname = t->name;
	if (!tname && t->flavor != FL_PLAIN) {
		uint32_t pl = tc_json_thr_index(r, t->pid, t->tid, FL_PLAIN, 0);
		tname = pl != TC_NONE ? r->thrs[pl].name : 0;
	}
	const char *tn = tname ? tc_model_str(m, tname) : NULL;
	const char *tid = tc_model_str(m, t->tid);
	enum tc_track_kind kind;
	bool device = d->kind == TC_DEV_GPU || d->kind == TC_DEV_TPU ||
		d->kind == TC_DEV_ACCEL;
	if (t->flavor == FL_ANNOTATION) {
		kind = TC_TRACK_ANNOTATION;
		snprintf(buf, sizeof(buf), "%s%s annotations", tn ? "" : "stream ", tn ? tn : tid);
		tr->name = tc_model_intern(m, buf);
	} else if (t->flavor == FL_ASYNC) {
		kind = TC_TRACK_OTHER;
		snprintf(buf, sizeof(buf), "async %s", t->acat ? tc_model_str(m, t->acat) : "");
		tr->name = tc_model_intern(m, buf);
	} else if (t->flavor == FL_ASIDE && device) {
		kind = TC_TRACK_OTHER;
		snprintf(buf, sizeof(buf), "%s%s (host)", tn ? "" : "thread ", tn ? tn : tid);
		tr->name = tc_model_intern(m, buf);
	} else {
		if (d->kind == TC_DEV_CPU) {
			kind = TC_TRACK_HOST_THREAD;
		} else if (!device) {
			kind = TC_TRACK_OTHER;
		} else if (!tn || tc_json_starts_with(tn, "Stream") || tc_json_starts_with(tn, "stream")) {
			kind = TC_TRACK_STREAM;
		} else if (strcmp(tn, "XLA Ops") == 0) {
			kind = has_stream[tr->device] ? TC_TRACK_DERIVED : TC_TRACK_OPS;
		} else if (strcmp(tn, "XLA Modules") == 0) {
			kind = TC_TRACK_MODULES;
		} else if (strcmp(tn, "Steps") == 0) {
			kind = TC_TRACK_STEPS;
		} else if (strstr(tn, "TensorFlow") || strstr(tn, "Framework") ||
				strstr(tn, "Name Scope") || strstr(tn, "Source")) {
			kind = TC_TRACK_DERIVED;
		} else if (stream_args[tr->device] && t->n_dev_ops && !t->n_dev_stream) {
			/* MTIA's "DMA_REQUEST" line: DMAs on no stream (HTA
			 * leaves stream-less events out of its GPU events):
			 * kept, but not device work (docs/analysis.md). */
			kind = TC_TRACK_OTHER;
		} else {
			kind = TC_TRACK_STREAM;
		}
		if (tn) {
			tr->name = tname;
		} else {
			snprintf(buf, sizeof(buf), "%s %s", kind == TC_TRACK_STREAM ? "stream" :
				"thread", *tid ? tid : "(none)");
			tr->name = tc_model_intern(m, buf);
		}
	}
	if (t->kind_hint >= 0 && t->flavor == FL_PLAIN) {
		kind = (enum tc_track_kind)t->kind_hint;
	}
	tr->kind = (uint8_t)kind;
	if (t->has_sort) {
		tr->sort = t->sort;
	}
}

void tc_json_settle_devices(struct reader *r, uint32_t host) {
	struct tc_model *m = r->m;
	for (size_t i = 0; i < r->n_pids; i++) {
		const struct pid_info *p = &r->pids[i];
		if (p->device == TC_NONE) {
			continue;
		}
		struct tc_device *d = &m->devices[p->device];
		int32_t ordinal;
		enum tc_device_kind kind = device_kind(r, p, d, &ordinal);
		const char *key = tc_model_str(m, p->key);
		d->kind = (uint8_t)kind;
		d->ordinal = ordinal;
		d->host = host;
		d->src_id = p->numeric ? p->num : (int64_t)tc_hash(key, strlen(key));
		/* A Kineto GPU "pid" is the device index, not a process. */
		if (kind == TC_DEV_CPU) {
			d->pid = p->num;
		}
		if (kind == TC_DEV_GPU && ordinal >= 0) {
			apply_devprop(m, d, devprop_of(r, ordinal));
		}
	}
	/* Does a device have stream lines? Then XLA Ops on it are derived.
	 * Do its ops name their stream (Kineto)? Then a line whose ops name
	 * none is device activity outside any queue. */
	uint8_t *has_stream = tc_xcalloc(m->n_devices + 1, 1);
	uint8_t *stream_args = tc_xcalloc(m->n_devices + 1, 1);
	for (size_t i = 0; i < r->n_thrs; i++) {
		const struct thr_info *t = &r->thrs[i];
		if (t->track != TC_NONE && t->name &&
				tc_json_starts_with(tc_model_str(m, t->name), "Stream")) {
			has_stream[m->tracks[t->track].device] = 1;
		}
		if (t->track != TC_NONE && t->n_dev_stream) {
			stream_args[m->tracks[t->track].device] = 1;
		}
	}
	for (size_t i = 0; i < r->n_thrs; i++) {
		if (r->thrs[i].track != TC_NONE) {
			settle_track(r, &r->thrs[i], has_stream, stream_args);
		}
	}
	free(has_stream);
	free(stream_args);
}
