#ifndef TC_UTIL_PBKEEP_H
#define TC_UTIL_PBKEEP_H

/*
 * A copy of a protobuf message with only chosen fields, each of a chosen
 * wire type. The readers have always skipped a known field of the wrong
 * wire type in the cold messages; protobuf-c refuses the whole message. A
 * refused message is unpacked again from this copy.
 */

#include <stddef.h>
#include <stdint.h>
#include "util/arena.h"

struct tc_pb_keep {
	uint32_t num;                   /* field number */
	uint8_t wt;                     /* wire type */
	const struct tc_pb_keep *sub;   /* a message field's own fields, or NULL */
};

/*
 * Copies the fields of p[0, len) that keep (ended by a zero entry) lists to
 * out, which needs len bytes: the copy is never longer. The message must
 * walk cleanly with tc_pb_next. Nested copies are made in a. Returns the
 * copy's length.
 */
size_t tc_pb_keep_fields(struct tc_arena *a, const uint8_t *p, size_t len,
		const struct tc_pb_keep *keep, uint8_t *out);

#endif
