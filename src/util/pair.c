/* tc_run_pair: fn on two threads at once, or both calls in turn on one. */
#include <pthread.h>
#include "util/pair.h"

void tc_run_pair(void *(*fn)(void *), void *here, void *there, bool two) {
	pthread_t th;
	bool started = two && pthread_create(&th, NULL, fn, there) == 0;
	fn(here);
	if (started) {
		pthread_join(th, NULL);
	} else {
		fn(there);
	}
}
