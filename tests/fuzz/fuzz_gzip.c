/* The input layer: gzip/zlib/zstd detection, streaming and whole-buffer
 * decompression, concatenated members/frames, and the size/ratio limits. */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct tc_limits lim;
	tc_fuzz_limits(&lim);
	lim.max_input = 4u << 20;
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;

	/* Streaming, in odd chunk sizes picked by the first byte, with each
	 * inflater: where ISA-L is built in, it must give zlib's bytes and
	 * accept and refuse what zlib does. */
	uint8_t *got[2] = { NULL, NULL };
	uint64_t total[2] = { 0, 0 };
	bool ok[2] = { false, false };
	for (int k = 0; k < 2; k++) {
		lim.zlib_inflate = k == 1;
		tc_error_init(&err);
		if (!tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
			continue;
		}
		size_t chunk = size ? (size_t)data[0] * 97 + 1 : 1;
		got[k] = tc_xmalloc(lim.max_input + chunk);
		ssize_t n;
		while ((n = tc_input_read(&in, got[k] + total[k], chunk, &err)) > 0) {
			total[k] += (uint64_t)n;
		}
		ok[k] = n == 0;
		if (total[k] > lim.max_input || total[k] != tc_input_tell(&in)) {
			abort();
		}
		tc_input_finish(&in);
	}
	if (ok[0] != ok[1] || (ok[0] && (total[0] != total[1] ||
			memcmp(got[0], got[1], (size_t)total[0]) != 0))) {
		abort();
	}
	free(got[0]);
	free(got[1]);
	lim.zlib_inflate = false;

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

	/* compressed_packets / compressed_str_value style blocks: the same
	 * bytes, or the same refusal, from ISA-L and zlib. */
	static const int wbits[] = { 15, 15 + 16, 15 + 32, -15 };
	for (size_t i = 0; i < sizeof(wbits) / sizeof(wbits[0]); i++) {
		uint8_t *out = NULL, *zout = NULL;
		size_t out_len = 0, zout_len = 0;
		tc_error_init(&err);
		bool a = tc_inflate(data, size, wbits[i], 1u << 20, &out, &out_len, &err);
		tc_error_init(&err);
		bool b = tc_inflate_zlib(data, size, wbits[i], 1u << 20, &zout, &zout_len, &err);
		if (a != b || (a && (out_len > 1u << 20 || out_len != zout_len ||
				memcmp(out, zout, out_len) != 0))) {
			abort();
		}
		if (a) {
			free(out);
			free(zout);
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
