/*
 * A main for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named, so every target runs
 * over its seeds in the ordinary (gcc, sanitizer) builds and a fix to a
 * fuzz finding is kept by the seed it left behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "fuzz.h"

/* Custom mutators link against libFuzzer's; a replay never mutates. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
	return size;
}

/* The whole file, sized by fstat: seeds are regular files. */
static unsigned char *slurp(const char *path, size_t *n) {
	FILE *f = fopen(path, "rb");
	if (!f) {
		return NULL;
	}
	struct stat st;
	unsigned char *buf = NULL;
	if (fstat(fileno(f), &st) == 0 && st.st_size >= 0) {
		*n = (size_t)st.st_size;
		buf = malloc(*n ? *n : 1);
		if (buf && fread(buf, 1, *n, f) != *n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) {
		size_t n = 0;
		unsigned char *data = slurp(argv[i], &n);
		if (!data) {
			fprintf(stderr, "%s: cannot read '%s'\n", argv[0], argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput(data, n);
		free(data);
	}
	printf("%d inputs\n", argc - 1);
	return 0;
}
