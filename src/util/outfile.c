/* realpath() */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "util/outfile.h"
#include "util/xalloc.h"

/*
 * Temporary files that exist now, for tc_outfile_cleanup() in a signal
 * handler: a slot's path is set before it is marked used and unmarked
 * before it is freed.
 */
#define MAX_TMP 8
static char *tmp_paths[MAX_TMP];
static volatile sig_atomic_t tmp_used[MAX_TMP];

void tc_outfile_cleanup(void) {
	for (int i = 0; i < MAX_TMP; i++) {
		if (tmp_used[i]) {
			unlink(tmp_paths[i]);
			tmp_used[i] = 0;
		}
	}
}

/* The signals the CLI cleans up on are held off while a temporary file
 * and its slot are out of step (made but not listed, renamed but listed). */
static void block_signals(sigset_t *old) {
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static void restore_signals(const sigset_t *old) {
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int slot_take(char *path) {
	for (int i = 0; i < MAX_TMP; i++) {
		if (!tmp_used[i]) {
			tmp_paths[i] = path;
			tmp_used[i] = 1;
			return i;
		}
	}
	return -1;
}

static void slot_drop(int slot) {
	if (slot >= 0) {
		tmp_used[slot] = 0;
	}
}

static bool same_id(const struct stat *st, uint64_t dev, uint64_t ino) {
	return (uint64_t)st->st_dev == dev && (uint64_t)st->st_ino == ino;
}

static bool refuse(const char *path, struct tc_error *err) {
	tc_error_set(err, TC_EXIT_OUTPUT, "refusing to write onto the input file");
	tc_error_path(err, path);
	return false;
}

/* The input paths as given, checked against the target's identity. */
static bool check_inputs(struct tc_outfile *o, const char *path,
		const char *const *inputs, size_t n_inputs, struct tc_error *err) {
	for (size_t i = 0; i < n_inputs; i++) {
		struct stat st;
		int r = strcmp(inputs[i], "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(inputs[i], &st);
		if (r == 0 && same_id(&st, o->dev, o->ino)) {
			return refuse(path, err);
		}
	}
	return true;
}

/* "/dev/stdout", "/dev/fd/N", "/proc/self/fd/N": a descriptor this process
 * already holds (-1 if path is none of those). Such a link is written
 * through the descriptor, as a shell does, keeping its offset and flags. */
static int fd_link(const char *path) {
	if (strcmp(path, "/dev/stdout") == 0) {
		return STDOUT_FILENO;
	}
	if (strcmp(path, "/dev/stderr") == 0) {
		return STDERR_FILENO;
	}
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t k = strlen(dirs[i]);
		if (strncmp(path, dirs[i], k) == 0 && path[k]) {
			char *end;
			long fd = strtol(path + k, &end, 10);
			if (!*end && path[k] >= '0' && path[k] <= '9' && fd <= INT_MAX) {
				return (int)fd;
			}
		}
	}
	return -1;
}

static char *dir_of(const char *path) {
	const char *slash = strrchr(path, '/');
	if (!slash) {
		return tc_xstrdup(".");
	}
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *d = tc_xmalloc(n + 1);
	memcpy(d, path, n);
	d[n] = 0;
	return d;
}

/* Follow symbolic links to the final name, which may not exist yet (a
 * dangling link names the file to create). NULL with err set on a loop. */
static char *follow_links(const char *path, struct tc_error *err) {
	char *cur = tc_xstrdup(path);
	for (int hops = 0;; hops++) {
		struct stat st;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			return cur;
		}
		char buf[PATH_MAX];
		ssize_t k = hops < 40 ? readlink(cur, buf, sizeof(buf) - 1) : -1;
		if (k < 0) {
			tc_error_set(err, TC_EXIT_OUTPUT, "cannot follow the link: %s",
				strerror(hops < 40 ? errno : ELOOP));
			tc_error_path(err, path);
			free(cur);
			return NULL;
		}
		buf[k] = 0;
		char *next;
		if (buf[0] == '/') {
			next = tc_xstrdup(buf);
		} else {
			char *d = dir_of(cur);
			size_t n = strlen(d) + (size_t)k + 2;
			next = tc_xmalloc(n);
			snprintf(next, n, "%s/%s", d, buf);
			free(d);
		}
		free(cur);
		cur = next;
	}
}

static int connect_socket(const char *path) {
	union {
		struct sockaddr sa;
		struct sockaddr_un un;
	} a;
	memset(&a, 0, sizeof(a));
	a.un.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.un.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a.un.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, &a.sa, sizeof(a.un)) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		fd = -1;
	}
	return fd;
}

static bool open_direct(struct tc_outfile *o, int fd, const char *shown, struct tc_error *err) {
	if (fd < 0) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot open output: %s", strerror(errno));
		tc_error_path(err, shown);
		return false;
	}
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		close(fd);
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot open output: %s", strerror(errno));
		tc_error_path(err, shown);
		return false;
	}
	o->path = tc_xstrdup(shown);
	return true;
}

/* "DIR/NAME.tmp.XXXXXX", or "DIR/.tracectl.tmp.XXXXXX" where NAME leaves no
 * room for the suffix within a file name's 255 bytes. */
static char *tmp_name(const char *target) {
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	size_t n = strlen(target) + 32;
	char *t = tc_xmalloc(n);
	if (strlen(base) + sizeof(".tmp.XXXXXX") - 1 <= 255) {
		snprintf(t, n, "%s.tmp.XXXXXX", target);
	} else {
		char *d = dir_of(target);
		snprintf(t, n, "%s/.tracectl.tmp.XXXXXX", d);
		free(d);
	}
	return t;
}

bool tc_outfile_open(struct tc_outfile *o, const char *path,
		const char *const *inputs, size_t n_inputs, struct tc_error *err) {
	memset(o, 0, sizeof(*o));
	o->slot = -1;
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return true;
	}
	struct stat st;
	int held = fd_link(path);
	if (held >= 0) {
		if (fstat(held, &st) != 0) {
			return open_direct(o, -1, path, err);
		}
		o->dev = (uint64_t)st.st_dev;
		o->ino = (uint64_t)st.st_ino;
		if (!check_inputs(o, path, inputs, n_inputs, err)) {
			return false;
		}
		return open_direct(o, fcntl(held, F_DUPFD_CLOEXEC, 3), path, err);
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			tc_error_set(err, TC_EXIT_OUTPUT, "is a directory");
			tc_error_path(err, path);
			return false;
		}
		o->dev = (uint64_t)st.st_dev;
		o->ino = (uint64_t)st.st_ino;
		if (!check_inputs(o, path, inputs, n_inputs, err)) {
			return false;
		}
		/* A device, FIFO or socket: nothing to rename over. A FIFO's open
		 * waits for its reader, as a shell's redirection does. */
		int fd = S_ISSOCK(st.st_mode) ? connect_socket(path) :
			open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		return open_direct(o, fd, path, err);
	}
	char *target = follow_links(path, err);
	if (!target) {
		return false;
	}
	bool exists = stat(target, &st) == 0;
	if (exists) {
		o->dev = (uint64_t)st.st_dev;
		o->ino = (uint64_t)st.st_ino;
		if (!check_inputs(o, path, inputs, n_inputs, err)) {
			free(target);
			return false;
		}
	}
	o->tmp = tmp_name(target);
	sigset_t old;
	block_signals(&old);
	int fd = mkstemp(o->tmp);
	if (fd >= 0) {
		o->slot = slot_take(o->tmp);
	}
	restore_signals(&old);
	if (fd < 0) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot create output: %s", strerror(errno));
		tc_error_path(err, path);
		free(o->tmp);
		free(target);
		o->tmp = NULL;
		return false;
	}
	if (exists) {
		/* The replacement keeps the file's owner (where allowed) and mode. */
		if (fchown(fd, st.st_uid, st.st_gid) != 0) {
			/* Not ours to give away: the file becomes the writer's. */
		}
		fchmod(fd, st.st_mode & 07777);
	} else {
		/* mkstemp makes 0600; a new file looks like any file the user writes. */
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	o->fp = fdopen(fd, "wb");
	o->path = target;
	if (!o->fp) {
		close(fd);
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot create output: %s", strerror(errno));
		tc_error_path(err, path);
		tc_outfile_abort(o);
		return false;
	}
	return true;
}

/* The file a new output at path would be: the final target of its links in
 * its folder's real path (malloc'd); NULL when that cannot be told. */
static char *new_target(const char *path) {
	struct tc_error e;
	tc_error_init(&e);
	char *t = follow_links(path, &e);
	if (!t) {
		return NULL;
	}
	char *d = dir_of(t);
	char *real = realpath(d, NULL);
	const char *slash = strrchr(t, '/');
	const char *base = slash ? slash + 1 : t;
	char *r = NULL;
	if (real) {
		size_t n = strlen(real) + strlen(base) + 2;
		r = tc_xmalloc(n);
		snprintf(r, n, "%s/%s", real, base);
	}
	free(real);
	free(d);
	free(t);
	return r;
}

/* Whether outputs a and b are one file: the same regular file, or the same
 * new name. Devices and FIFOs take any number of writers. */
static bool same_output(const char *a, const char *b) {
	struct stat sa, sb;
	bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea || eb) {
		return ea && eb && S_ISREG(sa.st_mode) && same_id(&sb, (uint64_t)sa.st_dev,
			(uint64_t)sa.st_ino);
	}
	char *ta = new_target(a), *tb = new_target(b);
	bool same = ta && tb && strcmp(ta, tb) == 0;
	free(ta);
	free(tb);
	return same;
}

bool tc_outfile_precheck(const char *path, const char *const *reads, size_t n_reads,
		const char *const *others, size_t n_others, struct tc_error *err) {
	if (!path || strcmp(path, "-") == 0) {
		return true;
	}
	struct stat st;
	struct tc_outfile o = { .slot = -1 };
	if (stat(path, &st) == 0) {
		o.dev = (uint64_t)st.st_dev;
		o.ino = (uint64_t)st.st_ino;
		if (!check_inputs(&o, path, reads, n_reads, err)) {
			return false;
		}
	}
	for (size_t i = 0; i < n_others; i++) {
		if (others[i] && strcmp(others[i], "-") != 0 && same_output(path, others[i])) {
			tc_error_set(err, TC_EXIT_OUTPUT, "refusing to write two outputs to one file");
			tc_error_path(err, path);
			return false;
		}
	}
	return true;
}

bool tc_outfile_check_input(const struct tc_outfile *o, uint64_t dev, uint64_t ino,
		struct tc_error *err) {
	if (!o->path || (o->dev == 0 && o->ino == 0) || o->dev != dev || o->ino != ino) {
		return true;
	}
	return refuse(o->path, err);
}

static void release(struct tc_outfile *o) {
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	o->fp = NULL;
	o->slot = -1;
}

bool tc_outfile_commit(struct tc_outfile *o, struct tc_error *err) {
	if (!o->fp) {
		return true;
	}
	if (!o->path) {
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
	if (o->tmp) {
		sigset_t old;
		block_signals(&old);
		if (ok && rename(o->tmp, o->path) != 0) {
			ok = false;
			e = errno;
		}
		if (!ok) {
			unlink(o->tmp);
		}
		slot_drop(o->slot);
		restore_signals(&old);
	}
	if (!ok) {
		tc_error_set(err, TC_EXIT_OUTPUT, "cannot write output: %s", strerror(e));
		tc_error_path(err, o->path);
	}
	release(o);
	return ok;
}

void tc_outfile_abort(struct tc_outfile *o) {
	if (o->path) {
		if (o->fp) {
			fclose(o->fp);
		}
		if (o->tmp) {
			sigset_t old;
			block_signals(&old);
			unlink(o->tmp);
			slot_drop(o->slot);
			restore_signals(&old);
		}
	}
	release(o);
	memset(o, 0, sizeof(*o));
	o->slot = -1;
}
