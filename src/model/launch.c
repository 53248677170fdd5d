/* The launcher table's lifecycle (model/launch.h). */
#include <stdlib.h>
#include <string.h>
#include "model/launch.h"

void tc_launch_table_finish(struct tc_launch_table *t) {
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
