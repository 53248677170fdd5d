#ifndef TC_MODEL_RANK_H
#define TC_MODEL_RANK_H

/*
 * Which rank an input file holds. The model has no rank identity yet: until
 * it does, each source file of a multi-file run stands for one rank, named
 * here so every caller names it alike.
 */

#include <stddef.h>
#include <stdint.h>
#include "model/model.h"

/* Source s's rank name into buf: "rank N" when the reader named its host
 * so (Kineto distributedInfo.rank), else "rank N" from "rank-N", "rank_N"
 * or "rankN" in the file name (any case), else the file name without its
 * folder. */
void tc_model_source_rank(const struct tc_model *m, uint32_t s, char *buf, size_t size);

#endif
