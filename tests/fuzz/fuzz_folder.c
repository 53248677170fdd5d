/*
 * Folder walking: the input builds a small tree in a temporary folder
 * (folders, trace files, symbolic links that loop or point across, hard
 * links), then tc_ingest reads it, as a folder and as repeated paths. Every
 * walk must end (libFuzzer's -timeout catches a loop) and take each folder
 * and file once. Links point only inside the tree, so no walk leaves it.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz.h"

static char root[64];

static const char *const names[] = {
	"a", "b", "c", "a/x", "a/y", "b/x", "a/x/z", "plugins", "plugins/profile",
	"plugins/profile/r1", "plugins/profile/r2", "a/t.json", "b/t.json", "t.json",
	"a/x/t.json", "plugins/profile/r2/t.json",
};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

static const char *const contents[] = {
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}",
	"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"pid\":2,\"tid\":1,\"ts\":5,\"dur\":2}]}",
	"", "not a trace", "{\"traceEvents\":[",
};

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f) {
	(void)st;
	(void)flag;
	(void)f;
	remove(p);
	return 0;
}

static void path_of(char *buf, size_t n, const char *name) {
	snprintf(buf, n, "%s/%s", root, name);
}

static void remove_root(void) {
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/tc-fuzz-folder.XXXXXX");
		if (!mkdtemp(root)) {
			abort();
		}
		atexit(remove_root);
	}
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(root, 0700);
	char p[256], q[256];
	for (size_t i = 0; i + 2 < size && i < 3 * 32; i += 3) {
		const char *name = names[data[i + 1] % N_NAMES];
		const char *other = names[data[i + 2] % N_NAMES];
		path_of(p, sizeof(p), name);
		switch (data[i] % 5) {
		case 0:
			mkdir(p, 0700);
			break;
		case 1: {
			FILE *f = fopen(p, "w");
			if (f) {
				fputs(contents[data[i + 2] % (sizeof(contents) / sizeof(contents[0]))], f);
				fclose(f);
			}
			break;
		}
		case 2:
			/* Absolute, to anywhere in the tree (the root included). */
			if (data[i + 2] & 0x80) {
				snprintf(q, sizeof(q), "%s", root);
			} else {
				path_of(q, sizeof(q), other);
			}
			symlink(q, p);
			break;
		case 3:
			/* Relative: its own folder, or a name that may not exist.
			 * Never "..": through a linked parent it would leave the
			 * tree (a -> ., then a/y -> .. is the root's parent). */
			symlink((data[i + 2] & 1) ? "." : "missing", p);
			break;
		case 4:
			path_of(q, sizeof(q), other);
			link(q, p);
			break;
		}
	}

	struct tc_ingest_opts o;
	tc_ingest_opts_default(&o);
	tc_fuzz_limits(&o.lim);
	o.threads = 1;
	char a[256], b[256];
	path_of(a, sizeof(a), names[size ? data[0] % N_NAMES : 0]);
	snprintf(b, sizeof(b), "%s/.", root);
	const char *const sets[][3] = {
		{ root, NULL, NULL },
		{ root, a, b },
		{ a, a, root },
	};
	for (size_t s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
		size_t n = 0;
		while (n < 3 && sets[s][n]) {
			n++;
		}
		struct tc_error err;
		tc_error_init(&err);
		struct tc_model *m = tc_ingest(sets[s], n, &o, &err);
		if (m) {
			/* Each file at most once: no two sources share an inode. */
			for (size_t i = 0; i < m->n_sources; i++) {
				for (size_t j = i + 1; j < m->n_sources; j++) {
					if (m->sources[i].ino && m->sources[i].dev == m->sources[j].dev &&
							m->sources[i].ino == m->sources[j].ino) {
						abort();
					}
				}
			}
			tc_model_destroy(m);
		}
	}
	return 0;
}
