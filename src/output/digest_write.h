#ifndef TC_OUTPUT_DIGEST_WRITE_H
#define TC_OUTPUT_DIGEST_WRITE_H

#include <stdio.h>
#include "model/digest.h"

/* Pack d's message (protobuf-c) onto f. */
void tc_write_digest(FILE *f, const struct tc_digest *d);

/* Pack a merged packed digest onto f. */
void tc_write_digest_packed(FILE *f, const struct tc_digest_packed *p);

#endif
