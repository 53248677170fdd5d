#ifndef TC_UTIL_CXXNAME_H
#define TC_UTIL_CXXNAME_H

/*
 * Names people can read: a kernel's C++ signature
 * ("void at::native::(anonymous namespace)::softmax_warp_forward<float, ...>(float*, ...)")
 * shortened for text tables and the report. The rule: drop the return type
 * ("void "), the parameter list (and " const"), template arguments past the
 * first level ("<...>"), the namespaces of template arguments and all but
 * the last namespace of the name itself ("native::softmax_warp_forward<float,
 * float, float, 1, false, false>"); "(anonymous namespace)" goes too.
 * Names that do not look like C++ signatures, or do not parse as one, are
 * kept whole. Full names stay in JSON, under --wide and in titles.
 *
 * Results are malloc'd; the caller frees them.
 */

#include <stddef.h>

/*
 * s at detail level (1 = the rule above; each level up keeps one more level
 * of template arguments, then the parameter lists, then s whole).
 */
char *tc_cxxname_short(const char *s, unsigned level);

/*
 * out[i] = names[i] shortened, raising the level of names that would read
 * alike until every two different names read differently (equal names stay
 * equal): the forward and backward batch-norm kernels keep what tells them
 * apart.
 */
void tc_cxxname_distinct(const char *const *names, size_t n, char **out);

#endif
