/* The input layer: gzip/zlib/zstd detection, streaming and whole-buffer
 * decompression, concatenated members/frames, and the size/ratio limits. */
#include <stdlib.h>
#include "fuzz.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct tc_limits lim;
	tc_fuzz_limits(&lim);
	lim.max_input = 4u << 20;
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;

	/* Streaming, in odd chunk sizes picked by the first byte. */
	if (tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
		size_t chunk = size ? (size_t)data[0] * 97 + 1 : 1;
		uint8_t *buf = tc_xmalloc(chunk);
		uint64_t total = 0;
		ssize_t n;
		while ((n = tc_input_read(&in, buf, chunk, &err)) > 0) {
			total += (uint64_t)n;
		}
		if (total > lim.max_input || total != tc_input_tell(&in)) {
			abort();
		}
		free(buf);
		tc_input_finish(&in);
	}

	/* Whole content. */
	tc_error_init(&err);
	if (tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
		const uint8_t *d;
		size_t len;
		if (tc_input_map(&in, &d, &len, &err) && len > lim.max_input) {
			abort();
		}
		tc_input_finish(&in);
	}

	/* compressed_packets / compressed_str_value style blocks. */
	static const int wbits[] = { 15, 15 + 16, 15 + 32, -15 };
	for (size_t i = 0; i < sizeof(wbits) / sizeof(wbits[0]); i++) {
		uint8_t *out = NULL;
		size_t out_len = 0;
		tc_error_init(&err);
		if (tc_inflate(data, size, wbits[i], 1u << 20, &out, &out_len, &err)) {
			if (out_len > 1u << 20) {
				abort();
			}
			free(out);
		}
	}
	/* zstd_compressed_packets style blocks. */
	uint8_t *out = NULL;
	size_t out_len = 0;
	tc_error_init(&err);
	if (tc_unzstd(data, size, 1u << 20, &out, &out_len, &err)) {
		if (out_len > 1u << 20) {
			abort();
		}
		free(out);
	}
	return 0;
}
