/* Summary results as plain data: freeing them and totalling the steps. */
#include <stdlib.h>
#include <string.h>
#include "model/report.h"

void tc_summary_finish(struct tc_summary *s) {
	if (!s) {
		return;
	}
	free(s->devices);
	free(s->ops);
	free(s->steps);
	free(s->counters);
	free(s->threads);
	memset(s, 0, sizeof(*s));
}

void tc_summary_step_totals(struct tc_summary *s) {
	s->steps_sum_ps = 0;
	s->steps_min_ps = INT64_MAX;
	s->steps_max_ps = 0;
	for (size_t i = 0; i < s->n_steps; i++) {
		int64_t d = s->steps[i].dur_ps;
		s->steps_sum_ps += d;
		s->steps_min_ps = d < s->steps_min_ps ? d : s->steps_min_ps;
		s->steps_max_ps = d > s->steps_max_ps ? d : s->steps_max_ps;
	}
}
