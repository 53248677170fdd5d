#ifndef TC_TESTS_FUZZ_FUZZ_H
#define TC_TESTS_FUZZ_FUZZ_H

/*
 * Shared by the libFuzzer targets: limits small enough that one input cannot
 * exhaust the fuzzer's memory (2 GiB rss by default) but large enough not to
 * hide bugs, and a pass over everything downstream of ingest.
 */

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "ingest/ingest.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* libFuzzer's own mutator, for custom mutators to fall back on. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

void tc_fuzz_limits(struct tc_limits *lim);

/* /dev/null, opened once, for reports nobody reads. */
FILE *tc_fuzz_devnull(void);

/* What summarize, bottlenecks and steps print of a, to /dev/null. */
struct tc_analysis;
void tc_fuzz_write_analysis(const struct tc_model *m, struct tc_analysis *a);
/* The same for ranks[0..n) of a digest (skel their skeleton), then a
 * finished, their `ops --by device` table built and skel destroyed. */
struct Tracectl__Rank;
void tc_fuzz_write_ranks(struct tc_model *skel, struct tc_analysis *a,
	struct Tracectl__Rank *const *ranks, size_t n);

/* Ingest data with reader r (NULL: sniff), then finalize, summarize and
 * write every report to /dev/null. */
void tc_fuzz_ingest(const struct tc_reader *r, const uint8_t *data, size_t size);

#endif
