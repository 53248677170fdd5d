/* XPlane reader: entry point, line classes and op kinds, planes, sniffing. */
#include "ingest/xplane/xplane_private.h"
#include "util/pair.h"

bool tc_xplane_fail(struct reader *r, const uint8_t *at, const char *fmt, const char *what) {
	tc_error_set(r->err, TC_EXIT_INPUT, fmt, what);
	return tc_error_at(r->err, at ? (int64_t)(at - r->base) : -1);
}

bool tc_xplane_wire_fail(struct reader *r, const struct tc_pb *pb, const char *msg) {
	tc_error_set(r->err, TC_EXIT_INPUT, "xplane: %s in %s", pb->why, msg);
	return tc_error_at(r->err, tc_pb_offset(pb));
}

bool tc_xplane_has_prefix(const uint8_t *s, size_t n, const char *pre) {
	size_t k = strlen(pre);
	return n >= k && memcmp(s, pre, k) == 0;
}

static bool contains_ci(const uint8_t *s, size_t n, const char *needle) {
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++) {
		size_t j = 0;
		while (j < k && tolower(s[i + j]) == needle[j]) {
			j++;
		}
		if (j == k) {
			return true;
		}
	}
	return false;
}

const uint8_t *tc_xplane_memmem_lit(const uint8_t *s, size_t n, const char *lit) {
	size_t k = strlen(lit);
	for (size_t i = 0; i + k <= n; i++) {
		if (s[i] == (uint8_t)lit[0] && memcmp(s + i, lit, k) == 0) {
			return s + i;
		}
	}
	return NULL;
}

static bool eq(const uint8_t *s, size_t n, const char *lit) {
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* Strings are interned as they are; over-long ones are cut (and counted). */
uint32_t tc_xplane_intern(struct reader *r, const uint8_t *s, size_t n) {
	if (n > r->lim->max_string) {
		n = tc_utf8_cut(s, n, r->lim->max_string);
		r->bad_strings++;
	}
	return tc_model_intern_n(r->m, (const char *)s, n);
}

enum lclass tc_xplane_line_class(const uint8_t *s, size_t n, bool host_plane) {
	if (eq(s, n, "_counters_")) {
		return LC_COUNTERS;
	}
	if (host_plane) {
		return LC_HOST;
	}
	if (eq(s, n, "Steps") || eq(s, n, "Sparse Core Steps")) {
		return LC_STEPS;
	}
	if (eq(s, n, "XLA Modules") || eq(s, n, "Sparse Core Modules")) {
		return LC_MODULES;
	}
	if (eq(s, n, "XLA Ops") || eq(s, n, "Sparse Core Ops")) {
		return LC_DEV_OPS;
	}
	if (tc_xplane_has_prefix(s, n, "Stream #")) {
		if (contains_ci(s, n, "(memcpyh2d)")) {
			return LC_H2D;
		}
		if (contains_ci(s, n, "(memcpyd2h)")) {
			return LC_D2H;
		}
		if (contains_ci(s, n, "(memcpyd2d)")) {
			return LC_D2D;
		}
		if (contains_ci(s, n, "(memcpyp2p)")) {
			return LC_P2P;
		}
		if (contains_ci(s, n, "(memset)")) {
			return LC_MEMSET;
		}
		return LC_STREAM;
	}
	if (eq(s, n, "XLA TraceMe")) {
		return LC_TRACEME;
	}
	if (eq(s, n, "Framework Ops") || eq(s, n, "TensorFlow Ops") ||
			eq(s, n, "Framework Name Scope") || eq(s, n, "TensorFlow Name Scope") ||
			eq(s, n, "Source code") || eq(s, n, "Launch Stats") ||
			eq(s, n, "Async XLA Ops") || eq(s, n, "XLA Async Ops") ||
			eq(s, n, "Host Offload Ops") || eq(s, n, "Tensor Core Sync Flag") ||
			eq(s, n, "Sparse Core Syncs") || eq(s, n, "Overlay")) {
		return LC_DERIVED;
	}
	return LC_OTHER;
}

enum tc_track_kind tc_xplane_track_kind(enum lclass c) {
	switch (c) {
	case LC_DEV_OPS:
		return TC_TRACK_OPS;
	case LC_STREAM:
	case LC_H2D:
	case LC_D2H:
	case LC_D2D:
	case LC_P2P:
	case LC_MEMSET:
		return TC_TRACK_STREAM;
	case LC_STEPS:
		return TC_TRACK_STEPS;
	case LC_MODULES:
		return TC_TRACK_MODULES;
	case LC_DERIVED:
	case LC_TRACEME:
		return TC_TRACK_DERIVED;
	case LC_HOST:
		return TC_TRACK_HOST_THREAD;
	case LC_COUNTERS:
		return TC_TRACK_COUNTER;
	default:
		return TC_TRACK_OTHER;
	}
}

/* The line says what its events are where the format fixes it (copy and
 * memset streams, step and module lines, derived lines); on op, stream and
 * host lines the classifier decides by name and hlo_category. */
static void op_class(const struct tc_model *m, const struct emeta *e, enum lclass c,
		struct tc_class *k) {
	static const enum tc_op_kind fixed[] = {
		[LC_H2D] = TC_OP_MEMCPY_H2D, [LC_D2H] = TC_OP_MEMCPY_D2H,
		[LC_D2D] = TC_OP_MEMCPY_D2D, [LC_P2P] = TC_OP_MEMCPY_OTHER,
		[LC_MEMSET] = TC_OP_MEMSET, [LC_MODULES] = TC_OP_MODULE,
		[LC_DERIVED] = TC_OP_ANNOTATION, [LC_TRACEME] = TC_OP_SYNC,
	};
	const char *s = tc_model_str(m, e->name);
	size_t n = tc_intern_len(&m->strings, e->name);
	const char *cat = e->category ? tc_model_str(m, e->category) : NULL;
	size_t cn = e->category ? tc_intern_len(&m->strings, e->category) : 0;
	switch (c) {
	case LC_DEV_OPS:
	case LC_STREAM:
		tc_classify(s, n, cat, cn, TC_PLACE_DEVICE, TC_OP_KERNEL, k);
		return;
	case LC_STEPS:
		tc_classify(s, n, cat, cn, TC_PLACE_STEPS, TC_OP_STEP, k);
		return;
	case LC_HOST:
		tc_classify(s, n, cat, cn, TC_PLACE_HOST, TC_OP_HOST_OP, k);
		return;
	default:
		*k = (struct tc_class){ .kind = TC_OP_OTHER, .step = -1 };
		if ((size_t)c < sizeof(fixed) / sizeof(fixed[0]) && fixed[c]) {
			k->kind = fixed[c];
		}
		return;
	}
}

uint32_t tc_xplane_make_op(struct reader *r, uint32_t ei, enum lclass c) {
	struct emeta *e = &r->em[ei];
	struct tc_class k;
	op_class(r->m, e, c, &k);
	uint32_t cat = k.category ? tc_model_intern(r->m, k.category) : e->category;
	e = &r->em[ei];
	uint32_t op = tc_model_add_op(r->m, e->name, cat, k.kind);
	struct tc_op *o = &r->m->ops[op];
	o->flops = e->flops;
	o->bytes = e->bytes;
	o->args = e->args;
	if (k.async_done) {
		o->flags |= TC_OPF_ASYNC_DONE;
	}
	r->em_op[(size_t)c * r->n_em + ei] = op;
	return op;
}

static void plane_reset(struct reader *r) {
	idmap_finish(&r->smap);
	idmap_finish(&r->emap);
	r->n_sm = 0;
	r->n_em = 0;
	memset(r->strc, 0, sizeof(r->strc));
}

/* Read a plane's stat_metadata map into r->sm / r->smap. */
static bool load_stat_metadata(struct reader *r, const uint8_t *p, size_t len,
		size_t n_smeta) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	int64_t *keys = tc_xmalloc((n_smeta ? n_smeta : 1) * sizeof(*keys));
	TC_GROW(r->sm, r->cap_sm, n_smeta + 1);
	size_t nt = 0;
	int64_t max_key = -1;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0 && nt < n_smeta) {
		if (f.num != XPLANE_STAT_METADATA) {
			continue;
		}
		/* As in next_plane_stat: the Task Environment plane's wire
		 * types are not checked before. */
		if (f.wt != TC_PB_LEN) {
			free(keys);
			return tc_xplane_fail(r, pb.p, "xplane: %s has the wrong wire type",
				"XPlane.stat_metadata");
		}
		uint32_t name = 0;
		if (!tc_xplane_parse_stat_metadata(r, f.data, f.len, &keys[nt], &name)) {
			free(keys);
			return false;
		}
		enum role role = role_of((const uint8_t *)tc_model_str(r->m, name),
			tc_intern_len(&r->m->strings, name));
		r->sm[nt] = (struct smeta){
			.name = name,
			.role = (uint8_t)role,
			.drop = role == R_NONE && !tc_model_keeps_arg(r->m, name),
			.last = TC_NONE,
		};
		max_key = keys[nt] > max_key ? keys[nt] : max_key;
		nt++;
	}
	idmap_init(&r->smap, max_key, nt);
	for (size_t i = 0; i < nt; i++) {
		idmap_put(&r->smap, keys[i], (uint32_t)i);
	}
	r->n_sm = nt;
	free(keys);
	return true;
}

/* The next plane stat (XPlane.stats) with known metadata and a value:
 * 1 with *k and *v set, 0 at the end, -1 on an error (already reported). */
static int next_plane_stat(struct reader *r, struct tc_pb *pb, uint32_t *k, struct sval *v) {
	struct tc_pb_field f = { 0 };
	int rc;
	while ((rc = tc_pb_next(pb, &f)) > 0) {
		if (f.num != XPLANE_STATS) {
			continue;
		}
		/* The Task Environment plane is read before parse_plane checks
		 * wire types: a stat that is no message has no payload. */
		if (f.wt != TC_PB_LEN) {
			tc_xplane_fail(r, pb->p, "xplane: %s has the wrong wire type", "XPlane.stats");
			return -1;
		}
		if (!parse_stat(r, f.data, f.len, k, v)) {
			return -1;
		}
		if (*k != TC_NONE && v->type != SV_NONE) {
			return 1;
		}
	}
	if (rc < 0) {
		tc_xplane_wire_fail(r, pb, "XPlane");
		return -1;
	}
	return 0;
}

/* What pass 1 finds of a plane: its id and name (in the file's bytes),
 * and how many of each repeated field it has. */
struct plane_head {
	int64_t id;
	const uint8_t *name;
	size_t name_len;
	size_t n_lines, n_stats, n_emeta, n_smeta;
};

/* Pass 1: the plane's own fields; LEN payloads are not touched. */
static bool read_plane_head(struct reader *r, const uint8_t *p, size_t len,
		struct plane_head *ph) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	struct tc_xplane_span hdr[2] = { 0 }; /* id, name */
	*ph = (struct plane_head){ 0 };
	for (const uint8_t *at = pb.p; (rc = tc_pb_next(&pb, &f)) > 0; at = pb.p) {
		if (f.num <= XPLANE_STATS && f.wt != (f.num == XPLANE_ID ? TC_PB_VARINT : TC_PB_LEN)) {
			return tc_xplane_fail(r, p, "xplane: %s has a field of the wrong wire type", "XPlane");
		}
		switch (f.num) {
		case XPLANE_ID:
		case XPLANE_NAME:
			hdr[f.num - XPLANE_ID] = (struct tc_xplane_span){ at, (size_t)(pb.p - at) };
			break;
		case XPLANE_LINES:
			ph->n_lines++;
			break;
		case XPLANE_EVENT_METADATA:
			ph->n_emeta++;
			break;
		case XPLANE_STAT_METADATA:
			ph->n_smeta++;
			break;
		case XPLANE_STATS:
			ph->n_stats++;
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "XPlane");
	}
	Tensorflow__Profiler__XPlaneHeader *h =
		tc_xplane_unpack_spans(&tensorflow__profiler__xplane_header__descriptor, hdr, 2);
	if (!h) {
		return tc_xplane_fail(r, p, "xplane: protobuf-c cannot unpack the %s", "XPlane header");
	}
	ph->id = h->id;
	ph->name_len = h->name.len;
	ph->name = ph->name_len ? tc_xplane_span_bytes(&hdr[1], h->name) : (const uint8_t *)"";
	tensorflow__profiler__xplane_header__free_unpacked(h, NULL);
	return true;
}

/* Plane stats: device capabilities; the rest become device args. */
static bool read_plane_stats(struct reader *r, const uint8_t *p, size_t len,
		const struct plane_head *ph) {
	struct tc_pb pb;
	int rc;
	uint32_t args = tc_model_args_begin(r->m);
	tc_pb_init(&pb, r->base, p, len);
	uint32_t k;
	struct sval v;
	while ((rc = next_plane_stat(r, &pb, &k, &v)) > 0) {
		const struct smeta *sm = &r->sm[k];
		int64_t iv;
		if (sm->role == R_DROPPED && sval_i64(&v, &iv) && iv > 0) {
			tc_model_warn(r->m, 1, "xplane: the profiler dropped %" PRId64
				" trace events (dropped_traces on '%.*s')", iv,
				(int)(ph->name_len > 100 ? 100 : ph->name_len), (const char *)ph->name);
		}
		if (r->device != TC_NONE) {
			tc_xplane_plane_stat(r, &r->m->devices[r->device], sm, &v);
			if (sm->role < R_PEAK_TFLOPS) {
				tc_xplane_add_arg(r, sm->name, &v);
			}
		}
	}
	if (rc < 0) {
		return false;
	}
	uint32_t first = tc_model_args_end(r->m, args);
	if (r->device != TC_NONE) {
		r->m->devices[r->device].args = first;
	}
	return true;
}

/* Event metadata: r->em by r->emap, n_emeta of them, and a last slot for
 * events whose metadata id is missing. */
static bool load_event_metadata(struct reader *r, const uint8_t *p, size_t len, size_t n_emeta) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int64_t *ek = tc_xmalloc((n_emeta + 1) * sizeof(*ek));
	TC_GROW(r->em, r->cap_em, n_emeta + 1);
	size_t ne = 0;
	int64_t max_key = -1;
	tc_pb_init(&pb, r->base, p, len);
	while (tc_pb_next(&pb, &f) > 0) {
		if (f.num != XPLANE_EVENT_METADATA) {
			continue;
		}
		if (!tc_xplane_parse_event_metadata(r, f.data, f.len, &ek[ne], &r->em[ne])) {
			free(ek);
			return false;
		}
		if (ek[ne] > max_key) {
			max_key = ek[ne];
		}
		ne++;
	}
	idmap_init(&r->emap, max_key, ne);
	for (size_t i = 0; i < ne; i++) {
		idmap_put(&r->emap, ek[i], (uint32_t)i);
	}
	free(ek);
	tc_xplane_emeta_init(&r->em[ne]);
	r->em[ne].name = tc_model_intern(r->m, "(unknown event metadata)");
	r->unknown_em = (uint32_t)ne;
	r->n_em = ne + 1;
	TC_GROW(r->em_op, r->cap_em_op, LC_COUNT * r->n_em);
	memset(r->em_op, 0xff, LC_COUNT * r->n_em * sizeof(*r->em_op));
	return true;
}

/* The plane's lines: on the reader's threads where it is big enough,
 * else here. */
static bool read_lines(struct reader *r, const uint8_t *p, size_t len) {
	size_t first_track = r->m->n_tracks;
	if (r->lim->reader_thread == TC_READER_THREAD_ALWAYS ||
			(r->lim->reader_thread && len >= XP_MIN_PLANE)) {
		bool started;
		bool ok = tc_xplane_run(r, p, len, first_track, &started);
		if (started) {
			return ok;
		}
	}
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	tc_pb_init(&pb, r->base, p, len);
	while (tc_pb_next(&pb, &f) > 0) {
		if (f.num == XPLANE_LINES && !tc_xplane_parse_line(r, f.data, f.len, first_track)) {
			return false;
		}
	}
	return true;
}

static bool parse_plane(struct reader *r, const uint8_t *p, size_t len) {
	struct plane_head ph;
	if (!read_plane_head(r, p, len, &ph)) {
		return false;
	}
	plane_reset(r);
	if (!load_stat_metadata(r, p, len, ph.n_smeta)) {
		return false;
	}
	enum tc_device_kind kind;
	int32_t ordinal;
	tc_xplane_classify_plane(ph.name, ph.name_len, &kind, &ordinal);
	bool is_env = eq(ph.name, ph.name_len, "Task Environment");
	bool is_meta = eq(ph.name, ph.name_len, "/host:metadata");
	r->host_plane = kind == TC_DEV_CPU;
	r->device = TC_NONE;
	if (!is_env && !is_meta && (ph.n_lines || ph.n_stats)) {
		r->device = tc_model_add_device(r->m, tc_xplane_intern(r, ph.name, ph.name_len), kind);
		struct tc_device *d = &r->m->devices[r->device];
		d->ordinal = ordinal;
		d->src_id = ph.id;
		d->host = r->host;
	}
	if (ph.n_stats && !read_plane_stats(r, p, len, &ph)) {
		return false;
	}
	if (is_meta || is_env) {
		return true;
	}
	if (!load_event_metadata(r, p, len, ph.n_emeta)) {
		return false;
	}
	if (!ph.n_lines || r->device == TC_NONE) {
		return true;
	}
	return read_lines(r, p, len);
}

/* The events in stretches, each looked up into its own flows; workers
 * take the next stretch from a shared counter. */
#define LINK_STRETCHES 64

struct link_stretch {
	struct tc_flow *flows;
	size_t n, cap;
};

struct link_work {
	const struct tc_model *m;
	const struct tc_corr_index *li;
	const bool *device; /* by track: device work */
	size_t first, per;
	atomic_size_t next;
	struct link_stretch part[LINK_STRETCHES];
};

static void *link_worker(void *arg) {
	struct link_work *w = arg;
	const struct tc_model *m = w->m;
	size_t k;
	while ((k = atomic_fetch_add(&w->next, 1)) < LINK_STRETCHES) {
		struct link_stretch *s = &w->part[k];
		size_t from = w->first + k * w->per, to = from + w->per;
		to = to < m->ev.n ? to : m->ev.n;
		size_t run_end = from;
		uint32_t t = 0;
		for (size_t i = from; i < to; i++) {
			struct tc_arg a;
			uint32_t args = tc_model_event_args(m, i);
			if (args == TC_NONE) {
				continue;
			}
			if (i >= run_end) {
				t = tc_model_track_run(m, i, &run_end);
			}
			if (!w->device[t] || !tc_model_arg_find(m, args, m->key.correlation, &a)) {
				continue;
			}
			uint64_t c = a.v.u; /* int and uint share the bits */
			uint32_t launch = tc_corr_index_find(w->li, c);
			if (launch != TC_NONE) {
				TC_GROW(s->flows, s->cap, s->n + 1);
				s->flows[s->n++] = (struct tc_flow){
					.from = launch, .to = (uint32_t)i, .kind = TC_FLOW_LAUNCH, .id = c,
				};
			}
		}
	}
	return NULL;
}

/*
 * Host runtime calls (cudaLaunchKernel, hipMemcpy, ...) and the device
 * activity they caused share a correlation_id: link them as launch flows.
 * Device events are found through their correlation arg, so nothing extra
 * is kept per device event while reading. The look-ups are read-only: with
 * a core to spare, two threads share them.
 */
static void link_launches(struct reader *r, size_t first_event) {
	if (!r->n_launch) {
		return;
	}
	struct tc_model *m = r->m;
	struct tc_corr_index li;
	tc_corr_index_init(&li, r->launch, r->n_launch);
	bool *device = tc_xmalloc(m->n_tracks ? m->n_tracks : 1);
	for (size_t t = 0; t < m->n_tracks; t++) {
		device[t] = tc_track_kind_is_device_work((enum tc_track_kind)m->tracks[t].kind);
	}
	struct link_work *w = tc_xcalloc(1, sizeof(*w));
	w->m = m;
	w->li = &li;
	w->device = device;
	w->first = first_event;
	w->per = (m->ev.n - first_event + LINK_STRETCHES - 1) / LINK_STRETCHES;
	atomic_init(&w->next, 0);
	tc_run_pair(link_worker, w, w, r->lim->reader_thread != 0);
	for (size_t k = 0; k < LINK_STRETCHES; k++) {
		const struct link_stretch *s = &w->part[k];
		for (size_t i = 0; i < s->n; i++) {
			tc_model_add_flow(m, s->flows[i].from, s->flows[i].to, TC_FLOW_LAUNCH,
				s->flows[i].id);
		}
		free(s->flows);
	}
	free(w);
	free(device);
	tc_corr_index_finish(&li);
}

/* Host name: XSpace.hostnames[0], else the file name up to ".xplane.pb". */
static uint32_t host_name(struct reader *r, const uint8_t *hn, size_t hn_len) {
	if (hn && hn_len) {
		return tc_xplane_intern(r, hn, hn_len);
	}
	return tc_ingest_host_from_path(r->m, r->in->path);
}

/* Peek at a plane's name without walking its content. */
static bool plane_name(struct reader *r, const uint8_t *p, size_t len,
		const uint8_t **name, size_t *name_len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	*name = NULL;
	*name_len = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == XPLANE_NAME && f.wt == TC_PB_LEN) {
			*name = f.data;
			*name_len = f.len;
			return true;
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "XPlane");
	}
	return true;
}

/* The profile start (epoch ns) from the Task Environment plane. */
static bool read_task_env(struct reader *r, const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	plane_reset(r);
	size_t n = 0;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		n += f.num == XPLANE_STAT_METADATA;
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "XPlane");
	}
	if (!load_stat_metadata(r, p, len, n)) {
		return false;
	}
	tc_pb_init(&pb, r->base, p, len);
	uint32_t k;
	struct sval v;
	while ((rc = next_plane_stat(r, &pb, &k, &v)) > 0) {
		int64_t iv;
		if (r->sm[k].role == R_PROFILE_START && sval_i64(&v, &iv) && iv > 0) {
			r->org.ns = iv;
			r->org.have = true;
			r->m->origin_ns = iv;
			r->m->origin_epoch = true;
		}
	}
	return rc == 0;
}

/* "GPU_3_bfc" (TF/XLA's allocator of GPU 3): 3; -1 for other names. */
static int32_t allocator_gpu(const char *s) {
	if (strncmp(s, "GPU_", 4) != 0 || s[4] < '0' || s[4] > '9') {
		return -1;
	}
	int32_t v = 0;
	for (s += 4; *s >= '0' && *s <= '9'; s++) {
		if (v > 100000) {
			return -1;
		}
		v = v * 10 + (*s - '0');
	}
	return *s == '_' ? v : -1;
}

/*
 * Allocator counters are recorded by host threads (MemoryAllocation
 * events on /host:CPU) whatever memory they count: a GPU's allocator
 * ("GPU_0_bfc") belongs to the GPU of that ordinal on this host, so the
 * memory analysis sees it per device, and so do its allocator records.
 * Counters [first, n) and records [first_alloc, n) are this file's.
 */
static void own_allocators(struct reader *r, size_t first, size_t first_alloc) {
	struct tc_model *m = r->m;
	for (size_t c = first; c < m->n_counters; c++) {
		const struct tc_counter *ct = &m->counters[c];
		if (!ct->group || ct->device >= m->n_devices ||
				m->devices[ct->device].kind != TC_DEV_CPU) {
			continue;
		}
		int32_t ord = allocator_gpu(tc_model_str(m, ct->group));
		uint32_t to = TC_NONE;
		for (size_t d = 0; d < m->n_devices && ord >= 0 && to == TC_NONE; d++) {
			const struct tc_device *dv = &m->devices[d];
			if (dv->kind == TC_DEV_GPU && dv->ordinal == ord && dv->host == r->host) {
				to = (uint32_t)d;
			}
		}
		if (to != TC_NONE) {
			uint32_t from = ct->device, group = ct->group;
			tc_model_counter_move(m, (uint32_t)c, to);
			for (size_t i = first_alloc; i < m->n_allocs; i++) {
				struct tc_alloc *a = &m->allocs[i];
				if (a->group == group && a->device == from) {
					a->device = to;
				}
			}
		}
	}
}

static bool read_xplane(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	struct reader r = { 0 };
	r.m = m;
	r.in = in;
	r.lim = lim;
	r.err = err;
	if (!tc_input_map(in, &r.base, &r.size, err)) {
		return false;
	}
	tc_arena_init(&r.scratch, 64 * 1024);
	r.k_unit_bytes = tc_model_intern(m, "bytes");
	r.k_mem_alloc = tc_model_intern(m, "memory.allocated");
	r.k_mem_reserved = tc_model_intern(m, "memory.reserved");
	r.k_mem_peak = tc_model_intern(m, "memory.peak");
	r.k_mem_avail = tc_model_intern(m, "memory.available");

	/* Pass 1 over the top level: hostnames, errors, warnings, Task
	 * Environment. Plane payloads are skipped, apart from their names. */
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r.base, r.base, r.size);
	const uint8_t *hn = NULL;
	size_t hn_len = 0;
	bool ok = false;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= XSPACE_HOSTNAMES && f.wt != TC_PB_LEN) {
			tc_xplane_fail(&r, r.base, "xplane: %s has a field of the wrong wire type", "XSpace");
			goto out;
		}
		if (f.num == XSPACE_PLANES) {
			const uint8_t *nm;
			size_t nl;
			if (!plane_name(&r, f.data, f.len, &nm, &nl)) {
				goto out;
			}
			if (nm && eq(nm, nl, "Task Environment") &&
					!read_task_env(&r, f.data, f.len)) {
				goto out;
			}
		} else if (f.num == XSPACE_ERRORS || f.num == XSPACE_WARNINGS) {
			tc_model_warn(m, 1, "xplane: profiler %s: %.*s",
				f.num == XSPACE_ERRORS ? "error" : "warning",
				(int)(f.len > 400 ? 400 : f.len), (const char *)f.data);
		} else if (f.num == XSPACE_HOSTNAMES && !hn) {
			hn = f.data;
			hn_len = f.len;
		}
	}
	if (rc < 0) {
		if (pb.why && strstr(pb.why, "length runs past")) {
			tc_error_set(err, TC_EXIT_INPUT,
				"xplane: a top-level field's length runs past the end of the file "
				"(truncated or corrupt)");
			tc_error_at(err, tc_pb_offset(&pb));
		} else {
			tc_xplane_wire_fail(&r, &pb, "XSpace");
		}
		goto out;
	}
	r.host = tc_model_add_host(m, host_name(&r, hn, hn_len), source);

	/* Pass 2: planes in file order. */
	size_t first_event = m->ev.n, first_counter = m->n_counters, first_alloc = m->n_allocs;
	tc_pb_init(&pb, r.base, r.base, r.size);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == XSPACE_PLANES && !parse_plane(&r, f.data, f.len)) {
			goto out;
		}
	}
	link_launches(&r, first_event);
	own_allocators(&r, first_counter, first_alloc);
	if (r.dangling_refs) {
		tc_model_warn(m, r.dangling_refs,
			"xplane: stat ref_value points at no stat metadata (value dropped)");
	}
	if (r.missing_meta) {
		tc_model_warn(m, r.missing_meta,
			"xplane: event refers to missing event metadata");
	}
	if (r.bad_strings) {
		tc_model_warn(m, r.bad_strings, "xplane: over-long string cut to the string limit");
	}
	ok = true;
out:
	plane_reset(&r);
	tc_arena_finish(&r.scratch);
	free(r.sm);
	free(r.em);
	free(r.em_op);
	free(r.sp);
	free(r.sl);
	free(r.xs);
	free(r.launch);
	free(r.line_slots);
	return ok;
}

/* ---- sniffing ---- */

static bool printable(const uint8_t *s, size_t n) {
	if (n == 0) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f) {
			return false;
		}
	}
	return true;
}

/*
 * XSpace has no magic. The head must start with a plane (field 1, LEN) whose
 * own fields are all within 1..6 with XPlane's wire types, and a printable
 * plane name makes it certain. A Perfetto TracePacket also starts 0x0a but
 * its fields are mostly >= 8, so it fails the field check.
 */
static int sniff(const uint8_t *head, size_t len) {
	if (len < 2 || head[0] != XP_TAG(XSPACE_PLANES, TC_PB_LEN)) {
		return 0;
	}
	const uint8_t *p = head + 1, *end = head + len;
	uint64_t plen;
	if (!tc_pb_varint(&p, end, &plen) || plen == 0) {
		return 0;
	}
	const uint8_t *pend = (uint64_t)(end - p) < plen ? end : p + plen;
	int score = 0;
	bool seen_any = false;
	while (p < pend) {
		uint64_t key, v;
		if (!tc_pb_varint(&p, pend, &key)) {
			break; /* head ended mid-field */
		}
		uint32_t num = (uint32_t)(key >> 3), wt = key & 7;
		if (num < XPLANE_ID || num > XPLANE_STATS) {
			/* Junk after a plane-like start: still XSpace-shaped enough for
			 * the reader to say what is wrong (a mangled file). */
			return score >= 60 ? 40 : 0;
		}
		if (num == XPLANE_ID) {
			if (wt != TC_PB_VARINT) {
				return 0;
			}
			if (!tc_pb_varint(&p, pend, &v)) {
				break;
			}
		} else {
			if (wt != TC_PB_LEN) {
				return 0;
			}
			if (!tc_pb_varint(&p, pend, &v)) {
				break;
			}
			if (num == XPLANE_NAME) {
				size_t avail = (size_t)(pend - p);
				size_t n = v < avail ? (size_t)v : avail;
				if (!printable(p, n)) {
					return 0;
				}
				if (n && (p[0] == '/' || p[0] == '#' ||
						tc_xplane_has_prefix(p, n, "Task Environment") ||
						tc_xplane_has_prefix(p, n, "Host CPUs") || tc_xplane_has_prefix(p, n, "Syscalls"))) {
					score = 95;
				} else {
					score = 60;
				}
			}
			if (v > (uint64_t)(pend - p)) {
				break;
			}
			p += v;
		}
		seen_any = true;
	}
	if (!seen_any) {
		return 0;
	}
	return score ? score : 30;
}

const struct tc_reader tc_reader_xplane = {
	.name = "xplane",
	.description = "XPlane",
	.sniff = sniff,
	.read = read_xplane,
};
