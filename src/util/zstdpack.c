/* One buffer into one zstd frame that records its content size. */
#include <stdlib.h>
#include "config.h"
#include "util/xalloc.h"
#include "util/zstdpack.h"
#if TC_HAVE_ZSTD
#include <zstd.h>
#endif

bool tc_zstd_pack(const uint8_t *src, size_t len, int level, uint8_t **out, size_t *out_len) {
#if TC_HAVE_ZSTD
	size_t cap = ZSTD_compressBound(len);
	if (ZSTD_isError(cap)) {
		return false;
	}
	uint8_t *buf = tc_xmalloc(cap ? cap : 1);
	size_t n = ZSTD_compress(buf, cap, src, len, level);
	if (ZSTD_isError(n)) {
		free(buf);
		return false;
	}
	*out = buf;
	*out_len = n;
	return true;
#else
	(void)src, (void)len, (void)level, (void)out, (void)out_len;
	return false;
#endif
}
