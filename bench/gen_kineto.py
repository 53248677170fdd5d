#!/usr/bin/env python3
"""Write a large synthetic PyTorch-Kineto-style trace for benchmarking.

Usage: gen_kineto.py OUT.json [SIZE_MB]   (default 1024)

The event mix follows a real Kineto training trace: per step a ProfilerStep
annotation, cpu_op events with args, cuda_runtime launches, ac2g flows,
kernels with the full CUPTI arg set, some memcpy/memset, [memory] instants and
python_function frames; about 300 bytes per event. Deterministic (fixed seed).
"""
import random
import sys


def main():
    out = sys.argv[1]
    target = int(sys.argv[2]) * 1024 * 1024 if len(sys.argv) > 2 else 1024 * 1024 * 1024
    rnd = random.Random(42)
    pid, tid = 4242, 4242
    names = ["aten::mm", "aten::add", "aten::relu", "aten::layer_norm", "aten::softmax",
             "aten::copy_", "aten::empty", "aten::linear", "aten::gelu", "aten::view"]
    kernels = ["void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
               "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
               "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>",
               "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
               "triton_poi_fused_add_cos_sin_0"]
    # Real traces repeat a model's few tensor shapes and launch grids.
    shapes = [(rnd.choice([1, 8, 32, 128, 512]), rnd.choice([768, 1024, 4096]),
               rnd.choice([768, 1024, 4096]), rnd.choice([1, 3072])) for _ in range(64)]
    grids = [rnd.randint(1, 4096) for _ in range(128)]
    with open(out, "w") as f:
        w = f.write
        w('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", '
          '"totalGlobalMem": 85020000256, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],\n'
          '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},\n  "traceEvents": [\n')
        w('  {"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "python3"}},\n' % pid)
        w('  {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},\n')
        ts = 1700000000000.000
        corr = 1
        ext = 1
        step = 1
        size = 0
        evs = 0
        while size < target:
            step_start = ts
            chunk = []
            for _ in range(400):
                name = rnd.choice(names)
                d = rnd.uniform(5, 50)
                chunk.append('  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d, '
                             '"ts": %.3f, "dur": %.3f, "args": {"External id": %d, "Record function id": 0, '
                             '"Ev Idx": %d, "Input Dims": [[%d, %d], [%d, %d]], "Input type": ["float", "float"], '
                             '"Sequence number": %d, "Fwd thread id": 0}},\n'
                             % ((name, pid, tid, ts, d, ext, ext) + rnd.choice(shapes) + (ext,)))
                chunk.append('  {"ph": "X", "cat": "python_function", "name": "model.py(%d): forward", '
                             '"pid": %d, "tid": %d, "ts": %.3f, "dur": %.3f, "args": {"Python id": %d, '
                             '"Python parent id": %d}},\n' % (rnd.randint(1, 999), pid, tid, ts - 1, d + 2,
                                                             ext, ext - 1))
                chunk.append('  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, '
                             '"tid": %d, "ts": %.3f, "dur": %.3f, "args": {"cbid": 211, "correlation": %d, '
                             '"External id": %d}},\n' % (pid, tid, ts + 1, 3.5, corr, ext))
                chunk.append('  {"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %.3f, "cat": "ac2g", '
                             '"name": "ac2g"},\n' % (corr, pid, tid, ts + 1))
                kts = ts + 20
                r = rnd.random()
                if r < 0.08:
                    chunk.append('  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", '
                                 '"pid": 0, "tid": 7, "ts": %.3f, "dur": %.3f, "args": {"device": 0, "context": 1, '
                                 '"stream": 7, "correlation": %d, "bytes": %d, "memory bandwidth (GB/s)": %.6f}},\n'
                                 % (kts, d, corr, rnd.randint(1, 1 << 24), rnd.uniform(1, 20)))
                elif r < 0.12:
                    chunk.append('  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, '
                                 '"tid": 7, "ts": %.3f, "dur": %.3f, "args": {"device": 0, "context": 1, '
                                 '"stream": 7, "correlation": %d, "bytes": %d}},\n'
                                 % (kts, d / 4, corr, rnd.randint(1, 1 << 20)))
                else:
                    chunk.append('  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, '
                                 '"dur": %.3f, "args": {"External id": %d, "queued": 0, "device": 0, '
                                 '"context": 1, "stream": 7, "correlation": %d, "registers per thread": 32, '
                                 '"shared memory": 0, "blocks per SM": %.6f, "warps per SM": %.6f, '
                                 '"grid": [%d, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": %d}},\n'
                                 % (rnd.choice(kernels), kts, d, ext, corr, rnd.uniform(0.1, 8),
                                    rnd.uniform(1, 32), rnd.choice(grids), rnd.randint(1, 100)))
                chunk.append('  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", '
                             '"name": "ac2g", "bp": "e"},\n' % (corr, kts))
                if rnd.random() < 0.1:
                    chunk.append('  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", '
                                 '"pid": %d, "tid": %d, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, '
                                 '"Addr": %d, "Bytes": %d, "Total Allocated": %d, "Total Reserved": %d}},\n'
                                 % (pid, tid, ts + 2, rnd.randint(1, 1 << 40), rnd.randint(-1 << 20, 1 << 20),
                                    rnd.randint(1 << 30, 1 << 33), 1 << 34))
                corr += 1
                ext += 1
                ts += d + 1
            chunk.append('  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, '
                         '"tid": %d, "ts": %.3f, "dur": %.3f, "args": {"External id": %d}},\n'
                         % (step, pid, tid, step_start, ts - step_start, ext))
            ext += 1
            step += 1
            s = "".join(chunk)
            w(s)
            size += len(s)
            evs += len(chunk)
        w('  {"ph": "i", "name": "Record Window End", "s": "g", "pid": "", "tid": "", "ts": %.3f}\n' % ts)
        w('  ],\n  "traceName": "bench.json",\n  "displayTimeUnit": "ms",\n'
          '  "baseTimeNanoseconds": 1700000000000000000\n}\n')
    sys.stderr.write("%s: %d events, %.1f MB, %.0f bytes/event\n" % (out, evs, size / 1e6, size / evs))


if __name__ == "__main__":
    main()
