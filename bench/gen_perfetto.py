#!/usr/bin/env python3
"""Generate a large synthetic Perfetto trace for benchmarking tracectl.

usage: gen_perfetto.py OUT [SIZE_MB] [THREADS]

Writes what the Perfetto SDK writes: per thread one trusted sequence that
starts with an incremental-state reset (trace_packet_defaults with clock 64
and the thread's track, a ClockSnapshot with BOOTTIME and the incremental
clock 64), interned event names and categories, then chunks of TrackEvents:
nested SLICE_BEGIN/END (depth up to 4) with delta timestamps on clock 64,
instants, debug annotations, and COUNTER events on a per-thread counter
track. Chunks of different threads interleave like the service's buffer.
Python stdlib only; the trace is built from a few dozen pre-encoded chunks
that repeat (clock 64 deltas make repeated bytes valid), so a 1 GB file
takes seconds.
"""
import random
import sys


def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wt):
    return varint(num << 3 | wt)


def fv(num, v):
    return key(num, 0) + varint(v)


def fl(num, payload):
    return key(num, 2) + varint(len(payload)) + payload


def fd(num, x):
    import struct
    return key(num, 1) + struct.pack("<d", x)


def packet(payload):
    return fl(1, payload)


NAMES = ["ProfilerStep#%d" % i for i in range(4)] + [
    "forward", "backward", "optimizer.step", "aten::matmul", "aten::add",
    "aten::relu", "aten::conv2d", "aten::linear", "cudaLaunchKernel",
    "cudaMemcpyAsync", "DataLoader.next", "all_reduce", "loss", "embedding",
    "attention", "softmax", "layer_norm", "dropout", "gelu", "mlp",
]
CATS = ["cpu_op", "user_annotation", "cuda_runtime", "python_function"]


def reset_packet(seq, track_uuid, ctr_uuid):
    defaults = fv(58, 64) + fl(11, fv(11, track_uuid))
    snap = fl(1, fv(1, 6) + fv(2, 1_000_000_000)) + \
        fl(1, fv(1, 64) + fv(2, 1_000_000) + fv(3, 1) + fv(4, 1000))
    interned = b"".join(fl(2, fv(1, i + 1) + fl(2, n.encode())) for i, n in enumerate(NAMES))
    interned += b"".join(fl(1, fv(1, i + 1) + fl(2, c.encode())) for i, c in enumerate(CATS))
    interned += fl(3, fv(1, 1) + fl(2, b"bytes")) + fl(3, fv(1, 2) + fl(2, b"shape"))
    return packet(fv(10, seq) + fv(13, 3) + fl(59, defaults) + fl(12, interned) + fl(6, snap))


def descriptors(seq, pid, tid, track_uuid, ctr_uuid):
    out = b""
    if tid == pid + 1:
        out += packet(fv(10, seq) + fl(60, fv(1, pid * 1000) +
                      fl(3, fv(1, pid) + fl(6, b"python train.py"))))
    out += packet(fv(10, seq) + fl(60, fv(1, track_uuid) + fv(5, pid * 1000) +
                  fl(4, fv(1, pid) + fv(2, tid) + fl(5, ("worker-%d" % tid).encode()))))
    out += packet(fv(10, seq) + fl(60, fv(1, ctr_uuid) + fv(5, pid * 1000) +
                  fl(2, ("queue depth %d" % tid).encode()) + fl(8, fv(3, 2))))
    return out


def ev(seq, delta, body):
    return packet(fv(8, delta) + fv(10, seq) + fv(13, 2) + fl(11, body))


def chunk(rng, seq, ctr_uuid, n_slices):
    """A balanced run of nested slices, instants and counter samples."""
    out = bytearray()
    depth = 0
    opened = 0
    while opened < n_slices or depth:
        r = rng.random()
        if opened < n_slices and depth < 4 and (depth == 0 or r < 0.45):
            # Step markers only at the top level.
            name = rng.randrange(4) if depth == 0 else rng.randrange(4, len(NAMES))
            body = fv(9, 1) + fv(10, name + 1) + fv(3, rng.randrange(len(CATS)) + 1)
            if rng.random() < 0.2:
                body += fl(4, fv(1, 1) + fv(4, rng.randrange(1 << 20)))
            out += ev(seq, rng.randrange(1, 50), body)
            depth += 1
            opened += 1
        elif r < 0.52:
            out += ev(seq, rng.randrange(1, 5), fv(9, 3) + fv(10, rng.randrange(4, len(NAMES)) + 1))
        elif r < 0.6:
            out += ev(seq, rng.randrange(1, 5), fv(9, 4) + fv(11, ctr_uuid) +
                      fv(30, rng.randrange(64)))
        else:
            out += ev(seq, rng.randrange(1, 80), fv(9, 2))
            depth -= 1
    return bytes(out)


def main():
    out_path = sys.argv[1]
    size_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    target = size_mb << 20
    rng = random.Random(1)
    pid = 4000
    seqs = []
    with open(out_path, "wb") as f:
        written = 0
        for t in range(threads):
            seq = t + 1
            tid = pid + 1 + t
            track_uuid = 10_000 + tid
            ctr_uuid = 20_000 + tid
            head = descriptors(seq, pid, tid, track_uuid, ctr_uuid) + \
                reset_packet(seq, track_uuid, ctr_uuid)
            f.write(head)
            written += len(head)
            chunks = [chunk(rng, seq, ctr_uuid, rng.randrange(200, 600)) for _ in range(8)]
            seqs.append(chunks)
        while written < target:
            for chunks in seqs:
                c = chunks[rng.randrange(len(chunks))]
                f.write(c)
                written += len(c)
    print("%s: %d bytes, %d threads" % (out_path, written, threads))


if __name__ == "__main__":
    main()
