/*
 * Nsight Systems SQLite reader (nsys export --type sqlite): entry point,
 * sniffing, opening the database read-only and immutable, the schema
 * probes and the helpers the table readers share.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ingest/nsys/nsys_private.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* ---- u64 -> u32 map ---- */

static size_t map_slot(uint64_t k, size_t mask) {
	uint64_t h = k * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 31)) & mask;
}

uint32_t tc_nsys_map_get(const struct nsys_map *m, uint64_t key) {
	if (!m->cap) {
		return TC_NONE;
	}
	for (size_t i = map_slot(key, m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == 0) {
			return TC_NONE;
		}
		if (m->keys[i] == key + 1) {
			return m->vals[i];
		}
	}
}

void tc_nsys_map_put(struct nsys_map *m, uint64_t key, uint32_t val) {
	if (2 * (m->n + 1) > m->cap) {
		struct nsys_map g = { .cap = m->cap ? 2 * m->cap : 64 };
		g.keys = tc_xcalloc(g.cap, sizeof(*g.keys));
		g.vals = tc_xcalloc(g.cap, sizeof(*g.vals));
		for (size_t i = 0; i < m->cap; i++) {
			if (m->keys[i]) {
				tc_nsys_map_put(&g, m->keys[i] - 1, m->vals[i]);
			}
		}
		tc_nsys_map_finish(m);
		*m = g;
	}
	/* key + 1 wraps only for UINT64_MAX, which no id reaches. */
	for (size_t i = map_slot(key, m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key + 1 || m->keys[i] == 0) {
			m->n += m->keys[i] == 0;
			m->keys[i] = key + 1;
			m->vals[i] = val;
			return;
		}
	}
}

void tc_nsys_map_finish(struct nsys_map *m) {
	free(m->keys);
	free(m->vals);
	*m = (struct nsys_map){ 0 };
}

/* ---- database helpers ---- */

bool tc_nsys_fail(struct nsys_reader *r, const char *what) {
	/* A damaged file's detail (which schema entry, which page) can differ
	 * between two reads of the same bytes in one process: for those codes
	 * the code's own text, so an input always fails the same way. */
	int code = r->db ? sqlite3_errcode(r->db) & 0xff : SQLITE_NOMEM;
	const char *why = !r->db ? "out of memory" :
		code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? sqlite3_errstr(code) :
		sqlite3_errmsg(r->db);
	tc_error_set(r->err, TC_EXIT_INPUT, "nsys: cannot read %s: %s", what, why);
	return false;
}

bool tc_nsys_prepare(struct nsys_reader *r, const char *sql, sqlite3_stmt **st) {
	*st = NULL;
	if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return tc_nsys_fail(r, "the database");
	}
	return true;
}

bool tc_nsys_step_done(struct nsys_reader *r, int rc) {
	return rc == SQLITE_DONE || tc_nsys_fail(r, "the database");
}

bool tc_nsys_has_table(struct nsys_reader *r, const char *table) {
	sqlite3_stmt *st;
	if (!tc_nsys_prepare(r, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
			&st)) {
		return false;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

bool tc_nsys_has_column(struct nsys_reader *r, const char *table, const char *column) {
	sqlite3_stmt *st;
	if (!tc_nsys_prepare(r, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", &st)) {
		return false;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static uint32_t intern_cut(struct nsys_reader *r, const unsigned char *s, size_t n) {
	if (!s) {
		return tc_model_intern(r->m, "");
	}
	if (n > r->lim->max_string) {
		n = tc_utf8_cut(s, n, r->lim->max_string);
		r->n_cut++;
	}
	return tc_model_intern_n(r->m, (const char *)s, n);
}

uint32_t tc_nsys_text(struct nsys_reader *r, sqlite3_stmt *st, int col) {
	const unsigned char *s = sqlite3_column_text(st, col);
	return intern_cut(r, s, s ? (size_t)sqlite3_column_bytes(st, col) : 0);
}

/* Each id is looked up once (StringIds.id is the rowid) and kept. */
uint32_t tc_nsys_string(struct nsys_reader *r, int64_t id) {
	uint32_t s = tc_nsys_map_get(&r->strs, (uint64_t)id);
	if (s != TC_NONE) {
		return s;
	}
	s = 0;
	if (r->str_stmt) {
		sqlite3_reset(r->str_stmt);
		sqlite3_bind_int64(r->str_stmt, 1, id);
		int rc = sqlite3_step(r->str_stmt);
		if (rc == SQLITE_ROW) {
			s = tc_nsys_text(r, r->str_stmt, 0);
		} else if (rc != SQLITE_DONE) {
			/* A damaged StringIds page: never names read as empty. */
			tc_nsys_fail(r, "the database");
		}
	}
	tc_nsys_map_put(&r->strs, (uint64_t)id, s);
	return s;
}

bool tc_nsys_ps(struct nsys_reader *r, int64_t ns, int64_t *ps) {
	if (ns > INT64_MAX / 1000 || ns < INT64_MIN / 1000) {
		r->n_bad_time++;
		return false;
	}
	*ps = ns * 1000;
	return true;
}

bool tc_nsys_row(struct nsys_reader *r) {
	return (++r->rows & 0xFFFF) != 0 || !tc_ingest_over_limit(r->m, r->lim, r->err);
}

/* ---- opening ---- */

static const char sqlite_magic[16] = "SQLite format 3";

/* The tables only an nsys export has; page 1 usually names some of them. */
static const char *const nsys_tables[] = {
	"StringIds", "CUPTI_ACTIVITY_KIND_", "NVTX_EVENTS", "TARGET_INFO_", NULL,
};

static int sniff(const uint8_t *head, size_t len) {
	if (len < sizeof(sqlite_magic) || memcmp(head, sqlite_magic, sizeof(sqlite_magic)) != 0) {
		return 0;
	}
	/* Any SQLite database comes here, so that one that is not an export
	 * is told so rather than "unrecognised format". */
	for (size_t t = 0; nsys_tables[t]; t++) {
		size_t k = strlen(nsys_tables[t]);
		for (size_t i = 0; i + k <= len; i++) {
			if (head[i] == (uint8_t)nsys_tables[t][0] && memcmp(head + i, nsys_tables[t], k) == 0) {
				return 100;
			}
		}
	}
	return 90;
}

/* "file:PATH?immutable=1" with the URI's own characters escaped. */
static char *uri_of(const char *path) {
	size_t n = strlen(path);
	char *u = tc_xmalloc(3 * n + 32);
	char *p = u;
	p += sprintf(p, path[0] == '/' ? "file://" : "file:");
	for (const char *s = path; *s; s++) {
		if (*s == '%' || *s == '?' || *s == '#') {
			p += sprintf(p, "%%%02x", (unsigned char)*s);
		} else {
			*p++ = *s;
		}
	}
	strcpy(p, "?immutable=1");
	return u;
}

/*
 * A plain regular file is opened by name, read-only and immutable: SQLite
 * then takes no lock and writes no journal, WAL or shm file beside it.
 * Anything else (compressed, a pipe, memory) is read whole and handed to
 * SQLite as a read-only in-memory image.
 */
static bool open_db(struct nsys_reader *r, struct tc_input *in) {
	struct stat st;
	bool plain = in->comp == TC_COMP_NONE && (in->dev || in->ino) &&
		strcmp(in->path, "-") != 0 && stat(in->path, &st) == 0 && S_ISREG(st.st_mode) &&
		(uint64_t)st.st_dev == in->dev && (uint64_t)st.st_ino == in->ino;
	if (plain) {
		char *uri = uri_of(in->path);
		int rc = sqlite3_open_v2(uri, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
		free(uri);
		if (rc != SQLITE_OK) {
			return tc_nsys_fail(r, "the database");
		}
		r->m->sources[r->source].data_size = (uint64_t)st.st_size;
		return true;
	}
	const uint8_t *data;
	size_t size;
	if (!tc_input_map(in, &data, &size, r->err)) {
		return false;
	}
	if (sqlite3_open_v2(":memory:", &r->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		return tc_nsys_fail(r, "the database");
	}
	/* READONLY: SQLite never writes to (or frees) the image. */
	if (sqlite3_deserialize(r->db, "main", (unsigned char *)(uintptr_t)data,
			(sqlite3_int64)size, (sqlite3_int64)size, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
		return tc_nsys_fail(r, "the database");
	}
	return true;
}

/* An export has StringIds and at least one table of events. */
static bool check_export(struct nsys_reader *r) {
	sqlite3_stmt *st;
	/* Reading the schema is the first read of the file: a damaged or
	 * foreign file fails here. */
	if (!tc_nsys_prepare(r, "SELECT count(*) FROM sqlite_master", &st)) {
		return false;
	}
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		return tc_nsys_fail(r, "the database");
	}
	if (!tc_nsys_has_table(r, "StringIds")) {
		if (r->err->code) {
			return false;
		}
		tc_error_set(r->err, TC_EXIT_INPUT, "nsys: a SQLite database but not an Nsight Systems "
			"export (no StringIds table)");
		return false;
	}
	static const char *const activity[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
		"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "NVTX_EVENTS", "OSRT_API",
		NULL,
	};
	for (size_t i = 0; activity[i]; i++) {
		if (tc_nsys_has_table(r, activity[i])) {
			return true;
		}
	}
	if (!r->err->code) {
		tc_error_set(r->err, TC_EXIT_INPUT, "nsys: export holds no activity table "
			"(no CUDA, NVTX or OS runtime events)");
	}
	return false;
}

static void set_origin(struct nsys_reader *r) {
	/* Timestamps are ns from the session's start, whose Unix time
	 * TARGET_INFO_SESSION_START_TIME.utcEpochNs holds. */
	sqlite3_stmt *st;
	if (!tc_nsys_has_column(r, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs") ||
			!tc_nsys_prepare(r, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", &st)) {
		tc_error_init(r->err);
		return;
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		int64_t o = sqlite3_column_int64(st, 0);
		if (o > 0) {
			r->m->origin_ns = o;
			r->m->origin_epoch = true;
		}
	}
	sqlite3_finalize(st);
}

/* The export's nsys version, from META_DATA_EXPORT (2023.3 on) or
 * EXPORT_META_DATA (2022.1 to 2023.2); older exports have neither. */
static void set_writer(struct nsys_reader *r) {
	static const char *const tables[] = { "META_DATA_EXPORT", "EXPORT_META_DATA" };
	for (size_t i = 0; i < 2; i++) {
		sqlite3_stmt *st;
		char sql[128];
		if (!tc_nsys_has_column(r, tables[i], "name") ||
				!tc_nsys_has_column(r, tables[i], "value")) {
			continue;
		}
		snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE name = "
			"'EXPORT_PRODUCT_VERSION'", tables[i]);
		if (!tc_nsys_prepare(r, sql, &st)) {
			break;
		}
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
			char buf[128];
			snprintf(buf, sizeof(buf), "Nsight Systems %.100s",
				(const char *)sqlite3_column_text(st, 0));
			r->m->sources[r->source].writer = tc_model_intern(r->m, buf);
		}
		sqlite3_finalize(st);
		break;
	}
	tc_error_init(r->err);
}

static void warn(struct nsys_reader *r) {
	if (r->n_no_end) {
		tc_model_warn(r->m, r->n_no_end, "nsys: skipped NVTX ranges without an end");
	}
	if (r->n_bad_time) {
		tc_model_warn(r->m, r->n_bad_time, "nsys: skipped events with timestamps out of range");
	}
	if (r->n_bad_bytes) {
		tc_model_warn(r->m, r->n_bad_bytes, "nsys: skipped memory records over 1 TiB");
	}
	if (r->n_cut) {
		tc_model_warn(r->m, r->n_cut, "nsys: cut strings longer than --max-string");
	}
}

static void reader_finish(struct nsys_reader *r) {
	sqlite3_finalize(r->str_stmt);
	sqlite3_close(r->db);
	struct nsys_map *maps[] = { &r->strs, &r->procs, &r->threads, &r->gpus, &r->streams,
		&r->ops, &r->pnames, &r->tnames };
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		tc_nsys_map_finish(maps[i]);
	}
	free(r->host_corr);
	free(r->dev_corr);
	free(r->gpu_info);
}

static void link_correlations(struct nsys_reader *r) {
	if (!r->n_host_corr || !r->n_dev_corr) {
		return;
	}
	struct tc_corr_index ix;
	tc_corr_index_init(&ix, r->host_corr, r->n_host_corr);
	for (size_t i = 0; i < r->n_dev_corr; i++) {
		uint32_t host = tc_corr_index_find(&ix, r->dev_corr[i].id);
		if (host != TC_NONE) {
			tc_model_add_flow(r->m, host, r->dev_corr[i].ev, TC_FLOW_LAUNCH,
				r->dev_corr[i].id & 0xFFFFFFFFu);
		}
	}
	tc_corr_index_finish(&ix);
}

static bool read_nsys(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err) {
	struct nsys_reader r = { .m = m, .lim = lim, .err = err, .source = source };
	bool ok = open_db(&r, in) && check_export(&r) &&
		tc_nsys_prepare(&r, "SELECT value FROM StringIds WHERE id = ?", &r.str_stmt);
	if (ok) {
		set_origin(&r);
		set_writer(&r);
		r.host = tc_model_add_host(m, tc_ingest_host_from_path(m, in->path), source);
		r.k_grid = tc_model_intern(m, "grid");
		r.k_block = tc_model_intern(m, "block");
		r.k_regs = tc_model_intern(m, "registers per thread");
		r.k_shmem = tc_model_intern(m, "shared memory");
		r.k_device = tc_model_intern(m, "device");
		r.k_context = tc_model_intern(m, "context");
		r.k_graph_node = tc_model_intern(m, "graph node");
		r.k_domain = tc_model_intern(m, "domain");
		ok = tc_nsys_read_names(&r) && tc_nsys_read_gpus(&r) && tc_nsys_read_activity(&r) &&
			tc_nsys_read_memory(&r);
	}
	if (ok) {
		link_correlations(&r);
		warn(&r);
	}
	reader_finish(&r);
	return ok;
}

const struct tc_reader tc_reader_nsys = {
	.name = "nsys",
	.description = "Nsight Systems SQLite",
	.sniff = sniff,
	.read = read_nsys,
};
