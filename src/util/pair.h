#ifndef TC_UTIL_PAIR_H
#define TC_UTIL_PAIR_H

#include <stdbool.h>

/*
 * fn(there) on a second thread beside fn(here) on this one, returning when
 * both are done. Without two, or when no thread starts, both run here in
 * turn, here first: fn must give the same result either way (two halves
 * of the work, or workers taking items from one shared counter).
 */
void tc_run_pair(void *(*fn)(void *), void *here, void *there, bool two);

#endif
