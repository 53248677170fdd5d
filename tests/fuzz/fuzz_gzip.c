/* The input layer: gzip/zlib/zstd detection, streaming and whole-buffer
 * decompression, concatenated members/frames, and the size/ratio limits. */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "util/inflate.h"
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
	uint8_t *whole = NULL;
	size_t whole_len = 0;
	bool whole_ok = false;
	if (tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
		const uint8_t *d;
		whole_ok = tc_input_map(&in, &d, &whole_len, &err);
		if (whole_ok && whole_len > lim.max_input) {
			abort();
		}
		if (whole_ok) {
			whole = tc_xmalloc(whole_len + 1);
			memcpy(whole, d, whole_len);
		}
		tc_input_finish(&in);
	}

	/* A growing view, asked for in steps and released behind, read in line
	 * (and for half the inputs by a helper held close behind): the whole
	 * content's bytes, or a refusal where it was refused. */
	for (int threaded = 0; threaded < 1 + (size && (data[0] & 1)); threaded++) {
		tc_error_init(&err);
		if (!tc_input_open_mem(&in, "fuzz", data, size, &lim, &err)) {
			continue;
		}
		lim.view_ahead = size > 2 ? (size_t)data[2] * 131 + 1 : 1;
		const uint8_t *d;
		size_t avail, checked = 0;
		bool all, vok = tc_input_view(&in, threaded, &d, &avail, &all, &err);
		size_t step = size > 1 ? ((size_t)data[1] << 12) + 1 : 1;
		for (size_t want = step; vok; want += step) {
			vok = tc_input_need(&in, want, &avail, &all, &err);
			if (!vok) {
				break;
			}
			if ((avail < want && !all) || avail > lim.max_input ||
					(whole_ok && (avail > whole_len ||
					memcmp(d + checked, whole + checked, avail - checked) != 0))) {
				abort();
			}
			checked = avail;
			tc_input_release(&in, checked);
			if (all) {
				break;
			}
		}
		if (vok != whole_ok || (vok && checked != whole_len)) {
			abort();
		}
		tc_input_finish(&in);
		lim.view_ahead = 0;
	}
	free(whole);

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
