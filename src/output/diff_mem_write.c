/*
 * `tracectl diff`'s memory by op, text and JSON: each allocator's peak on
 * both sides, and the ops whose memory changed most, largest growth first,
 * so the diff says which op's memory grew.
 */
#include <stdio.h>
#include <stdlib.h>
#include "output/diff_write.h"
#include "output/fmt.h"
#include "output/jsonw.h"
#include "output/table.h"

static const struct tc_diff_mem_op none;

static const struct tc_diff_mem_op *side(const struct tc_diff_mem_op *x) {
	return x ? x : &none;
}

/* "+32.00 MiB", "-1.50 KiB", "0 B". */
static const char *change(char *buf, int64_t base, int64_t test) {
	char tmp[TC_FMT_LEN];
	int64_t v = test - base;
	tc_fmt_bytes(tmp, (double)v);
	snprintf(buf, TC_FMT_LEN, "%s%.*s", v > 0 ? "+" : "", TC_FMT_LEN - 2, tmp);
	return buf;
}

static bool changed(const struct tc_diff_mem_op_row *r) {
	const struct tc_diff_mem_op *b = side(r->base), *t = side(r->test);
	return b->held != t->held || b->alloc_bytes != t->alloc_bytes || b->allocs != t->allocs;
}

static void text_peaks(FILE *f, const struct tc_diff *d) {
	char x[3][TC_FMT_LEN];
	fprintf(f, "\nmemory peaks (allocator records)\n");
	static const char *const hdr[] = { "  allocator", ">base", ">test", ">change" };
	struct tc_table tb;
	tc_table_init(&tb, 4, hdr);
	tc_table_elastic(&tb, 0);
	for (size_t i = 0; i < d->n_mem_peaks; i++) {
		const struct tc_diff_mem_row *r = &d->mem_peaks[i];
		tc_table_cellf(&tb, "  %s", r->label);
		tc_table_cell(&tb, r->base_bytes >= 0 ? tc_fmt_bytes(x[0], r->base_bytes) : "-");
		tc_table_cell(&tb, r->test_bytes >= 0 ? tc_fmt_bytes(x[1], r->test_bytes) : "-");
		tc_table_cell(&tb, r->base_bytes >= 0 && r->test_bytes >= 0 ?
			change(x[2], (int64_t)r->base_bytes, (int64_t)r->test_bytes) : "-");
	}
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
}

void tc_write_diff_mem_text(FILE *f, const struct tc_diff *d, size_t top) {
	if (!d->n_mem_peaks && !d->n_mem_ops) {
		return;
	}
	text_peaks(f, d);
	size_t n = 0;
	for (size_t i = 0; i < d->n_mem_ops; i++) {
		n += changed(&d->mem_ops[i]);
	}
	char x[6][TC_FMT_LEN];
	fprintf(f, "\nmemory by op (held at the allocator's peak; allocated by the op itself, whole "
		"trace), by growth");
	if (!n) {
		fprintf(f, ": no op's memory changed (%s)\n", tc_fmt_noun(x[0], d->n_mem_ops, "op",
			"ops"));
		return;
	}
	if (top && n > top) {
		fprintf(f, ", top %s of %s changed", tc_fmt_count(x[0], top), tc_fmt_count(x[1], n));
	}
	fputc('\n', f);
	static const char *const hdr[] = { "  device", "op", ">held base", ">test", ">change",
		">allocated base", ">test", ">change" };
	struct tc_table tb;
	tc_table_init(&tb, 8, hdr);
	tc_table_elastic(&tb, 1);
	for (size_t i = 0, shown = 0; i < d->n_mem_ops && (!top || shown < top); i++) {
		const struct tc_diff_mem_op_row *r = &d->mem_ops[i];
		if (!changed(r)) {
			continue;
		}
		shown++;
		const struct tc_diff_mem_op *b = side(r->base), *t = side(r->test);
		const struct tc_diff_mem_op *k = r->base ? r->base : r->test;
		tc_table_cellf(&tb, "  %s", k->device);
		tc_table_cell(&tb, k->name);
		tc_table_cell(&tb, r->base ? tc_fmt_bytes(x[0], (double)b->held) : "-");
		tc_table_cell(&tb, r->test ? tc_fmt_bytes(x[1], (double)t->held) : "-");
		tc_table_cell(&tb, change(x[2], b->held, t->held));
		tc_table_cell(&tb, r->base ? tc_fmt_bytes(x[3], (double)b->alloc_bytes) : "-");
		tc_table_cell(&tb, r->test ? tc_fmt_bytes(x[4], (double)t->alloc_bytes) : "-");
		tc_table_cell(&tb, change(x[5], b->alloc_bytes, t->alloc_bytes));
	}
	tc_table_print(&tb, f, "");
	tc_table_finish(&tb);
}

/* {"base": b, "test": t, "change": t - b}, null for a side without it. */
static void triple(struct tc_jw *w, const char *key, bool has_b, int64_t b, bool has_t,
		int64_t t) {
	tc_jw_key(w, key);
	tc_jw_obj_begin(w);
	tc_jw_key(w, "base");
	has_b ? tc_jw_int(w, b) : tc_jw_null(w);
	tc_jw_key(w, "test");
	has_t ? tc_jw_int(w, t) : tc_jw_null(w);
	tc_jw_key(w, "change");
	has_b && has_t ? tc_jw_int(w, t - b) : tc_jw_null(w);
	tc_jw_obj_end(w);
}

void tc_write_diff_mem_json(struct tc_jw *w, const struct tc_diff *d) {
	tc_jw_key(w, "memory_peaks");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < d->n_mem_peaks; i++) {
		const struct tc_diff_mem_row *r = &d->mem_peaks[i];
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "allocator", r->label);
		triple(w, "peak_bytes", r->base_bytes >= 0, (int64_t)r->base_bytes,
			r->test_bytes >= 0, (int64_t)r->test_bytes);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_key(w, "memory_ops");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < d->n_mem_ops; i++) {
		const struct tc_diff_mem_op_row *r = &d->mem_ops[i];
		const struct tc_diff_mem_op *b = side(r->base), *t = side(r->test);
		const struct tc_diff_mem_op *k = r->base ? r->base : r->test;
		tc_jw_obj_begin(w);
		tc_jw_kv_str(w, "device", k->device);
		tc_jw_kv_str(w, "name", k->name);
		tc_jw_kv_str(w, "status", !r->base ? "added" : !r->test ? "removed" :
			changed(r) ? "changed" : "same");
		/* 0 on a side without the op, as the ops rows. */
		triple(w, "held_at_peak_bytes", true, b->held, true, t->held);
		triple(w, "allocation_bytes", true, b->alloc_bytes, true, t->alloc_bytes);
		triple(w, "allocations", true, (int64_t)b->allocs, true, (int64_t)t->allocs);
		triple(w, "calls", true, (int64_t)b->calls, true, (int64_t)t->calls);
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
}
