#ifndef TC_DIGEST_MSG_H
#define TC_DIGEST_MSG_H

/*
 * A digest's protobuf-c form, private to digest/: everything else
 * reaches digests through digest/digest.h and the headers it names.
 * tests/layering.sh keeps this header, and digest.pb-c.h with it, out of
 * the other modules.
 *
 * The in-memory form is the protobuf-c message itself, every part of it
 * allocated from the digest's arena, so a digest read from a file and one
 * built or merged here are freed alike.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "digest.pb-c.h"
#include "digest/digest.h"
#include "util/arena.h"
#include "util/error.h"

struct tc_digest {
	struct tc_arena arena;
	Tracectl__Digest *msg;
};

/* For a digest the caller holds (tc_digest_create wraps these). */
void tc_digest_init(struct tc_digest *d);
void tc_digest_finish(struct tc_digest *d);
/* The canonical order of ranks (qsort comparator over Tracectl__Rank *):
 * numbered ranks by number, then by name and input. */
int tc_digest_rank_cmp(const void *pa, const void *pb);
/* False, with err set, when a rank read from a file names a device,
 * track, counter or string it does not hold, holds no summary, holds a
 * field only a job's rank in memory holds (Rank.aside_at, ...) or a time
 * past TC_DIGEST_TIME_MAX. */
bool tc_digest_rank_valid(const Tracectl__Rank *r, struct tc_error *err);
/* A rank as `digest` writes it (steps and marked steps as StepCols,
 * exposed time as runs; parts from a), and back as the messages, field
 * for field; false, with err set, when what it reads is malformed. */
void tc_digest_rank_compact(Tracectl__Rank *r, struct tc_arena *a);
bool tc_digest_rank_expand(Tracectl__Rank *r, struct tc_arena *a,
	struct tc_error *err);
/* The packed message b[0..*n) of type desc (tracectl__digest__descriptor:
 * a digest) without the fields this version does not know (a newer
 * tracectl's, or padding), at any depth, compacted in place so that
 * unpacking holds none of them; *n its new length. False when the wire is
 * malformed (b is then garbage). */
bool tc_digest_strip_unknown(uint8_t *b, size_t *n, const ProtobufCMessageDescriptor *desc);
/* A protobuf-c allocator that takes from arena a and frees nothing. */
void tc_digest_allocator(struct tc_arena *a, ProtobufCAllocator *out);

/*
 * A digest as merge reads it: each rank kept as its packed bytes, with only
 * what merging reads unpacked (RankHead): merging a thousand digests
 * spends its time unpacking otherwise. Everything is in the arena.
 */
struct tc_digest_packed {
	struct tc_arena arena;
	Tracectl__DigestRaw *raw;
	Tracectl__RankHead **heads;     /* one per raw->ranks */
};

void tc_digest_packed_init(struct tc_digest_packed *p);
void tc_digest_packed_finish(struct tc_digest_packed *p);

/* A sketch of durations v[0..n) (sorted here). */
Tracectl__Sketch *tc_sketch_build(struct tc_arena *a, int64_t *v, size_t n);
/* Nearest-rank percentile p (0..100) of a sketch holding n durations,
 * clamped to [lo, hi]; -1 when empty. */
int64_t tc_sketch_percentile(const Tracectl__Sketch *s, uint64_t n, double p,
	int64_t lo, int64_t hi);

/* Job-level op statistics of ranks[0..n): one row per (name, category,
 * kind), in order of first appearance over the ranks in the order given
 * (rank by rank, each in its op order). */
Tracectl__OpStat **tc_digest_merge_ops(struct tc_arena *a, Tracectl__Rank *const *ranks,
	size_t n, size_t *n_out);

/* A fresh digest message in d's arena with magic and version set. */
Tracectl__Digest *tc_digest_new_msg(struct tc_digest *d);

#endif
