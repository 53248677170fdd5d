#include <stdlib.h>
#include "output/digest_write.h"
#include "util/xalloc.h"

void tc_write_digest(FILE *f, const struct tc_digest *d) {
	size_t n = tracectl__digest__get_packed_size(d->msg);
	uint8_t *buf = tc_xmalloc(n ? n : 1);
	tracectl__digest__pack(d->msg, buf);
	fwrite(buf, 1, n, f);
	free(buf);
}
