/* Error values: setting code and message, adding path and offset. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "util/error.h"

void tc_error_init(struct tc_error *err) {
	memset(err, 0, sizeof(*err));
	err->offset = -1;
}

bool tc_error_set(struct tc_error *err, int code, const char *fmt, ...) {
	if (!err || err->code) {
		return false;
	}
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return false;
}

bool tc_error_at(struct tc_error *err, int64_t offset) {
	if (err && err->offset < 0) {
		err->offset = offset;
	}
	return false;
}

void tc_error_path(struct tc_error *err, const char *path) {
	if (err && !err->path[0] && path) {
		snprintf(err->path, sizeof(err->path), "%s", path);
	}
}

void tc_error_format(const struct tc_error *err, char *buf, size_t size) {
	int n = 0;
	if (err->path[0]) {
		n = snprintf(buf, size, "%s: ", err->path);
	}
	if (n < 0 || (size_t)n >= size) {
		return;
	}
	int m = snprintf(buf + n, size - n, "%s", err->msg[0] ? err->msg : "unknown error");
	if (m < 0 || (size_t)(n + m) >= size) {
		return;
	}
	n += m;
	if (err->line > 0) {
		snprintf(buf + n, size - n, " (at line %" PRId64 ", column %" PRId64 ")",
			err->line, err->column);
	} else if (err->offset >= 0) {
		snprintf(buf + n, size - n, " (at byte %" PRId64 ")", err->offset);
	}
}
