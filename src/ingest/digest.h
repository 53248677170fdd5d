#ifndef TC_INGEST_DIGEST_H
#define TC_INGEST_DIGEST_H

/*
 * Reading digests (docs/digest.md). A digest is detected by content: its
 * first bytes are field 1 (fixed64) holding "TCDIGEST", compressed or not.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/digest.h"
#include "util/error.h"
#include "util/input.h"

/* The commands that read digests, for messages. */
#define TC_DIGEST_COMMANDS "bottlenecks, check, diff, memory, merge, ops, steps and summarize"

bool tc_digest_sniff(const uint8_t *head, size_t len);

/* Whether path (a file; not "-", not a folder) holds a digest. False too
 * when it cannot be opened: reading it then says why. */
bool tc_ingest_is_digest(const char *path, const struct tc_limits *lim);

/* Read the digest at path into d (initialised by the caller). */
bool tc_ingest_digest(const char *path, const struct tc_limits *lim, struct tc_digest *d,
	struct tc_error *err);

/* The same for merging: the ranks kept packed (struct tc_digest_packed). */
bool tc_ingest_digest_packed(const char *path, const struct tc_limits *lim,
	struct tc_digest_packed *p, struct tc_error *err);

/* The same from a digest's bytes in memory, decompressed (fuzzers, tests):
 * unknown fields skipped, every rank expanded; for merging, every rank
 * checked too (tc_digest_rank_valid). */
bool tc_ingest_digest_mem(const uint8_t *data, size_t size, struct tc_digest *d,
	struct tc_error *err);
bool tc_ingest_digest_packed_mem(const uint8_t *data, size_t size,
	struct tc_digest_packed *p, struct tc_error *err);

#endif
