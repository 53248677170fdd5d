/*
 * Option tables at work: parsing with getopt_long, --help text, man page
 * option lists and usage errors, all generated from each command's table.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "util/suggest.h"

/* --help: option names in the first 26 columns, text up to column 79. */
#define HELP_COL 26
#define HELP_WIDTH 79
/* Man-page text after one tab, for reading the .scd (roff refills it). */
#define MAN_WIDTH 72

/* getopt_long's value for the i-th long option: above any short option. */
#define LONG_BASE 0x10000

static const struct tc_option help_option = {
	"help", 'h', NULL, "show this help", NULL, TC_OPT_HELP, NULL,
};

static bool replaced(const struct tc_cli_spec *s, const char *name) {
	for (const struct tc_option *o = s->options; o && o->name; o++) {
		if (strcmp(o->name, name) == 0) {
			return true;
		}
	}
	return false;
}

void tc_cli_walk(const struct tc_cli_spec *s, tc_cli_walk_fn fn, void *ctx) {
	for (const struct tc_option *o = s->options; o && o->name; o++) {
		fn(o, NULL, ctx);
	}
	fn(&help_option, NULL, ctx);
	for (const struct tc_option_group *const *g = s->groups; g && *g; g++) {
		for (const struct tc_option *o = (*g)->options; o->name; o++) {
			if (!replaced(s, o->name)) {
				fn(o, *g, ctx);
			}
		}
	}
}

/* Write text from column col, breaking between words before width; new
 * lines start with indent (indent_w columns wide). With man set, scdoc's
 * markup characters are escaped. */
static void put_wrapped(FILE *f, const char *text, size_t col, const char *indent,
		size_t indent_w, size_t width, bool man) {
	const char *p = text;
	bool first = true;
	while (*p) {
		size_t n = strcspn(p, " ");
		if (!first && col + 1 + n > width) {
			fprintf(f, "\n%s", indent);
			col = indent_w;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		for (size_t i = 0; i < n; i++) {
			if (man && (p[i] == '*' || p[i] == '_' || p[i] == '\\')) {
				fputc('\\', f);
			}
			fputc(p[i], f);
		}
		col += n;
		first = false;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

/* For help_row: the group printed last; for man_row: the group wanted. */
struct print_ctx {
	FILE *f;
	const struct tc_option_group *group;
	bool started;
};

static void help_row(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	struct print_ctx *h = ctx;
	if (!h->started || g != h->group) {
		fprintf(h->f, "\n%s:\n", g ? g->title : "Options");
		h->started = true;
		h->group = g;
	}
	char head[128];
	int n;
	if (o->short_name) {
		n = snprintf(head, sizeof(head), "  -%c, --%s", o->short_name, o->name);
	} else {
		n = snprintf(head, sizeof(head), "      --%s", o->name);
	}
	if (o->arg) {
		n += snprintf(head + n, sizeof(head) - (size_t)n, " %s", o->arg);
	}
	fputs(head, h->f);
	if (n > HELP_COL - 2) {
		fprintf(h->f, "\n%*s", HELP_COL, "");
	} else {
		fprintf(h->f, "%*s", HELP_COL - n, "");
	}
	put_wrapped(h->f, o->help, HELP_COL, "                          ", HELP_COL, HELP_WIDTH,
		false);
}

void tc_cli_print_help(const struct tc_cli_spec *s, FILE *f) {
	fprintf(f, "Usage: tracectl %s %s\n\n%s", s->name, s->usage, s->about);
	struct print_ctx h = { .f = f };
	tc_cli_walk(s, help_row, &h);
	if (s->epilogue) {
		fprintf(f, "\n%s", s->epilogue);
	}
}

static void man_row(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	struct print_ctx *m = ctx;
	if (g != m->group || o->id == TC_OPT_HELP) {
		return;
	}
	if (m->started) {
		fputc('\n', m->f);
	}
	m->started = true;
	if (o->short_name) {
		fprintf(m->f, "*-%c*, ", o->short_name);
	}
	fprintf(m->f, "*--%s*", o->name);
	if (o->arg) {
		fprintf(m->f, " _%s_", o->arg);
	}
	fputs("\n\t", m->f);
	if (o->man) {
		put_wrapped(m->f, o->man, 8, "\t", 8, 8 + MAN_WIDTH, false);
		return;
	}
	/* The --help text as a sentence. */
	size_t len = strlen(o->help);
	char *text = malloc(len + 2);
	if (!text) {
		abort();
	}
	memcpy(text, o->help, len + 1);
	text[0] = (char)toupper((unsigned char)text[0]);
	if (len && text[len - 1] != '.') {
		memcpy(text + len, ".", 2);
	}
	put_wrapped(m->f, text, 8, "\t", 8, 8 + MAN_WIDTH, true);
	free(text);
}

void tc_cli_print_man(const struct tc_cli_spec *s, FILE *f) {
	struct print_ctx m = { .f = f };
	tc_cli_walk(s, man_row, &m);
}

void tc_cli_print_man_group(const struct tc_option_group *g, FILE *f) {
	/* Alone, so that no command's own option hides one of its rows. */
	const struct tc_option_group *groups[] = { g, NULL };
	const struct tc_cli_spec s = { .groups = groups };
	struct print_ctx m = { .f = f, .group = g };
	tc_cli_walk(&s, man_row, &m);
}

static void add_row(const struct tc_option *o, const struct tc_option_group *g, void *ctx) {
	struct tc_cli_parser *p = ctx;
	(void)g;
	if (p->n == TC_CLI_MAX_OPTIONS) {
		abort(); /* raise TC_CLI_MAX_OPTIONS */
	}
	p->rows[p->n] = o;
	p->longopts[p->n] = (struct option){
		o->name, o->arg ? required_argument : no_argument, NULL, LONG_BASE + (int)p->n,
	};
	if (o->short_name) {
		size_t k = strlen(p->optstring);
		p->optstring[k++] = (char)o->short_name;
		if (o->arg) {
			p->optstring[k++] = ':';
		}
		p->optstring[k] = '\0';
	}
	p->n++;
}

void tc_cli_parser_init(struct tc_cli_parser *p, const struct tc_cli_spec *s,
		int argc, char **argv) {
	memset(p, 0, sizeof(*p));
	p->spec = s;
	p->argc = argc;
	p->argv = argv;
	/* The leading ':' tells a missing value (':') from an unknown option. */
	p->optstring[0] = ':';
	tc_cli_walk(s, add_row, p);
	/* getopt itself prints nothing; 0 restarts it for a second parse. */
	opterr = 0;
	optind = 0;
}

static bool is_choice(const char *const *choices, const char *v) {
	for (; *choices; choices++) {
		if (strcmp(*choices, v) == 0) {
			return true;
		}
	}
	return false;
}

/* "a, b or c" */
static void join_choices(const char *const *choices, char *buf, size_t size) {
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; choices[i] && len < size; i++) {
		const char *sep = i == 0 ? "" : choices[i + 1] ? ", " : " or ";
		len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, choices[i]);
	}
}

/* For an unknown "--name[=value]": the closest option name, or NULL. */
static const char *suggest_option(const struct tc_cli_parser *p, const char *arg) {
	if (!arg || strncmp(arg, "--", 2) != 0) {
		return NULL;
	}
	char word[65];
	size_t len = strcspn(arg + 2, "=");
	if (len >= sizeof(word)) {
		return NULL;
	}
	memcpy(word, arg + 2, len);
	word[len] = '\0';
	const char *names[TC_CLI_MAX_OPTIONS];
	for (size_t i = 0; i < p->n; i++) {
		names[i] = p->rows[i]->name;
	}
	return tc_suggest(word, names, p->n);
}

int tc_cli_next(struct tc_cli_parser *p, const char **arg) {
	int c = getopt_long(p->argc, p->argv, p->optstring, p->longopts, NULL);
	if (c == -1) {
		return 0;
	}
	const struct tc_option *o = NULL;
	if (c >= LONG_BASE && c < LONG_BASE + (int)p->n) {
		o = p->rows[c - LONG_BASE];
	} else if (c != '?' && c != ':') {
		for (size_t i = 0; i < p->n && !o; i++) {
			o = p->rows[i]->short_name == c ? p->rows[i] : NULL;
		}
	}
	if (!o) {
		const char *hint = c == '?' && optind > 0 ?
			suggest_option(p, p->argv[optind - 1]) : NULL;
		p->code = tc_cli_getopt_error(p->spec->name, c, p->argv, hint);
		return -1;
	}
	if (o->id == TC_OPT_HELP) {
		tc_cli_print_help(p->spec, stdout);
		p->code = TC_EXIT_OK;
		return -1;
	}
	*arg = o->arg ? optarg : NULL;
	if (o->choices && !is_choice(o->choices, optarg)) {
		char list[256];
		join_choices(o->choices, list, sizeof(list));
		p->code = tc_cli_usage_error(p->spec->name, "unknown --%s '%s' (use %s)", o->name,
			optarg, list);
		return -1;
	}
	return o->id;
}
