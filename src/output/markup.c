#include <stdbool.h>
#include "output/markup.h"

/*
 * The five markup characters as entities (XML's, which HTML5 knows too);
 * C0 controls but tab, newline and carriage return cannot appear in XML 1.0
 * at all, and invalid UTF-8 would make the file unreadable: both become
 * U+FFFD. Valid UTF-8 passes unchanged.
 */
void tc_markup_escape(FILE *f, const char *s) {
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned char ch = *p;
		if (ch < 0x80) {
			switch (ch) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&apos;", f); break;
			case '\t': case '\n': case '\r': fputc(ch, f); break;
			default:
				if (ch < 0x20 || ch == 0x7f) {
					fputs("\xef\xbf\xbd", f);
				} else {
					fputc(ch, f);
				}
			}
			p++;
			continue;
		}
		size_t len = ch >= 0xf0 && ch <= 0xf4 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc2 && ch < 0xe0 ? 2 : 0;
		bool ok = len > 0;
		for (size_t k = 1; ok && k < len; k++) {
			ok = (p[k] & 0xc0) == 0x80;
		}
		/* Overlong, surrogate and beyond-U+10FFFF forms. */
		if (ok && len == 3) {
			ok = !(ch == 0xe0 && p[1] < 0xa0) && !(ch == 0xed && p[1] >= 0xa0);
		} else if (ok && len == 4) {
			ok = !(ch == 0xf0 && p[1] < 0x90) && !(ch == 0xf4 && p[1] >= 0x90);
		}
		if (!ok) {
			fputs("\xef\xbf\xbd", f);
			p++;
			continue;
		}
		fwrite(p, 1, len, f);
		p += len;
	}
}
