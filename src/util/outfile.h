#ifndef TC_UTIL_OUTFILE_H
#define TC_UTIL_OUTFILE_H

/*
 * Output files. Path "-" is stdout.
 *
 * A regular file (new or existing) is written to a temporary file beside it
 * and renamed over it only on commit, so an error or a signal never leaves a
 * partial file and the old content survives. An existing file keeps its
 * mode (and, where permitted, its owner). A symbolic link is followed: its
 * final target is replaced and the link kept.
 *
 * Anything else (a character or block device, a FIFO, a socket, or a
 * descriptor link such as /dev/stdout or /proc/self/fd/N) is opened and
 * written straight through: it cannot be replaced by a rename.
 *
 * Writing onto one of the inputs (same device and inode) is refused with
 * TC_EXIT_OUTPUT.
 *
 * Temporary files that exist are listed where tc_outfile_cleanup() finds
 * them: the CLI calls it from its signal handlers and at exit, so SIGINT,
 * SIGTERM, SIGHUP and an out-of-memory exit remove them too.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/error.h"

struct tc_outfile {
	FILE *fp;
	char *path; /* the file written: a link's final target; NULL for stdout */
	char *tmp;  /* the temporary file renamed onto path; NULL when direct */
	/* The target's identity when it existed at open (0/0 otherwise). */
	uint64_t dev, ino;
	int slot; /* index in the cleanup list, -1 if none */
};

/* Open path for writing. inputs[0, n_inputs) are the command's input paths
 * as given ("-" is stdin): the output may be none of them. Folder members
 * are checked after reading with tc_outfile_check_input(). */
bool tc_outfile_open(struct tc_outfile *o, const char *path,
	const char *const *inputs, size_t n_inputs, struct tc_error *err);

/* Before anything is read or written: false with err set (TC_EXIT_OUTPUT)
 * when the output at path is one of the files the command reads,
 * reads[0, n_reads) (traces, budget files, digests; "-" is stdin), or the
 * same file as one of its other outputs, others[0, n_others) (NULL and
 * "-" skipped). A command with two outputs or with inputs besides its
 * traces calls it for each output, so a refusal comes before any write. */
bool tc_outfile_precheck(const char *path, const char *const *reads, size_t n_reads,
	const char *const *others, size_t n_others, struct tc_error *err);

/* False with err set (TC_EXIT_OUTPUT) when the output is the file with
 * this device and inode, an input read. */
bool tc_outfile_check_input(const struct tc_outfile *o, uint64_t dev, uint64_t ino,
	struct tc_error *err);

bool tc_outfile_commit(struct tc_outfile *o, struct tc_error *err);
/* Drop the output: the temporary file is removed, the target untouched. */
void tc_outfile_abort(struct tc_outfile *o);

/* Remove every temporary file still open. Async-signal-safe. */
void tc_outfile_cleanup(void);

#endif
