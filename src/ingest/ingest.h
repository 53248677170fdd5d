#ifndef TC_INGEST_INGEST_H
#define TC_INGEST_INGEST_H

/*
 * Format detection and the reader table. Every reader turns one input into
 * model records; nothing after ingest knows which format it came from.
 *
 * A reader's read() fills the model it is given (a fresh one per input file,
 * so files can be read in parallel threads) and returns false with err set on
 * malformed input. It must not print. tc_ingest adds the source entry first
 * and passes its index; the reader adds hosts, devices, tracks and events.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"
#include "util/error.h"
#include "util/input.h"

struct tc_reader {
	const char *name;        /* "xplane", "perfetto", "json", "nsys" */
	const char *description; /* for messages and `tracectl info` */
	/* Confidence that the decompressed head is this format: 0 = no,
	 * 100 = certain. The highest score wins. */
	int (*sniff)(const uint8_t *head, size_t len);
	bool (*read)(struct tc_model *m, struct tc_input *in, uint32_t source,
		const struct tc_limits *lim, struct tc_error *err);
};

extern const struct tc_reader tc_reader_xplane;
extern const struct tc_reader tc_reader_perfetto;
extern const struct tc_reader tc_reader_json;
extern const struct tc_reader tc_reader_nsys;

struct tc_ingest_opts {
	struct tc_limits lim;
	unsigned threads; /* 0 = number of CPUs */
	/* The caller reads no arg but those analyses read back (the first
	 * group of struct tc_keys): the model keeps no other
	 * (tc_model.known_args_only). */
	bool known_args_only;
};

void tc_ingest_opts_default(struct tc_ingest_opts *o);

/* A host name from an input path when the trace names none: the file name
 * without its folder and trace suffixes (".xplane.pb", ".pt.trace.json.gz",
 * ".json", ".gz", ...). "-" gives "stdin". */
uint32_t tc_ingest_host_from_path(struct tc_model *m, const char *path);

/* The reader for a head, or NULL. */
const struct tc_reader *tc_ingest_sniff(const uint8_t *head, size_t len);

/* Read one input (file or "-") into m (not finalized). */
bool tc_ingest_file(struct tc_model *m, const char *path,
	const struct tc_limits *lim, struct tc_error *err);

/*
 * Read an opened input into m (not finalized) with reader r, or the reader
 * its head sniffs as when r is NULL. The caller finishes the input. For tests
 * and fuzzers (tc_input_open_mem) and for tc_ingest_file.
 */
bool tc_ingest_input(struct tc_model *m, struct tc_input *in, const struct tc_reader *r,
	const struct tc_limits *lim, struct tc_error *err);

/*
 * True (with err set, exit 5) once m holds more than lim->max_events events.
 * Readers call it every few thousand events so an oversized trace stops
 * while reading, before its memory is spent; tc_ingest_input checks once
 * more after the reader returns.
 */
bool tc_ingest_over_limit(const struct tc_model *m, const struct tc_limits *lim,
	struct tc_error *err);

/*
 * The files tc_ingest would read for paths, folders expanded, each once, in
 * reading order: *files (n_files malloc'd strings, the array malloc'd too).
 * Warnings about what was skipped go to warn_to. False with err set as
 * tc_ingest sets it (no input, stdin twice, a folder without traces).
 */
bool tc_ingest_list(const char *const *paths, size_t n, const struct tc_ingest_opts *o,
	struct tc_model *warn_to, char ***files, size_t *n_files, struct tc_error *err);

/*
 * On a finalized model with no device rows: where an ML program's host sits
 * beside processes whose events are all of unknown kind, warn (on every
 * command; --strict exits 6) that no device activity was recognised,
 * naming the busiest of those processes (ingest/unrecognised.c).
 */
void tc_ingest_warn_unrecognised(struct tc_model *m);

/*
 * Read paths (files, folders, "-") into one new, finalized model. A folder is
 * searched recursively for files whose content is a known format; each file
 * becomes its own host/rank. Returns NULL with err set on failure.
 */
struct tc_model *tc_ingest(const char *const *paths, size_t n,
	const struct tc_ingest_opts *o, struct tc_error *err);

#endif
