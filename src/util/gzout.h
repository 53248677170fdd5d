#ifndef TC_UTIL_GZOUT_H
#define TC_UTIL_GZOUT_H

/*
 * A FILE that gzip-compresses into another FILE as it is written, with
 * constant memory: writers keep using stdio, a helper thread deflates what
 * comes through a pipe in 64 KiB chunks. (POSIX has no portable way to make a
 * FILE from callbacks, hence the pipe.)
 *
 * Ownership: dst is borrowed and left open; tc_gzout_close() closes the FILE
 * returned by tc_gzout_file(), finishes the stream and frees everything.
 * path, dst's name for error messages (NULL: none, e.g. stdout), is copied.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/error.h"

struct tc_gzout;

/* level: zlib level 1..9, -1 for zlib's default, or TC_GZOUT_FAST: ISA-L's
 * level 1 where it is built in (about 18x faster than zlib 6 for a little
 * larger output, bench/README), else zlib's 1. */
#define TC_GZOUT_FAST 0
struct tc_gzout *tc_gzout_open(FILE *dst, const char *path, int level,
	struct tc_error *err);
FILE *tc_gzout_file(struct tc_gzout *g);
/* Finish the gzip stream. False (TC_EXIT_OUTPUT) if anything failed. The
 * byte counts (uncompressed in, compressed out) are stored when non-NULL. */
bool tc_gzout_close(struct tc_gzout *g, uint64_t *bytes_in, uint64_t *bytes_out,
	struct tc_error *err);

#endif
