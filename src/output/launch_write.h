#ifndef TC_OUTPUT_LAUNCH_WRITE_H
#define TC_OUTPUT_LAUNCH_WRITE_H

/* Writers for `ops --by launcher`: device work by the framework op that
 * launched it, text and JSON (tracectl.launchers/1). */

#include <stddef.h>
#include <stdio.h>
#include "model/launch.h"
#include "model/model.h"

/* The tensor dtypes of an "Input type" text, each once, "c10::" dropped:
 * "BFloat16", "float/BFloat16"; "-" when none. */
const char *tc_launch_dtypes(char *out, size_t cap, const char *types);

#define TC_LAUNCHERS_SCHEMA "tracectl.launchers/1"

void tc_write_launchers_text(FILE *f, const struct tc_model *m, const struct tc_launch_table *t,
	size_t top);
void tc_write_launchers_json(FILE *f, const struct tc_model *m, const struct tc_launch_table *t,
	size_t top);

#endif
