/*
 * Nsight Systems exports: the event tables. CUDA kernels, copies and
 * memsets on their streams; CUDA runtime/driver and OS runtime calls and
 * NVTX ranges on their threads; named as Kineto names the same records,
 * so the classifier and every analysis treat both alike.
 */
#include <stdio.h>
#include <string.h>
#include "ingest/nsys/nsys_private.h"
#include "model/classify.h"
#include "util/xalloc.h"

bool tc_nsys_select(struct nsys_reader *r, const char *t, const char *const *cols,
		size_t n, size_t n_required, const char *where, char *sql, size_t cap) {
	size_t k = (size_t)snprintf(sql, cap, "SELECT ");
	for (size_t i = 0; i < n && k < cap; i++) {
		bool has = tc_nsys_has_column(r, t, cols[i]);
		if (!has && i < n_required) {
			return false;
		}
		k += (size_t)snprintf(sql + k, cap - k, "%s%s%s%s", i ? ", " : "",
			has ? "\"" : "NULL", has ? cols[i] : "", has ? "\"" : "");
	}
	if (k < cap) {
		k += (size_t)snprintf(sql + k, cap - k, " FROM %s%s", t, where ? where : "");
	}
	return k < cap;
}

/* The op of a name, classified once per distinct (table, name). */
static uint32_t make_op(struct nsys_reader *r, uint64_t key, uint32_t name, const char *cat,
		enum tc_place place, enum tc_op_kind host_default, enum tc_op_kind force) {
	uint32_t op = tc_nsys_map_get(&r->ops, key);
	if (op != TC_NONE) {
		return op;
	}
	struct tc_model *m = r->m;
	const char *s = tc_model_str(m, name);
	struct tc_class k;
	tc_classify(s, tc_intern_len(&m->strings, name), cat, cat ? strlen(cat) : 0, place,
		host_default, &k);
	if (force != TC_OP_OTHER) {
		k.kind = force;
	}
	const char *c = k.category ? k.category : cat;
	op = tc_model_op(m, name, c ? tc_model_intern(m, c) : 0, k.kind);
	if (k.async_done) {
		m->ops[op].flags |= TC_OPF_ASYNC_DONE;
	}
	tc_nsys_map_put(&r->ops, key, op);
	return op;
}

/* An event from a row's start and end (ns); TC_NONE when out of range. */
static uint32_t add_event(struct nsys_reader *r, uint32_t track, uint32_t op, int64_t start,
		int64_t end) {
	int64_t s, e;
	if (!tc_nsys_ps(r, start, &s) || !tc_nsys_ps(r, end, &e)) {
		return TC_NONE;
	}
	int64_t dur = e - s;
	if (dur < 0) {
		dur = 0;
		r->m->n_negative_dur++;
	}
	return tc_model_add_event(r->m, track, op, s, dur, 0);
}

static void push_corr(struct tc_corr **v, size_t *n, size_t *cap, int64_t pid, int64_t corr,
		uint32_t ev) {
	TC_GROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = (struct tc_corr){ (uint64_t)(pid & 0xFFFFFF) << 32 | (uint32_t)corr, ev };
}

/* A statement's rows, each handed to row(); false with err set on failure. */
static bool each_row(struct nsys_reader *r, const char *sql,
		bool (*row)(struct nsys_reader *, sqlite3_stmt *)) {
	sqlite3_stmt *st;
	if (!tc_nsys_prepare(r, sql, &st)) {
		return false;
	}
	int rc;
	bool ok = true;
	while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ok = row(r, st) && !r->err->code && tc_nsys_row(r);
	}
	sqlite3_finalize(st);
	return ok && tc_nsys_step_done(r, rc);
}

/* ---- device work ---- */

enum { D_START, D_END, D_DEVICE, D_STREAM, D_CORR, D_PID, D_CONTEXT, D_FIRST_OWN };

#define DEVICE_COLS "start", "end", "deviceId", "streamId", "correlationId", "globalPid", \
	"contextId"

/* The columns every device table shares: the event on its stream, its
 * launch recorded for the flow, its args list begun (*args). */
static uint32_t device_event(struct nsys_reader *r, sqlite3_stmt *st, uint32_t op,
		uint32_t *args) {
	int64_t dev = sqlite3_column_int64(st, D_DEVICE);
	int64_t pid = NSYS_PID(sqlite3_column_int64(st, D_PID));
	uint32_t t = tc_nsys_stream_track(r, dev, pid, sqlite3_column_int64(st, D_STREAM));
	uint32_t ev = add_event(r, t, op, sqlite3_column_int64(st, D_START),
		sqlite3_column_int64(st, D_END));
	if (ev == TC_NONE) {
		return TC_NONE;
	}
	struct tc_model *m = r->m;
	int64_t corr = sqlite3_column_int64(st, D_CORR);
	push_corr(&r->dev_corr, &r->n_dev_corr, &r->cap_dev_corr, pid, corr, ev);
	*args = tc_model_args_begin(m);
	tc_model_arg_uint(m, m->key.correlation, (uint64_t)corr);
	if (!m->known_args_only) {
		tc_model_arg_int(m, m->key.stream, sqlite3_column_int64(st, D_STREAM));
		tc_model_arg_int(m, r->k_device, dev);
		tc_model_arg_int(m, r->k_context, sqlite3_column_int64(st, D_CONTEXT));
	}
	return ev;
}

enum { K_NAME = D_FIRST_OWN, K_SHORT, K_GX, K_GY, K_GZ, K_BX, K_BY, K_BZ, K_REGS, K_SSHM,
	K_DSHM, K_GRAPH };

static bool kernel_row(struct nsys_reader *r, sqlite3_stmt *st) {
	struct tc_model *m = r->m;
	int64_t id = sqlite3_column_type(st, K_NAME) != SQLITE_NULL ?
		sqlite3_column_int64(st, K_NAME) : sqlite3_column_int64(st, K_SHORT);
	uint32_t op = tc_nsys_map_get(&r->ops, (uint64_t)id << 4 | 1);
	if (op == TC_NONE) {
		op = make_op(r, (uint64_t)id << 4 | 1, tc_nsys_string(r, id), "kernel",
			TC_PLACE_DEVICE, TC_OP_OTHER, TC_OP_OTHER);
	}
	uint32_t b;
	uint32_t ev = device_event(r, st, op, &b);
	if (ev == TC_NONE) {
		return true;
	}
	int64_t g[3], bl[3];
	for (int i = 0; i < 3; i++) {
		g[i] = sqlite3_column_int64(st, K_GX + i);
		bl[i] = sqlite3_column_int64(st, K_BX + i);
	}
	const struct tc_device *d = &m->devices[tc_nsys_gpu_device(r,
		sqlite3_column_int64(st, D_DEVICE))];
	if (d->core_count > 0 && g[0] > 0 && g[1] > 0 && g[2] > 0) {
		/* Kineto's "blocks per SM": launch-bound and small-batch rules
		 * read it. */
		tc_model_arg_double(m, m->key.blocks_per_sm,
			(double)g[0] * (double)g[1] * (double)g[2] / d->core_count);
	}
	if (!m->known_args_only) {
		char buf[96];
		snprintf(buf, sizeof(buf), "[%lld, %lld, %lld]", (long long)g[0], (long long)g[1],
			(long long)g[2]);
		tc_model_arg_str(m, r->k_grid, tc_model_intern(m, buf));
		snprintf(buf, sizeof(buf), "[%lld, %lld, %lld]", (long long)bl[0], (long long)bl[1],
			(long long)bl[2]);
		tc_model_arg_str(m, r->k_block, tc_model_intern(m, buf));
		tc_model_arg_int(m, r->k_regs, sqlite3_column_int64(st, K_REGS));
		tc_model_arg_int(m, r->k_shmem, sqlite3_column_int64(st, K_SSHM) +
			sqlite3_column_int64(st, K_DSHM));
		if (sqlite3_column_type(st, K_GRAPH) != SQLITE_NULL) {
			tc_model_arg_int(m, r->k_graph_node, sqlite3_column_int64(st, K_GRAPH));
		}
	}
	tc_model_set_event_args(m, ev, tc_model_args_end(m, b));
	return true;
}

/* nsys's ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND (the same numbers in
 * every version read; exports before 2022.4 lack the tables), spelt as
 * Kineto spells them in its copy names. */
static const char *const copy_kind[] = {
	"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
	"HtoD", "DtoH", "DtoD",
};
static const char *const mem_kind[] = {
	"Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static",
	"Unknown",
};
enum { MEM_PAGEABLE = 0, MEM_PINNED = 1, MEM_DEVICE = 2, MEM_UNKNOWN = 7, COPY_UVM = 11 };
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *kind_name(const char *const *names, size_t n, int64_t k, size_t unknown) {
	return k >= 0 && (uint64_t)k < n ? names[k] : names[unknown];
}

static enum tc_op_kind copy_op_kind(int64_t k) {
	switch (k) {
	case 1: case 3: case 11:
		return TC_OP_MEMCPY_H2D;
	case 2: case 4: case 12:
		return TC_OP_MEMCPY_D2H;
	case 5: case 6: case 7: case 8: case 13:
		return TC_OP_MEMCPY_D2D;
	default:
		return TC_OP_MEMCPY_OTHER;
	}
}

/* "Memcpy HtoD (Pageable -> Device)"; unified-memory migrations say so. */
static void copy_name(char *buf, size_t cap, int64_t k, int64_t src, int64_t dst) {
	const char *dir = kind_name(copy_kind, N_OF(copy_kind), k, 0);
	if (k >= COPY_UVM) {
		snprintf(buf, cap, "Memcpy %s (Unified Memory)", dir);
		return;
	}
	snprintf(buf, cap, "Memcpy %s (%s -> %s)", dir,
		kind_name(mem_kind, N_OF(mem_kind), src, MEM_UNKNOWN),
		kind_name(mem_kind, N_OF(mem_kind), dst, MEM_UNKNOWN));
}

enum { C_BYTES = D_FIRST_OWN, C_KIND, C_SRC, C_DST };

static bool memcpy_row(struct nsys_reader *r, sqlite3_stmt *st) {
	struct tc_model *m = r->m;
	int64_t k = sqlite3_column_int64(st, C_KIND);
	int64_t src = sqlite3_column_int64(st, C_SRC), dst = sqlite3_column_int64(st, C_DST);
	uint64_t key = ((uint64_t)k & 0xFF) << 20 | ((uint64_t)src & 0xFF) << 12 |
		((uint64_t)dst & 0xFF) << 4 | 2;
	uint32_t op = tc_nsys_map_get(&r->ops, key);
	if (op == TC_NONE) {
		char buf[96];
		copy_name(buf, sizeof(buf), k, src, dst);
		op = make_op(r, key, tc_model_intern(m, buf), "gpu_memcpy", TC_PLACE_DEVICE,
			TC_OP_OTHER, copy_op_kind(k));
	}
	uint32_t b;
	uint32_t ev = device_event(r, st, op, &b);
	if (ev == TC_NONE) {
		return true;
	}
	tc_model_arg_int(m, m->key.bytes, sqlite3_column_int64(st, C_BYTES));
	/* A copy is as slow as its host side: pageable beats pinned. */
	const char *mk = src == MEM_PAGEABLE || dst == MEM_PAGEABLE ? "pageable" :
		src == MEM_PINNED || dst == MEM_PINNED ? "pinned" :
		src == MEM_DEVICE && dst == MEM_DEVICE ? "device" : NULL;
	if (mk) {
		tc_model_arg_str(m, m->key.memory_kind, tc_model_intern(m, mk));
	}
	tc_model_set_event_args(m, ev, tc_model_args_end(m, b));
	return true;
}

enum { S_BYTES = D_FIRST_OWN, S_KIND };

static bool memset_row(struct nsys_reader *r, sqlite3_stmt *st) {
	struct tc_model *m = r->m;
	int64_t k = sqlite3_column_int64(st, S_KIND);
	uint64_t key = ((uint64_t)k & 0xFF) << 4 | 3;
	uint32_t op = tc_nsys_map_get(&r->ops, key);
	if (op == TC_NONE) {
		char buf[64];
		snprintf(buf, sizeof(buf), "Memset (%s)", kind_name(mem_kind, N_OF(mem_kind), k,
			MEM_UNKNOWN));
		op = make_op(r, key, tc_model_intern(m, buf), "gpu_memset", TC_PLACE_DEVICE,
			TC_OP_OTHER, TC_OP_MEMSET);
	}
	uint32_t b;
	uint32_t ev = device_event(r, st, op, &b);
	if (ev == TC_NONE) {
		return true;
	}
	tc_model_arg_int(m, m->key.bytes, sqlite3_column_int64(st, S_BYTES));
	tc_model_set_event_args(m, ev, tc_model_args_end(m, b));
	return true;
}

/* ---- host calls ---- */

enum { H_START, H_END, H_TID, H_NAME, H_CORR };

/* nsys names API calls with the version they were bound at
 * ("cudaLaunchKernel_v7000"); Kineto and the classifier use the plain name. */
static size_t api_name_len(const char *s, size_t n) {
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') {
		i--;
	}
	return i < n && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_' ? i - 2 : n;
}

static uint32_t host_call_op(struct nsys_reader *r, int64_t id, unsigned table) {
	uint64_t key = (uint64_t)id << 4 | (4 + table);
	uint32_t op = tc_nsys_map_get(&r->ops, key);
	if (op != TC_NONE) {
		return op;
	}
	struct tc_model *m = r->m;
	uint32_t name = tc_nsys_string(r, id);
	const char *s = tc_model_str(m, name);
	size_t n = tc_intern_len(&m->strings, name);
	size_t k = api_name_len(s, n);
	if (k != n) {
		name = tc_model_intern_n(m, s, k);
	}
	static const char *const cats[] = { "cuda_runtime", "cuda_driver", "os_runtime" };
	return make_op(r, key, name, cats[table], TC_PLACE_HOST, TC_OP_OTHER, TC_OP_OTHER);
}

static bool host_row(struct nsys_reader *r, sqlite3_stmt *st, unsigned table) {
	int64_t gtid = sqlite3_column_int64(st, H_TID);
	uint32_t op = host_call_op(r, sqlite3_column_int64(st, H_NAME), table);
	uint32_t t = tc_nsys_thread_track(r, gtid, table == 2 ? 1 : 0);
	uint32_t ev = add_event(r, t, op, sqlite3_column_int64(st, H_START),
		sqlite3_column_int64(st, H_END));
	if (ev == TC_NONE || table == 2 || sqlite3_column_type(st, H_CORR) == SQLITE_NULL) {
		return true;
	}
	int64_t corr = sqlite3_column_int64(st, H_CORR);
	push_corr(&r->host_corr, &r->n_host_corr, &r->cap_host_corr, NSYS_PID(gtid), corr, ev);
	tc_model_set_event_args(r->m, ev, tc_model_args_one_uint(r->m, r->m->key.correlation,
		(uint64_t)corr));
	return true;
}

static bool runtime_row(struct nsys_reader *r, sqlite3_stmt *st) {
	return host_row(r, st, 0);
}

static bool driver_row(struct nsys_reader *r, sqlite3_stmt *st) {
	return host_row(r, st, 1);
}

static bool osrt_row(struct nsys_reader *r, sqlite3_stmt *st) {
	return host_row(r, st, 2);
}

/* ---- NVTX ---- */

enum { N_START, N_END, N_TYPE, N_TID, N_TEXT, N_TEXT_ID };

/* PyTorch's emit_nvtx names each op call "aten::mm, seq = 12, sizes = ...":
 * one op per name, not per call. */
static size_t nvtx_name_len(const char *s, size_t n) {
	static const char *const cuts[] = { ", seq = ", ", op_id = ", ", sizes = ", NULL };
	for (size_t c = 0; cuts[c]; c++) {
		const char *p = strstr(s, cuts[c]);
		if (p && (size_t)(p - s) < n) {
			n = (size_t)(p - s);
		}
	}
	return n;
}

static bool nvtx_row(struct nsys_reader *r, sqlite3_stmt *st) {
	struct tc_model *m = r->m;
	if (sqlite3_column_type(st, N_END) == SQLITE_NULL) {
		r->n_no_end++;
		return true;
	}
	uint64_t key;
	uint32_t name;
	if (sqlite3_column_type(st, N_TEXT) != SQLITE_NULL) {
		name = tc_nsys_text(r, st, N_TEXT);
		key = (uint64_t)name << 4 | 7;
	} else {
		int64_t id = sqlite3_column_int64(st, N_TEXT_ID);
		key = (uint64_t)id << 4 | 8;
		name = TC_NONE;
		if (tc_nsys_map_get(&r->ops, key) == TC_NONE) {
			name = tc_nsys_string(r, id);
		}
	}
	uint32_t op = tc_nsys_map_get(&r->ops, key);
	if (op == TC_NONE) {
		const char *s = tc_model_str(m, name);
		size_t n = nvtx_name_len(s, tc_intern_len(&m->strings, name));
		uint32_t base = n == tc_intern_len(&m->strings, name) ? name :
			tc_model_intern_n(m, s, n);
		/* emit_nvtx's ranges are aten ops, the rest user ranges: Kineto's
		 * categories for them, which an exported trace keeps. nsys
		 * --trace=mpi writes each MPI call as a range ("MPI_Send"): time
		 * in communication, as NCCL's ranges are. */
		bool aten = strncmp(s, "aten::", 6) == 0;
		bool mpi = strncmp(s, "MPI_", 4) == 0;
		op = make_op(r, key, base, aten ? "cpu_op" : "user_annotation", TC_PLACE_HOST,
			TC_OP_ANNOTATION, mpi ? TC_OP_COLLECTIVE : TC_OP_OTHER);
	}
	/* Start/end ranges may cross each other and the thread's calls. */
	unsigned flavour = sqlite3_column_int64(st, N_TYPE) == 60 ? 2 : 0;
	uint32_t t = tc_nsys_thread_track(r, sqlite3_column_int64(st, N_TID), flavour);
	uint32_t ev = add_event(r, t, op, sqlite3_column_int64(st, N_START),
		sqlite3_column_int64(st, N_END));
	int64_t step;
	uint32_t opname = m->ops[op].name;
	if (ev != TC_NONE && m->op_kind[op] == TC_OP_STEP &&
			tc_classify_step(tc_model_str(m, opname), tc_intern_len(&m->strings, opname), &step) &&
			step >= 0) {
		/* ProfilerStep#N: steps are numbered by their "step" arg. */
		tc_model_set_event_args(m, ev, tc_model_args_one_int(m, m->key.step, step));
	}
	return true;
}

/* ---- tables ---- */

struct table {
	const char *name;
	const char *const *cols;
	size_t n_cols, n_required;
	const char *where;
	bool (*row)(struct nsys_reader *, sqlite3_stmt *);
};

bool tc_nsys_read_activity(struct nsys_reader *r) {
	static const char *const kernel[] = { DEVICE_COLS, "demangledName", "shortName",
		"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread",
		"staticSharedMemory", "dynamicSharedMemory", "graphNodeId" };
	static const char *const copy[] = { DEVICE_COLS, "bytes", "copyKind", "srcKind",
		"dstKind" };
	static const char *const set[] = { DEVICE_COLS, "bytes", "memKind" };
	static const char *const call[] = { "start", "end", "globalTid", "nameId",
		"correlationId" };
	static const char *const nvtx[] = { "start", "end", "eventType", "globalTid", "text",
		"textId" };
	/* Runtime calls first: nothing depends on the order, but a thread's
	 * track is then named for its first calls. */
	static const struct table tables[] = {
		{ "CUPTI_ACTIVITY_KIND_RUNTIME", call, N_OF(call), 4, NULL, runtime_row },
		{ "CUPTI_ACTIVITY_KIND_DRIVER", call, N_OF(call), 4, NULL, driver_row },
		{ "NVTX_EVENTS", nvtx, N_OF(nvtx), 4, " WHERE eventType IN (59, 60)", nvtx_row },
		{ "OSRT_API", call, N_OF(call), 4, NULL, osrt_row },
		{ "CUPTI_ACTIVITY_KIND_KERNEL", kernel, N_OF(kernel), 3, NULL, kernel_row },
		{ "CUPTI_ACTIVITY_KIND_MEMCPY", copy, N_OF(copy), 3, NULL, memcpy_row },
		{ "CUPTI_ACTIVITY_KIND_MEMSET", set, N_OF(set), 3, NULL, memset_row },
	};
	char sql[1024];
	for (size_t i = 0; i < N_OF(tables); i++) {
		const struct table *t = &tables[i];
		if (!tc_nsys_select(r, t->name, t->cols, t->n_cols, t->n_required, t->where, sql,
				sizeof(sql))) {
			if (r->err->code) {
				return false;
			}
			continue;
		}
		if (!each_row(r, sql, t->row)) {
			return false;
		}
	}
	return !r->err->code;
}
