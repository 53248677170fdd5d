/*
 * Check suite for util/'s files and streams: reading inputs (plain, gzip,
 * zlib and zstd; large reads, errors, the inflaters), host names from
 * input paths, prefault hints, atomic output files (-o) and spill files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "config.h"
#if TC_HAVE_ZSTD
#include <zstd.h>
#endif
#include "ingest/ingest.h"
#include "tc_test.h"
#include "util/inflate.h"
#include "util/input.h"
#include "util/outfile.h"
#include "util/prefault.h"
#include "util/spill.h"
#include "util/xalloc.h"

START_TEST(prefault_hints) {
	/* Hints only fault pages in: contents stay, and bad ranges (freed,
	 * unmapped, read-only) are ignored. Without the kernel feature the calls
	 * are no-ops, which this checks as well. */
	bool on = tc_prefault_start();
	size_t n = 8u << 20;
	unsigned char *p = tc_xmalloc(n);
	memset(p, 0xab, n / 2);
	tc_prefault_hint(p, n);
	tc_prefault_next(p, 1, 0, n, n);
	tc_prefault_next(p, 1, n / 4, n / 4, n);
	tc_prefault_hint((void *)(uintptr_t)4096, 1u << 20);
	tc_prefault_hint(NULL, 0);
	tc_prefault_stop();
	for (size_t i = 0; i < n / 2; i += 4093) {
		ck_assert_uint_eq(p[i], 0xab);
	}
	p[n - 1] = 1;
	/* Faulting in now keeps contents too; a big zeroed array, populated
	 * so, reads zero and takes writes. */
	tc_prefault_start();
	tc_prefault_now(p, n);
	tc_prefault_now((void *)(uintptr_t)4096, 1u << 20);
	ck_assert_uint_eq(p[0], 0xab);
	ck_assert_uint_eq(p[n - 1], 1);
	unsigned *z = tc_xcalloc(n / sizeof(*z) + 3, sizeof(*z));
	for (size_t i = 0; i < n / sizeof(*z) + 3; i += 1021) {
		ck_assert_uint_eq(z[i], 0);
		z[i] += (unsigned)i;
		ck_assert_uint_eq(z[i], (unsigned)i);
	}
	free(z);
	tc_prefault_stop();
	free(p);
	/* Stop twice, start again. */
	tc_prefault_stop();
	ck_assert(tc_prefault_start() == on);
	tc_prefault_stop();
}
END_TEST

static char *gzip_file(const char *data, size_t n) {
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/tc_gz_XXXXXX");
	int fd = mkstemp(path);
	close(fd);
	gzFile g = gzopen(path, "wb");
	gzwrite(g, data, (unsigned)n);
	gzclose(g);
	return path;
}

/* in streams text back, read chunk bytes at a time; then it is finished. */
static void reads_back(struct tc_input *in, const char *text, size_t n, size_t chunk) {
	struct tc_error err;
	tc_error_init(&err);
	char *buf = malloc(chunk);
	size_t total = 0;
	ssize_t r;
	while ((r = tc_input_read(in, buf, chunk, &err)) > 0) {
		ck_assert(total + (size_t)r <= n && memcmp(buf, text + total, (size_t)r) == 0);
		total += (size_t)r;
	}
	ck_assert_msg(r == 0, "%s", err.msg);
	ck_assert_uint_eq(total, n);
	free(buf);
	tc_input_finish(in);
}

START_TEST(input_plain_and_gzip) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	char text[10000];
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (char)('a' + i % 26);
	}
	const char *p = tc_test_tmpfile(text, sizeof(text));
	struct tc_input in;
	ck_assert(tc_input_open(&in, p, &lim, &err));
	ck_assert_int_eq(in.comp, TC_COMP_NONE);
	ck_assert_uint_eq(in.head_len, TC_INPUT_HEAD);
	const uint8_t *d;
	size_t n;
	ck_assert(tc_input_map(&in, &d, &n, &err));
	ck_assert_uint_eq(n, sizeof(text));
	ck_assert(memcmp(d, text, n) == 0);
	tc_input_finish(&in);
	unlink(p);

	p = gzip_file(text, sizeof(text));
	ck_assert(tc_input_open(&in, p, &lim, &err));
	ck_assert_int_eq(in.comp, TC_COMP_GZIP);
	ck_assert(memcmp(in.head, text, in.head_len) == 0);
	reads_back(&in, text, sizeof(text), 777);
	unlink(p);
}
END_TEST

/* A plain file read in large chunks goes straight into the caller's buffer
 * once the read-ahead is drained: the same bytes, in order, after the head
 * and after small reads, and the size cap still holds. */
START_TEST(input_large_reads) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	size_t n = 3 * 256 * 1024 + 12345;
	char *text = malloc(n);
	for (size_t i = 0; i < n; i++) {
		text[i] = (char)(i * 7919 % 251);
	}
	const char *p = tc_test_tmpfile(text, n);
	struct tc_input in;
	ck_assert(tc_input_open(&in, p, &lim, &err));
	reads_back(&in, text, n, 300 * 1024);

	/* Small reads first (the read-ahead half used), then large ones. */
	ck_assert(tc_input_open(&in, p, &lim, &err));
	char *buf = malloc(n);
	size_t got = 0;
	ssize_t r;
	for (int i = 0; i < 5; i++) {
		r = tc_input_read(&in, buf + got, 1000, &err);
		ck_assert_int_gt(r, 0);
		got += (size_t)r;
	}
	while ((r = tc_input_read(&in, buf + got, n - got < 400 * 1024 ? n - got + 1 : 400 * 1024,
			&err)) > 0) {
		got += (size_t)r;
	}
	ck_assert_msg(r == 0, "%s", err.msg);
	ck_assert_uint_eq(got, n);
	ck_assert(memcmp(buf, text, n) == 0);
	tc_input_finish(&in);

	/* The cap counts bytes read straight into the buffer too. */
	lim.max_input = n - 1;
	ck_assert(tc_input_open(&in, p, &lim, &err));
	got = 0;
	while ((r = tc_input_read(&in, buf, 300 * 1024, &err)) > 0) {
		got += (size_t)r;
	}
	ck_assert_int_eq(r, -1);
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	ck_assert_uint_le(got, n - 1);
	tc_input_finish(&in);
	unlink(p);
	free(buf);
	free(text);
}
END_TEST

START_TEST(input_errors) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	ck_assert(!tc_input_open(&in, "/nonexistent/x.pb", &lim, &err));
	ck_assert_int_eq(err.code, 3);
	ck_assert(strstr(err.msg, "cannot open") != NULL);

	/* A gzip stream cut in the middle is refused, not read short. */
	char text[50000];
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (char)(i * 7919 % 251);
	}
	const char *p = gzip_file(text, sizeof(text));
	size_t n;
	unsigned char *gz = tc_test_slurp(p, &n);
	unlink(p);
	p = tc_test_tmpfile(gz, n / 2);
	free(gz);
	tc_error_init(&err);
	bool ok = tc_input_open(&in, p, &lim, &err);
	if (ok) {
		const uint8_t *d;
		size_t len;
		ok = tc_input_map(&in, &d, &len, &err);
		tc_input_finish(&in);
	}
	ck_assert(!ok);
	ck_assert_int_eq(err.code, 3);
	ck_assert(strstr(err.msg, "truncated") != NULL);
	unlink(p);

	/* Decompressed-size cap. */
	lim.max_input = 1000;
	p = gzip_file(text, sizeof(text));
	tc_error_init(&err);
	ok = tc_input_open(&in, p, &lim, &err);
	if (ok) {
		const uint8_t *d;
		size_t len;
		ok = tc_input_map(&in, &d, &len, &err);
		tc_input_finish(&in);
	}
	ck_assert(!ok);
	ck_assert_int_eq(err.code, 5);
	unlink(p);
}
END_TEST

/* Stream all of data through the input layer, chunk bytes a read. */
struct drained {
	bool ok;
	int code;
	char msg[512];
	uint8_t *out;
	size_t len;
};

static struct drained drain(const uint8_t *data, size_t n, const struct tc_limits *lim,
		size_t chunk) {
	struct drained d = { 0 };
	struct tc_error err;
	tc_error_init(&err);
	struct tc_input in;
	d.ok = tc_input_open_mem(&in, "t", data, n, lim, &err);
	if (d.ok) {
		size_t cap = 1 << 16;
		d.out = malloc(cap);
		ssize_t r;
		do {
			if (d.len + chunk > cap) {
				cap = 2 * (d.len + chunk);
				d.out = realloc(d.out, cap);
			}
			r = tc_input_read(&in, d.out + d.len, chunk, &err);
			d.len += r > 0 ? (size_t)r : 0;
		} while (r > 0);
		d.ok = r == 0;
		tc_input_finish(&in);
	}
	d.code = err.code;
	snprintf(d.msg, sizeof(d.msg), "%s", err.msg);
	return d;
}

/* ISA-L (where built in) and zlib inflate the same inputs to the same
 * bytes, and refuse damaged ones the same way: gzip and zlib format,
 * concatenated members, trailing bytes, every cut, flipped bytes, the
 * size cap. */
START_TEST(input_inflaters) {
	static uint8_t text[300000];
	static const char unit[] = "{\"ph\":\"X\",\"name\":\"k\"} ";
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (uint8_t)(unit[i % (sizeof(unit) - 1)] + (i / 4096) % 3);
	}
	size_t gz_len, zl_len;
	uint8_t *gz = tc_test_deflate(text, sizeof(text), 31, 6, &gz_len);
	uint8_t *zl = tc_test_deflate(text, sizeof(text), 15, 6, &zl_len);
	/* gzip -c a b, then a member and junk. */
	uint8_t *two = malloc(2 * gz_len + 8);
	memcpy(two, gz, gz_len);
	memcpy(two + gz_len, gz, gz_len);
	struct tc_limits lim[2];
	for (int k = 0; k < 2; k++) {
		tc_limits_default(&lim[k]);
		lim[k].zlib_inflate = k == 1;
	}
	static const size_t chunks[] = { 1, 777, 65536, 1 << 20 };
	for (int k = 0; k < 2; k++) {
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			struct drained d = drain(gz, gz_len, &lim[k], chunks[c]);
			ck_assert_msg(d.ok, "%s", d.msg);
			ck_assert(d.len == sizeof(text) && memcmp(d.out, text, d.len) == 0);
			free(d.out);
		}
		struct drained d = drain(zl, zl_len, &lim[k], 4096);
		ck_assert_msg(d.ok && d.len == sizeof(text) && memcmp(d.out, text, d.len) == 0,
			"zlib format, %s: %d %zu %s", k ? "zlib" : "default", d.ok, d.len, d.msg);
		free(d.out);
		d = drain(two, 2 * gz_len, &lim[k], 100000);
		ck_assert(d.ok && d.len == 2 * sizeof(text));
		ck_assert(memcmp(d.out + sizeof(text), text, sizeof(text)) == 0);
		free(d.out);
		memcpy(two + gz_len, "junk", 4);
		d = drain(two, gz_len + 4, &lim[k], 100000);
		ck_assert(d.ok && d.len == sizeof(text));
		free(d.out);
		memcpy(two + gz_len, gz, 4);
	}
	/* Damage: both inflaters agree on success, bytes and exit code. */
	uint8_t *bad = malloc(gz_len);
	for (size_t i = 0; i < 400; i++) {
		size_t cut = 2 + i * (gz_len - 2) / 400, at = (i * 7919) % gz_len;
		struct drained a = drain(gz, cut, &lim[0], 65536);
		struct drained b = drain(gz, cut, &lim[1], 65536);
		ck_assert_msg(!a.ok && !b.ok && a.code == 3 && b.code == 3,
			"cut %zu: %s / %s", cut, a.msg, b.msg);
		free(a.out);
		free(b.out);
		memcpy(bad, gz, gz_len);
		bad[at] ^= (uint8_t)(1 + i % 255);
		a = drain(bad, gz_len, &lim[0], 65536);
		b = drain(bad, gz_len, &lim[1], 65536);
		ck_assert_msg(a.ok == b.ok && a.code == b.code, "flip at %zu: %s / %s", at,
			a.msg, b.msg);
		if (a.ok) {
			ck_assert(a.len == b.len && memcmp(a.out, b.out, a.len) == 0);
		}
		free(a.out);
		free(b.out);
	}
	/* Whole buffers (Perfetto's bundles): the same, and a cut is refused. */
	for (size_t i = 0; i < 44; i++) {
		const uint8_t *src = i % 2 ? zl : gz;
		size_t whole = i % 2 ? zl_len : gz_len;
		size_t len = i < 4 ? whole : 2 + (i - 4) * (whole - 2) / 40;
		uint8_t *a = NULL, *b = NULL;
		size_t an = 0, bn = 0;
		struct tc_error e1, e2;
		tc_error_init(&e1);
		tc_error_init(&e2);
		bool oka = tc_inflate(src, len, 15 + 32, 1 << 20, &a, &an, &e1);
		bool okb = tc_inflate_zlib(src, len, 15 + 32, 1 << 20, &b, &bn, &e2);
		ck_assert_msg(oka == okb && oka == (i < 4), "%zu: %s / %s", i, e1.msg, e2.msg);
		if (oka) {
			ck_assert(an == sizeof(text) && bn == an && memcmp(a, b, an) == 0);
			free(a);
			free(b);
		} else {
			ck_assert(e1.code == 3 && e2.code == 3);
		}
	}
	free(bad);
	for (int k = 0; k < 2; k++) {
		struct tc_limits small = lim[k];
		small.max_input = 100000;
		struct drained d = drain(gz, gz_len, &small, 65536);
		ck_assert(!d.ok && d.code == 5);
		free(d.out);
	}
	/* A plain stream is held to the cap too (a pipe; JSON, read in pieces). */
	struct tc_limits small = lim[0];
	small.max_input = 100000;
	struct drained d = drain(text, sizeof(text), &small, 65536);
	ck_assert_msg(!d.ok && d.code == 5 && d.len <= small.max_input &&
		strstr(d.msg, "input size exceeds") != NULL, "%s", d.msg);
	free(d.out);
	free(two);
	free(zl);
	free(gz);
}
END_TEST

/* zstd: a whole input read in pieces, and buffers (Perfetto's bundles). */
START_TEST(input_zstd) {
	struct tc_limits lim;
	tc_limits_default(&lim);
	struct tc_error err;
	tc_error_init(&err);
	static char text[300000];
	for (size_t i = 0; i < sizeof(text); i++) {
		text[i] = (char)('a' + i * 7 % 26);
	}
#if TC_HAVE_ZSTD
	size_t cap = ZSTD_compressBound(sizeof(text)) * 2;
	uint8_t *z = malloc(cap);
	/* Two frames: one stream. */
	size_t a = ZSTD_compress(z, cap, text, 1000, 1);
	size_t b = ZSTD_compress(z + a, cap - a, text + 1000, sizeof(text) - 1000, 9);
	ck_assert(!ZSTD_isError(a) && !ZSTD_isError(b));
	struct tc_input in;
	ck_assert(tc_input_open_mem(&in, "z", z, a + b, &lim, &err));
	ck_assert_int_eq(in.comp, TC_COMP_ZSTD);
	ck_assert_str_eq(tc_compression_name(in.comp), "zstd");
	reads_back(&in, text, sizeof(text), 999);

	/* Buffers: whole, capped, cut, damaged. */
	uint8_t *out;
	size_t n;
	ck_assert(tc_unzstd(z, a + b, sizeof(text), &out, &n, &err));
	ck_assert_uint_eq(n, sizeof(text));
	ck_assert(memcmp(out, text, n) == 0);
	free(out);
	ck_assert(!tc_unzstd(z, a + b, sizeof(text) - 1, &out, &n, &err));
	ck_assert_int_eq(err.code, TC_EXIT_LIMIT);
	tc_error_init(&err);
	ck_assert(!tc_unzstd(z, a + b - 3, sizeof(text), &out, &n, &err));
	ck_assert_int_eq(err.code, TC_EXIT_INPUT);
	ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
	tc_error_init(&err);
	ck_assert(!tc_unzstd(z, 0, sizeof(text), &out, &n, &err));
	ck_assert_msg(strstr(err.msg, "truncated") != NULL, "%s", err.msg);
	tc_error_init(&err);
	z[1] ^= 0xff;
	ck_assert(!tc_unzstd(z, a + b, sizeof(text), &out, &n, &err));
	ck_assert_msg(strstr(err.msg, "corrupt") != NULL, "%s", err.msg);
	free(z);
#else
	static const uint8_t magic[] = { 0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0 };
	struct tc_input in;
	ck_assert(!tc_input_open_mem(&in, "z", magic, sizeof(magic), &lim, &err));
	ck_assert_msg(strstr(err.msg, "without libzstd") != NULL, "%s", err.msg);
	uint8_t *out;
	size_t n;
	tc_error_init(&err);
	ck_assert(!tc_unzstd(magic, sizeof(magic), 1000, &out, &n, &err));
	ck_assert_int_eq(err.code, 3);
	ck_assert_msg(strstr(err.msg, "without libzstd") != NULL, "%s", err.msg);
#endif
}
END_TEST

/* Host names from paths lose one compression suffix and one trace suffix. */
START_TEST(host_names) {
	struct tc_model *m = tc_model_create();
	static const char *const cases[][2] = {
		{ "/x/rank0.pt.trace.json.gz", "rank0" },
		{ "a.json.zst", "a" },
		{ "run/h1.xplane.pb", "h1" },
		{ "t.perfetto-trace.zst", "t" },
		{ "t.gz.zst", "t.gz" },
		{ "trace.json.json", "trace.json" },
		{ ".gz", ".gz" },
		{ "-", "stdin" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t h = tc_ingest_host_from_path(m, cases[i][0]);
		ck_assert_str_eq(tc_model_str(m, h), cases[i][1]);
	}
	tc_model_destroy(m);
}
END_TEST

START_TEST(outfile_atomic) {
	char path[] = "/tmp/tc_out_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "old", 3), 3);
	close(fd);
	struct tc_outfile o;
	struct tc_error err;
	tc_error_init(&err);
	/* Onto an input: refused, the input untouched. */
	const char *inputs[] = { path };
	ck_assert(!tc_outfile_open(&o, path, inputs, 1, &err));
	ck_assert_int_eq(err.code, 4);
	/* Aborted output leaves the old content. */
	tc_error_init(&err);
	ck_assert(tc_outfile_open(&o, path, NULL, 0, &err));
	fputs("partial", o.fp);
	tc_outfile_abort(&o);
	size_t n;
	unsigned char *b = tc_test_slurp(path, &n);
	ck_assert_uint_eq(n, 3);
	free(b);
	/* Committed output replaces it. */
	ck_assert(tc_outfile_open(&o, path, NULL, 0, &err));
	fputs("new content", o.fp);
	ck_assert(tc_outfile_commit(&o, &err));
	b = tc_test_slurp(path, &n);
	ck_assert_uint_eq(n, 11);
	free(b);
	unlink(path);
}
END_TEST

/* What -o does with links, modes, FIFOs, folder members and signals. */
static int count_tmp(const char *dir) {
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		n += strstr(de->d_name, ".tmp.") != NULL;
	}
	if (d) {
		closedir(d);
	}
	return n;
}

static void put(const char *path, const char *text) {
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(text, f);
	fclose(f);
}

START_TEST(outfile_targets) {
	char dir[] = "/tmp/tc_outdir_XXXXXX";
	ck_assert(mkdtemp(dir) != NULL);
	char file[256], link_[256], fifo[256], longname[600];
	snprintf(file, sizeof(file), "%s/f.txt", dir);
	snprintf(link_, sizeof(link_), "%s/l.txt", dir);
	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	struct tc_outfile o;
	struct tc_error err;
	tc_error_init(&err);

	/* An existing file keeps its mode; a link keeps pointing at it. */
	put(file, "old");
	ck_assert_int_eq(chmod(file, 0604), 0);
	ck_assert_int_eq(symlink("f.txt", link_), 0);
	ck_assert(tc_outfile_open(&o, link_, NULL, 0, &err));
	ck_assert_str_eq(o.path, file);
	ck_assert_int_eq(count_tmp(dir), 1);
	fputs("new", o.fp);
	ck_assert(tc_outfile_commit(&o, &err));
	struct stat st;
	ck_assert_int_eq(lstat(link_, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0604);
	size_t n;
	unsigned char *b = tc_test_slurp(file, &n);
	ck_assert(n == 3 && memcmp(b, "new", 3) == 0);
	free(b);

	/* The same file as an input read (a folder member): refused, by
	 * identity, whatever name it had. */
	ck_assert(tc_outfile_open(&o, link_, NULL, 0, &err));
	ck_assert(tc_outfile_check_input(&o, 1, 1, &err));
	ck_assert(!tc_outfile_check_input(&o, (uint64_t)st.st_dev, (uint64_t)st.st_ino, &err));
	ck_assert_int_eq(err.code, TC_EXIT_OUTPUT);
	tc_outfile_abort(&o);
	ck_assert_int_eq(count_tmp(dir), 0);

	/* A FIFO is written through and stays a FIFO. */
	tc_error_init(&err);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	ck_assert(tc_outfile_open(&o, fifo, NULL, 0, &err));
	ck_assert(o.tmp == NULL);
	fputs("through", o.fp);
	ck_assert(tc_outfile_commit(&o, &err));
	char got[16] = { 0 };
	ck_assert_int_eq(read(rd, got, sizeof(got) - 1), 7);
	ck_assert_str_eq(got, "through");
	close(rd);
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));

	/* A 255-byte name has no room for the usual suffix. */
	int k = snprintf(longname, sizeof(longname), "%s/", dir);
	memset(longname + k, 'n', 255);
	longname[k + 255] = 0;
	ck_assert(tc_outfile_open(&o, longname, NULL, 0, &err));
	fputs("long", o.fp);
	ck_assert_msg(tc_outfile_commit(&o, &err), "%s", err.msg);
	ck_assert_int_eq(stat(longname, &st), 0);
	unlink(longname);

	/* What a signal handler does: the temporary file goes, the old output
	 * stays, and the output can still be dropped after. */
	ck_assert(tc_outfile_open(&o, file, NULL, 0, &err));
	fputs("partial", o.fp);
	fflush(o.fp);
	ck_assert_int_eq(count_tmp(dir), 1);
	tc_outfile_cleanup();
	ck_assert_int_eq(count_tmp(dir), 0);
	tc_outfile_abort(&o);
	b = tc_test_slurp(file, &n);
	ck_assert(n == 3 && memcmp(b, "new", 3) == 0);
	free(b);

	/* A folder is refused. */
	ck_assert(!tc_outfile_open(&o, dir, NULL, 0, &err));
	ck_assert_int_eq(err.code, TC_EXIT_OUTPUT);

	unlink(fifo);
	unlink(link_);
	unlink(file);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Bytes set aside come back as written, from the file or, where no file
 * can be made, from memory. */
static void spill_round_trip(void) {
	struct tc_spill s;
	tc_spill_init(&s);
	uint64_t at[64];
	unsigned char buf[1000];
	for (int i = 0; i < 64; i++) {
		memset(buf, i, sizeof(buf));
		at[i] = tc_spill_write(&s, buf, (size_t)(i * 13 % 1000));
	}
	for (int i = 63; i >= 0; i--) {
		size_t n = (size_t)(i * 13 % 1000);
		memset(buf, 0xff, sizeof(buf));
		tc_spill_read(&s, at[i], buf, n);
		for (size_t j = 0; j < n; j++) {
			ck_assert_int_eq(buf[j], i);
		}
		/* and from inside what one write put there */
		if (n > 10) {
			tc_spill_read(&s, at[i] + 5, buf, n - 5);
			ck_assert_int_eq(buf[n - 6], i);
		}
	}
	tc_spill_finish(&s);
}

/* A file that stops taking bytes (a full disk; here a file size limit)
 * leaves what it holds readable and the rest in memory. */
START_TEST(spill_file_full) {
	struct rlimit old;
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit lim = { 4096, old.rlim_max };
	struct tc_spill s;
	tc_spill_init(&s);
	ck_assert_int_ge(s.fd, 0);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	unsigned char buf[3000];
	uint64_t at[4];
	for (int i = 0; i < 4; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		at[i] = tc_spill_write(&s, buf, sizeof(buf));
	}
	ck_assert(s.full);
	ck_assert_int_eq(s.error, EFBIG);
	for (int i = 0; i < 4; i++) {
		memset(buf, 0, sizeof(buf));
		tc_spill_read(&s, at[i], buf, sizeof(buf));
		ck_assert_int_eq(buf[0], 'a' + i);
		ck_assert_int_eq(buf[sizeof(buf) - 1], 'a' + i);
	}
	tc_spill_finish(&s);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
}
END_TEST

START_TEST(spill_file_and_memory) {
	const char *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	spill_round_trip();
	setenv("TMPDIR", "/nonexistent-tracectl-dir", 1);
	struct tc_spill s;
	tc_spill_init(&s);
	ck_assert_int_lt(s.fd, 0);
	ck_assert_int_eq(s.error, ENOENT);
	ck_assert_str_eq(s.dir, "/nonexistent-tracectl-dir");
	tc_spill_finish(&s);
	spill_round_trip();
	if (keep) {
		setenv("TMPDIR", keep, 1);
		free(keep);
	} else {
		unsetenv("TMPDIR");
	}
}
END_TEST

int main(void) {
	Suite *s = suite_create("util_io");
	TCase *tc = tcase_create("io");
	tcase_add_test(tc, spill_file_and_memory);
	tcase_add_test(tc, spill_file_full);
	tcase_add_test(tc, prefault_hints);
	tcase_add_test(tc, input_plain_and_gzip);
	tcase_add_test(tc, input_large_reads);
	tcase_add_test(tc, input_errors);
	tcase_add_test(tc, input_inflaters);
	tcase_add_test(tc, input_zstd);
	tcase_add_test(tc, host_names);
	tcase_add_test(tc, outfile_atomic);
	tcase_add_test(tc, outfile_targets);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
