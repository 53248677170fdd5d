/*
 * `tracectl completion bash|zsh|fish`: shell completion scripts generated
 * from the command and option tables.
 */
#include <string.h>
#include "cli/cli.h"

/*
 * tracectl completion bash|zsh|fish: a completion script made from the
 * command table and each command's option table (tc_cli_walk), so it can
 * never fall behind them. Meson runs it at build time and installs the
 * three scripts. Options offer their choices or words where the table
 * lists them, else files; operands complete as files.
 */

static const char *const shells[] = { "bash", "zsh", "fish", NULL };

const struct tc_cli_spec tc_completion_spec = {
	.name = "completion",
	.usage = "bash|zsh|fish",
	.about =
		"Print the completion script for a shell: commands, each command's\n"
		"options, option values where they are a fixed set, and files.\n"
		"  bash: source it, or install it as\n"
		"        /usr/share/bash-completion/completions/tracectl\n"
		"  zsh:  save it as _tracectl in a folder on $fpath\n"
		"  fish: save it as ~/.config/fish/completions/tracectl.fish\n",
};

/* Description text safe inside the shell's single quotes (and zsh's
 * brackets): quotes become double quotes, brackets parentheses. */
static void put_desc(FILE *f, const char *s) {
	for (; *s; s++) {
		switch (*s) {
		case '\'':
			fputc('"', f);
			break;
		case '[':
			fputc('(', f);
			break;
		case ']':
			fputc(')', f);
			break;
		case ':':
			fputs("\\:", f);
			break;
		case '\\':
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void put_choices(FILE *f, const char *const *choices) {
	for (size_t i = 0; choices[i]; i++) {
		fprintf(f, "%s%s", i ? " " : "", choices[i]);
	}
}

/* An option's fixed choices, else the words it offers; NULL for files. */
static const char *const *offered(const struct tc_option *o) {
	return o->choices ? o->choices : o->words ? o->words() : NULL;
}

/* ---- bash ---- */

static void bash_value(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	FILE *f = ctx;
	(void)g;
	if (!o->arg) {
		return;
	}
	fprintf(f, "\t\t--%s", o->name);
	if (o->short_name) {
		fprintf(f, "|-%c", o->short_name);
	}
	if (o->choices) {
		fputs(") COMPREPLY=($(compgen -W '", f);
		put_choices(f, o->choices);
		fputs("' -- \"$cur\")); return ;;\n", f);
	} else if (o->words) {
		/* "METRIC=" goes on with its value: no space after it. */
		fputs(") compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -W '", f);
		put_choices(f, o->words());
		fputs("' -- \"$cur\")); return ;;\n", f);
	} else {
		fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", f);
	}
}

static void bash_name(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	FILE *f = ctx;
	(void)g;
	fprintf(f, " --%s", o->name);
	if (o->short_name) {
		fprintf(f, " -%c", o->short_name);
	}
}

static void bash(FILE *f) {
	fputs("# bash completion for tracectl (made by 'tracectl completion bash')\n"
		"_tracectl() {\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		"\t# --opt=value: bash splits at '='\n"
		"\tif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
		"\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n"
		"\telif [ \"$cur\" = = ]; then\n"
		"\t\tcur=\n"
		"\tfi\n"
		"\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		"\t\tCOMPREPLY=($(compgen -W '--help --version", f);
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		fprintf(f, " %s", c->name);
	}
	fputs("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tlocal opts\n\tcase ${COMP_WORDS[1]} in\n", f);
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		fprintf(f, "\t%s)\n\t\tcase $prev in\n", c->name);
		tc_cli_walk(c->spec, bash_value, f);
		fputs("\t\tesac\n\t\topts='", f);
		tc_cli_walk(c->spec, bash_name, f);
		fputs("'\n", f);
		if (c->spec == &tc_completion_spec) {
			fputs("\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n\t\t\tCOMPREPLY=($(compgen -W '", f);
			put_choices(f, shells);
			fputs("' -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n", f);
		}
		fputs("\t\t;;\n", f);
	}
	fputs("\t*) return ;;\n\tesac\n"
		"\tcase $cur in\n"
		"\t-*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
		"\t*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
		"\tesac\n"
		"}\n"
		"complete -o filenames -o bashdefault -F _tracectl tracectl\n", f);
}

/* ---- zsh ---- */

static void zsh_spec(FILE *f, const char *form, const struct tc_option *o) {
	fprintf(f, " \\\n\t\t\t'%s[", form);
	put_desc(f, o->help);
	fputc(']', f);
	if (o->arg) {
		fputc(':', f);
		put_desc(f, o->arg);
		if (offered(o)) {
			fputs(":(", f);
			for (const char *const *w = offered(o); *w; w++) {
				fputs(w == offered(o) ? "" : " ", f);
				put_desc(f, *w);
			}
			fputs(")'", f);
		} else {
			fputs(":_files'", f);
		}
	} else {
		fputc('\'', f);
	}
}

static void zsh_option(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	FILE *f = ctx;
	(void)g;
	char form[80];
	snprintf(form, sizeof(form), "--%s%s", o->name, o->arg ? "=" : "");
	zsh_spec(f, form, o);
	if (o->short_name) {
		snprintf(form, sizeof(form), "-%c%s", o->short_name, o->arg ? "+" : "");
		zsh_spec(f, form, o);
	}
}

static void zsh(FILE *f) {
	fputs("#compdef tracectl\n"
		"# zsh completion for tracectl (made by 'tracectl completion zsh')\n"
		"_tracectl() {\n"
		"\tlocal -a commands\n"
		"\tcommands=(\n", f);
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		fprintf(f, "\t\t'%s:", c->name);
		put_desc(f, c->summary);
		fputs("'\n", f);
	}
	fputs("\t)\n"
		"\tif (( CURRENT == 2 )); then\n"
		"\t\t_describe -t commands 'tracectl command' commands\n"
		"\t\treturn\n"
		"\tfi\n"
		"\tlocal cmd=${words[2]}\n"
		"\tshift words\n"
		"\t(( CURRENT-- ))\n"
		"\tcase $cmd in\n", f);
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		fprintf(f, "\t%s)\n\t\t_arguments -s -S", c->name);
		tc_cli_walk(c->spec, zsh_option, f);
		if (c->spec == &tc_completion_spec) {
			fputs(" \\\n\t\t\t'1:shell:(", f);
			put_choices(f, shells);
			fputs(")'", f);
		} else {
			fputs(" \\\n\t\t\t'*:TRACE:_files'", f);
		}
		fputs("\n\t\t;;\n", f);
	}
	fputs("\tesac\n}\n_tracectl \"$@\"\n", f);
}

/* ---- fish ---- */

static void fish_desc(FILE *f, const char *s) {
	fputs(" -d '", f);
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\') {
			fputc('\\', f);
		}
		fputc(*s, f);
	}
	fputc('\'', f);
}

struct fish_ctx {
	FILE *f;
	const char *cmd;
};

static void fish_option(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	const struct fish_ctx *x = ctx;
	FILE *f = x->f;
	(void)g;
	fprintf(f, "complete -c tracectl -n '__fish_seen_subcommand_from %s'", x->cmd);
	if (o->short_name) {
		fprintf(f, " -s %c", o->short_name);
	}
	fprintf(f, " -l %s", o->name);
	if (o->arg && offered(o)) {
		fputs(" -x -a '", f);
		put_choices(f, offered(o));
		fputc('\'', f);
	} else if (o->arg) {
		fputs(" -r -F", f);
	}
	fish_desc(f, o->help);
	fputc('\n', f);
}

static void fish(FILE *f) {
	fputs("# fish completion for tracectl (made by 'tracectl completion fish')\n"
		"complete -c tracectl -f\n"
		"complete -c tracectl -n __fish_use_subcommand -l help -d 'show the help'\n"
		"complete -c tracectl -n __fish_use_subcommand -l version -d 'show the version'\n",
		f);
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		fprintf(f, "complete -c tracectl -n __fish_use_subcommand -a %s", c->name);
		fish_desc(f, c->summary);
		fputc('\n', f);
	}
	for (const struct tc_command *c = tc_commands; c->name; c++) {
		struct fish_ctx x = { f, c->name };
		tc_cli_walk(c->spec, fish_option, &x);
		if (c->spec == &tc_completion_spec) {
			fprintf(f, "complete -c tracectl -n '__fish_seen_subcommand_from %s' -a '",
				c->name);
			put_choices(f, shells);
			fputs("'\n", f);
		} else {
			fprintf(f, "complete -c tracectl -n '__fish_seen_subcommand_from %s' -F\n",
				c->name);
		}
	}
}

int tc_cmd_completion(int argc, char **argv) {
	int opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, &tc_completion_spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		/* -h is the only option: the parser handles it. */
	}
	if (opt < 0) {
		return p.code;
	}
	if (optind + 1 != argc) {
		return tc_cli_usage_error("completion", optind >= argc ? "no shell given" :
			"one shell only");
	}
	const char *sh = argv[optind];
	if (strcmp(sh, "bash") == 0) {
		bash(stdout);
	} else if (strcmp(sh, "zsh") == 0) {
		zsh(stdout);
	} else if (strcmp(sh, "fish") == 0) {
		fish(stdout);
	} else {
		return tc_cli_usage_error("completion", "unknown shell '%s' (use bash, zsh or fish)",
			sh);
	}
	return TC_EXIT_OK;
}
