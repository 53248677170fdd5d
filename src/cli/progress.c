/*
 * The "reading X of Y" progress line on stderr, drawn by a thread while
 * inputs are read; only on a terminal and only for slow reads.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/progress.h"
#include "output/fmt.h"

/* Quiet for this long: most reads end before anyone would wait for them. */
#define DELAY_MS 1000
#define REDRAW_MS 100

static struct {
	_Atomic uint64_t done;
	uint64_t total; /* 0: unknown (stdin) */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool running, stop;
} prog = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* Bytes on disk of a path: a file's size, a folder's files (as deep as the
 * readers go, within reason). */
static uint64_t path_bytes(const char *path, int depth) {
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0) {
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		return (uint64_t)st.st_size;
	}
	if (!S_ISDIR(st.st_mode) || depth > 8) {
		return 0;
	}
	DIR *d = opendir(path);
	uint64_t sum = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.') {
			continue;
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		char *sub = malloc(len);
		if (sub) {
			snprintf(sub, len, "%s/%s", path, e->d_name);
			sum += path_bytes(sub, depth + 1);
			free(sub);
		}
	}
	if (d) {
		closedir(d);
	}
	return sum;
}

static void draw(void) {
	char b1[TC_FMT_LEN], b2[TC_FMT_LEN];
	uint64_t done = atomic_load_explicit(&prog.done, memory_order_relaxed);
	if (prog.total) {
		done = done < prog.total ? done : prog.total;
		fprintf(stderr, "\rtracectl: reading %s of %s (%d %%)\033[K",
			tc_fmt_bytes(b1, (double)done), tc_fmt_bytes(b2, (double)prog.total),
			(int)(100.0 * (double)done / (double)prog.total));
	} else {
		fprintf(stderr, "\rtracectl: reading %s\033[K", tc_fmt_bytes(b1, (double)done));
	}
	fflush(stderr);
}

/* Wait ms or until stopped; true when stopped. Called with the lock held. */
static bool wait_ms(unsigned ms) {
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (!prog.stop) {
		if (pthread_cond_timedwait(&prog.cv, &prog.lock, &t) == ETIMEDOUT) {
			break;
		}
	}
	return prog.stop;
}

static void *run(void *arg) {
	unsigned delay = *(unsigned *)arg;
	free(arg);
	pthread_mutex_lock(&prog.lock);
	bool drawn = false;
	if (!wait_ms(delay)) {
		do {
			draw();
			drawn = true;
		} while (!wait_ms(REDRAW_MS));
	}
	pthread_mutex_unlock(&prog.lock);
	if (drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	return NULL;
}

void tc_cli_progress_start(char **paths, int n, struct tc_limits *lim) {
	lim->progress = &prog.done;
	if (prog.running || !isatty(STDERR_FILENO)) {
		return;
	}
	unsigned *delay = malloc(sizeof(*delay));
	if (!delay) {
		return;
	}
	const char *env = getenv("TRACECTL_PROGRESS_DELAY_MS");
	*delay = env && *env && strspn(env, "0123456789") == strlen(env) ?
		(unsigned)strtoul(env, NULL, 10) : DELAY_MS;
	prog.total = 0;
	for (int i = 0; i < n; i++) {
		prog.total += path_bytes(paths[i], 0);
	}
	prog.stop = false;
	if (pthread_create(&prog.thread, NULL, run, delay) != 0) {
		free(delay);
		return; /* no progress line: reading goes on */
	}
	prog.running = true;
}

void tc_cli_progress_stop(void) {
	if (!prog.running) {
		return;
	}
	pthread_mutex_lock(&prog.lock);
	prog.stop = true;
	pthread_cond_signal(&prog.cv);
	pthread_mutex_unlock(&prog.lock);
	pthread_join(prog.thread, NULL);
	prog.running = false;
}
