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
