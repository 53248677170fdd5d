/*
 * Reading digest files: unpacking, compressed or not, whole or with the
 * ranks kept packed for merge (ingest/digest.c detects them).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "digest/msg.h"
#include "digest/read.h"
#include "util/inflate.h"
#include "util/pbwire.h"
#include "util/xalloc.h"

/* data is writable: unknown fields are stripped in place first. */
typedef bool (*unpack_fn)(void *ctx, uint8_t *data, size_t size, struct tc_error *err);

static bool version_ok(uint32_t version, struct tc_error *err) {
	return (version >= TC_DIGEST_VERSION_MIN && version <= TC_DIGEST_VERSION) ||
		tc_error_set(err, TC_EXIT_INPUT, "digest version %u (this tracectl reads %u to %u)",
			version, TC_DIGEST_VERSION_MIN, TC_DIGEST_VERSION);
}

/* Fields this version does not know cost no memory: padding a small
 * digest with an unknown field of hundreds of MB otherwise holds it twice. */
static bool known_only(uint8_t *data, size_t *size, struct tc_error *err) {
	return tc_digest_strip_unknown(data, size, &tracectl__digest__descriptor) ||
		tc_error_set(err, TC_EXIT_INPUT, "malformed digest");
}

static bool unpack_full(void *ctx, uint8_t *data, size_t size, struct tc_error *err) {
	struct tc_digest *d = ctx;
	ProtobufCAllocator alloc;
	tc_digest_allocator(&d->arena, &alloc);
	if (!known_only(data, &size, err)) {
		return false;
	}
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

/* A rank merge copies as bytes, unpacked and checked as the commands that
 * read it check it: merge writes no digest that every reader refuses. */
static bool rank_readable(const ProtobufCBinaryData *bytes, size_t i, struct tc_error *err) {
	struct tc_arena a;
	tc_arena_init(&a, 1 << 16);
	ProtobufCAllocator alloc;
	tc_digest_allocator(&a, &alloc);
	Tracectl__Rank *r = tracectl__rank__unpack(&alloc, bytes->len, bytes->data);
	bool ok = r ? tc_digest_rank_expand(r, &a, err) && tc_digest_rank_valid(r, err) :
		tc_error_set(err, TC_EXIT_INPUT, "malformed digest (rank %zu)", i + 1);
	tc_arena_finish(&a);
	return ok;
}

static bool unpack_packed(void *ctx, uint8_t *data, size_t size, struct tc_error *err) {
	struct tc_digest_packed *p = ctx;
	ProtobufCAllocator alloc;
	tc_digest_allocator(&p->arena, &alloc);
	if (!known_only(data, &size, err)) {
		return false;
	}
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
		if (!rank_readable(&p->raw->ranks[r], r, err)) {
			return false;
		}
	}
	return true;
}

/* The zstd files read that way: a rank's digest is well below, and a
 * compressed trace given by mistake costs little before it is refused. */
#define FAST_ZSTD_MAX ((uint64_t)16 << 20)
#define FAST_ZSTD_OUT ((uint64_t)256 << 20)
/* ... and decompressed in one go up to this many times their size (a
 * digest is 1.2-3.3x): more, they are read as a stream that skips what
 * it does not know, so a small file padded with an unknown field of
 * hundreds of MB is never held. */
#define FAST_ZSTD_RATIO ((uint64_t)32)

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
				cap = cap < FAST_ZSTD_RATIO * n + (1 << 20) ? cap :
					FAST_ZSTD_RATIO * n + (1 << 20);
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

/* A digest read as a stream, a chunk at a time. */
struct stream {
	struct tc_input *in;
	struct tc_error *err;
	size_t at, len;
	bool failed;                   /* a read error, err set */
	bool cut;                      /* the end inside a varint */
	uint8_t buf[1 << 16];
};

/* More bytes in buf; false at the end or on an error. */
static bool refill(struct stream *s) {
	if (s->at < s->len) {
		return true;
	}
	ssize_t n = tc_input_read(s->in, s->buf, sizeof(s->buf), s->err);
	s->failed |= n < 0;
	s->at = 0;
	s->len = n > 0 ? (size_t)n : 0;
	return n > 0;
}

static bool next_varint(struct stream *s, uint64_t *v) {
	*v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (!refill(s)) {
			s->cut |= shift > 0;
			return false;
		}
		uint8_t c = s->buf[s->at++];
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80) {
			return true;
		}
	}
	s->cut = true;
	return false;
}

/* n bytes appended to *out (NULL: skipped), growing it only as they come:
 * a length a crafted field states costs nothing until its bytes are read. */
static bool next_bytes(struct stream *s, uint64_t n, uint8_t **out, size_t *len, size_t *cap) {
	while (n && refill(s)) {
		size_t k = s->len - s->at < n ? s->len - s->at : (size_t)n;
		if (out) {
			TC_GROW(*out, *cap, *len + k);
			memcpy(*out + *len, s->buf + s->at, k);
			*len += k;
		}
		s->at += k;
		n -= k;
	}
	return !n;
}

/*
 * The digest in, its top-level fields read as they come: those this
 * version does not know skipped, never held; a known message (a rank)
 * stripped of unknown fields once read. So it holds the digest's known
 * content and one rank's unknown fields at most. NULL with err set.
 */
static uint8_t *read_stream(struct tc_input *in, size_t *size, struct tc_error *err) {
	struct stream *s = tc_xcalloc(1, sizeof(*s));
	s->in = in;
	s->err = err;
	uint8_t *out = NULL;
	size_t n = 0, cap = 0;
	uint64_t key, v;
	bool ok = true;
	while (ok && next_varint(s, &key)) {
		const ProtobufCFieldDescriptor *fd = key >> 3 > UINT32_MAX ? NULL :
			protobuf_c_message_descriptor_get_field(&tracectl__digest__descriptor,
			(unsigned)(key >> 3));
		unsigned wt = key & 7;
		TC_GROW(out, cap, n + 20);
		size_t at = n;
		n += tc_pb_put_varint(out + n, key);
		if (wt == 0) {
			ok = next_varint(s, &v);
			n += tc_pb_put_varint(out + n, v);
		} else if (wt == 1 || wt == 5) {
			ok = next_bytes(s, wt == 1 ? 8 : 4, fd ? &out : NULL, &n, &cap);
		} else if (wt == 2 && next_varint(s, &v)) {
			/* Read after room for the length, stripped, then moved down. */
			size_t c = n + 10;
			n = c;
			ok = next_bytes(s, v, fd ? &out : NULL, &n, &cap);
			size_t len = n - c;
			if (ok && fd && fd->type == PROTOBUF_C_TYPE_MESSAGE) {
				ok = tc_digest_strip_unknown(out + c, &len, fd->descriptor);
			}
			n = at + tc_pb_put_varint(out + at, key);
			n += tc_pb_put_varint(out + n, len);
			memmove(out + n, out + c, fd ? len : 0);
			n += fd ? len : 0;
		} else {
			ok = false;
		}
		n = fd ? n : at;
	}
	ok &= !s->failed && !s->cut;
	if (!ok && !s->failed) {
		tc_error_set(err, TC_EXIT_INPUT, "malformed digest");
	}
	free(s);
	if (!ok) {
		free(out);
		return NULL;
	}
	*size = n;
	return out ? out : tc_xmalloc(1);
}

/* The content of path through the input layer (compressed other than as
 * read_plain reads, or not a digest: it says which), read as a stream;
 * NULL with err set. */
static uint8_t *read_input(const char *path, const struct tc_limits *lim, size_t *size,
		struct tc_error *err) {
	struct tc_input in;
	uint8_t *data = NULL;
	if (!tc_input_open(&in, path, lim, err)) {
		return NULL;
	}
	if (!tc_digest_sniff(in.head, in.head_len)) {
		tc_error_set(err, TC_EXIT_INPUT, "not a tracectl digest");
	} else {
		data = read_stream(&in, size, err);
	}
	tc_input_finish(&in);
	return data;
}

static bool read_digest(const char *path, const struct tc_limits *lim, unpack_fn unpack,
		void *ctx, struct tc_error *err) {
	bool done;
	bool ok = read_plain(path, lim, unpack, ctx, &done, err);
	if (!done) {
		size_t size;
		uint8_t *data = read_input(path, lim, &size, err);
		ok = data && unpack(ctx, data, size, err);
		free(data);
	}
	if (!ok) {
		tc_error_path(err, path);
	}
	return ok;
}

bool tc_digest_read(const char *path, const struct tc_limits *lim, struct tc_digest *d,
		struct tc_error *err) {
	return read_digest(path, lim, unpack_full, d, err);
}

bool tc_digest_read_packed(const char *path, const struct tc_limits *lim,
		struct tc_digest_packed *p, struct tc_error *err) {
	return read_digest(path, lim, unpack_packed, p, err);
}

bool tc_digest_read_mem(const uint8_t *data, size_t size, struct tc_digest *d,
		struct tc_error *err) {
	uint8_t *copy = tc_xmalloc(size ? size : 1);
	memcpy(copy, data, size);
	bool ok = unpack_full(d, copy, size, err);
	free(copy);
	return ok;
}

bool tc_digest_read_packed_mem(const uint8_t *data, size_t size,
		struct tc_digest_packed *p, struct tc_error *err) {
	uint8_t *copy = tc_xmalloc(size ? size : 1);
	memcpy(copy, data, size);
	bool ok = unpack_packed(p, copy, size, err);
	free(copy);
	return ok;
}
