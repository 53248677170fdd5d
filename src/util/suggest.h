#ifndef TC_UTIL_SUGGEST_H
#define TC_UTIL_SUGGEST_H

#include <stddef.h>

/* The one of names[0, n) closest to a mistyped word (within an edit or two,
 * by edit distance with transpositions), for "did you mean"; NULL when
 * none is close. Words and names over 64 bytes match nothing. */
const char *tc_suggest(const char *word, const char *const *names, size_t n);

#endif
