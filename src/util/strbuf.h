#ifndef TC_UTIL_STRBUF_H
#define TC_UTIL_STRBUF_H

/*
 * A growing byte string (git's strbuf, smaller). The buffer owns s; a zeroed
 * strbuf is empty and needs no init; s is non-NULL after the first add. The
 * bytes are not NUL-terminated: callers pass (s, len) on. Limits on length
 * are the caller's policy (the readers cut or flag long values themselves).
 */

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct tc_strbuf {
	char *s;
	size_t len, cap;
};

/* Room for extra more bytes. */
void tc_strbuf_grow(struct tc_strbuf *sb, size_t extra);

static inline void tc_strbuf_add(struct tc_strbuf *sb, const void *p, size_t n) {
	if (sb->cap - sb->len <= n) {
		tc_strbuf_grow(sb, n);
	}
	if (n) {
		memcpy(sb->s + sb->len, p, n);
		sb->len += n;
	}
}

/* Appends printf output, whole. */
void tc_strbuf_addf(struct tc_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tc_strbuf_vaddf(struct tc_strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static inline void tc_strbuf_reset(struct tc_strbuf *sb) {
	sb->len = 0;
}

void tc_strbuf_finish(struct tc_strbuf *sb);

#endif
