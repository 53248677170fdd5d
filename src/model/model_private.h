#ifndef TC_MODEL_MODEL_PRIVATE_H
#define TC_MODEL_MODEL_PRIVATE_H

/*
 * What model.c, model_args.c (the packed-arg encoding) and model_merge.c
 * share. Only files in src/model/ include it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"

/* model.c */
void tc_model_events_finish(struct tc_events *e);
void tc_model_events_reserve(struct tc_events *e, size_t need);
void tc_model_op_rehash(struct tc_model *m, size_t nslots);
/* Brings back the track column that finalize drops. */
void tc_model_restore_track_column(struct tc_model *m);
/* The args as a dense column (finalize permutes it). */
void tc_model_args_dense(struct tc_events *e);
/* The args made sparse again if few events have any. */
void tc_model_args_pack(struct tc_events *e);
void tc_model_warn_add(struct tc_model *m, uint32_t msg, uint64_t count, bool inputs);

/* model_args.c */
/* Ends the open arg list, if any. */
void tc_model_args_close(struct tc_model *m);
/* Decodes the arg record at pos into *out; *last when it ends its list.
 * Returns the offset just past it. */
uint32_t tc_model_arg_decode(const struct tc_model *m, uint32_t pos, struct tc_arg *out,
		bool *last);

/* model_costs.c: the cost column's cache (tc_model_costs), made empty at
 * create (finalize empties it: the events it keys may have moved) and
 * freed at destroy. */
void tc_model_costs_init(struct tc_model *m);
void tc_model_costs_finish(struct tc_model *m);

#endif
