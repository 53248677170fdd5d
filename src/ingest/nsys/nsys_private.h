#ifndef TC_INGEST_NSYS_PRIVATE_H
#define TC_INGEST_NSYS_PRIVATE_H

/*
 * The Nsight Systems SQLite reader's shared state (nsys export --type
 * sqlite). nsys_read.c opens the database and learns its schema;
 * entities.c maps processes, threads, GPUs and streams onto devices and
 * tracks; activity.c reads the event tables.
 *
 * Versions differ in which tables and columns exist (2022.2 to 2025.5 read
 * here), so every query is built from what sqlite_master and
 * pragma_table_info say is present, never from a version number.
 */

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include "ingest/ingest.h"
#include "util/corr.h"

/* globalPid / globalTid: PID in bits 24-47, TID in bits 0-23. */
#define NSYS_PID(g) ((int64_t)(((uint64_t)(g) >> 24) & 0xFFFFFF))
#define NSYS_TID(g) ((int64_t)((uint64_t)(g) & 0xFFFFFF))

/* u64 -> u32 map, open addressing (key + 1 stored: 0 is a free slot's). */
struct nsys_map {
	uint64_t *keys;
	uint32_t *vals;
	size_t n, cap;
};

uint32_t tc_nsys_map_get(const struct nsys_map *m, uint64_t key);
void tc_nsys_map_put(struct nsys_map *m, uint64_t key, uint32_t val);
void tc_nsys_map_finish(struct nsys_map *m);

/* One TARGET_INFO_GPU row; id is the CUDA device (cuDevice). */
struct nsys_gpu {
	int64_t id;
	uint32_t name;
	int64_t mem, bw, clock, sms, major, minor;
	bool has_major, has_minor;
};

struct nsys_reader {
	struct tc_model *m;
	const struct tc_limits *lim;
	struct tc_error *err;
	sqlite3 *db;
	uint32_t source;
	uint32_t host;
	sqlite3_stmt *str_stmt;  /* SELECT value FROM StringIds WHERE id = ? */
	struct nsys_map strs;    /* StringIds id -> interned id */
	struct nsys_map procs;   /* pid -> CPU device */
	struct nsys_map threads; /* globalTid (+ a track flavour in bits 56-63) -> track */
	struct nsys_map gpus;    /* activity deviceId -> GPU device */
	struct nsys_map streams; /* (deviceId, pid, streamId) -> track */
	struct nsys_map ops;     /* (table, name id) -> op */
	struct nsys_map pnames;  /* pid -> PROCESSES.name (interned) */
	struct nsys_map tnames;  /* globalTid -> ThreadNames name (interned) */
	/* Runtime calls and device work by (pid << 32 | correlationId). */
	struct tc_corr *host_corr, *dev_corr;
	size_t n_host_corr, cap_host_corr, n_dev_corr, cap_dev_corr;
	struct nsys_gpu *gpu_info;
	size_t n_gpu_info, cap_gpu_info;
	uint64_t rows;           /* rows read, for the event-cap check */
	uint64_t n_no_end;       /* NVTX ranges without an end */
	uint64_t n_bad_time;     /* timestamps out of range */
	uint64_t n_cut;          /* strings cut at --max-string */
	uint64_t n_bad_bytes;    /* memory records over MAX_BYTES */
	/* Arg keys the reader writes beyond the model's own. */
	uint32_t k_grid, k_block, k_regs, k_shmem, k_device, k_context, k_graph_node, k_domain;
};

/* Whether table exists (a table, not a view) / has column. */
bool tc_nsys_has_table(struct nsys_reader *r, const char *table);
bool tc_nsys_has_column(struct nsys_reader *r, const char *table, const char *column);

/* Prepare sql; false with err set (exit 3) on failure. */
bool tc_nsys_prepare(struct nsys_reader *r, const char *sql, sqlite3_stmt **st);
/* After sqlite3_step returned rc: true at SQLITE_DONE, else err set. */
bool tc_nsys_step_done(struct nsys_reader *r, int rc);
/* err from the database's last error (exit 3). */
bool tc_nsys_fail(struct nsys_reader *r, const char *what);

/* A StringIds id as an interned string (an unknown id: ""; a read error
 * sets err, which the table loops check after each row). */
uint32_t tc_nsys_string(struct nsys_reader *r, int64_t id);
/* A text column (or NULL) interned, cut at --max-string. */
uint32_t tc_nsys_text(struct nsys_reader *r, sqlite3_stmt *st, int col);
/* ns as stored -> ps; false (counted) when out of range. */
bool tc_nsys_ps(struct nsys_reader *r, int64_t ns, int64_t *ps);
/* Every 64 Ki rows: false with err set once the event cap is passed. */
bool tc_nsys_row(struct nsys_reader *r);

/* entities.c */
bool tc_nsys_read_names(struct nsys_reader *r);
uint32_t tc_nsys_cpu_device(struct nsys_reader *r, int64_t pid);
/* flavour: 0 the thread's own track, 1 its OS runtime calls, 2 its NVTX
 * start/end ranges (which need not nest). */
uint32_t tc_nsys_thread_track(struct nsys_reader *r, int64_t global_tid, unsigned flavour);
uint32_t tc_nsys_gpu_device(struct nsys_reader *r, int64_t device_id);
uint32_t tc_nsys_stream_track(struct nsys_reader *r, int64_t device_id, int64_t pid,
	int64_t stream_id);
/* TARGET_INFO_GPU, read before the activity; a GPU device takes its row's
 * properties when the activity first names it. */
bool tc_nsys_read_gpus(struct nsys_reader *r);
const struct nsys_gpu *tc_nsys_gpu_info(const struct nsys_reader *r, int64_t device_id);

/* activity.c */
/*
 * "SELECT a, b, ... FROM t" with NULL in place of each column t lacks, so
 * a reader's column numbers are fixed whatever the version. False (err
 * unset) when t lacks a required column (the first n_required), as when
 * t is absent.
 */
bool tc_nsys_select(struct nsys_reader *r, const char *t, const char *const *cols, size_t n,
	size_t n_required, const char *where, char *sql, size_t cap);
bool tc_nsys_read_activity(struct nsys_reader *r);

/* gpu_memory.c: CUDA_GPU_MEMORY_USAGE_EVENTS as allocator records; after
 * the activity (the API calls the records link to). */
bool tc_nsys_read_memory(struct nsys_reader *r);

#endif
