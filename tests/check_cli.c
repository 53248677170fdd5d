/*
 * Check suite for the CLI layer: option tables (unique, all in --help,
 * parsed as declared), the threads a command starts, and what a job
 * opened from its ranks' traces or digests holds.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/analyze.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "output/finding_text.h"
#include "tc_test.h"

/*
 * Linked with -Wl,--wrap=pthread_create: every thread the core starts is
 * counted, so --threads 1 can be held to starting none.
 */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
	void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
	void *arg);

static atomic_int started;

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *),
		void *arg) {
	atomic_fetch_add(&started, 1);
	return __real_pthread_create(t, a, fn, arg);
}

/* Over the analysis' threshold for a second thread (analyze.c's
 * PARALLEL_MIN_EVENTS), which it uses when --threads is left at 0. */
#define BIG_EVENTS 120000

static char trace_path[4096];

static void make_trace(void) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("{\"traceEvents\":[\n", f);
	for (int i = 0; i < BIG_EVENTS; i++) {
		fprintf(f, "%s{\"name\":\"op%d\",\"ph\":\"X\",\"ts\":%d,\"dur\":1,"
			"\"pid\":1,\"tid\":1}\n", i ? "," : "", i % 16, 2 * i);
	}
	fputs("]}\n", f);
	fclose(f);
	snprintf(trace_path, sizeof(trace_path), "%s", tc_test_tmpfile(buf, len));
	free(buf);
}

/* Run a command in-process on the big trace, its output to /dev/null,
 * with extra options (NULL-terminated) too; returns the threads it started. */
static int threads_started(int (*run)(int, char **), const char *cmd, const char *threads,
		const char *const *extra) {
	const char *args[16] = { cmd, "--threads", threads, "-o", "/dev/null", trace_path };
	int argc = 6;
	for (; extra && *extra; extra++) {
		args[argc++] = *extra;
	}
	atomic_store(&started, 0);
	int rc = run(argc, (char **)args);
	ck_assert_msg(rc == TC_EXIT_OK, "%s --threads %s: exit %d", cmd, threads, rc);
	return atomic_load(&started);
}

START_TEST(threads_one_starts_none) {
	make_trace();
	static const char *const annotate[] = { "--chrome", "--annotate", NULL };
	static const struct {
		const char *name;
		int (*run)(int, char **);
		const char *const *extra;
	} cmds[] = {
		{ "bottlenecks", tc_cmd_bottlenecks, NULL },
		{ "export", tc_cmd_export, annotate },
		{ "info", tc_cmd_info, NULL },
		{ "ops", tc_cmd_ops, NULL },
		{ "steps", tc_cmd_steps, NULL },
		{ "summarize", tc_cmd_summarize, NULL },
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int n = threads_started(cmds[i].run, cmds[i].name, "1", cmds[i].extra);
		ck_assert_msg(n == 0, "%s --threads 1 started %d threads", cmds[i].name, n);
	}
	/* The count does see the threads a command starts. */
	ck_assert_int_gt(threads_started(tc_cmd_bottlenecks, "bottlenecks", "2", NULL), 0);
	unlink(trace_path);
}
END_TEST

static const struct tc_cli_spec *const specs[] = {
	&tc_bottlenecks_spec, &tc_export_spec, &tc_info_spec, &tc_ops_spec,
	&tc_steps_spec, &tc_summarize_spec,
};

#define MAX_ROWS 128

struct rows {
	const struct tc_option *o[MAX_ROWS];
	size_t n;
};

static void collect(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	struct rows *r = ctx;
	(void)g;
	ck_assert_uint_lt(r->n, MAX_ROWS);
	r->o[r->n++] = o;
}

/* No two options of one command share a long name, a short name or an id
 * (a new row that clashes fails here, not in getopt), and each has help. */
START_TEST(tables_unique) {
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		struct rows r = { .n = 0 };
		tc_cli_walk(specs[s], collect, &r);
		ck_assert_uint_le(r.n, TC_CLI_MAX_OPTIONS);
		for (size_t i = 0; i < r.n; i++) {
			const struct tc_option *a = r.o[i];
			ck_assert_msg(a->help && *a->help, "%s --%s: no help", specs[s]->name, a->name);
			ck_assert_msg(!a->choices || a->arg, "%s --%s: choices without a value",
				specs[s]->name, a->name);
			for (size_t j = i + 1; j < r.n; j++) {
				const struct tc_option *b = r.o[j];
				ck_assert_msg(strcmp(a->name, b->name) != 0, "%s: --%s twice",
					specs[s]->name, a->name);
				ck_assert_msg(!a->short_name || a->short_name != b->short_name,
					"%s: -%c twice", specs[s]->name, a->short_name);
				ck_assert_msg(a->id != b->id, "%s: --%s and --%s share an id",
					specs[s]->name, a->name, b->name);
			}
		}
	}
}
END_TEST

/* Every option is in --help, and no line is wider than 79 columns. */
START_TEST(help_lists_every_option) {
	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		tc_cli_print_help(specs[s], f);
		fclose(f);
		for (const char *line = buf; *line;) {
			size_t n = strcspn(line, "\n");
			ck_assert_msg(n <= 79, "%s --help: a line of %zu columns", specs[s]->name, n);
			line += n + (line[n] == '\n');
		}
		struct rows r = { .n = 0 };
		tc_cli_walk(specs[s], collect, &r);
		for (size_t i = 0; i < r.n; i++) {
			char want[128];
			snprintf(want, sizeof(want), "--%s%s%s", r.o[i]->name, r.o[i]->arg ? " " : "",
				r.o[i]->arg ? r.o[i]->arg : "");
			ck_assert_msg(strstr(buf, want), "%s --help lacks %s", specs[s]->name, want);
		}
		free(buf);
	}
}
END_TEST

/* The parser hands back ids and values, and stops at a value that is not
 * among an option's choices. */
START_TEST(parser_ids_and_choices) {
	char *argv[] = {
		(char *)"ops", (char *)"--by", (char *)"kind", (char *)"t.json", (char *)"--json",
		(char *)"--top=5", NULL,
	};
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_ops_spec, 6, argv);
	const char *arg = NULL;
	int id = tc_cli_next(&p, &arg);
	ck_assert_int_gt(id, 0);
	ck_assert_str_eq(arg, "kind");
	ck_assert_int_eq(tc_cli_next(&p, &arg), TC_OPT_JSON);
	ck_assert_ptr_null(arg);
	ck_assert_int_gt(tc_cli_next(&p, &arg), 0);
	ck_assert_str_eq(arg, "5");
	ck_assert_int_eq(tc_cli_next(&p, &arg), 0);
	ck_assert_str_eq(argv[optind], "t.json");

	char *bad[] = { (char *)"ops", (char *)"--by", (char *)"colour", NULL };
	tc_cli_parser_init(&p, &tc_ops_spec, 3, bad);
	ck_assert_int_eq(tc_cli_next(&p, &arg), -1);
	ck_assert_int_eq(p.code, TC_EXIT_USAGE);
}
END_TEST

/* No byte under 0x20 in s, a finding's string. */
static void printable(const char *s, const char *what, const char *kind) {
	for (const char *p = s; p && *p; p++) {
		ck_assert_msg((unsigned char)*p >= 0x20, "%s: %s: byte 0x%02x in '%s'", what, kind,
			(unsigned char)*p, s);
	}
}

/* The job of argv[1..argc) (two ranks): every finding names its rank, and
 * neither its text, its suggestion nor its wording holds a byte under
 * 0x20: the ranks' slots and spreads are fields (tc_finding.slot,
 * spread_at). Some slot is used, so the check saw a rank's device names. */
static void job_strings_printable(int argc, char **argv, const char *what) {
	struct tc_cli_common c;
	tc_cli_common_init(&c, "bottlenecks");
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	optind = 1;
	struct tc_cli_source s;
	ck_assert_int_eq(tc_cli_source_open(&c, &ao, TC_AN_FINDINGS, argc, argv, &s), TC_EXIT_OK);
	ck_assert_uint_gt(s.an.n_findings, 0);
	size_t slots = 0, ranked = 0;
	for (size_t i = 0; i < s.an.n_findings; i++) {
		const struct tc_finding *f = &s.an.findings[i];
		printable(f->text, what, f->kind);
		printable(f->suggestion, what, f->kind);
		struct tc_strbuf sb = { 0 };
		tc_finding_wording(f, &sb);
		printable(sb.s, what, f->kind);
		tc_strbuf_finish(&sb);
		for (size_t k = 0; k < f->n_slots; k++) {
			ck_assert_uint_le(f->slot[k], strlen(f->text));
		}
		ck_assert(!f->has_spread || f->spread_at + f->spread_len <= strlen(f->text));
		slots += f->n_slots;
		ranked += f->has_rank;
	}
	ck_assert_uint_gt(slots, 0);
	ck_assert_uint_gt(ranked, 0);
	tc_cli_source_finish(&s);
}

/* Two DDP ranks as traces, as their digests, and as one merged digest. */
START_TEST(job_finding_strings_printable) {
	char r0[4096], r1[4096];
	snprintf(r0, sizeof(r0), "%s", tc_test_src("fixtures/real/torch_ddp_rank0.kineto.json.gz"));
	snprintf(r1, sizeof(r1), "%s", tc_test_src("fixtures/real/torch_ddp_rank1.kineto.json.gz"));
	char *traces[] = { (char *)"bottlenecks", r0, r1, NULL };
	job_strings_printable(3, traces, "traces");

	char d[3][32];
	for (int k = 0; k < 3; k++) {
		snprintf(d[k], sizeof(d[k]), "%s", tc_test_tmpfile("", 0));
	}
	for (int k = 0; k < 2; k++) {
		char *dig[] = { (char *)"digest", (char *)"-o", d[k], k ? r1 : r0, NULL };
		ck_assert_int_eq(tc_cmd_digest(4, dig), TC_EXIT_OK);
	}
	char *digests[] = { (char *)"bottlenecks", d[0], d[1], NULL };
	job_strings_printable(3, digests, "digests");
	char *merge[] = { (char *)"merge", (char *)"-o", d[2], d[0], d[1], NULL };
	ck_assert_int_eq(tc_cmd_merge(5, merge), TC_EXIT_OK);
	char *merged[] = { (char *)"bottlenecks", d[2], NULL };
	job_strings_printable(2, merged, "merged digest");
	for (int k = 0; k < 3; k++) {
		unlink(d[k]);
	}
}
END_TEST

int main(void) {
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, threads_one_starts_none);
	tcase_add_test(tc, tables_unique);
	tcase_add_test(tc, help_lists_every_option);
	tcase_add_test(tc, parser_ids_and_choices);
	tcase_add_test(tc, job_finding_strings_printable);
	suite_add_tcase(s, tc);
	return tc_test_run(s);
}
