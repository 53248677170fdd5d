/* `tracectl memory`: who holds memory at each allocator's peak, and the
 * per-op memory table, from the trace's allocator records or one rank's
 * digest. */
#include "analysis/digest.h"
#include "analysis/memview.h"
#include "cli/cli.h"
#include "output/memview_write.h"

const struct tc_cli_spec tc_memory_spec = {
	.name = "memory",
	.usage = "[OPTIONS] TRACE...",
	.about =
		"Memory by op, from the trace's allocator records (Kineto [memory]\n"
		"events of profile_memory=True, XProf MemoryAllocation events): for each\n"
		"allocator its peak, what was live then grouped by the op that\n"
		"allocated it, with share and age, and the largest buffers; then per op\n"
		"and device the memory statistics of the TensorBoard PyTorch plugin's\n"
		"memory view (self and total increase, allocation size and count, calls).\n"
		"TRACE may be one rank's digest (tracectl digest).\n",
	.groups = (const struct tc_option_group *const[]){
		&tc_cli_output_group, &tc_cli_input_group, NULL,
	},
};

struct emit_ctx {
	const struct tc_model *m;
	const struct tc_mem_view *v;
};

static void emit(FILE *f, bool json, const void *ctx) {
	const struct emit_ctx *e = ctx;
	if (json) {
		tc_write_memory_json(f, e->m, e->v);
	} else {
		tc_write_memory_text(f, e->m, e->v);
	}
}

/* One rank's view from its digest: written before Rank.mem_view, it
 * holds the memory line only, which is not the view. */
static int from_digest(struct tc_cli_common *c, int kind, char **paths, int n) {
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct tc_cli_digests in;
	int code = tc_cli_digest_rank_open(c, "memory", &ao, kind, paths, n, true, &in);
	if (code == TC_EXIT_OK && !in.ranks[0]->mem_view) {
		struct tc_error err;
		tc_error_init(&err);
		tc_error_set(&err, TC_EXIT_INPUT, "rank '%s' was digested before digests kept "
			"memory by op; run memory on its trace, or digest it again",
			in.ranks[0]->name);
		tc_error_path(&err, n == 1 ? paths[0] : "");
		code = tc_cli_error(&err);
	}
	if (code == TC_EXIT_OK) {
		struct tc_analysis an;
		tc_digest_result(in.skel, in.ranks[0], 0, &an);
		struct emit_ctx e = { in.skel, &an.memview };
		code = tc_cli_emit(c, paths, n, in.skel, emit, &e);
		tc_analysis_finish(&an);
	}
	tc_cli_digests_finish(&in);
	return code;
}

int tc_cmd_memory(int argc, char **argv) {
	struct tc_cli_common c;
	int code;
	if (!tc_cli_plain_parse(&tc_memory_spec, &c, argc, argv, &code)) {
		return code;
	}
	char **paths = argv + optind;
	int n = argc - optind;
	int kind = tc_cli_inputs_kind(&c, paths, n);
	if (kind) {
		return from_digest(&c, kind, paths, n);
	}
	struct tc_model *m = tc_cli_load(&c, paths, n, &code);
	if (!m) {
		return code;
	}
	struct tc_mem_view v;
	tc_memview_build(m, &v);
	struct emit_ctx e = { m, &v };
	code = tc_cli_emit(&c, paths, n, m, emit, &e);
	tc_mem_view_finish(&v);
	tc_cli_model_done(m);
	return code;
}
