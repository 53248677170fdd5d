/* XPlane stats, stat and event metadata, plane devices. */
#include "ingest/xplane/xplane_private.h"


/* ---- metadata ---- */

bool tc_xplane_parse_stat_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, uint32_t *name_out) {
	struct tc_pb pb, vb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t key = 0;
	const uint8_t *name = NULL;
	size_t name_len = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == MAP_KEY && f.wt == TC_PB_VARINT) {
			key = (int64_t)f.u;
		} else if (f.num == MAP_VALUE && f.wt == TC_PB_LEN) {
			tc_pb_init(&vb, r->base, f.data, f.len);
			struct tc_pb_field g = { 0 };
			int rc2;
			while ((rc2 = tc_pb_next(&vb, &g)) > 0) {
				/* Look-ups go by the map key; the id inside is ignored. */
				if (g.num == XSM_NAME && g.wt == TC_PB_LEN) {
					name = g.data;
					name_len = g.len;
				}
			}
			if (rc2 < 0) {
				return tc_xplane_wire_fail(r, &vb, "XStatMetadata");
			}
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "stat_metadata entry");
	}
	*key_out = key;
	*name_out = name ? tc_xplane_intern(r, name, name_len) : 0;
	return true;
}

/*
 * TraceMe names may carry "#k=v,k=v#" metadata: the op is the part before
 * the first '#', the pairs become op args (parse_annotation.cc rules, without
 * the quote/bracket nesting, which never occurs in op names we have seen).
 */
static uint32_t traceme_split(struct reader *r, const uint8_t *s, size_t n) {
	if (n < 2 || s[n - 1] != '#') {
		return tc_xplane_intern(r, s, n);
	}
	const uint8_t *h = memchr(s, '#', n - 1);
	if (!h) {
		return tc_xplane_intern(r, s, n);
	}
	uint32_t name = tc_xplane_intern(r, s, (size_t)(h - s));
	const uint8_t *q = h + 1, *end = s + n - 1;
	while (q < end) {
		const uint8_t *c = memchr(q, ',', (size_t)(end - q));
		const uint8_t *pe = c ? c : end;
		const uint8_t *eqs = memchr(q, '=', (size_t)(pe - q));
		if (eqs && eqs > q && eqs + 1 < pe) {
			uint32_t k = tc_xplane_intern(r, q, (size_t)(eqs - q));
			tc_model_arg_str(r->m, k, tc_xplane_intern(r, eqs + 1, (size_t)(pe - eqs - 1)));
		}
		q = pe + 1;
	}
	return name;
}

void tc_xplane_emeta_init(struct emeta *e) {
	memset(e, 0, sizeof(*e));
	e->flops = -1;
	e->bytes = -1;
	e->args = TC_NONE;
	for (int c = 0; c < LC_COUNT; c++) {
		e->op[c] = TC_NONE;
	}
}

bool tc_xplane_parse_event_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, struct emeta *e) {
	struct tc_pb pb, vb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t key = 0;
	const uint8_t *val = NULL;
	size_t val_len = 0;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num == MAP_KEY && f.wt == TC_PB_VARINT) {
			key = (int64_t)f.u;
		} else if (f.num == MAP_VALUE && f.wt == TC_PB_LEN) {
			val = f.data;
			val_len = f.len;
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "event_metadata entry");
	}
	tc_xplane_emeta_init(e);
	*key_out = key;
	const uint8_t *name = NULL, *disp = NULL;
	size_t name_len = 0, disp_len = 0;
	/* First pass: name (TraceMe args go first in the list), then stats. */
	tc_pb_init(&vb, r->base, val ? val : p, val ? val_len : 0);
	while ((rc = tc_pb_next(&vb, &f)) > 0) {
		if (f.num == XEM_NAME && f.wt == TC_PB_LEN) {
			name = f.data;
			name_len = f.len;
		} else if (f.num == XEM_DISPLAY_NAME && f.wt == TC_PB_LEN) {
			disp = f.data;
			disp_len = f.len;
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &vb, "XEventMetadata");
	}
	uint32_t args = tc_model_args_begin(r->m);
	const uint8_t *eqs = name && name_len > 4 && name[0] == '%' ?
		tc_xplane_memmem_lit(name, name_len, " = ") : NULL;
	if (eqs) {
		/* HLO text "%fusion.3 = f32[...] fusion(...)": the op is the
		 * instruction name, the full text its long_name. */
		e->name = tc_xplane_intern(r, name + 1, (size_t)(eqs - name - 1));
		tc_model_arg_str(r->m, r->m->key.long_name, tc_xplane_intern(r, name, name_len));
	} else if (name && name_len) {
		e->name = traceme_split(r, name, name_len);
	} else if (disp) {
		e->name = tc_xplane_intern(r, disp, disp_len);
	} else {
		e->name = tc_model_intern(r->m, tc_arena_strfmt(&r->m->arena,
			"metadata %" PRId64, key));
	}
	tc_pb_init(&vb, r->base, val ? val : p, val ? val_len : 0);
	while ((rc = tc_pb_next(&vb, &f)) > 0) {
		if (f.num != XEM_STATS || f.wt != TC_PB_LEN) {
			continue;
		}
		uint32_t k;
		struct sval v;
		if (!parse_stat(r, f.data, f.len, &k, &v)) {
			return false;
		}
		if (k == TC_NONE || v.type == SV_NONE) {
			continue;
		}
		const struct smeta *sm = &r->sm[k];
		int64_t iv;
		if (sm->role == R_HLO_CATEGORY && v.type == SV_STR) {
			e->category = v.v.s;
		} else if (sm->role == R_FLOPS && sval_i64(&v, &iv)) {
			e->flops = iv;
		} else if (sm->role == R_BYTES_ACCESSED && sval_i64(&v, &iv)) {
			e->bytes = iv;
		}
		tc_xplane_add_arg(r, sm->name, &v);
	}
	e->args = tc_model_args_end(r->m, args);
	return true;
}

/* ---- devices ---- */

static int32_t trailing_ordinal(const uint8_t *s, size_t n, const char *prefix) {
	size_t k = strlen(prefix);
	if (n <= k || memcmp(s, prefix, k) != 0) {
		return -1;
	}
	int64_t v = 0;
	size_t i = k;
	for (; i < n && isdigit(s[i]) && v < 1000000; i++) {
		v = v * 10 + (s[i] - '0');
	}
	return i > k ? (int32_t)v : -1;
}

void tc_xplane_classify_plane(const uint8_t *s, size_t n, enum tc_device_kind *kind,
		int32_t *ordinal) {
	*ordinal = -1;
	if (tc_xplane_has_prefix(s, n, "/device:GPU:")) {
		*kind = TC_DEV_GPU;
		*ordinal = trailing_ordinal(s, n, "/device:GPU:");
	} else if (tc_xplane_has_prefix(s, n, "/device:TPU:")) {
		*kind = TC_DEV_TPU;
		*ordinal = trailing_ordinal(s, n, "/device:TPU:");
	} else if (tc_xplane_has_prefix(s, n, "/host:")) {
		*kind = TC_DEV_CPU;
	} else if (tc_xplane_has_prefix(s, n, "/device:CUSTOM:")) {
		*kind = TC_DEV_ACCEL;
	} else {
		*kind = TC_DEV_OTHER;
	}
}

void tc_xplane_plane_stat(struct reader *r, struct tc_device *d, const struct smeta *sm,
		const struct sval *v) {
	double x = 0;
	bool num = sval_num(v, &x);
	switch (sm->role) {
	case R_PEAK_TFLOPS:
		if (num) {
			d->peak_flops = x * 1e12;
		}
		break;
	case R_PEAK_HBM_GBPS:
		if (num) {
			d->peak_bw = x * 1e9;
		}
		break;
	case R_MEM_BW:
		if (num && d->peak_bw <= 0) {
			d->peak_bw = x;
		}
		break;
	case R_MEM_SIZE:
		if (num) {
			d->memory_bytes = tc_double_to_i64(x, 0, INT64_MAX);
		}
		break;
	case R_CORE_COUNT:
		if (num) {
			d->core_count = (int32_t)tc_double_to_i64(x, 0, INT32_MAX);
		}
		break;
	case R_CLOCK_RATE:
		if (num) {
			d->clock_khz = tc_double_to_i64(x, 0, INT64_MAX);
		}
		break;
	case R_DEVICE_TYPE_STRING:
	case R_GPU_DEVICE_NAME:
		if (v->type == SV_STR && !d->model) {
			d->model = v->v.s;
		}
		break;
	case R_DEVICE_VENDOR:
		if (v->type == SV_STR) {
			d->vendor = v->v.s;
		}
		break;
	default:
		break;
	}
}
