#ifndef TC_OUTPUT_MARKUP_H
#define TC_OUTPUT_MARKUP_H

#include <stdio.h>

/* s as XML or HTML text or attribute value (JUnit XML, the report page):
 * markup characters as entities, C0 controls but tab, newline and
 * carriage return and invalid UTF-8 as U+FFFD. */
void tc_markup_escape(FILE *f, const char *s);

#endif
