#include <string.h>
#include <sys/stat.h>
#include "ingest/digest.h"

bool tc_digest_sniff(const uint8_t *head, size_t len) {
	static const uint8_t magic[9] = { 0x09, 'T', 'C', 'D', 'I', 'G', 'E', 'S', 'T' };
	return len >= sizeof(magic) && memcmp(head, magic, sizeof(magic)) == 0;
}

bool tc_ingest_is_digest(const char *path, const struct tc_limits *lim) {
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		return false;
	}
	struct tc_input in;
	struct tc_error err;
	tc_error_init(&err);
	if (!tc_input_open(&in, path, lim, &err)) {
		return false;
	}
	bool yes = tc_digest_sniff(in.head, in.head_len);
	tc_input_finish(&in);
	return yes;
}

bool tc_ingest_digest(const char *path, const struct tc_limits *lim, struct tc_digest *d,
		struct tc_error *err) {
	struct tc_input in;
	if (!tc_input_open(&in, path, lim, err)) {
		tc_error_path(err, path);
		return false;
	}
	const uint8_t *data;
	size_t size;
	bool ok = false;
	if (!tc_digest_sniff(in.head, in.head_len)) {
		tc_error_set(err, TC_EXIT_INPUT, "not a tracectl digest");
	} else if (tc_input_map(&in, &data, &size, err)) {
		ProtobufCAllocator alloc;
		tc_digest_allocator(d, &alloc);
		d->msg = tracectl__digest__unpack(&alloc, size, data);
		if (!d->msg) {
			tc_error_set(err, TC_EXIT_INPUT, "malformed digest");
		} else if (d->msg->version != TC_DIGEST_VERSION) {
			tc_error_set(err, TC_EXIT_INPUT, "digest version %u (this tracectl reads %u)",
				d->msg->version, TC_DIGEST_VERSION);
		} else {
			ok = true;
		}
	}
	if (!ok) {
		tc_error_path(err, path);
	}
	tc_input_finish(&in);
	return ok;
}
