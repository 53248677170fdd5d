#ifndef TC_MODEL_RANK_H
#define TC_MODEL_RANK_H

/*
 * Rank identity: which rank of a distributed job each host (and so each
 * device and track) is. Readers set what the trace says (Kineto
 * distributedInfo); tc_model_assign_ranks fills the rest from host and
 * file names, then from the files' order, once every file is read.
 */

#include <stddef.h>
#include <stdint.h>
#include "model/model.h"

/*
 * Before finalize, after every reader: give each host without a rank one
 * from "rank N" in its name, else rank-N / rank_N / rankN / worker-N /
 * workerN in its file's name (any case); when two or more hosts, one per
 * file, still have none, number them in file order. Accelerators without
 * a pid take the pid of their host's only process. Warns when two hosts claim
 * one rank (then every host is numbered in file order) and when the
 * trace's world_size names ranks no input holds.
 */
void tc_model_assign_ranks(struct tc_model *m);

/*
 * Add src's sources and hosts (with their ranks and world sizes, not their
 * devices or events) to dst: a job's host table built one rank model at a
 * time, for tc_model_assign_ranks to check as it checks one model of all.
 * Returns the index in dst of src's first source.
 */
uint32_t tc_model_add_hosts_of(struct tc_model *dst, const struct tc_model *src);

/* Device d's rank, -1 unknown. */
int32_t tc_model_device_rank(const struct tc_model *m, uint32_t d);

/* Device d's name for people into buf: "rank 3: GPU 0" when the model
 * holds several ranks, else its name ("host" for no device). */
void tc_model_device_label(const struct tc_model *m, uint32_t d, char *buf, size_t size);

/* Distinct known ranks among the hosts: 2 or more makes a multi-rank job. */
size_t tc_model_n_ranks(const struct tc_model *m);

/*
 * A new finalized model holding what the hosts with keep_host[h] set hold
 * (their devices' tracks, events, flows between them and counters), on
 * m's clock. Device, op, string and arg ids stay m's, so results on it
 * name m's devices; the other devices are there, without tracks.
 */
struct tc_model *tc_model_subset(const struct tc_model *m, const uint8_t *keep_host);

/* Source s's rank name into buf: "rank N" when the trace or a name gave
 * the rank, else the file name without its folder. */
void tc_model_source_rank(const struct tc_model *m, uint32_t s, char *buf, size_t size);

#endif
