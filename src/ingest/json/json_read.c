/* Chrome JSON reader: entry point, the reading loops, end-of-input checks and teardown. */
#include "ingest/json/json_private.h"

/* An event never ended runs to the last timestamp seen. */
static void run_to_last(struct reader *r, uint32_t idx) {
	struct tc_model *m = r->m;
	m->ev.dur[idx] = r->max_end_ps > m->ev.start[idx] ? r->max_end_ps - m->ev.start[idx] : 0;
	m->ev.flags[idx] |= TC_EV_UNFINISHED;
	r->n_unclosed_b++;
}

/* The B and b events still open at the end. */
static void close_open(struct reader *r) {
	for (size_t i = 0; i < r->n_thrs; i++) {
		const struct thr_info *t = &r->thrs[i];
		for (size_t k = 0; k < t->n_stack; k++) {
			run_to_last(r, t->stack[k]);
		}
	}
	for (size_t i = 0; i < r->async.cap; i++) {
		if (r->async.v[i].used && r->async.v[i].val != TC_NONE) {
			run_to_last(r, r->async.v[i].val);
		}
	}
}

/* The file's host: its rank, its host name, else a name from its path. */
static uint32_t add_host(struct reader *r) {
	struct tc_model *m = r->m;
	char buf[256];
	uint32_t host_name;
	if (r->has_rank) {
		snprintf(buf, sizeof(buf), "rank %" PRId64, r->rank);
		host_name = tc_model_intern(m, buf);
	} else if (r->host_name) {
		host_name = r->host_name;
	} else {
		host_name = tc_ingest_host_from_path(m, tc_model_str(m, m->sources[r->source].path));
	}
	uint32_t host = tc_model_add_host(m, host_name, r->source);
	if (r->has_rank && r->rank >= 0 && r->rank <= INT32_MAX) {
		m->hosts[host].rank = (int32_t)r->rank;
		m->hosts[host].rank_from = TC_RANK_READER;
	}
	if (r->has_world && r->world_size > 0 && r->world_size <= INT32_MAX) {
		m->hosts[host].world_size = (int32_t)r->world_size;
	}
	return host;
}

/* Allocator records hold their thread's index until now: a thread
 * with no event of its own gets no track. */
static void alloc_tracks(struct reader *r) {
	struct tc_model *m = r->m;
	for (size_t i = r->first_alloc; i < m->n_allocs; i++) {
		uint32_t t = m->allocs[i].track, track = TC_NONE;
		if (t < r->n_thrs) {
			const struct thr_info *th = &r->thrs[t];
			uint32_t plain = tc_json_thr_index(r, th->pid, th->tid, FL_PLAIN, 0);
			track = th->track != TC_NONE || plain == TC_NONE ? th->track :
				r->thrs[plain].track;
		}
		m->allocs[i].track = track;
	}
}

/* Origin: Kineto's ts is relative to baseTimeNanoseconds. */
static bool set_origin(struct reader *r) {
	struct tc_model *m = r->m;
	int64_t origin_us = r->have_origin ? r->origin_us : 0;
	if (origin_us > INT64_MAX / 1000 || origin_us < INT64_MIN / 1000) {
		return tc_json_fail(r, "json: timestamps out of range");
	}
	int64_t o = origin_us * 1000;
	if (r->have_base) {
		if ((r->base_ns > 0 && o > INT64_MAX - r->base_ns) ||
				(r->base_ns < 0 && o < INT64_MIN - r->base_ns)) {
			return tc_json_fail(r, "json: baseTimeNanoseconds out of range");
		}
		o += r->base_ns;
	}
	m->origin_ns = o;
	/* µs since 2001 and later read as Unix time. */
	m->origin_epoch = r->have_base || origin_us >= 978307200000000ll;
	return true;
}

/* What was skipped or taken as something else, one warning each. */
static void warn_skipped(struct reader *r) {
	struct tc_model *m = r->m;
	if (r->n_empty) {
		tc_model_warn(m, r->n_empty, "json: skipped empty {} events");
	}
	if (r->n_no_ph) {
		tc_model_warn(m, r->n_no_ph, "json: skipped events without \"ph\"");
	}
	if (r->n_no_ts) {
		tc_model_warn(m, r->n_no_ts, "json: skipped events without a valid \"ts\"");
	}
	if (r->n_far_ts) {
		tc_model_warn(m, r->n_far_ts,
			"json: skipped events more than 100 days from the first timestamp");
	}
	if (r->n_no_dur) {
		tc_model_warn(m, r->n_no_dur, "json: complete (X) events without \"dur\" taken as 0");
	}
	if (r->n_dur_range) {
		tc_model_warn(m, r->n_dur_range, "json: complete (X) events with a \"dur\" "
			"out of the timeline's range taken as 0");
	}
	if (r->n_unmatched_e) {
		tc_model_warn(m, r->n_unmatched_e, "json: end (E) events without a begin dropped");
	}
	if (r->n_unclosed_b) {
		tc_model_warn(m, r->n_unclosed_b,
			"json: begin (B/b) events never ended; they run to the last timestamp");
	}
	if (r->n_unmatched_async) {
		tc_model_warn(m, r->n_unmatched_async, "json: async end (e) events without a begin dropped");
	}
	if (r->n_non_object) {
		tc_model_warn(m, r->n_non_object, "json: skipped non-object entries in the event array");
	}
	if (r->n_bad_counter) {
		tc_model_warn(m, r->n_bad_counter, "json: counter (C) events without numeric args skipped");
	}
	if (r->n_flows_unbound) {
		tc_model_warn(m, r->n_flows_unbound, "json: flow events that bind to no slice dropped");
	}
	if (r->trailing_commas) {
		tc_model_warn(m, r->trailing_commas, "json: trailing commas ignored");
	}
	for (int c = 0; c < 128; c++) {
		if (r->n_unknown_ph[c]) {
			tc_model_warn(m, r->n_unknown_ph[c], "json: skipped events of unsupported phase '%c'",
				c >= 0x20 && c < 0x7f ? c : '?');
		}
	}
}

static bool finish(struct reader *r) {
	close_open(r);
	tc_json_settle_devices(r, add_host(r));
	alloc_tracks(r);
	tc_json_tf1_finish(r);

	size_t links = tc_json_link_correlations(r);
	tc_json_link_flows(r, links > 0);
	tc_json_check_device_steps(r);
	if (!set_origin(r)) {
		return false;
	}
	warn_skipped(r);
	return true;
}

static void reader_free(struct reader *r) {
	free(r->ctx);
	free(r->strs);
	free(r->dd_id);
	free(r->ops);
	tc_strbuf_finish(&r->cap);
	free(r->dps);
	free(r->pids);
	tc_u64map_finish(&r->pid_by_key);
	for (size_t i = 0; i < r->n_thrs; i++) {
		free(r->thrs[i].stack);
	}
	free(r->thrs);
	tc_u64map_finish(&r->thr_by_key);
	tc_u64map_finish(&r->async);
	free(r->fe);
	free(r->pend);
	free(r->host_corr);
	free(r->dev_corr);
	free(r->host_steps);
	free(r->dev_steps);
}

static void init_names(struct reader *r) {
	struct tc_model *m = r->m;
#define I(field, text) r->s.field = tc_model_intern(m, text)
	I(kernel, "kernel");
	I(gpu_memcpy, "gpu_memcpy");
	I(gpu_memset, "gpu_memset");
	I(gpu_user_annotation, "gpu_user_annotation");
	I(Kernel, "Kernel");
	I(Memcpy, "Memcpy");
	I(Memset, "Memset");
	I(cuda_runtime, "cuda_runtime");
	I(cuda_driver, "cuda_driver");
	I(Runtime, "Runtime");
	I(cuda_sync, "cuda_sync");
	I(cpu_op, "cpu_op");
	I(Operator, "Operator");
	I(user_annotation, "user_annotation");
	I(python_function, "python_function");
	I(overhead, "overhead");
	I(Overhead, "Overhead");
	I(cpu_instant_event, "cpu_instant_event");
	I(ac2g, "ac2g");
	I(async_cpu_to_gpu, "async_cpu_to_gpu");
	I(async, "async");
	I(mtia_ccp_events, "mtia_ccp_events");
	I(mtia_runtime, "mtia_runtime");
	I(memory_name, "[memory]");
	I(v2, "\x01flow-v2");
	I(a_name, "name");
	I(a_labels, "labels");
	I(a_sort_index, "sort_index");
	I(a_tc_kind, "tracectl_kind");
	I(a_dev_type, "Device Type");
	I(a_dev_id, "Device Id");
	I(a_total_alloc, "Total Allocated");
	I(a_total_res, "Total Reserved");
	I(a_addr, "Addr");
	I(a_bytes, "Bytes");
	I(a_allocator, "allocator");
	I(a_tf_op, "tf_op");
	I(a_shape, "shape");
	I(a_dtype, "dtype");
	I(a_collective_name, "Collective name");
	I(a_direction, "direction");
	I(a_size, "size");
	I(process_name, "process_name");
	I(process_labels, "process_labels");
	I(process_sort_index, "process_sort_index");
	I(thread_name, "thread_name");
	I(thread_sort_index, "thread_sort_index");
	I(Op, "Op");
#undef I
}

/* Where the document ended, for a truncated file. */
static bool check_end(struct reader *r) {
	if (r->depth == 0) {
		return true;
	}
	enum ctx c = cur_ctx(r);
	bool between_events = c == C_EVENTS && !r->eof_in_token;
	bool top_level = c == C_ROOT_MAP && r->slot == S_NONE && !r->eof_in_token;
	/* A file cut right after a complete event (or between top-level keys)
	 * is what an interrupted writer leaves; accept it like catapult. */
	if (between_events || top_level) {
		tc_model_warn(r->m, 1, "json: input ends without closing brackets; read up to the last complete event");
		if (r->source < r->m->n_sources) {
			r->m->sources[r->source].truncated = true;
		}
		return true;
	}
	const char *where = "a value";
	for (uint32_t d = r->depth; d-- > 0;) {
		if (r->ctx[d] == C_EVENT) {
			where = "an event";
			break;
		}
	}
	return tc_error_set(r->err, TC_EXIT_INPUT, "json: unexpected end of input inside %s",
		where);
}

/* What the reader needs from the tokeniser once the input is done. */
static void src_done(struct reader *r, const struct tc_jsrc *src) {
	r->eof_in_token = src->lx.eof_in_token;
	r->trailing_commas = src->lx.trailing_commas;
	r->offset_base = src->offset;
}

static bool parse_serial(struct reader *r, struct tc_input *in) {
	struct tc_jsrc src;
	struct tc_jbatch b[2] = { 0 };
	tc_jsrc_init(&src, in, r->lim);
	src.lx.dedup = true;
	bool more = true, ok = true;
	for (size_t k = 0; more && ok; k++) {
		struct tc_jbatch *bt = &b[k & 1];
		more = tc_jsrc_fill(&src, bt);
		ok = tc_json_replay_batch(r, bt, &src);
	}
	src_done(r, &src);
	tc_jbatch_finish(&b[0]);
	tc_jbatch_finish(&b[1]);
	tc_jsrc_finish(&src);
	return ok;
}

struct pipe {
	struct tc_jsrc src;
	struct tc_jbatch b[NBATCH];
	/* Batches, counted: filled by the producer, released by the consumer
	 * after replay. */
	uint64_t filled, released;
	bool stop;               /* the consumer gave up */
	pthread_mutex_t lock;
	pthread_cond_t cv;
};

static void *produce(void *arg) {
	struct pipe *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		while (p->filled - p->released == NBATCH && !p->stop) {
			pthread_cond_wait(&p->cv, &p->lock);
		}
		bool stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop) {
			return NULL;
		}
		bool more = tc_jsrc_fill(&p->src, &p->b[p->filled % NBATCH]);
		pthread_mutex_lock(&p->lock);
		p->filled++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
		if (!more) {
			return NULL;
		}
	}
}

static bool parse_pipelined(struct reader *r, struct tc_input *in, bool *started) {
	struct pipe *p = tc_xcalloc(1, sizeof(*p));
	tc_jsrc_init(&p->src, in, r->lim);
	p->src.lx.dedup = true;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_t th;
	bool ok = true;
	*started = pthread_create(&th, NULL, produce, p) == 0;
	if (!*started) {
		goto out;
	}
	for (uint64_t k = 0;; k++) {
		pthread_mutex_lock(&p->lock);
		while (p->filled == k) {
			pthread_cond_wait(&p->cv, &p->lock);
		}
		pthread_mutex_unlock(&p->lock);
		const struct tc_jbatch *bt = &p->b[k % NBATCH];
		ok = tc_json_replay_batch(r, bt, &p->src);
		bool last = bt->last;
		pthread_mutex_lock(&p->lock);
		p->released++;
		p->stop = !ok;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->lock);
		if (!ok || last) {
			break;
		}
	}
	pthread_join(th, NULL);
	src_done(r, &p->src);
out:
	for (int i = 0; i < NBATCH; i++) {
		tc_jbatch_finish(&p->b[i]);
	}
	tc_jsrc_finish(&p->src);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p);
	return ok;
}

static bool read_json(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	struct reader r = { 0 };
	r.m = m;
	r.first_alloc = m->n_allocs;
	r.lim = lim;
	r.err = err;
	r.source = source;
	r.max_depth = lim->max_depth ? lim->max_depth : 64;
	r.ctx = tc_xcalloc(r.max_depth + 1, 1);
	r.last_thr = TC_NONE;
	r.strs = tc_xcalloc(STR_CACHE, sizeof(*r.strs));
	r.dd_id = tc_xmalloc(TC_JDD_SLOTS * sizeof(*r.dd_id));
	memset(r.dd_id, 0xff, TC_JDD_SLOTS * sizeof(*r.dd_id)); /* TC_NONE */
	r.ops = tc_xcalloc(OP_CACHE, sizeof(*r.ops));
	init_names(&r);
	tc_json_init_ev_keys(&r);

	bool ok = false, started = false;
	if (lim->reader_thread) {
		ok = parse_pipelined(&r, in, &started);
	}
	if (!started) {
		ok = parse_serial(&r, in);
	}
	if (!ok) {
		goto out;
	}
	ok = false;
	if (!check_end(&r)) {
		tc_error_at(err, (int64_t)r.offset_base);
		goto out;
	}
	if (!r.saw_events) {
		tc_error_set(err, TC_EXIT_INPUT,
			"json: no \"traceEvents\" array (not a Chrome trace event file)");
		goto out;
	}
	ok = finish(&r);
out:
	reader_free(&r);
	return ok;
}

/* '{' or '[' first (after a UTF-8 BOM and whitespace), then the start of a
 * string or object: JSON text, not binary that happens to start with '{'. */
static int sniff(const uint8_t *head, size_t len) {
	size_t i = tc_json_bom(head, len) ? 3 : 0;
	while (i < len && tc_json_ws(head[i])) {
		i++;
	}
	if (i >= len || (head[i] != '{' && head[i] != '[')) {
		return 0;
	}
	bool array = head[i] == '[';
	i++;
	while (i < len && tc_json_ws(head[i])) {
		i++;
	}
	if (i >= len) {
		return 40;
	}
	if (head[i] == '"' && !array) {
		return 90;
	}
	if (array && (head[i] == '{' || head[i] == ']')) {
		return 90;
	}
	if (head[i] == '}') {
		return 60;
	}
	return 0;
}

const struct tc_reader tc_reader_json = {
	.name = "json",
	.description = "Chrome/Kineto/JAX JSON",
	.sniff = sniff,
	.read = read_json,
};
