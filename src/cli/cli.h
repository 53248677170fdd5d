#ifndef TC_CLI_CLI_H
#define TC_CLI_CLI_H

/*
 * The command line. Only this layer prints to stderr and decides exit codes.
 * Adding a command: write cli/cmd_<name>.c with its option table (see
 * cli/options.h), add it to the table in main.c (alphabetical), add golden
 * tests under tests/cli/, add a man-page section. A command that prints
 * analysis results reads its inputs (trace, digest or job of ranks) with
 * tc_cli_source_open and only writes what that returns: parse, open,
 * write, gate.
 */

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include "cli/options.h"
#include "ingest/ingest.h"
#include "model/findings.h"
#include "model/model.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/term.h"

struct tc_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const struct tc_cli_spec *spec; /* its options, for --help-man */
};

extern const struct tc_command tc_commands[];

int tc_cmd_bottlenecks(int argc, char **argv);
int tc_cmd_check(int argc, char **argv);
int tc_cmd_completion(int argc, char **argv);
int tc_cmd_diff(int argc, char **argv);
int tc_cmd_digest(int argc, char **argv);
int tc_cmd_export(int argc, char **argv);
int tc_cmd_info(int argc, char **argv);
int tc_cmd_memory(int argc, char **argv);
int tc_cmd_merge(int argc, char **argv);
int tc_cmd_ops(int argc, char **argv);
int tc_cmd_report(int argc, char **argv);
int tc_cmd_steps(int argc, char **argv);
int tc_cmd_summarize(int argc, char **argv);

extern const struct tc_cli_spec tc_bottlenecks_spec;
extern const struct tc_cli_spec tc_check_spec;
extern const struct tc_cli_spec tc_completion_spec;
extern const struct tc_cli_spec tc_diff_spec;
extern const struct tc_cli_spec tc_digest_spec;
extern const struct tc_cli_spec tc_export_spec;
extern const struct tc_cli_spec tc_info_spec;
extern const struct tc_cli_spec tc_memory_spec;
extern const struct tc_cli_spec tc_merge_spec;
extern const struct tc_cli_spec tc_ops_spec;
extern const struct tc_cli_spec tc_report_spec;
extern const struct tc_cli_spec tc_steps_spec;
extern const struct tc_cli_spec tc_summarize_spec;

enum tc_format {
	TC_FORMAT_TEXT = 0,
	TC_FORMAT_JSON,
};

/* Options every command that reads traces takes. */
struct tc_cli_common {
	const char *cmd; /* the command's name, for usage errors */
	struct tc_ingest_opts ingest;
	enum tc_format format;
	const char *output; /* "-" = stdout */
	bool strict;
	/* A text report on stdout meets the terminal: fitted to its width
	 * (unless wide) and coloured by color (see tc_cli_open_output). */
	bool wide;
	bool data; /* the output is data (a trace, JUnit), never a report */
	enum tc_color_mode { TC_COLOR_AUTO = 0, TC_COLOR_ALWAYS, TC_COLOR_NEVER } color;
};

/* getopt_long codes of the common options (beyond the ASCII range). */
enum {
	TC_OPT_FORMAT = 1000,
	TC_OPT_MAX_INPUT,
	TC_OPT_MAX_RATIO,
	TC_OPT_MAX_EVENTS,
	TC_OPT_THREADS,
	TC_OPT_STRICT,
	TC_OPT_JSON,
	TC_OPT_MAX_DEPTH,
	TC_OPT_MAX_STRING,
	TC_OPT_WIDE,
	TC_OPT_COLOR,
	TC_OPT_FIRST_COMMAND_SPECIFIC, /* commands number their own from here */
};

/* The options of every command that reads traces (cli/common.c). */
extern const struct tc_option_group tc_cli_input_group;
/* -o, --format, --json, --wide, --color: every command that writes a report. */
extern const struct tc_option_group tc_cli_output_group;

void tc_cli_common_init(struct tc_cli_common *c, const char *cmd);
/* Handle an input or output option; returns true if it was one. On a bad
 * value prints the error and sets *exit_code to TC_EXIT_USAGE. */
bool tc_cli_common_opt(struct tc_cli_common *c, int opt, const char *arg, int *exit_code);

/* Parse "123", "4k", "2M", "1G" (binary units). */
bool tc_cli_parse_size(const char *s, uint64_t *out);
/* Parse a --top style count; prints a usage error (code set) when bad. */
bool tc_cli_parse_count(const char *cmd, const char *opt, const char *arg, size_t *out,
	int *code);

/* Read the inputs; prints the error and returns NULL on failure (*code set). */
struct tc_model *tc_cli_load(const struct tc_cli_common *c, char **paths, int n, int *code);
/* For a command that takes only input and output options: parse them
 * with spec; false when the command is over, *code its exit status (0
 * after --help). */
bool tc_cli_plain_parse(const struct tc_cli_spec *spec, struct tc_cli_common *c,
	int argc, char **argv, int *code);
/* tc_cli_plain_parse, then read the TRACEs (argv[optind..]). NULL when the
 * command is over, *code its exit status. */
struct tc_model *tc_cli_plain_load(const struct tc_cli_spec *spec, struct tc_cli_common *c,
	int argc, char **argv, int *code);

/* Open c->output (stdout by default); prints on failure. inputs are the
 * TRACE arguments; with the model read from them, every file it was read
 * from (folder members, a file on stdin) is checked too. A text report on
 * stdout gets the terminal's width and colour (tc_g_termout); with a width
 * it is written through a buffer that tc_cli_close_output() wraps. */
bool tc_cli_open_output(const struct tc_cli_common *c, char **inputs, int n,
	const struct tc_model *m, struct tc_outfile *o);
/* Refuse (print, abort o, false) an output that is a file m was read from. */
bool tc_cli_check_output(struct tc_outfile *o, const struct tc_model *m);
/* A "truncated" line for each input of m cut off mid-trace; text reports
 * open with it (tc_cli_open_output writes it when given the model). */
void tc_cli_truncated_note(FILE *f, const struct tc_model *m);
/* Commit output; returns the exit code (0 or TC_EXIT_OUTPUT). */
int tc_cli_close_output(struct tc_outfile *o);
/* Open the output, call write(f, json, ctx), commit, then apply --strict;
 * returns the exit code. */
int tc_cli_emit(const struct tc_cli_common *c, char **inputs, int n, const struct tc_model *m,
	void (*write)(FILE *f, bool json, const void *ctx), const void *ctx);

/* Print "tracectl: error: ..." and return err->code (or TC_EXIT_INPUT). */
int tc_cli_error(const struct tc_error *err);
/* Print one line, "tracectl: error: MSG; see 'tracectl CMD --help'", and
 * return TC_EXIT_USAGE (cmd NULL: the top-level help). */
int tc_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* getopt_long returned ':' (missing value) or '?' (unknown option): print
 * the one-line usage error naming the option, and the option hint (without
 * "--") as what was meant when not NULL (cli/options.c parses with
 * opterr = 0, so getopt itself prints nothing). */
int tc_cli_getopt_error(const char *cmd, int opt, char **argv, const char *hint);
/* With --strict and warnings: print them as errors and return TC_EXIT_STRICT. */
int tc_cli_strict(const struct tc_cli_common *c, const struct tc_model *m);
/* Several input files and none on stdin (which cannot be read twice):
 * each file is a rank, read and analysed on its own (the model has no
 * rank identity to split by). */
bool tc_cli_per_source(const struct tc_model *m);
/* The command is done with m and the process exits next (see common.c). */
void tc_cli_model_done(struct tc_model *m);

/* The analysis options of the commands that analyse (cli/analysis_opts.c). */
struct tc_analysis_opts;
enum {
	TC_OPT_STEPS = 1100,
	TC_OPT_THRESHOLD,
	TC_OPT_PEAK_FLOPS,
	TC_OPT_PEAK_BW,
	TC_OPT_DEVICE,
	TC_OPT_STEP_MARKER,
};

extern const struct tc_option_group tc_cli_analysis_group;

/* --step-marker: an analysis option, and export's own (it takes no
 * analysis group). */
#define TC_CLI_STEP_MARKER_OPTION \
	{ "step-marker", 0, "RE", "steps are the annotations whose name matches the " \
		"extended regex RE, numbered by their step_num, iteration or step arg, else " \
		"the name's trailing number, else their order (default: built-in markers)", \
		"Steps are the host or device annotations whose name matches the POSIX " \
		"extended regex _RE_, numbered by their *step_num*, *iteration* or *step* " \
		"arg, else the name's trailing number, else their order. Replaces the " \
		"built-in markers; the output names the marker used.", TC_OPT_STEP_MARKER }

/* Handle an analysis option; returns true if it was one. On a bad value
 * prints the error and sets *exit_code to TC_EXIT_USAGE. */
bool tc_cli_analysis_opt(struct tc_analysis_opts *o, const char *cmd, int opt,
	const char *arg, int *exit_code);
/* o asks for the default analysis: what a digest holds. */
bool tc_cli_analysis_default(const struct tc_analysis_opts *o);
/* Print the one-line error for a --device NAME that matched no device or
 * several (the first few named, the rest counted). */
struct tc_device_match;
void tc_cli_device_error(const struct tc_model *m, const char *name,
	const struct tc_device_match *dm);

/* Digests as inputs (cli/digests.c, docs/digest.md). */
struct tc_digest;
struct tc_rank_set;
struct tc_cli_digests {
	struct tc_digest **d;   /* one per input (digest/digest.h) */
	size_t n;
	struct tc_rank_set *ranks; /* every rank, input by input (digest/ranks.h) */
	struct tc_model *skel;  /* tc_rank_set_skeleton of ranks */
	size_t twice;           /* ranks dropped as given twice (tc_cli_digests_dedupe) */
};
/* A digest at path that would not read (err): a file that is no digest
 * is a usage error (cmd reads digests only). Prints; the exit code. */
int tc_cli_digest_read_error(const char *cmd, const char *path, const struct tc_cli_common *c,
	const struct tc_error *err);
/* 0: no input is a digest, 1: all are, -1: some are. */
int tc_cli_inputs_kind(const struct tc_cli_common *c, char **paths, int n);
/* Read paths as digests (finish in with tc_cli_digests_finish also on
 * failure); prints and returns the exit code. */
int tc_cli_digests_load(const struct tc_cli_common *c, const char *cmd, char **paths, int n,
	struct tc_cli_digests *in);
/* A rank digests hold twice or more (the same name, as merge refuses) is
 * read once, as a file named twice is: the later copies are dropped from
 * in[0..n)'s ranks; how many. tc_cli_digests_load does it over its inputs
 * and warns in its skeleton; tc_cli_digests_warn_twice warns in m. */
size_t tc_cli_digests_dedupe(struct tc_cli_digests *in, size_t n);
void tc_cli_digests_warn_twice(struct tc_model *m, size_t twice);
void tc_cli_digests_finish(struct tc_cli_digests *in);
/* Digests hold the default analysis: false (usage error printed, *code
 * set) when o asks for another. */
bool tc_cli_digest_opts(const char *cmd, const struct tc_analysis_opts *o, int *code);
/* Both for a command that reads traces or digests, not a mix (kind from
 * tc_cli_inputs_kind): refuse a mix or analysis options, else load. */
int tc_cli_digests_open(const struct tc_cli_common *c, const char *cmd,
	const struct tc_analysis_opts *ao, int kind, char **paths, int n,
	struct tc_cli_digests *in);
/* tc_cli_digests_open for a command that prints one rank: a usage error
 * for several ranks; with result, an input error for a rank whose digest
 * holds no summary (Rank.result). */
int tc_cli_digest_rank_open(const struct tc_cli_common *c, const char *cmd,
	const struct tc_analysis_opts *ao, int kind, char **paths, int n, bool result,
	struct tc_cli_digests *in);
/* The input error for the rank named rank of the digest at path ("": of
 * several) that holds no summary (Rank.result); prints it and returns its
 * exit code. */
int tc_cli_no_result(const char *rank, const char *path);

/* Inputs of two or more ranks (cli/job.c): trace files, each read alone
 * into a digest rank, and the ranks of digests. */
struct tc_spill;
struct tc_job_ranks;
struct tc_cli_job {
	struct tc_cli_digests in;     /* digests read */
	struct tc_digest **made;      /* the traces' ranks */
	size_t n_made;
	struct tc_spill *aside;       /* their bulk (tc_digest_add_job_rank) */
	struct tc_rank_set *ranks;    /* every rank */
	const struct tc_job_ranks *jr; /* ranks, sorted, as the job reads them (borrowed) */
	struct tc_model *skel;        /* tc_job_skeleton of jr */
};
/* 1 with job filled when paths hold two or more ranks (stdin is never
 * one of them); 0 when they are one input to read as before; -1 on an
 * error, printed, its exit code in *code. Finish a filled job with
 * tc_cli_job_finish. */
int tc_cli_job_open(const struct tc_cli_common *c, const char *cmd,
	const struct tc_analysis_opts *ao, char **paths, int n, struct tc_cli_job *job,
	int *code);
void tc_cli_job_finish(struct tc_cli_job *job);

/* An analysis command's inputs opened (cli/source.c): a trace analysed
 * here, one rank's digest, or a job of ranks. */
struct tc_cli_source {
	struct tc_model *m;     /* what the results describe: the trace's model or a skeleton */
	struct tc_analysis an;  /* the results asked for (op_table for TC_AN_OP_TABLE) */
	enum { TC_CLI_FROM_NONE, TC_CLI_FROM_TRACE, TC_CLI_FROM_DIGEST, TC_CLI_FROM_JOB } from;
	unsigned want;          /* as opened */
	struct tc_cli_digests digests;
	struct tc_cli_job job;
};
/* What tc_cli_source_open takes beside the TC_AN_* bits. */
enum {
	TC_CLI_MEMVIEW = 1u << 16,     /* s->an.memview alone (from a trace: no analysis) */
	TC_CLI_ONE_MODEL = 1u << 17,   /* several traces are one model, never a job */
	TC_CLI_TRACES_ONLY = 1u << 18, /* digests are read (and refused) as traces */
	TC_CLI_ALL_RANKS = 1u << 19,   /* digests: s->digests, every rank, no result */
	TC_CLI_DROP_MODEL = 1u << 20,  /* finish frees the model: more is read after */
	TC_CLI_SOURCE_BITS = TC_CLI_MEMVIEW | TC_CLI_ONE_MODEL | TC_CLI_TRACES_ONLY |
		TC_CLI_ALL_RANKS | TC_CLI_DROP_MODEL,
};
/* Opens argv[optind..argc) and fills s->an with want (TC_AN_* and
 * TC_CLI_* bits; from digests and jobs: the summary, findings and memory
 * of their result, the steps, or the op table by ao->op_by). Several ranks
 * with the default analysis are a job; digests hold the default analysis
 * only. Prints and returns the exit code; finish s with
 * tc_cli_source_finish also on failure. */
int tc_cli_source_open(const struct tc_cli_common *c, struct tc_analysis_opts *ao,
	unsigned want, int argc, char **argv, struct tc_cli_source *s);
void tc_cli_source_finish(struct tc_cli_source *s);
/* Load the TRACE arguments argv[optind..argc) of an analysis command (the
 * trace half of tc_cli_source_open; check and diff read traces with it):
 * usage error when there are none, input errors, an unknown --device.
 * Prints and returns NULL with *code set on failure. Also gives o the
 * --threads value, which is known only once parsing is done. */
struct tc_model *tc_cli_analysis_load(const struct tc_cli_common *c,
	struct tc_analysis_opts *o, const char *cmd, int argc, char **argv, int *code);

#endif
