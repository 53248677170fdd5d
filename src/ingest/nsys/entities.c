/*
 * Nsight Systems exports: processes, threads, GPUs and CUDA streams as the
 * model's devices and tracks, made as the activity first names them, and
 * the GPUs' properties (TARGET_INFO_GPU) for the roofline.
 */
#include <stdio.h>
#include <string.h>
#include "ingest/nsys/nsys_private.h"
#include "util/xalloc.h"

/* PROCESSES and ThreadNames, read whole: both are small. */
bool tc_nsys_read_names(struct nsys_reader *r) {
	sqlite3_stmt *st;
	int rc;
	if (tc_nsys_has_column(r, "PROCESSES", "pid") && tc_nsys_has_column(r, "PROCESSES", "name")) {
		if (!tc_nsys_prepare(r, "SELECT pid, name FROM PROCESSES", &st)) {
			return false;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
				tc_nsys_map_put(&r->pnames, (uint64_t)sqlite3_column_int64(st, 0),
					tc_nsys_text(r, st, 1));
			}
		}
		sqlite3_finalize(st);
		if (!tc_nsys_step_done(r, rc)) {
			return false;
		}
	}
	if (tc_nsys_has_column(r, "ThreadNames", "globalTid") &&
			tc_nsys_has_column(r, "ThreadNames", "nameId")) {
		if (!tc_nsys_prepare(r, "SELECT globalTid, nameId FROM ThreadNames", &st)) {
			return false;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			tc_nsys_map_put(&r->tnames, (uint64_t)sqlite3_column_int64(st, 0),
				tc_nsys_string(r, sqlite3_column_int64(st, 1)));
		}
		sqlite3_finalize(st);
		if (!tc_nsys_step_done(r, rc)) {
			return false;
		}
	}
	return !r->err->code;
}

uint32_t tc_nsys_cpu_device(struct nsys_reader *r, int64_t pid) {
	uint32_t d = tc_nsys_map_get(&r->procs, (uint64_t)pid);
	if (d != TC_NONE) {
		return d;
	}
	char buf[512];
	uint32_t name = tc_nsys_map_get(&r->pnames, (uint64_t)pid);
	if (name != TC_NONE && *tc_model_str(r->m, name)) {
		snprintf(buf, sizeof(buf), "%s (pid %lld)", tc_model_str(r->m, name), (long long)pid);
	} else {
		snprintf(buf, sizeof(buf), "pid %lld", (long long)pid);
	}
	d = tc_model_add_device(r->m, tc_model_intern(r->m, buf), TC_DEV_CPU);
	struct tc_device *dev = &r->m->devices[d];
	dev->host = r->host;
	dev->pid = pid;
	dev->src_id = pid;
	tc_nsys_map_put(&r->procs, (uint64_t)pid, d);
	return d;
}

uint32_t tc_nsys_thread_track(struct nsys_reader *r, int64_t global_tid, unsigned flavour) {
	uint64_t key = ((uint64_t)global_tid & 0x00FFFFFFFFFFFFFFull) | (uint64_t)flavour << 56;
	uint32_t t = tc_nsys_map_get(&r->threads, key);
	if (t != TC_NONE) {
		return t;
	}
	int64_t tid = NSYS_TID(global_tid);
	uint32_t dev = tc_nsys_cpu_device(r, NSYS_PID(global_tid));
	char buf[512];
	uint32_t name = tc_nsys_map_get(&r->tnames, (uint64_t)global_tid);
	int n;
	if (name != TC_NONE && *tc_model_str(r->m, name)) {
		n = snprintf(buf, sizeof(buf), "%s", tc_model_str(r->m, name));
	} else {
		n = snprintf(buf, sizeof(buf), "thread %lld", (long long)tid);
	}
	static const char *const suffix[] = { "", " (OS runtime)", " (NVTX ranges)" };
	if (n >= 0 && (size_t)n < sizeof(buf)) {
		snprintf(buf + n, sizeof(buf) - (size_t)n, "%s", suffix[flavour]);
	}
	/* OS runtime calls and start/end ranges may overlap the thread's
	 * own slices: tracks of their own, not counted as the thread busy. */
	t = tc_model_add_track(r->m, dev, tc_model_intern(r->m, buf),
		flavour ? TC_TRACK_OTHER : TC_TRACK_HOST_THREAD, tid);
	r->m->tracks[t].sort = (int32_t)flavour;
	tc_nsys_map_put(&r->threads, key, t);
	return t;
}

/* A column's value as int64, 0 when the column is absent (col < 0) or NULL. */
static int64_t col_i64(sqlite3_stmt *st, int col) {
	return col >= 0 ? sqlite3_column_int64(st, col) : 0;
}

/*
 * Activity deviceId is the CUDA device ordinal, which TARGET_INFO_GPU
 * calls cuDevice (its own id differs: on a node where the job saw one GPU
 * of four, deviceId 3 is id 0). Older exports without cuDevice match on id.
 * Read before the activity, so kernels can be set against their GPU's SMs.
 */
bool tc_nsys_read_gpus(struct nsys_reader *r) {
	static const char *const cols[] = {
		"name", "totalMemory", "memoryBandwidth", "clockRate", "smCount",
		"computeMajor", "computeMinor",
	};
	enum { C_NAME, C_MEM, C_BW, C_CLOCK, C_SMS, C_MAJOR, C_MINOR, N_COLS };
	const char *t = "TARGET_INFO_GPU";
	const char *idcol = tc_nsys_has_column(r, t, "cuDevice") ? "cuDevice" :
		tc_nsys_has_column(r, t, "id") ? "id" : NULL;
	if (!idcol) {
		return !r->err->code;
	}
	char sql[512];
	int n = snprintf(sql, sizeof(sql), "SELECT %s", idcol);
	int at[N_COLS];
	int next = 1;
	for (int i = 0; i < N_COLS; i++) {
		at[i] = -1;
		if (tc_nsys_has_column(r, t, cols[i])) {
			n += snprintf(sql + n, sizeof(sql) - (size_t)n, ", %s", cols[i]);
			at[i] = next++;
		}
	}
	snprintf(sql + n, sizeof(sql) - (size_t)n, " FROM %s", t);
	sqlite3_stmt *st;
	if (!tc_nsys_prepare(r, sql, &st)) {
		return false;
	}
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		TC_GROW(r->gpu_info, r->cap_gpu_info, r->n_gpu_info + 1);
		struct nsys_gpu *g = &r->gpu_info[r->n_gpu_info++];
		*g = (struct nsys_gpu){
			.id = sqlite3_column_int64(st, 0),
			.mem = col_i64(st, at[C_MEM]),
			.bw = col_i64(st, at[C_BW]),
			.clock = col_i64(st, at[C_CLOCK]),
			.sms = col_i64(st, at[C_SMS]),
			.major = col_i64(st, at[C_MAJOR]),
			.minor = col_i64(st, at[C_MINOR]),
			.has_major = at[C_MAJOR] >= 0,
			.has_minor = at[C_MINOR] >= 0,
		};
		if (at[C_NAME] >= 0 && sqlite3_column_type(st, at[C_NAME]) != SQLITE_NULL) {
			g->name = tc_nsys_text(r, st, at[C_NAME]);
		}
	}
	sqlite3_finalize(st);
	return tc_nsys_step_done(r, rc);
}

/* The first TARGET_INFO_GPU row of a CUDA device, NULL if none. */
const struct nsys_gpu *tc_nsys_gpu_info(const struct nsys_reader *r, int64_t device_id) {
	for (size_t i = 0; i < r->n_gpu_info; i++) {
		if (r->gpu_info[i].id == device_id) {
			return &r->gpu_info[i];
		}
	}
	return NULL;
}

static void gpu_properties(struct nsys_reader *r, uint32_t d, const struct nsys_gpu *g) {
	struct tc_model *m = r->m;
	struct tc_device *dev = &m->devices[d];
	dev->model = g->name;
	dev->memory_bytes = g->mem > 0 ? g->mem : 0;
	dev->peak_bw = g->bw > 0 ? (double)g->bw : 0;
	dev->clock_khz = g->clock > 0 ? g->clock / 1000 : 0;
	dev->core_count = g->sms > 0 && g->sms <= INT32_MAX ? (int32_t)g->sms : 0;
	if (g->has_major) {
		uint32_t b = tc_model_args_begin(m);
		tc_model_arg_int(m, tc_model_intern(m, "computeMajor"), g->major);
		if (g->has_minor) {
			tc_model_arg_int(m, tc_model_intern(m, "computeMinor"), g->minor);
		}
		m->devices[d].args = tc_model_args_end(m, b);
	}
}

uint32_t tc_nsys_gpu_device(struct nsys_reader *r, int64_t device_id) {
	uint32_t d = tc_nsys_map_get(&r->gpus, (uint64_t)device_id);
	if (d != TC_NONE) {
		return d;
	}
	char buf[64];
	snprintf(buf, sizeof(buf), "GPU %lld", (long long)device_id);
	d = tc_model_add_device(r->m, tc_model_intern(r->m, buf), TC_DEV_GPU);
	struct tc_device *dev = &r->m->devices[d];
	dev->host = r->host;
	dev->ordinal = device_id >= 0 && device_id <= INT32_MAX ? (int32_t)device_id : -1;
	dev->src_id = device_id;
	dev->vendor = tc_model_intern(r->m, "NVIDIA");
	const struct nsys_gpu *g = tc_nsys_gpu_info(r, device_id);
	if (g) {
		gpu_properties(r, d, g);
	}
	tc_nsys_map_put(&r->gpus, (uint64_t)device_id, d);
	return d;
}

uint32_t tc_nsys_stream_track(struct nsys_reader *r, int64_t device_id, int64_t pid,
		int64_t stream_id) {
	/* Stream ids are per process: two processes' stream 7 are two rows. */
	uint64_t key = ((uint64_t)device_id & 0xFFFF) << 48 | ((uint64_t)pid & 0xFFFFFF) << 24 |
		((uint64_t)stream_id & 0xFFFFFF);
	uint32_t t = tc_nsys_map_get(&r->streams, key);
	if (t != TC_NONE) {
		return t;
	}
	char buf[64];
	snprintf(buf, sizeof(buf), "stream %lld", (long long)stream_id);
	t = tc_model_add_track(r->m, tc_nsys_gpu_device(r, device_id), tc_model_intern(r->m, buf),
		TC_TRACK_STREAM, stream_id);
	tc_nsys_map_put(&r->streams, key, t);
	return t;
}
