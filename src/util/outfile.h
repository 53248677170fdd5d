#ifndef TC_UTIL_OUTFILE_H
#define TC_UTIL_OUTFILE_H

/*
 * Atomic output: data goes to a temporary file beside the target and is
 * renamed over it only on commit, so an error never leaves a partial file.
 * Writing onto one of the inputs is refused. Path "-" is stdout.
 */

#include <stdbool.h>
#include <stdio.h>
#include "util/error.h"

struct tc_outfile {
	FILE *fp;
	char *path;
	char *tmp; /* NULL for stdout */
};

bool tc_outfile_open(struct tc_outfile *o, const char *path,
	const char *const *inputs, size_t n_inputs, struct tc_error *err);
bool tc_outfile_commit(struct tc_outfile *o, struct tc_error *err);
void tc_outfile_abort(struct tc_outfile *o);

#endif
