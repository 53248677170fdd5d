/* The protobuf wire reader: walk every field, descend into each LEN payload
 * as if it were a message, and check the reader never points outside its
 * buffer. */
#include <stdlib.h>
#include "fuzz.h"
#include "util/pbwire.h"

static uint64_t sink;

static void walk(const uint8_t *base, const uint8_t *p, size_t len, int depth) {
	struct tc_pb r;
	tc_pb_init(&r, base, p, len);
	struct tc_pb_field f;
	int rc;
	while ((rc = tc_pb_next(&r, &f)) == 1) {
		if (r.p > r.end || r.p < p) {
			abort();
		}
		if (f.wt == TC_PB_LEN) {
			if (f.data < p || f.data + f.len > p + len) {
				abort();
			}
			if (depth < 32) {
				walk(base, f.data, f.len, depth + 1);
			}
		} else {
			sink += (uint64_t)tc_pb_zigzag(f.u) + (uint64_t)(tc_pb_double(f.u) > 0);
		}
	}
	if (rc < 0) {
		int64_t off = tc_pb_offset(&r);
		if (!r.why || off < p - base || off > (p - base) + (int64_t)len) {
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	walk(data, data, size, 0);
	return 0;
}
