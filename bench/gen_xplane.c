/*
 * gen-xplane: write a large XProf-shaped XSpace for benchmarks.
 *
 *   gen-xplane [--size BYTES] [--gpus N] [--seed S] OUT.xplane.pb
 *
 * Shape (like a TF/JAX GPU profile after host post-processing): a /host:CPU
 * plane with a python thread (TraceContext steps, cudaLaunchKernel with
 * correlation ids) and worker threads; N /device:GPU:<n> planes, each with
 * two compute streams (kernels with correlation_id and a kernel_details
 * ref_value), MemcpyH2D / MemcpyD2H streams (correlation_id, memcpy_details),
 * a derived "TensorFlow Ops" line and a "Steps" line; event and stat
 * metadata after the lines, as writers put them; a Task Environment plane.
 * Events on each line are in time order. Output is deterministic per seed.
 */
#include <inttypes.h>
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
	int kind; /* 0 int, 1 ref, 2 str */
	int64_t i;
	const char *s;
};

static void put_event(struct buf *line, struct buf *tmp, int64_t mid, int64_t off,
		int64_t dur, const struct xstat *st, int nst) {
	struct buf ev = { 0 };
	(void)tmp;
	put_int(&ev, 1, mid);
	put_int(&ev, 2, off);
	put_int(&ev, 3, dur);
	for (int i = 0; i < nst; i++) {
		uint8_t sb[64];
		struct buf s = { sb, 0, sizeof(sb) };
		put_int(&s, 1, st[i].id);
		if (st[i].kind == 0) {
			put_int(&s, 4, st[i].i);
		} else if (st[i].kind == 1) {
			put_int(&s, 7, st[i].i);
		} else {
			put_str(&s, 5, st[i].s);
		}
		put_msg(&ev, 4, &s);
	}
	put_msg(line, 4, &ev);
	free(ev.p);
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

#define STEP_PS 50000000000LL /* 50 ms steps */

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
		if (l < 2) {
			snprintf(name, sizeof(name), "Stream #%d(Compute)", stream);
		} else if (l == 2) {
			snprintf(name, sizeof(name), "Stream #%d(MemcpyH2D)", stream);
		} else if (l == 3) {
			snprintf(name, sizeof(name), "Stream #%d(MemcpyD2H)", stream);
		} else {
			snprintf(name, sizeof(name), "TensorFlow Ops");
		}
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
	/* Steps line over the whole span. */
	line.n = 0;
	line_header(&line, -559038737, "Steps", 200000);
	for (int64_t s = 0; s * STEP_PS < last_end; s++) {
		struct xstat st[1] = { { S_GROUP_ID, 0, s, NULL } };
		put_event(&line, NULL, 2000 + s % 100, s * STEP_PS, STEP_PS - 1000000, st, 1);
		(*n_events)++;
	}
	put_msg(&plane, 3, &line);
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
	for (int k = 0; k < 100; k++) {
		snprintf(name, sizeof(name), "%d", k);
		event_meta(&plane, 2000 + k, name);
	}
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
	flush_plane(out, &plane, written);
	free(plane.p);
	free(line.p);
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
	flush_plane(out, &plane, written);
	free(plane.p);
	free(line.p);
}

int main(int argc, char **argv) {
	uint64_t size = 1ull << 30;
	int gpus = 8;
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
		} else if (strcmp(argv[i], "--gpus") == 0 && i + 1 < argc) {
			gpus = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			rng_state ^= strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ull;
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			fprintf(stderr, "usage: gen-xplane [--size BYTES[k|M|G]] [--gpus N] "
				"[--seed S] OUT.xplane.pb\n");
			return 2;
		}
	}
	if (!path || gpus < 1) {
		fprintf(stderr, "usage: gen-xplane [--size BYTES[k|M|G]] [--gpus N] "
			"[--seed S] OUT.xplane.pb\n");
		return 2;
	}
	FILE *out = fopen(path, "wb");
	if (!out) {
		perror(path);
		return 1;
	}
	uint64_t written = 0, n_events = 0;
	int64_t corr = 1;
	host_plane(out, size / 8, &written, &n_events);
	for (int g = 0; g < gpus; g++) {
		gpu_plane(out, g, (size - size / 8) / (uint64_t)gpus, &written, &n_events, &corr);
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
