#ifndef TC_OUTPUT_RANK_WRITE_H
#define TC_OUTPUT_RANK_WRITE_H

/*
 * Rank identity and the per-rank results in every writer: a device's rank
 * cell and label, its host/rank/pid JSON members, and the rank and
 * collective tables of a multi-rank job (analysis/ranks.h).
 */

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "model/model.h"
#include "output/jsonw.h"

struct tc_ranks;

/* Device d's rank as a table cell: "3", "-" when unknown. buf: TC_FMT_LEN. */
const char *tc_write_rank(char *buf, const struct tc_model *m, uint32_t d);
/* "rank 3: GPU 0" when the model holds several ranks, else the device's
 * name ("host" for TC_NONE). */
const char *tc_write_device_label(char *buf, size_t size, const struct tc_model *m, uint32_t d);
/* Members "host", "rank" and "pid" of device d (null when unknown). */
void tc_write_device_identity_json(struct tc_jw *w, const struct tc_model *m, uint32_t d);

/* The job's rank table, spread and collectives (nothing for one rank). */
void tc_write_ranks_text(FILE *f, const struct tc_model *m, const struct tc_ranks *r);
/* Key "ranks" (an object) into the open object; nothing for one rank. */
void tc_write_ranks_json(struct tc_jw *w, const struct tc_model *m, const struct tc_ranks *r);

#endif
