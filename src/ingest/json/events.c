/*
 * Chrome JSON events: the token handlers, the tables they fill and the
 * replay loop that calls them, kept in one file because they are the hot
 * loop.
 */
#include "ingest/json/json_private.h"
#include "ingest/json/number.h"

/* ---- small helpers ---- */

bool tc_json_fail(struct reader *r, const char *msg) {
	return tc_error_set(r->err, TC_EXIT_INPUT, "%s", msg);
}

static uint64_t mix64(uint64_t k) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

/*
 * Intern through a direct-mapped cache keyed by length and the first and
 * last 8 bytes: names, categories and pids repeat on every event, and this
 * avoids hashing whole (often long) kernel names again.
 */
static uint32_t intern(struct reader *r, const void *vs, size_t n) {
	const unsigned char *s = vs;
	uint64_t a = 0, b = 0;
	memcpy(&a, s, n < 8 ? n : 8);
	if (n > 8) {
		memcpy(&b, s + n - 8, 8);
	}
	size_t slot = mix64(a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) & (STR_CACHE - 1);
	struct key_cache *k = &r->strs[slot];
	if (k->s && k->len == n && memcmp(k->s, s, n) == 0) {
		return k->id;
	}
	uint32_t id = tc_model_intern_n(r->m, (const char *)s, n);
	k->s = tc_model_str(r->m, id);
	k->len = (uint32_t)n;
	k->id = id;
	return id;
}

/* intern() for the string token being handled (s, n are its bytes): its
 * slot's id when the tokeniser saw it before, without reading the bytes. */
static uint32_t intern_tok(struct reader *r, const void *s, size_t n) {
	if (!(r->dd & TC_JDD_VALID)) {
		return intern(r, s, n);
	}
	uint32_t *id = &r->dd_id[TC_JDD_SLOT(r->dd)];
	if (*id == TC_NONE) {
		*id = intern(r, s, n);
	}
	return *id;
}

bool tc_json_starts_with(const char *s, const char *p) {
	return strncmp(s, p, strlen(p)) == 0;
}

/* ---- pid / thread tables ---- */

static uint32_t pid_get(struct reader *r, uint32_t key) {
	const uint32_t *v = tc_u64map_find(&r->pid_by_key, key);
	if (v) {
		return *v;
	}
	TC_GROW(r->pids, r->cap_pids, r->n_pids + 1);
	struct pid_info *p = &r->pids[r->n_pids];
	memset(p, 0, sizeof(*p));
	p->key = key;
	p->device = TC_NONE;
	p->looks_device = -1;
	const char *t = tc_model_str(r->m, key);
	p->numeric = parse_i64(t, strlen(t), &p->num);
	uint32_t idx = (uint32_t)r->n_pids++;
	tc_u64map_put(&r->pid_by_key, key, idx);
	return idx;
}

/* A thread's key in thr_by_key: a digest of the four fields, since they do
 * not fit 64 bits; threads whose digests meet chain through next. A test
 * build (tests/json_thread_chain.sh) keeps a few bits of it, so that most
 * threads meet. */
#ifndef TC_JSON_THR_KEY_MASK
#define TC_JSON_THR_KEY_MASK UINT64_MAX
#endif
static uint64_t thr_key(uint32_t pid, uint32_t tid, uint8_t flavor, uint32_t acat) {
	return mix64(((uint64_t)pid << 32 | tid) ^ ((uint64_t)flavor << 60) ^
		((uint64_t)acat * 0x9E3779B97F4A7C15ull)) & TC_JSON_THR_KEY_MASK;
}

/* Index of a thread in the chain from i, or TC_NONE. */
static uint32_t thr_chain(const struct reader *r, uint32_t i, uint32_t pid, uint32_t tid,
		uint8_t flavor, uint32_t acat) {
	for (; i != TC_NONE; i = r->thrs[i].next) {
		const struct thr_info *t = &r->thrs[i];
		if (t->pid == pid && t->tid == tid && t->flavor == flavor && t->acat == acat) {
			return i;
		}
	}
	return TC_NONE;
}

static uint32_t thr_get(struct reader *r, uint32_t pid, uint32_t tid, uint8_t flavor,
		uint32_t acat) {
	if (r->last_thr != TC_NONE) {
		const struct thr_info *t = &r->thrs[r->last_thr];
		if (t->pid == pid && t->tid == tid && t->flavor == flavor && t->acat == acat) {
			return r->last_thr;
		}
	}
	uint64_t key = thr_key(pid, tid, flavor, acat);
	const uint32_t *head = tc_u64map_find(&r->thr_by_key, key);
	uint32_t next = head ? *head : TC_NONE;
	uint32_t found = thr_chain(r, next, pid, tid, flavor, acat);
	if (found != TC_NONE) {
		r->last_thr = found;
		return found;
	}
	TC_GROW(r->thrs, r->cap_thrs, r->n_thrs + 1);
	struct thr_info *t = &r->thrs[r->n_thrs];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->flavor = flavor;
	t->acat = acat;
	t->track = TC_NONE;
	t->next = next;
	t->kind_hint = -1;
	uint32_t idx = (uint32_t)r->n_thrs++;
	tc_u64map_put(&r->thr_by_key, key, idx);
	r->last_thr = idx;
	return idx;
}

/* Index of a thread, or TC_NONE (for the linking passes). */
uint32_t tc_json_thr_index(const struct reader *r, uint32_t pid, uint32_t tid, uint8_t flavor,
		uint32_t acat) {
	const uint32_t *head = tc_u64map_find(&r->thr_by_key, thr_key(pid, tid, flavor, acat));
	return head ? thr_chain(r, *head, pid, tid, flavor, acat) : TC_NONE;
}

/* The model track of a thread, creating its device and track on first use.
 * Kinds and names are provisional until finish(). */
static uint32_t thr_track(struct reader *r, uint32_t ti) {
	struct thr_info *t = &r->thrs[ti];
	if (t->track != TC_NONE) {
		return t->track;
	}
	struct pid_info *p = &r->pids[t->pid];
	if (p->device == TC_NONE) {
		p->device = tc_json_tf1_device(r, p);
	}
	if (p->device == TC_NONE) {
		p->device = tc_model_add_device(r->m, p->key, TC_DEV_OTHER);
	}
	tc_json_tf1_thread(r, p, t);
	int64_t src = 0;
	const char *tt = tc_model_str(r->m, t->tid);
	if (!parse_i64(tt, strlen(tt), &src)) {
		src = (int64_t)tc_hash(tt, strlen(tt));
	}
	t->track = tc_model_add_track(r->m, p->device, t->tid, TC_TRACK_OTHER, src);
	return t->track;
}

/* ---- time ---- */

/* ps relative to the origin; false if too far from it. parse_us() keeps
 * |us| below 10^18, so the difference cannot overflow. */
static bool rel_ps(struct reader *r, int64_t us, int64_t frac, int64_t *out) {
	if (!r->have_origin) {
		r->have_origin = true;
		r->origin_us = us;
	}
	int64_t d = us - r->origin_us;
	if (d > INT64_MAX / 1000000 - 1 || d < INT64_MIN / 1000000 + 1) {
		return false;
	}
	*out = d * 1000000 + frac;
	return true;
}

static void note_end(struct reader *r, int64_t end) {
	if (!r->have_max || end > r->max_end_ps) {
		r->max_end_ps = end;
		r->have_max = true;
	}
}

/* ---- classification ---- */

static bool is_device_cat(const struct reader *r, uint32_t c) {
	return c && (c == r->s.kernel || c == r->s.gpu_memcpy || c == r->s.gpu_memset ||
		c == r->s.gpu_user_annotation || c == r->s.Kernel || c == r->s.Memcpy ||
		c == r->s.Memset || c == r->s.mtia_ccp_events);
}

/* Kineto categories recorded on the host. Kineto also puts some of them
 * (python threads, cuda_sync) on a device's pid: kept off the stream rows. */
static bool is_aside_cat(const struct reader *r, uint32_t c) {
	return c && (c == r->s.cpu_op || c == r->s.Operator || c == r->s.user_annotation ||
		c == r->s.python_function || c == r->s.cuda_runtime || c == r->s.cuda_driver ||
		c == r->s.Runtime || c == r->s.cuda_sync || c == r->s.overhead ||
		c == r->s.Overhead || c == r->s.mtia_runtime || c == r->s.cpu_instant_event);
}

/* What only a host process records: framework ops, Python frames,
 * runtime and driver calls (a device row records its sync waits, not
 * these). */
static bool is_host_cat(const struct reader *r, uint32_t c) {
	return c && (c == r->s.cpu_op || c == r->s.Operator || c == r->s.python_function ||
		c == r->s.cuda_runtime || c == r->s.cuda_driver || c == r->s.Runtime ||
		c == r->s.mtia_runtime);
}

static const struct tc_arg *pending_arg(const struct reader *r, uint32_t key);

/* "Memcpy HtoD (Pageable -> Device)" → "pageable"; NULL if not stated. */
static const char *memcpy_memory_kind(const char *n) {
	const char *p = strchr(n, '(');
	if (!p) {
		return NULL;
	}
	bool pageable = strstr(p, "Pageable") != NULL;
	bool pinned = strstr(p, "Pinned") != NULL;
	if (pageable) {
		return "pageable";
	}
	if (pinned) {
		return "pinned";
	}
	if (strstr(p, "Device")) {
		return "device";
	}
	return NULL;
}

/* A DMA event's direction arg ("HOST_TO_DEVICE", "DEVICE_TO_HOST",
 * "DEVICE_TO_DEVICE") → copy kind; MEMCPY_OTHER when absent or unknown. */
static enum tc_op_kind dma_kind(const struct reader *r) {
	const struct tc_arg *a = pending_arg(r, r->s.a_direction);
	if (!a || a->type != TC_ARG_STR) {
		return TC_OP_MEMCPY_OTHER;
	}
	const char *d = tc_model_str(r->m, a->v.s);
	if (strcasecmp(d, "HOST_TO_DEVICE") == 0 || strcasecmp(d, "HtoD") == 0) {
		return TC_OP_MEMCPY_H2D;
	}
	if (strcasecmp(d, "DEVICE_TO_HOST") == 0 || strcasecmp(d, "DtoH") == 0) {
		return TC_OP_MEMCPY_D2H;
	}
	if (strcasecmp(d, "DEVICE_TO_DEVICE") == 0 || strcasecmp(d, "DtoD") == 0) {
		return TC_OP_MEMCPY_D2D;
	}
	return TC_OP_MEMCPY_OTHER;
}

/* Kineto's categories and names decide through the classifier; the reader
 * adds only where the event lies (a device pid or a host one). */
static void classify(struct reader *r, const struct ev_state *e, bool on_device,
		struct tc_class *k) {
	const char *n = tc_model_str(r->m, e->name);
	size_t nl = tc_intern_len(&r->m->strings, e->name);
	const char *c = e->cat ? tc_model_str(r->m, e->cat) : NULL;
	size_t cl = e->cat ? tc_intern_len(&r->m->strings, e->cat) : 0;
	tc_classify(n, nl, c, cl, on_device ? TC_PLACE_DEVICE : TC_PLACE_HOST, TC_OP_OTHER, k);
	/* A TensorFlow 1.x executor row's ops: framework ops on the host. */
	if (r->n_tf1 && !on_device && e->cat == r->s.Op && k->kind == TC_OP_OTHER) {
		k->kind = TC_OP_HOST_OP;
	}
}

/* Whether a pid names a device before its kind is final (JAX writes
 * process_name first; Kineto device rows carry device categories). */
static bool pid_looks_device(const struct reader *r, struct pid_info *p) {
	if (p->device_activity) {
		p->looks_device = 1;
		return true;
	}
	/* Host ops and no device ops: a host, whatever its labels say. */
	if (p->host_activity) {
		return false;
	}
	if (p->looks_device >= 0) {
		return p->looks_device;
	}
	const char *n = p->name ? tc_model_str(r->m, p->name) : "";
	const char *l = p->label ? tc_model_str(r->m, p->label) : "";
	p->looks_device = tc_json_starts_with(n, "/device:") || tc_json_starts_with(n, "TPU") ||
		tc_json_starts_with(l, "GPU") || tc_json_starts_with(l, "MTIA") || tc_json_starts_with(l, "TPU");
	return p->looks_device;
}

/* ---- event completion ---- */

static void args_rollback(struct reader *r) {
	r->n_pend = 0;
}

static const struct tc_arg *pending_arg(const struct reader *r, uint32_t key) {
	for (size_t i = 0; i < r->n_pend; i++) {
		if (r->pend[i].key == key) {
			return &r->pend[i];
		}
	}
	return NULL;
}

static struct tc_arg *pend_push(struct reader *r, uint32_t key, enum tc_arg_type type) {
	TC_GROW(r->pend, r->cap_pend, r->n_pend + 1);
	struct tc_arg *a = &r->pend[r->n_pend++];
	a->key = key;
	a->type = (uint8_t)type;
	a->v.u = 0;
	return a;
}

static bool arg_number(const struct reader *r, const struct tc_arg *a, double *out) {
	return tc_model_arg_value_num(r->m, a, out);
}

static uint64_t id_value(const char *s, size_t n) {
	int64_t v;
	if (parse_i64(s, n, &v)) {
		return (uint64_t)v;
	}
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		uint64_t h = 0;
		size_t i = 2;
		for (; i < n && i < 18; i++) {
			char c = s[i];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0) {
				break;
			}
			h = h * 16 + (uint64_t)d;
		}
		if (i == n) {
			return h;
		}
	}
	return mix64(tc_hash(s, n)) | (1ull << 63);
}

static void add_flow_end(struct reader *r, uint64_t id, uint32_t cat, uint32_t thr,
		uint32_t ev, int64_t ts, bool out, bool in, bool enclosing) {
	TC_GROW(r->fe, r->cap_fe, r->n_fe + 1);
	r->fe[r->n_fe] = (struct flow_end){
		.id = id, .cat = cat, .thr = thr, .ev = ev, .ts = ts, .seq = (uint32_t)r->n_fe,
		.out = out, .in = in, .enclosing = enclosing,
	};
	r->n_fe++;
}

static void do_metadata(struct reader *r, uint32_t pi) {
	struct ev_state *e = &r->ev;
	struct pid_info *p = &r->pids[pi];
	const struct tc_arg *a;
	double d;
	p->looks_device = -1;
	if (e->name == r->s.process_name) {
		a = pending_arg(r, r->s.a_name);
		if (a && a->type == TC_ARG_STR) {
			p->name = a->v.s;
			tc_json_tf1_name(r, p);
		}
	} else if (e->name == r->s.process_labels) {
		a = pending_arg(r, r->s.a_labels);
		if (a && a->type == TC_ARG_STR) {
			p->label = a->v.s;
		}
	} else if (e->name == r->s.process_sort_index) {
		if (arg_number(r, pending_arg(r, r->s.a_sort_index), &d)) {
			p->sort = (int32_t)tc_double_to_i64(d, INT32_MIN, INT32_MAX);
			p->has_sort = true;
		}
	} else if (e->name == r->s.thread_name || e->name == r->s.thread_sort_index) {
		uint32_t ti = thr_get(r, pi, e->has_tid ? e->tid : e->pid, FL_PLAIN, 0);
		struct thr_info *t = &r->thrs[ti];
		if (e->name == r->s.thread_name) {
			a = pending_arg(r, r->s.a_name);
			if (a && a->type == TC_ARG_STR) {
				/* Kineto writes "stream 7 ": drop trailing blanks. */
				const char *tn = tc_model_str(r->m, a->v.s);
				size_t n = strlen(tn);
				while (n && tn[n - 1] == ' ') {
					n--;
				}
				t->name = intern(r, tn, n);
			}
			/* A tracectl export names the track kind it had: re-reading
			 * rebuilds the same model (round trip). */
			a = pending_arg(r, r->s.a_tc_kind);
			if (a && a->type == TC_ARG_STR) {
				const char *k = tc_model_str(r->m, a->v.s);
				for (int i = 0; i <= TC_TRACK_COUNTER; i++) {
					if (strcmp(k, tc_track_kind_name((enum tc_track_kind)i)) == 0) {
						t->kind_hint = (int8_t)i;
					}
				}
			}
		} else if (arg_number(r, pending_arg(r, r->s.a_sort_index), &d)) {
			t->sort = (int32_t)tc_double_to_i64(d, INT32_MIN, INT32_MAX);
			t->has_sort = true;
		}
	}
	args_rollback(r);
}

/* A [memory] record's string arg (tracectl's export writes xplane's
 * allocator, tf_op, shape and dtype so), TC_NONE absent. */
static uint32_t memory_str(const struct reader *r, uint32_t key) {
	const struct tc_arg *a = pending_arg(r, key);
	return a && a->type == TC_ARG_STR ? a->v.s : TC_NONE;
}

/* Kineto "[memory]" instants become allocator counters and records (of
 * the thread that asked, whose host ops are FL_ASIDE like it; finish()
 * resolves it to a track), not events. */
static void do_memory(struct reader *r, uint32_t pi, uint32_t tid, int64_t ts) {
	double type = 0, id = 0, v, bytes, addr = 0;
	arg_number(r, pending_arg(r, r->s.a_dev_type), &type);
	arg_number(r, pending_arg(r, r->s.a_dev_id), &id);
	uint32_t owner = pi;
	if (type != 0) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%lld",
			(long long)tc_double_to_i64(id, INT64_MIN, INT64_MAX));
		owner = pid_get(r, intern(r, buf, (size_t)n));
		r->pids[owner].accel_hint = true;
	}
	struct pid_info *p = &r->pids[owner];
	if (p->device == TC_NONE) {
		p->device = tc_model_add_device(r->m, p->key, TC_DEV_OTHER);
	}
	uint32_t unit = tc_model_intern(r->m, "bytes");
	if (arg_number(r, pending_arg(r, r->s.a_total_alloc), &v)) {
		uint32_t c = tc_model_counter(r->m, p->device,
			tc_model_intern(r->m, "memory.allocated"), unit, 0);
		tc_model_add_sample(r->m, c, ts, v);
	}
	if (arg_number(r, pending_arg(r, r->s.a_total_res), &v)) {
		uint32_t c = tc_model_counter(r->m, p->device,
			tc_model_intern(r->m, "memory.reserved"), unit, 0);
		tc_model_add_sample(r->m, c, ts, v);
	}
	if (arg_number(r, pending_arg(r, r->s.a_bytes), &bytes) && bytes != 0) {
		const struct tc_arg *aa = pending_arg(r, r->s.a_addr);
		arg_number(r, aa, &addr);
		double total = -1;
		uint32_t group = memory_str(r, r->s.a_allocator);
		arg_number(r, pending_arg(r, r->s.a_total_alloc), &total);
		struct tc_alloc a = {
			.ts = ts,
			.bytes = tc_double_to_i64(bytes, INT64_MIN / 2, INT64_MAX / 2),
			.total = total >= 0 ? tc_double_to_i64(total, 0, INT64_MAX / 2) : -1,
			/* An integer address read exactly: past 2^53 a double rounds it. */
			.addr = aa && aa->type == TC_ARG_UINT ? aa->v.u :
				aa && aa->type == TC_ARG_INT ? (uint64_t)aa->v.i :
				(uint64_t)tc_double_to_i64(addr, INT64_MIN, INT64_MAX),
			.device = p->device,
			.group = group != TC_NONE ? group : 0,
			.track = thr_get(r, pi, tid, FL_ASIDE, 0),
			.op = memory_str(r, r->s.a_tf_op), .shape = memory_str(r, r->s.a_shape),
			.dtype = memory_str(r, r->s.a_dtype),
		};
		tc_model_add_alloc(r->m, &a);
	}
	args_rollback(r);
}

static void do_counter(struct reader *r, uint32_t pi, int64_t ts) {
	struct ev_state *e = &r->ev;
	struct pid_info *p = &r->pids[pi];
	if (p->device == TC_NONE) {
		p->device = tc_model_add_device(r->m, p->key, TC_DEV_OTHER);
	}
	bool any = false;
	for (size_t i = 0; i < r->n_pend; i++) {
		double v;
		struct tc_arg a = r->pend[i];
		if (!arg_number(r, &a, &v)) {
			continue;
		}
		char buf[512];
		if (e->has_id) {
			snprintf(buf, sizeof(buf), "%s[%.*s].%s", tc_model_str(r->m, e->name),
				(int)e->id_len, e->id, tc_model_str(r->m, a.key));
		} else {
			snprintf(buf, sizeof(buf), "%s.%s", tc_model_str(r->m, e->name),
				tc_model_str(r->m, a.key));
		}
		uint32_t c = tc_model_counter(r->m, p->device, tc_model_intern(r->m, buf),
			0, e->cat);
		tc_model_add_sample(r->m, c, ts, v);
		any = true;
	}
	if (!any) {
		r->n_bad_counter++;
	}
	args_rollback(r);
}

/* The open event of an async key (TC_NONE once ended); NULL when the key
 * was never begun and insert is false. */
static uint32_t *async_slot(struct reader *r, uint32_t key, bool insert) {
	uint32_t *v = tc_u64map_find(&r->async, key);
	if (!v && insert) {
		v = tc_u64map_put(&r->async, key, TC_NONE);
	}
	return v;
}

static void finish_event_args(struct reader *r, uint32_t idx, enum tc_op_kind kind) {
	struct ev_state *e = &r->ev;
	struct tc_model *m = r->m;
	const char *n = tc_model_str(m, e->name);
	size_t nl = tc_intern_len(&m->strings, e->name);
	int64_t step;
	uint32_t first = tc_model_args_begin(m);
	for (size_t i = 0; i < r->n_pend; i++) {
		tc_model_arg_add(m, &r->pend[i]);
	}
	r->n_pend = 0;
	if (kind == TC_OP_STEP && tc_classify_step(n, nl, &step) && step >= 0) {
		tc_model_arg_int(m, m->key.step, step);
	}
	if (kind >= TC_OP_MEMCPY_H2D && kind <= TC_OP_MEMCPY_OTHER) {
		const char *mk = memcpy_memory_kind(n);
		if (mk) {
			tc_model_arg_str(m, m->key.memory_kind, tc_model_intern(m, mk));
		}
	}
	if (e->collective) {
		tc_model_arg_str(m, m->key.collective, e->collective);
	}
	tc_model_set_event_args(m, idx, tc_model_args_end(m, first));
}

/*
 * The events that make no slice: metadata, counters and memory events are
 * taken here; those without a phase or a usable time are counted and
 * dropped. False when the event is done with; else *pi is its pid's
 * entry and *ts its time.
 */
static bool slice_time(struct reader *r, uint32_t *pi, int64_t *ts) {
	struct ev_state *e = &r->ev;
	if (!e->any) {
		r->n_empty++;
		return false;
	}
	char ph = e->ph;
	if (!ph) {
		r->n_no_ph++;
		args_rollback(r);
		return false;
	}
	if (!e->has_pid) {
		e->pid = 0; /* interned "" */
	}
	*pi = pid_get(r, e->pid);
	if (ph == 'M') {
		do_metadata(r, *pi);
		return false;
	}
	*ts = 0;
	if (!e->has_ts || e->bad_time) {
		r->n_no_ts++;
		args_rollback(r);
		return false;
	}
	if (!rel_ps(r, e->ts_us, e->ts_frac, ts)) {
		r->n_far_ts++;
		args_rollback(r);
		return false;
	}
	if (ph == 'C') {
		do_counter(r, *pi, *ts);
		return false;
	}
	if ((ph == 'i' || ph == 'I') && e->name == r->s.memory_name) {
		do_memory(r, *pi, e->has_tid ? e->tid : e->pid, *ts);
		return false;
	}
	return true;
}

/* The op of the event's name and category on a device row or not, from
 * the cache of the last op met in its slot. */
static const struct op_cache *event_op(struct reader *r, bool on_device) {
	struct ev_state *e = &r->ev;
	struct tc_model *m = r->m;
	struct op_cache *oc = &r->ops[mix64((uint64_t)e->name << 32 | e->cat) & (OP_CACHE - 1)];
	if (!oc->valid || oc->name != e->name || oc->cat != e->cat || oc->on_device != on_device) {
		oc->name = e->name;
		oc->cat = e->cat;
		oc->on_device = on_device;
		struct tc_class k;
		classify(r, e, on_device, &k);
		oc->kind = (uint8_t)k.kind;
		oc->ocat = k.category ? tc_model_intern(m, k.category) : e->cat;
		oc->op = tc_model_op(m, e->name, oc->ocat, k.kind);
		if (k.async_done) {
			m->ops[oc->op].flags |= TC_OPF_ASYNC_DONE;
		}
		oc->dma = k.dma;
		oc->valid = true;
	}
	return oc;
}

/* Closes the open slice an 'E' or 'e' event ends at ts. */
static void end_slice(struct reader *r, uint32_t idx, int64_t ts) {
	struct tc_model *m = r->m;
	if (ts < m->ev.start[idx]) {
		m->ev.flags[idx] |= TC_EV_CLAMPED;
		m->n_negative_dur++;
	} else {
		m->ev.dur[idx] = ts - m->ev.start[idx];
	}
}

/*
 * The event by its phase on thread line ti (track): a complete slice,
 * one begun, an instant, or the end of an open one (which closes it).
 * True with *idx when an event was added, its args still to come.
 * Inlined, as end_event is: once per event, called as one function they
 * cost the reader time.
 */
static inline __attribute__((always_inline)) bool add_slice(struct reader *r, uint32_t ti, uint32_t track, uint32_t op, int64_t ts,
		uint32_t *idx) {
	struct ev_state *e = &r->ev;
	struct tc_model *m = r->m;
	struct thr_info *t = &r->thrs[ti];
	char ph = e->ph;
	switch (ph) {
	case 'X':
		if (e->dur_range) {
			r->n_dur_range++;
		} else if (!e->has_dur) {
			r->n_no_dur++;
		}
		if (e->dur_ps > 0 && ts > INT64_MAX / 2 - e->dur_ps) {
			r->n_far_ts++;
			args_rollback(r);
			return false;
		}
		*idx = tc_model_add_event(m, track, op, ts, e->has_dur ? e->dur_ps : 0, 0);
		note_end(r, ts + (e->dur_ps > 0 ? e->dur_ps : 0));
		return true;
	case 'B':
		*idx = tc_model_add_event(m, track, op, ts, 0, 0);
		TC_GROW(t->stack, t->cap_stack, t->n_stack + 1);
		t->stack[t->n_stack++] = *idx;
		note_end(r, ts);
		return true;
	case 'E':
		note_end(r, ts);
		args_rollback(r);
		if (!t->n_stack) {
			r->n_unmatched_e++;
			return false;
		}
		end_slice(r, t->stack[--t->n_stack], ts);
		return false;
	case 'i':
	case 'I':
	case 'R':
	case 'n':
		*idx = tc_model_add_event(m, track, op, ts, 0, TC_EV_INSTANT);
		note_end(r, ts);
		return true;
	case 'b':
	case 'e': {
		note_end(r, ts);
		char buf[256];
		int len = snprintf(buf, sizeof(buf), "%u/%u/%.*s", e->pid, e->cat,
			(int)e->id_len, e->id);
		uint32_t key = intern(r, buf, len < (int)sizeof(buf) ? (size_t)len : sizeof(buf) - 1);
		uint32_t *open = async_slot(r, key, ph == 'b');
		if (ph == 'b') {
			*idx = tc_model_add_event(m, track, op, ts, 0, 0);
			*open = *idx;
			return true;
		}
		args_rollback(r);
		if (!open || *open == TC_NONE) {
			r->n_unmatched_async++;
			return false;
		}
		end_slice(r, *open, ts);
		*open = TC_NONE;
		return false;
	}
	default:
		r->n_unknown_ph[(unsigned char)ph & 127]++;
		args_rollback(r);
		return false;
	}
}

/* After add_slice: event idx's args, and what the links and the devices'
 * lines are settled from later (device ops per line, step markers,
 * correlation ids, v2 flow ends). */
static void finish_slice(struct reader *r, uint32_t ti, uint32_t idx, enum tc_op_kind kind,
		bool on_device, bool dma, int64_t ts) {
	struct ev_state *e = &r->ev;
	struct tc_model *m = r->m;
	bool dev = kind == TC_OP_KERNEL || kind == TC_OP_COLLECTIVE || kind == TC_OP_MEMSET ||
		(kind >= TC_OP_MEMCPY_H2D && kind <= TC_OP_MEMCPY_OTHER);
	if (dev && on_device) {
		struct thr_info *t = &r->thrs[ti];
		t->n_dev_ops++;
		if (pending_arg(r, m->key.stream)) {
			t->n_dev_stream++;
		}
	}
	if (dma && !pending_arg(r, m->key.bytes)) {
		/* MTIA names the DMA's byte count "size". */
		double v;
		if (arg_number(r, pending_arg(r, r->s.a_size), &v) && v >= 0) {
			pend_push(r, m->key.bytes, TC_ARG_INT)->v.i = (int64_t)v;
		}
	}
	finish_event_args(r, idx, kind);
	if (kind == TC_OP_STEP && on_device) {
		TC_GROW(r->dev_steps, r->cap_dev_steps, r->n_dev_steps + 1);
		r->dev_steps[r->n_dev_steps++] = idx;
	} else if (kind == TC_OP_STEP) {
		TC_GROW(r->host_steps, r->cap_host_steps, r->n_host_steps + 1);
		r->host_steps[r->n_host_steps++] = idx;
	}
	if (e->has_corr) {
		if (dev && on_device) {
			TC_GROW(r->dev_corr, r->cap_dev_corr, r->n_dev_corr + 1);
			r->dev_corr[r->n_dev_corr++] = (struct tc_corr){ (uint64_t)e->corr, idx };
		} else if (!on_device && (kind == TC_OP_RUNTIME || kind == TC_OP_SYNC)) {
			TC_GROW(r->host_corr, r->cap_host_corr, r->n_host_corr + 1);
			r->host_corr[r->n_host_corr++] = (struct tc_corr){ (uint64_t)e->corr, idx };
		}
	}
	if (e->has_bind && (e->flow_in || e->flow_out)) {
		add_flow_end(r, id_value(e->bind, e->bind_len), r->s.v2, ti, idx, ts,
			e->flow_out, e->flow_in, true);
	}
}

static inline __attribute__((always_inline)) bool end_event(struct reader *r) {
	struct ev_state *e = &r->ev;
	uint32_t pi;
	int64_t ts;
	if (!slice_time(r, &pi, &ts)) {
		return true;
	}
	char ph = e->ph;
	if (!r->pids[pi].device_activity && is_device_cat(r, e->cat)) {
		r->pids[pi].device_activity = true;
		r->pids[pi].looks_device = 1;
	}
	if (!r->pids[pi].host_activity && is_host_cat(r, e->cat)) {
		r->pids[pi].host_activity = true;
	}
	uint32_t tid = e->has_tid ? e->tid : e->pid;
	uint8_t flavor = FL_PLAIN;
	if (e->cat && e->cat == r->s.gpu_user_annotation) {
		flavor = FL_ANNOTATION;
	} else if (is_aside_cat(r, e->cat)) {
		flavor = FL_ASIDE;
	}
	uint32_t acat = 0;
	if (ph == 'b' || ph == 'e' || ph == 'n') {
		flavor = FL_ASYNC;
		acat = e->cat;
		tid = 0;
	}
	if (ph == 's' || ph == 't' || ph == 'f') {
		uint32_t ti = thr_get(r, pi, tid, FL_PLAIN, 0);
		bool enclosing = ph == 's' || e->bp == 'e';
		add_flow_end(r, id_value(e->id, e->id_len), e->cat, ti, TC_NONE, ts,
			ph != 'f', ph != 's', enclosing);
		note_end(r, ts);
		args_rollback(r);
		return true;
	}
	uint32_t ti = thr_get(r, pi, tid, flavor, acat);
	uint32_t track = thr_track(r, ti);
	bool on_device = pid_looks_device(r, &r->pids[pi]);
	const struct op_cache *oc = event_op(r, on_device);
	enum tc_op_kind kind = (enum tc_op_kind)oc->kind;
	uint32_t op = oc->op;
	bool dma = oc->dma;
	if (dma && ph != 'E' && ph != 'e') {
		enum tc_op_kind k = dma_kind(r);
		if (k != kind) {
			kind = k;
			op = tc_model_op(r->m, e->name, oc->ocat, k);
		}
	}
	uint32_t idx;
	if (add_slice(r, ti, track, op, ts, &idx)) {
		finish_slice(r, ti, idx, kind, on_device, dma, ts);
	}
	return true;
}

/* ---- token handlers (replay calls them in document order) ---- */

/* Appends to the captured value; past the string limit the value is
 * flagged, not cut (it is dropped whole). */
static void cap_put(struct reader *r, const char *s, size_t n) {
	if (r->cap_truncated) {
		return;
	}
	if (r->cap.len + n > r->lim->max_string) {
		r->cap_truncated = true;
		return;
	}
	tc_strbuf_add(&r->cap, s, n);
}

static void cap_sep(struct reader *r) {
	if (r->cap.len) {
		char last = r->cap.s[r->cap.len - 1];
		if (last != '[' && last != '{' && last != ':') {
			cap_put(r, ",", 1);
		}
	}
}

static void cap_string(struct reader *r, const unsigned char *s, size_t n) {
	cap_put(r, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\' || c < 0x20) {
			cap_put(r, (const char *)s + run, i - run);
			char esc[8];
			int k = c == '"' ? snprintf(esc, sizeof(esc), "\\\"") :
				c == '\\' ? snprintf(esc, sizeof(esc), "\\\\") :
				snprintf(esc, sizeof(esc), "\\u%04x", c);
			cap_put(r, esc, (size_t)k);
			run = i + 1;
		}
	}
	cap_put(r, (const char *)s + run, n - run);
	cap_put(r, "\"", 1);
}

static uint32_t arg_key(struct reader *r, const unsigned char *s, size_t n) {
	if (r->dd & TC_JDD_VALID) {
		return intern_tok(r, s, n);
	}
	uint32_t pos = r->ev.n_args < KEY_CACHE ? r->ev.n_args : KEY_CACHE - 1;
	struct key_cache *k = &r->keys[pos];
	if (k->s && k->len == n && memcmp(k->s, s, n) == 0) {
		return k->id;
	}
	uint32_t id = intern(r, s, n);
	k->s = tc_model_str(r->m, id);
	k->len = (uint32_t)n;
	k->id = id;
	return id;
}

/* Intern a short field value that usually equals the previous event's.
 * s is a token's text, with 8 readable bytes past its start (a batch's
 * slack). */
static uint32_t intern_recent(struct reader *r, int field, const unsigned char *s, size_t n) {
	if (r->dd & TC_JDD_VALID) {
		return intern_tok(r, s, n); /* one load, no compare */
	}
	struct recent *c = &r->recent[field];
	if (c->n == n && n && (n <= 8 ? tc_load_le64_prefix(c->s, n) == tc_load_le64_prefix(s, n) :
			memcmp(c->s, s, n) == 0)) {
		return c->id;
	}
	uint32_t id = intern_tok(r, s, n);
	if (n <= sizeof(c->s)) {
		memcpy(c->s, s, n);
		c->n = n;
		c->id = id;
	}
	return id;
}

/* Copy an id's text (numbers and strings alike) into a small buffer. */
static void set_small(char *dst, size_t *len, const unsigned char *s, size_t n) {
	if (n > SMALL) {
		/* Over-long ids keep a hash: distinct enough for pairing. */
		*len = (size_t)snprintf(dst, SMALL, "#%08x", tc_hash(s, n));
		return;
	}
	memcpy(dst, s, n);
	*len = n;
}

enum { V_NULL, V_BOOL, V_NUM, V_STR };

static void add_arg(struct reader *r, int type, const unsigned char *s, size_t n, bool b) {
	struct tc_model *m = r->m;
	uint32_t key = r->arg_key;
	switch (type) {
	case V_NULL:
		pend_push(r, key, TC_ARG_STR)->v.s = tc_model_intern(m, "null");
		break;
	case V_BOOL:
		pend_push(r, key, TC_ARG_BOOL)->v.i = b;
		break;
	case V_NUM: {
		int64_t v;
		if (parse_i64((const char *)s, n, &v)) {
			pend_push(r, key, TC_ARG_INT)->v.i = v;
			if (key == m->key.correlation) {
				r->ev.has_corr = true;
				r->ev.corr = v;
			}
		} else {
			char *end;
			char buf[32];
			if (n < sizeof(buf) && s[0] != '-' && memchr(s, '.', n) == NULL &&
					memchr(s, 'e', n) == NULL && memchr(s, 'E', n) == NULL) {
				memcpy(buf, s, n);
				buf[n] = 0;
				errno = 0;
				unsigned long long u = strtoull(buf, &end, 10);
				if (!errno && *end == 0) {
					pend_push(r, key, TC_ARG_UINT)->v.u = u;
					break;
				}
			}
			pend_push(r, key, TC_ARG_DOUBLE)->v.d = parse_double((const char *)s, n);
		}
		break;
	}
	case V_STR: {
		uint32_t v = intern_tok(r, s, n);
		pend_push(r, key, TC_ARG_STR)->v.s = v;
		if (key == r->s.a_collective_name) {
			r->ev.collective = v;
		}
		break;
	}
	}
}

/* A scalar value of an event's field (slot, from the key before it). */
static void event_scalar(struct reader *r, enum slot slot, int type, const unsigned char *s,
		size_t n, bool b) {
	struct ev_state *e = &r->ev;
	switch (slot) {
	case S_NAME:
		if (type == V_STR || type == V_NUM) {
			e->name = intern_tok(r, s, n);
			e->has_name = true;
		}
		break;
	case S_CAT:
		if (type == V_STR) {
			e->cat = intern_recent(r, 2, s, n);
		}
		break;
	case S_PH:
		if (type == V_STR && n >= 1) {
			e->ph = (char)s[0];
		}
		break;
	case S_TS:
	case S_DUR: {
		int64_t us, frac;
		if ((type != V_NUM && type != V_STR) || !parse_us((const char *)s, n, &us, &frac)) {
			/* A bad ts drops the event; a bad dur reads as none, one
			 * too big for the timeline as 0 with its own warning. */
			if (slot == S_TS) {
				e->bad_time = true;
			} else if ((type == V_NUM || type == V_STR) &&
					numeric_text((const char *)s, n)) {
				e->dur_range = true;
			}
			break;
		}
		if (slot == S_TS) {
			e->has_ts = true;
			e->ts_us = us;
			e->ts_frac = frac;
		} else if (us > INT64_MAX / 1000000 - 1 || us < INT64_MIN / 1000000 + 1) {
			e->dur_range = true;
		} else {
			e->has_dur = true;
			e->dur_ps = us * 1000000 + frac;
		}
		break;
	}
	case S_PID:
	case S_TID:
		if (type == V_STR || type == V_NUM) {
			uint32_t id = intern_recent(r, slot == S_PID ? 0 : 1, s, n);
			if (slot == S_PID) {
				e->pid = id;
				e->has_pid = true;
			} else {
				e->tid = id;
				e->has_tid = true;
			}
		}
		break;
	case S_ID:
		if (type == V_STR || type == V_NUM) {
			set_small(e->id, &e->id_len, s, n);
			e->has_id = true;
		}
		break;
	case S_BIND_ID:
		if (type == V_STR || type == V_NUM) {
			set_small(e->bind, &e->bind_len, s, n);
			e->has_bind = true;
		}
		break;
	case S_FLOW_IN:
		e->flow_in = type == V_BOOL && b;
		break;
	case S_FLOW_OUT:
		e->flow_out = type == V_BOOL && b;
		break;
	case S_BP:
		if (type == V_STR && n) {
			e->bp = (char)s[0];
		}
		break;
	case S_SCOPE:
		if (type == V_STR && n) {
			e->scope = (char)s[0];
		}
		break;
	default:
		break;
	}
}

/* A scalar in an event (its field slot) or in its args: the hot cases. */
static inline void field_value(struct reader *r, enum ctx c, enum slot slot, int type,
		const unsigned char *s, size_t n, bool b) {
	if (c == C_EVENT) {
		event_scalar(r, slot, type, s, n, b);
	} else if (slot == S_ARG) {
		add_arg(r, type, s, n, b);
	}
}

static int on_scalar(struct reader *r, int type, const unsigned char *s, size_t n, bool b) {
	enum ctx c = cur_ctx(r);
	enum slot slot = r->slot;
	r->slot = S_NONE;
	switch (c) {
	case C_CAPTURE:
		cap_sep(r);
		if (type == V_STR) {
			cap_string(r, s, n);
		} else if (type == V_NUM) {
			cap_put(r, (const char *)s, n);
		} else if (type == V_BOOL) {
			cap_put(r, b ? "true" : "false", b ? 4 : 5);
		} else {
			cap_put(r, "null", 4);
		}
		return 1;
	case C_ARGS:
	case C_EVENT:
		field_value(r, c, slot, type, s, n, b);
		return 1;
	case C_EVENTS:
		r->n_non_object++;
		return 1;
	case C_ID2:
		if (slot == S_ID2_VAL && (type == V_STR || type == V_NUM)) {
			set_small(r->ev.id, &r->ev.id_len, s, n);
			r->ev.has_id = true;
		}
		return 1;
	case C_ROOT_MAP:
		if (slot == S_BASE_NS && type == V_NUM) {
			int64_t v;
			if (parse_i64((const char *)s, n, &v)) {
				r->base_ns = v;
				r->have_base = true;
			}
		} else if (slot == S_HOST_NAME && type == V_STR) {
			r->host_name = intern(r, s, n);
		}
		return 1;
	case C_DEVPROP: {
		int64_t v = 0;
		bool num = type == V_NUM && parse_i64((const char *)s, n, &v);
		switch (slot) {
		case S_DP_ID:
			if (num) {
				r->dp.id = v;
			}
			break;
		case S_DP_NAME:
			if (type == V_STR) {
				r->dp.name = intern(r, s, n);
			}
			break;
		case S_DP_MEM:
			r->dp.mem = num ? v : 0;
			break;
		case S_DP_SMS:
			r->dp.sms = num ? v : 0;
			break;
		case S_DP_MAJOR:
			r->dp.major = v;
			r->dp.has_major = num;
			break;
		case S_DP_MINOR:
			r->dp.minor = v;
			r->dp.has_minor = num;
			break;
		default:
			break;
		}
		return 1;
	}
	case C_DISTINFO:
		if (slot == S_DI_RANK && type == V_NUM) {
			r->has_rank = parse_i64((const char *)s, n, &r->rank);
		} else if (slot == S_DI_WORLD && type == V_NUM) {
			r->has_world = parse_i64((const char *)s, n, &r->world_size);
		}
		return 1;
	default:
		return 1;
	}
}

/*
 * Whether an arg's value can go unread: the model keeps only the keys
 * analyses read back and this event's reading needs none of the others.
 * Metadata, counters and [memory] records read their own args, so until
 * "ph" is seen (writers put it first) every arg is read.
 */
static bool arg_dropped(const struct reader *r, uint32_t key) {
	const struct tc_model *m = r->m;
	char ph = r->ev.ph;
	if (tc_model_keeps_arg(m, key) || !ph || ph == 'M' || ph == 'C' || ph == 'i' ||
			ph == 'I') {
		return false;
	}
	/* The ones this reader reads itself: a stream marks a device row, a
	 * DMA's direction and size make its kind and bytes. ("Collective
	 * name" is kept only as an export arg, which this model drops.) */
	return key != m->key.stream && key != r->s.a_size && key != r->s.a_direction;
}

/*
 * An event's own keys, found with one multiply and one compare: the
 * multiplier sends each of the 15 to its own of 16 entries (a key's order
 * in an event varies by writer, so a chain of compares or a jump on its
 * length mispredicts). s has 8 readable bytes past its start.
 */
#define EV_KEY_MAGIC 0x454fc8a979d87b3dull

void tc_json_init_ev_keys(struct reader *r) {
	static const struct { const char *text; enum slot slot; } keys[] = {
		{ "ph", S_PH }, { "ts", S_TS }, { "id", S_ID }, { "bp", S_BP }, { "s", S_SCOPE },
		{ "pid", S_PID }, { "tid", S_TID }, { "dur", S_DUR }, { "cat", S_CAT },
		{ "id2", S_ID2 }, { "name", S_NAME }, { "args", S_ARGS }, { "bind_id", S_BIND_ID },
		{ "flow_in", S_FLOW_IN }, { "flow_out", S_FLOW_OUT },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned char buf[8] = { 0 };
		size_t n = strlen(keys[i].text);
		memcpy(buf, keys[i].text, n);
		uint64_t w = tc_load_le64_prefix(buf, n);
		struct ev_key *k = &r->ev_keys[w * EV_KEY_MAGIC >> 60];
		assert(k->n == 0); /* each its own entry */
		*k = (struct ev_key){ w, (uint8_t)n, (uint8_t)keys[i].slot };
	}
}

static inline __attribute__((always_inline)) enum slot event_key_slot(const struct reader *r,
		const unsigned char *s, size_t n) {
	if (n == 0 || n > 8) {
		return S_IGNORE;
	}
	uint64_t w = tc_load_le64_prefix(s, n);
	const struct ev_key *k = &r->ev_keys[w * EV_KEY_MAGIC >> 60];
	return k->w == w && k->n == n ? (enum slot)k->slot : S_IGNORE;
}

/* An event's own key: the slot its value goes to. */
static inline void event_key(struct reader *r, const unsigned char *s, size_t n) {
	r->ev.any = true;
	r->slot = event_key_slot(r, s, n);
}

/* An arg's key: which one, and whether its value is read. */
static void args_key(struct reader *r, const unsigned char *s, size_t n) {
	r->arg_key = arg_key(r, s, n);
	r->ev.n_args++;
	r->slot = arg_dropped(r, r->arg_key) ? S_IGNORE : S_ARG;
}

static bool key_is(const unsigned char *s, size_t n, const char *lit) {
	size_t k = strlen(lit);
	return n == k && memcmp(s, lit, k) == 0;
}

static int on_key(struct reader *r, const unsigned char *s, size_t n) {
	switch (cur_ctx(r)) {
	case C_EVENT:
		event_key(r, s, n);
		return 1;
	case C_ARGS:
		args_key(r, s, n);
		return 1;
	case C_CAPTURE:
		cap_sep(r);
		cap_string(r, s, n);
		cap_put(r, ":", 1);
		return 1;
	case C_ID2:
		r->slot = key_is(s, n, "local") || key_is(s, n, "global") ? S_ID2_VAL : S_IGNORE;
		return 1;
	case C_ROOT_MAP:
		r->slot = key_is(s, n, "traceEvents") ? S_TRACE_EVENTS :
			key_is(s, n, "deviceProperties") ? S_DEVPROPS :
			key_is(s, n, "distributedInfo") ? S_DISTINFO :
			key_is(s, n, "baseTimeNanoseconds") ? S_BASE_NS :
			key_is(s, n, "host_name") ? S_HOST_NAME : S_IGNORE;
		return 1;
	case C_DEVPROP:
		r->slot = key_is(s, n, "id") ? S_DP_ID : key_is(s, n, "name") ? S_DP_NAME :
			key_is(s, n, "totalGlobalMem") ? S_DP_MEM : key_is(s, n, "numSms") ? S_DP_SMS :
			key_is(s, n, "computeMajor") ? S_DP_MAJOR :
			key_is(s, n, "computeMinor") ? S_DP_MINOR : S_IGNORE;
		return 1;
	case C_DISTINFO:
		r->slot = key_is(s, n, "rank") ? S_DI_RANK :
			key_is(s, n, "world_size") ? S_DI_WORLD : S_IGNORE;
		return 1;
	default:
		return 1;
	}
}

static int push(struct reader *r, enum ctx c) {
	if (r->depth >= r->max_depth) {
		tc_error_set(r->err, TC_EXIT_LIMIT, "json: nesting deeper than %u levels "
			"(raise it with --max-depth)", r->max_depth);
		return 0;
	}
	r->ctx[r->depth++] = (uint8_t)c;
	return 1;
}

static void begin_event(struct reader *r) {
	memset(&r->ev, 0, offsetof(struct ev_state, id));
	r->n_pend = 0;
}

static int open_container(struct reader *r, bool is_map) {
	enum slot slot = r->slot;
	r->slot = S_NONE;
	if (r->depth == 0) {
		r->root_array = !is_map;
		r->saw_events = !is_map;
		return push(r, is_map ? C_ROOT_MAP : C_EVENTS);
	}
	enum ctx parent = cur_ctx(r);
	switch (parent) {
	case C_EVENTS:
		if (!is_map) {
			r->n_non_object++;
			return push(r, C_SKIP);
		}
		begin_event(r);
		return push(r, C_EVENT);
	case C_EVENT:
		if (slot == S_ARGS && is_map) {
			return push(r, C_ARGS);
		}
		if (slot == S_ID2 && is_map) {
			return push(r, C_ID2);
		}
		if (slot == S_TS) {
			r->ev.bad_time = true;
		}
		return push(r, C_SKIP);
	case C_ARGS:
		if (slot != S_ARG) {
			return push(r, C_SKIP);
		}
		tc_strbuf_reset(&r->cap);
		r->cap_truncated = false;
		r->cap_depth = r->depth + 1;
		cap_put(r, is_map ? "{" : "[", 1);
		return push(r, C_CAPTURE);
	case C_CAPTURE:
		cap_sep(r);
		cap_put(r, is_map ? "{" : "[", 1);
		return push(r, C_CAPTURE);
	case C_ROOT_MAP:
		if (slot == S_TRACE_EVENTS && !is_map) {
			r->saw_events = true;
			return push(r, C_EVENTS);
		}
		if (slot == S_DEVPROPS && !is_map) {
			return push(r, C_DEVPROPS);
		}
		if (slot == S_DISTINFO && is_map) {
			return push(r, C_DISTINFO);
		}
		return push(r, C_SKIP);
	case C_DEVPROPS:
		if (is_map) {
			memset(&r->dp, 0, sizeof(r->dp));
			r->dp.id = -1;
			return push(r, C_DEVPROP);
		}
		return push(r, C_SKIP);
	default:
		return push(r, C_SKIP);
	}
}

static int close_container(struct reader *r, bool is_map) {
	enum ctx c = cur_ctx(r);
	r->depth--;
	r->slot = S_NONE;
	switch (c) {
	case C_EVENT:
		return end_event(r) ? 1 : 0;
	case C_CAPTURE:
		cap_put(r, is_map ? "}" : "]", 1);
		if (r->depth + 1 == r->cap_depth) {
			if (r->cap_truncated) {
				tc_model_warn(r->m, 1, "json: arg values longer than %u bytes truncated",
					r->lim->max_string);
			}
			add_arg(r, V_STR, (const unsigned char *)r->cap.s, r->cap.len, false);
		}
		return 1;
	case C_DEVPROP:
		TC_GROW(r->dps, r->cap_dps, r->n_dps + 1);
		r->dps[r->n_dps++] = r->dp;
		return 1;
	default:
		return 1;
	}
}

/*
 * The token loop. json_lex cuts the input into batches of tokens; this side
 * replays them into the callbacks above. When ingest allows a second
 * thread, a producer reads and tokenises batches ahead while this thread
 * replays them (tokenising is the smaller half, so reading stays with it).
 * Errors keep the serial order: a callback's error (earlier bytes) wins over
 * the producer's, which is reported once every token before it is replayed.
 */

/* A string token's slot: a miss means the slot holds new text. */
static inline void dd_take(struct reader *r, const struct tc_jtok *t) {
	if ((t->dd & (TC_JDD_VALID | TC_JDD_HIT)) == TC_JDD_VALID) {
		r->dd_id[TC_JDD_SLOT(t->dd)] = TC_NONE;
	}
	r->dd = t->dd;
}

static inline __attribute__((always_inline)) int replay(struct reader *r,
		const struct tc_jbatch *bt, const struct tc_jtok *t) {
	const unsigned char *s = bt->buf + t->off;
	int rv;
	switch (t->type) {
	case TC_JT_NULL:
		return on_scalar(r, V_NULL, NULL, 0, false);
	case TC_JT_BOOL:
		return on_scalar(r, V_BOOL, NULL, 0, t->b);
	case TC_JT_NUM:
		return on_scalar(r, V_NUM, s, t->len, false);
	case TC_JT_STR:
		dd_take(r, t);
		rv = on_scalar(r, V_STR, s, t->len, false);
		r->dd = 0;
		return rv;
	case TC_JT_KEY:
		dd_take(r, t);
		rv = on_key(r, s, t->len);
		r->dd = 0;
		return rv;
	case TC_JT_MAP:
	case TC_JT_ARRAY:
		return open_container(r, t->type == TC_JT_MAP);
	default:
		return close_container(r, t->type == TC_JT_END_MAP);
	}
}

/* Replay a batch's tokens, then its producer's error if it failed. A key
 * and its value go together: the value's dispatch is a branch of its own,
 * which the key before it predicts. */
bool tc_json_replay_batch(struct reader *r, const struct tc_jbatch *bt, const struct tc_jsrc *src) {
	/* An empty batch may carry no token array: NULL + 0 is undefined. */
	const struct tc_jtok *t = bt->tok, *end = bt->n ? t + bt->n : t;
	for (; t < end; t++) {
		__builtin_prefetch(t + 32);
		int rv;
		if (t->type == TC_JT_KEY) {
			/* The two hot contexts by plain tests, not on_key's jump. */
			enum ctx c = cur_ctx(r);
			const unsigned char *k = bt->buf + t->off;
			dd_take(r, t);
			rv = 1;
			if (c == C_EVENT) {
				event_key(r, k, t->len);
			} else if (c == C_ARGS) {
				args_key(r, k, t->len);
			} else {
				rv = on_key(r, k, t->len);
			}
			r->dd = 0;
			if (rv && t + 1 < end) {
				t++;
				/* A number or string in an event or its args, without
				 * on_scalar's dispatch on the context. */
				enum slot slot = r->slot;
				bool str = t->type == TC_JT_STR;
				if ((c == C_EVENT || c == C_ARGS) && (str || t->type == TC_JT_NUM)) {
					r->slot = S_NONE;
					if (str) {
						dd_take(r, t);
					}
					field_value(r, c, slot, str ? V_STR : V_NUM, bt->buf + t->off, t->len,
						false);
					r->dd = 0;
				} else {
					rv = replay(r, bt, t);
				}
			}
		} else {
			rv = replay(r, bt, t);
		}
		if (!rv) {
			/* The callback set the error; the offset is the token's end. */
			tc_error_set(r->err, TC_EXIT_INPUT, "json: parse stopped");
			return tc_error_at(r->err, (int64_t)(bt->offset_base + t->end));
		}
	}
	if (bt->failed) {
		*r->err = src->err;
		return false;
	}
	return true;
}
