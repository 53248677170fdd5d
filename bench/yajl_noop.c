/*
 * Baseline for bench/json.sh: parse a JSON file with yajl in 256 KiB chunks
 * and do nothing in the callbacks (number callback set, so no number
 * conversion), to compare `tracectl summarize` throughput against the
 * parser alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <yajl/yajl_parse.h>

#define CHUNK (256 * 1024)

static int cb_null(void *ctx) {
	return 1;
}

static int cb_bool(void *ctx, int v) {
	return 1;
}

static int cb_number(void *ctx, const char *s, size_t n) {
	return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t n) {
	return 1;
}

static int cb_map(void *ctx) {
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_map,
	.yajl_map_key = cb_string,
	.yajl_end_map = cb_map,
	.yajl_start_array = cb_map,
	.yajl_end_array = cb_map,
};

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: yajl_noop FILE.json\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 3;
	}
	yajl_handle h = yajl_alloc(&callbacks, NULL, NULL);
	unsigned char *buf = malloc(CHUNK);
	size_t n;
	int rc = 0;
	while ((n = fread(buf, 1, CHUNK, f)) > 0) {
		if (yajl_parse(h, buf, n) != yajl_status_ok) {
			rc = 3;
			break;
		}
	}
	if (rc == 0 && yajl_complete_parse(h) != yajl_status_ok) {
		rc = 3;
	}
	if (rc) {
		unsigned char *e = yajl_get_error(h, 0, NULL, 0);
		fprintf(stderr, "yajl_noop: %s", (const char *)e);
		yajl_free_error(h, e);
	}
	free(buf);
	yajl_free(h);
	fclose(f);
	return rc;
}
