/*
 * An XStat decoded in full, off the hot path (every value kind, ref_value,
 * compressed strings): metadata stats and what the fast event decoder
 * hands back.
 */
#include "ingest/xplane/xplane_private.h"

bool tc_xplane_parse_stat_slow(struct reader *r, const uint8_t *p, size_t len,
		uint32_t *sm_out, struct sval *v) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	int rc;
	tc_pb_init(&pb, r->base, p, len);
	int64_t mid = 0;
	v->type = SV_NONE;
	v->raw = NULL;
	while ((rc = tc_pb_next(&pb, &f)) > 0) {
		if (f.num <= XSTAT_COMPRESSED_STR && f.wt != stat_wt[f.num]) {
			return tc_xplane_fail(r, p, "xplane: %s has a field of the wrong wire type", "XStat");
		}
		switch (f.num) {
		case XSTAT_METADATA_ID:
			mid = (int64_t)f.u;
			break;
		case XSTAT_DOUBLE:
			v->type = SV_DOUBLE;
			v->v.d = tc_pb_double(f.u);
			break;
		case XSTAT_UINT64:
			v->type = SV_UINT;
			v->v.u = f.u;
			break;
		case XSTAT_INT64:
			v->type = SV_INT;
			v->v.i = (int64_t)f.u;
			break;
		case XSTAT_STR:
			if (f.wt != TC_PB_LEN) {
				return tc_xplane_fail(r, p, "xplane: %s has the wrong wire type", "XStat.str_value");
			}
			v->type = SV_STR;
			v->raw = f.data;
			v->raw_len = f.len;
			break;
		case XSTAT_BYTES:
			if (f.wt != TC_PB_LEN) {
				return tc_xplane_fail(r, p, "xplane: %s has the wrong wire type", "XStat.bytes_value");
			}
			v->type = SV_BYTES;
			v->raw = f.data;
			v->raw_len = f.len;
			break;
		case XSTAT_REF:
			v->v.s = ref_name(&r->smap, r->sm, f.u, &r->dangling_refs);
			v->type = v->v.s == TC_NONE ? SV_NONE : SV_STR;
			v->raw = NULL;
			break;
		case XSTAT_COMPRESSED_STR: {
			if (f.wt != TC_PB_LEN) {
				return tc_xplane_fail(r, p, "xplane: %s has the wrong wire type",
					"XStat.compressed_str_value");
			}
			uint8_t *out;
			size_t out_len;
			struct tc_error e;
			tc_error_init(&e);
			if (!tc_inflate(f.data, f.len, 15 + 32, r->lim->max_string, &out, &out_len, &e)) {
				if (e.code == TC_EXIT_LIMIT) {
					tc_error_set(r->err, TC_EXIT_LIMIT, "xplane: compressed "
						"string stat longer than the limit of %" PRIu32
						" bytes (raise it with --max-string)",
						r->lim->max_string);
					return tc_error_at(r->err, (int64_t)(f.data - r->base));
				}
				return tc_xplane_fail(r, f.data, "xplane: compressed string stat cannot be "
					"inflated: %s", e.msg);
			}
			v->type = SV_STR;
			v->v.s = tc_xplane_intern(r, out, out_len);
			v->raw = NULL;
			free(out);
			break;
		}
		default:
			break;
		}
	}
	if (rc < 0) {
		return tc_xplane_wire_fail(r, &pb, "XStat");
	}
	*sm_out = idmap_get(&r->smap, mid);
	if (v->type == SV_STR && v->raw) {
		v->v.s = str_value(r, *sm_out, v->raw, v->raw_len);
	}
	return true;
}
