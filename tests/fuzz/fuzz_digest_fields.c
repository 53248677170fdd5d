/*
 * Digests mutated field by field, not byte by byte: a custom mutator
 * unpacks the input (seeds are valid digests), sets a few fields anywhere
 * in it to values that break assumptions (extremes, clock fields, counts,
 * indexes, the fields only a job's rank in memory holds: Rank.aside_at,
 * Steps.lean_*, ...), adds, drops or repeats entries of repeated fields
 * and packs it again. Each input is read as a digest file is (unknown
 * fields skipped, ranks expanded and checked), and what passes is printed
 * as summarize, bottlenecks and steps print it: each rank alone, the job
 * of its ranks, and the job of its ranks with a rank made from a trace
 * (its bulk set aside in a temporary file, as a job of traces holds it).
 * Merge's reading (every rank checked) runs on it too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/job.h"
#include "digest/msg.h"
#include "digest/ranks.h"
#include "digest/read.h"
#include "digest/view.h"
#include "fuzz.h"
#include "util/spill.h"
#include "util/xalloc.h"

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* ---- the mutator ---- */

static uint64_t next(uint64_t *s) {
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 17;
}

static int64_t value64(uint64_t *s, int64_t old) {
	static const int64_t v[] = { 0, 1, -1, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
		(int64_t)1 << 59, ((int64_t)1 << 59) + 1, -((int64_t)1 << 59) - 1, (int64_t)1 << 62,
		1000, 1000000, 50, 200000, 1 << 16, (int64_t)1 << 32 };
	switch (next(s) % 5) {
	case 0:
		return (int64_t)(next(s) << 20 ^ next(s));
	case 1:
		return (int64_t)((uint64_t)old + (next(s) % 3) - 1);
	case 2:
		return (int64_t)((uint64_t)old * 2);
	default:
		return v[next(s) % (sizeof(v) / sizeof(v[0]))];
	}
}

static const char *const strings[] = { "", "rank 0", "rank 1", "x", "\x01", "ProfilerStep#",
	"GPU 0", "nccl:all_reduce", "\xff\xfe" };

static size_t elem_size(ProtobufCType t) {
	switch (t) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4;
	}
}

static void set_scalar(void *p, const ProtobufCFieldDescriptor *fd, struct tc_arena *a,
		uint64_t *s) {
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: {
		int64_t v;
		memcpy(&v, p, 8);
		v = value64(s, v);
		memcpy(p, &v, 8);
		break;
	}
	case PROTOBUF_C_TYPE_DOUBLE: {
		static const double d[] = { 0, -1, 1e300, -1e300, 1e-300, 1, 0.5, 100 };
		double v = next(s) % 4 ? d[next(s) % (sizeof(d) / sizeof(d[0]))] :
			next(s) % 2 ? NAN : INFINITY;
		memcpy(p, &v, 8);
		break;
	}
	case PROTOBUF_C_TYPE_FLOAT: {
		float v = (float)(next(s) % 3) - 1;
		memcpy(p, &v, 4);
		break;
	}
	case PROTOBUF_C_TYPE_BOOL: {
		protobuf_c_boolean v = next(s) % 2;
		memcpy(p, &v, sizeof(v));
		break;
	}
	case PROTOBUF_C_TYPE_STRING: {
		char *v = tc_arena_strdup(a, strings[next(s) % (sizeof(strings) / sizeof(strings[0]))]);
		memcpy(p, &v, sizeof(v));
		break;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData v = { next(s) % 64, NULL };
		v.data = tc_arena_alloc(a, v.len + 1);
		for (size_t i = 0; i < v.len; i++) {
			v.data[i] = (uint8_t)next(s);
		}
		memcpy(p, &v, sizeof(v));
		break;
	}
	default: {
		int32_t v;
		memcpy(&v, p, 4);
		v = (int32_t)value64(s, v);
		memcpy(p, &v, 4);
		break;
	}
	}
}

static ProtobufCMessage *new_message(const ProtobufCMessageDescriptor *d, struct tc_arena *a) {
	ProtobufCMessage *m = tc_arena_calloc(a, d->sizeof_message);
	d->message_init(m);
	return m;
}

static void mutate(ProtobufCMessage *m, struct tc_arena *a, uint64_t *s, int depth);

/* A repeated field: fewer entries, one more (a copy of one, or new), or
 * one entry changed. */
static void mutate_repeated(ProtobufCMessage *m, const ProtobufCFieldDescriptor *fd,
		struct tc_arena *a, uint64_t *s, int depth) {
	size_t *n = (size_t *)((char *)m + fd->quantifier_offset);
	uint8_t **arr = (uint8_t **)((char *)m + fd->offset);
	size_t es = elem_size(fd->type);
	uint64_t op = next(s) % 4;
	if (op == 0 && *n) {
		*n = next(s) % *n;
	} else if (op == 1 || !*n) {
		uint8_t *v = tc_arena_alloc(a, (*n + 1) * es);
		if (*n) {
			memcpy(v, *arr, *n * es);
			memcpy(v + *n * es, v + (next(s) % *n) * es, es);
		} else if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
			ProtobufCMessage *x = new_message(fd->descriptor, a);
			memcpy(v, &x, sizeof(x));
		} else {
			memset(v, 0, es);
			set_scalar(v, fd, a, s);
		}
		*arr = v;
		(*n)++;
	} else {
		uint8_t *e = *arr + (next(s) % *n) * es;
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
			ProtobufCMessage *x;
			memcpy(&x, e, sizeof(x));
			mutate(x, a, s, depth + 1);
		} else {
			set_scalar(e, fd, a, s);
		}
	}
}

static void mutate(ProtobufCMessage *m, struct tc_arena *a, uint64_t *s, int depth) {
	const ProtobufCMessageDescriptor *d = m->descriptor;
	if (!d->n_fields || depth > 8) {
		return;
	}
	const ProtobufCFieldDescriptor *fd = &d->fields[next(s) % d->n_fields];
	if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
		mutate_repeated(m, fd, a, s, depth);
		return;
	}
	void *p = (char *)m + fd->offset;
	if (fd->type != PROTOBUF_C_TYPE_MESSAGE) {
		set_scalar(p, fd, a, s);
		return;
	}
	ProtobufCMessage *x;
	memcpy(&x, p, sizeof(x));
	if (x && next(s) % 8 == 0) {
		x = NULL;
	} else {
		if (!x) {
			x = new_message(fd->descriptor, a);
		}
		mutate(x, a, s, depth + 1);
	}
	memcpy(p, &x, sizeof(x));
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
	uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
	if (next(&s) % 8 == 0) {
		return LLVMFuzzerMutate(data, size, max_size);
	}
	struct tc_arena a;
	tc_arena_init(&a, 1 << 16);
	ProtobufCAllocator alloc;
	tc_digest_allocator(&a, &alloc);
	Tracectl__Digest *d = tracectl__digest__unpack(&alloc, size, data);
	if (!d) {
		tc_arena_finish(&a);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	for (uint64_t k = 1 + next(&s) % 4; k > 0; k--) {
		mutate(&d->base, &a, &s, 0);
	}
	size_t n = tracectl__digest__get_packed_size(d);
	if (n <= max_size) {
		tracectl__digest__pack(d, data);
	} else {
		n = size;
	}
	tc_arena_finish(&a);
	return n;
}

/* ---- what the commands do with it ---- */

/* A small trace of one rank with device work, copies and steps: the
 * trace a fuzzed digest is mixed with. */
static const char trace[] =
	"{\"distributedInfo\":{\"rank\":5,\"world_size\":8},\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
	"\"ts\":0,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,"
	"\"ts\":100,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
	"\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,"
	"\"dur\":50,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":7,"
	"\"ts\":120,\"dur\":40,\"args\":{\"device\":0,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
	"\"pid\":0,\"tid\":7,\"ts\":170,\"dur\":10,\"args\":{\"device\":0,\"bytes\":4096}}]}";

static struct tc_model *trace_model(void) {
	static struct tc_model *m;
	if (m) {
		return m;
	}
	struct tc_limits lim;
	tc_fuzz_limits(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	m = tc_model_create();
	if (!tc_input_open_mem(&in, "rank5.json", (const uint8_t *)trace, sizeof(trace) - 1,
			&lim, &err) || !tc_ingest_input(m, &in, NULL, &lim, &err)) {
		abort();
	}
	tc_input_finish(&in);
	tc_model_finalize(m);
	return m;
}

/* The job of ranks[0..n) (sorted here), as summarize of several prints it. */
static void job(Tracectl__Rank **ranks, size_t n, const struct tc_spill *aside) {
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	struct tc_rank_set *s = tc_rank_set_create();
	for (size_t r = 0; r < n; r++) {
		tc_rank_set_add_msg(s, ranks[r]);
	}
	const struct tc_job_ranks *jr = tc_rank_set_job(s, aside);
	struct tc_model *skel = tc_job_skeleton(jr);
	struct tc_analysis a;
	tc_job_compose(skel, jr, &o, &a);
	tc_rank_set_destroy(s);
	/* In the job's order, as the set sorted its own. */
	tc_sort(ranks, n, sizeof(*ranks), tc_digest_rank_cmp);
	tc_fuzz_write_ranks(skel, &a, ranks, n);
}

static void exercise(Tracectl__Rank *const *in, size_t n) {
	for (size_t r = 0; r < n && r < 4; r++) {
		Tracectl__Rank *one = in[r];
		struct tc_model *skel = tc_digest_skeleton(&one, 1);
		struct tc_analysis a;
		tc_digest_result(skel, one, 0, &a);
		tc_fuzz_write_analysis(skel, &a);
		tc_analysis_finish(&a);
		tc_digest_steps(skel, one, &a);
		tc_analysis_finish(&a);
		tc_model_destroy(skel);
	}
	Tracectl__Rank **ranks = tc_xmalloc((n + 1) * sizeof(*ranks));
	for (size_t r = 0; r < n; r++) {
		ranks[r] = in[r];
	}
	if (n >= 2) {
		job(ranks, n, NULL);
	}
	/* With a trace's rank, lean, its bulk in a temporary file. */
	struct tc_spill aside;
	tc_spill_init(&aside);
	struct tc_digest made;
	tc_digest_init(&made);
	struct tc_analysis_opts o;
	tc_analysis_opts_init(&o);
	tc_digest_add_job_rank(&made, trace_model(), "rank5.json", &o, TC_DIGEST_JOB_LEAN, &aside);
	/* job() sorted them. */
	for (size_t r = 0; r < n; r++) {
		ranks[r] = in[r];
	}
	ranks[n] = made.msg->ranks[0];
	job(ranks, n + 1, &aside);
	tc_digest_finish(&made);
	tc_spill_finish(&aside);
	free(ranks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct tc_error err;
	tc_error_init(&err);
	struct tc_digest_packed p;
	tc_digest_packed_init(&p);
	(void)tc_digest_read_packed_mem(data, size, &p, &err);
	tc_digest_packed_finish(&p);
	struct tc_digest d;
	tc_digest_init(&d);
	tc_error_init(&err);
	bool ok = tc_digest_read_mem(data, size, &d, &err);
	for (size_t r = 0; ok && r < d.msg->n_ranks; r++) {
		ok = tc_digest_rank_valid(d.msg->ranks[r], &err);
	}
	if (ok && d.msg->n_ranks <= 64) {
		exercise(d.msg->ranks, d.msg->n_ranks);
	}
	tc_digest_finish(&d);
	return 0;
}
