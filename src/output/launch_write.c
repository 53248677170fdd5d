/* `ops --by launcher` output: one row per framework op, shapes and dtypes. */
#include <string.h>
#include "model/findings.h"
#include "output/fmt.h"
#include "output/jsonw.h"
#include "output/launch_write.h"
#include "output/table.h"

static const char *S(const struct tc_model *m, uint32_t id) {
	return id ? tc_model_str(m, id) : "";
}

const char *tc_launch_dtypes(char *out, size_t cap, const char *s) {
	size_t len = 0;
	out[0] = 0;
	while (s && *s) {
		const char *q = strchr(s, '"');
		const char *e = q ? strchr(q + 1, '"') : NULL;
		if (!e) {
			break;
		}
		const char *b = q + 1;
		size_t n = (size_t)(e - b);
		s = e + 1;
		if (n > 5 && memcmp(b, "c10::", 5) == 0) {
			b += 5;
			n -= 5;
		}
		if (!n || (n >= 6 && memcmp(b, "Scalar", 6) == 0) ||
				(n == 10 && memcmp(b, "TensorList", 10) == 0)) {
			continue;
		}
		bool dup = false;
		for (const char *p = out; *p;) {
			const char *slash = strchr(p, '/');
			size_t l = slash ? (size_t)(slash - p) : strlen(p);
			dup |= l == n && memcmp(p, b, n) == 0;
			p += l + (slash != NULL);
		}
		if (dup || len + n + 2 > cap) {
			continue;
		}
		if (len) {
			out[len++] = '/';
		}
		memcpy(out + len, b, n);
		len += n;
		out[len] = 0;
	}
	return len ? out : "-";
}

static void peaks_line(FILE *f, const struct tc_launch_table *t) {
	char b[2][TC_FMT_LEN];
	if (t->ridge > 0) {
		fprintf(f, "roofline   peaks %s, %s (%s); ridge point %.1f FLOP/B\n",
			tc_fmt_rate(b[0], t->peak_flops, "FLOP/s"), tc_fmt_rate(b[1], t->peak_bw, "B/s"),
			t->peak_source, t->ridge);
	} else {
		fprintf(f, "roofline   device peaks unknown (--peak-flops, --peak-bw): %s; "
			"%% of peak unknown\n", t->class_source);
	}
}

void tc_write_launchers_text(FILE *f, const struct tc_model *m, const struct tc_launch_table *t,
		size_t top) {
	char b[8][TC_FMT_LEN];
	size_t n = top && top < t->n ? top : t->n;
	fprintf(f, "ops by launcher: %s of %s by kernel time; %s of %s device events (%s of %s) "
		"linked to a framework op", tc_fmt_count(b[0], n),
		tc_fmt_noun(b[1], t->n, "row", "rows"), tc_fmt_count(b[2], t->linked),
		tc_fmt_count(b[3], t->device_events), tc_fmt_dur(b[4], t->linked_ps),
		tc_fmt_dur(b[5], t->device_ps));
	if (t->linked_hlo) {
		fprintf(f, ", %s to their XLA or TF op", tc_fmt_count(b[6], t->linked_hlo));
	}
	fputc('\n', f);
	peaks_line(f, t);
	if (t->device_events && !t->linked && !t->linked_hlo) {
		/* A GPU-only capture: kernels hang off runtime calls alone, so
		 * no op gives the shapes FLOPs and bytes come from. */
		fprintf(f, "note       no device event has a launching framework op (a GPU-only "
			"capture?): FLOPs, bytes and class need the ops' input shapes; "
			"`ops --by category` gives kernel time by category\n");
	}
	if (!n) {
		return;
	}
	static const char *const h[] = {
		"op", "input dims", "dtype", ">calls", ">kernels", ">kernel time", ">FLOP/call",
		">FLOP/s", ">B/s", ">% peak", "class",
	};
	struct tc_table tb;
	tc_table_init(&tb, 11, h);
	/* Under a width limit: the op name shrinks, then the figures go, the
	 * shapes last of them. */
	static const unsigned drop[11] = { 0, 1, 2, 0, 3, 0, 4, 0, 5, 6, 0 };
	tc_table_elastic(&tb, 0);
	for (size_t c = 0; c < 11; c++) {
		tc_table_optional(&tb, c, drop[c]);
	}
	char dt[128];
	for (size_t i = 0; i < n; i++) {
		const struct tc_launch_row *r = &t->rows[i];
		tc_table_cell(&tb, S(m, r->name));
		tc_table_cell(&tb, r->dims ? S(m, r->dims) : "-");
		tc_table_cell(&tb, tc_launch_dtypes(dt, sizeof(dt), r->types ? S(m, r->types) : NULL));
		tc_table_cell(&tb, tc_fmt_count(b[0], r->calls));
		tc_table_cell(&tb, tc_fmt_count(b[1], r->kernels));
		tc_table_cell(&tb, tc_fmt_dur(b[2], r->kernel_ps));
		tc_table_cell(&tb, r->flops_call >= 0 ? tc_fmt_rate(b[3], (double)r->flops_call, "") :
			"-");
		tc_table_cell(&tb, r->flop_rate >= 0 ? tc_fmt_rate(b[4], r->flop_rate, "FLOP/s") : "-");
		tc_table_cell(&tb, r->byte_rate >= 0 ? tc_fmt_rate(b[5], r->byte_rate, "B/s") : "-");
		if (r->peak_fraction >= 0) {
			/* two digits under 1 %: tiny kernels still compare */
			tc_table_cellf(&tb, r->peak_fraction < 0.01 ? "%.2g %% %s" : "%.1f %% %s",
				100 * r->peak_fraction,
				strcmp(r->peak_roof, "bandwidth") == 0 ? "bw" : r->peak_roof);
		} else {
			tc_table_cell(&tb, "-");
		}
		tc_table_cell(&tb, tc_bound_name((enum tc_bound)r->bound));
	}
	tc_table_print(&tb, f, "  ");
	tc_table_finish(&tb);
}

static void kv_opt_double(struct tc_jw *w, const char *k, double v) {
	tc_jw_key(w, k);
	if (v >= 0) {
		tc_jw_double(w, v);
	} else {
		tc_jw_null(w);
	}
}

static void kv_text(struct tc_jw *w, const char *k, const char *v) {
	tc_jw_key(w, k);
	if (v) {
		tc_jw_str(w, v);
	} else {
		tc_jw_null(w);
	}
}

static void kv_opt_str(struct tc_jw *w, const char *k, const struct tc_model *m, uint32_t id) {
	tc_jw_key(w, k);
	if (id) {
		tc_jw_str(w, tc_model_str(m, id));
	} else {
		tc_jw_null(w);
	}
}

void tc_write_launchers_json(FILE *f, const struct tc_model *m, const struct tc_launch_table *t,
		size_t top) {
	size_t n = top && top < t->n ? top : t->n;
	struct tc_jw w;
	tc_jw_init(&w, f, true);
	tc_jw_obj_begin(&w);
	tc_jw_kv_str(&w, "schema", TC_LAUNCHERS_SCHEMA);
	tc_jw_kv_uint(&w, "device_events", t->device_events);
	tc_jw_kv_uint(&w, "linked", t->linked);
	tc_jw_kv_uint(&w, "linked_hlo", t->linked_hlo);
	tc_jw_kv_int(&w, "device_ps", t->device_ps);
	tc_jw_kv_int(&w, "linked_ps", t->linked_ps);
	kv_opt_double(&w, "peak_flops_per_s", t->ridge > 0 ? t->peak_flops : -1);
	kv_opt_double(&w, "peak_bytes_per_s", t->ridge > 0 ? t->peak_bw : -1);
	kv_opt_double(&w, "ridge_flops_per_byte", t->ridge > 0 ? t->ridge : -1);
	kv_text(&w, "peak_source", t->ridge > 0 ? t->peak_source : NULL);
	kv_text(&w, "class_source", t->class_source);
	tc_jw_kv_uint(&w, "rows_total", t->n);
	tc_jw_key(&w, "rows");
	tc_jw_arr_begin(&w);
	for (size_t i = 0; i < n; i++) {
		const struct tc_launch_row *r = &t->rows[i];
		tc_jw_obj_begin(&w);
		tc_jw_kv_str(&w, "name", S(m, r->name));
		tc_jw_kv_str(&w, "via", r->via);
		kv_opt_str(&w, "input_dims", m, r->dims);
		kv_opt_str(&w, "input_types", m, r->types);
		kv_opt_str(&w, "outermost", m, r->outer);
		kv_opt_str(&w, "scope", m, r->scope);
		tc_jw_kv_bool(&w, "nested", r->nested);
		tc_jw_key(&w, "cost_model");
		if (r->cls) {
			tc_jw_str(&w, r->cls);
		} else {
			tc_jw_null(&w);
		}
		kv_text(&w, "flops_from", r->flops_from);
		tc_jw_kv_uint(&w, "calls", r->calls);
		tc_jw_kv_uint(&w, "kernels", r->kernels);
		tc_jw_kv_int(&w, "kernel_ps", r->kernel_ps);
		kv_opt_double(&w, "flops_per_call", r->flops_call >= 0 ? (double)r->flops_call : -1);
		kv_opt_double(&w, "bytes_per_call", r->bytes_call >= 0 ? (double)r->bytes_call : -1);
		kv_opt_double(&w, "flops", r->flops);
		kv_opt_double(&w, "bytes", r->bytes);
		kv_opt_double(&w, "flops_per_s", r->flop_rate);
		kv_opt_double(&w, "flops_per_s_call_mean", r->flop_rate_call_mean);
		kv_opt_double(&w, "bytes_per_s", r->byte_rate);
		kv_opt_double(&w, "flops_per_byte", r->intensity);
		kv_opt_double(&w, "peak_fraction", r->peak_fraction);
		kv_text(&w, "peak_of", r->peak_roof);
		tc_jw_kv_str(&w, "class", tc_bound_name((enum tc_bound)r->bound));
		kv_text(&w, "class_on_every_part", r->bound_dtype);
		tc_jw_obj_end(&w);
	}
	tc_jw_arr_end(&w);
	tc_jw_obj_end(&w);
	tc_jw_end(&w);
}
