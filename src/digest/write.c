/* Writing a digest: its protobuf bytes, as one zstd frame when possible. */
#include <stdlib.h>
#include "digest/msg.h"
#include "digest/write.h"
#include "util/xalloc.h"
#include "util/zstdpack.h"

static void write_message(FILE *f, const ProtobufCMessage *msg, bool compress) {
	size_t n = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = tc_xmalloc(n ? n : 1), *z;
	size_t zn;
	protobuf_c_message_pack(msg, buf);
	if (compress && tc_zstd_pack(buf, n, TC_ZSTD_LEVEL, &z, &zn)) {
		fwrite(z, 1, zn, f);
		free(z);
	} else {
		fwrite(buf, 1, n, f);
	}
	free(buf);
}

void tc_write_digest(FILE *f, const struct tc_digest *d, bool compress) {
	write_message(f, &d->msg->base, compress);
}

void tc_write_digest_packed(FILE *f, const struct tc_digest_packed *p, bool compress) {
	write_message(f, &p->raw->base, compress);
}
