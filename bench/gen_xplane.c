/*
 * gen-xplane: write a large XProf-shaped XSpace for benchmarks.
 *
 *   gen-xplane [--size BYTES] [--profile gpu|tpu|lean|ops] [--gpus N] [--seed S] OUT.xplane.pb
 *
 * Profiles (bench/README.md has the measurements they copy):
 * - gpu (default): shaped after xprof-tf_gpu_multiworker: a /host:CPU plane
 *   carrying ~83 % of the bytes (TF executor ops with kernel_name strings,
 *   memory records with ~14 stats, cudaLaunchKernel with correlation ids)
 *   and N (default 8) /device:GPU:n planes (kernels and memcpys with 6-8
 *   stats, derived TensorFlow Ops / Name Scope lines with group_id); about
 *   80 bytes and 4.2 stats per event, a fifth of the stats strings.
 * - tpu: shaped after xprof-tpu_inference_2: a host plane of mostly
 *   stat-less events and N (default 4) /device:TPU:n planes with XLA
 *   Modules / XLA Ops (device_offset_ps, device_duration_ps) / TraceMe
 *   lines; about 30 bytes and 1.4 stats per event.
 * - lean: the original shape: python thread (TraceContext steps,
 *   cudaLaunchKernel) and worker threads, GPU planes with two compute
 *   streams (correlation_id, kernel_details ref), memcpy streams, TensorFlow
 *   Ops and Steps lines; about 31 bytes and 1.6 stats per event.
 * - ops: device ops only, N (default 4) GPU planes of two compute streams
 *   and two copy streams; about 25 bytes and one stat per event.
 * Event and stat metadata follow the lines, as writers put them; a Task
 * Environment plane ends the file. Events on each line are in time order.
 * Output is deterministic per seed and profile.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void reserve(struct buf *b, size_t extra) {
	if (b->n + extra <= b->cap) {
		return;
	}
	size_t c = b->cap ? b->cap : 4096;
	while (c < b->n + extra) {
		c *= 2;
	}
	b->p = realloc(b->p, c);
	if (!b->p) {
		fprintf(stderr, "gen-xplane: out of memory\n");
		exit(1);
	}
	b->cap = c;
}

static void put_varint(struct buf *b, uint64_t v) {
	reserve(b, 10);
	while (v >= 0x80) {
		b->p[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (uint8_t)v;
}

static void put_tag(struct buf *b, uint32_t num, unsigned wt) {
	put_varint(b, (uint64_t)num << 3 | wt);
}

static void put_int(struct buf *b, uint32_t num, int64_t v) {
	put_tag(b, num, 0);
	put_varint(b, (uint64_t)v);
}

static void put_bytes(struct buf *b, uint32_t num, const void *s, size_t n) {
	put_tag(b, num, 2);
	put_varint(b, n);
	reserve(b, n);
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void put_str(struct buf *b, uint32_t num, const char *s) {
	put_bytes(b, num, s, strlen(s));
}

static void put_double(struct buf *b, uint32_t num, double d) {
	put_tag(b, num, 1);
	reserve(b, 8);
	uint64_t u;
	memcpy(&u, &d, 8);
	for (int i = 0; i < 8; i++) {
		b->p[b->n++] = (uint8_t)(u >> (8 * i));
	}
}

static void put_msg(struct buf *b, uint32_t num, const struct buf *m) {
	put_bytes(b, num, m->p, m->n);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) {
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi) {
	return lo + rnd() % (hi - lo + 1);
}

/* Stat metadata ids used by every plane. */
enum {
	S_CORRELATION = 1,
	S_KERNEL_DETAILS,
	S_MEMCPY_DETAILS,
	S_GROUP_ID,
	S_STEP_NUM,
	S_TF_OP,
	S_CLOCK,
	S_CORES,
	S_MEMBW,
	S_MEMSIZE,
	S_VENDOR,
	S_PEAK_TFLOPS,
	S_KD_BASE = 100, /* kernel_details strings, ref_value targets */
	N_KD = 64,
};

#define N_KERNELS 400
#define N_HOST_OPS 200

struct xstat {
	uint32_t id;
	int kind; /* 0 int, 1 ref, 2 str, 3 uint */
	int64_t i;
	const char *s;
};

static void put_event(struct buf *line, struct buf *tmp, int64_t mid, int64_t off,
		int64_t dur, const struct xstat *st, int nst) {
	/* Scratch on the heap, reused: reserve() may realloc it. */
	static struct buf ev, s;
	(void)tmp;
	ev.n = 0;
	put_int(&ev, 1, mid);
	put_int(&ev, 2, off);
	put_int(&ev, 3, dur);
	for (int i = 0; i < nst; i++) {
		s.n = 0;
		put_int(&s, 1, st[i].id);
		if (st[i].kind == 0) {
			put_int(&s, 4, st[i].i);
		} else if (st[i].kind == 1) {
			put_int(&s, 7, st[i].i);
		} else if (st[i].kind == 3) {
			put_int(&s, 3, st[i].i);
		} else {
			put_str(&s, 5, st[i].s);
		}
		put_msg(&ev, 4, &s);
	}
	put_msg(line, 4, &ev);
}

static void line_header(struct buf *line, int64_t id, const char *name, int64_t ts_ns) {
	put_int(line, 1, id);
	put_str(line, 2, name);
	put_int(line, 3, ts_ns);
}

/* A map<int64, X{id, name}> entry: event_metadata (4) or stat_metadata (5). */
static void meta_entry(struct buf *plane, uint32_t field, int64_t id, const char *name) {
	struct buf v = { 0 }, e = { 0 };
	put_int(&v, 1, id);
	put_str(&v, 2, name);
	put_int(&e, 1, id);
	put_msg(&e, 2, &v);
	put_msg(plane, field, &e);
	free(v.p);
	free(e.p);
}

static void stat_meta(struct buf *plane, int64_t id, const char *name) {
	meta_entry(plane, 5, id, name);
}

static void event_meta(struct buf *plane, int64_t id, const char *name) {
	meta_entry(plane, 4, id, name);
}

static void common_stat_meta(struct buf *plane) {
	static const char *const names[] = {
		NULL, "correlation_id", "kernel_details", "memcpy_details", "group_id",
		"step_num", "tf_op", "clock_rate", "core_count", "memory_bandwidth",
		"memory_size", "device_vendor", "peak_teraflops_per_second",
	};
	for (int i = 1; i <= S_PEAK_TFLOPS; i++) {
		stat_meta(plane, i, names[i]);
	}
	char s[128];
	for (int k = 0; k < N_KD; k++) {
		snprintf(s, sizeof(s), "regs:%d shm:%d grid:%d,1,1 block:%d,1,1",
			16 + k % 48, (k % 4) * 1024, 40 * (1 + k % 16), 128 << (k % 3));
		stat_meta(plane, S_KD_BASE + k, s);
	}
}

static void plane_stat_int(struct buf *plane, uint32_t id, int64_t v) {
	struct buf s = { 0 };
	put_int(&s, 1, id);
	put_int(&s, 4, v);
	put_msg(plane, 6, &s);
	free(s.p);
}

static void flush_plane(FILE *out, struct buf *plane, uint64_t *written) {
	struct buf hdr = { 0 };
	put_tag(&hdr, 1, 2);
	put_varint(&hdr, plane->n);
	fwrite(hdr.p, 1, hdr.n, out);
	fwrite(plane->p, 1, plane->n, out);
	*written += hdr.n + plane->n;
	free(hdr.p);
	plane->n = 0;
}

/* GPU plane line l: two compute streams, H2D, D2H, then other lines. */
static void line_name(char *name, size_t n, int l, int stream, const char *other) {
	if (l < 2) {
		snprintf(name, n, "Stream #%d(Compute)", stream);
	} else if (l == 2) {
		snprintf(name, n, "Stream #%d(MemcpyH2D)", stream);
	} else if (l == 3) {
		snprintf(name, n, "Stream #%d(MemcpyD2H)", stream);
	} else {
		snprintf(name, n, "%s", other);
	}
}

/* Write the plane and free it and its line buffer. */
static void end_plane(FILE *out, struct buf *plane, struct buf *line, uint64_t *written) {
	flush_plane(out, plane, written);
	free(plane->p);
	free(line->p);
}

#define STEP_PS 50000000000LL /* 50 ms steps */

/* A Steps line over [0, end) with group_id stats, and its step names. */
static void steps_line(struct buf *plane, struct buf *line, int64_t line_id, int64_t mid_base,
		int64_t end, uint64_t *n_events) {
	line->n = 0;
	line_header(line, line_id, "Steps", 200000);
	for (int64_t s = 0; s * STEP_PS < end; s++) {
		struct xstat st[1] = { { S_GROUP_ID, 0, s, NULL } };
		put_event(line, NULL, mid_base + s % 100, s * STEP_PS, STEP_PS - 1000000, st, 1);
		(*n_events)++;
	}
	put_msg(plane, 3, line);
}

static void step_names(struct buf *plane, int64_t mid_base) {
	char name[16];
	for (int k = 0; k < 100; k++) {
		snprintf(name, sizeof(name), "%d", k);
		event_meta(plane, mid_base + k, name);
	}
}

static void gpu_plane(FILE *out, int g, uint64_t budget, uint64_t *written,
		uint64_t *n_events, int64_t *corr) {
	struct buf plane = { 0 }, line = { 0 };
	char name[64];
	put_int(&plane, 1, g + 1);
	snprintf(name, sizeof(name), "/device:GPU:%d", g);
	put_str(&plane, 2, name);
	/* Line budgets: compute 2 x 38 %, H2D 6 %, D2H 4 %, TF ops 13 %, steps. */
	static const double share[] = { 0.38, 0.38, 0.06, 0.04, 0.135 };
	int64_t last_end = 0;
	for (int l = 0; l < 5; l++) {
		uint64_t lb = (uint64_t)(budget * share[l]);
		line.n = 0;
		int stream = 10 + g * 8 + l;
		line_name(name, sizeof(name), l, stream, "TensorFlow Ops");
		line_header(&line, l == 4 ? -559038734 : stream, name, 200000);
		int64_t t = (int64_t)rnd_range(0, 2000000);
		rng_state ^= (uint64_t)(g * 31 + l);
		while (line.n < lb) {
			if (l < 2 || l == 4) {
				int k = (int)(rnd() % N_KERNELS);
				int64_t dur = (int64_t)rnd_range(2000000, 200000000);
				if (l < 2) {
					struct xstat st[2] = {
						{ S_CORRELATION, 0, (*corr)++, NULL },
						{ S_KERNEL_DETAILS, 1, S_KD_BASE + k % N_KD, NULL },
					};
					put_event(&line, NULL, 1 + k, t, dur, st, 2);
				} else {
					struct xstat st[1] = { { S_GROUP_ID, 0, t / STEP_PS, NULL } };
					put_event(&line, NULL, 1000 + k % N_HOST_OPS, t, dur, st, 1);
				}
				t += dur + (int64_t)rnd_range(500000, 20000000);
			} else {
				int64_t size = 1024LL << (rnd() % 12);
				char det[64];
				snprintf(det, sizeof(det), "size:%" PRId64 " dest:0 async:1", size);
				int64_t dur = 1000000 + size * 80;
				struct xstat st[2] = {
					{ S_CORRELATION, 0, (*corr)++, NULL },
					{ S_MEMCPY_DETAILS, 2, 0, det },
				};
				put_event(&line, NULL, l == 2 ? 900 : 901, t, dur, st, 2);
				t += dur + (int64_t)rnd_range(10000000, 200000000);
			}
			(*n_events)++;
		}
		if (t > last_end) {
			last_end = t;
		}
		put_msg(&plane, 3, &line);
	}
	steps_line(&plane, &line, -559038737, 2000, last_end, n_events);
	for (int k = 0; k < N_KERNELS; k++) {
		snprintf(name, sizeof(name), "void gen_kernel_%d<float, %d>(float*, int)", k, k % 7);
		event_meta(&plane, 1 + k, name);
	}
	event_meta(&plane, 900, "MemcpyH2D");
	event_meta(&plane, 901, "MemcpyD2H");
	for (int k = 0; k < N_HOST_OPS; k++) {
		snprintf(name, sizeof(name), "model/layer_%d/MatMul:MatMul", k);
		event_meta(&plane, 1000 + k, name);
	}
	step_names(&plane, 2000);
	common_stat_meta(&plane);
	plane_stat_int(&plane, S_CLOCK, 1530000);
	plane_stat_int(&plane, S_CORES, 80);
	plane_stat_int(&plane, S_MEMBW, 898048000000LL);
	plane_stat_int(&plane, S_MEMSIZE, 16945512448LL);
	struct buf ps = { 0 };
	put_int(&ps, 1, S_PEAK_TFLOPS);
	put_double(&ps, 2, 15.7);
	put_msg(&plane, 6, &ps);
	free(ps.p);
	end_plane(out, &plane, &line, written);
}

static void host_plane(FILE *out, uint64_t budget, uint64_t *written, uint64_t *n_events) {
	struct buf plane = { 0 }, line = { 0 };
	char name[64];
	put_str(&plane, 2, "/host:CPU");
	int nthreads = 4;
	for (int th = 0; th < nthreads; th++) {
		line.n = 0;
		snprintf(name, sizeof(name), th == 0 ? "python3" : "tf_Compute/%d", 4000 + th);
		line_header(&line, 4000 + th, name, 212990);
		int64_t t = 0, corr = 1 + th;
		int64_t next_step = 0;
		while (line.n < budget / nthreads) {
			if (th == 0 && t >= next_step) {
				struct xstat st[1] = { { S_STEP_NUM, 0, next_step / STEP_PS, NULL } };
				put_event(&line, NULL, 1, next_step, STEP_PS - 2000000, st, 1);
				next_step += STEP_PS;
			} else if (rnd() % 2) {
				struct xstat st[1] = { { S_CORRELATION, 0, corr, NULL } };
				corr += nthreads;
				int64_t dur = (int64_t)rnd_range(3000000, 9000000);
				put_event(&line, NULL, 2, t, dur, st, 1);
				t += dur + (int64_t)rnd_range(100000, 5000000);
			} else {
				int64_t dur = (int64_t)rnd_range(1000000, 90000000);
				put_event(&line, NULL, 10 + (int64_t)(rnd() % N_HOST_OPS), t, dur, NULL, 0);
				t += dur + (int64_t)rnd_range(100000, 5000000);
			}
			(*n_events)++;
		}
		put_msg(&plane, 3, &line);
	}
	event_meta(&plane, 1, "TraceContext");
	event_meta(&plane, 2, "cudaLaunchKernel");
	for (int k = 0; k < N_HOST_OPS; k++) {
		snprintf(name, sizeof(name), "ExecutorState::Process_%d", k);
		event_meta(&plane, 10 + k, name);
	}
	common_stat_meta(&plane);
	end_plane(out, &plane, &line, written);
}

/* ---- calibrated profiles (see bench/README.md for the measurements) ---- */

/* Stat metadata of the gpu and tpu profiles: the names real writers use. */
static const char *const rs_names[] = {
	NULL, "correlation_id", "kernel_details", "memcpy_details", "group_id",
	"step_num", "id", "kernel_name", "num_output_edges", "num_output_control_edges",
	"is_eager", "shape", "allocator_name", "bytes_reserved", "bytes_allocated",
	"bytes_available", "peak_bytes_in_use", "requested_bytes", "allocation_bytes",
	"addr", "data_type", "region_type", "tf_op", "step_id", "context_id", "iter_num",
	"_ct", "_c", "_pt", "_p", "annotation", "level 0", "device_offset_ps",
	"device_duration_ps", "hlo_op", "_a", "flow", "run_id", "replica_id", "queue_id",
	"core_type", "size", "index_on_host", "continuation", "device_ordinal",
	"clock_rate", "core_count", "memory_bandwidth", "memory_size",
	"peak_teraflops_per_second",
};
enum {
	R_CORR = 1, R_KD, R_MD, R_GROUP, R_STEP, R_ID, R_KNAME, R_NOUT, R_NCTL, R_EAGER,
	R_SHAPE, R_ALLOC, R_BRES, R_BALLOC, R_BAVAIL, R_PEAK, R_REQ, R_ABYTES, R_ADDR,
	R_DTYPE, R_REGION, R_TFOP, R_STEPID, R_CTX, R_ITER, R_CT, R_C, R_PT, R_P, R_ANNOT,
	R_LEVEL0, R_DOFF, R_DDUR, R_HLO, R_A, R_FLOW, R_RUN, R_REPLICA, R_QUEUE, R_CORE,
	R_SIZE, R_IDXHOST, R_CONT, R_DEVORD, R_CLOCK, R_CORES, R_MEMBW, R_MEMSIZE,
	R_PEAKTF, R_COUNT,
	R_KD_BASE = 200, /* kernel_details strings, ref_value targets */
	R_ANNOT_BASE = 300, /* annotation strings, ref_value targets */
};

static void real_stat_meta(struct buf *plane) {
	for (int i = 1; i < R_COUNT; i++) {
		stat_meta(plane, i, rs_names[i]);
	}
	char s[160];
	for (int k = 0; k < N_KD; k++) {
		snprintf(s, sizeof(s), "regs:%d static_shared:%d dynamic_shared:0 grid:%d,1,1 "
			"block:%d,1,1 occ_pct:%d", 16 + k % 48, (k % 4) * 1024, 40 * (1 + k % 16),
			128 << (k % 3), 25 + k % 75);
		stat_meta(plane, R_KD_BASE + k, s);
	}
	for (int k = 0; k < N_KD; k++) {
		snprintf(s, sizeof(s), "replica_%d/bert_encoder_1/transformer/layer_%d/"
			"self_attention/einsum/Einsum", k % 8, k % 24);
		stat_meta(plane, R_ANNOT_BASE + k, s);
	}
}

/* A TF op path like the kernel_name / tf_op strings of real GPU profiles. */
static const char *tf_op_name(char *s, size_t n, int k) {
	static const char *const leaf[] = {
		"self_attention/query/einsum/Einsum", "intermediate/dense/MatMul",
		"output/layer_norm/batchnorm/mul_1", "self_attention/dropout/dropout/Mul_1",
		"attention_output/BiasAdd", "self_attention/Softmax",
	};
	snprintf(s, n, "replica_%d/bert_span_labeler/bert_encoder_1/transformer/layer_%d/%s",
		k % 8, k % 24, leaf[k % 6]);
	return s;
}

static const char *shape_str(char *s, size_t n, uint64_t r) {
	static const int dims[] = { 1, 8, 12, 32, 64, 128, 384, 768, 1024, 3072, 30522 };
	int nd = 1 + (int)(r % 4);
	size_t o = 0;
	s[o++] = '[';
	for (int i = 0; i < nd; i++) {
		o += (size_t)snprintf(s + o, n - o, "%s%d", i ? "," : "", dims[(r >> (4 + 4 * i)) % 11]);
	}
	snprintf(s + o, n - o, "]");
	return s;
}

/* The counter stats of a memory record (allocator state, request). */
static int mem_stats(struct xstat *st, uint64_t r) {
	int64_t alloc = 1000000000LL + (int64_t)((r >> 8) % 4000000000ULL);
	int n = 0;
	st[n++] = (struct xstat){ R_BRES, 0, 0, NULL };
	st[n++] = (struct xstat){ R_BALLOC, 0, alloc, NULL };
	st[n++] = (struct xstat){ R_BAVAIL, 0, 15000000000LL - alloc, NULL };
	st[n++] = (struct xstat){ R_PEAK, 0, 9000000000LL, NULL };
	st[n++] = (struct xstat){ R_REQ, 0, 256LL << ((r >> 14) % 20), NULL };
	st[n++] = (struct xstat){ R_ADDR, 0, 140000000000000LL + (int64_t)(r >> 24), NULL };
	return n;
}

#define N_GPU_HOST_NAMES 600

/*
 * gpu profile host plane, after xprof-tf_gpu_multiworker's /host:CPU (per
 * host event: ~100 bytes, 5.3 stats, a fifth of the stats strings): TF
 * executor ops with kernel_name, ops with group_id/is_eager/shape, memory
 * (de)allocation records with ~14 stats, cudaLaunchKernel with correlation
 * ids, a few stat-less events.
 */
static void gpu_host_plane(FILE *out, uint64_t budget, uint64_t *written, uint64_t *n_events) {
	struct buf plane = { 0 }, line = { 0 };
	char name[160], str[160], str2[64];
	put_str(&plane, 2, "/host:CPU");
	int nthreads = 8;
	int64_t id = 1000000;
	for (int th = 0; th < nthreads; th++) {
		line.n = 0;
		snprintf(name, sizeof(name), th == 0 ? "python3" : "tf_Compute/%d", 1105654971 + th);
		line_header(&line, 4000 + th, name, 212990);
		int64_t t = 0, corr = 1 + th;
		int64_t next_step = 0;
		while (line.n < budget / (uint64_t)nthreads) {
			struct xstat st[16];
			int n = 0;
			int64_t mid;
			uint64_t r = rnd();
			int64_t dur = (int64_t)rnd_range(1000000, 40000000);
			unsigned pick = (unsigned)(r % 1000);
			int64_t grp = t / STEP_PS;
			if (th == 0 && t >= next_step) {
				st[n++] = (struct xstat){ R_STEP, 0, next_step / STEP_PS, NULL };
				put_event(&line, NULL, 1, next_step, STEP_PS - 2000000, st, n);
				next_step += STEP_PS;
				(*n_events)++;
				continue;
			}
			if (pick < 360) { /* executor op with kernel_name */
				mid = 3;
				st[n++] = (struct xstat){ R_ID, 0, id++, NULL };
				st[n++] = (struct xstat){ R_KNAME, 2, 0,
					tf_op_name(str, sizeof(str), (int)(r >> 20) % N_GPU_HOST_NAMES) };
				st[n++] = (struct xstat){ R_NOUT, 0, (int64_t)(r >> 40) % 4, NULL };
				st[n++] = (struct xstat){ R_NCTL, 0, (int64_t)(r >> 44) % 2, NULL };
				if ((r >> 50) % 6) {
					st[n++] = (struct xstat){ R_EAGER, 0, 0, NULL };
				}
			} else if (pick < 510) { /* op: group_id, is_eager */
				mid = 10 + (int64_t)((r >> 20) % N_GPU_HOST_NAMES);
				st[n++] = (struct xstat){ R_GROUP, 0, grp, NULL };
				st[n++] = (struct xstat){ R_EAGER, 0, 0, NULL };
			} else if (pick < 650) { /* op with a shape */
				mid = 10 + (int64_t)((r >> 20) % N_GPU_HOST_NAMES);
				st[n++] = (struct xstat){ R_SHAPE, 2, 0, shape_str(str2, sizeof(str2), r >> 10) };
				st[n++] = (struct xstat){ R_GROUP, 0, grp, NULL };
				st[n++] = (struct xstat){ R_EAGER, 0, 0, NULL };
			} else if (pick < 810) { /* memory record */
				mid = (r >> 12) % 3 ? 4 : 5;
				st[n++] = (struct xstat){ R_ALLOC, 2, 0, "GPU_0_bfc" };
				n += mem_stats(st + n, r);
				st[n++] = (struct xstat){ R_ABYTES, 0, 256LL << ((r >> 14) % 20), NULL };
				st[n++] = (struct xstat){ R_ID, 0, id++, NULL };
				st[n++] = (struct xstat){ R_DTYPE, 0, 1 + (int64_t)(r % 9), NULL };
				st[n++] = (struct xstat){ R_SHAPE, 2, 0, shape_str(str2, sizeof(str2), r >> 10) };
				st[n++] = (struct xstat){ R_REGION, 2, 0, "output" };
				if ((r >> 30) % 4) {
					st[n++] = (struct xstat){ R_TFOP, 2, 0,
						tf_op_name(str, sizeof(str), (int)(r >> 20) % N_GPU_HOST_NAMES) };
					st[n++] = (struct xstat){ R_STEPID, 0, grp, NULL };
				}
			} else if (pick < 910) { /* kernel launch */
				mid = 2;
				st[n++] = (struct xstat){ R_CORR, 3, corr, NULL };
				corr += nthreads;
				st[n++] = (struct xstat){ R_CTX, 2, 0, "$$1" };
				st[n++] = (struct xstat){ R_KD, 1, R_KD_BASE + (int64_t)(r >> 20) % N_KD, NULL };
				st[n++] = (struct xstat){ R_GROUP, 0, grp, NULL };
				dur = (int64_t)rnd_range(3000000, 9000000);
			} else if (pick < 945) {
				mid = 6;
				st[n++] = (struct xstat){ R_ID, 0, id++, NULL };
				st[n++] = (struct xstat){ R_ITER, 0, 0, NULL };
				st[n++] = (struct xstat){ R_CT, 0, 5, NULL };
				st[n++] = (struct xstat){ R_C, 0, (int64_t)(r >> 20), NULL };
			} else if (pick < 975) {
				mid = 7;
			} else { /* send/recv with from/to-like string stats */
				mid = 10 + (int64_t)((r >> 20) % N_GPU_HOST_NAMES);
				st[n++] = (struct xstat){ R_TFOP, 2, 0,
					tf_op_name(str, sizeof(str), (int)(r >> 20) % N_GPU_HOST_NAMES) };
				st[n++] = (struct xstat){ R_GROUP, 0, grp, NULL };
			}
			put_event(&line, NULL, mid, t, dur, st, n);
			t += dur + (int64_t)rnd_range(100000, 5000000);
			(*n_events)++;
		}
		put_msg(&plane, 3, &line);
	}
	event_meta(&plane, 1, "TraceContext");
	event_meta(&plane, 2, "cudaLaunchKernel");
	event_meta(&plane, 3, "ExecutorPropagateOutputs");
	event_meta(&plane, 4, "MemoryAllocation");
	event_meta(&plane, 5, "MemoryDeallocation");
	event_meta(&plane, 6, "ExecutorState::Process");
	event_meta(&plane, 7, "MemCpyAsync");
	for (int k = 0; k < N_GPU_HOST_NAMES; k++) {
		tf_op_name(name, sizeof(name), k);
		snprintf(name + strlen(name), sizeof(name) - strlen(name), ":%s", k % 2 ? "MatMul" : "Mul");
		event_meta(&plane, 10 + k, name);
	}
	real_stat_meta(&plane);
	end_plane(out, &plane, &line, written);
}

/*
 * gpu profile device plane, after xprof-tf_gpu_multiworker's /device:GPU:n
 * (per device event: ~34 bytes, 2.3 stats): 80 % derived TensorFlow Ops /
 * Name Scope events with group_id only; kernels on compute streams with 8
 * stats (correlation_id, annotation and kernel_details refs, context_id and
 * shape strings, ...); memcpys with memcpy_details strings.
 */
static void gpu_device_plane(FILE *out, int g, uint64_t budget, uint64_t *written,
		uint64_t *n_events, int64_t *corr) {
	struct buf plane = { 0 }, line = { 0 };
	char name[160], str2[64];
	put_int(&plane, 1, g + 1);
	snprintf(name, sizeof(name), "/device:GPU:%d", g);
	put_str(&plane, 2, name);
	/* Byte shares: compute 2 x 22 %, H2D 4 %, D2H 1.5 %, TF ops 15 %, scopes 35.5 %. */
	static const double share[] = { 0.22, 0.22, 0.04, 0.015, 0.15, 0.355 };
	int64_t last_end = 0;
	for (int l = 0; l < 6; l++) {
		uint64_t lb = (uint64_t)((double)budget * share[l]);
		line.n = 0;
		int stream = 130 + g * 8 + l;
		line_name(name, sizeof(name), l, stream,
			l == 4 ? "TensorFlow Ops" : "TensorFlow Name Scope");
		line_header(&line, l >= 4 ? -559038734 - (l - 4) : stream, name, 200000);
		int64_t t = (int64_t)rnd_range(0, 2000000);
		rng_state ^= (uint64_t)(g * 31 + l);
		while (line.n < lb) {
			struct xstat st[10];
			int n = 0;
			uint64_t r = rnd();
			int64_t mid, dur;
			if (l < 4) {
				st[n++] = (struct xstat){ R_CORR, 3, (*corr)++, NULL };
				st[n++] = (struct xstat){ R_ANNOT, 1, R_ANNOT_BASE + (int64_t)(r % N_KD), NULL };
				st[n++] = (struct xstat){ R_CTX, 2, 0, "$$1" };
			}
			if (l < 2) {
				int k = (int)((r >> 8) % N_KERNELS);
				mid = 1 + k;
				dur = (int64_t)rnd_range(2000000, 200000000);
				st[n++] = (struct xstat){ R_KD, 1, R_KD_BASE + k % N_KD, NULL };
				st[n++] = (struct xstat){ R_LEVEL0, 1, R_ANNOT_BASE + (int64_t)(r % N_KD), NULL };
				st[n++] = (struct xstat){ R_EAGER, 0, 0, NULL };
				st[n++] = (struct xstat){ R_GROUP, 0, t / STEP_PS, NULL };
				st[n++] = (struct xstat){ R_SHAPE, 2, 0, shape_str(str2, sizeof(str2), r >> 12) };
			} else if (l < 4) {
				int64_t size = 1024LL << (r % 12);
				char det[96];
				snprintf(det, sizeof(det), "kind_src:pinned kind_dst:device size:%" PRId64
					" dest:%d async:1", size, g);
				mid = l == 2 ? 900 : 901;
				dur = 1000000 + size * 80;
				st[n++] = (struct xstat){ R_MD, 2, 0, det };
				st[n++] = (struct xstat){ R_LEVEL0, 1, R_ANNOT_BASE + (int64_t)(r % N_KD), NULL };
				st[n++] = (struct xstat){ R_EAGER, 0, 0, NULL };
			} else {
				mid = 1000 + (int64_t)((r >> 8) % N_GPU_HOST_NAMES);
				dur = (int64_t)rnd_range(2000000, 200000000);
				st[n++] = (struct xstat){ R_GROUP, 0, t / STEP_PS, NULL };
			}
			put_event(&line, NULL, mid, t, dur, st, n);
			t += dur + (int64_t)(l < 4 && l >= 2 ? rnd_range(10000000, 200000000) :
				rnd_range(500000, 20000000));
			(*n_events)++;
		}
		if (t > last_end) {
			last_end = t;
		}
		put_msg(&plane, 3, &line);
	}
	steps_line(&plane, &line, -559038737, 2000, last_end, n_events);
	for (int k = 0; k < N_KERNELS; k++) {
		snprintf(name, sizeof(name), "void tensorflow::functor::gen_kernel_%d<float, %d>"
			"(float const*, float*, int)", k, k % 7);
		event_meta(&plane, 1 + k, name);
	}
	event_meta(&plane, 900, "MemcpyH2D");
	event_meta(&plane, 901, "MemcpyD2H");
	for (int k = 0; k < N_GPU_HOST_NAMES; k++) {
		tf_op_name(name, sizeof(name), k);
		event_meta(&plane, 1000 + k, name);
	}
	step_names(&plane, 2000);
	real_stat_meta(&plane);
	plane_stat_int(&plane, R_CLOCK, 1530000);
	plane_stat_int(&plane, R_CORES, 80);
	plane_stat_int(&plane, R_MEMBW, 898048000000LL);
	plane_stat_int(&plane, R_MEMSIZE, 16945512448LL);
	end_plane(out, &plane, &line, written);
}

#define N_TPU_OPS 2000

/*
 * tpu profile host plane, after xprof-tpu_inference_2's /host:CPU (per host
 * event: ~23 bytes, 1 stat): mostly stat-less TraceMe events, context
 * pairs (_pt/_p, _ct/_c), memory records, program enqueues.
 */
static void tpu_host_plane(FILE *out, uint64_t budget, uint64_t *written, uint64_t *n_events) {
	struct buf plane = { 0 }, line = { 0 };
	char name[96];
	put_str(&plane, 2, "/host:CPU");
	int nthreads = 16;
	for (int th = 0; th < nthreads; th++) {
		line.n = 0;
		snprintf(name, sizeof(name), th == 0 ? "python3" : "tpu_runtime_%d", 2000 + th);
		line_header(&line, 7000 + th, name, 212990);
		int64_t t = 0;
		while (line.n < budget / (uint64_t)nthreads) {
			struct xstat st[12];
			int n = 0;
			uint64_t r = rnd();
			unsigned pick = (unsigned)(r % 1000);
			int64_t mid = 10 + (int64_t)((r >> 20) % 200);
			int64_t dur = (int64_t)rnd_range(200000, 20000000);
			if (pick < 725) {
				/* stat-less */
			} else if (pick < 796) {
				st[n++] = (struct xstat){ R_PT, 0, 6, NULL };
				st[n++] = (struct xstat){ R_P, 0, (int64_t)(r >> 16), NULL };
			} else if (pick < 865) {
				st[n++] = (struct xstat){ R_CT, 0, 6, NULL };
				st[n++] = (struct xstat){ R_C, 0, (int64_t)(r >> 16), NULL };
			} else if (pick < 892) {
				st[n++] = (struct xstat){ R_SIZE, 3, 4096LL << (r % 12), NULL };
			} else if (pick < 939) {
				mid = (r >> 12) % 2 ? 4 : 5;
				st[n++] = (struct xstat){ R_IDXHOST, 0, 0, NULL };
				n += mem_stats(st + n, r);
				if (mid == 4) {
					st[n++] = (struct xstat){ R_ABYTES, 0, 256LL << ((r >> 14) % 20), NULL };
					st[n++] = (struct xstat){ R_DTYPE, 0, 1 + (int64_t)(r % 9), NULL };
					st[n++] = (struct xstat){ R_ID, 0, (int64_t)(r >> 30), NULL };
					st[n++] = (struct xstat){ R_REGION, 2, 0, "output" };
				}
			} else {
				st[n++] = (struct xstat){ R_CONT, 0, (int64_t)(r >> 40), NULL };
				st[n++] = (struct xstat){ R_RUN, 3, (uint64_t)r >> 2, NULL };
				st[n++] = (struct xstat){ R_QUEUE, 3, 0, NULL };
				st[n++] = (struct xstat){ R_DEVORD, 0, th % 4, NULL };
				st[n++] = (struct xstat){ R_CT, 0, 6, NULL };
				st[n++] = (struct xstat){ R_C, 0, (int64_t)(r >> 16), NULL };
			}
			put_event(&line, NULL, mid, t, dur, st, n);
			t += dur + (int64_t)rnd_range(100000, 5000000);
			(*n_events)++;
		}
		put_msg(&plane, 3, &line);
	}
	event_meta(&plane, 4, "MemoryAllocation");
	event_meta(&plane, 5, "MemoryDeallocation");
	for (int k = 0; k < 200; k++) {
		snprintf(name, sizeof(name), "TfrtTpuClient::Stage_%d", k);
		event_meta(&plane, 10 + k, name);
	}
	real_stat_meta(&plane);
	end_plane(out, &plane, &line, written);
}

/*
 * tpu profile device plane, after xprof-tpu_inference_2's /device:TPU:n
 * (per device event: ~36 bytes, 2.2 stats): XLA Modules with run/replica
 * ids, XLA Ops with device_offset_ps / device_duration_ps, a few stat-less
 * XLA TraceMe events, a Steps line.
 */
static void tpu_device_plane(FILE *out, int g, uint64_t budget, uint64_t *written,
		uint64_t *n_events) {
	struct buf plane = { 0 }, line = { 0 };
	char name[160];
	put_int(&plane, 1, g + 1);
	snprintf(name, sizeof(name), "/device:TPU:%d", g);
	put_str(&plane, 2, name);
	/* XLA Ops with modules enclosing runs of ops, then TraceMe. */
	static const double share[] = { 0.90, 0.02 };
	struct buf mod = { 0 };
	line_header(&mod, 1, "XLA Modules", 200000);
	line.n = 0;
	line_header(&line, 2, "XLA Ops", 200000);
	int64_t t = 0;
	uint64_t lb = (uint64_t)((double)budget * share[0]);
	while (line.n + mod.n < lb) {
		uint64_t r = rnd();
		int nops = 10 + (int)(r % 20);
		int64_t mstart = t;
		for (int i = 0; i < nops; i++) {
			uint64_t q = rnd();
			int64_t dur = (int64_t)(q % 5000000) + 10000;
			struct xstat st[2] = {
				{ R_DOFF, 3, t, NULL },
				{ R_DDUR, 3, dur, NULL },
			};
			put_event(&line, NULL, 1 + (int64_t)((q >> 24) % N_TPU_OPS), t, dur, st, 2);
			t += dur + (int64_t)(q >> 40) % 100000;
			(*n_events)++;
		}
		struct xstat ms[6] = {
			{ R_RUN, 3, (int64_t)(r >> 2), NULL },
			{ R_REPLICA, 0, 0, NULL },
			{ R_QUEUE, 3, 0, NULL },
			{ R_CORE, 3, 0, NULL },
			{ R_CT, 0, 6, NULL },
			{ R_C, 0, (int64_t)(r >> 16), NULL },
		};
		put_event(&mod, NULL, 5000 + (int64_t)(r % 50), mstart, t - mstart, ms, 6);
		(*n_events)++;
		t += (int64_t)rnd_range(100000, 2000000);
	}
	put_msg(&plane, 3, &mod);
	put_msg(&plane, 3, &line);
	line.n = 0;
	line_header(&line, 3, "XLA TraceMe", 200000);
	int64_t tt = 0;
	while (line.n < (uint64_t)((double)budget * share[1]) && tt < t) {
		int64_t dur = (int64_t)rnd_range(100000, 1000000);
		put_event(&line, NULL, 6000 + (int64_t)(rnd() % 4), tt, dur, NULL, 0);
		tt += dur + (int64_t)rnd_range(100000, 2000000000 / 100);
		(*n_events)++;
	}
	put_msg(&plane, 3, &line);
	steps_line(&plane, &line, 4, 7000, t, n_events);
	static const char *const hlo[] = { "fusion", "convolution", "copy-start", "broadcast",
		"all-reduce", "dot", "reduce", "transpose" };
	for (int k = 0; k < N_TPU_OPS; k++) {
		snprintf(name, sizeof(name), "%%%s.%d = f32[5,1024,1024,256]{3,2,1,0:T(8,128)} "
			"%s(f32[5,1024,1024,256] %%param.%d)", hlo[k % 8], k, hlo[k % 8], k % 17);
		event_meta(&plane, 1 + k, name);
	}
	for (int k = 0; k < 50; k++) {
		snprintf(name, sizeof(name), "jit_step_fn_%d(%d)", k, 24338684 + k);
		event_meta(&plane, 5000 + k, name);
	}
	static const char *const tm[] = { "dependency-wait", "barrier-cores", "sync-flags", "host-callback" };
	for (int k = 0; k < 4; k++) {
		event_meta(&plane, 6000 + k, tm[k]);
	}
	step_names(&plane, 7000);
	real_stat_meta(&plane);
	plane_stat_int(&plane, R_CORES, 1);
	struct buf ps = { 0 };
	put_int(&ps, 1, R_PEAKTF);
	put_double(&ps, 2, 197.0);
	put_msg(&plane, 6, &ps);
	free(ps.p);
	end_plane(out, &plane, &line, written);
	free(mod.p);
}

#define N_OPS_KERNELS 400

/*
 * ops profile device plane: nothing but device ops, about 25 bytes each:
 * two compute streams of short kernels (one in eight a NCCL all-reduce) and
 * H2D and D2H copy streams, one correlation_id stat per event, back to back with
 * gaps of a few microseconds; a Steps line. It stresses the analysis (per
 * device unions, gaps, step attribution), not the reader's stat decoding.
 */
static void ops_device_plane(FILE *out, int g, uint64_t budget, uint64_t *written,
		uint64_t *n_events, int64_t *corr) {
	struct buf plane = { 0 }, line = { 0 };
	char name[160];
	put_int(&plane, 1, g + 1);
	snprintf(name, sizeof(name), "/device:GPU:%d", g);
	put_str(&plane, 2, name);
	static const double share[] = { 0.42, 0.42, 0.08, 0.08 };
	int64_t last_end = 0;
	for (int l = 0; l < 4; l++) {
		uint64_t lb = (uint64_t)((double)budget * share[l]);
		line.n = 0;
		int stream = 7 + g * 8 + l;
		line_name(name, sizeof(name), l, stream, "");
		line_header(&line, stream, name, 200000);
		int64_t t = (int64_t)rnd_range(0, 2000000);
		rng_state ^= (uint64_t)(g * 31 + l);
		while (line.n < lb) {
			uint64_t r = rnd();
			int64_t mid, dur;
			if (l < 2) {
				mid = r % 8 ? 1 + (int64_t)((r >> 8) % N_OPS_KERNELS) : 800;
				dur = 1000000 + (int64_t)((r >> 20) % 30000000);
			} else {
				mid = l == 2 ? 900 : 901;
				dur = 2000000 + (int64_t)((r >> 20) % 20000000);
			}
			struct xstat st[1] = { { S_CORRELATION, 0, (*corr)++, NULL } };
			put_event(&line, NULL, mid, t, dur, st, 1);
			t += dur + 200000 + (int64_t)((r >> 40) % 5000000);
			(*n_events)++;
		}
		if (t > last_end) {
			last_end = t;
		}
		put_msg(&plane, 3, &line);
	}
	steps_line(&plane, &line, -559038737, 2000, last_end, n_events);
	for (int k = 0; k < N_OPS_KERNELS; k++) {
		snprintf(name, sizeof(name), "void gen_kernel_%d<float, %d>(float*, int)", k, k % 7);
		event_meta(&plane, 1 + k, name);
	}
	event_meta(&plane, 800, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)");
	event_meta(&plane, 900, "MemcpyH2D");
	event_meta(&plane, 901, "MemcpyD2H");
	step_names(&plane, 2000);
	common_stat_meta(&plane);
	plane_stat_int(&plane, S_CLOCK, 1530000);
	plane_stat_int(&plane, S_CORES, 80);
	plane_stat_int(&plane, S_MEMBW, 898048000000LL);
	plane_stat_int(&plane, S_MEMSIZE, 16945512448LL);
	end_plane(out, &plane, &line, written);
}

int main(int argc, char **argv) {
	uint64_t size = 1ull << 30;
	int gpus = 0;
	const char *profile = "gpu";
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
			char *end;
			size = strtoull(argv[++i], &end, 10);
			if (*end == 'k' || *end == 'K') {
				size <<= 10;
			} else if (*end == 'M') {
				size <<= 20;
			} else if (*end == 'G') {
				size <<= 30;
			}
		} else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
			profile = argv[++i];
		} else if (strcmp(argv[i], "--gpus") == 0 && i + 1 < argc) {
			gpus = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			rng_state ^= strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ull;
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			fprintf(stderr, "usage: gen-xplane [--size BYTES[k|M|G]] "
				"[--profile gpu|tpu|lean|ops] [--gpus N] [--seed S] OUT.xplane.pb\n");
			return 2;
		}
	}
	bool lean = strcmp(profile, "lean") == 0, tpu = strcmp(profile, "tpu") == 0;
	bool ops = strcmp(profile, "ops") == 0;
	if (!path || gpus < 0 || (!lean && !tpu && !ops && strcmp(profile, "gpu") != 0)) {
		fprintf(stderr, "usage: gen-xplane [--size BYTES[k|M|G]] [--profile gpu|tpu|lean|ops] "
			"[--gpus N] [--seed S] OUT.xplane.pb\n");
		return 2;
	}
	if (gpus == 0) {
		gpus = tpu || ops ? 4 : 8;
	}
	FILE *out = fopen(path, "wb");
	if (!out) {
		perror(path);
		return 1;
	}
	uint64_t written = 0, n_events = 0;
	int64_t corr = 1;
	if (ops) {
		for (int g = 0; g < gpus; g++) {
			ops_device_plane(out, g, size / (uint64_t)gpus, &written, &n_events, &corr);
		}
	} else if (lean) {
		host_plane(out, size / 8, &written, &n_events);
		for (int g = 0; g < gpus; g++) {
			gpu_plane(out, g, (size - size / 8) / (uint64_t)gpus, &written, &n_events, &corr);
		}
	} else if (tpu) {
		/* Bytes as in the real file: ~62 % host, ~38 % devices. */
		uint64_t host = size / 100 * 62;
		tpu_host_plane(out, host, &written, &n_events);
		for (int g = 0; g < gpus; g++) {
			tpu_device_plane(out, g, (size - host) / (uint64_t)gpus, &written, &n_events);
		}
	} else {
		/* Bytes as in the real file: ~83 % host, ~17 % devices. */
		uint64_t host = size / 100 * 83;
		gpu_host_plane(out, host, &written, &n_events);
		for (int g = 0; g < gpus; g++) {
			gpu_device_plane(out, g, (size - host) / (uint64_t)gpus, &written, &n_events, &corr);
		}
	}
	struct buf plane = { 0 }, tail = { 0 };
	put_str(&plane, 2, "Task Environment");
	stat_meta(&plane, 1, "profile_start_time");
	struct buf s = { 0 };
	put_int(&s, 1, 1);
	put_int(&s, 3, 1700000000000000000LL);
	put_msg(&plane, 6, &s);
	flush_plane(out, &plane, &written);
	put_str(&tail, 4, "bench-host");
	fwrite(tail.p, 1, tail.n, out);
	written += tail.n;
	free(plane.p);
	free(tail.p);
	free(s.p);
	if (fclose(out) != 0) {
		perror(path);
		return 1;
	}
	printf("%" PRIu64 " bytes, %" PRIu64 " events\n", written, n_events);
	return 0;
}
