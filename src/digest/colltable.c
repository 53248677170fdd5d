/* A rank's collective table (model/coll_table.h) as its digest message. */
#include <stdlib.h>
#include <string.h>
#include "digest/colltable.h"
#include "util/num.h"
#include "util/u64map.h"
#include "util/xalloc.h"

static void *acalloc(struct tc_arena *a, size_t n) {
	return tc_arena_calloc(a, n ? n : 1);
}

/* Differences wrap as uint64 so that any values survive the round trip. */
static int64_t diff(uint64_t a, uint64_t b) {
	return (int64_t)(a - b);
}


/* The largest unit that every start difference and duration counts
 * whole (traces in us or ns leave ps values multiples of 1000): 1 when
 * none does better. */
static uint64_t time_unit(const struct tc_coll_table *t, int64_t base) {
	uint64_t g = 0, prev = (uint64_t)base;
	for (size_t i = 0; i < t->n && g != 1; i++) {
		g = tc_gcd(g, tc_magnitude(diff((uint64_t)t->v[i].start_ps, prev)));
		g = tc_gcd(g, tc_magnitude(t->v[i].dur_ps));
		prev = (uint64_t)t->v[i].start_ps;
	}
	return g && g <= INT64_MAX ? g : 1;
}

Tracectl__CollTable *tc_coll_table_pack(struct tc_arena *a, const struct tc_coll_table *t,
		int64_t base) {
	Tracectl__CollTable *o = acalloc(a, sizeof(*o));
	tracectl__coll_table__init(o);
	o->n_strings = t->strings.n;
	o->strings = acalloc(a, t->strings.n * sizeof(*o->strings));
	for (size_t i = 0; i < t->strings.n; i++) {
		o->strings[i] = tc_arena_strndup(a, t->strings.v[i].s, t->strings.v[i].len);
	}
	o->seq_all = t->seq_all;
	size_t n = t->n;
	o->n_group = o->n_name = o->n_index = o->n_start_ps = o->n_dur_ps = o->n_bytes =
		o->n_group_size = n;
	o->group = acalloc(a, n * sizeof(*o->group));
	o->name = acalloc(a, n * sizeof(*o->name));
	o->index = acalloc(a, n * sizeof(*o->index));
	o->start_ps = acalloc(a, n * sizeof(*o->start_ps));
	o->dur_ps = acalloc(a, n * sizeof(*o->dur_ps));
	o->bytes = acalloc(a, n * sizeof(*o->bytes));
	o->group_size = acalloc(a, n * sizeof(*o->group_size));
	o->byte_values = acalloc(a, n * sizeof(*o->byte_values));
	/* A job sends few distinct message sizes: each is kept once, by its
	 * bits, so the doubles come back exact. */
	struct tc_u64map sizes = { 0 };
	o->unit_ps = time_unit(t, base);
	int64_t unit = (int64_t)o->unit_ps;
	uint64_t prev_index = 0, prev_start = (uint64_t)base;
	for (size_t i = 0; i < n; i++) {
		const struct tc_coll_occ *c = &t->v[i];
		o->group[i] = c->group;
		o->name[i] = c->name;
		o->index[i] = diff(c->index, prev_index);
		prev_index = c->index;
		o->start_ps[i] = diff((uint64_t)c->start_ps, prev_start) / unit;
		prev_start = (uint64_t)c->start_ps;
		o->dur_ps[i] = c->dur_ps / unit;
		uint64_t bits;
		memcpy(&bits, &c->bytes, sizeof(bits));
		const uint32_t *k = tc_u64map_find(&sizes, bits);
		if (!k) {
			o->byte_values[o->n_byte_values] = c->bytes;
			k = tc_u64map_put(&sizes, bits, (uint32_t)o->n_byte_values++);
		}
		o->bytes[i] = *k;
		o->group_size[i] = c->group_size;
	}
	tc_u64map_finish(&sizes);
	/* A column the same for every occurrence is written once. */
#define ONCE(col) do { \
		bool same = true; \
		for (size_t i = 1; i < n && same; i++) { \
			same = o->col[i] == o->col[0]; \
		} \
		if (same && n > 1) { \
			o->n_##col = 1; \
		} \
	} while (0)
	ONCE(group);
	ONCE(name);
	ONCE(index);
	ONCE(bytes);
	ONCE(group_size);
#undef ONCE
	return o;
}

/* Column entry i of a column of len entries: len 1 is every one's. */
#define AT(msg, col, i) ((msg)->col[(msg)->n_##col == 1 ? 0 : (i)])

bool tc_coll_table_unpack(const Tracectl__CollTable *msg, int64_t base,
		struct tc_coll_table *t) {
	size_t n = msg->n_start_ps;
	size_t lens[] = { msg->n_group, msg->n_name, msg->n_index, msg->n_bytes,
		msg->n_group_size };
	for (size_t i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		if (lens[i] != n && !(lens[i] == 1 && n > 1)) {
			return false;
		}
	}
	if (msg->n_dur_ps != n) {
		return false;
	}
	/* Interning dedups: a table this packed has distinct strings, so
	 * each keeps its index, but a foreign one need not. */
	uint32_t *id = tc_xmalloc((msg->n_strings ? msg->n_strings : 1) * sizeof(*id));
	for (size_t i = 0; i < msg->n_strings; i++) {
		const char *s = msg->strings[i] ? msg->strings[i] : "";
		id[i] = tc_intern_n(&t->strings, s, strlen(s));
	}
	t->seq_all = msg->seq_all;
	TC_GROW(t->v, t->cap, t->n + n);
	bool ok = true;
	/* Products wrap as uint64, as the differences did; 0 is a table
	 * written without a unit. */
	uint64_t unit = msg->unit_ps ? msg->unit_ps : 1;
	uint64_t index = 0, start = (uint64_t)base;
	for (size_t i = 0; i < n && ok; i++) {
		uint32_t group = AT(msg, group, i), name = AT(msg, name, i);
		uint32_t bytes = AT(msg, bytes, i);
		ok = group < msg->n_strings && name < msg->n_strings && bytes < msg->n_byte_values;
		if (!ok) {
			break;
		}
		index += (uint64_t)AT(msg, index, i);
		start += (uint64_t)msg->start_ps[i] * unit;
		struct tc_coll_occ o = { .group = id[group], .name = id[name],
			.index = index, .start_ps = (int64_t)start,
			.dur_ps = (int64_t)((uint64_t)msg->dur_ps[i] * unit),
			.bytes = msg->byte_values[bytes], .group_size = AT(msg, group_size, i) };
		tc_coll_table_add(t, &o);
	}
	free(id);
	return ok;
}
