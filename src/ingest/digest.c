#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "ingest/digest.h"
#include "util/inflate.h"
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

typedef bool (*unpack_fn)(void *ctx, const uint8_t *data, size_t size, struct tc_error *err);

static bool version_ok(uint32_t version, struct tc_error *err) {
	return (version >= TC_DIGEST_VERSION_MIN && version <= TC_DIGEST_VERSION) ||
		tc_error_set(err, TC_EXIT_INPUT, "digest version %u (this tracectl reads %u to %u)",
			version, TC_DIGEST_VERSION_MIN, TC_DIGEST_VERSION);
}

static bool unpack_full(void *ctx, const uint8_t *data, size_t size, struct tc_error *err) {
	struct tc_digest *d = ctx;
	ProtobufCAllocator alloc;
	tc_digest_allocator(&d->arena, &alloc);
	d->msg = tracectl__digest__unpack(&alloc, size, data);
	if (!d->msg) {
		return tc_error_set(err, TC_EXIT_INPUT, "malformed digest");
	}
	if (!version_ok(d->msg->version, err)) {
		return false;
	}
	for (size_t r = 0; r < d->msg->n_ranks; r++) {
		if (!tc_digest_rank_expand(d->msg->ranks[r], &d->arena, err)) {
			return false;
		}
	}
	return true;
}

static bool unpack_packed(void *ctx, const uint8_t *data, size_t size, struct tc_error *err) {
	struct tc_digest_packed *p = ctx;
	ProtobufCAllocator alloc;
	tc_digest_allocator(&p->arena, &alloc);
	p->raw = tracectl__digest_raw__unpack(&alloc, size, data);
	if (!p->raw) {
		return tc_error_set(err, TC_EXIT_INPUT, "malformed digest");
	}
	if (!version_ok(p->raw->version, err)) {
		return false;
	}
	p->heads = tc_arena_calloc(&p->arena, (p->raw->n_ranks + 1) * sizeof(*p->heads));
	for (size_t r = 0; r < p->raw->n_ranks; r++) {
		p->heads[r] = tracectl__rank_head__unpack(&alloc, p->raw->ranks[r].len,
			p->raw->ranks[r].data);
		if (!p->heads[r]) {
			return tc_error_set(err, TC_EXIT_INPUT, "malformed digest (rank %zu)", r + 1);
		}
	}
	return true;
}

/* The zstd files read that way: a rank's digest is well below, and a
 * compressed trace given by mistake costs little before it is refused. */
#define FAST_ZSTD_MAX ((uint64_t)16 << 20)
#define FAST_ZSTD_OUT ((uint64_t)256 << 20)

/* A digest file, plain or one zstd frame, read whole with one read:
 * merging a thousand small digests spends its time in opening inputs
 * otherwise. False (nothing set) when the file is not one; *done when it
 * was read. */
static bool read_plain(const char *path, const struct tc_limits *lim, unpack_fn unpack,
		void *ctx, bool *done, struct tc_error *err) {
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
			(tc_digest_sniff(head, sizeof(head)) ||
			(tc_zstd_magic(head, sizeof(head)) && (uint64_t)st.st_size <= FAST_ZSTD_MAX))) {
		size_t n = (size_t)st.st_size;
		uint8_t *buf = tc_xmalloc(n), *raw = NULL;
		memcpy(buf, head, sizeof(head));
		if (fread(buf + sizeof(head), 1, n - sizeof(head), f) == n - sizeof(head)) {
			if (!tc_zstd_magic(head, sizeof(head))) {
				*done = true;
				ok = unpack(ctx, buf, n, err);
			} else {
				/* Past the cap, corrupt or no digest, the input layer
				 * reads the file again and says why. */
				uint64_t cap = FAST_ZSTD_OUT < lim->max_input ? FAST_ZSTD_OUT :
					lim->max_input;
				struct tc_error ignored;
				tc_error_init(&ignored);
				if (tc_unzstd(buf, n, (size_t)cap, &raw, &n, &ignored) &&
						tc_digest_sniff(raw, n)) {
					*done = true;
					ok = unpack(ctx, raw, n, err);
				}
			}
		}
		free(raw);
		free(buf);
	}
	fclose(f);
	return ok;
}

static bool read_digest(const char *path, const struct tc_limits *lim, unpack_fn unpack,
		void *ctx, struct tc_error *err) {
	bool done;
	bool ok = read_plain(path, lim, unpack, ctx, &done, err);
	if (!done) {
		/* Compressed, or not a digest: the input layer says which. */
		struct tc_input in;
		const uint8_t *data;
		size_t size;
		if (!tc_input_open(&in, path, lim, err)) {
			tc_error_path(err, path);
			return false;
		}
		if (!tc_digest_sniff(in.head, in.head_len)) {
			tc_error_set(err, TC_EXIT_INPUT, "not a tracectl digest");
		} else if (tc_input_map(&in, &data, &size, err)) {
			ok = unpack(ctx, data, size, err);
		}
		tc_input_finish(&in);
	}
	if (!ok) {
		tc_error_path(err, path);
	}
	return ok;
}

bool tc_ingest_digest(const char *path, const struct tc_limits *lim, struct tc_digest *d,
		struct tc_error *err) {
	return read_digest(path, lim, unpack_full, d, err);
}

bool tc_ingest_digest_packed(const char *path, const struct tc_limits *lim,
		struct tc_digest_packed *p, struct tc_error *err) {
	return read_digest(path, lim, unpack_packed, p, err);
}
