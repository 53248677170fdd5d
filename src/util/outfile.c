#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/outfile.h"
#include "util/xalloc.h"

static bool same_file(const char *a, const struct stat *sb) {
	struct stat sa;
	return stat(a, &sa) == 0 && sa.st_dev == sb->st_dev && sa.st_ino == sb->st_ino;
}

bool tc_outfile_open(struct tc_outfile *o, const char *path,
		const char *const *inputs, size_t n_inputs, struct tc_error *err) {
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return true;
	}
	struct stat st;
	if (stat(path, &st) == 0) {
		for (size_t i = 0; i < n_inputs; i++) {
			if (strcmp(inputs[i], "-") != 0 && same_file(inputs[i], &st)) {
				tc_error_set(err, TC_EXIT_OUTPUT,
					"refusing to write onto the input file");
				tc_error_path(err, path);
				return false;
			}
		}
		if (S_ISDIR(st.st_mode)) {
			tc_error_set(err, TC_EXIT_OUTPUT, "is a directory");
			tc_error_path(err, path);
			return false;
		}
	}
	size_t n = strlen(path) + 32;
	o->tmp = tc_xmalloc(n);
	snprintf(o->tmp, n, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot create output: %s", strerror(errno));
		tc_error_path(err, path);
		free(o->tmp);
		o->tmp = NULL;
		return false;
	}
	/* mkstemp makes 0600; output should look like any file the user writes. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	o->fp = fdopen(fd, "wb");
	o->path = tc_xstrdup(path);
	return true;
}

bool tc_outfile_commit(struct tc_outfile *o, struct tc_error *err) {
	if (!o->fp) {
		return true;
	}
	if (!o->tmp) {
		bool ok = fflush(o->fp) == 0 && !ferror(o->fp);
		o->fp = NULL;
		if (!ok) {
			return tc_error_set(err, TC_EXIT_OUTPUT, "cannot write to standard output: %s",
				strerror(errno));
		}
		return true;
	}
	bool ok = fflush(o->fp) == 0 && !ferror(o->fp);
	int e = errno;
	if (fclose(o->fp) != 0 && ok) {
		ok = false;
		e = errno;
	}
	o->fp = NULL;
	if (ok && rename(o->tmp, o->path) != 0) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		unlink(o->tmp);
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot write output: %s", strerror(e));
		tc_error_path(err, o->path);
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return ok;
}

void tc_outfile_abort(struct tc_outfile *o) {
	if (o->fp && o->tmp) {
		fclose(o->fp);
		unlink(o->tmp);
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}
