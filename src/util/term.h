#ifndef TC_UTIL_TERM_H
#define TC_UTIL_TERM_H

/*
 * Text for a terminal. Names and paths come from traces and command lines
 * and may hold bytes a terminal acts on (ESC sequences, OSC title changes,
 * C1 controls, CR/LF that break rows and one-line messages). Every text
 * print of such a string goes through these functions, which show them
 * escaped, as git and ls do:
 *
 *   \n \r \t           newline, carriage return, tab
 *   \xNN               other C0 controls, DEL, and each byte of invalid or
 *                      truncated UTF-8 (lower-case hex)
 *   \u0080..\u009f     C1 controls (UTF-8 C2 80..C2 9F)
 *
 * Valid printable UTF-8 passes unchanged; a backslash stays as is, so the
 * escaped form is for reading, not for parsing back. JSON output does not
 * use this: its own escaping is exact.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Bytes s[0, n) escaped into dst, NUL-terminated; dst NULL only measures.
 * Returns the escaped length (dst needs room for it plus the NUL; 4 * n + 1
 * always suffices). */
size_t tc_term_escape(char *dst, const char *s, size_t n);
/* Write s[0, n) / the string s escaped to f. */
void tc_term_write(FILE *f, const char *s, size_t n);
void tc_term_puts(FILE *f, const char *s);
/* A malloc'd escaped copy of s. */
char *tc_term_strdup(const char *s);
/*
 * fprintf whose %s arguments are written escaped; the format's own text
 * (newlines included) is written as is. Supports the C99 conversions but %n;
 * %s width and precision count bytes (precision of the input, width of the
 * escaped text).
 */
void tc_term_fprintf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tc_term_vfprintf(FILE *f, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
