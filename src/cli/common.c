/*
 * What the commands share: the input and output option groups, reading
 * the inputs, opening and committing the output, and printing errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/progress.h"
#include "util/numfmt.h"
#include "util/prefault.h"
#include "util/term.h"
#include "util/termout.h"

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

int tc_cli_getopt_error(const char *cmd, int opt, char **argv, const char *hint) {
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
		if (hint) {
			return tc_cli_usage_error(cmd, "unknown option '%.*s' (did you mean '--%s'?)",
				len, arg, hint);
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

static const char *const format_choices[] = { "text", "json", NULL };
static const char *const color_choices[] = { "auto", "always", "never", NULL };

static const struct tc_option output_options[] = {
	{ "output", 'o', "FILE", "write to FILE (atomically; '-' = stdout)",
		"Write to _FILE_ through a temporary file renamed into place, so an "
		"error never leaves a partial file. Writing onto an input file is "
		"refused; *-* is standard output (see OUTPUT).", 'o' },
	{ "format", 0, "text|json", "output format (default text)",
		"Output for people (default) or for programs. JSON documents carry a "
		"*schema* member (e.g. *tracectl.summary/3*); see docs/json-schema.md.",
		TC_OPT_FORMAT, format_choices },
	{ "json", 0, NULL, "the same as --format json", NULL, TC_OPT_JSON },
	{ "wide", 0, NULL, "never shorten or cut names, leave out columns or wrap lines to "
		"fit the terminal width", "Show every column and whole names (kernel signatures "
		"as the trace has them), and wrap no line, whatever the terminal width (see "
		"*COLUMNS* in ENVIRONMENT).", TC_OPT_WIDE },
	{ "color", 0, "WHEN", "colour text reports: auto (default: on a terminal unless "
		"NO_COLOR is set), always or never", "Colour severity words, table headers "
		"and bad numbers in text reports on standard output: *auto* (default) when "
		"it is a terminal and *NO_COLOR* is unset or empty, *always*, or *never*. "
		"JSON and files are never coloured.", TC_OPT_COLOR, color_choices },
	{ 0 },
};

const struct tc_option_group tc_cli_output_group = {
	"output", "Output options", output_options,
};

static const struct tc_option input_options[] = {
	{ "strict", 0, NULL, "exit 6 when the input produced warnings",
		"Exit with status 6 when reading produced warnings (dropped events, "
		"unmatched slices, clock gaps).", TC_OPT_STRICT },
	{ "max-input-size", 0, "N", "refuse inputs over N decompressed bytes (default 64G)",
		"Refuse an input that decompresses to more than _N_ bytes (default 64G; "
		"suffixes k, M, G, T).", TC_OPT_MAX_INPUT },
	{ "max-ratio", 0, "N", "refuse compression ratios over N:1 (default 1000)",
		"Refuse gzip/zlib/zstd input whose decompressed size exceeds _N_ times "
		"its compressed size once past 256 MiB (default 1000).", TC_OPT_MAX_RATIO },
	{ "max-events", 0, "N", "refuse traces with over N events (default 2147483648)",
		"Refuse traces with more than _N_ events (default 2^31). Checked while "
		"reading, so memory stays bounded.", TC_OPT_MAX_EVENTS },
	{ "max-depth", 0, "N", "refuse JSON/protobuf nesting over N deep (default 64)",
		"Refuse JSON or protobuf input nested deeper than _N_ levels (default 64).",
		TC_OPT_MAX_DEPTH },
	{ "max-string", 0, "N", "limit one string (name, arg) to N bytes (default 16M)",
		"Keep at most _N_ bytes of one string (name or argument value) from the "
		"input (default 16M).", TC_OPT_MAX_STRING },
	{ "threads", 0, "N", "threads for reading and analysis (default: CPUs)",
		"Read up to _N_ files in parallel; with a core to spare, also tokenise "
		"JSON on a second thread, decode the events of big xplane planes on two "
		"threads, walk and decode the packets of a big Perfetto trace on a "
		"second thread (and decompress a compressed or piped one on a third as "
		"it is walked), fault in model memory ahead of the readers, reorder the "
		"event columns of a big trace on two threads and run the analysis "
		"passes of *summarize*, *bottlenecks* and *export --annotate* on a "
		"second thread, each device's utilisation and attribution two devices "
		"at a time (default: number of CPUs; 1 runs everything on one "
		"thread). Results do not depend on it.", TC_OPT_THREADS },
	{ 0 },
};

const struct tc_option_group tc_cli_input_group = {
	"input", "Input options", input_options,
};

static const char *input_name(int id) {
	const struct tc_option *o = input_options;
	while (o->name && o->id != id) {
		o++;
	}
	return o->name;
}

bool tc_cli_common_opt(struct tc_cli_common *c, int opt, const char *arg, int *exit_code) {
	uint64_t v;
	switch (opt) {
	case TC_OPT_FORMAT:
		/* The parser took only format_choices. */
		c->format = strcmp(arg, "json") == 0 ? TC_FORMAT_JSON : TC_FORMAT_TEXT;
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
	case TC_OPT_WIDE:
		c->wide = true;
		return true;
	case TC_OPT_COLOR:
		/* The parser took only color_choices. */
		c->color = strcmp(arg, "always") == 0 ? TC_COLOR_ALWAYS :
			strcmp(arg, "never") == 0 ? TC_COLOR_NEVER : TC_COLOR_AUTO;
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
				"(a positive integer, optionally with k, M, G or T)", arg, input_name(opt));
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

bool tc_cli_plain_parse(const struct tc_cli_spec *spec, struct tc_cli_common *c,
		int argc, char **argv, int *code) {
	tc_cli_common_init(c, spec->name);
	*code = TC_EXIT_OK;
	int opt;
	const char *arg;
	struct tc_cli_parser p;
	tc_cli_parser_init(&p, spec, argc, argv);
	while ((opt = tc_cli_next(&p, &arg)) > 0) {
		/* Every option it takes is an input or output one. */
		tc_cli_common_opt(c, opt, arg, code);
		if (*code) {
			return false;
		}
	}
	if (opt < 0) {
		*code = p.code;
		return false;
	}
	if (optind >= argc) {
		*code = tc_cli_usage_error(spec->name, "no TRACE given");
		return false;
	}
	return true;
}

struct tc_model *tc_cli_plain_load(const struct tc_cli_spec *spec, struct tc_cli_common *c,
		int argc, char **argv, int *code) {
	if (!tc_cli_plain_parse(spec, c, argc, argv, code)) {
		return NULL;
	}
	return tc_cli_load(c, argv + optind, argc - optind, code);
}

struct tc_model *tc_cli_load(const struct tc_cli_common *c, char **paths, int n, int *code) {
	struct tc_error err;
	tc_error_init(&err);
	/* The second core faults in model memory ahead of the readers and
	 * the analysis (until exit). */
	if (c->ingest.threads != 1 && tc_prefault_start()) {
		atexit(tc_prefault_stop);
	}
	struct tc_ingest_opts io = c->ingest;
	tc_cli_progress_start(paths, n, &io.lim);
	struct tc_model *m = tc_ingest((const char *const *)paths, (size_t)n, &io, &err);
	tc_cli_progress_stop();
	if (!m) {
		*code = tc_cli_error(&err);
	}
	return m;
}

/* A text report bound for a terminal with a width: the report is written
 * here and wrapped onto stdout at close. */
static struct {
	FILE *stdout_fp;
	char *buf;
	size_t len;
} wrap;

static void setup_terminal(const struct tc_cli_common *c, struct tc_outfile *o) {
	tc_g_termout = (struct tc_termout){ 0 };
	/* Text for people, wherever it goes, reads kernels by short names. */
	tc_g_termout.short_names = c->format == TC_FORMAT_TEXT && !c->data && !c->wide;
	if (c->format != TC_FORMAT_TEXT || c->data || o->path || o->fp != stdout) {
		return; /* JSON and files get plain text */
	}
	const char *no_color = getenv("NO_COLOR");
	tc_g_termout.color = c->color == TC_COLOR_ALWAYS || (c->color == TC_COLOR_AUTO &&
		isatty(STDOUT_FILENO) && !(no_color && *no_color));
	tc_g_termout.width = c->wide ? 0 : tc_termout_columns(getenv("COLUMNS"), STDOUT_FILENO);
	if (!tc_g_termout.width) {
		return;
	}
	FILE *mem = open_memstream(&wrap.buf, &wrap.len);
	if (!mem) {
		tc_g_termout.width = 0; /* out of memory: the report goes unwrapped */
		return;
	}
	wrap.stdout_fp = o->fp;
	o->fp = mem;
}

/*
 * A trace cut off mid-way (an interrupted writer) says so first in every
 * text report: each figure below covers only what was written.
 */
void tc_cli_truncated_note(FILE *f, const struct tc_model *m) {
	int64_t first = 0, last = 0;
	tc_model_span(m, &first, &last);
	char b[TC_FMT_LEN];
	for (size_t i = 0; i < m->n_sources; i++) {
		if (m->sources[i].truncated) {
			tc_term_fprintf(f, "truncated  %s ends mid-trace: read up to its last complete "
				"event, covering %s (first event to last event end)\n",
				tc_model_str(m, m->sources[i].path), tc_fmt_dur(b, last > first ? last - first : 0));
		}
	}
}

bool tc_cli_open_output(const struct tc_cli_common *c, char **inputs, int n,
		const struct tc_model *m, struct tc_outfile *o) {
	struct tc_error err;
	tc_error_init(&err);
	if (!tc_outfile_open(o, c->output, (const char *const *)inputs, (size_t)n, &err)) {
		tc_cli_error(&err);
		return false;
	}
	if (m && !tc_cli_check_output(o, m)) {
		return false;
	}
	setup_terminal(c, o);
	if (m && c->format == TC_FORMAT_TEXT && !c->data && strcmp(c->cmd, "report") != 0) {
		tc_cli_truncated_note(o->fp, m);
	}
	return true;
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
	if (wrap.stdout_fp) {
		bool ok = fclose(o->fp) == 0;
		o->fp = wrap.stdout_fp;
		if (ok) {
			tc_text_wrap(o->fp, wrap.buf, wrap.len, tc_g_termout.width);
		}
		free(wrap.buf);
		wrap.stdout_fp = NULL;
		wrap.buf = NULL;
	}
	tc_g_termout = (struct tc_termout){ 0 }; /* what follows is not the report */
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
	if (!c->strict) {
		/* What was read, every command says; the rest only the
		 * commands that list warnings. */
		for (size_t i = 0; i < m->n_warnings; i++) {
			if (m->warnings[i].inputs) {
				tc_term_fprintf(stderr, "tracectl: warning: %s\n",
					tc_model_str(m, m->warnings[i].msg));
			}
		}
		return TC_EXIT_OK;
	}
	if (m->n_warnings == 0) {
		return TC_EXIT_OK;
	}
	for (size_t i = 0; i < m->n_warnings; i++) {
		tc_term_fprintf(stderr, "tracectl: error: --strict: %s (%" PRIu64 "x)\n",
			tc_model_str(m, m->warnings[i].msg), m->warnings[i].count);
	}
	return TC_EXIT_STRICT;
}

bool tc_cli_per_source(const struct tc_model *m) {
	if (m->n_sources < 2) {
		return false;
	}
	for (size_t s = 0; s < m->n_sources; s++) {
		if (strcmp(tc_model_str(m, m->sources[s].path), "-") == 0) {
			return false;
		}
	}
	return true;
}

int tc_cli_emit(const struct tc_cli_common *c, char **inputs, int n, const struct tc_model *m,
		void (*write)(FILE *f, bool json, const void *ctx), const void *ctx) {
	struct tc_outfile out;
	if (!tc_cli_open_output(c, inputs, n, m, &out)) {
		return TC_EXIT_OUTPUT;
	}
	write(out.fp, c->format == TC_FORMAT_JSON, ctx);
	int code = tc_cli_close_output(&out);
	return code == TC_EXIT_OK ? tc_cli_strict(c, m) : code;
}

bool tc_cli_parse_count(const char *cmd, const char *opt, const char *arg, size_t *out,
		int *code) {
	uint64_t v;
	if (!tc_cli_parse_size(arg, &v) || v > SIZE_MAX) {
		*code = tc_cli_usage_error(cmd, "invalid %s '%s'", opt, arg);
		return false;
	}
	*out = (size_t)v;
	return true;
}
