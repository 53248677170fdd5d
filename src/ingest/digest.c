#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "ingest/digest.h"
#include "util/xalloc.h"

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

static bool unpack(struct tc_digest *d, const uint8_t *data, size_t size,
		struct tc_error *err) {
	ProtobufCAllocator alloc;
	tc_digest_allocator(d, &alloc);
	d->msg = tracectl__digest__unpack(&alloc, size, data);
	if (!d->msg) {
		return tc_error_set(err, TC_EXIT_INPUT, "malformed digest");
	}
	if (d->msg->version != TC_DIGEST_VERSION) {
		return tc_error_set(err, TC_EXIT_INPUT, "digest version %u (this tracectl reads %u)",
			d->msg->version, TC_DIGEST_VERSION);
	}
	return true;
}

/* A plain digest file read whole with one read: merging a thousand small
 * digests spends its time in opening inputs otherwise. False (nothing
 * set) when the file is not one; *done when it was read. */
static bool read_plain(const char *path, const struct tc_limits *lim, struct tc_digest *d,
		bool *done, struct tc_error *err) {
	*done = false;
	FILE *f = fopen(path, "rb");
	if (!f) {
		return false;
	}
	struct stat st;
	uint8_t head[9];
	bool ok = false;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
			(uint64_t)st.st_size <= lim->max_input &&
			fread(head, 1, sizeof(head), f) == sizeof(head) &&
			tc_digest_sniff(head, sizeof(head))) {
		size_t n = (size_t)st.st_size;
		uint8_t *buf = tc_xmalloc(n);
		memcpy(buf, head, sizeof(head));
		if (fread(buf + sizeof(head), 1, n - sizeof(head), f) == n - sizeof(head)) {
			*done = true;
			ok = unpack(d, buf, n, err);
		}
		free(buf);
	}
	fclose(f);
	return ok;
}

bool tc_ingest_digest(const char *path, const struct tc_limits *lim, struct tc_digest *d,
		struct tc_error *err) {
	bool done;
	bool fast = read_plain(path, lim, d, &done, err);
	if (done) {
		if (!fast) {
			tc_error_path(err, path);
		}
		return fast;
	}
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
		ok = unpack(d, data, size, err);
	}
	if (!ok) {
		tc_error_path(err, path);
	}
	tc_input_finish(&in);
	return ok;
}
