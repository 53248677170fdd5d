#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "model/model.h"
#include "tc_test.h"

static const char *join(const char *env, const char *dflt, const char *rel) {
	static char buf[4][4096];
	static int k;
	const char *base = getenv(env);
	if (!base) {
		base = dflt;
	}
	char *b = buf[k++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", base, rel);
	return b;
}

const char *tc_test_trace(const char *rel) {
	const char *p = join("TC_TRACES", "../shared/traces", rel);
	struct stat st;
	return stat(p, &st) == 0 ? p : NULL;
}

const char *tc_test_src(const char *rel) {
	return join("TC_SOURCE_ROOT", ".", rel);
}

const char *tc_test_build(const char *rel) {
	return join("TC_BUILD_ROOT", ".", rel);
}

unsigned char *tc_test_slurp(const char *path, size_t *len) {
	FILE *f = fopen(path, "rb");
	if (!f) {
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	size_t r;
	while ((r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap);
		}
	}
	fclose(f);
	*len = n;
	return b;
}

int tc_test_run(Suite *s) {
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const struct tc_track *tc_test_track_of(const struct tc_model *m, size_t ev) {
	uint32_t t = tc_model_event_track(m, ev);
	ck_assert_msg(t < m->n_tracks, "event %zu has no track", ev);
	return &m->tracks[t];
}
