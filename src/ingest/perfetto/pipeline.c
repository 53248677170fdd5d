/* Perfetto packet half: the packet walk and the queue between the halves. */
#include "ingest/perfetto/perfetto_private.h"

/* ---- packets: the pipeline between the halves ---- */

#define PP_RECS 32768           /* records a block, at most */
#define PP_BLOCKS 8             /* blocks in flight */

struct ppipe {
	struct prec *blk;       /* PP_BLOCKS * recs */
	size_t recs;            /* records a block */
	size_t n;               /* records in the block being filled */
	uint64_t produced, consumed; /* blocks; under lock */
	atomic_bool stop;       /* the model half failed: stop walking */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct pre *b;
	const uint8_t *buf;
	size_t len;
	struct tc_error err;    /* the packet half's */
};

/* Publish the block being filled; unless it is the last, wait for a free
 * one. The model half stops at PR_END, so a block's count is not passed. */
static void pp_publish(struct ppipe *pp, bool last) {
	pthread_mutex_lock(&pp->lock);
	pp->produced++;
	pthread_cond_broadcast(&pp->cv);
	while (!last && pp->produced - pp->consumed >= PP_BLOCKS) {
		pthread_cond_wait(&pp->cv, &pp->lock);
	}
	pthread_mutex_unlock(&pp->lock);
	pp->n = 0;
}

/* Plain stores: a block is written one ring (8 MiB) after the model half
 * read it, long out of that core's L2, so taking its lines back is cheap.
 * Records streamed past the cache (non-temporal stores) made the model
 * half fetch each from memory. A ring that fits in L2 is the case for
 * streaming, and it was slower too (bench/README, tried and dropped). */
static void pp_push(struct ppipe *pp, const struct prec *r) {
	pp->blk[(pp->produced % PP_BLOCKS) * pp->recs + pp->n++] = *r;
	if (pp->n == pp->recs) {
		pp_publish(pp, false);
	}
}

/*
 * Hand a record to the model half: run it in line, or queue it. False once
 * the model half has failed; the records still go through (a bundle's end
 * frees its buffer).
 */
static bool emit(struct pre *b, const struct prec *r) {
	if (!b->pipe) {
		return tc_perfetto_apply(b->a, r);
	}
	pp_push(b->pipe, r);
	return !atomic_load_explicit(&b->pipe->stop, memory_order_relaxed);
}

/* compressed_packets (deflate) or zstd_compressed_packets: inner packets. */
static bool bundle(struct pre *b, const uint8_t *p, size_t len, bool zstd) {
	if (b->bundle_depth >= MAX_BUNDLE_NESTING) {
		return tc_perfetto_pre_fail_at(b, 0, "compressed packets nested too deep", "");
	}
	uint8_t *out = NULL;
	size_t out_len = 0;
	uint64_t cap = b->lim->max_input;
	if (cap > (uint64_t)len * b->lim->max_ratio + (64u << 20)) {
		cap = (uint64_t)len * b->lim->max_ratio + (64u << 20);
	}
	struct tc_error e;
	tc_error_init(&e);
	if (!(zstd ? tc_unzstd(p, len, (size_t)cap, &out, &out_len, &e) :
			tc_inflate(p, len, 15 + 32, (size_t)cap, &out, &out_len, &e))) {
		/* The cap is one of two limits: name the option that raises it. */
		if (e.code == TC_EXIT_LIMIT) {
			tc_error_set(b->err, TC_EXIT_LIMIT, "perfetto: compressed packets "
				"inflate past %llu bytes (raise it with %s)",
				(unsigned long long)cap,
				cap == b->lim->max_input ? "--max-input-size" : "--max-ratio");
		} else {
			tc_error_set(b->err, e.code, "%s", e.msg);
		}
		return tc_error_at(b->err, (int64_t)b->pkt_off);
	}
	b->inflated += out_len;
	if (b->inflated > b->lim->max_input) {
		free(out);
		tc_error_set(b->err, TC_EXIT_LIMIT, "perfetto: compressed packets inflate "
			"past %llu bytes (raise it with --max-input-size)",
			(unsigned long long)b->lim->max_input);
		return tc_error_at(b->err, (int64_t)b->pkt_off);
	}
	/* The model half reads the inner packets after this returns (when
	 * pipelined) and frees the buffer at the bundle's end record. */
	struct prec r = { .kind = PR_BUNDLE_BEGIN, .p = b->base + b->pkt_off };
	bool ok = emit(b, &r);
	b->bundle_depth++;
	ok = ok && tc_perfetto_walk_packets(b, out, out_len, false);
	b->bundle_depth--;
	r = (struct prec){ .kind = PR_BUNDLE_END, .p = out };
	emit(b, &r);
	return ok;
}

/*
 * The packet half failed past interning (e says how). The model half still
 * gets the packet, to do (and perhaps fail at) what comes first in file
 * order; e stands only if that passes.
 */
static bool stop(struct pre *b, struct prec *r, const struct tc_error *e) {
	r->flags |= PF_STOP;
	emit(b, r);
	if (!b->err->code) {
		*b->err = *e;
	}
	return false;
}

/* The packet half of one packet. */
static bool packet(struct pre *b, const uint8_t *p, size_t len) {
	struct tc_pb pb;
	struct pkt k;
	if (packet_fields(&pb, b->base, p, len, &k) < 0) {
		return tc_perfetto_pre_pb_fail(b, &pb, "TracePacket");
	}
	if (k.kind == PKT_COMPRESSED_PACKETS || k.kind == PKT_ZSTD_COMPRESSED_PACKETS) {
		return bundle(b, k.data, k.data_len, k.kind == PKT_ZSTD_COMPRESSED_PACKETS);
	}
	struct prec r = {
		.p = k.data, .len = (uint32_t)k.data_len, .seq_id = k.seq_id,
		.kind = (uint8_t)k.kind,
	};
	if (k.interned || k.defaults) {
		r.p = p;
		r.len = (uint32_t)len;
		r.flags |= PF_FULL;
	}
	/* Inside a bundle the model half keeps the bundle's offset. */
	r.back = b->bundle_depth ? 0 : (uint32_t)(r.p - (b->base + b->pkt_off));
	struct pseq *q = pseq_get(b, k.seq_id);
	if ((k.flags & SEQ_CLEARED) || k.cleared) {
		q->valid = true;
		q->has_def_clock = false;
		r.flags |= PF_RESET;
	} else if (k.dropped) {
		q->valid = false;
	}
	if (k.dropped) {
		r.warn |= PW_DROPPED;
	}
	if ((k.flags & SEQ_NEEDS_STATE) && !q->valid) {
		r.warn |= PW_NEEDS_STATE;
		return emit(b, &r);
	}
	if (k.defaults || k.kind == PKT_CLOCK_SNAPSHOT) {
		struct tc_error e, *keep = b->err;
		tc_error_init(&e);
		b->err = &e;
		bool ok = !k.defaults || tc_perfetto_defaults_clock(b, q, k.defaults, k.defaults_len);
		if (ok && k.kind == PKT_CLOCK_SNAPSHOT) {
			tc_perfetto_parse_snapshot(b, q, k.data, k.data_len, &ok);
		}
		b->err = keep;
		if (!ok) {
			return stop(b, &r, &e);
		}
		if (k.kind == PKT_CLOCK_SNAPSHOT) {
			return emit(b, &r);
		}
	}
	if (k.has_ts) {
		uint32_t c = k.has_clock ? k.clock : q->has_def_clock ? q->def_clock :
			PF_CLOCK_BOOTTIME;
		if (to_trace_ns(b, q, c, k.ts, &r.ns, &r.warn)) {
			r.flags |= PF_TS;
		} else {
			r.warn |= PW_NO_PATH;
		}
	}
	return emit(b, &r);
}

/*
 * Make the top-level view (which ends at *end) hold the n bytes at p, or
 * reach the input's end; *end moves with it. False when reading the input
 * failed.
 */
static bool reach_more(struct pre *b, const uint8_t *buf, const uint8_t **end,
		const uint8_t *p, uint64_t n) {
	uint64_t at = (uint64_t)(p - buf);
	/* A length past what any input may hold waits for the end (the view
	 * stops at the size cap). */
	uint64_t want = n < SIZE_MAX - at ? at + n : SIZE_MAX;
	size_t avail;
	if (!tc_input_need(b->in, (size_t)want, &avail, &b->all, b->err)) {
		return false;
	}
	*end = buf + avail;
	return true;
}

static inline bool reach(struct pre *b, const uint8_t *buf, const uint8_t **end,
		const uint8_t *p, uint64_t n) {
	return b->all || n <= (uint64_t)(*end - p) || reach_more(b, buf, end, p, n);
}

/*
 * Walk `0x0a len packet` records. At top level other fields are skipped (as
 * trace_processor does); inside a bundle anything else is an error. The top
 * level may be a view that grows: each packet is waited for whole.
 */
bool tc_perfetto_walk_packets(struct pre *b, const uint8_t *buf, size_t len, bool top) {
	const uint8_t *p = buf, *end = buf + len;
	for (;;) {
		/* A tag and a length, or a tag and a fixed-width value, fit in 20
		 * bytes. */
		if (top && !reach(b, buf, &end, p, 20)) {
			return false;
		}
		if (p >= end) {
			break;
		}
		const uint8_t *start = p;
		if (top) {
			b->pkt_off = (uint64_t)(start - buf);
		}
		uint64_t key, n;
		if (!tc_pb_varint(&p, end, &key)) {
			return tc_perfetto_pre_fail_at(b, start - buf,
				"truncated field tag between packets", "");
		}
		uint32_t wt = key & 7;
		if (key == 0x0a) {
			if (!tc_pb_varint(&p, end, &n)) {
				return tc_perfetto_pre_fail_at(b, start - buf,
					"truncated packet length", "");
			}
			if (top && !reach(b, buf, &end, p, n)) {
				return false;
			}
			if (n > (uint64_t)(end - p)) {
				return tc_perfetto_pre_fail_at(b, start - buf,
					"packet length runs past the end of the file",
					top ? "" : " (inside compressed packets)");
			}
			if (n > PKT_MAX) {
				return tc_perfetto_pre_fail_at(b, start - buf,
					"packets over 4 GiB are not supported",
					top ? "" : " (inside compressed packets)");
			}
			if (n && !packet(b, p, (size_t)n)) {
				return false;
			}
			p += n;
			continue;
		}
		if (!top || (key >> 3) == 0) {
			return tc_perfetto_pre_fail_at(b, start - buf,
				"expected a TracePacket (tag 0x0a)",
				top ? "" : " inside compressed packets");
		}
		/* Skip a foreign top-level field. */
		if (wt == TC_PB_VARINT) {
			if (!tc_pb_varint(&p, end, &n)) {
				return tc_perfetto_pre_fail_at(b, start - buf, "truncated varint", "");
			}
		} else if (wt == TC_PB_LEN) {
			bool got = tc_pb_varint(&p, end, &n);
			if (got && top && !reach(b, buf, &end, p, n)) {
				return false;
			}
			if (!got || n > (uint64_t)(end - p)) {
				return tc_perfetto_pre_fail_at(b, start - buf,
					"field length runs past the end of the file", "");
			}
			p += n;
		} else if (wt == TC_PB_I64 || wt == TC_PB_I32) {
			size_t w = wt == TC_PB_I64 ? 8 : 4;
			if ((size_t)(end - p) < w) {
				return tc_perfetto_pre_fail_at(b, start - buf,
					"truncated fixed-width field", "");
			}
			p += w;
		} else {
			return tc_perfetto_pre_fail_at(b, start - buf,
				"unsupported wire type between packets", "");
		}
	}
	return true;
}

static void *pp_main(void *arg) {
	struct ppipe *pp = arg;
	bool ok = tc_perfetto_walk_packets(pp->b, pp->buf, pp->len, true);
	struct prec r = { .kind = PR_END, .flags = ok ? 0 : PF_STOP };
	pp_push(pp, &r);
	if (pp->n) {
		pp_publish(pp, true);
	}
	return NULL;
}

/*
 * Both halves on their own threads; *started false when no thread could
 * be made (nothing was read then). The model half runs here, on the
 * caller's thread, and drains the queue to its end even after a failure
 * (bundle buffers are freed by their end records).
 */
bool tc_perfetto_walk_pipelined(struct pre *b, struct st *s, const uint8_t *buf, size_t len,
		bool *started) {
	struct ppipe *pp = tc_xcalloc(1, sizeof(*pp));
	/* A packet takes 2 bytes or more: small inputs (tests) get small blocks.
	 * A view still growing may be any size. */
	size_t most = b->all ? len / 2 / PP_BLOCKS + 4 : PP_RECS;
	pp->recs = most < PP_RECS ? most : PP_RECS;
	pp->blk = tc_xmalloc(PP_BLOCKS * pp->recs * sizeof(*pp->blk));
	pp->b = b;
	pp->buf = buf;
	pp->len = len;
	atomic_init(&pp->stop, false);
	pthread_mutex_init(&pp->lock, NULL);
	pthread_cond_init(&pp->cv, NULL);
	tc_error_init(&pp->err);
	b->pipe = pp;
	b->err = &pp->err;
	pthread_t th;
	*started = pthread_create(&th, NULL, pp_main, pp) == 0;
	bool ok = true, end = false;
	for (uint64_t k = 0; *started && !end; k++) {
		pthread_mutex_lock(&pp->lock);
		while (pp->produced == k) {
			pthread_cond_wait(&pp->cv, &pp->lock);
		}
		pthread_mutex_unlock(&pp->lock);
		/* A local: pp->recs shares its line with pp->n, which the packet
		 * half writes every record. */
		size_t recs = pp->recs;
		const struct prec *blk = pp->blk + (k % PP_BLOCKS) * recs;
		for (size_t i = 0; i < recs && !end; i++) {
			const struct prec *r = &blk[i];
			__builtin_prefetch(r + 12);
			if (r->kind == PR_END) {
				end = true;
				if (ok && (r->flags & PF_STOP)) {
					*s->err = pp->err;
					ok = false;
				}
			} else if (ok) {
				if (!tc_perfetto_apply(s, r)) {
					ok = false;
					atomic_store(&pp->stop, true);
				}
			} else if (r->kind == PR_BUNDLE_END) {
				free((void *)r->p);
			}
		}
		pthread_mutex_lock(&pp->lock);
		pp->consumed = k + 1;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->lock);
	}
	if (*started) {
		pthread_join(th, NULL);
	}
	pthread_mutex_destroy(&pp->lock);
	pthread_cond_destroy(&pp->cv);
	free(pp->blk);
	free(pp);
	b->pipe = NULL;
	b->err = s->err;
	return ok;
}
