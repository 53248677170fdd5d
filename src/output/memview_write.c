/* `tracectl memory` output: who holds memory at each allocator's peak, and
 * the per-op memory table, as text and JSON (tracectl.memory/1). */
#include <inttypes.h>
#include "output/fmt.h"
#include "output/jsonw.h"
#include "output/memview_write.h"
#include "output/rank_write.h"
#include "output/table.h"
#include "util/term.h"

static const char *S(const struct tc_model *m, uint32_t id) {
	return tc_model_str(m, id);
}

/* An op name; what holds memory without one. */
static const char *holder_name(const struct tc_model *m, uint32_t name, bool before) {
	return before ? "(allocated before the trace)" : name == TC_NONE ? "(outside any op)" :
		S(m, name);
}

static const char *dev_label(char *buf, size_t n, const struct tc_model *m,
		const struct tc_mem_device *d) {
	return tc_write_device_label(buf, n, m, d->device);
}

static double share(int64_t part, int64_t whole) {
	return whole > 0 ? (double)part / (double)whole : 0;
}

static void text_device(FILE *f, const struct tc_model *m, const struct tc_mem_device *d,
		int64_t first) {
	char l[128], b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN];
	tc_term_fprintf(f, "\n%s%s%s\n", dev_label(l, sizeof(l), m, d), d->group ? " " : "",
		d->group ? S(m, d->group) : "");
	fprintf(f, "  peak      %s at %s", tc_fmt_bytes(b1, (double)d->peak_bytes),
		tc_fmt_dur(b2, d->peak_ps - first));
	if (d->total_at_peak >= 0) {
		fprintf(f, " (the trace's own total there: %s)",
			tc_fmt_bytes(b3, (double)d->total_at_peak));
	}
	char b4[TC_FMT_LEN], b5[TC_FMT_LEN];
	fprintf(f, "\n  records   %s, %s, %s paired; %s never freed, %s of buffers "
		"allocated before the trace\n",
		tc_fmt_noun(b1, d->allocs, "allocation", "allocations"),
		tc_fmt_noun(b2, d->frees, "free", "frees"), tc_fmt_count(b3, d->paired),
		tc_fmt_count(b4, d->never_freed), tc_fmt_noun(b5, d->before_start, "free", "frees"));
	fprintf(f, "  at start  %s live (%s), at the end %s\n",
		tc_fmt_bytes(b1, (double)d->baseline),
		d->baseline_total ? "from the trace's total" : "freed later without an allocation",
		tc_fmt_bytes(b2, (double)d->end_bytes));
	if (d->n_holders) {
		fprintf(f, "  live at the peak, by allocating op\n");
		static const char *const h[] = {
			"op", "scope", ">bytes", ">share", ">buffers", ">oldest",
		};
		struct tc_table t;
		tc_table_init(&t, 6, h);
		tc_table_elastic(&t, 0);
		tc_table_optional(&t, 1, 1);
		for (size_t i = 0; i < d->n_holders; i++) {
			const struct tc_mem_holder *ho = &d->holders[i];
			tc_table_cell(&t, holder_name(m, ho->name, ho->before_trace));
			tc_table_cell(&t, ho->scope == TC_NONE ? "-" : S(m, ho->scope));
			tc_table_cell(&t, tc_fmt_bytes(b1, (double)ho->bytes));
			tc_table_cell(&t, tc_fmt_pct(b1, (double)ho->bytes, (double)d->peak_bytes));
			tc_table_cell(&t, ho->before_trace ? "-" : tc_fmt_count(b1, ho->buffers));
			tc_table_cell(&t, ho->oldest_ps < 0 ? "-" : tc_fmt_dur(b1, ho->oldest_ps));
		}
		tc_table_print(&t, f, "    ");
		tc_table_finish(&t);
	}
	if (d->n_top) {
		fprintf(f, "  largest buffers live at the peak\n");
		static const char *const h[] = {
			"op", ">bytes", "shape", "dtype", ">age", ">freed after",
		};
		struct tc_table t;
		tc_table_init(&t, 6, h);
		tc_table_elastic(&t, 0);
		for (size_t i = 0; i < d->n_top; i++) {
			const struct tc_mem_buffer *bf = &d->top[i];
			tc_table_cell(&t, holder_name(m, bf->name, false));
			tc_table_cell(&t, tc_fmt_bytes(b1, (double)bf->bytes));
			tc_table_cell(&t, bf->shape == TC_NONE ? "-" : S(m, bf->shape));
			tc_table_cell(&t, bf->dtype == TC_NONE ? "-" : S(m, bf->dtype));
			tc_table_cell(&t, tc_fmt_dur(b1, d->peak_ps - bf->alloc_ps));
			tc_table_cell(&t, bf->free_ps == TC_MEM_NEVER ? "never" :
				tc_fmt_dur(b1, bf->free_ps - d->peak_ps));
		}
		tc_table_print(&t, f, "    ");
		tc_table_finish(&t);
	}
}

static void text_ops(FILE *f, const struct tc_model *m, const struct tc_mem_view *v) {
	char l[128], b[TC_FMT_LEN];
	static const char *const h[] = {
		"device", "op", ">self incr", ">self alloc", ">self n", ">incr", ">alloc", ">n",
		">calls",
	};
	fprintf(f, "\nby op (self: allocator records directly in the op; incr: allocated "
		"minus freed)\n");
	struct tc_table t;
	tc_table_init(&t, 9, h);
	tc_table_elastic(&t, 1);
	for (size_t i = 0; i < v->n_ops; i++) {
		const struct tc_mem_op *o = &v->ops[i];
		tc_table_cell(&t, tc_write_device_label(l, sizeof(l), m, o->device));
		tc_table_cell(&t, S(m, o->name));
		tc_table_cellf(&t, "%" PRId64, o->self_increase);
		tc_table_cellf(&t, "%" PRId64, o->self_alloc_bytes);
		tc_table_cell(&t, tc_fmt_count(b, o->self_allocs));
		tc_table_cellf(&t, "%" PRId64, o->increase);
		tc_table_cellf(&t, "%" PRId64, o->alloc_bytes);
		tc_table_cell(&t, tc_fmt_count(b, o->allocs));
		tc_table_cell(&t, tc_fmt_count(b, o->calls));
	}
	tc_table_print(&t, f, "  ");
	tc_table_finish(&t);
	fprintf(f, "  (bytes)\n");
}

void tc_write_memory_text(FILE *f, const struct tc_model *m, const struct tc_mem_view *v) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	if (!v->records) {
		fprintf(f, "memory     no allocator records (profile with profile_memory=True, "
			"an XProf memory profile, or nsys --cuda-memory-usage=true)\n");
		return;
	}
	int64_t first = v->first_ps;
	char b3[TC_FMT_LEN];
	fprintf(f, "memory     %s, %s attributed to an op, %s\n",
		tc_fmt_noun(b1, v->records, "allocator record", "allocator records"),
		tc_fmt_count(b2, v->attributed),
		tc_fmt_noun(b3, v->n_devs, "allocator", "allocators"));
	for (size_t i = 0; i < v->n_devs; i++) {
		text_device(f, m, &v->devs[i], first);
	}
	if (v->n_ops) {
		text_ops(f, m, v);
	}
}

static void json_str_or_null(struct tc_jw *w, const char *k, const struct tc_model *m,
	uint32_t id);

void tc_write_memory_line(FILE *f, const struct tc_model *m, const struct tc_mem_view *v,
		int64_t first) {
	const struct tc_mem_holder *h;
	const struct tc_mem_device *d = tc_mem_view_top(v, &h);
	if (!d) {
		return;
	}
	char l[128], b1[TC_FMT_LEN], b2[TC_FMT_LEN], b3[TC_FMT_LEN];
	tc_term_fprintf(f, "memory     peak %s on %s at %s", tc_fmt_bytes(b1, (double)d->peak_bytes),
		dev_label(l, sizeof(l), m, d), tc_fmt_dur(b2, d->peak_ps - first));
	if (h) {
		tc_term_fprintf(f, "; top holder %s%s%s %s (%s)", holder_name(m, h->name, false),
			h->scope != TC_NONE ? " in " : "", h->scope != TC_NONE ? S(m, h->scope) : "",
			tc_fmt_bytes(b1, (double)h->bytes),
			tc_fmt_pct(b3, (double)h->bytes, (double)d->peak_bytes));
	}
	fprintf(f, " (tracectl memory)\n");
}

void tc_write_memory_line_json(struct tc_jw *w, const struct tc_model *m,
		const struct tc_mem_view *v, int64_t first) {
	const struct tc_mem_holder *h;
	const struct tc_mem_device *d = tc_mem_view_top(v, &h);
	if (!d) {
		return;
	}
	tc_jw_key(w, "memory_peak");
	tc_jw_obj_begin(w);
	tc_jw_kv_str(w, "device", d->device < m->n_devices ? S(m, m->devices[d->device].name) : "host");
	json_str_or_null(w, "allocator", m, d->group ? d->group : TC_NONE);
	tc_jw_kv_int(w, "peak_bytes", d->peak_bytes);
	tc_jw_kv_int(w, "peak_ps", d->peak_ps - first);
	json_str_or_null(w, "top_op", m, h ? h->name : TC_NONE);
	json_str_or_null(w, "top_scope", m, h ? h->scope : TC_NONE);
	tc_jw_kv_int(w, "top_bytes", h ? h->bytes : 0);
	tc_jw_obj_end(w);
}

static void json_str_or_null(struct tc_jw *w, const char *k, const struct tc_model *m,
		uint32_t id) {
	tc_jw_key(w, k);
	if (id == TC_NONE) {
		tc_jw_null(w);
	} else {
		tc_jw_str(w, S(m, id));
	}
}

static void json_device(struct tc_jw *w, const struct tc_model *m, const struct tc_mem_device *d,
		int64_t first) {
	tc_jw_obj_begin(w);
	tc_jw_kv_str(w, "device", d->device < m->n_devices ? S(m, m->devices[d->device].name) : "host");
	tc_write_device_identity_json(w, m, d->device);
	json_str_or_null(w, "allocator", m, d->group ? d->group : TC_NONE);
	tc_jw_kv_uint(w, "records", d->records);
	tc_jw_kv_uint(w, "allocations", d->allocs);
	tc_jw_kv_uint(w, "frees", d->frees);
	tc_jw_kv_uint(w, "paired", d->paired);
	tc_jw_kv_uint(w, "never_freed", d->never_freed);
	tc_jw_kv_uint(w, "freed_allocated_before_start", d->before_start);
	tc_jw_kv_uint(w, "address_reused_without_free", d->reused);
	tc_jw_kv_int(w, "start_bytes", d->baseline);
	tc_jw_kv_str(w, "start_from", d->baseline_total ? "total" : "frees");
	tc_jw_kv_int(w, "peak_bytes", d->peak_bytes);
	tc_jw_kv_int(w, "peak_ps", d->peak_ps - first);
	tc_jw_key(w, "trace_total_at_peak");
	if (d->total_at_peak >= 0) {
		tc_jw_int(w, d->total_at_peak);
	} else {
		tc_jw_null(w);
	}
	tc_jw_kv_int(w, "end_bytes", d->end_bytes);
	tc_jw_key(w, "live_at_peak");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < d->n_holders; i++) {
		const struct tc_mem_holder *h = &d->holders[i];
		tc_jw_obj_begin(w);
		json_str_or_null(w, "op", m, h->name);
		json_str_or_null(w, "scope", m, h->scope);
		tc_jw_kv_bool(w, "before_trace", h->before_trace);
		tc_jw_kv_int(w, "bytes", h->bytes);
		tc_jw_kv_double(w, "share", share(h->bytes, d->peak_bytes));
		tc_jw_kv_uint(w, "buffers", h->buffers);
		if (h->oldest_ps >= 0) {
			tc_jw_kv_int(w, "oldest_age_ps", h->oldest_ps);
			tc_jw_kv_int(w, "newest_age_ps", h->newest_ps);
		}
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_key(w, "largest_buffers");
	tc_jw_arr_begin(w);
	for (size_t i = 0; i < d->n_top; i++) {
		const struct tc_mem_buffer *b = &d->top[i];
		tc_jw_obj_begin(w);
		json_str_or_null(w, "op", m, b->name);
		json_str_or_null(w, "scope", m, b->scope);
		tc_jw_kv_int(w, "bytes", b->bytes);
		tc_jw_kv_uint(w, "addr", b->addr);
		json_str_or_null(w, "shape", m, b->shape);
		json_str_or_null(w, "dtype", m, b->dtype);
		tc_jw_kv_int(w, "allocated_ps", b->alloc_ps - first);
		if (b->free_ps != TC_MEM_NEVER) {
			tc_jw_kv_int(w, "freed_ps", b->free_ps - first);
		} else {
			tc_jw_key(w, "freed_ps");
			tc_jw_null(w);
		}
		tc_jw_obj_end(w);
	}
	tc_jw_arr_end(w);
	tc_jw_obj_end(w);
}

void tc_write_memory_json(FILE *f, const struct tc_model *m, const struct tc_mem_view *v) {
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_MEMORY_SCHEMA);
	tc_jw_kv_uint(&w, "records", v->records);
	tc_jw_kv_uint(&w, "attributed", v->attributed);
	int64_t first = v->first_ps;
	tc_jw_key(&w, "allocators");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < v->n_devs; i++) {
		json_device(&w, m, &v->devs[i], first);
	}
	tc_jw_arr_end(&w);
	tc_jw_key(&w, "ops");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < v->n_ops; i++) {
		const struct tc_mem_op *o = &v->ops[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "device", o->device < m->n_devices ?
			S(m, m->devices[o->device].name) : "host");
		tc_write_device_identity_json(&w, m, o->device);
		tc_jw_kv_str(&w, "name", S(m, o->name));
		tc_jw_kv_int(&w, "self_increase_bytes", o->self_increase);
		tc_jw_kv_int(&w, "self_allocation_bytes", o->self_alloc_bytes);
		tc_jw_kv_uint(&w, "self_allocations", o->self_allocs);
		tc_jw_kv_int(&w, "increase_bytes", o->increase);
		tc_jw_kv_int(&w, "allocation_bytes", o->alloc_bytes);
		tc_jw_kv_uint(&w, "allocations", o->allocs);
		tc_jw_kv_uint(&w, "calls", o->calls);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}
