#ifndef TC_UTIL_INPUT_H
#define TC_UTIL_INPUT_H

/*
 * One input file (or stdin, path "-"), with gzip/zlib/zstd undone
 * transparently.
 * Readers either stream it (tc_input_read) or take it whole (tc_input_map),
 * never both. The first bytes of the decompressed content are in head[] for
 * format sniffing before either is called.
 *
 * Ownership: the input owns its buffers; a mapped view stays valid until
 * tc_input_finish(). Input files are opened read-only and never modified.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "util/error.h"

enum tc_compression {
	TC_COMP_NONE = 0,
	TC_COMP_GZIP,
	TC_COMP_ZLIB,
	TC_COMP_ZSTD,
};

/* Resource limits; every one has a documented default and a CLI override. */
struct tc_limits {
	uint64_t max_input;   /* decompressed bytes of one input */
	uint32_t max_ratio;   /* decompressed/compressed ratio, checked past 256 MiB */
	uint64_t max_events;  /* events in the model */
	uint32_t max_depth;   /* nesting depth in JSON / protobuf */
	uint32_t max_string;  /* bytes of one string (names, args) */
	/* Not a limit: a reader may run part of its work on a second thread
	 * where it pays (set by tc_ingest when a core is spare), or always
	 * (TC_READER_THREAD_ALWAYS: tests of small inputs). */
	uint8_t reader_thread;
	/* Not a limit either: inflate gzip/zlib with zlib even where ISA-L is
	 * built in (tests compare the two; benchmarks time them). */
	bool zlib_inflate;
	/* Nor this: how far a growing view's helper reads ahead of its reader
	 * (tc_input_view); 0 is the default, 64 MiB (tests make it small). */
	size_t view_ahead;
	/* Nor this: where set, the bytes taken from input files are added
	 * here as they are read (a mapped file's when it is finished), from
	 * any reader thread, so the caller can show progress. */
	_Atomic uint64_t *progress;
};

#define TC_READER_THREAD_ALWAYS 2

void tc_limits_default(struct tc_limits *lim);

#define TC_INPUT_HEAD 4096

struct tc_input_priv;

struct tc_input {
	const char *path;      /* as given, for messages ("-" shows as "<stdin>") */
	uint64_t file_size;    /* bytes on disk; for stdin, bytes read so far */
	uint64_t dev, ino;     /* the file's identity; 0/0 for memory */
	enum tc_compression comp;
	uint8_t head[TC_INPUT_HEAD]; /* first decompressed bytes */
	size_t head_len;
	const struct tc_limits *lim;
	struct tc_input_priv *priv;
};

bool tc_input_open(struct tc_input *in, const char *path,
	const struct tc_limits *lim, struct tc_error *err);

/*
 * The same over bytes in memory (tests, fuzzers): name is used in messages,
 * data must stay valid and unchanged until tc_input_finish(). gzip/zlib/zstd
 * are detected as for files; tc_input_map of uncompressed data returns data
 * itself.
 */
bool tc_input_open_mem(struct tc_input *in, const char *name, const uint8_t *data,
	size_t len, const struct tc_limits *lim, struct tc_error *err);

/* Decompressed bytes from the start (head included). Returns the count, 0 at
 * the end, -1 with err set on failure. */
ssize_t tc_input_read(struct tc_input *in, void *buf, size_t cap,
	struct tc_error *err);

/* The whole decompressed content: mmap for a plain regular file, otherwise
 * read into memory (capped by lim->max_input). */
bool tc_input_map(struct tc_input *in, const uint8_t **data, size_t *size,
	struct tc_error *err);

/*
 * The content as a view that grows, for a reader that walks it front to
 * back: a plain regular file (or memory) is whole at once, as with
 * tc_input_map; compressed content and pipes are read into one reserved
 * address range as the reader asks (tc_input_need), so pointers into the
 * view stay valid until tc_input_finish(). With `threaded`, a helper thread
 * reads ahead, at most lim->view_ahead (64 MiB) past the last
 * tc_input_release() or the last wait, so memory stays bounded as for a
 * mapped file. *avail: bytes in the view so far;
 * *all: that is all of it. Where no range can be reserved, this is
 * tc_input_map.
 */
bool tc_input_view(struct tc_input *in, bool threaded, const uint8_t **data,
	size_t *avail, bool *all, struct tc_error *err);

/* Wait until the view holds upto bytes or all there is; *avail and *all as
 * above. False with err set when reading failed before upto (the bytes
 * before the failure stay readable). Callable from any one thread at a
 * time beside the helper. */
bool tc_input_need(struct tc_input *in, size_t upto, size_t *avail, bool *all,
	struct tc_error *err);

/* Stop a view's helper thread (done, or giving up early); the view stays. */
void tc_input_stop(struct tc_input *in);

/* The reader no longer needs mapped bytes before upto: lets the kernel drop
 * those pages so peak memory does not include the whole file. In a growing
 * view they are gone for good. */
void tc_input_release(struct tc_input *in, size_t upto);

/* A reader thread walked [from, to) of a mapped file where it is not
 * reading now (ahead of the reading, or behind what was released): lets
 * the kernel unmap those pages (they map again from the page cache). Only
 * a mapped regular file's; no-op otherwise. */
void tc_input_drop(struct tc_input *in, size_t from, size_t to);

/* Bytes of decompressed content delivered so far. */
uint64_t tc_input_tell(const struct tc_input *in);

const char *tc_input_name(const struct tc_input *in);
const char *tc_compression_name(enum tc_compression c);
void tc_input_finish(struct tc_input *in);

#endif
