/*
 * Text for XML and HTML (JUnit files, the report page): whatever bytes a
 * trace's names hold, the result is well-formed XML 1.0.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "output/markup.h"
#include "util/utf8.h"

#define REPLACEMENT "\xef\xbf\xbd"

/* XML 1.0's Char production leaves out C0 controls but tab, newline and
 * carriage return, surrogates (never valid UTF-8) and U+FFFE/U+FFFF; DEL
 * is allowed there but means nothing in a name. */
static bool xml_char(uint32_t cp) {
	if (cp < 0x20) {
		return cp == '\t' || cp == '\n' || cp == '\r';
	}
	return cp != 0x7f && cp != 0xfffe && cp != 0xffff;
}

/*
 * The five markup characters as entities (XML's, which HTML5 knows too);
 * invalid UTF-8 (each byte of it) and characters XML cannot hold become
 * U+FFFD. Valid UTF-8 of XML characters passes unchanged.
 */
void tc_markup_escape(FILE *f, const char *s) {
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s);
	while (n) {
		uint32_t cp = *p;
		size_t len = cp < 0x80 ? 1 : tc_utf8_decode(p, n, &cp);
		if (len == 0 || !xml_char(cp)) {
			fputs(REPLACEMENT, f);
			len = len ? len : 1;
		} else if (cp == '&') {
			fputs("&amp;", f);
		} else if (cp == '<') {
			fputs("&lt;", f);
		} else if (cp == '>') {
			fputs("&gt;", f);
		} else if (cp == '"') {
			fputs("&quot;", f);
		} else if (cp == '\'') {
			fputs("&apos;", f);
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
		n -= len;
	}
}
