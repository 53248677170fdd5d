#ifndef TC_DIGEST_READ_H
#define TC_DIGEST_READ_H

/*
 * Reading digests (docs/digest.md); ingest/digest.h detects them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "digest/digest.h"
#include "ingest/digest.h"
#include "util/error.h"
#include "util/input.h"

/* Read the digest at path into d (initialised by the caller). */
bool tc_digest_read(const char *path, const struct tc_limits *lim, struct tc_digest *d,
	struct tc_error *err);

/* The same for merging: the ranks kept packed (struct tc_digest_packed). */
bool tc_digest_read_packed(const char *path, const struct tc_limits *lim,
	struct tc_digest_packed *p, struct tc_error *err);

/* The same from a digest's bytes in memory, decompressed (fuzzers, tests):
 * unknown fields skipped, every rank expanded; for merging, every rank
 * checked too (tc_digest_rank_valid). */
bool tc_digest_read_mem(const uint8_t *data, size_t size, struct tc_digest *d,
	struct tc_error *err);
bool tc_digest_read_packed_mem(const uint8_t *data, size_t size,
	struct tc_digest_packed *p, struct tc_error *err);

#endif
