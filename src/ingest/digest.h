#ifndef TC_INGEST_DIGEST_H
#define TC_INGEST_DIGEST_H

/*
 * Detecting digests (docs/digest.md) by content: the first bytes are
 * field 1 (fixed64) holding "TCDIGEST", compressed or not. Reading them
 * is digest/read.h's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/input.h"

/* The commands that read digests, for messages. */
#define TC_DIGEST_COMMANDS "bottlenecks, check, diff, memory, merge, ops, steps and summarize"

bool tc_digest_sniff(const uint8_t *head, size_t len);

/* Whether path (a file; not "-", not a folder) holds a digest. False too
 * when it cannot be opened: reading it then says why. */
bool tc_ingest_is_digest(const char *path, const struct tc_limits *lim);

#endif
