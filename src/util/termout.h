#ifndef TC_UTIL_TERMOUT_H
#define TC_UTIL_TERMOUT_H

/*
 * Text reports meeting a terminal: its width (tables fit it, long lines
 * wrap at it) and colour. The CLI decides both once it knows where the
 * report goes (tc_g_termout); the writers only ask. The defaults, no limit
 * and no colour, are what files, pipes, JSON and the unit tests get.
 *
 * Widths count columns: one per UTF-8 character, none for the SGR colour
 * sequences this module writes ("\033[...m"). Text handed here is already
 * escaped for the terminal (util/term.h), so it holds no other controls.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct tc_termout {
	size_t width; /* columns a line may take; 0 = no limit */
	bool color;
	/* Kernel signatures shortened in text (util/cxxname.h): on for text
	 * reports, terminal or not, off under --wide and in the unit tests. */
	bool short_names;
};

extern struct tc_termout tc_g_termout;

/* The width for output on fd: COLUMNS when it is a positive integer, else
 * the terminal's when fd is one, else 0 (no limit). */
size_t tc_termout_columns(const char *columns_env, int fd);

/* Columns s[0, n) takes. */
size_t tc_text_width(const char *s, size_t n);

/*
 * s cut to at most max columns by replacing its middle with "...", so both
 * ends stay ("void Eigen::...EvalToLazy<...>"); cut on character
 * boundaries. A malloc'd copy; s itself when it fits (then not a copy:
 * compare the pointers). max under 5 keeps the head only.
 */
char *tc_text_elide(const char *s, size_t max);
/*
 * The same, but showing column at of s too, where it differs from a name
 * that would otherwise elide alike: "void Eigen::...<int, 2>...long>(int)"
 * (head, a window from a little before at, tail). Plain tc_text_elide when
 * max is under 24 columns or at shows anyway.
 */
char *tc_text_elide_around(const char *s, size_t max, size_t at);

/*
 * Write s[0, n) to f with each line longer than width broken into lines
 * that fit: at a ", " or "; " in the last third of the room, else at the
 * last space, else (one long word) at the width. Continuation lines hang:
 * they start past the line's label ("steps      ", " 1. ") or its indent
 * plus two. width 0 writes s as it is.
 */
void tc_text_wrap(FILE *f, const char *s, size_t n, size_t width);

enum tc_style {
	TC_STYLE_NONE = 0,
	TC_STYLE_HEADER,   /* table headers, section titles */
	TC_STYLE_BAD,      /* a number that is the problem: high idle, low busy */
	TC_STYLE_CRITICAL, /* severity words, worst first */
	TC_STYLE_HIGH,
	TC_STYLE_MEDIUM,
	TC_STYLE_LOW,
};

/* The escape that starts / ends a style; "" when colour is off. */
const char *tc_style_on(enum tc_style st);
const char *tc_style_off(enum tc_style st);
/* s escaped for the terminal, in style st when colour is on. */
void tc_style_puts(FILE *f, enum tc_style st, const char *s);

#endif
