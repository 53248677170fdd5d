/* Perfetto reader: entry point, sniffing, errors and teardown. */
#include "ingest/perfetto/perfetto_private.h"

/* ---- errors ---- */

/* Offsets inside an inflated bundle mean nothing in the file: report the
 * bundle's packet instead. */
static bool err_at(struct tc_error *err, bool in_bundle, uint64_t pkt_off, int64_t off,
		const char *msg, const char *detail) {
	tc_error_set(err, TC_EXIT_INPUT, "perfetto: %s%s", msg, detail);
	return tc_error_at(err, in_bundle ? (int64_t)pkt_off : off);
}

static bool pb_err(struct tc_error *err, bool in_bundle, uint64_t pkt_off,
		const struct tc_pb *r, const char *what) {
	char msg[128];
	snprintf(msg, sizeof(msg), "malformed %s: ", what);
	return err_at(err, in_bundle, pkt_off, tc_pb_offset(r), msg,
		r->why ? r->why : "bad field");
}

bool tc_perfetto_pb_fail(struct st *s, const struct tc_pb *r, const char *what) {
	return pb_err(s->err, s->bundle_depth, s->pkt_off, r, what);
}

bool tc_perfetto_pre_fail_at(struct pre *b, int64_t off, const char *msg, const char *detail) {
	return err_at(b->err, b->bundle_depth, b->pkt_off, off, msg, detail);
}

bool tc_perfetto_pre_pb_fail(struct pre *b, const struct tc_pb *r, const char *what) {
	return pb_err(b->err, b->bundle_depth, b->pkt_off, r, what);
}

static void pre_finish(struct pre *b) {
	free(b->seqs);
	for (size_t i = 0; i < b->n_clks; i++) {
		free(b->clks[i].hops);
		free(b->clks[i].hint);
	}
	free(b->clks);
	for (size_t i = 0; i < b->n_pairs; i++) {
		free(b->pairs[i].v);
	}
	free(b->pairs);
	tc_u64map_finish(&b->sx.by_id);
	tc_u64map_finish(&b->clk_by_key);
	tc_u64map_finish(&b->pair_by_key);
}

static void st_finish(struct st *s) {
	for (size_t i = 0; i < s->sx.n; i++) {
		struct seq *q = &s->seqs[i];
		for (int t = 0; t < IT_COUNT; t++) {
			free(q->it[t].v);
			tc_u64map_finish(&q->it[t].big);
		}
		free(q->def_extra.v);
		free(q->def_extra_d.v);
		tc_u64map_finish(&q->gpu_ctr);
	}
	free(s->seqs);
	for (size_t i = 0; i < s->n_trks; i++) {
		free(s->trks[i].stack);
	}
	free(s->trks);
	free(s->accums);
	free(s->procs.v);
	free(s->defer);
	struct tc_u64map *maps[] = {
		&s->sx.by_id, &s->trk_by_uuid, &s->accum_by_key, &s->procs.by_pid,
		&s->flow_last, &s->op_cache, &s->dev_op, &s->step_of_op,
	};
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		tc_u64map_finish(maps[i]);
	}
	struct u64vec *vecs[] = {
		&s->x_uuids, &s->x_vals, &s->xd_uuids, &s->xd_vals, &s->flows, &s->tflows,
	};
	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		free(vecs[i]->v);
	}
	free(s->annos);
	free(s->anno_len);
	tc_strbuf_finish(&s->txt);
}

/*
 * Expected wire type of the TracePacket fields the sniffer knows; 0xff for
 * fields it does not. A first packet whose known fields all have the right
 * type and include one numbered 7 or more is Perfetto. XSpace's XPlane uses
 * only fields 1..6 (1 id varint, 2 name, 3 lines, ...), and TracePacket's 1
 * and 2 are LEN, so an XPlane never passes.
 */
static int packet_field_type(uint32_t num) {
	switch (num) {
	case PKT_TRUSTED_UID: case PKT_TIMESTAMP: case PKT_SEQUENCE_ID: case PKT_SEQUENCE_FLAGS:
	case PKT_STATE_CLEARED: case PKT_PREVIOUS_DROPPED: case PKT_TIMESTAMP_CLOCK_ID:
	case PKT_TRUSTED_PID: case PKT_FIRST_ON_SEQUENCE: case PKT_MACHINE_ID:
		return TC_PB_VARINT;
	case PKT_FTRACE_EVENTS: case PKT_PROCESS_TREE: case PKT_CLOCK_SNAPSHOT: case PKT_SYS_STATS:
	case PKT_PROCESS_STATS: case PKT_TRACK_EVENT: case PKT_INTERNED_DATA: case PKT_TRACE_CONFIG:
	case PKT_TRACE_STATS: case PKT_SYNC_MARKER: case PKT_PROCESS_DESCRIPTOR:
	case PKT_THREAD_DESCRIPTOR: case PKT_SYSTEM_INFO: case PKT_COMPRESSED_PACKETS:
	case PKT_GPU_COUNTER_EVENT: case PKT_GPU_RENDER_STAGE_EVENT: case PKT_DEFAULTS:
	case PKT_TRACK_DESCRIPTOR: case PKT_SERVICE_EVENT: case PKT_ZSTD_COMPRESSED_PACKETS:
		return TC_PB_LEN;
	default:
		return 0xff;
	}
}

static int sniff(const uint8_t *head, size_t len) {
	const uint8_t *p = head, *end = head + len;
	uint64_t n;
	if (len < 2 || head[0] != 0x0a) {
		return 0;
	}
	p++;
	if (!tc_pb_varint(&p, end, &n) || n == 0) {
		return 0;
	}
	size_t avail = (size_t)(end - p) < n ? (size_t)(end - p) : (size_t)n;
	struct tc_pb r;
	struct tc_pb_field f = { 0 };
	tc_pb_init(&r, head, p, avail);
	int known = 0, high = 0, rv;
	while ((rv = tc_pb_next(&r, &f)) > 0) {
		int want = packet_field_type(f.num);
		if (want == 0xff) {
			continue;
		}
		if (want != f.wt) {
			return 0;
		}
		known++;
		if (f.num >= 7) {
			high++;
		}
	}
	/* A packet cut by the end of the head may fail on its last field: judge
	 * that field by its tag. */
	if (rv < 0) {
		const uint8_t *t = r.at;
		uint64_t key;
		if ((size_t)n <= avail || !tc_pb_varint(&t, r.end, &key)) {
			return 0;
		}
		int want = packet_field_type((uint32_t)(key >> 3));
		if (want != 0xff && want != (int)(key & 7)) {
			return 0;
		}
		if (want != 0xff) {
			known++;
			high += (key >> 3) >= 7;
		}
	}
	if (!high) {
		return 0; /* only fields 1..6: XSpace-shaped, leave it to the xplane reader */
	}
	return known >= 2 ? 90 : 70;
}

static bool read_perfetto(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	/* Compressed input and pipes are read (on a helper thread where a core
	 * is spare) while the packets are walked. */
	const uint8_t *data;
	size_t size;
	bool all;
	if (!tc_input_view(in, lim->reader_thread != 0, &data, &size, &all, err)) {
		return false;
	}
	/* Pipelining pays from PP_MIN_FILE bytes: see whether there are that
	 * many. A read that fails before is reported by the walk when it gets
	 * there: a broken packet earlier in the bytes is the error. */
	if (!all && lim->reader_thread && lim->reader_thread != TC_READER_THREAD_ALWAYS) {
		struct tc_error later;
		tc_error_init(&later);
		(void)tc_input_need(in, PP_MIN_FILE, &size, &all, &later);
	}
	struct st s = {
		.m = m, .lim = lim, .err = err, .in = in, .base = data,
		.ev0 = m->ev.n, .smp0 = m->samples.n, .flow0 = m->n_flows,
	};
	struct pre b = {
		.lim = lim, .err = err, .base = data, .trace_clock = PF_CLOCK_BOOTTIME, .a = &s,
		.in = in, .all = all,
	};
	s.s_thread_time = tc_model_intern(m, "thread time");
	s.s_instr = tc_model_intern(m, "thread instruction count");
	s.s_ns = tc_model_intern(m, "ns");
	s.s_bytes = tc_model_intern(m, "bytes");
	s.s_count = tc_model_intern(m, "count");
	s.s_global = tc_model_intern(m, "global");
	bool ok, started = false;
	if (lim->reader_thread == TC_READER_THREAD_ALWAYS ||
			(lim->reader_thread && size >= PP_MIN_FILE)) {
		ok = tc_perfetto_walk_pipelined(&b, &s, data, size, &started);
	}
	if (!started) {
		ok = tc_perfetto_walk_packets(&b, data, size, true);
	}
	tc_input_stop(in);
	if (ok) {
		tc_perfetto_build_model(&s);
	}
	pre_finish(&b);
	st_finish(&s);
	return ok;
}

const struct tc_reader tc_reader_perfetto = {
	.name = "perfetto",
	.description = "Perfetto",
	.sniff = sniff,
	.read = read_perfetto,
};
