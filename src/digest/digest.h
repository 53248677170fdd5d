#ifndef TC_DIGEST_DIGEST_H
#define TC_DIGEST_DIGEST_H

/*
 * A digest (proto/digest.proto, docs/digest.md): per-rank summaries of
 * traces that merge. To everything but the digest code a digest is an
 * opaque handle reached through functions (these, digest/read.h,
 * digest/build.h, digest/ranks.h, digest/write.h); its protobuf-c form,
 * struct tc_digest's layout included, is in digest/msg.h, private to
 * digest/.
 *
 * Merging is a function of the set of ranks alone: ranks are sorted
 * canonically and the job-level op statistics are recomputed from them,
 * so the merged bytes do not depend on order or grouping.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

/* "TCDIGEST" read as a little-endian fixed64: the first 9 bytes of a
 * digest are 0x09 (field 1, fixed64) and these 8 characters. */
#define TC_DIGEST_MAGIC 0x5453454749444354ull
/* Version 4 keeps exposed collective time per step only; 3 wrote steps
 * as columns (StepCols); both and 2 are read. */
#define TC_DIGEST_VERSION 4
#define TC_DIGEST_VERSION_MIN 2
/* An op's durations stay exact (value, count) pairs up to this many
 * distinct values; more become logarithmic buckets. */
#define TC_SKETCH_EXACT_MAX 256
/* Relative accuracy of a bucket's value (DDSketch alpha). */
#define TC_SKETCH_ALPHA 0.01
/* Times a digest may hold, ps either side of its trace's first event
 * (about 3.3 days), and the most ranks' clocks may lie apart to be
 * aligned: a job shifts and subtracts them (collectives across ranks
 * through several clock offsets), and sums of up to 32 such values stay
 * inside int64. */
#define TC_DIGEST_TIME_MAX ((int64_t)1 << 58)

/* A digest, its ranks unpacked. */
struct tc_digest;
/* A digest as merge reads it: each rank kept as its packed bytes. */
struct tc_digest_packed;

/* An empty digest (no ranks); destroy it with tc_digest_destroy (NULL is
 * fine), which frees everything read into it or made in it. */
struct tc_digest *tc_digest_create(void);
void tc_digest_destroy(struct tc_digest *d);
/* The same for a packed digest. */
struct tc_digest_packed *tc_digest_packed_create(void);
void tc_digest_packed_destroy(struct tc_digest_packed *p);

/* How many ranks d holds. */
size_t tc_digest_n_ranks(const struct tc_digest *d);
/* False, with err set, when rank i of d would not read back from a file
 * (tc_digest_rank_valid in digest/msg.h). */
bool tc_digest_rank_check(const struct tc_digest *d, size_t i, struct tc_error *err);
/* Every rank of d as `digest` writes it (tc_digest_rank_compact), in
 * place: do it once, just before writing d. */
void tc_digest_compact(struct tc_digest *d);

/* Merge the ranks of in[0..n) into out (empty, from tc_digest_create);
 * out points into the inputs, which must outlive it. False with err set
 * when a rank appears twice, naming it and the labels[] (file names) of
 * the two inputs that hold it. */
bool tc_digest_merge(struct tc_digest *const *in, const char *const *labels, size_t n,
	struct tc_digest *out, struct tc_error *err);

/* tc_digest_merge on packed digests: out's ranks are their bytes, as
 * they were packed, in canonical order; written, they are the bytes
 * tc_digest_merge's digest writes. out points into the inputs. */
bool tc_digest_merge_packed(struct tc_digest_packed *const *in, const char *const *labels,
	size_t n, struct tc_digest_packed *out, struct tc_error *err);

#endif
