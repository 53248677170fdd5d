#ifndef TC_OUTPUT_SUMMARY_WRITE_H
#define TC_OUTPUT_SUMMARY_WRITE_H

#include <stdbool.h>
#include <stdio.h>
#include "model/findings.h"
#include "model/memview.h"
#include "model/model.h"
#include "model/report.h"

#define TC_SUMMARY_SCHEMA "tracectl.summary/3"
#define TC_INFO_SCHEMA "tracectl.info/1"

struct tc_summary_opts {
	size_t top;       /* ops listed */
	const struct tc_analysis *analysis; /* step breakdown + findings section, or NULL */
	size_t findings;  /* findings listed in that section */
	const struct tc_mem_view *memory; /* allocator records' view, or NULL */
};

void tc_write_summary_text(FILE *f, const struct tc_model *m, const struct tc_summary *s,
	const struct tc_summary_opts *o);
void tc_write_summary_json(FILE *f, const struct tc_model *m, const struct tc_summary *s,
	const struct tc_summary_opts *o);

/* `tracectl info`: the raw structure of the model. */
void tc_write_info_text(FILE *f, const struct tc_model *m);
void tc_write_info_json(FILE *f, const struct tc_model *m);

#endif
