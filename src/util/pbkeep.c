/*
 * A protobuf message copied with only chosen fields of chosen wire types,
 * so that a message protobuf-c refused can be unpacked again.
 */
#include <string.h>
#include "util/pbkeep.h"
#include "util/pbwire.h"

static size_t put_varint(uint8_t *o, uint64_t v) {
	size_t n = 0;
	for (; v >= 0x80; v >>= 7) {
		o[n++] = (uint8_t)(v | 0x80);
	}
	o[n++] = (uint8_t)v;
	return n;
}

size_t tc_pb_keep_fields(struct tc_arena *a, const uint8_t *p, size_t len,
		const struct tc_pb_keep *keep, uint8_t *out) {
	struct tc_pb pb;
	struct tc_pb_field f = { 0 };
	size_t n = 0;
	tc_pb_init(&pb, p, p, len);
	while (tc_pb_next(&pb, &f) > 0) {
		const struct tc_pb_keep *k = keep;
		while (k->num && (k->num != f.num || k->wt != f.wt)) {
			k++;
		}
		if (!k->num) {
			continue;
		}
		/* A canonical tag, varint or length: never longer than what was
		 * read. */
		n += put_varint(out + n, (uint64_t)f.num << 3 | f.wt);
		if (f.wt == TC_PB_VARINT) {
			n += put_varint(out + n, f.u);
			continue;
		}
		const uint8_t *d = f.data;
		size_t dl = f.len;
		if (k->sub) {
			uint8_t *t = tc_arena_alloc(a, dl ? dl : 1);
			dl = tc_pb_keep_fields(a, d, dl, k->sub, t);
			d = t;
		}
		n += put_varint(out + n, dl);
		memcpy(out + n, d, dl);
		n += dl;
	}
	return n;
}
