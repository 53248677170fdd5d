/* XPlane stats, stat and event metadata, plane and line headers, plane devices. */
#include "ingest/xplane/xplane_private.h"
#include "util/pbkeep.h"
#include "xplane.pb-c.h"


/* ---- headers ---- */

/*
 * The header fields of a plane or line, from the message their last
 * occurrences make (protobuf-c keeps the last of a repeated singular
 * field, so the values are the whole message's). The system allocator: a
 * decoding thread unpacks line headers too. Free with
 * protobuf_c_message_free_unpacked. NULL when protobuf-c refuses it.
 */
void *tc_xplane_unpack_spans(const ProtobufCMessageDescriptor *desc,
		const struct tc_xplane_span *s, size_t n) {
	uint8_t small[256] = { 0 };
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += s[i].len;
	}
	uint8_t *buf = total <= sizeof(small) ? small : tc_xmalloc(total);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i].len) {
			memcpy(buf + k, s[i].p, s[i].len);
			k += s[i].len;
		}
	}
	void *m = protobuf_c_message_unpack(desc, NULL, total, buf);
	if (buf != small) {
		free(buf);
	}
	return m;
}

/* ---- metadata ---- */

/*
 * The metadata maps are cold (one entry per distinct event or stat name), so
 * protobuf-c's generated code unpacks each entry. Its allocations come from
 * the reader's scratch arena, reset per entry: no frees, one block reused.
 */
static void *scratch_alloc(void *arena, size_t size) {
	return tc_arena_alloc(arena, size);
}

static void scratch_free(void *arena, void *p) {
	(void)arena;
	(void)p;
}

static void *unpack(struct reader *r, const ProtobufCMessageDescriptor *desc, const uint8_t *p,
		size_t len) {
	ProtobufCAllocator a = { scratch_alloc, scratch_free, &r->scratch };
	return protobuf_c_message_unpack(desc, &a, len, p);
}

/* The fields the model reads, with the wire type each must have. */
static const struct tc_pb_keep stat_value_keep[] = { { XSM_NAME, TC_PB_LEN, NULL }, { 0 } };
static const struct tc_pb_keep event_value_keep[] = {
	{ XEM_NAME, TC_PB_LEN, NULL }, { XEM_DISPLAY_NAME, TC_PB_LEN, NULL },
	{ XEM_STATS, TC_PB_LEN, NULL }, { 0 },
};
static const struct tc_pb_keep stat_entry_keep[] = {
	{ MAP_KEY, TC_PB_VARINT, NULL }, { MAP_VALUE, TC_PB_LEN, stat_value_keep }, { 0 },
};
static const struct tc_pb_keep event_entry_keep[] = {
	{ MAP_KEY, TC_PB_VARINT, NULL }, { MAP_VALUE, TC_PB_LEN, event_value_keep }, { 0 },
};

/*
 * protobuf-c says only that an entry did not unpack (or a stat in it did not
 * inflate): this wire walk finds the error to report, in the order the
 * readers have always reported them. An event entry's last value is walked
 * after the entry, then its stats; a stat entry's values as they come. True
 * when all is clean.
 */
static bool entry_check(struct reader *r, const uint8_t *p, size_t len, bool event) {
	const char *entry = event ? "event_metadata entry" : "stat_metadata entry";
	const char *value = event ? "XEventMetadata" : "XStatMetadata";
	struct tc_pb pb, vb;
	struct tc_pb_field f = { 0 }, g = { 0 };
	int rc, rc2;
	const uint8_t *val = NULL;
	size_t val_len = 0;
	tc_pb_init(&pb, r->base, p, len);
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num != MAP_VALUE || f.wt != TC_PB_LEN) {
			continue;
		}
		val = f.data;
		val_len = f.len;
		if (!event) {
			tc_pb_init(&vb, r->base, val, val_len);
			while ((rc2 = tc_pb_next(&vb, &g)) > 0) {
			}
			if (rc2 < 0) {
				return tc_xplane_wire_fail(r, &vb, value);
			}
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, entry);
	}
	if (event && val) {
		tc_pb_init(&vb, r->base, val, val_len);
		while ((rc2 = tc_pb_next(&vb, &g)) > 0) {
		}
		if (rc2 < 0) {
			return tc_xplane_wire_fail(r, &vb, value);
		}
		tc_pb_init(&vb, r->base, val, val_len);
		while (tc_pb_next(&vb, &g) > 0) {
			uint32_t k;
			struct sval v;
			if (g.num == XEM_STATS && g.wt == TC_PB_LEN &&
					!tc_xplane_parse_stat_slow(r, g.data, g.len, &k, &v)) {
				return false;
			}
		}
	}
	return true;
}

/* An entry protobuf-c refused: the error, or the entry unpacked again
 * without the fields of the wrong wire type. */
static void *unpack_again(struct reader *r, const ProtobufCMessageDescriptor *desc,
		const uint8_t *p, size_t len, bool event) {
	if (!entry_check(r, p, len, event)) {
		return NULL;
	}
	uint8_t *t = tc_arena_alloc(&r->scratch, len ? len : 1);
	const struct tc_pb_keep *keep = event ? event_entry_keep : stat_entry_keep;
	size_t n = tc_pb_keep_fields(&r->scratch, p, len, keep, t);
	void *e = unpack(r, desc, t, n);
	if (!e) {
		tc_xplane_fail(r, p, "xplane: %s cannot be unpacked", event ? "event_metadata entry" :
			"stat_metadata entry");
	}
	return e;
}

/* One map entry, in the scratch arena until the next. */
static void *unpack_entry(struct reader *r, const uint8_t *p, size_t len, bool event) {
	const ProtobufCMessageDescriptor *d = event ?
		&tensorflow__profiler__xplane__event_metadata_entry__descriptor :
		&tensorflow__profiler__xplane__stat_metadata_entry__descriptor;
	tc_arena_reset(&r->scratch);
	void *e = unpack(r, d, p, len);
	return e ? e : unpack_again(r, d, p, len, event);
}

bool tc_xplane_parse_stat_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, uint32_t *name_out) {
	const Tensorflow__Profiler__XPlane__StatMetadataEntry *e = unpack_entry(r, p, len, false);
	if (!e) {
		return false;
	}
	/* Look-ups go by the map key; the id inside is ignored. */
	*key_out = e->key;
	*name_out = e->value && e->value->name.len ?
		tc_xplane_intern(r, e->value->name.data, e->value->name.len) : 0;
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
}

/* An unpacked XStat as a value, as parse_stat reads one from the wire. */
static bool stat_of(struct reader *r, const Tensorflow__Profiler__XStat *x, uint32_t *k,
		struct sval *v) {
	*k = idmap_get(&r->smap, x->metadata_id);
	v->type = SV_NONE;
	v->raw = NULL;
	switch (x->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE:
		v->type = SV_DOUBLE;
		v->v.d = x->double_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
		v->type = SV_UINT;
		v->v.u = x->uint64_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
		v->type = SV_INT;
		v->v.i = x->int64_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
		v->type = SV_STR;
		v->raw_len = x->str_value.len;
		v->v.s = x->str_value.len ? str_value(r, *k, x->str_value.data, x->str_value.len) : 0;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE:
		v->type = SV_BYTES;
		v->raw_len = x->bytes_value.len;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE:
		v->v.s = ref_name(&r->smap, r->sm, x->ref_value, &r->dangling_refs);
		v->type = v->v.s == TC_NONE ? SV_NONE : SV_STR;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_COMPRESSED_STR_VALUE: {
		/* A failure is made again from the file bytes, whose offset
		 * the error names. */
		uint8_t *out;
		size_t out_len;
		struct tc_error e;
		tc_error_init(&e);
		if (!tc_inflate(x->compressed_str_value.data, x->compressed_str_value.len, 15 + 32,
				r->lim->max_string, &out, &out_len, &e)) {
			return false;
		}
		v->type = SV_STR;
		v->v.s = tc_xplane_intern(r, out, out_len);
		free(out);
		break;
	}
	default:
		break;
	}
	return true;
}

bool tc_xplane_parse_event_metadata(struct reader *r, const uint8_t *p, size_t len,
		int64_t *key_out, struct emeta *e) {
	const Tensorflow__Profiler__XPlane__EventMetadataEntry *en = unpack_entry(r, p, len, true);
	if (!en) {
		return false;
	}
	tc_xplane_emeta_init(e);
	int64_t key = *key_out = en->key;
	static const ProtobufCBinaryData none = { 0, NULL };
	const Tensorflow__Profiler__XEventMetadata *md = en->value;
	const ProtobufCBinaryData *nm = md ? &md->name : &none, *dn = md ? &md->display_name : &none;
	const uint8_t *name = nm->data;
	size_t name_len = nm->len;
	/* An op's own costs become its flops and bytes below: they must not
	 * set event_costs, which sends every event's args through a search. */
	bool event_costs = r->m->event_costs;
	/* The name first: TraceMe args go first in the list, then stats. */
	uint32_t args = tc_model_args_begin(r->m);
	const uint8_t *eqs = name_len > 4 && name[0] == '%' ?
		tc_xplane_memmem_lit(name, name_len, " = ") : NULL;
	if (eqs) {
		/* HLO text "%fusion.3 = f32[...] fusion(...)": the op is the
		 * instruction name, the full text its long_name. */
		e->name = tc_xplane_intern(r, name + 1, (size_t)(eqs - name - 1));
		tc_model_arg_str(r->m, r->m->key.long_name, tc_xplane_intern(r, name, name_len));
	} else if (name_len) {
		e->name = traceme_split(r, name, name_len);
	} else if (dn->len) {
		e->name = tc_xplane_intern(r, dn->data, dn->len);
	} else {
		e->name = tc_model_intern(r->m, tc_arena_strfmt(&r->m->arena,
			"metadata %" PRId64, key));
	}
	for (size_t i = 0; md && i < md->n_stats; i++) {
		uint32_t k;
		struct sval v;
		if (!stat_of(r, md->stats[i], &k, &v)) {
			/* The check finds the stat's error, with its offset. */
			if (entry_check(r, p, len, true)) {
				tc_xplane_fail(r, p, "xplane: %s cannot be read", "event_metadata entry");
			}
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
	r->m->event_costs = event_costs;
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
