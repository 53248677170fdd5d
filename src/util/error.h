#ifndef TC_UTIL_ERROR_H
#define TC_UTIL_ERROR_H

/*
 * Errors are values. Core functions return false (or NULL) and fill a
 * caller-supplied struct tc_error; only cli/ prints. The innermost layer sets
 * the message; outer layers attach the path and the position they know.
 */

#include <stdbool.h>
#include <stdint.h>

/* The one exit-code table; documented in README.md and tracectl(1). */
enum tc_exit {
	TC_EXIT_OK = 0,       /* success */
	TC_EXIT_FINDINGS = 1, /* bottlenecks --fail-on: a finding at/above the level;
	                       * diff --fail-on-regression: the metric rose past it */
	TC_EXIT_USAGE = 2,    /* bad command line */
	TC_EXIT_INPUT = 3,    /* input missing, unreadable, malformed or unsupported */
	TC_EXIT_OUTPUT = 4,   /* output could not be written */
	TC_EXIT_LIMIT = 5,    /* a resource limit was hit (size cap, event cap, memory) */
	TC_EXIT_STRICT = 6,   /* --strict: the input produced warnings */
};

struct tc_error {
	int code;          /* enum tc_exit; 0 while no error is set */
	char msg[512];     /* lower-case, no final full stop */
	char path[512];    /* input or output the error is about; "" if none */
	int64_t offset;    /* byte offset in the (decompressed) input, -1 if none */
	int64_t line;      /* 1-based line for text input, 0 if none */
	int64_t column;    /* 1-based column, 0 if none */
};

void tc_error_init(struct tc_error *err);

/* Set code and message; keeps no position. Always returns false. A NULL err is
 * allowed and ignored. An already-set error is not overwritten: the innermost
 * cause wins. */
bool tc_error_set(struct tc_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Attach a byte offset / path unless one is already set. Return false. */
bool tc_error_at(struct tc_error *err, int64_t offset);
void tc_error_path(struct tc_error *err, const char *path);

/* Render "PATH: MSG (at byte N)" into buf. */
void tc_error_format(const struct tc_error *err, char *buf, size_t size);

#endif
