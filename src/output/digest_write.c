#include <stdlib.h>
#include "output/digest_write.h"
#include "util/xalloc.h"

static void write_message(FILE *f, const ProtobufCMessage *msg) {
	size_t n = protobuf_c_message_get_packed_size(msg);
	uint8_t *buf = tc_xmalloc(n ? n : 1);
	protobuf_c_message_pack(msg, buf);
	fwrite(buf, 1, n, f);
	free(buf);
}

void tc_write_digest(FILE *f, const struct tc_digest *d) {
	write_message(f, &d->msg->base);
}

void tc_write_digest_packed(FILE *f, const struct tc_digest_packed *p) {
	write_message(f, &p->raw->base);
}
