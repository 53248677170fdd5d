/*
 * Text for a terminal: names and paths from traces and command lines
 * printed with control bytes and invalid UTF-8 escaped.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "util/term.h"
#include "util/utf8.h"
#include "util/xalloc.h"

/* Bytes at the start of s[0, n) that print as themselves. */
static size_t clean_run(const unsigned char *s, size_t n) {
	size_t i = 0;
	while (i < n) {
		if (s[i] >= 0x20 && s[i] < 0x7f) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t len = s[i] >= 0x80 ? tc_utf8_decode(s + i, n - i, &cp) : 0;
		if (len == 0 || cp <= 0x9f) {
			break;
		}
		i += len;
	}
	return i;
}

/* The escape for the unprintable bytes at s (n > 0) into tok; returns the
 * bytes it stands for. */
static size_t escape_one(const unsigned char *s, size_t n, char tok[8]) {
	static const char hex[] = "0123456789abcdef";
	switch (s[0]) {
	case '\n':
		memcpy(tok, "\\n", 3);
		return 1;
	case '\r':
		memcpy(tok, "\\r", 3);
		return 1;
	case '\t':
		memcpy(tok, "\\t", 3);
		return 1;
	default:
		break;
	}
	uint32_t cp;
	if (s[0] >= 0x80 && tc_utf8_decode(s, n, &cp) == 2 && cp <= 0x9f) {
		memcpy(tok, "\\u00", 4);
		tok[4] = hex[cp >> 4];
		tok[5] = hex[cp & 0xf];
		tok[6] = '\0';
		return 2;
	}
	tok[0] = '\\';
	tok[1] = 'x';
	tok[2] = hex[s[0] >> 4];
	tok[3] = hex[s[0] & 0xf];
	tok[4] = '\0';
	return 1;
}

size_t tc_term_escape(char *dst, const char *str, size_t n) {
	const unsigned char *s = (const unsigned char *)str;
	size_t out = 0, i = 0;
	while (i < n) {
		size_t run = clean_run(s + i, n - i);
		if (dst) {
			memcpy(dst + out, s + i, run);
		}
		out += run;
		i += run;
		if (i < n) {
			char tok[8];
			i += escape_one(s + i, n - i, tok);
			size_t tl = strlen(tok);
			if (dst) {
				memcpy(dst + out, tok, tl);
			}
			out += tl;
		}
	}
	if (dst) {
		dst[out] = '\0';
	}
	return out;
}

void tc_term_write(FILE *f, const char *str, size_t n) {
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		size_t run = clean_run(s + i, n - i);
		fwrite(s + i, 1, run, f);
		i += run;
		if (i < n) {
			char tok[8];
			i += escape_one(s + i, n - i, tok);
			fputs(tok, f);
		}
	}
}

void tc_term_puts(FILE *f, const char *s) {
	tc_term_write(f, s, strlen(s));
}

char *tc_term_strdup(const char *s) {
	size_t n = strlen(s);
	char *d = tc_xmalloc(tc_term_escape(NULL, s, n) + 1);
	tc_term_escape(d, s, n);
	return d;
}

/* One %s conversion: precision cuts the input, width pads the output. */
static void put_str(FILE *f, const char *s, bool left, int width, int prec) {
	if (!s) {
		s = "(null)";
	}
	size_t n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
	size_t w = width > 0 ? tc_term_escape(NULL, s, n) : 0;
	size_t pad = width > 0 && (size_t)width > w ? (size_t)width - w : 0;
	if (!left) {
		fprintf(f, "%*s", (int)pad, "");
	}
	tc_term_write(f, s, n);
	if (left) {
		fprintf(f, "%*s", (int)pad, "");
	}
}

/*
 * Each conversion but %s is handed to fprintf on its own, with its '*'
 * arguments resolved into the spec, so the va_list is read with exactly the
 * types the format names.
 */
/* One conversion of a printf format, as tc_term_vfprintf rebuilds it. */
struct conv {
	char spec[64]; /* the conversion for fprintf, width and precision resolved */
	bool left;
	int width, prec;
	char conv;
	char mod;      /* first length modifier character, 0 if none */
	size_t mod_len;
};

/* Reads the conversion after a '%' at *pp (flags, width, precision, length,
 * conversion), taking '*' arguments from ap. False for a format this
 * function was not checked against. */
static bool parse_conv(const char **pp, va_list *ap, struct conv *c) {
	const char *p = *pp;
	size_t k = 0;
	c->spec[k++] = '%';
	c->left = false;
	while (*p && strchr("-+ #0", *p)) {
		c->left |= *p == '-';
		if (k < 8) {
			c->spec[k++] = *p;
		}
		p++;
	}
	bool has_width = false;
	c->width = 0;
	c->prec = -1;
	if (*p == '*') {
		has_width = true;
		c->width = va_arg(*ap, int);
		if (c->width < 0) {
			c->left = true;
			c->width = c->width == INT_MIN ? INT_MAX : -c->width;
		}
		p++;
	} else if (*p >= '1' && *p <= '9') {
		has_width = true;
		c->width = (int)strtol(p, (char **)&p, 10);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			c->prec = va_arg(*ap, int);
			p++;
		} else {
			c->prec = (int)strtol(p, (char **)&p, 10);
			c->prec = c->prec < 0 ? 0 : c->prec;
		}
	}
	if (has_width) {
		if (c->left && k < 9) {
			c->spec[k++] = '-';
		}
		k += (size_t)snprintf(c->spec + k, 16, "%d", c->width);
	}
	if (c->prec >= 0) {
		k += (size_t)snprintf(c->spec + k, 16, ".%d", c->prec);
	}
	const char *len = p;
	while (*p && strchr("hljztL", *p)) {
		p++;
	}
	c->mod_len = (size_t)(p - len);
	if (c->mod_len > 2 || !*p) {
		return false;
	}
	memcpy(c->spec + k, len, c->mod_len);
	k += c->mod_len;
	c->mod = c->mod_len ? len[0] : 0;
	c->conv = *p++;
	c->spec[k++] = c->conv;
	c->spec[k] = '\0';
	*pp = p;
	return true;
}

/* Prints one argument as c says; false for %n and unknown conversions. */
static bool put_conv(FILE *f, const struct conv *c, va_list *ap) {
	bool l = c->mod_len == 1 && c->mod == 'l';
	bool ll = c->mod_len == 2 && c->mod == 'l';
	char m = c->mod;
	const char *spec = c->spec;
	switch (c->conv) {
	case 's':
		put_str(f, va_arg(*ap, const char *), c->left, c->width, c->prec);
		break;
	case 'd':
	case 'i':
		if (ll) {
			fprintf(f, spec, va_arg(*ap, long long));
		} else if (l) {
			fprintf(f, spec, va_arg(*ap, long));
		} else if (m == 'j') {
			fprintf(f, spec, va_arg(*ap, intmax_t));
		} else if (m == 'z' || m == 't') {
			fprintf(f, spec, va_arg(*ap, ptrdiff_t));
		} else {
			fprintf(f, spec, va_arg(*ap, int));
		}
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		if (ll) {
			fprintf(f, spec, va_arg(*ap, unsigned long long));
		} else if (l) {
			fprintf(f, spec, va_arg(*ap, unsigned long));
		} else if (m == 'j') {
			fprintf(f, spec, va_arg(*ap, uintmax_t));
		} else if (m == 'z' || m == 't') {
			fprintf(f, spec, va_arg(*ap, size_t));
		} else {
			fprintf(f, spec, va_arg(*ap, unsigned));
		}
		break;
	case 'c':
		fprintf(f, spec, va_arg(*ap, int));
		break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		if (m == 'L') {
			fprintf(f, spec, va_arg(*ap, long double));
		} else {
			fprintf(f, spec, va_arg(*ap, double));
		}
		break;
	case 'p':
		fprintf(f, spec, va_arg(*ap, void *));
		break;
	default:
		return false; /* %n and unknown conversions: stop, as the compiler warned */
	}
	return true;
}

void tc_term_vfprintf(FILE *f, const char *fmt, va_list ap) {
	va_list aq;
	va_copy(aq, ap);
	const char *p = fmt;
	struct conv c;
	while (*p) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(pct - p), f);
		p = pct + 1;
		if (*p == '%') {
			fputc('%', f);
			p++;
			continue;
		}
		/* not a format this function was checked against: stop */
		if (!parse_conv(&p, &aq, &c) || !put_conv(f, &c, &aq)) {
			break;
		}
	}
	va_end(aq);
}

void tc_term_fprintf(FILE *f, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	tc_term_vfprintf(f, fmt, ap);
	va_end(ap);
}
