#ifndef TC_CLI_PROGRESS_H
#define TC_CLI_PROGRESS_H

/*
 * "reading 1.2 GiB of 3.4 GiB (35 %)" on stderr while inputs are read, for
 * reads that last over a second (TRACECTL_PROGRESS_DELAY_MS), when stderr
 * is a terminal. The readers only count bytes (tc_limits.progress); a
 * thread here draws the line in place and clears it when reading ends.
 */

#include "util/input.h"

/* Count into lim and start drawing (when stderr is a terminal) for the
 * inputs paths[0, n). */
void tc_cli_progress_start(char **paths, int n, struct tc_limits *lim);
/* Stop drawing and clear the line; quiet when nothing was started. */
void tc_cli_progress_stop(void);

#endif
