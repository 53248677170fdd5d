#ifndef TC_CLI_OPTIONS_H
#define TC_CLI_OPTIONS_H

/*
 * Option tables: one per command, plus shared groups declared once. A table
 * drives the parser (getopt_long), the --help text, the man page's option
 * lists (tracectl --help-man, checked by tests/man_options.sh) and the
 * usage errors for unknown options, missing values and bad choices.
 *
 * Adding an option to a command: add a row to its table (cmd_<name>.c) with
 * an id from the command's enum (from TC_OPT_FIRST_COMMAND_SPECIFIC), and a
 * case for that id in its parse loop. A shared option goes in its group's
 * table (common.c, analysis_opts.c) and that group's handler instead. Then
 * run 'sh tests/man_options.sh --update' and regenerate the *-help goldens.
 *
 * Adding a command: write its table and a struct tc_cli_spec naming the
 * shared groups it takes, parse with tc_cli_next(), point its tc_commands
 * row (main.c) at the spec, and add a '; begin options NAME' block to
 * man/tracectl.1.scd when it has options of its own.
 *
 * A command's own option replaces a group's option of the same long name
 * (export's --max-events caps the output, not the input).
 */

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct tc_option {
	const char *name;       /* long name without "--" */
	int short_name;         /* 'o' for -o; 0 = none */
	const char *arg;        /* value's name in help ("N", "FILE"); NULL = a flag */
	const char *help;       /* one sentence for --help, plain text, wrapped there */
	const char *man;        /* man-page text (scdoc markup); NULL = help */
	int id;                 /* what tc_cli_next() returns for it; > 0 */
	/* The only values taken (NULL-terminated), checked by the parser and
	 * offered by completions; NULL = any value. */
	const char *const *choices;
	/* Words completions offer for the value (NULL-terminated) where the
	 * value is not one of a fixed set: the parser does not check them
	 * (check's --max offers "step.mean=", the metric catalogue). */
	const char *const *(*words)(void);
};

struct tc_option_group {
	const char *name;       /* for tracectl --help-man NAME */
	const char *title;      /* heading in --help ("Input options") */
	const struct tc_option *options; /* ends with a row whose name is NULL */
};

struct tc_cli_spec {
	const char *name;       /* the command: "bottlenecks" */
	const char *usage;      /* after "tracectl NAME ": "[OPTIONS] TRACE..." */
	const char *about;      /* paragraphs, lines already wrapped */
	const struct tc_option *options; /* its own; ends with a NULL name */
	const struct tc_option_group *const *groups; /* NULL-terminated */
	const char *epilogue;   /* after the options; NULL = none */
};

/* The id of -h/--help, which every command takes; the parser handles it. */
#define TC_OPT_HELP 'h'

/*
 * Every option the command takes, in --help order: its own, -h, then each
 * group's (less those its own replace). group is NULL for its own and -h.
 * Shell completions are to be generated from this walk.
 */
typedef void (*tc_cli_walk_fn)(const struct tc_option *o, const struct tc_option_group *g,
	void *ctx);
void tc_cli_walk(const struct tc_cli_spec *s, tc_cli_walk_fn fn, void *ctx);

/* Print the command's --help text to f. */
void tc_cli_print_help(const struct tc_cli_spec *s, FILE *f);
/* Print the scdoc option list of the command's own options, or of one
 * shared group (all of it), as man/tracectl.1.scd holds it. */
void tc_cli_print_man(const struct tc_cli_spec *s, FILE *f);
void tc_cli_print_man_group(const struct tc_option_group *g, FILE *f);

#define TC_CLI_MAX_OPTIONS 64

struct tc_cli_parser {
	const struct tc_cli_spec *spec;
	int argc;
	char **argv;
	int code;               /* exit code when tc_cli_next() returned -1 */
	struct option longopts[TC_CLI_MAX_OPTIONS + 1];
	const struct tc_option *rows[TC_CLI_MAX_OPTIONS];
	size_t n;
	char optstring[2 * TC_CLI_MAX_OPTIONS + 2];
};

void tc_cli_parser_init(struct tc_cli_parser *p, const struct tc_cli_spec *s,
	int argc, char **argv);
/*
 * The next option's id, with its value in *arg (NULL for a flag). 0 when
 * the options are over: the operands are argv[optind..argc). -1 when the
 * command should return p->code: --help was printed (0), or a one-line
 * usage error (unknown option, missing value, a value not among the
 * choices; TC_EXIT_USAGE).
 */
int tc_cli_next(struct tc_cli_parser *p, const char **arg);

#endif
