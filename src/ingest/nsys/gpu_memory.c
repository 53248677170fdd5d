/*
 * Nsight Systems exports: CUDA memory allocations and frees
 * (CUDA_GPU_MEMORY_USAGE_EVENTS, nsys --cuda-memory-usage=true) as the
 * model's allocator records, each on the thread of the CUDA call that made
 * it (correlationId), so analysis/memview.c attributes it to the NVTX op
 * around that call. The records are the only memory figures nsys gives:
 * the analysis draws each device's allocated-memory curve from them
 * (model/memcurve.c), as for any reader's records without a counter.
 */
#include "ingest/nsys/nsys_private.h"

/* nsys's ENUM_CUDA_MEM_KIND (CUDA_MEMOPR_MEMORY_KIND_*): pageable and
 * pinned memory are the host's, the rest the GPU's. */
enum { KIND_PAGEABLE = 0, KIND_PINNED = 1 };
/* ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 allocation, 1 deallocation. */
enum { OP_FREE = 1 };

/* No device holds a TiB: a larger record is damage, and sums of such
 * could overflow. */
#define MAX_BYTES ((int64_t)1 << 40)

enum { M_START, M_PID, M_DEVICE, M_ADDR, M_BYTES, M_KIND, M_OPER, M_CORR };

/* The thread of the call that made a record, and the record's time inside
 * that call (the op around the call is then around the record). */
static void link_call(const struct nsys_reader *r, const struct tc_corr_index *ix, int64_t pid,
		int64_t corr, struct tc_alloc *a) {
	uint32_t ev = tc_corr_index_find(ix, (uint64_t)(pid & 0xFFFFFF) << 32 | (uint32_t)corr);
	if (ev == UINT32_MAX) {
		return;
	}
	const struct tc_model *m = r->m;
	int64_t lo = m->ev.start[ev], hi = lo + (m->ev.dur[ev] > 0 ? m->ev.dur[ev] - 1 : 0);
	a->track = tc_model_event_track(m, ev);
	a->ts = a->ts < lo ? lo : a->ts > hi ? hi : a->ts;
}

/* The rows, appended to the model's allocator records. */
static bool read_rows(struct nsys_reader *r, const char *sql) {
	sqlite3_stmt *st;
	if (!tc_nsys_prepare(r, sql, &st)) {
		return false;
	}
	struct tc_corr_index ix;
	tc_corr_index_init(&ix, r->host_corr, r->n_host_corr);
	int rc;
	bool ok = true;
	while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t ts, bytes = sqlite3_column_int64(st, M_BYTES);
		ok = tc_nsys_row(r);
		if (bytes > MAX_BYTES) {
			r->n_bad_bytes++;
			continue;
		}
		if (!ok || bytes <= 0 || !tc_nsys_ps(r, sqlite3_column_int64(st, M_START), &ts)) {
			continue;
		}
		int64_t pid = NSYS_PID(sqlite3_column_int64(st, M_PID));
		int64_t kind = sqlite3_column_int64(st, M_KIND);
		struct tc_alloc a = {
			.ts = ts,
			.bytes = sqlite3_column_int64(st, M_OPER) == OP_FREE ? -bytes : bytes,
			.total = -1,
			.addr = (uint64_t)sqlite3_column_int64(st, M_ADDR),
			.device = kind == KIND_PAGEABLE || kind == KIND_PINNED ?
				tc_nsys_cpu_device(r, pid) :
				tc_nsys_gpu_device(r, sqlite3_column_int64(st, M_DEVICE)),
			.track = TC_NONE, .op = TC_NONE, .shape = TC_NONE, .dtype = TC_NONE,
		};
		if (sqlite3_column_type(st, M_CORR) != SQLITE_NULL) {
			link_call(r, &ix, pid, sqlite3_column_int64(st, M_CORR), &a);
		}
		tc_model_add_alloc(r->m, &a);
		ok = !r->err->code;
	}
	tc_corr_index_finish(&ix);
	sqlite3_finalize(st);
	return ok && tc_nsys_step_done(r, rc);
}

bool tc_nsys_read_memory(struct nsys_reader *r) {
	static const char *const cols[] = { "start", "globalPid", "deviceId", "address", "bytes",
		"memKind", "memoryOperationType", "correlationId" };
	char sql[512];
	if (!tc_nsys_select(r, "CUDA_GPU_MEMORY_USAGE_EVENTS", cols, sizeof(cols) / sizeof(cols[0]),
			7, NULL, sql, sizeof(sql))) {
		return !r->err->code;
	}
	return read_rows(r, sql);
}
