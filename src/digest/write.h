#ifndef TC_DIGEST_WRITE_H
#define TC_DIGEST_WRITE_H

#include <stdbool.h>
#include <stdio.h>
#include "digest/digest.h"

/* Pack d (its protobuf-c message) onto f, as one zstd frame when compress
 * and this build has libzstd, else as it is. */
void tc_write_digest(FILE *f, const struct tc_digest *d, bool compress);

/* Pack a merged packed digest onto f, the same way. */
void tc_write_digest_packed(FILE *f, const struct tc_digest_packed *p, bool compress);

#endif
