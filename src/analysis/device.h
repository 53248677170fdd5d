#ifndef TC_ANALYSIS_DEVICE_H
#define TC_ANALYSIS_DEVICE_H

/*
 * Device lookup and peaks: which device a --device NAME means, how a
 * device is labelled, and the peak FLOP/s and memory bandwidth the
 * roofline judges it by.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/findings.h"
#include "model/model.h"
#include "model/peaks.h"

/*
 * Device selection, for every command's --device NAME: a device whose name,
 * or "host: name", equals NAME exactly wins; else the devices whose name
 * contains NAME, ignoring ASCII case. One candidate selects it; several are
 * ambiguous (analysis commands refuse them, export keeps them all).
 */
enum tc_device_match_status {
	TC_DEVICE_MATCH_NONE = 0,  /* no device matches */
	TC_DEVICE_MATCH_EXACT,     /* one device is named NAME exactly */
	TC_DEVICE_MATCH_UNIQUE,    /* no exact name; one name contains NAME */
	TC_DEVICE_MATCH_AMBIGUOUS, /* several exact names, or several containing NAME */
};

struct tc_device_match {
	enum tc_device_match_status status;
	uint32_t device;      /* EXACT or UNIQUE: the device; else TC_NONE */
	uint32_t *candidates; /* the matching devices in model order (malloc'd) */
	size_t n_candidates;
};

/* Match name (NULL: nothing asked, status NONE) into dm; finish dm after. */
void tc_analysis_match_device(const struct tc_model *m, const char *name,
	struct tc_device_match *dm);
void tc_analysis_device_match_finish(struct tc_device_match *dm);
/* The device name selects, TC_NONE when none or several match or name is
 * NULL. */
uint32_t tc_analysis_find_device(const struct tc_model *m, const char *name);
/* "host: name" when device d has a host, else its name. */
void tc_analysis_device_label(const struct tc_model *m, uint32_t d, char *buf, size_t size);

/* Built-in peaks for a device model name (case-insensitive substring
 * match, e.g. "NVIDIA H100 80GB HBM3", "TPU v5 lite"); false if unknown. */
bool tc_peaks_lookup(const char *model, double *flops, double *bw);
/* Device d's row of the data-sheet table (model/peaks.h) from its model
 * name, else its name, with its memory and core count; NULL if none. */
const struct tc_peak_row *tc_device_peak_row(const struct tc_model *m, uint32_t d);
/* Peaks for device d: an override (> 0; --peak-flops, --peak-bw), else the
 * trace's device stats, else the built-in table. Returns "override",
 * "trace" or "table", or NULL when either peak stays unknown. */
const char *tc_device_peaks(const struct tc_model *m, uint32_t d,
	double flops_override, double bw_override, double *flops, double *bw);

/* The device with the largest busy time in util[0, n_util), TC_NONE if
 * none. */
uint32_t tc_busiest_device(const struct tc_device_util *util, size_t n_util);

#endif
