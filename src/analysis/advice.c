/*
 * The advice table: what a finding suggests for each topic, chosen by the
 * trace's framework and runtime, with a generic row for every topic.
 */
#include <stddef.h>
#include "analysis/analyze.h"

/*
 * The advice table: what to try for each topic, by framework family and
 * runtime. A lookup takes the most specific row that applies (framework
 * match counts more than runtime match), skipping rows whose `unless`
 * evidence the trace shows (no "capture a graph" when graphs replay) or
 * whose `when` evidence it lacks. Every topic has a generic row, written
 * without any framework's or vendor's API names, so an unknown trace never
 * gets another stack's advice. docs/analysis.md shows the table.
 */

enum family {
	F_ANY = 0,
	F_JAX,
	F_TF,
	F_TORCH,   /* eager and torch.compile */
	F_SERVING, /* vLLM, SGLang */
};

#define R_ANY TC_RT_UNKNOWN
#define GRAPHS TC_EVD_GRAPHS
#define COMPILED TC_EVD_TORCH_COMPILE
#define PINNED TC_EVD_PINNED
#define WORKERS TC_EVD_LOADER_WORKERS
#define PREFETCH TC_EVD_TF_DATA_PREFETCH
#define GLOO TC_EVD_GLOO

static const struct advice_row {
	uint8_t topic;     /* enum tc_advice_topic */
	uint8_t family;    /* enum family */
	uint8_t runtime;   /* enum tc_runtime, R_ANY */
	uint32_t when;     /* evidence all required */
	uint32_t unless;   /* evidence none allowed */
	const char *text;
} rows[] = {
	/* input */
	{ TC_ADV_INPUT, F_ANY, R_ANY, 0, 0,
		"prefetch and parallelise the input pipeline (more loader workers or threads, "
		"decode ahead, overlap the next batch's host-to-device copy with this step) so "
		"batches are ready before the step needs them" },
	{ TC_ADV_INPUT, F_TORCH, R_ANY, 0, WORKERS | PINNED,
		"feed the GPU from worker processes: DataLoader(num_workers=N, pin_memory=True, "
		"persistent_workers=True, prefetch_factor=2+) and move batches with "
		".to(device, non_blocking=True)" },
	{ TC_ADV_INPUT, F_TORCH, R_ANY, PINNED, WORKERS,
		"feed the GPU from worker processes: DataLoader(num_workers=N, "
		"persistent_workers=True, prefetch_factor=2+); host buffers are already pinned" },
	{ TC_ADV_INPUT, F_TORCH, R_ANY, WORKERS, 0,
		"DataLoader workers are already in use and still too slow: raise num_workers and "
		"prefetch_factor, keep persistent_workers=True, move decoding/augmentation to the "
		"device, or pre-process the data set offline" },
	{ TC_ADV_INPUT, F_JAX, R_ANY, 0, 0,
		"double-buffer input: build batches in background threads (grain, tf.data with "
		"prefetch) and jax.device_put the next batch while the current step runs, so "
		"the jitted step never waits for the host" },
	{ TC_ADV_INPUT, F_JAX, TC_RT_TPU, 0, 0,
		"keep the TPU infeed full: build batches in background threads (grain, tf.data "
		"with prefetch), jax.device_put the next batch onto the mesh while the current "
		"step runs, and keep host-side preprocessing off the step's critical path" },
	{ TC_ADV_INPUT, F_TF, R_ANY, 0, PREFETCH,
		"build the input with tf.data: .prefetch(tf.data.AUTOTUNE) at the end, "
		"parallel map/interleave (num_parallel_calls=tf.data.AUTOTUNE) and .cache() "
		"after expensive decoding" },
	{ TC_ADV_INPUT, F_TF, R_ANY, PREFETCH, 0,
		"tf.data prefetch is in use: parallelise the slow stage (map/interleave with "
		"num_parallel_calls=tf.data.AUTOTUNE), .cache() decoded data, and read the "
		"tf.data bottleneck analysis for the stage that limits it" },
	{ TC_ADV_INPUT, F_SERVING, R_ANY, 0, 0,
		"the engine waits for requests or tokenisation: send more concurrent requests, "
		"keep tokenisation and detokenisation off the engine loop (separate API-server "
		"processes), and let the scheduler batch more sequences (max_num_seqs)" },

	/* launch */
	{ TC_ADV_LAUNCH, F_ANY, R_ANY, 0, 0,
		"launch fewer, bigger device ops: compile or fuse the step so it issues fewer "
		"kernels, and remove host synchronisations inside the step" },
	{ TC_ADV_LAUNCH, F_ANY, R_ANY, GRAPHS, 0,
		"graph replay is already in use: the launches left are outside the captured "
		"region, so extend the capture to the whole step and remove host "
		"synchronisations between replays" },
	{ TC_ADV_LAUNCH, F_ANY, TC_RT_CUDA, 0, GRAPHS,
		"launch fewer, bigger kernels: capture the step in a CUDA graph, fuse small "
		"ops, and remove host synchronisations inside the step" },
	{ TC_ADV_LAUNCH, F_ANY, TC_RT_ROCM, 0, GRAPHS,
		"launch fewer, bigger kernels: capture the step in a HIP graph, fuse small ops, "
		"and remove host synchronisations inside the step" },
	{ TC_ADV_LAUNCH, F_TORCH, TC_RT_CUDA, 0, GRAPHS | COMPILED,
		"launch fewer, bigger kernels: torch.compile(mode=\"reduce-overhead\") fuses ops "
		"and replays the step as a CUDA graph (or capture it with torch.cuda.graph), and "
		"remove host syncs (.item(), .cpu(), .tolist()) inside the step" },
	{ TC_ADV_LAUNCH, F_TORCH, TC_RT_CUDA, COMPILED, GRAPHS,
		"torch.compile is in use but kernels still launch one by one: compile with "
		"mode=\"reduce-overhead\" so the step replays as a CUDA graph, remove graph "
		"breaks (TORCH_LOGS=graph_breaks) and host syncs (.item(), .cpu())" },
	{ TC_ADV_LAUNCH, F_TORCH, TC_RT_ROCM, 0, GRAPHS | COMPILED,
		"launch fewer, bigger kernels: torch.compile(mode=\"reduce-overhead\") fuses ops "
		"and replays the step as a HIP graph, and remove host syncs (.item(), .cpu(), "
		".tolist()) inside the step" },
	{ TC_ADV_LAUNCH, F_TORCH, TC_RT_ROCM, COMPILED, GRAPHS,
		"torch.compile is in use but kernels still launch one by one: compile with "
		"mode=\"reduce-overhead\" so the step replays as a HIP graph, remove graph "
		"breaks (TORCH_LOGS=graph_breaks) and host syncs (.item(), .cpu())" },
	{ TC_ADV_LAUNCH, F_TORCH, R_ANY, GRAPHS, 0,
		"graph replay is already in use: the launches left are outside the captured "
		"region; extend it to the whole step (torch.compile mode=\"reduce-overhead\" "
		"over more of the model, no graph breaks) and remove .item()/.cpu() between "
		"replays" },
	{ TC_ADV_LAUNCH, F_JAX, R_ANY, 0, 0,
		"put the whole step under one jax.jit (lax.scan / fori_loop instead of Python "
		"loops over layers or micro-batches), and avoid block_until_ready, device_get "
		"and host callbacks inside the loop so dispatch runs ahead of the device" },
	{ TC_ADV_LAUNCH, F_TF, R_ANY, 0, 0,
		"run the step as one tf.function with jit_compile=True (XLA fuses small ops), "
		"run several steps per call (steps_per_execution), and avoid .numpy() inside "
		"the step" },
	{ TC_ADV_LAUNCH, F_SERVING, R_ANY, 0, GRAPHS,
		"decode steps launch kernels one by one: keep graph capture on (vLLM: "
		"enforce_eager=False; SGLang: do not disable graph capture) and make the "
		"captured batch sizes cover the running batch" },
	{ TC_ADV_LAUNCH, F_SERVING, R_ANY, GRAPHS, 0,
		"graphs already replay decode steps: the launches left are prefill or batch "
		"sizes beyond the captured ones; raise the largest captured batch size, use "
		"chunked prefill, and check the scheduler's host time per step" },

	/* host */
	{ TC_ADV_HOST, F_ANY, R_ANY, 0, 0,
		"compile or trace the step so the host stops dispatching op by op, move "
		"per-step Python (logging, metrics) out of the loop, and let the host run "
		"ahead of the device" },
	{ TC_ADV_HOST, F_TORCH, R_ANY, 0, COMPILED,
		"torch.compile the model or step so the host stops dispatching aten ops one by "
		"one, move per-step Python (logging, metrics, .item()) out of the loop, and let "
		"the host run ahead of the device" },
	{ TC_ADV_HOST, F_TORCH, R_ANY, COMPILED, 0,
		"torch.compile is in use: find the Python that still runs between compiled "
		"regions (graph breaks, TORCH_LOGS=graph_breaks; optimizer and logging code "
		"outside the compiled function) and compile or remove it" },
	{ TC_ADV_HOST, F_TORCH, R_ANY, GRAPHS, COMPILED,
		"graph replay is in use: the host time left runs between replays (copies into "
		"the graph's static inputs, Python around each replay): capture more of the step "
		"in the graph, replay several steps per launch, and move per-step Python out of "
		"the loop" },
	{ TC_ADV_HOST, F_JAX, R_ANY, 0, 0,
		"jit the whole step (not single functions), replace Python loops over arrays "
		"with lax.scan/vmap, drop per-step host callbacks and np.asarray conversions, "
		"and keep dispatch asynchronous" },
	{ TC_ADV_HOST, F_TF, R_ANY, 0, 0,
		"wrap the step in tf.function so TensorFlow runs it as a graph, avoid "
		"tf.py_function and eager ops in the loop, and run several steps per call "
		"(steps_per_execution)" },
	{ TC_ADV_HOST, F_SERVING, R_ANY, 0, 0,
		"the engine's Python (scheduling, sampling, detokenisation) runs while the GPU "
		"waits: overlap scheduling with execution (vLLM async scheduling / multi-step, "
		"SGLang overlap scheduler), keep detokenisation in its own process, and run "
		"larger decode batches" },

	/* sync */
	{ TC_ADV_SYNC, F_ANY, R_ANY, 0, 0,
		"remove host synchronisations inside the step (reading device values on the "
		"host, blocking waits): keep metrics on the device and read them every N steps" },
	{ TC_ADV_SYNC, F_TORCH, R_ANY, 0, 0,
		".item(), .cpu(), .tolist(), printing tensors, explicit device synchronize calls "
		"and data-dependent shapes (nonzero, boolean masks) block the host: keep "
		"metrics on the device and read them every N steps" },
	{ TC_ADV_SYNC, F_JAX, R_ANY, 0, 0,
		"block_until_ready, jax.device_get, np.asarray(x) and float(x) on device arrays "
		"wait for the device: keep metrics on the device and fetch them every N steps" },
	{ TC_ADV_SYNC, F_TF, R_ANY, 0, 0,
		".numpy(), Python conditionals on tensors and printing tensors wait for the "
		"device: use tf.cond/tf.print inside tf.function and read metrics every N steps" },

	/* communication */
	{ TC_ADV_COMMUNICATION, F_ANY, R_ANY, 0, 0,
		"overlap communication with computation (bucketed/asynchronous collectives, "
		"prefetching sharded parameters), accumulate gradients over more micro-batches "
		"or compress them, and check for stragglers that make others wait" },
	{ TC_ADV_COMMUNICATION, F_TORCH, R_ANY, 0, 0,
		"overlap collectives with compute: DDP bucket_cap_mb and gradient_as_bucket_view, "
		"FSDP forward/backward prefetch, no_sync() while accumulating gradients, and "
		"check for stragglers that make others wait" },
	/* gloo moves CUDA/HIP tensors through host memory and TCP. */
	{ TC_ADV_COMMUNICATION, F_TORCH, TC_RT_CUDA, GLOO, 0,
		"the process group runs gloo, which stages GPU tensors through host memory: "
		"use the nccl backend for CUDA tensors (init_process_group(\"nccl\"), or "
		"backend=\"cpu:gloo,cuda:nccl\"), then overlap collectives with compute (DDP "
		"bucket_cap_mb) and check for stragglers that make others wait" },
	{ TC_ADV_COMMUNICATION, F_TORCH, TC_RT_ROCM, GLOO, 0,
		"the process group runs gloo, which stages GPU tensors through host memory: "
		"use the nccl backend (RCCL on ROCm) for GPU tensors (init_process_group(\"nccl\")), "
		"then overlap collectives with compute (DDP bucket_cap_mb) and check for "
		"stragglers that make others wait" },
	{ TC_ADV_COMMUNICATION, F_JAX, R_ANY, 0, 0,
		"let XLA overlap collectives with compute (latency-hiding scheduler, async "
		"collectives), choose mesh axes and shardings that need fewer all-gathers, "
		"accumulate gradients before reducing, and check for stragglers" },
	{ TC_ADV_COMMUNICATION, F_JAX, TC_RT_TPU, 0, 0,
		"keep collectives on the fast links: shard so the heavy axes stay within a "
		"slice's ICI (data parallel across slices), let XLA overlap them with compute "
		"(async collectives), and accumulate gradients before reducing" },
	{ TC_ADV_COMMUNICATION, F_TF, R_ANY, 0, 0,
		"with tf.distribute, pack gradients into fewer all-reduces (experimental "
		"CommunicationOptions), use larger per-replica batches, and check for "
		"stragglers that make others wait" },
	{ TC_ADV_COMMUNICATION, F_SERVING, R_ANY, 0, 0,
		"tensor-parallel all-reduces run on every layer of every token: use fewer "
		"tensor-parallel ranks (replicas or pipeline parallel instead), keep the ranks "
		"on one fast interconnect, and enable the engine's custom all-reduce" },

	/* transfer */
	{ TC_ADV_TRANSFER, F_ANY, R_ANY, 0, 0,
		"move fewer bytes less often: keep data on the device between steps, batch "
		"small copies into one, and issue copies asynchronously so they overlap with "
		"compute" },
	{ TC_ADV_TRANSFER, F_ANY, TC_RT_CUDA, 0, PINNED,
		"move fewer bytes less often: keep data on the device between steps, batch "
		"small copies into one, and copy from pinned memory asynchronously on a side "
		"stream so copies overlap with compute" },
	{ TC_ADV_TRANSFER, F_TORCH, R_ANY, 0, PINNED,
		"keep tensors on the device between steps, batch small copies into one, pin "
		"host buffers (pin_memory) and copy with .to(device, non_blocking=True) so "
		"copies overlap with compute" },
	{ TC_ADV_TRANSFER, F_TORCH, R_ANY, PINNED, 0,
		"host buffers are already pinned: keep tensors on the device between steps, "
		"batch small copies into one, and copy with non_blocking=True on a side stream "
		"so copies overlap with compute" },
	{ TC_ADV_TRANSFER, F_JAX, R_ANY, 0, 0,
		"keep arrays on the device between steps (no np.asarray/device_get per step), "
		"donate buffers (donate_argnums) so outputs reuse inputs, and jax.device_put "
		"the next batch while the current step runs" },
	{ TC_ADV_TRANSFER, F_ANY, TC_RT_TPU, 0, 0,
		"copy waits on TPU are host<->HBM transfers or HBM copies the program waits "
		"for: keep state on the device, donate buffers, put the next batch on the "
		"device before the step, and offload to host memory only what the step does "
		"not wait on" },
	{ TC_ADV_TRANSFER, F_TF, R_ANY, 0, 0,
		"keep variables and data on the device, prefetch batches to the device "
		"(tf.data.experimental.prefetch_to_device), and avoid .numpy() and host-side "
		"ops inside the step" },
	{ TC_ADV_TRANSFER, F_SERVING, R_ANY, 0, 0,
		"KV-cache swapping or CPU offload moves pages over the host link: give the KV "
		"cache more device memory (gpu_memory_utilization), lower swap space / CPU "
		"offload, or lower max_num_seqs so fewer sequences are preempted" },

	/* compile */
	{ TC_ADV_COMPILE, F_ANY, R_ANY, 0, 0,
		"profile after warm-up (skip the first steps), cache compiled programs across "
		"runs and keep input shapes static" },
	{ TC_ADV_COMPILE, F_JAX, R_ANY, 0, 0,
		"profile after warm-up, enable the persistent compilation cache "
		"(jax_compilation_cache_dir), keep shapes static, and compile ahead of time "
		"with jit(...).lower(...).compile()" },
	{ TC_ADV_COMPILE, F_TORCH, R_ANY, 0, 0,
		"profile after warm-up, keep torch.compile's caches between runs (FX graph and "
		"autotune caches on persistent storage), and mark dynamic dimensions "
		"(torch._dynamo.mark_dynamic) instead of compiling every shape" },
	{ TC_ADV_COMPILE, F_TF, R_ANY, 0, 0,
		"profile after warm-up, give tf.function an input_signature (or "
		"reduce_retracing=True) so it traces once, and keep shapes static for XLA" },
	{ TC_ADV_COMPILE, F_SERVING, R_ANY, 0, 0,
		"compilation and graph capture belong to start-up: profile after warm-up, keep "
		"the engine's compile cache on persistent storage, and capture only the batch "
		"sizes the workload uses" },

	/* recompile */
	{ TC_ADV_RECOMPILE, F_ANY, R_ANY, 0, 0,
		"find what changes between calls (input shapes, dtypes, static arguments, "
		"Python values captured as constants): pad to fixed shapes, mark dynamic "
		"dimensions, or hoist the changing value out of the compiled function" },
	{ TC_ADV_RECOMPILE, F_JAX, R_ANY, 0, 0,
		"a jitted function retraces when shapes, dtypes or static arguments change: "
		"pad or bucket shapes, pass changing Python values as traced arrays, and find "
		"the cause with jax_explain_cache_misses / jax_log_compiles" },
	{ TC_ADV_RECOMPILE, F_TORCH, R_ANY, 0, 0,
		"torch.compile recompiles when a guard fails: see why with "
		"TORCH_LOGS=recompiles, mark dynamic dimensions (mark_dynamic or dynamic=True) "
		"or pad shapes, and avoid changing Python values captured by the function" },
	{ TC_ADV_RECOMPILE, F_TF, R_ANY, 0, 0,
		"tf.function retraces on new shapes or Python arguments: give it an "
		"input_signature or reduce_retracing=True, and pass tensors instead of Python "
		"values" },
	{ TC_ADV_RECOMPILE, F_SERVING, R_ANY, 0, 0,
		"the engine compiles while serving: batch sizes or sequence lengths fall "
		"outside the compiled/captured sizes; align max_num_seqs and the capture sizes "
		"with the traffic, or warm them up before serving" },

	/* memory-pressure */
	{ TC_ADV_MEMORY_PRESSURE, F_ANY, R_ANY, 0, 0,
		"reduce peak memory before it fails or fragments: recompute activations instead "
		"of storing them, use lower-precision activations, smaller micro-batches, and "
		"shard parameters and optimizer state across devices" },
	{ TC_ADV_MEMORY_PRESSURE, F_TORCH, R_ANY, 0, 0,
		"reduce peak memory: activation checkpointing (torch.utils.checkpoint), bf16 "
		"autocast, smaller micro-batches with gradient accumulation, and sharded "
		"optimizer state (FSDP / ZeRO)" },
	{ TC_ADV_MEMORY_PRESSURE, F_JAX, R_ANY, 0, 0,
		"reduce peak memory: rematerialise layers (jax.checkpoint), donate buffers "
		"(donate_argnums), bf16 activations, and shard parameters and optimizer state "
		"over the mesh; on GPU the XLA client preallocates most of memory "
		"(XLA_PYTHON_CLIENT_PREALLOCATE), so a high peak can be the pool" },
	{ TC_ADV_MEMORY_PRESSURE, F_JAX, TC_RT_TPU, 0, 0,
		"reduce peak HBM: rematerialise layers (jax.checkpoint), donate buffers "
		"(donate_argnums), bf16 activations, shard parameters and optimizer state over "
		"the mesh, and offload rarely used state to host memory" },
	{ TC_ADV_MEMORY_PRESSURE, F_TF, R_ANY, 0, 0,
		"reduce peak memory: mixed precision (tf.keras.mixed_precision), smaller "
		"batches, recompute gradients (tf.recompute_grad); TensorFlow reserves most "
		"of memory unless memory growth is enabled, so a high peak can be the pool" },
	{ TC_ADV_MEMORY_PRESSURE, F_SERVING, R_ANY, 0, 0,
		"a serving engine preallocates the KV cache up to gpu_memory_utilization "
		"(SGLang: mem_fraction_static), so high use is by design; if requests are "
		"preempted or it runs out, lower max_num_seqs or max_model_len, quantise the KV "
		"cache (kv_cache_dtype=fp8) or enable chunked prefill" },

	/* memory-leak */
	{ TC_ADV_MEMORY_LEAK, F_ANY, R_ANY, 0, 0,
		"find what keeps the named ops' outputs alive across steps: a list or cache "
		"appended to every step, a metric kept as a device tensor, or state that is "
		"never released" },
	{ TC_ADV_MEMORY_LEAK, F_TORCH, R_ANY, 0, 0,
		"find what keeps the named ops' outputs alive across steps: accumulate losses "
		"with loss.item() or loss.detach(), not the tensor (which keeps the autograd "
		"graph), clear lists and caches of tensors, and release cached blocks only "
		"after that (torch.cuda.empty_cache)" },
	{ TC_ADV_MEMORY_LEAK, F_JAX, R_ANY, 0, 0,
		"find what keeps the named ops' outputs alive across steps: donate the old "
		"state (donate_argnums) so each step reuses its buffers, and do not keep "
		"per-step device arrays in Python lists" },
	{ TC_ADV_MEMORY_LEAK, F_TF, R_ANY, 0, 0,
		"find what keeps the named ops' outputs alive across steps: tensors collected "
		"in Python lists, a tf.function retraced every step, or variables created "
		"inside the step" },

	/* memory-bound */
	{ TC_ADV_MEMORY_BOUND, F_ANY, R_ANY, 0, 0,
		"raise arithmetic intensity: fuse elementwise ops into their producers, avoid "
		"layout copies/transposes, use bf16/fp8 activations, and batch more work per "
		"weight read" },
	{ TC_ADV_MEMORY_BOUND, F_TORCH, R_ANY, 0, COMPILED,
		"raise arithmetic intensity: torch.compile fuses elementwise ops into their "
		"producers, use channels_last / contiguous layouts to avoid copies, bf16 "
		"autocast, and larger batches per weight read" },
	{ TC_ADV_MEMORY_BOUND, F_JAX, R_ANY, 0, 0,
		"raise arithmetic intensity: keep producer and consumer ops in one jit so XLA "
		"fuses them, avoid transposes that force layout copies, bf16 activations, and "
		"a Pallas kernel for the hot op" },
	{ TC_ADV_MEMORY_BOUND, F_SERVING, R_ANY, 0, 0,
		"decode reads all weights per token: run larger decode batches (max_num_seqs), "
		"quantise weights and the KV cache (fp8, AWQ/GPTQ), and use the engine's "
		"fused attention backend" },

	/* compute-bound */
	{ TC_ADV_COMPUTE_BOUND, F_ANY, R_ANY, 0, 0,
		"the device is doing useful math: gains come from fewer FLOPs or faster math "
		"(lower precision, matrix-unit-friendly shapes, better kernels)" },
	{ TC_ADV_COMPUTE_BOUND, F_ANY, TC_RT_CUDA, 0, 0,
		"the device is doing useful math: gains come from fewer FLOPs or faster math "
		"(bf16/fp8 on tensor cores, dimensions multiple of 16, TF32 for fp32 matmuls)" },
	{ TC_ADV_COMPUTE_BOUND, F_ANY, TC_RT_ROCM, 0, 0,
		"the device is doing useful math: gains come from fewer FLOPs or faster math "
		"(bf16/fp8 on the matrix cores, dimensions multiple of 16, tuned "
		"hipBLASLt GEMMs)" },
	{ TC_ADV_COMPUTE_BOUND, F_ANY, TC_RT_TPU, 0, 0,
		"the device is doing useful math: gains come from fewer FLOPs or faster math "
		"(bf16 on the MXU, matmul dimensions multiple of 128, int8/fp8 where the "
		"chip supports it)" },

	/* unoptimized-op */
	{ TC_ADV_UNOPTIMIZED_OP, F_ANY, R_ANY, 0, 0,
		"this op is far from what the hardware allows: check its shapes (padding to "
		"multiples of 8/128), layout, dtype and whether a fused or vendor kernel "
		"exists for it" },
	{ TC_ADV_UNOPTIMIZED_OP, F_TORCH, R_ANY, 0, 0,
		"this op is far from what the hardware allows: check its shapes (multiples of "
		"8/16), layout (channels_last) and dtype, use fused kernels "
		"(scaled_dot_product_attention, fused optimizers) or let torch.compile "
		"autotune it (mode=\"max-autotune\")" },
	{ TC_ADV_UNOPTIMIZED_OP, F_TORCH, TC_RT_ROCM, 0, 0,
		"this op is far from what the hardware allows: check its shapes (multiples of "
		"16), layout and dtype, enable TunableOp (PYTORCH_TUNABLEOP_ENABLED=1) for "
		"GEMMs, and use fused kernels (scaled_dot_product_attention)" },
	{ TC_ADV_UNOPTIMIZED_OP, F_JAX, R_ANY, 0, 0,
		"this op is far from what the hardware allows: check its shapes (multiples of "
		"128 on matrix units), layout and dtype, use jax.nn.dot_product_attention or a "
		"Pallas kernel for it" },

	/* pageable-copies (the rule fires only when pageable copies exist) */
	{ TC_ADV_PAGEABLE_COPIES, F_ANY, R_ANY, 0, 0,
		"allocate the host buffers page-locked so copies are asynchronous and need no "
		"bounce buffer" },
	{ TC_ADV_PAGEABLE_COPIES, F_ANY, TC_RT_CUDA, 0, 0,
		"allocate the host buffers pinned (page-locked): cudaHostAlloc or "
		"cudaHostRegister, then copy asynchronously" },
	{ TC_ADV_PAGEABLE_COPIES, F_ANY, TC_RT_ROCM, 0, 0,
		"allocate the host buffers pinned (page-locked): hipHostMalloc or "
		"hipHostRegister, then copy asynchronously" },
	{ TC_ADV_PAGEABLE_COPIES, F_TORCH, R_ANY, 0, 0,
		"pin the host buffers: DataLoader(pin_memory=True) or tensor.pin_memory(), "
		"then copy with .to(device, non_blocking=True)" },
	{ TC_ADV_PAGEABLE_COPIES, F_JAX, R_ANY, 0, 0,
		"copies from NumPy buffers are staged: transfer fewer, larger arrays, "
		"jax.device_put the next batch ahead of the step, and keep results on the "
		"device instead of fetching them each step" },
	{ TC_ADV_PAGEABLE_COPIES, F_ANY, TC_RT_TPU, 0, 0,
		"host buffers are staged before the transfer: transfer fewer, larger arrays "
		"and put them on the device ahead of the step" },

	/* idle / small batch */
	{ TC_ADV_IDLE, F_ANY, R_ANY, 0, 0,
		"nothing on the trace explains this idle time: profile the host threads too "
		"(the stall may be untraced Python, I/O or another process), look for waits "
		"on other ranks, and give the device more work per step (larger batch)" },
	{ TC_ADV_IDLE, F_JAX, R_ANY, 0, 0,
		"nothing on the trace explains this idle time: trace the host too "
		"(jax.profiler with python tracing; the stall may be untraced Python or I/O), "
		"and give the device more work per step (larger per-device batch, the whole "
		"step in one jit, no per-step host round trips)" },
	{ TC_ADV_IDLE, F_SERVING, R_ANY, 0, 0,
		"the GPU idles between engine steps: send more concurrent requests, raise "
		"max_num_seqs / max_num_batched_tokens, enable chunked prefill, and check "
		"the host-bound finding for scheduler time" },

	/* straggler */
	{ TC_ADV_STRAGGLER, F_ANY, R_ANY, 0, 0,
		"look at what this rank does between collectives: its input pipeline, host "
		"work, data or load imbalance, or a slower/throttled device or link" },
	{ TC_ADV_STRAGGLER, F_TORCH, R_ANY, 0, 0,
		"look at what this rank does between collectives: its DataLoader, extra host "
		"work (logging or checkpointing on rank 0), uneven batches (bucket or pack "
		"variable-length sequences), or a slower/throttled device or link" },

	/* fragmented-memory */
	{ TC_ADV_FRAGMENTED_MEMORY, F_ANY, R_ANY, 0, 0,
		"reserved memory is well above what is allocated: the allocator is "
		"fragmented; keep shapes static and allocate large buffers once" },
	{ TC_ADV_FRAGMENTED_MEMORY, F_TORCH, TC_RT_CUDA, 0, 0,
		"the caching allocator is fragmented: set "
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, keep shapes static, and "
		"avoid torch.cuda.empty_cache() in the loop" },
	{ TC_ADV_FRAGMENTED_MEMORY, F_TORCH, TC_RT_ROCM, 0, 0,
		"the caching allocator is fragmented: set "
		"PYTORCH_HIP_ALLOC_CONF=expandable_segments:True, keep shapes static, and "
		"avoid emptying the allocator cache in the loop" },
	{ TC_ADV_FRAGMENTED_MEMORY, F_JAX, R_ANY, 0, 0,
		"XLA's allocator is fragmented: keep shapes static so buffers are reused, "
		"donate buffers (donate_argnums), and on GPU leave preallocation on" },
	/* small batch: an underfilled device */
	/* alloc: allocator calls inside the step */
	{ TC_ADV_ALLOC, F_ANY, R_ANY, 0, 0,
		"device memory is allocated and freed inside the step, and the allocator's calls "
		"are slow and can synchronise the device: allocate buffers once, outside the "
		"step, and keep shapes static so they are reused" },
	{ TC_ADV_ALLOC, F_TORCH, TC_RT_CUDA, 0, 0,
		"the caching allocator calls cudaMalloc inside the step (its cache cannot serve "
		"the request): keep shapes static so blocks are reused, avoid "
		"torch.cuda.empty_cache() in the loop, and set "
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so the pool grows in place" },
	{ TC_ADV_ALLOC, F_TORCH, TC_RT_ROCM, 0, 0,
		"the caching allocator calls hipMalloc inside the step (its cache cannot serve "
		"the request): keep shapes static so blocks are reused, avoid emptying the "
		"allocator cache in the loop, and set "
		"PYTORCH_HIP_ALLOC_CONF=expandable_segments:True so the pool grows in place" },
	{ TC_ADV_ALLOC, F_JAX, R_ANY, 0, 0,
		"XLA allocates device memory inside the step: keep shapes static so buffers are "
		"reused, donate buffers (donate_argnums), and on GPU leave preallocation on" },
	/* start-up: one-off calls (context, streams, lazy loading) in the window */
	{ TC_ADV_STARTUP, F_ANY, R_ANY, 0, 0,
		"this is start-up, not the steady state: profile after warm-up (skip the first "
		"iterations, capture several steps) before changing the step" },
	{ TC_ADV_STARTUP, F_TORCH, R_ANY, 0, 0,
		"this is start-up, not the steady state: profile after warm-up with "
		"torch.profiler.schedule(wait=1, warmup=1, active=3) and step the profiler each "
		"iteration, so context creation and lazy module loading fall outside the steps" },
	{ TC_ADV_STARTUP, F_JAX, R_ANY, 0, 0,
		"this is start-up, not the steady state: start jax.profiler after the first "
		"call of the jitted step (compiled and warm), and capture several steps" },
	/* a single stall: one call holds most of a finding */
	{ TC_ADV_STALL, F_ANY, R_ANY, 0, 0,
		"one call is most of this time, a single stall: find what it waits on (a "
		"blocking copy from pageable memory, a lock, a file or network read) and "
		"capture more steps, so one stall does not decide the profile" },
	{ TC_ADV_STALL, F_TORCH, R_ANY, 0, 0,
		"one call is most of this time, a single stall: find what it waits on (a "
		"blocking copy from pageable memory, a lock, a file or network read) and "
		"capture more steps with torch.profiler.schedule(wait=1, warmup=1, active=5), "
		"so one stall does not decide the profile" },
	{ TC_ADV_STALL, F_JAX, R_ANY, 0, 0,
		"one call is most of this time, a single stall: find what it waits on (a "
		"blocking transfer, a lock, a file or network read) and capture more steps "
		"of the jitted function, so one stall does not decide the profile" },
	{ TC_ADV_SMALL_BATCH, F_ANY, R_ANY, 0, 0,
		"give each kernel more work: raise the batch size (or the micro-batch with "
		"fewer accumulation steps), fuse small ops, and run independent small work "
		"concurrently" },
	{ TC_ADV_SMALL_BATCH, F_TORCH, R_ANY, 0, 0,
		"give each kernel more work: raise the batch size (or the micro-batch with "
		"fewer accumulation steps), fuse small ops with torch.compile, and run "
		"independent small work on separate streams" },
	{ TC_ADV_SMALL_BATCH, F_JAX, R_ANY, 0, 0,
		"give each kernel more work: raise the per-device batch, jit larger regions "
		"so XLA fuses small ops, and vmap over independent small computations" },
	{ TC_ADV_SMALL_BATCH, F_SERVING, R_ANY, 0, 0,
		"batches are too small to fill the GPU: send more concurrent requests or "
		"raise max_num_seqs / max_num_batched_tokens" },
	{ TC_ADV_FRAGMENTED_MEMORY, F_SERVING, R_ANY, 0, 0,
		"the KV cache is paged; fragmentation is in the rest (activations of varying "
		"batch): lower gpu_memory_utilization to leave headroom, or cap "
		"max_num_batched_tokens" },
};

static enum family family_of(enum tc_framework fw) {
	switch (fw) {
	case TC_FW_JAX:
		return F_JAX;
	case TC_FW_TENSORFLOW:
		return F_TF;
	case TC_FW_PYTORCH:
	case TC_FW_TORCH_COMPILE:
		return F_TORCH;
	case TC_FW_VLLM:
	case TC_FW_SGLANG:
		return F_SERVING;
	default:
		return F_ANY;
	}
}

const char *tc_advice(enum tc_advice_topic topic, const struct tc_runtime_info *ri) {
	enum family fam = ri ? family_of((enum tc_framework)ri->framework) : F_ANY;
	uint8_t rt = ri ? ri->runtime : TC_RT_UNKNOWN;
	uint32_t ev = ri ? ri->evidence : 0;
	if (ri && ri->framework == TC_FW_TORCH_COMPILE) {
		ev |= TC_EVD_TORCH_COMPILE;
	}
	/* Pinned memory counts as in use only when no copy is pageable. */
	if (ev & TC_EVD_PAGEABLE) {
		ev &= ~(uint32_t)TC_EVD_PINNED;
	}
	const char *best = NULL;
	int best_score = -1;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct advice_row *r = &rows[i];
		if (r->topic != topic || (r->family != F_ANY && r->family != fam) ||
				(r->runtime != R_ANY && r->runtime != rt) ||
				(r->when & ev) != r->when || (r->unless & ev)) {
			continue;
		}
		/* Framework match outweighs runtime match; a row that needs
		 * evidence beats its plain sibling. */
		int score = 4 * (r->family != F_ANY) + 2 * (r->runtime != R_ANY) + (r->when != 0);
		if (score > best_score) {
			best_score = score;
			best = r->text;
		}
	}
	return best ? best : "";
}

const char *tc_advice_topic_name(enum tc_advice_topic topic) {
	static const char *const n[TC_ADV_COUNT] = {
		"input", "launch", "host", "sync", "communication", "transfer", "compile",
		"recompile", "memory-pressure", "memory-bound", "compute-bound", "unoptimized-op",
		"pageable-copies", "idle", "straggler", "fragmented-memory", "small-batch",
		"alloc", "memory-leak", "startup", "stall",
	};
	return (unsigned)topic < TC_ADV_COUNT ? n[topic] : "?";
}
