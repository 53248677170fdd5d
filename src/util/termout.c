/*
 * Text reports on a terminal: its width, column counting, eliding and
 * wrapping text, and colour styles.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "util/term.h"
#include "util/termout.h"
#include "util/xalloc.h"

struct tc_termout tc_g_termout;

/* Past any width a terminal has; a bigger COLUMNS is a mistake. */
#define MAX_COLUMNS 100000

size_t tc_termout_columns(const char *columns_env, int fd) {
	if (columns_env && *columns_env && strspn(columns_env, "0123456789") ==
			strlen(columns_env)) {
		unsigned long v = strtoul(columns_env, NULL, 10);
		if (v > 0) {
			return v < MAX_COLUMNS ? (size_t)v : MAX_COLUMNS;
		}
	}
	struct winsize ws;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		return ws.ws_col;
	}
	return 0;
}

/* Bytes of the SGR sequence at s[0, n) (s[0] is ESC). */
static size_t sgr_len(const char *s, size_t n) {
	size_t i = 1;
	if (i < n && s[i] == '[') {
		i++;
		while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e)) {
			i++;
		}
		i += i < n;
	}
	return i;
}

/* Bytes of the character (or colour sequence) at s[0, n), n > 0. */
static size_t char_len(const char *s, size_t n) {
	if (s[0] == '\033') {
		return sgr_len(s, n);
	}
	size_t i = 1;
	while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80) {
		i++;
	}
	return i;
}

size_t tc_text_width(const char *s, size_t n) {
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		w += s[i] != '\033';
		i += char_len(s + i, n - i);
	}
	return w;
}

/* Bytes of the first cols columns of s[0, n). */
static size_t head_bytes(const char *s, size_t n, size_t cols) {
	size_t i = 0;
	for (size_t c = 0; i < n && c < cols; c++) {
		i += char_len(s + i, n - i);
	}
	return i;
}

/* Columns [from, to) of s[0, n) appended to d at *k. */
static void put_cols(char *d, size_t *k, const char *s, size_t n, size_t from, size_t to) {
	size_t a = head_bytes(s, n, from), b = head_bytes(s, n, to);
	memcpy(d + *k, s + a, b - a);
	*k += b - a;
}

/* s (n bytes, w columns) as its first head columns, "...", [mid_lo,
 * mid_hi) and "..." when mid_hi > mid_lo, and its last tail columns. */
static char *cut(const char *s, size_t n, size_t w, size_t head, size_t mid_lo, size_t mid_hi,
		size_t tail) {
	char *d = tc_xmalloc(n + 7);
	size_t k = 0;
	put_cols(d, &k, s, n, 0, head);
	memcpy(d + k, "...", 3);
	k += 3;
	if (mid_hi > mid_lo) {
		put_cols(d, &k, s, n, mid_lo, mid_hi);
		memcpy(d + k, "...", 3);
		k += 3;
	}
	put_cols(d, &k, s, n, w - tail, w);
	d[k] = '\0';
	return d;
}

char *tc_text_elide(const char *s, size_t max) {
	size_t n = strlen(s), w = tc_text_width(s, n);
	if (w <= max) {
		return (char *)s;
	}
	if (max < 5) {
		char *d = tc_xmalloc(n + 1);
		size_t k = 0;
		put_cols(d, &k, s, n, 0, max);
		d[k] = '\0';
		return d;
	}
	/* The head gets the odd column: names differ more at their start. */
	size_t head = (max - 3 + 1) / 2;
	return cut(s, n, w, head, 0, 0, max - 3 - head);
}

char *tc_text_elide_around(const char *s, size_t max, size_t at) {
	size_t n = strlen(s), w = tc_text_width(s, n);
	if (w <= max || max < 24) {
		return tc_text_elide(s, max);
	}
	/* The head names the kernel ("cudnn::bn_fw..."): it gets more than the
	 * tail, which is mostly closing template arguments. */
	size_t tail = max / 6, head = max / 3;
	if (at + 4 <= max - 3 - tail) {
		return cut(s, n, w, max - 3 - tail, 0, 0, tail); /* a long head shows it */
	}
	size_t win = max - 6 - head - tail;
	size_t lo = at - win / 3;
	if (lo + win + tail >= w) {
		return cut(s, n, w, head, 0, 0, max - 3 - head); /* a long tail shows it */
	}
	lo = lo > head ? lo : head + 1;
	return cut(s, n, w, head, lo, lo + win, tail);
}

/* The column continuation lines of the long line s[0, n) start at. */
static size_t hang_col(const char *s, size_t n, size_t width) {
	size_t lead = strspn(s, " ");
	lead = lead < n ? lead : n;
	size_t i = lead, hang = lead + 2;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		i++;
	}
	if (i > lead && i + 1 < n && s[i] == '.' && s[i + 1] == ' ') {
		hang = i + 2; /* " 1. [high] ...": under the text */
	} else {
		/* A one-word label and a run of spaces: "steps      12 ..." */
		i = lead + strcspn(s + lead, " ");
		if (i < n && i < 16 && i + 1 < n && s[i + 1] == ' ') {
			hang = i + strspn(s + i, " ");
		}
	}
	return hang * 2 <= width ? hang : 0;
}

/* Bytes of s[0, n) to put on a line with room columns (n does not fit),
 * breaking at a space from byte min on (past a label). */
static size_t break_at(const char *s, size_t n, size_t room, size_t min) {
	size_t cols = 0, i = 0, sp = 0, sep = 0, sep_cols = 0;
	bool text = false;
	while (i < n) {
		if (s[i] == ' ' && text && i >= min) {
			sp = i;
			if (s[i - 1] == ',' || s[i - 1] == ';') {
				sep = i;
				sep_cols = cols;
			}
		}
		text |= s[i] != ' ';
		if (s[i] != '\033' && cols + 1 > room) {
			break;
		}
		cols += s[i] != '\033';
		i += char_len(s + i, n - i);
	}
	if (sep && sep_cols * 3 >= room * 2) {
		return sep;
	}
	if (sp) {
		return sp;
	}
	return i ? i : char_len(s, n);
}

static void wrap_line(FILE *f, const char *s, size_t n, size_t width) {
	if (width == 0 || tc_text_width(s, n) <= width) {
		fwrite(s, 1, n, f);
		return;
	}
	size_t hang = hang_col(s, n, width);
	bool first = true;
	while (n) {
		size_t room = first ? width : width - hang;
		if (!first) {
			fprintf(f, "\n%*s", (int)hang, "");
		}
		if (tc_text_width(s, n) <= room) {
			fwrite(s, 1, n, f);
			return;
		}
		size_t cut = break_at(s, n, room, first ? hang : 0), end = cut;
		while (end > 1 && s[end - 1] == ' ') {
			end--;
		}
		fwrite(s, 1, end, f);
		s += cut;
		n -= cut;
		while (n && *s == ' ') {
			s++;
			n--;
		}
		first = false;
	}
}

void tc_text_wrap(FILE *f, const char *s, size_t n, size_t width) {
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t len = nl ? (size_t)(nl - s) : n;
		wrap_line(f, s, len, width);
		if (nl) {
			fputc('\n', f);
			len++;
		}
		s += len;
		n -= len;
	}
}

static const char *const style_sgr[] = {
	[TC_STYLE_NONE] = "",
	[TC_STYLE_HEADER] = "\033[1m",
	[TC_STYLE_BAD] = "\033[31m",
	[TC_STYLE_CRITICAL] = "\033[1;31m",
	[TC_STYLE_HIGH] = "\033[31m",
	[TC_STYLE_MEDIUM] = "\033[33m",
	[TC_STYLE_LOW] = "\033[36m",
};

const char *tc_style_on(enum tc_style st) {
	return tc_g_termout.color ? style_sgr[st] : "";
}

const char *tc_style_off(enum tc_style st) {
	return tc_g_termout.color && st != TC_STYLE_NONE ? "\033[0m" : "";
}

void tc_style_puts(FILE *f, enum tc_style st, const char *s) {
	fputs(tc_style_on(st), f);
	tc_term_puts(f, s);
	fputs(tc_style_off(st), f);
}
