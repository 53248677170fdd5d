/* `tracectl memory`: who holds memory at each allocator's peak, and the
 * per-op memory table, from the trace's allocator records or one rank's
 * digest. */
#include "analysis/analyze.h"
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

int tc_cmd_memory(int argc, char **argv) {
	struct tc_cli_common c;
	int code;
	if (!tc_cli_plain_parse(&tc_memory_spec, &c, argc, argv, &code)) {
		return code;
	}
	/* Several traces are one model: memory is a rank's, or the merged
	 * model's, never a job's. */
	struct tc_analysis_opts ao;
	tc_analysis_opts_init(&ao);
	struct tc_cli_source src;
	code = tc_cli_source_open(&c, &ao, TC_CLI_MEMVIEW | TC_CLI_ONE_MODEL, argc, argv, &src);
	if (code == TC_EXIT_OK) {
		struct emit_ctx e = { src.m, &src.an.memview };
		code = tc_cli_emit(&c, argv + optind, argc - optind, src.m, emit, &e);
	}
	tc_cli_source_finish(&src);
	return code;
}
