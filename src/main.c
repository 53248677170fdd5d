/*
 * tracectl's entry point: the command table, top-level help, --help-man
 * and --version, dispatch to a command, and removal of partial output
 * when a signal ends the run.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "config.h"
#include "util/outfile.h"
#include "util/suggest.h"
#include "util/xalloc.h"

/* Keep alphabetised. */
const struct tc_command tc_commands[] = {
	{ "bottlenecks", tc_cmd_bottlenecks, "ranked bottleneck findings with numbers and suggestions",
		&tc_bottlenecks_spec },
	{ "check", tc_cmd_check, "hold performance budgets: metrics against limits, JUnit for CI",
		&tc_check_spec },
	{ "completion", tc_cmd_completion, "print a shell completion script (bash, zsh or fish)",
		&tc_completion_spec },
	{ "diff", tc_cmd_diff, "what changed between two runs; a regression gate for CI",
		&tc_diff_spec },
	{ "digest", tc_cmd_digest, "write a compact per-rank digest that merges and reads back",
		&tc_digest_spec },
	{ "export", tc_cmd_export, "rewrite traces as Chrome JSON for Perfetto UI, cut to size",
		&tc_export_spec },
	{ "info", tc_cmd_info, "show the raw structure of a trace (planes, tracks, counts)",
		&tc_info_spec },
	{ "memory", tc_cmd_memory, "who holds memory at the peak, and memory by op", &tc_memory_spec },
	{ "merge", tc_cmd_merge, "merge digests of a job's ranks into one", &tc_merge_spec },
	{ "ops", tc_cmd_ops, "op statistics with rates and roofline class", &tc_ops_spec },
	{ "report", tc_cmd_report, "one self-contained HTML page of charts: steps, devices, ops, memory",
		&tc_report_spec },
	{ "steps", tc_cmd_steps, "one row per step with its time breakdown", &tc_steps_spec },
	{ "summarize", tc_cmd_summarize, "what ran where and for how long", &tc_summarize_spec },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *f) {
	fprintf(f, "Usage: tracectl [--help|--version] COMMAND [OPTIONS] TRACE...\n\n"
		"Reads XProf xplane.pb, Perfetto and Chrome/Kineto/JAX JSON traces (plain or\n"
		"gzip) and reports what is slow and why.\n\nCommands:\n");
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		fprintf(f, "  %-12s %s\n", c->name, c->summary);
	}
	fprintf(f, "\nRun 'tracectl COMMAND --help' for a command's options.\n"
		"Exit status: 0 ok, 1 findings at --fail-on level, a check limit violated or\n"
		"a diff regression, 2 usage, 3 bad input, 4 output error, 5 resource limit,\n"
		"6 --strict warnings.\n");
}

/* Each name once: the commands with options of their own, then the groups. */
static void help_man_names(void) {
	const struct tc_option_group *seen[16];
	size_t n_seen = 0;
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		if (c->spec && c->spec->options) {
			printf("%s\n", c->name);
		}
	}
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		for (const struct tc_option_group *const *g = c->spec ? c->spec->groups : NULL;
				g && *g; g++) {
			size_t k = 0;
			while (k < n_seen && seen[k] != *g) {
				k++;
			}
			if (k == n_seen && n_seen < sizeof(seen) / sizeof(seen[0])) {
				seen[n_seen++] = *g;
				printf("%s\n", (*g)->name);
			}
		}
	}
}

/*
 * tracectl --help-man NAME: the scdoc option list of command NAME's own
 * options, or of the shared group NAME, as man/tracectl.1.scd holds it
 * (tests/man_options.sh compares them); without NAME, the names that have
 * one. Not in --help: it is for the build.
 */
static int help_man(const char *name) {
	if (!name) {
		help_man_names();
		return TC_EXIT_OK;
	}
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		if (c->spec && strcmp(c->name, name) == 0) {
			tc_cli_print_man(c->spec, stdout);
			return TC_EXIT_OK;
		}
	}
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		for (const struct tc_option_group *const *g = c->spec ? c->spec->groups : NULL;
				g && *g; g++) {
			if (strcmp((*g)->name, name) == 0) {
				tc_cli_print_man_group(*g, stdout);
				return TC_EXIT_OK;
			}
		}
	}
	return tc_cli_usage_error(NULL, "--help-man: no command or option group '%s'", name);
}

/* An interrupted or killed run leaves no temporary output behind; the
 * signal then ends the process as it would have. */
static void on_signal(int sig) {
	tc_outfile_cleanup();
	raise(sig);
}

static void cleanup_on_exit(void) {
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
		sigemptyset(&sa.sa_mask);
		/* A signal the caller ignores (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
			sigaction(sigs[i], &sa, NULL);
		}
	}
	/* exit() on running out of memory, or any path that returns early. */
	atexit(tc_outfile_cleanup);
}

int main(int argc, char **argv) {
	tc_malloc_tune();
	cleanup_on_exit();
	if (argc < 2) {
		usage(stderr);
		return TC_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return TC_EXIT_OK;
	}
	if (strcmp(cmd, "--help-man") == 0 && argc <= 3) {
		return help_man(argc == 3 ? argv[2] : NULL);
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("tracectl %s\n", TC_VERSION);
		return TC_EXIT_OK;
	}
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		if (strcmp(c->name, cmd) == 0) {
			int rc = c->run(argc - 1, argv + 1);
			/* Report a failed write to stdout unless it is a closed pipe. */
			if (fflush(stdout) != 0 && rc == TC_EXIT_OK) {
				fprintf(stderr, "tracectl: error: cannot write to standard output\n");
				rc = TC_EXIT_OUTPUT;
			}
			return rc;
		}
	}
	const char *names[16];
	size_t n = 0;
	for (const struct tc_command *c = tc_commands; c->name && n < 16; c++) {
		names[n++] = c->name;
	}
	const char *hint = tc_suggest(cmd, names, n);
	if (hint) {
		return tc_cli_usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", cmd,
			hint);
	}
	return tc_cli_usage_error(NULL, "unknown command '%s'", cmd);
}
