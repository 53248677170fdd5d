#ifndef TC_MODEL_CLASSIFY_H
#define TC_MODEL_CLASSIFY_H

/*
 * The one place that decides what an op is from its name and its writer's
 * category, for every reader: op kind, step number and the canonical
 * category (docs/analysis.md, "Classification"). Readers call it once per
 * distinct op, never per event, and keep only their format's own facts
 * (xplane line names, Perfetto track types, Kineto's device categories)
 * outside it, passed in as the place.
 *
 * Pure functions of their inputs: no model, no allocation, no output.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/model.h"

/* Where the op's events lie; the reader knows it from its format. */
enum tc_place {
	TC_PLACE_HOST = 0, /* a host thread / process */
	TC_PLACE_DEVICE,   /* a device op or stream line */
	TC_PLACE_STEPS,    /* a device step line (xplane "Steps") */
};

struct tc_class {
	enum tc_op_kind kind;
	int64_t step;         /* the step number the name carries, -1 none */
	const char *category; /* canonical category, NULL: keep the writer's */
	bool async_done;      /* an XLA "<op>-done[.N]" half (device only) */
	bool dma;             /* a DMA request ("dma_request"): a copy whose
	                       * direction only the event's args can tell */
};

/*
 * Classify one op. name/cat are not NUL-terminated (cat may be NULL or
 * empty: no category). host_default is the kind of a host op that no rule
 * and no known category claims: the writer's convention for a bare host
 * slice (xplane TraceMe: TC_OP_HOST_OP, Perfetto: TC_OP_ANNOTATION, JSON:
 * TC_OP_OTHER).
 */
void tc_classify(const char *name, size_t name_len, const char *cat, size_t cat_len,
	enum tc_place place, enum tc_op_kind host_default, struct tc_class *out);

/* The canonical spelling of a category ("Memcpy" -> "gpu_memcpy"), or NULL
 * when cat is not one the vocabulary renames. */
const char *tc_classify_category(const char *cat, size_t n);

/* A step marker's number: true when name is a step marker; *step is its
 * number, -1 when the name carries none. */
bool tc_classify_step(const char *name, size_t n, int64_t *step);

/* Copy direction from a copy's name ("Memcpy HtoD", "memcpy_d2h"):
 * TC_OP_MEMCPY_OTHER when the name says none or peer-to-peer. */
enum tc_op_kind tc_classify_memcpy(const char *name, size_t n);

/* XLA names the halves of async HLO ops "<op>-start[.N]" and
 * "<op>-done[.N]"; true for a -done half. */
bool tc_classify_async_done(const char *name, size_t n);

/* An XLA async copy half, "copy-start[.N]" or "copy-done[.N]". */
bool tc_classify_async_copy(const char *name, size_t n);

#endif
