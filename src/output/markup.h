#ifndef TC_OUTPUT_MARKUP_H
#define TC_OUTPUT_MARKUP_H

#include <stdio.h>

/* s as XML or HTML text or attribute value (JUnit XML, the report page):
 * markup characters as entities; C0 controls but tab, newline and
 * carriage return, DEL, U+FFFE, U+FFFF and each byte of invalid UTF-8
 * (bad lead bytes, overlong forms, surrogates, cut-short sequences) as
 * U+FFFD, so the text is well-formed for any input. */
void tc_markup_escape(FILE *f, const char *s);

#endif
