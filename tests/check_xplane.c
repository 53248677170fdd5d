/* The XSpace (*.xplane.pb) reader: sniffing, fixtures, damage, real traces. */
#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingest/ingest.h"
#include "model/model.h"
#include "tc_test.h"
#include "util/pbwire.h"

/* ---- helpers ---- */

/*
 * Every load also reads the file with its planes' lines decoded on a
 * second thread (the pipeline, forced on however small the plane), with
 * every arg and with the args analyses read back only (the decoders leave
 * the other stats out): each pair must give the same model, ids included,
 * or the same error at the same offset. The serial model with every arg
 * is returned.
 */
static struct tc_model *load(const char *path, struct tc_error *err) {
	struct tc_model *ret = NULL;
	for (int known = 0; known < 2; known++) {
		struct tc_limits lim;
		tc_limits_default(&lim);
		struct tc_model *m = tc_model_create();
		struct tc_error e1;
		tc_error_init(&e1);
		m->known_args_only = known;
		bool ok = tc_ingest_file(m, path, &lim, &e1);
		lim.reader_thread = TC_READER_THREAD_ALWAYS;
		struct tc_model *m2 = tc_model_create();
		struct tc_error e2;
		tc_error_init(&e2);
		m2->known_args_only = known;
		bool ok2 = tc_ingest_file(m2, path, &lim, &e2);
		ck_assert_msg(ok == ok2 && e1.code == e2.code && strcmp(e1.msg, e2.msg) == 0 &&
			e1.offset == e2.offset, "%s: serial '%s' at %lld, pipelined '%s' at %lld",
			path, e1.msg, (long long)e1.offset, e2.msg, (long long)e2.offset);
		if (ok) {
			tc_test_same_model(m, m2, path);
		}
		tc_model_destroy(m2);
		if (known) {
			tc_model_destroy(m);
		} else {
			*err = e1;
			ret = ok ? m : NULL;
			if (!ok) {
				tc_model_destroy(m);
			}
		}
	}
	if (ret) {
		tc_model_finalize(ret);
	}
	return ret;
}

static struct tc_model *load_ok(const char *path) {
	struct tc_error err;
	struct tc_model *m = load(path, &err);
	ck_assert_msg(m != NULL, "%s: %s", path, err.msg);
	return m;
}

/* A built fixture (protoc is a build requirement: always there). */
static const char *fixture(const char *name) {
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s", tc_test_build(name));
	ck_assert_msg(access(buf, R_OK) == 0, "%s: fixture not built", buf);
	return buf;
}

static uint32_t find_device(const struct tc_model *m, const char *name) {
	for (size_t i = 0; i < m->n_devices; i++) {
		if (strcmp(tc_model_str(m, m->devices[i].name), name) == 0) {
			return (uint32_t)i;
		}
	}
	return TC_NONE;
}

static uint32_t find_track(const struct tc_model *m, uint32_t dev, const char *name) {
	for (size_t i = 0; i < m->n_tracks; i++) {
		if ((dev == TC_NONE || m->tracks[i].device == dev) &&
				strcmp(tc_model_str(m, m->tracks[i].name), name) == 0) {
			return (uint32_t)i;
		}
	}
	return TC_NONE;
}

/* First event (in track order) whose op is called name. */
static size_t find_event(const struct tc_model *m, const char *name) {
	for (size_t i = 0; i < m->ev.n; i++) {
		if (strcmp(tc_model_str(m, m->ops[m->ev.op[i]].name), name) == 0) {
			return i;
		}
	}
	return SIZE_MAX;
}

static uint64_t device_events(const struct tc_model *m, uint32_t dev) {
	uint64_t n = 0;
	for (size_t t = 0; t < m->n_tracks; t++) {
		if (m->tracks[t].device == dev) {
			n += m->tracks[t].count;
		}
	}
	return n;
}

static bool has_warning(const struct tc_model *m, const char *part) {
	for (size_t i = 0; i < m->n_warnings; i++) {
		if (strstr(tc_model_str(m, m->warnings[i].msg), part)) {
			return true;
		}
	}
	return false;
}

static const char *arg_str(const struct tc_model *m, uint32_t args, const char *key) {
	struct tc_arg a;
	ck_assert_msg(tc_model_arg_find(m, args, tc_intern_find(&m->strings, key, strlen(key)),
		&a), "no arg %s", key);
	ck_assert_int_eq(a.type, TC_ARG_STR);
	return tc_model_str(m, a.v.s);
}

static int64_t arg_i64(const struct tc_model *m, uint32_t args, uint32_t key) {
	int64_t v = INT64_MIN;
	ck_assert(tc_model_arg_i64(m, args, key, &v));
	return v;
}

/* ---- a tiny encoder for hand-made damage ---- */

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put_varint(struct buf *b, uint64_t v) {
	while (v >= 0x80) {
		b->b[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->b[b->n++] = (uint8_t)v;
}

static void put_tag(struct buf *b, uint32_t num, int wt) {
	put_varint(b, (uint64_t)num << 3 | (unsigned)wt);
}

static void put_len(struct buf *b, uint32_t num, const struct buf *inner) {
	put_tag(b, num, 2);
	put_varint(b, inner->n);
	memcpy(b->b + b->n, inner->b, inner->n);
	b->n += inner->n;
}

static void put_str(struct buf *b, uint32_t num, const char *s) {
	put_tag(b, num, 2);
	put_varint(b, strlen(s));
	memcpy(b->b + b->n, s, strlen(s));
	b->n += strlen(s);
}

static void put_int(struct buf *b, uint32_t num, int64_t v) {
	put_tag(b, num, 0);
	put_varint(b, (uint64_t)v);
}

static const char *write_tmp(const uint8_t *data, size_t n) {
	static char path[256];
	snprintf(path, sizeof(path), "/tmp/tc-check-xplane-%d.xplane.pb", (int)getpid());
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, n, f), n);
	fclose(f);
	return path;
}

/* Load bytes through a temporary file, removed after. */
static struct tc_model *load_bytes(const uint8_t *data, size_t n, struct tc_error *err) {
	const char *path = write_tmp(data, n);
	struct tc_model *m = load(path, err);
	unlink(path);
	return m;
}

/* An XSpace built in b, which must read. */
static struct tc_model *load_space(const struct buf *b) {
	struct tc_error err;
	struct tc_model *m = load_bytes(b->b, b->n, &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	return m;
}

/* ---- sniffing ---- */

START_TEST(sniff_formats) {
	const char *p = fixture("fixtures/xplane-gpu.xplane.pb");
	size_t n;
	unsigned char *d = tc_test_slurp(p, &n);
	ck_assert_int_ge(tc_reader_xplane.sniff(d, n < 4096 ? n : 4096), 90);
	ck_assert_ptr_eq(tc_ingest_sniff(d, n < 4096 ? n : 4096), &tc_reader_xplane);
	free(d);
	ck_assert_int_eq(tc_reader_xplane.sniff((const uint8_t *)"{\"traceEvents\":[]}", 18), 0);
	ck_assert_int_eq(tc_reader_xplane.sniff((const uint8_t *)"[{}]", 4), 0);
	/* A Perfetto TracePacket: timestamp (8), sequence id (10), track_event (11). */
	static const uint8_t pf[] = {
		0x0a, 0x0c, 0x40, 0x01, 0x50, 0x01, 0x5a, 0x06, 0x50, 0x01, 0x22, 0x02, 0x61, 0x62,
	};
	ck_assert_int_eq(tc_reader_xplane.sniff(pf, sizeof(pf)), 0);
	/* Perfetto's clock snapshot first (field 6, LEN) with non-text content. */
	static const uint8_t pf2[] = { 0x0a, 0x06, 0x32, 0x02, 0x0a, 0x00, 0x50, 0x01 };
	ck_assert_int_eq(tc_reader_xplane.sniff(pf2, sizeof(pf2)), 0);
}
END_TEST

/* Real Perfetto files never sniff as XSpace. */
START_TEST(real_perfetto_not_xspace) {
	static const char *const pft[] = {
		"perfetto/perfetto-nested_tracks.perfetto-trace",
		"perfetto/perfetto-track_event_typed_args.pb",
	};
	for (size_t i = 0; i < 2; i++) {
		size_t n;
		unsigned char *d = tc_test_slurp(tc_test_trace(pft[i]), &n);
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(tc_reader_xplane.sniff(d, n < 4096 ? n : 4096), 0);
		free(d);
	}
}
END_TEST

/* ---- fixtures ---- */

START_TEST(fixture_gpu) {
	const char *p = fixture("fixtures/xplane-gpu.xplane.pb");
	struct tc_model *m = load_ok(p);
	ck_assert_uint_eq(m->n_hosts, 1);
	ck_assert_str_eq(tc_model_str(m, m->hosts[0].name), "fixture-host");
	ck_assert(m->origin_epoch);
	ck_assert_int_eq(m->origin_ns, 1700000000000000000LL);
	/* GPU:2 has neither lines nor stats; metadata/Task Environment are no devices. */
	ck_assert_uint_eq(m->n_devices, 3);
	ck_assert_uint_eq(find_device(m, "/device:GPU:2"), TC_NONE);
	ck_assert_uint_eq(m->ev.n, 19);

	uint32_t gpu = find_device(m, "/device:GPU:0");
	ck_assert_uint_ne(gpu, TC_NONE);
	const struct tc_device *d = &m->devices[gpu];
	ck_assert_int_eq(d->kind, TC_DEV_GPU);
	ck_assert_int_eq(d->ordinal, 0);
	ck_assert(d->peak_flops == 125e12);
	ck_assert(d->peak_bw == 898048000000.0);
	ck_assert_int_eq(d->memory_bytes, 16945512448LL);
	ck_assert_int_eq(d->core_count, 80);
	ck_assert_int_eq(d->clock_khz, 1530000);
	ck_assert_str_eq(tc_model_str(m, d->model), "Tesla V100-SXM2-16GB");
	ck_assert_str_eq(tc_model_str(m, d->vendor), "Nvidia");
	ck_assert_int_eq(arg_i64(m, d->args, tc_intern_find(&m->strings,
		"compute_cap_major", 17)), 7);
	uint32_t cpu = find_device(m, "/host:CPU");
	ck_assert_int_eq(m->devices[cpu].kind, TC_DEV_CPU);
	ck_assert_uint_eq(m->devices[cpu].host, 0);

	uint32_t t = find_track(m, gpu, "Stream #7(Compute)");
	ck_assert_int_eq(m->tracks[t].kind, TC_TRACK_STREAM);
	ck_assert_uint_eq(m->tracks[t].count, 4);
	/* Sorted by finalize; start = 1000 ns * 1000 + offset. */
	ck_assert_int_eq(m->ev.start[m->tracks[t].first], 2100000);
	ck_assert_int_eq(m->ev.dur[m->tracks[t].first], 800000);
	ck_assert_int_eq(m->tracks[find_track(m, gpu, "TensorFlow Ops")].kind, TC_TRACK_DERIVED);
	uint32_t st = find_track(m, gpu, "Steps");
	ck_assert_int_eq(m->tracks[st].kind, TC_TRACK_STEPS);
	ck_assert_int_eq(m->tracks[st].src_id, -559038737LL);
	size_t se = m->tracks[st].first;
	ck_assert_int_eq(m->ops[m->ev.op[se]].kind, TC_OP_STEP);
	ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, se), m->key.step), 1);
	ck_assert_int_eq(m->tracks[find_track(m, cpu, "tf_data iterator")].kind,
		TC_TRACK_HOST_THREAD);

	/* Op kinds by line and name. */
	size_t e = find_event(m, "MemcpyH2D");
	ck_assert_int_eq(m->ops[m->ev.op[e]].kind, TC_OP_MEMCPY_H2D);
	ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, e), m->key.bytes), 4096);
	ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, e), m->key.correlation), 13);
	ck_assert_str_eq(arg_str(m, tc_model_event_args(m, e), "memcpy_details"),
		"size:4096 dest:0 async:1");
	e = find_event(m, "MemcpyD2H");
	ck_assert_int_eq(m->ops[m->ev.op[e]].kind, TC_OP_MEMCPY_D2H);
	ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, e), m->key.bytes), 1024);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "Memset")]].kind, TC_OP_MEMSET);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m,
		"ncclKernel_AllReduce_RING_LL_Sum_float")]].kind, TC_OP_COLLECTIVE);
	e = find_event(m, "volta_sgemm_128x64_nn");
	ck_assert_int_eq(m->ops[m->ev.op[e]].kind, TC_OP_KERNEL);
	ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, e), m->key.correlation), 11);
	/* ref_value resolves to the stat metadata's name. */
	ck_assert_str_eq(arg_str(m, tc_model_event_args(m, e), "kernel_details"),
		"regs:38 shm:0 grid:160,1,1 block:1024,1,1");
	/* The second sgemm has a dangling ref (dropped, warned) and a gzip string. */
	ck_assert_str_eq(arg_str(m, tc_model_event_args(m, e + 1), "note"), "compressed hello");
	ck_assert(has_warning(m, "ref_value points at no stat metadata"));
	ck_assert(has_warning(m, "fixture: an error the profiler reported"));
	ck_assert(has_warning(m, "fixture: a warning the profiler reported"));

	e = find_event(m, "TraceContext");
	ck_assert_int_eq(m->ops[m->ev.op[e]].kind, TC_OP_STEP);
	ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, e), m->key.step), 1);
	ck_assert_int_eq(m->ev.start[e], 1000000);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "cudaLaunchKernel")]].kind, TC_OP_RUNTIME);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "cudaStreamSynchronize")]].kind, TC_OP_SYNC);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "XlaCompile")]].kind, TC_OP_COMPILE);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "IteratorGetNextOp::DoCompute")]].kind,
		TC_OP_DATALOAD);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "$train.py:10 step")]].kind, TC_OP_PYTHON);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "MemoryAllocation")]].kind, TC_OP_MEMORY);
	/* TraceMe "#k=v#" suffix: stripped from the name, pairs become op args. */
	e = find_event(m, "MyAnnotation");
	ck_assert_uint_ne(e, SIZE_MAX);
	ck_assert_int_eq(m->ops[m->ev.op[e]].kind, TC_OP_HOST_OP);
	ck_assert_str_eq(arg_str(m, m->ops[m->ev.op[e]].args, "layer"), "3");
	ck_assert_str_eq(arg_str(m, m->ops[m->ev.op[e]].args, "kind"), "dense");

	/* Aggregated event: kept apart, with its count. */
	ck_assert_uint_eq(m->n_aggs, 1);
	ck_assert_int_eq(m->aggs[0].count, 40);
	ck_assert_int_eq(m->aggs[0].dur_ps, 8000000);
	ck_assert_str_eq(tc_model_str(m, m->ops[m->aggs[0].op].name), "cudaLaunchKernel");

	/* Launch flows: cudaLaunchKernel -> the kernel with its correlation id;
	 * the H2D copy (13) has no host call in the trace. */
	ck_assert_uint_eq(m->n_flows, 2);
	for (size_t i = 0; i < m->n_flows; i++) {
		const struct tc_flow *fl = &m->flows[i];
		ck_assert_int_eq(fl->kind, TC_FLOW_LAUNCH);
		ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[fl->from]].name), "cudaLaunchKernel");
		ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, fl->to), m->key.correlation),
			(int64_t)fl->id);
		ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, fl->from), m->key.correlation),
			(int64_t)fl->id);
		ck_assert_uint_eq(m->devices[tc_test_track_of(m, fl->to)->device].kind, TC_DEV_GPU);
	}

	/* Memory counters from MemoryAllocation/Deallocation. */
	ck_assert_uint_eq(m->n_counters, 4);
	bool seen = false;
	for (size_t c = 0; c < m->n_counters; c++) {
		const struct tc_counter *ct = &m->counters[c];
		if (strcmp(tc_model_str(m, ct->name), "memory.allocated") != 0) {
			continue;
		}
		seen = true;
		ck_assert_str_eq(tc_model_str(m, ct->group), "GPU_0_bfc");
		ck_assert_str_eq(tc_model_str(m, ct->unit), "bytes");
		ck_assert_uint_eq(ct->count, 2);
		ck_assert(m->samples.value[ct->first] == 1048576.0);
		ck_assert_int_eq(m->samples.ts[ct->first], 2500000);
		ck_assert(m->samples.value[ct->first + 1] == 0.0);
	}
	ck_assert(seen);
	tc_model_destroy(m);
}
END_TEST

START_TEST(fixture_tpu) {
	const char *p = fixture("fixtures/xplane-tpu.xplane.pb");
	struct tc_model *m = load_ok(p);
	ck_assert_str_eq(tc_model_str(m, m->hosts[0].name), "xplane-tpu");
	ck_assert(!m->origin_epoch);
	ck_assert_uint_eq(m->n_devices, 1);
	const struct tc_device *d = &m->devices[0];
	ck_assert_int_eq(d->kind, TC_DEV_TPU);
	ck_assert_int_eq(d->src_id, 2);
	ck_assert(d->peak_flops == 918e12);
	ck_assert(d->peak_bw > 1638.39e9 && d->peak_bw < 1638.41e9);
	ck_assert_str_eq(tc_model_str(m, d->model), "TPU v6 Lite");
	ck_assert(has_warning(m, "dropped 5 trace events"));
	ck_assert_uint_eq(m->ev.n, 11);

	uint32_t t = find_track(m, 0, "XLA Ops");
	ck_assert_int_eq(m->tracks[t].kind, TC_TRACK_OPS);
	ck_assert_uint_eq(m->tracks[t].count, 5);
	ck_assert_int_eq(m->ev.start[m->tracks[t].first], 5000 + 1000000);
	ck_assert_int_eq(m->tracks[find_track(m, 0, "XLA Modules")].kind, TC_TRACK_MODULES);
	ck_assert_int_eq(m->tracks[find_track(m, 0, "Async XLA Ops")].kind, TC_TRACK_DERIVED);
	ck_assert_int_eq(m->tracks[find_track(m, 0, "XLA TraceMe")].kind, TC_TRACK_DERIVED);
	uint32_t st = find_track(m, 0, "Steps");
	ck_assert_int_eq(m->tracks[st].src_id, -559038737LL);
	ck_assert_uint_eq(m->tracks[st].count, 2);
	uint32_t second = tc_model_event_args(m, m->tracks[st].first + 1);
	ck_assert_int_eq(arg_i64(m, second, m->key.step), 1);

	/* HLO text names: op = instruction name, long_name = the text. */
	size_t e = find_event(m, "fusion.1");
	ck_assert_uint_ne(e, SIZE_MAX);
	const struct tc_op *o = &m->ops[m->ev.op[e]];
	ck_assert_int_eq(o->kind, TC_OP_KERNEL);
	ck_assert_str_eq(tc_model_str(m, o->category), "loop fusion");
	ck_assert_int_eq(o->flops, 2048);
	ck_assert_int_eq(o->bytes, 8192);
	ck_assert(strncmp(arg_str(m, o->args, "long_name"), "%fusion.1 = f32", 15) == 0);
	/* Event stats win over metadata stats; otherwise the op's apply. */
	ck_assert_int_eq(tc_model_event_bytes_accessed(m, e), 8192);
	ck_assert_int_eq(tc_model_event_bytes_accessed(m, e + 3), 4096);
	ck_assert_int_eq(tc_model_event_flops(m, e + 3), 2048);
	ck_assert(m->event_costs);
	for (size_t i = 0; i < m->ev.n; i++) {
		int64_t f, b;
		tc_model_event_costs(m, i, &f, &b);
		ck_assert_int_eq(f, tc_model_event_flops(m, i));
		ck_assert_int_eq(b, tc_model_event_bytes_accessed(m, i));
	}
	e = find_event(m, "convolution.2");
	o = &m->ops[m->ev.op[e]];
	ck_assert_str_eq(tc_model_str(m, o->category), "convolution"); /* via ref_value */
	ck_assert_int_eq(o->flops, 1000000000);
	e = find_event(m, "all-reduce.3");
	ck_assert_int_eq(m->ops[m->ev.op[e]].kind, TC_OP_COLLECTIVE);
	ck_assert_int_eq(m->ops[m->ev.op[find_event(m, "jit_train_step(42)")]].kind, TC_OP_MODULE);

	ck_assert_uint_eq(m->n_aggs, 1);
	ck_assert_int_eq(m->aggs[0].count, 3);
	ck_assert_str_eq(tc_model_str(m, m->ops[m->aggs[0].op].name), "fusion.1");

	ck_assert_uint_eq(m->n_counters, 1);
	ck_assert_str_eq(tc_model_str(m, m->counters[0].name), "hbm_utilization");
	ck_assert_uint_eq(m->counters[0].count, 2);
	ck_assert(m->samples.value[m->counters[0].first + 1] == 0.75);
	tc_model_destroy(m);
}
END_TEST

/* ---- damage ---- */

/* Cut the file at every byte: the reader fails with code 3 and never
 * crashes; a cut that falls between top-level fields is a valid, shorter
 * XSpace and may load. */
static void truncate_everywhere(const char *p) {
	size_t n;
	unsigned char *d = tc_test_slurp(p, &n);
	ck_assert_ptr_nonnull(d);
	bool *boundary = calloc(n + 1, 1);
	struct tc_pb pb;
	struct tc_pb_field f;
	tc_pb_init(&pb, d, d, n);
	boundary[0] = true;
	while (tc_pb_next(&pb, &f) > 0) {
		boundary[pb.p - d] = true;
	}
	for (size_t cut = 1; cut < n; cut++) {
		const char *tmp = write_tmp(d, cut);
		struct tc_error err;
		struct tc_model *m = load(tmp, &err);
		if (m) {
			ck_assert_msg(boundary[cut], "cut at %zu loaded", cut);
			tc_model_destroy(m);
		} else {
			ck_assert_msg(err.code == TC_EXIT_INPUT, "cut at %zu: code %d (%s)",
				cut, err.code, err.msg);
			ck_assert_msg(strncmp(err.msg, "xplane: ", 8) == 0 ||
				strstr(err.msg, "unrecognised") != NULL, "cut at %zu: %s", cut, err.msg);
		}
		unlink(tmp);
	}
	free(boundary);
	free(d);
}

START_TEST(truncated_gpu) {
	const char *p = fixture("fixtures/xplane-gpu.xplane.pb");
	if (p) {
		truncate_everywhere(p);
	}
}
END_TEST

START_TEST(truncated_tpu) {
	const char *p = fixture("fixtures/xplane-tpu.xplane.pb");
	if (p) {
		truncate_everywhere(p);
	}
}
END_TEST

START_TEST(overlong_lengths) {
	/* A plane length far past the end of the file. */
	static const uint8_t a[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x02, '/', 'x' };
	struct tc_error err;
	struct tc_model *m = load(write_tmp(a, sizeof(a)), &err);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_int_eq(err.offset, 0);

	/* An event whose length runs past its line. */
	struct buf ev = { 0 }, line = { 0 }, plane = { 0 }, space = { 0 };
	put_int(&line, 1, 1);
	put_str(&line, 2, "Stream #1");
	put_tag(&line, 4, 2);
	put_varint(&line, 40); /* claims 40 bytes, has 2 */
	put_int(&line, 1, 1);
	put_str(&plane, 2, "/device:GPU:0");
	put_len(&plane, 3, &line);
	put_len(&space, 1, &plane);
	m = load_bytes(space.b, space.n, &err);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "XLine") != NULL, "%s", err.msg);
	ck_assert_int_gt(err.offset, 0);
	(void)ev;

	/* An 11-byte varint. */
	struct buf bad = { 0 }, sp2 = { 0 };
	put_str(&bad, 2, "/device:GPU:0");
	put_tag(&bad, 1, 0);
	for (int i = 0; i < 10; i++) {
		bad.b[bad.n++] = 0xff;
	}
	bad.b[bad.n++] = 0x01;
	put_len(&sp2, 1, &bad);
	m = load_bytes(sp2.b, sp2.n, &err);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
}
END_TEST

START_TEST(negative_varints) {
	/* Line id -5 and metadata id -3, each a 10-byte varint. */
	struct buf ev = { 0 }, line = { 0 }, md = { 0 }, entry = { 0 }, plane = { 0 },
		space = { 0 };
	put_int(&ev, 1, -3);
	put_int(&ev, 2, 1000);
	put_int(&ev, 3, 500);
	put_int(&line, 1, -5);
	put_str(&line, 2, "XLA Ops");
	put_len(&line, 4, &ev);
	put_int(&md, 1, -3);
	put_str(&md, 2, "negative.op");
	put_int(&entry, 1, -3);
	put_len(&entry, 2, &md);
	put_int(&plane, 1, -7);
	put_str(&plane, 2, "/device:TPU:3");
	put_len(&plane, 3, &line);
	put_len(&plane, 4, &entry);
	put_len(&space, 1, &plane);
	struct tc_model *m = load_space(&space);
	ck_assert_uint_eq(m->ev.n, 1);
	ck_assert_int_eq(tc_test_track_of(m, 0)->src_id, -5);
	ck_assert_int_eq(m->devices[0].src_id, -7);
	ck_assert_int_eq(m->devices[0].ordinal, 3);
	ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[0]].name), "negative.op");
	ck_assert_int_eq(m->ev.start[0], 1000);
	ck_assert_int_eq(m->ev.dur[0], 500);
	tc_model_destroy(m);
}
END_TEST

/* A negative duration becomes 0 with a warning, as in JSON and Perfetto;
 * one past the timeline's range (7 days) is the model's to clamp and
 * warn about, not a failed read. */
START_TEST(bad_durations) {
	struct buf line = { 0 }, md = { 0 }, entry = { 0 }, plane = { 0 }, space = { 0 };
	const int64_t durs[] = { -5, INT64_MAX, INT64_MAX / 2, 700 };
	for (size_t i = 0; i < 4; i++) {
		struct buf ev = { 0 };
		put_int(&ev, 1, 1);
		put_int(&ev, 2, 1000 * (int64_t)(i + 1));
		put_int(&ev, 3, durs[i]);
		put_len(&line, 4, &ev);
	}
	put_int(&line, 1, 1);
	put_str(&line, 2, "XLA Ops");
	put_int(&md, 1, 1);
	put_str(&md, 2, "op");
	put_int(&entry, 1, 1);
	put_len(&entry, 2, &md);
	put_int(&plane, 1, 1);
	put_str(&plane, 2, "/device:GPU:0");
	put_len(&plane, 3, &line);
	put_len(&plane, 4, &entry);
	put_len(&space, 1, &plane);
	struct tc_model *m = load_space(&space);
	ck_assert_uint_eq(m->ev.n, 4);
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(m->ev.dur[i], 0);
		ck_assert(m->ev.flags[i] & TC_EV_CLAMPED);
	}
	ck_assert_int_eq(m->ev.dur[3], 700);
	ck_assert(has_warning(m, "events with a negative duration were clamped to 0"));
	ck_assert(has_warning(m, "duration over 7 days"));
	tc_model_destroy(m);
}
END_TEST

/* --max-string cuts an op name with 2-, 3- and 4-byte characters at every
 * length, backing off to the last whole character. */
START_TEST(max_string_utf8) {
	static const char name[] = "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
	static const size_t keep[13] = { 0, 1, 2, 2, 4, 4, 4, 7, 7, 7, 7, 11, 12 };
	struct buf ev = { 0 }, line = { 0 }, md = { 0 }, entry = { 0 }, plane = { 0 },
		space = { 0 };
	put_int(&ev, 1, 1);
	put_int(&ev, 2, 1000);
	put_int(&ev, 3, 500);
	put_int(&line, 1, 1);
	put_str(&line, 2, "XLA Ops");
	put_len(&line, 4, &ev);
	put_int(&md, 1, 1);
	put_str(&md, 2, name);
	put_int(&entry, 1, 1);
	put_len(&entry, 2, &md);
	put_int(&plane, 1, 1);
	put_str(&plane, 2, "/device:GPU:0");
	put_len(&plane, 3, &line);
	put_len(&plane, 4, &entry);
	put_len(&space, 1, &plane);
	const char *path = write_tmp(space.b, space.n);
	for (uint32_t max = 1; max <= 12; max++) {
		struct tc_limits lim;
		tc_limits_default(&lim);
		lim.max_string = max;
		struct tc_error err;
		tc_error_init(&err);
		struct tc_model *m = tc_model_create();
		ck_assert_msg(tc_ingest_file(m, path, &lim, &err), "%s", err.msg);
		tc_model_finalize(m);
		ck_assert_uint_eq(m->ev.n, 1);
		const char *got = tc_model_str(m, m->ops[m->ev.op[0]].name);
		ck_assert_msg(strlen(got) == keep[max] && memcmp(got, name, keep[max]) == 0,
			"max %u: kept %zu bytes, want %zu", max, strlen(got), keep[max]);
		tc_model_destroy(m);
	}
	unlink(path);
}
END_TEST

/* Sparse correlation ids take the binary-search path of launch linking. */
static void put_corr_event(struct buf *line, int64_t mid, int64_t off, int64_t corr) {
	struct buf ev = { 0 }, st = { 0 };
	put_int(&st, 1, 1);
	put_int(&st, 4, corr);
	put_int(&ev, 1, mid);
	put_int(&ev, 2, off);
	put_int(&ev, 3, 100);
	put_len(&ev, 4, &st);
	put_len(line, 4, &ev);
}

static void put_meta(struct buf *plane, uint32_t field, int64_t id, const char *name) {
	struct buf v = { 0 }, e = { 0 };
	put_int(&v, 1, id);
	put_str(&v, 2, name);
	put_int(&e, 1, id);
	put_len(&e, 2, &v);
	put_len(plane, field, &e);
}

/* Metadata fields of the wrong wire type are skipped, as they always were
 * (protobuf-c alone would refuse the entry); names keep embedded NULs. */
START_TEST(metadata_wrong_wire_types) {
	struct buf ev = { 0 }, line = { 0 }, md = { 0 }, entry = { 0 }, st = { 0 }, sm = { 0 },
		sentry = { 0 }, plane = { 0 }, space = { 0 };
	put_int(&ev, 1, 1);
	put_int(&ev, 2, 1000);
	put_int(&ev, 3, 500);
	put_str(&line, 2, "XLA Ops");
	put_len(&line, 4, &ev);
	put_str(&md, 1, "id as a string");
	put_tag(&md, 2, 2);
	put_varint(&md, 3);
	memcpy(md.b + md.n, "a\0b", 3);
	md.n += 3;
	put_int(&st, 1, 9);
	put_int(&st, 4, 42);
	put_len(&md, 5, &st);
	put_int(&entry, 1, 1);
	put_len(&entry, 2, &md);
	put_str(&sm, 1, "id as a string");
	put_str(&sm, 2, "flops");
	put_str(&sentry, 1, "key as a string");
	put_int(&sentry, 1, 9);
	put_len(&sentry, 2, &sm);
	put_str(&plane, 2, "/device:TPU:0");
	put_len(&plane, 3, &line);
	put_len(&plane, 4, &entry);
	put_len(&plane, 5, &sentry);
	put_len(&space, 1, &plane);
	struct tc_model *m = load_space(&space);
	ck_assert_uint_eq(m->ev.n, 1);
	const struct tc_op *op = &m->ops[m->ev.op[0]];
	ck_assert_uint_eq(tc_intern_len(&m->strings, op->name), 3);
	ck_assert_int_eq(memcmp(tc_model_str(m, op->name), "a\0b", 3), 0);
	ck_assert_int_eq(op->flops, 42);
	tc_model_destroy(m);
}
END_TEST

/* Costs on an op's metadata are the op's: they leave event_costs unset, so
 * no event's args are searched for them (issue 51: a search per event). */
START_TEST(metadata_costs_stay_per_op) {
	struct buf ev = { 0 }, evst = { 0 }, line = { 0 }, md = { 0 }, entry = { 0 }, st = { 0 },
		sm = { 0 }, sentry = { 0 }, sm2 = { 0 }, sentry2 = { 0 }, plane = { 0 },
		space = { 0 };
	put_int(&ev, 1, 1);
	put_int(&ev, 2, 1000);
	put_int(&ev, 3, 500);
	put_int(&evst, 1, 8);
	put_int(&evst, 4, 77);
	put_len(&ev, 4, &evst);
	put_str(&line, 2, "XLA Ops");
	put_len(&line, 4, &ev);
	put_int(&md, 1, 1);
	put_str(&md, 2, "fusion.1");
	put_int(&st, 1, 9);
	put_int(&st, 4, 42);
	put_len(&md, 5, &st);
	put_int(&entry, 1, 1);
	put_len(&entry, 2, &md);
	put_int(&sm, 1, 9);
	put_str(&sm, 2, "flops");
	put_int(&sentry, 1, 9);
	put_len(&sentry, 2, &sm);
	put_int(&sm2, 1, 8);
	put_str(&sm2, 2, "correlation_id");
	put_int(&sentry2, 1, 8);
	put_len(&sentry2, 2, &sm2);
	put_str(&plane, 2, "/device:TPU:0");
	put_len(&plane, 3, &line);
	put_len(&plane, 4, &entry);
	put_len(&plane, 5, &sentry);
	put_len(&plane, 5, &sentry2);
	put_len(&space, 1, &plane);
	struct tc_model *m = load_space(&space);
	ck_assert_uint_eq(m->ev.n, 1);
	ck_assert_int_eq(m->ops[m->ev.op[0]].flops, 42);
	ck_assert(!m->event_costs);
	int64_t f, b;
	tc_model_event_costs(m, 0, &f, &b);
	ck_assert_int_eq(f, 42);
	ck_assert_int_eq(b, -1);
	tc_model_destroy(m);
}
END_TEST

/* Host launches and device kernels with the given correlation ids, 1 us
 * apart from 0 and from 5 us: the loaded model. */
static struct tc_model *launch_model(const int64_t *host, size_t nh, const int64_t *dev,
		size_t nd, bool device_first) {
	struct buf hl = { 0 }, hp = { 0 }, dl = { 0 }, dp = { 0 }, space = { 0 };
	put_int(&hl, 1, 7);
	put_str(&hl, 2, "python3");
	for (size_t i = 0; i < nh; i++) {
		put_corr_event(&hl, 1, 1000 * (int64_t)i, host[i]);
	}
	put_str(&hp, 2, "/host:CPU");
	put_len(&hp, 3, &hl);
	put_meta(&hp, 4, 1, "cudaLaunchKernel");
	put_meta(&hp, 5, 1, "correlation_id");
	put_int(&dl, 1, 1);
	put_str(&dl, 2, "Stream #1");
	for (size_t i = 0; i < nd; i++) {
		put_corr_event(&dl, 1, 5000 + 1000 * (int64_t)i, dev[i]);
	}
	put_str(&dp, 2, "/device:GPU:0");
	put_len(&dp, 3, &dl);
	put_meta(&dp, 4, 1, "kernel");
	put_meta(&dp, 5, 1, "correlation_id");
	put_len(&space, 1, device_first ? &dp : &hp);
	put_len(&space, 1, device_first ? &hp : &dp);
	struct tc_model *m = load_space(&space);
	return m;
}

START_TEST(launch_flows_sparse) {
	static const int64_t host[] = { 1, 1000000000000LL }, dev[] = { 1000000000000LL, 1, 7 };
	struct tc_model *m = launch_model(host, 2, dev, 3, true);
	ck_assert_uint_eq(m->ev.n, 5);
	ck_assert_uint_eq(m->n_flows, 2);
	for (size_t i = 0; i < m->n_flows; i++) {
		const struct tc_flow *fl = &m->flows[i];
		ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, fl->from), m->key.correlation),
			(int64_t)fl->id);
		ck_assert_int_eq(arg_i64(m, tc_model_event_args(m, fl->to), m->key.correlation),
			(int64_t)fl->id);
		ck_assert_str_eq(tc_model_str(m, m->ops[m->ev.op[fl->to]].name), "kernel");
	}
	tc_model_destroy(m);
}
END_TEST

/* Offsets and durations of every varint length, read where eight bytes
 * follow (stats after them: the word-at-a-time path) and at an event's
 * end (fields out of order, the offset last: the byte loop). */
/* One GPU plane holding line, its events "kernel" (id 1) with
 * correlation_id stats (id 1), as an XSpace. */
static void gpu_space(struct buf *space, struct buf *plane, const struct buf *line) {
	put_str(plane, 2, "/device:GPU:0");
	put_len(plane, 3, line);
	put_meta(plane, 4, 1, "kernel");
	put_meta(plane, 5, 1, "correlation_id");
	put_len(space, 1, plane);
}

START_TEST(varint_lengths) {
	for (int last = 0; last < 2; last++) {
		struct buf line = { 0 }, plane = { 0 }, space = { 0 };
		put_int(&line, 1, 1);
		put_str(&line, 2, "Stream #1");
		int64_t off[10];
		size_t n = 0;
		/* 1..9 bytes: 2^(7k) - 1 (k bytes, every bit set); ten bytes
		 * would pass the model's time bound. */
		for (int k = 1; k <= 9; k++) {
			off[n++] = k == 9 ? ((int64_t)1 << 61) + 12345 : ((int64_t)1 << (7 * k)) - 1;
		}
		for (size_t i = 0; i < n; i++) {
			struct buf ev = { 0 }, st = { 0 };
			int64_t dur = (int64_t)1 << (7 * (i % 6));
			if (last) {
				put_int(&ev, 3, dur);
				put_int(&ev, 1, 1);
				put_int(&ev, 2, off[i]);
			} else {
				put_int(&st, 1, 1);
				put_int(&st, 4, 7);
				put_int(&ev, 1, 1);
				put_int(&ev, 2, off[i]);
				put_int(&ev, 3, dur);
				put_len(&ev, 4, &st);
			}
			put_len(&line, 4, &ev);
		}
		gpu_space(&space, &plane, &line);
		struct tc_model *m = load_space(&space);
		ck_assert_uint_eq(m->ev.n, n);
		for (size_t i = 0; i < n; i++) {
			ck_assert_int_eq(m->ev.start[i] - m->ev.start[0], off[i] - off[0]);
			ck_assert_int_eq(m->ev.dur[i], (int64_t)1 << (7 * (i % 6)));
		}
		tc_model_destroy(m);
	}
}
END_TEST

/* A stat's value ends its event, mostly short of eight bytes before the
 * event's end but not the input's: every length reads whole, and one cut
 * short by its stat's length is damage even where the bytes after it
 * would end it. */
START_TEST(stat_varint_lengths) {
	for (int k = 1; k <= 10; k++) {
		struct buf line = { 0 }, plane = { 0 }, space = { 0 };
		put_int(&line, 1, 1);
		put_str(&line, 2, "Stream #1");
		/* k bytes, every payload bit set; ten bytes: negative. */
		int64_t corr = k == 10 ? -2 : k == 9 ? INT64_MAX : ((int64_t)1 << (7 * k)) - 1;
		for (int last = 0; last < 2; last++) {
			put_corr_event(&line, 1, 1000 * (last + 1), corr);
		}
		gpu_space(&space, &plane, &line);
		struct tc_model *m = load_space(&space);
		ck_assert_uint_eq(m->ev.n, 2);
		for (size_t i = 0; i < 2; i++) {
			struct tc_arg a;
			ck_assert(tc_model_arg_find(m, tc_model_event_args(m, i),
				m->key.correlation, &a));
			ck_assert_msg(a.v.i == corr, "%d bytes: %" PRId64, k, a.v.i);
		}
		tc_model_destroy(m);
	}
	/* The first event's stat says 4 bytes: its value's last byte goes on,
	 * and the next event's tag (0x22) would end it. */
	struct buf line = { 0 }, ev = { 0 }, plane = { 0 }, space = { 0 };
	static const uint8_t st[] = { 0x08, 0x01, 0x20, 0x81 };
	put_int(&line, 1, 1);
	put_str(&line, 2, "Stream #1");
	put_int(&ev, 1, 1);
	put_int(&ev, 2, 1000);
	put_int(&ev, 3, 100);
	put_tag(&ev, 4, 2);
	put_varint(&ev, sizeof(st));
	memcpy(ev.b + ev.n, st, sizeof(st));
	ev.n += sizeof(st);
	put_len(&line, 4, &ev);
	put_corr_event(&line, 1, 2000, 5);
	gpu_space(&space, &plane, &line);
	struct tc_error err;
	struct tc_model *m = load_bytes(space.b, space.n, &err);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "XStat") != NULL, "%s", err.msg);
}
END_TEST

/* A correlation id launched twice links to its earlier launch, whether the
 * ids are dense (looked up by index) or sparse (by binary search); flows
 * follow the device events' order. */
START_TEST(launch_flows_first_wins) {
	static const int64_t ids[2][2] = { { 5, 6 }, { 5, 1000000000000LL } };
	for (int v = 0; v < 2; v++) {
		const int64_t host[] = { ids[v][0], ids[v][1], ids[v][0] };
		const int64_t dev[] = { ids[v][1], ids[v][0] };
		struct tc_model *m = launch_model(host, 3, dev, 2, false);
		ck_assert_uint_eq(m->n_flows, 2);
		size_t first = find_event(m, "cudaLaunchKernel");
		ck_assert_uint_eq(m->ev.start[first], 0);
		ck_assert_uint_eq(m->flows[0].id, (uint64_t)ids[v][1]);
		ck_assert_uint_eq(m->flows[0].from, first + 1);
		ck_assert_uint_eq(m->flows[1].id, (uint64_t)ids[v][0]);
		ck_assert_uint_eq(m->flows[1].from, first);
		ck_assert_uint_lt(m->flows[0].to, m->flows[1].to);
		tc_model_destroy(m);
	}
}
END_TEST

/* XLA async halves: copy-start/copy-done are copies (copy-done waits for
 * one), send/recv and the collectives' -start/-done are communication;
 * names that merely begin alike stay kernels. */
START_TEST(async_op_kinds) {
	static const struct {
		const char *name;
		enum tc_op_kind kind;
	} ops[] = {
		{ "copy-start.1", TC_OP_MEMCPY_D2D }, { "copy-done.1", TC_OP_MEMCPY_D2D },
		{ "copy-start", TC_OP_MEMCPY_D2D }, { "all-reduce-start", TC_OP_COLLECTIVE },
		{ "all-reduce-done.2", TC_OP_COLLECTIVE }, { "send.2", TC_OP_COLLECTIVE },
		{ "send-done.2", TC_OP_COLLECTIVE }, { "recv", TC_OP_COLLECTIVE },
		{ "recv-done", TC_OP_COLLECTIVE }, { "collective-permute-done.3", TC_OP_COLLECTIVE },
		{ "all-gather-start.1", TC_OP_COLLECTIVE }, { "fusion.7", TC_OP_KERNEL },
		{ "sender_fusion", TC_OP_KERNEL }, { "copy.4", TC_OP_KERNEL },
	};
	size_t n = sizeof(ops) / sizeof(ops[0]);
	struct buf line = { 0 }, plane = { 0 }, space = { 0 };
	put_int(&line, 1, 1);
	put_str(&line, 2, "XLA Ops");
	for (size_t i = 0; i < n; i++) {
		struct buf ev = { 0 };
		put_int(&ev, 1, (int64_t)i + 1);
		put_int(&ev, 2, (int64_t)i * 1000);
		put_int(&ev, 3, 500);
		put_len(&line, 4, &ev);
	}
	put_str(&plane, 2, "/device:TPU:0");
	put_len(&plane, 3, &line);
	for (size_t i = 0; i < n; i++) {
		put_meta(&plane, 4, (int64_t)i + 1, ops[i].name);
	}
	put_len(&space, 1, &plane);
	struct tc_model *m = load_space(&space);
	ck_assert_uint_eq(m->ev.n, n);
	for (size_t i = 0; i < n; i++) {
		size_t e = find_event(m, ops[i].name);
		ck_assert_uint_ne(e, SIZE_MAX);
		ck_assert_msg(m->ops[m->ev.op[e]].kind == ops[i].kind, "%s: kind %s", ops[i].name,
			tc_op_kind_name((enum tc_op_kind)m->ops[m->ev.op[e]].kind));
	}
	tc_model_destroy(m);
}
END_TEST

/* ---- real traces (skipped when ../shared/traces is absent) ---- */

/* ---- the pipeline ---- */

/* A growing buffer for files past struct buf's 4 KiB. */
struct dbuf {
	uint8_t *b;
	size_t n, cap;
};

static void d_bytes(struct dbuf *d, const void *p, size_t n) {
	if (d->n + n > d->cap) {
		d->cap = (d->n + n) * 2;
		d->b = realloc(d->b, d->cap);
		ck_assert_ptr_nonnull(d->b);
	}
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void d_varint(struct dbuf *d, uint64_t v) {
	uint8_t t[10];
	size_t k = 0;
	while (v >= 0x80) {
		t[k++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[k++] = (uint8_t)v;
	d_bytes(d, t, k);
}

static void d_len(struct dbuf *d, uint32_t num, const uint8_t *p, size_t n) {
	d_varint(d, (uint64_t)num << 3 | 2);
	d_varint(d, n);
	d_bytes(d, p, n);
}

/* One XEvent of the pipeline test: fast, slow (unknown field, too many
 * stats), aggregated, missing metadata, dangling refs, repeated strings. */
static void put_mixed_event(struct dbuf *line, size_t i) {
	struct buf ev = { 0 };
	put_int(&ev, 1, i % 97 == 0 ? 999 : (int64_t)(1 + i % 50));
	if (i % 151 == 0) {
		put_int(&ev, 5, 3);
		put_int(&ev, 3, 40);
	} else {
		put_int(&ev, 2, (int64_t)i * 10);
		put_int(&ev, 3, (int64_t)(i % 9));
	}
	size_t nst = i % 203 == 0 ? 20 : 3;
	for (size_t k = 0; k < nst; k++) {
		struct buf st = { 0 };
		char v[32];
		switch (k % 3) {
		case 0:
			put_int(&st, 1, 1);
			put_int(&st, 4, (int64_t)i);
			break;
		case 1:
			snprintf(v, sizeof(v), "s%zu", (i / 5) % 7);
			put_int(&st, 1, 2);
			put_str(&st, 5, v);
			break;
		default:
			put_int(&st, 1, 3);
			put_int(&st, 7, i % 13 == 0 ? 77 : 2);
			break;
		}
		put_len(&ev, 4, &st);
	}
	if (i % 101 == 0) {
		put_int(&ev, 9, 1); /* unknown field: the slow decoder */
	}
	d_len(line, 4, ev.b, ev.n);
}

/* Planes of thousands of events cross the pipeline's chunks (the thread
 * stepping over a chunk jumps by its line's event index); both reads
 * (load) must agree, on the whole file, on a damaged line and on cuts. */
START_TEST(pipeline_chunks) {
	struct dbuf space = { 0 };
	for (int p = 0; p < 2; p++) {
		struct dbuf plane = { 0 };
		struct buf hdr = { 0 };
		char name[32];
		snprintf(name, sizeof(name), "/device:GPU:%d", p);
		put_str(&hdr, 2, name);
		d_bytes(&plane, hdr.b, hdr.n);
		for (int l = 0; l < 3; l++) {
			struct dbuf line = { 0 };
			struct buf lh = { 0 };
			put_int(&lh, 1, l);
			put_str(&lh, 2, l == 2 ? "_counters_" : "Stream #1");
			/* The second line is on the epoch clock: it sets the origin. */
			put_int(&lh, 3, l == 1 ? 1700000000000000000LL : 1000);
			d_bytes(&line, lh.b, lh.n);
			size_t n = l == 2 ? 3000 : 9000 + (size_t)p * 1000;
			for (size_t i = 0; i < n; i++) {
				put_mixed_event(&line, i);
				if (i % 700 == 350) {
					/* Other fields between events: a walk stepping over
					 * by the line's event index lands after an event,
					 * and the next XEvent is past them. */
					struct buf x = { 0 };
					put_int(&x, 9, (int64_t)i);
					d_bytes(&line, x.b, x.n);
				}
			}
			struct buf tail = { 0 };
			snprintf(name, sizeof(name), "line %d", l);
			put_str(&tail, 11, name);
			d_bytes(&line, tail.b, tail.n);
			d_len(&plane, 3, line.b, line.n);
			free(line.b);
		}
		struct buf meta = { 0 };
		for (int k = 1; k <= 50; k++) {
			snprintf(name, sizeof(name), "op%d", k);
			put_meta(&meta, 4, k, name);
		}
		put_meta(&meta, 5, 1, "correlation_id");
		put_meta(&meta, 5, 2, "kind");
		put_meta(&meta, 5, 3, "ref");
		d_bytes(&plane, meta.b, meta.n);
		d_len(&space, 1, plane.b, plane.n);
		free(plane.b);
	}
	struct tc_error err;
	struct tc_model *m = load_bytes(space.b, space.n, &err);
	ck_assert_msg(m != NULL, "%s", err.msg);
	ck_assert_uint_gt(m->ev.n, 30000);
	ck_assert_uint_gt(m->n_aggs, 100);
	ck_assert_uint_gt(m->samples.n, 5000);
	ck_assert(has_warning(m, "missing event metadata"));
	ck_assert(has_warning(m, "ref_value"));
	tc_model_destroy(m);
	/* Cuts: most fall inside a plane and fail; both reads agree. */
	for (size_t k = 1; k <= 40; k++) {
		m = load_bytes(space.b, space.n * k / 41, &err);
		if (m) {
			tc_model_destroy(m);
		}
	}
	/* A damaged line after thousands of events: field 3 as a length. */
	struct dbuf bad = { 0 };
	struct buf lh = { 0 }, pl = { 0 };
	put_str(&pl, 2, "/device:GPU:9");
	d_bytes(&bad, pl.b, pl.n);
	struct dbuf line = { 0 };
	put_int(&lh, 1, 1);
	put_str(&lh, 2, "Stream #2");
	d_bytes(&line, lh.b, lh.n);
	for (size_t i = 1; i < 6000; i++) {
		put_mixed_event(&line, i);
	}
	d_len(&bad, 3, line.b, line.n);
	struct buf broken = { 0 };
	put_str(&broken, 3, "not a timestamp");
	d_len(&bad, 3, broken.b, broken.n);
	struct dbuf space2 = { 0 };
	d_len(&space2, 1, bad.b, bad.n);
	m = load_bytes(space2.b, space2.n, &err);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "wrong wire type") != NULL, "%s", err.msg);
	free(line.b);
	free(bad.b);
	free(space2.b);
	free(space.b);
}
END_TEST

/* String stats whose value is mostly their op's: the reader's cache of
 * values by (event metadata, stat) returns each event's own string when
 * an op's value changes, two ops share one, values of one length differ,
 * and a second plane reuses the first's metadata ids for other strings. */
START_TEST(string_stats_per_op) {
	static const char *const val[2][12] = {
		{ "op/a", "op/b", "op/c", "op/a", "op/b", "op/x", "op/a", "op/b", "op/b", "op/a",
			"op/y", "op/c" },
		{ "p2/a", "p2/b", "op/c", "p2/a", "p2/b", "op/b", "p2/a", "p2/b", "p2/b", "p2/a",
			"p2/y", "op/c" },
	};
	struct buf space = { 0 };
	for (int pl = 0; pl < 2; pl++) {
		struct buf line = { 0 }, plane = { 0 };
		put_int(&line, 1, 1);
		put_str(&line, 2, "Stream #1");
		for (int i = 0; i < 12; i++) {
			struct buf ev = { 0 }, st = { 0 };
			put_int(&st, 1, 1);
			put_str(&st, 5, val[pl][i]);
			put_int(&ev, 1, 1 + i % 3);
			put_int(&ev, 2, 1000 * (i + 1));
			put_int(&ev, 3, 100);
			put_len(&ev, 4, &st);
			put_len(&line, 4, &ev);
		}
		put_str(&plane, 2, pl ? "/device:GPU:1" : "/device:GPU:0");
		put_len(&plane, 3, &line);
		put_meta(&plane, 4, 1, "k1");
		put_meta(&plane, 4, 2, "k2");
		put_meta(&plane, 4, 3, "k3");
		put_meta(&plane, 5, 1, "note");
		put_len(&space, 1, &plane);
	}
	struct tc_model *m = load_space(&space);
	ck_assert_uint_eq(m->ev.n, 24);
	for (int pl = 0; pl < 2; pl++) {
		uint32_t t = find_track(m, find_device(m, pl ? "/device:GPU:1" : "/device:GPU:0"),
			"Stream #1");
		ck_assert_uint_eq(m->tracks[t].count, 12);
		for (size_t i = 0; i < 12; i++) {
			size_t e = m->tracks[t].first + i;
			ck_assert_str_eq(arg_str(m, tc_model_event_args(m, e), "note"), val[pl][i]);
		}
	}
	tc_model_destroy(m);
}
END_TEST

START_TEST(real_tpu_inference) {
	const char *p = tc_test_trace("xplane/xprof-tpu_inference_2.xplane.pb");
	struct tc_model *m = load_ok(p);
	ck_assert_uint_eq(m->ev.n, 26723);
	ck_assert_uint_eq(m->n_aggs, 0);
	static const char *const tpus[] = {
		"/device:TPU:0", "/device:TPU:1", "/device:TPU:2", "/device:TPU:3",
	};
	static const uint64_t counts[] = { 2317, 1712, 1712, 1712 };
	for (int i = 0; i < 4; i++) {
		uint32_t d = find_device(m, tpus[i]);
		ck_assert_uint_ne(d, TC_NONE);
		ck_assert_uint_eq(device_events(m, d), counts[i]);
		ck_assert(m->devices[d].peak_flops > 917e12 && m->devices[d].peak_flops < 919e12);
		ck_assert(m->devices[d].peak_bw > 1637e9 && m->devices[d].peak_bw < 1640e9);
	}
	ck_assert_uint_eq(device_events(m, find_device(m, "/host:CPU")), 19270);
	ck_assert(m->origin_epoch);
	tc_model_destroy(m);
}
END_TEST

START_TEST(real_gpu_multiworker) {
	const char *p = tc_test_trace("xplane/xprof-tf_gpu_multiworker.xplane.pb");
	struct tc_model *m = load_ok(p);
	ck_assert_uint_eq(m->ev.n, 23128);
	uint32_t g4 = find_device(m, "/device:GPU:4");
	ck_assert_uint_eq(m->tracks[find_track(m, g4, "Stream #134(Compute)")].count, 665);
	ck_assert_uint_eq(m->tracks[find_track(m, g4, "Steps")].count, 1);
	ck_assert_str_eq(tc_model_str(m, m->hosts[0].name), "34.83.195.179:6003");
	tc_model_destroy(m);
}
END_TEST

START_TEST(real_all_load) {
	const char *dir = tc_test_trace("xplane");
	char base[4096];
	snprintf(base, sizeof(base), "%s", dir);
	DIR *d = opendir(base);
	ck_assert_ptr_nonnull(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 10 || strcmp(de->d_name + l - 10, ".xplane.pb") != 0) {
			continue;
		}
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", base, de->d_name);
		struct tc_model *m = load_ok(path);
		ck_assert_uint_gt(m->ev.n, 1000);
		ck_assert_uint_gt(m->n_devices, 0);
		tc_model_destroy(m);
		n++;
	}
	closedir(d);
	ck_assert_int_ge(n, 5);
}
END_TEST

START_TEST(real_bad_refused) {
	const char *p = tc_test_trace("xplane/bad/xprof-tpu_inference_2.utf8-mangled.xplane.pb");
	struct tc_error err;
	struct tc_model *m = load(p, &err);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strncmp(err.msg, "xplane: ", 8) == 0, "%s", err.msg);
	ck_assert_int_ge(err.offset, 0);
}
END_TEST

int main(void) {
	Suite *s = suite_create("xplane");
	TCase *tc = tcase_create("xplane");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, sniff_formats);
	tcase_add_test(tc, fixture_gpu);
	tcase_add_test(tc, fixture_tpu);
	tcase_add_test(tc, truncated_gpu);
	tcase_add_test(tc, truncated_tpu);
	tcase_add_test(tc, overlong_lengths);
	tcase_add_test(tc, negative_varints);
	tcase_add_test(tc, bad_durations);
	tcase_add_test(tc, max_string_utf8);
	tcase_add_test(tc, metadata_wrong_wire_types);
	tcase_add_test(tc, metadata_costs_stay_per_op);
	tcase_add_test(tc, launch_flows_sparse);
	tcase_add_test(tc, launch_flows_first_wins);
	tcase_add_test(tc, varint_lengths);
	tcase_add_test(tc, stat_varint_lengths);
	tcase_add_test(tc, async_op_kinds);
	tcase_add_test(tc, pipeline_chunks);
	tcase_add_test(tc, string_stats_per_op);
	suite_add_tcase(s, tc);
	TCase *tt = tc_test_traces_tcase("traces");
	tcase_set_timeout(tt, 120);
	tcase_add_test(tt, real_perfetto_not_xspace);
	tcase_add_test(tt, real_tpu_inference);
	tcase_add_test(tt, real_gpu_multiworker);
	tcase_add_test(tt, real_all_load);
	tcase_add_test(tt, real_bad_refused);
	suite_add_tcase(s, tt);
	return tc_test_run(s);
}
