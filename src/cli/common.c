#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "util/prefault.h"

void tc_cli_common_init(struct tc_cli_common *c, const char *cmd) {
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	tc_ingest_opts_default(&c->ingest);
	/* Only export shows event args; the others keep those analyses read. */
	c->ingest.known_args_only = true;
	c->output = "-";
}

bool tc_cli_parse_size(const char *s, uint64_t *out) {
	char *end;
	errno = 0;
	if (!*s || *s == '-') {
		return false;
	}
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s) {
		return false;
	}
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B') {
		end += *end == 'i';
		end += *end == 'B';
	}
	if (*end || (shift && v > (UINT64_MAX >> shift))) {
		return false;
	}
	*out = (uint64_t)v << shift;
	return true;
}

int tc_cli_usage_error(const char *cmd, const char *fmt, ...) {
	va_list ap;
	fprintf(stderr, "tracectl: error: ");
	va_start(ap, fmt);
	tc_term_vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* One line, so scripts can read the whole error from the last line. */
	fprintf(stderr, "; see 'tracectl %s%s--help'\n", cmd ? cmd : "", cmd ? " " : "");
	return TC_EXIT_USAGE;
}

int tc_cli_getopt_error(const char *cmd, int opt, char **argv) {
	/* getopt has moved optind past the option it complains about (a
	 * short one may sit inside a cluster: optopt names it then). */
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (arg && strncmp(arg, "--", 2) == 0) {
		int len = (int)strcspn(arg, "=");
		if (opt == ':') {
			return tc_cli_usage_error(cmd, "option '%.*s' needs a value", len, arg);
		}
		if (arg[len] == '=' && optopt) {
			return tc_cli_usage_error(cmd, "option '%.*s' takes no value", len, arg);
		}
		return tc_cli_usage_error(cmd, "unknown option '%.*s'", len, arg);
	}
	if (opt == ':') {
		return tc_cli_usage_error(cmd, "option '-%c' needs a value", optopt);
	}
	if (optopt > ' ' && optopt < 127) {
		return tc_cli_usage_error(cmd, "unknown option '-%c'", optopt);
	}
	return tc_cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "");
}

static const char *opt_name(int opt) {
	switch (opt) {
	case TC_OPT_MAX_INPUT:
		return "max-input-size";
	case TC_OPT_MAX_RATIO:
		return "max-ratio";
	case TC_OPT_MAX_EVENTS:
		return "max-events";
	case TC_OPT_MAX_DEPTH:
		return "max-depth";
	case TC_OPT_MAX_STRING:
		return "max-string";
	default:
		return "threads";
	}
}

bool tc_cli_common_opt(struct tc_cli_common *c, int opt, const char *arg, int *exit_code) {
	uint64_t v;
	switch (opt) {
	case TC_OPT_FORMAT:
		if (strcmp(arg, "text") == 0) {
			c->format = TC_FORMAT_TEXT;
		} else if (strcmp(arg, "json") == 0) {
			c->format = TC_FORMAT_JSON;
		} else {
			*exit_code = tc_cli_usage_error(c->cmd,
				"unknown format '%s' (use text or json)", arg);
		}
		return true;
	case TC_OPT_JSON:
		c->format = TC_FORMAT_JSON;
		return true;
	case 'o':
		c->output = arg;
		return true;
	case TC_OPT_STRICT:
		c->strict = true;
		return true;
	case TC_OPT_MAX_INPUT:
	case TC_OPT_MAX_RATIO:
	case TC_OPT_MAX_EVENTS:
	case TC_OPT_MAX_DEPTH:
	case TC_OPT_MAX_STRING:
	case TC_OPT_THREADS:
		if (!tc_cli_parse_size(arg, &v) || v == 0 ||
				(opt != TC_OPT_MAX_INPUT && opt != TC_OPT_MAX_EVENTS && v > UINT32_MAX)) {
			*exit_code = tc_cli_usage_error(c->cmd, "invalid number '%s' for --%s "
				"(a positive integer, optionally with k, M, G or T)", arg, opt_name(opt));
			return true;
		}
		if (opt == TC_OPT_MAX_INPUT) {
			c->ingest.lim.max_input = v;
		} else if (opt == TC_OPT_MAX_RATIO) {
			c->ingest.lim.max_ratio = (uint32_t)v;
		} else if (opt == TC_OPT_MAX_EVENTS) {
			c->ingest.lim.max_events = v;
		} else if (opt == TC_OPT_MAX_DEPTH) {
			c->ingest.lim.max_depth = (uint32_t)v;
		} else if (opt == TC_OPT_MAX_STRING) {
			c->ingest.lim.max_string = (uint32_t)v;
		} else {
			c->ingest.threads = (unsigned)v;
		}
		return true;
	default:
		return false;
	}
}

int tc_cli_error(const struct tc_error *err) {
	char buf[1200];
	tc_error_format(err, buf, sizeof(buf));
	/* Paths and names in the message are escaped: the error stays one line. */
	tc_term_fprintf(stderr, "tracectl: error: %s\n", buf);
	return err->code ? err->code : TC_EXIT_INPUT;
}

struct tc_model *tc_cli_load(const struct tc_cli_common *c, char **paths, int n, int *code) {
	struct tc_error err;
	tc_error_init(&err);
	/* The second core faults in model memory ahead of the readers and
	 * the analysis (until exit). */
	if (c->ingest.threads != 1 && tc_prefault_start()) {
		atexit(tc_prefault_stop);
	}
	struct tc_model *m = tc_ingest((const char *const *)paths, (size_t)n, &c->ingest, &err);
	if (!m) {
		*code = tc_cli_error(&err);
	}
	return m;
}

bool tc_cli_open_output(const struct tc_cli_common *c, char **inputs, int n,
		const struct tc_model *m, struct tc_outfile *o) {
	struct tc_error err;
	tc_error_init(&err);
	if (!tc_outfile_open(o, c->output, (const char *const *)inputs, (size_t)n, &err)) {
		tc_cli_error(&err);
		return false;
	}
	return !m || tc_cli_check_output(o, m);
}

bool tc_cli_check_output(struct tc_outfile *o, const struct tc_model *m) {
	struct tc_error err;
	tc_error_init(&err);
	for (size_t i = 0; i < m->n_sources; i++) {
		if (!tc_outfile_check_input(o, m->sources[i].dev, m->sources[i].ino, &err)) {
			tc_outfile_abort(o);
			tc_cli_error(&err);
			return false;
		}
	}
	return true;
}

int tc_cli_close_output(struct tc_outfile *o) {
	struct tc_error err;
	tc_error_init(&err);
	if (!tc_outfile_commit(o, &err)) {
		return tc_cli_error(&err);
	}
	return TC_EXIT_OK;
}

#if defined(__SANITIZE_ADDRESS__)
#define TC_FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_FREE_AT_EXIT 1
#endif
#endif

/*
 * A big model is hundreds of MB in many mappings: the kernel takes them
 * back in one pass at exit faster than free() unmaps them column by column
 * (about 5 % of summarize on a 1 GiB trace). Sanitizer builds still free
 * it, so a leak anywhere else stays visible.
 */
void tc_cli_model_done(struct tc_model *m) {
#ifdef TC_FREE_AT_EXIT
	tc_model_destroy(m);
#else
	(void)m;
#endif
}

int tc_cli_strict(const struct tc_cli_common *c, const struct tc_model *m) {
	if (!c->strict || m->n_warnings == 0) {
		return TC_EXIT_OK;
	}
	for (size_t i = 0; i < m->n_warnings; i++) {
		tc_term_fprintf(stderr, "tracectl: error: --strict: %s (%" PRIu64 "x)\n",
			tc_model_str(m, m->warnings[i].msg), m->warnings[i].count);
	}
	return TC_EXIT_STRICT;
}
