#ifndef TC_OUTPUT_FINDING_TEXT_H
#define TC_OUTPUT_FINDING_TEXT_H

#include "model/findings.h"
#include "util/strbuf.h"

/*
 * A finding's wording for every writer (text, JSON, report), made from its
 * fields: its text, with a job's rank ("rank 3: ") before each device name
 * (first when it names none) and the job's spread over its devices in place
 * of the rank's own. Appends to sb, NUL-terminated; sb->s is malloc'd and
 * the caller's (tc_strbuf_finish).
 */
void tc_finding_wording(const struct tc_finding *f, struct tc_strbuf *sb);

#endif
