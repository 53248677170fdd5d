/* Shortened C++ kernel signatures for people (cxxname.h). */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "util/cxxname.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Template levels a shortened name can keep; past that, the name's
 * namespaces, then parameter lists, then the name whole. */
#define MAX_DEPTH 16
#define LEVEL_NS (MAX_DEPTH + 1)
#define LEVEL_PARAMS (MAX_DEPTH + 2)
#define LEVEL_FULL (MAX_DEPTH + 3)
/* Components of one qualified name; more is not a name worth parsing. */
#define MAX_PARTS 64

static const char ANON[] = "(anonymous namespace)";

struct ctx {
	const char *s;
	size_t i, n;
	unsigned keep; /* template levels kept */
	bool ns; /* all the name's namespaces */
	bool params;
	bool bad;
};

/* PART_CALL: "operator()" between lambdas, which says nothing there. */
enum part { PART_NONE, PART_PLAIN, PART_ANON, PART_CALL, PART_RICH };

static char peek(const struct ctx *c) {
	return c->i < c->n ? c->s[c->i] : '\0';
}

static bool at(const struct ctx *c, const char *lit) {
	size_t k = strlen(lit);
	return c->n - c->i >= k && memcmp(c->s + c->i, lit, k) == 0;
}

static bool ident_char(char ch) {
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		(ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '~' || ch == '$';
}

static void put(struct tc_strbuf *sb, const char *p, size_t n) {
	tc_strbuf_add(sb, p, n);
}

/* Past the bracketed group that starts at c->i; copied to sb unless NULL. */
static void group(struct ctx *c, struct tc_strbuf *sb) {
	size_t from = c->i;
	int depth = 0;
	do {
		char ch = peek(c);
		if (!ch) {
			c->bad = true;
			return;
		}
		depth += ch == '<' || ch == '(' || ch == '{' || ch == '[';
		depth -= ch == '>' || ch == ')' || ch == '}' || ch == ']';
		c->i++;
	} while (depth > 0);
	if (sb) {
		put(sb, c->s + from, c->i - from);
	}
}

static void trim(struct tc_strbuf *sb, size_t from) {
	while (sb->len > from && sb->s[sb->len - 1] == ' ') {
		sb->len--;
	}
}

static bool qname(struct ctx *c, struct tc_strbuf *out, unsigned depth, bool top);

/* A namespace name that says nothing on its own. */
static bool generic(const char *s, size_t n) {
	static const char *const names[] = { "internal", "detail", "details", "impl" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0) {
			return true;
		}
	}
	return false;
}

/* One template or function argument, up to the ',' or closing bracket. */
static void arg(struct ctx *c, struct tc_strbuf *out, unsigned depth) {
	size_t from = out->len;
	while (!c->bad) {
		char ch = peek(c);
		if (!ch || ch == ',' || ch == '>' || ch == ')') {
			break;
		}
		if (ident_char(ch) || ch == '{' || at(c, ANON)) {
			if (!qname(c, out, depth, false)) {
				c->bad = true;
			}
		} else if (ch == '(' || ch == '[') {
			group(c, out); /* "(char)1", "[4]": a value, kept */
		} else if (ch == '<' || ch == '}' || ch == ']') {
			c->bad = true;
		} else {
			put(out, &ch, 1);
			c->i++;
		}
	}
	trim(out, from);
}

/* Arguments from the opening bracket at c->i through close. */
static void args(struct ctx *c, struct tc_strbuf *out, unsigned depth, char close) {
	put(out, c->s + c->i++, 1);
	while (!c->bad) {
		while (peek(c) == ' ') {
			c->i++;
		}
		if (peek(c) == close) {
			break;
		}
		arg(c, out, depth);
		if (peek(c) == ',') {
			put(out, ", ", 2);
			c->i++;
		} else if (peek(c) != close) {
			c->bad = true;
		}
	}
	if (!c->bad) {
		put(out, &close, 1);
		c->i++;
	}
}

/* A parameter list and a trailing " const". */
static void params(struct ctx *c, struct tc_strbuf *out, unsigned depth) {
	if (c->params) {
		args(c, out, depth, ')');
	} else {
		/* The name's own list may be cut short (profilers and the diff
		 * cap a name's length): it still ends the name, and what it
		 * held is dropped anyway. */
		bool was_bad = c->bad;
		group(c, NULL);
		if (c->bad && !was_bad && depth == 0 && c->i >= c->n) {
			c->bad = false;
		}
	}
	if (at(c, " const") && !ident_char(c->i + 6 < c->n ? c->s[c->i + 6] : '\0')) {
		if (c->params) {
			put(out, " const", 6);
		}
		c->i += 6;
	}
}

/* One component of a qualified name: a namespace, a class or function
 * with its arguments, a lambda. */
static enum part part(struct ctx *c, struct tc_strbuf *out, unsigned depth) {
	if (at(c, ANON)) {
		c->i += sizeof(ANON) - 1;
		return PART_ANON;
	}
	enum part kind = PART_PLAIN;
	bool call = false;
	char ch = peek(c);
	if (ch == '{') {
		/* "{lambda(float)#1}" kept whole: a lambda's parameters are short
		 * and often all that tells two kernels apart */
		group(c, out);
		kind = PART_RICH;
	} else if (ident_char(ch)) {
		size_t from = c->i;
		while (ident_char(peek(c))) {
			c->i++;
		}
		put(out, c->s + from, c->i - from);
		if (c->i - from == 8 && memcmp(c->s + from, "operator", 8) == 0 && at(c, "()")) {
			put(out, "()", 2);
			c->i += 2;
			call = !c->params;
		}
	} else {
		return PART_NONE;
	}
	if (peek(c) == '<') {
		kind = PART_RICH;
		if (depth + 1 > c->keep) {
			group(c, NULL);
			put(out, "<...>", 5);
		} else {
			args(c, out, depth + 1, '>');
		}
	}
	if (peek(c) == '(') {
		kind = PART_RICH;
		params(c, out, depth);
	}
	return call ? PART_CALL : kind;
}

/*
 * A qualified name at template depth depth. Namespaces before the first
 * component with arguments go, but for the name itself (top) the last of
 * them: "at::native::foo<...>" reads "native::foo<...>".
 */
static bool qname(struct ctx *c, struct tc_strbuf *out, unsigned depth, bool top) {
	struct tc_strbuf buf = { 0 };
	size_t start[MAX_PARTS + 1];
	enum part kind[MAX_PARTS];
	size_t n = 0;
	for (;;) {
		if (n == MAX_PARTS) {
			c->bad = true;
			break;
		}
		start[n] = buf.len;
		kind[n] = part(c, &buf, depth);
		if (kind[n] == PART_NONE || c->bad) {
			c->bad = c->bad || n > 0;
			break;
		}
		n++;
		if (!at(c, "::")) {
			break;
		}
		c->i += 2;
	}
	start[n] = buf.len;
	if (c->bad || n == 0) {
		tc_strbuf_finish(&buf);
		return false;
	}
	size_t j = 0;
	while (j + 1 < n && kind[j] != PART_RICH) {
		j++;
	}
	size_t from = j, first = out->len;
	bool keep_from = false; /* every namespace from from on */
	if (top && c->ns) {
		from = 0;
	} else if (top) {
		for (size_t k = j; k-- > 0;) {
			if (kind[k] == PART_PLAIN) {
				from = k;
				break;
			}
		}
	}
	/* "Eigen::internal::" says more than "internal::" */
	while (top && from > 0 && from < j && generic(buf.s + start[from],
			start[from + 1] - start[from])) {
		from--;
		keep_from = true;
	}
	for (size_t k = from; k < n; k++) {
		if (kind[k] == PART_ANON || (kind[k] == PART_CALL && k + 1 < n) ||
				(k < j && k != from && !(top && (c->ns || keep_from)))) {
			continue;
		}
		if (out->len > first) {
			put(out, "::", 2);
		}
		put(out, buf.s + start[k], start[k + 1] - start[k]);
	}
	if (out->len == first) {
		put(out, ANON, sizeof(ANON) - 1);
	}
	tc_strbuf_finish(&buf);
	return true;
}

/* Worth parsing: a signature, or a qualified name with arguments. */
static bool cxx_like(const char *s) {
	size_t n = strlen(s);
	bool args = strchr(s, '<') || strchr(s, '(');
	return strncmp(s, "void ", 5) == 0 || (strstr(s, "::") && args) ||
		(strchr(s, '<') && n && s[n - 1] == ')');
}

char *tc_cxxname_short(const char *s, unsigned level) {
	if (level >= LEVEL_FULL || !cxx_like(s)) {
		return tc_xstrdup(s);
	}
	struct ctx c = {
		.s = s,
		.n = strlen(s),
		.keep = level < MAX_DEPTH ? level : MAX_DEPTH,
		.ns = level >= LEVEL_NS,
		.params = level >= LEVEL_PARAMS,
	};
	struct tc_strbuf sb = { 0 };
	/* Whatever comes before the last name is its return type. */
	for (;;) {
		sb.len = 0;
		if (!qname(&c, &sb, 0, true)) {
			c.bad = true;
			break;
		}
		size_t i = c.i;
		if (at(&c, " (") && !at(&c, " (anonymous") && c.s[c.n - 1] == ')') {
			/* a note after the name, "(2 names)": kept as is */
			size_t from = c.i;
			c.i++;
			group(&c, NULL);
			put(&sb, c.s + from, c.i - from);
			c.bad = c.bad || c.i != c.n;
			break;
		}
		while (peek(&c) == ' ' || peek(&c) == '*' || peek(&c) == '&') {
			c.i++;
		}
		if (c.i == c.n || c.i == i) {
			c.bad = c.i != c.n;
			break;
		}
	}
	if (c.bad || sb.len == 0) {
		tc_strbuf_finish(&sb);
		return tc_xstrdup(s);
	}
	put(&sb, "", 1);
	return sb.s;
}

struct entry {
	const char *name;
	const char *shown;
	size_t i;
};

static int by_shown(const void *a, const void *b) {
	const struct entry *x = a, *y = b;
	int d = strcmp(x->shown, y->shown);
	return d ? d : strcmp(x->name, y->name);
}

/* The next level at which name reads differently, and that reading. */
static char *raise(const char *name, const char *shown, unsigned *level) {
	for (;;) {
		++*level;
		char *s = tc_cxxname_short(name, *level);
		if (*level >= LEVEL_FULL || strcmp(s, shown) != 0) {
			return s;
		}
		free(s);
	}
}

void tc_cxxname_distinct(const char *const *names, size_t n, char **out) {
	unsigned *level = tc_xcalloc(n ? n : 1, sizeof(*level));
	struct entry *e = tc_xcalloc(n ? n : 1, sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		level[i] = 1;
		out[i] = tc_cxxname_short(names[i], 1);
	}
	/* Each round raises every name of a look-alike group that can still
	 * show more; a name reaches LEVEL_FULL at the latest. */
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < n; i++) {
			e[i] = (struct entry){ names[i], out[i], i };
		}
		tc_sort(e, n, sizeof(*e), by_shown);
		for (size_t a = 0; a < n;) {
			size_t b = a + 1;
			bool mixed = false;
			while (b < n && strcmp(e[a].shown, e[b].shown) == 0) {
				mixed = mixed || strcmp(e[a].name, e[b].name) != 0;
				b++;
			}
			for (size_t k = a; mixed && k < b; k++) {
				size_t i = e[k].i;
				if (level[i] < LEVEL_FULL) {
					char *s = raise(names[i], out[i], &level[i]);
					free(out[i]);
					out[i] = s;
					again = true;
				}
			}
			a = b;
		}
	}
	free(e);
	free(level);
}
