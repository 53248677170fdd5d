/* `tracectl memory`: who holds memory at each allocator's peak, and the
 * per-op memory table, from the trace's allocator records. */
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
		"memory view (self and total increase, allocation size and count, calls).\n",
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
	struct tc_model *m = tc_cli_plain_load(&tc_memory_spec, &c, argc, argv, &code);
	if (!m) {
		return code;
	}
	struct tc_mem_view v;
	tc_memview_build(m, &v);
	struct emit_ctx e = { m, &v };
	code = tc_cli_emit(&c, argv + optind, argc - optind, m, emit, &e);
	tc_mem_view_finish(&v);
	tc_cli_model_done(m);
	return code;
}
