/*
 * Reading inputs into a model: format detection by content, the reader
 * table, folder expansion, and several files read on parallel threads.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingest/digest.h"
#include "ingest/ingest.h"
#include "model/rank.h"
#include "util/xalloc.h"

static const struct tc_reader *const readers[] = {
	&tc_reader_xplane,
	&tc_reader_perfetto,
	&tc_reader_json,
	&tc_reader_nsys,
};
#define N_READERS (sizeof(readers) / sizeof(readers[0]))

void tc_ingest_opts_default(struct tc_ingest_opts *o) {
	*o = (struct tc_ingest_opts){ 0 };
	tc_limits_default(&o->lim);
}

/* b[0, n) without the first of suffixes it ends in (never all of it). */
static size_t strip_suffix(const char *b, size_t n, const char *const *suffixes) {
	for (; *suffixes; suffixes++) {
		size_t k = strlen(*suffixes);
		if (n > k && strncmp(b + n - k, *suffixes, k) == 0) {
			return n - k;
		}
	}
	return n;
}

uint32_t tc_ingest_host_from_path(struct tc_model *m, const char *path) {
	if (strcmp(path, "-") == 0) {
		return tc_model_intern(m, "stdin");
	}
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	/* A compression suffix, then a trace suffix (longest first). */
	static const char *const compression[] = { ".gz", ".zst", NULL };
	static const char *const trace[] = {
		".xplane.pb", ".pt.trace.json", ".trace.json", ".json",
		".perfetto-trace", ".pftrace", ".sqlite", NULL,
	};
	n = strip_suffix(b, n, compression);
	n = strip_suffix(b, n, trace);
	return tc_model_intern_n(m, b, n);
}

const struct tc_reader *tc_ingest_sniff(const uint8_t *head, size_t len) {
	const struct tc_reader *best = NULL;
	int best_score = 0;
	for (size_t i = 0; i < N_READERS; i++) {
		int s = readers[i]->sniff(head, len);
		if (s > best_score) {
			best_score = s;
			best = readers[i];
		}
	}
	return best;
}

bool tc_ingest_over_limit(const struct tc_model *m, const struct tc_limits *lim,
		struct tc_error *err) {
	if (m->over_arg_bytes) {
		tc_error_set(err, TC_EXIT_LIMIT, "more than %llu bytes of args (the model's limit)",
			(unsigned long long)m->max_arg_bytes);
		return true;
	}
	if (m->ev.n <= lim->max_events && !m->over_max_events) {
		return false;
	}
	tc_error_set(err, TC_EXIT_LIMIT, "more than %llu events (raise it with --max-events)",
		(unsigned long long)lim->max_events);
	return true;
}

bool tc_ingest_input(struct tc_model *m, struct tc_input *in, const struct tc_reader *r,
		const struct tc_limits *lim, struct tc_error *err) {
	bool ok = false;
	if (in->head_len == 0) {
		tc_error_set(err, TC_EXIT_INPUT, "file is empty");
		goto out;
	}
	if (!r) {
		r = tc_ingest_sniff(in->head, in->head_len);
	}
	if (!r && tc_digest_sniff(in->head, in->head_len)) {
		/* Digests are found by peeking at files, which a pipe cannot give. */
		tc_error_set(err, TC_EXIT_USAGE, "a tracectl digest, which only "
			TC_DIGEST_COMMANDS " read%s", strcmp(in->path, "-") == 0 ?
			", and from a file, not standard input" : "");
		goto out;
	}
	if (!r) {
		tc_error_set(err, TC_EXIT_INPUT, "unrecognised format (tried %s, %s, %s, %s)",
			readers[0]->description, readers[1]->description, readers[2]->description,
			readers[3]->description);
		goto out;
	}
	uint32_t src = tc_model_add_source(m, in->path, r->name,
		tc_compression_name(in->comp), in->file_size, 0);
	m->sources[src].dev = in->dev;
	m->sources[src].ino = in->ino;
	uint64_t cap_before = m->max_events;
	m->max_events = lim->max_events;
	ok = r->read(m, in, src, lim, err);
	m->max_events = cap_before;
	/* A reader that opened the file itself (nsys: SQLite reads it) has
	 * set the size it read. */
	if (tc_input_tell(in) > m->sources[src].data_size) {
		m->sources[src].data_size = tc_input_tell(in);
	}
	m->sources[src].file_size = in->file_size;
	if (m->over_max_events || m->over_arg_bytes || (ok && m->ev.n > lim->max_events)) {
		/* Past the cap a reader may also have failed on the events it lost;
		 * the limit is the real cause. */
		tc_error_init(err);
		tc_ingest_over_limit(m, lim, err);
		ok = false;
	}
out:
	tc_error_path(err, tc_input_name(in));
	return ok;
}

bool tc_ingest_file(struct tc_model *m, const char *path,
		const struct tc_limits *lim, struct tc_error *err) {
	struct tc_input in;
	if (!tc_input_open(&in, path, lim, err)) {
		return false;
	}
	bool ok = tc_ingest_input(m, &in, NULL, lim, err);
	tc_input_finish(&in);
	return ok;
}

/* ---- folders ---- */

struct file_list {
	char **v;
	size_t n, cap;
};

/*
 * Files and folders already taken, by device and inode: a folder reached
 * again through a link (a loop such as "a -> .", or "latest -> run1") is
 * not walked twice, and a file named twice ("x ./x", a hard link, a link
 * into a folder also given) is read once. Open addressing; ids are never
 * removed.
 */
struct id_set {
	struct file_id {
		uint64_t dev, ino;
	} *v;
	size_t n, cap; /* cap: a power of two, or 0 */
};

static size_t id_hash(uint64_t dev, uint64_t ino, size_t mask) {
	uint64_t h = (ino ^ (dev * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	return (size_t)(h ^ (h >> 29)) & mask;
}

/* True when (dev, ino) was not in the set; it is now. */
static bool id_add(struct id_set *s, uint64_t dev, uint64_t ino) {
	if (2 * (s->n + 1) > s->cap) {
		struct id_set g = { .cap = s->cap ? 2 * s->cap : 64 };
		g.v = tc_xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < s->cap; i++) {
			if (s->v[i].dev || s->v[i].ino) {
				id_add(&g, s->v[i].dev, s->v[i].ino);
			}
		}
		free(s->v);
		*s = g;
	}
	/* (0, 0) marks a free slot; no file has inode 0 on device 0. */
	for (size_t i = id_hash(dev, ino, s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		struct file_id *e = &s->v[i];
		if (e->dev == dev && e->ino == ino) {
			return false;
		}
		if (!e->dev && !e->ino) {
			*e = (struct file_id){ dev, ino };
			s->n++;
			return true;
		}
	}
}

struct walk {
	struct file_list *out;
	struct tc_model *warn_to;
	const struct tc_limits *lim;
	struct id_set seen_dirs, seen_files;
	uint64_t dup_dirs, dup_files, too_deep;
};

/* A regular file to read, unless it was taken already. */
static bool take_file(struct walk *w, const struct stat *st) {
	if ((st->st_dev || st->st_ino) &&
			!id_add(&w->seen_files, (uint64_t)st->st_dev, (uint64_t)st->st_ino)) {
		w->dup_files++;
		return false;
	}
	return true;
}

static void list_push(struct file_list *l, char *s) {
	TC_GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = s;
}

/* By name, past the leading link flag (see walk). */
static int cmp_name(const void *a, const void *b) {
	return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

static bool has_suffix(const char *s, const char *suf) {
	size_t n = strlen(s), k = strlen(suf);
	return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Quick content check of a file found in a folder: open, sniff, close. */
static const struct tc_reader *sniff_path(const char *path, const struct tc_limits *lim) {
	struct tc_input in;
	struct tc_error e;
	tc_error_init(&e);
	if (!tc_input_open(&in, path, lim, &e)) {
		return NULL;
	}
	const struct tc_reader *r = in.head_len ? tc_ingest_sniff(in.head, in.head_len) : NULL;
	tc_input_finish(&in);
	return r;
}

/*
 * Walk a folder. In a directory that holds xplane files, JSON/Perfetto files
 * beside them are the same profile converted (JAX writes both), so they are
 * skipped rather than counted twice. A TensorBoard logdir's
 * plugins/profile/ may hold several runs: only the newest is read. Links
 * are followed, but each folder and file is taken once (struct id_set).
 */
static bool walk(struct walk *w, const char *dir, int depth, struct tc_error *err) {
	if (depth > 16) {
		w->too_deep++;
		return true;
	}
	DIR *d = opendir(dir);
	if (!d) {
		tc_error_set(err, TC_EXIT_INPUT, "cannot open folder: %s", strerror(errno));
		tc_error_path(err, dir);
		return false;
	}
	struct file_list files = { 0 }, dirs = { 0 };
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') {
			continue;
		}
		size_t n = strlen(dir) + strlen(de->d_name) + 3;
		/* p[0] says whether the entry is a link: a file or folder also
		 * reached under its own name is taken under that name. */
		char *p = tc_xmalloc(n);
		snprintf(p, n, "%c%s/%s", '0', dir, de->d_name);
		struct stat st;
		if (lstat(p + 1, &st) == 0 && S_ISLNK(st.st_mode)) {
			p[0] = '1';
		}
		if (stat(p + 1, &st) != 0) {
			tc_model_warn(w->warn_to, 1, "skipped unreadable entry in a folder");
			free(p);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			list_push(&dirs, p);
		} else if (S_ISREG(st.st_mode)) {
			list_push(&files, p);
		} else {
			free(p);
		}
	}
	closedir(d);
	tc_sort(files.v, files.n, sizeof(char *), cmp_name);
	tc_sort(dirs.v, dirs.n, sizeof(char *), cmp_name);

	bool ok = true;
	const struct tc_reader **kind = tc_xcalloc(files.n + 1, sizeof(*kind));
	bool any_xplane = false;
	for (size_t i = 0; i < files.n; i++) {
		if (access(files.v[i] + 1, R_OK) != 0) {
			tc_model_warn(w->warn_to, 1, "skipped unreadable file in a folder");
			continue;
		}
		kind[i] = sniff_path(files.v[i] + 1, w->lim);
		any_xplane |= kind[i] == &tc_reader_xplane;
	}
	size_t skipped = 0;
	bool *take = tc_xcalloc(files.n + 1, sizeof(*take));
	for (int links = 0; links < 2; links++) {
		for (size_t i = 0; i < files.n; i++) {
			struct stat st;
			if (!kind[i] || (files.v[i][0] == '1') != links) {
				continue;
			}
			if (any_xplane && kind[i] != &tc_reader_xplane) {
				skipped++;
			} else {
				take[i] = stat(files.v[i] + 1, &st) != 0 || take_file(w, &st);
			}
		}
	}
	for (size_t i = 0; i < files.n; i++) {
		if (take[i]) {
			list_push(w->out, tc_xstrdup(files.v[i] + 1));
		}
		free(files.v[i]);
	}
	if (skipped) {
		tc_model_warn(w->warn_to, skipped,
			"skipped JSON/Perfetto files beside xplane files in the same folder (same profile)");
	}
	free(take);
	free(kind);
	free(files.v);

	bool profile_dir = has_suffix(dir, "plugins/profile");
	for (int links = 0; links < 2; links++) {
		for (size_t i = 0; ok && i < dirs.n; i++) {
			struct stat st;
			if ((dirs.v[i][0] == '1') != links || (profile_dir && i != dirs.n - 1)) {
				continue;
			}
			if (stat(dirs.v[i] + 1, &st) == 0 &&
					!id_add(&w->seen_dirs, (uint64_t)st.st_dev, (uint64_t)st.st_ino)) {
				w->dup_dirs++;
			} else {
				ok = walk(w, dirs.v[i] + 1, depth + 1, err);
			}
		}
	}
	for (size_t i = 0; i < dirs.n; i++) {
		free(dirs.v[i]);
	}
	if (profile_dir && dirs.n > 1) {
		tc_model_warn(w->warn_to, dirs.n - 1,
			"profile folder holds several runs; read only the newest");
	}
	free(dirs.v);
	return ok;
}

/* The files to read: paths as given, folders expanded, each file once. */
static bool list_inputs(struct walk *w, const char *const *paths, size_t n,
		size_t *stdin_count, struct tc_error *err) {
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		bool is_stdin = strcmp(paths[i], "-") == 0;
		int r = is_stdin ? fstat(STDIN_FILENO, &st) : stat(paths[i], &st);
		if (!is_stdin && r == 0 && S_ISDIR(st.st_mode)) {
			if (!id_add(&w->seen_dirs, (uint64_t)st.st_dev, (uint64_t)st.st_ino)) {
				w->dup_dirs++;
				continue;
			}
			size_t before = w->out->n;
			if (!walk(w, paths[i], 0, err)) {
				return false;
			}
			if (w->out->n == before && w->dup_files == 0) {
				tc_error_set(err, TC_EXIT_INPUT, "folder holds no trace file");
				tc_error_path(err, paths[i]);
				return false;
			}
			continue;
		}
		*stdin_count += is_stdin;
		/* Only regular files have an identity worth keeping: a pipe or a
		 * terminal on stdin is read once anyway. */
		if (r == 0 && S_ISREG(st.st_mode) && !take_file(w, &st)) {
			continue;
		}
		list_push(w->out, tc_xstrdup(paths[i]));
	}
	if (w->dup_files) {
		tc_model_warn_inputs(w->warn_to, w->dup_files,
			"the same file was given or found more than once (same device and inode); read once");
	}
	if (w->dup_dirs) {
		tc_model_warn_inputs(w->warn_to, w->dup_dirs,
			"skipped a folder reached again through a link (a loop or a second name); walked once");
	}
	if (w->too_deep) {
		tc_model_warn(w->warn_to, w->too_deep, "skipped folders nested deeper than 16 levels");
	}
	return true;
}

/* ---- parallel reading ---- */

struct job {
	const char *path;
	const struct tc_limits *lim;
	struct tc_model *m;
	struct tc_error err;
	bool ok;
};

struct pool {
	struct job *jobs;
	size_t n;
	size_t next;
	pthread_mutex_t lock;
};

static void *worker(void *arg) {
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n) {
			return NULL;
		}
		struct job *j = &p->jobs[i];
		j->ok = tc_ingest_file(j->m, j->path, j->lim, &j->err);
	}
}

/* One file of several stands for a host (a rank) even when its format
 * names none (Perfetto): its devices get one named after the file. */
static void own_host(struct tc_model *m) {
	if (m->n_sources != 1 || m->sources[0].host != TC_NONE) {
		return;
	}
	uint32_t h = tc_model_add_host(m,
		tc_ingest_host_from_path(m, tc_model_str(m, m->sources[0].path)), 0);
	for (size_t d = 0; d < m->n_devices; d++) {
		if (m->devices[d].host == TC_NONE) {
			m->devices[d].host = h;
		}
	}
}

bool tc_ingest_list(const char *const *paths, size_t n, const struct tc_ingest_opts *o,
		struct tc_model *warn_to, char ***files, size_t *n_files, struct tc_error *err) {
	struct file_list list = { 0 };
	size_t stdin_count = 0;
	struct walk w = { .out = &list, .warn_to = warn_to, .lim = &o->lim };
	bool ok = list_inputs(&w, paths, n, &stdin_count, err);
	free(w.seen_dirs.v);
	free(w.seen_files.v);
	if (ok && stdin_count > 1) {
		tc_error_set(err, TC_EXIT_USAGE, "standard input ('-') can be read only once");
		ok = false;
	} else if (ok && list.n == 0) {
		tc_error_set(err, TC_EXIT_USAGE, "no input");
		ok = false;
	}
	if (!ok) {
		for (size_t i = 0; i < list.n; i++) {
			free(list.v[i]);
		}
		free(list.v);
		list = (struct file_list){ 0 };
	}
	*files = list.v;
	*n_files = list.n;
	return ok;
}

struct tc_model *tc_ingest(const char *const *paths, size_t n,
		const struct tc_ingest_opts *o, struct tc_error *err) {
	struct tc_model *m = tc_model_create();
	m->known_args_only = o->known_args_only;
	struct file_list files = { 0 };
	if (!tc_ingest_list(paths, n, o, m, &files.v, &files.n, err)) {
		tc_model_destroy(m);
		return NULL;
	}

	unsigned cpus = o->threads;
	if (cpus == 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		cpus = c > 0 ? (unsigned)c : 1;
	}
	/* A core per file to spare: readers may pipeline their work. */
	struct tc_limits lim = o->lim;
	lim.reader_thread = cpus >= 2 * files.n;
	struct pool pool = { .n = files.n };
	pool.jobs = tc_xcalloc(files.n, sizeof(*pool.jobs));
	for (size_t i = 0; i < files.n; i++) {
		pool.jobs[i].path = files.v[i];
		pool.jobs[i].lim = &lim;
		pool.jobs[i].m = files.n == 1 ? m : tc_model_create();
		pool.jobs[i].m->known_args_only = o->known_args_only;
		tc_error_init(&pool.jobs[i].err);
	}
	unsigned nthreads = cpus;
	if (nthreads > files.n) {
		nthreads = (unsigned)files.n;
	}
	pthread_mutex_init(&pool.lock, NULL);
	if (nthreads <= 1) {
		worker(&pool);
	} else {
		pthread_t *t = tc_xcalloc(nthreads, sizeof(*t));
		unsigned started = 0;
		for (unsigned i = 0; i < nthreads; i++) {
			if (pthread_create(&t[i], NULL, worker, &pool) == 0) {
				started++;
			} else {
				break;
			}
		}
		if (started == 0) {
			worker(&pool);
		}
		for (unsigned i = 0; i < started; i++) {
			pthread_join(t[i], NULL);
		}
		free(t);
	}
	pthread_mutex_destroy(&pool.lock);

	bool ok = true;
	for (size_t i = 0; i < files.n; i++) {
		struct job *j = &pool.jobs[i];
		if (ok && !j->ok) {
			*err = j->err;
			ok = false;
		}
		if (j->m != m) {
			if (ok) {
				own_host(j->m);
				tc_model_merge(m, j->m);
			}
			tc_model_destroy(j->m);
		}
	}
	free(pool.jobs);
	for (size_t i = 0; i < files.n; i++) {
		free(files.v[i]);
	}
	free(files.v);
	if (!ok) {
		tc_model_destroy(m);
		return NULL;
	}
	if (tc_ingest_over_limit(m, &o->lim, err)) {
		tc_model_destroy(m);
		return NULL;
	}
	tc_model_assign_ranks(m);
	tc_model_finalize_mt(m, cpus >= 2);
	tc_ingest_warn_unrecognised(m);
	return m;
}
