#!/usr/bin/env python3
"""Write one trace of a given shape for bench/shapes.sh (the shape matrix).

usage:
  gen_shapes.py xplane OUT SIZE_MB [--costs meta|event|none]
        [--stats none|ints|strings] [--lines N] [--devices N] [--ops N]
        [--steps N] [--depth N]
  gen_shapes.py kineto-light OUT SIZE_MB
  gen_shapes.py perfetto-plain OUT SIZE_MB

xplane: N devices (/device:GPU:d), each with N lines: "XLA Ops", compute
streams "Stream #k(Compute)", and a small "Stream #k(MemcpyH2D)" (3 % of
the bytes, memcpy_details strings and correlation ids on every event), plus
a "Framework Name Scope" line (10 %) whose events nest --depth deep; a host
plane with ProfilerStep#k markers that cut the span into --steps steps.
--ops distinct op names share the op lines. --costs: FLOPs, bytes accessed
and hlo_category on each op's XEventMetadata stats (meta), as flops and
bytes_accessed stats on every event (event), or nowhere (none). --stats on
each op event: none, ints (correlation_id, group_id) or strings
(correlation_id, tf_op). Defaults: meta, ints, 3, 1, 50, 10, 1.

kineto-light: Kineto JSON with no args on cpu_op events and only the
correlation on runtime calls and kernels (gen_kineto.py writes the
args-heavy shape). perfetto-plain: Perfetto TrackEvents with names and
categories inline and absolute timestamps, no interning and no incremental
state (gen_perfetto.py writes the interned shape).

Python stdlib only; deterministic. Events are built from per-op byte
templates, so a 50 MB file takes a few tens of seconds.
"""
import argparse
import random
import sys

_V = [bytes([i]) for i in range(128)]


def V(n):
    if n < 128:
        return _V[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def fv(num, v):
    if v < 0:
        v += 1 << 64
    return V(num << 3) + V(v)


def fl(num, payload):
    return V(num << 3 | 2) + V(len(payload)) + payload


# stat metadata ids
S_CORR, S_GROUP, S_MEMCPY, S_TF_OP, S_FLOPS, S_BYTES, S_CAT = range(1, 8)
STAT_NAMES = {S_CORR: "correlation_id", S_GROUP: "group_id", S_MEMCPY: "memcpy_details",
              S_TF_OP: "tf_op", S_FLOPS: "flops", S_BYTES: "bytes_accessed",
              S_CAT: "hlo_category"}
CATS = ["convolution", "fusion", "data formatting", "non-fusion elementwise", "reduce"]


def stat_int(sid, v):
    return fl(4, fv(1, sid) + fv(4, v))


def stat_str(sid, s):
    return fl(4, fv(1, sid) + fl(5, s))


def meta_entry(field, mid, body):
    return fl(field, fv(1, mid) + fl(2, fv(1, mid) + body))


def xplane(a):
    rng = random.Random(7)
    target = a.size_mb * 1000 * 1000
    per_dev = target // a.devices
    durs = [rng.randrange(1, 100) * 1_000_000 for _ in range(4096)]
    gaps = [rng.randrange(0, 4) * 100_000 for _ in range(4096)]
    corr = 1
    span = 0
    with open(a.out, "wb") as f:
        for d in range(a.devices):
            plane = [fv(1, d + 1), fl(2, b"/device:GPU:%d" % d)]
            n_work = max(a.lines - 1, 1)
            scope_budget = per_dev // 10
            h2d_budget = per_dev * 3 // 100
            op_budget = (per_dev - scope_budget - h2d_budget) // n_work
            # Per-op event tails (stats after the times), built once.
            tails = []
            for o in range(a.ops):
                t = b""
                if a.costs == "event":
                    t += stat_int(S_FLOPS, 1000 + o * 37) + stat_int(S_BYTES, 4096 + o * 11)
                tails.append(t)
            lines = []
            dev_span = 0
            for ln in range(a.lines):
                if ln == 0:
                    name, budget = b"XLA Ops", op_budget
                elif ln == a.lines - 1:
                    name, budget = b"Stream #%d(MemcpyH2D)" % (100 + ln), h2d_budget
                else:
                    name, budget = b"Stream #%d(Compute)" % (100 + ln), op_budget
                lines.append((ln + 1, name, budget))
            lines.append((a.lines + 1, b"Framework Name Scope", scope_budget))
            for lid, name, budget in lines:
                evs = []
                size = 0
                t = rng.randrange(0, 1000) * 1000
                k = rng.randrange(4096)
                if name.startswith(b"Framework"):
                    # Blocks of depth nested scopes, each 1 ns inside its
                    # parent, spread over the op lines' span.
                    sample = sum(len(fl(4, fv(1, 100000 + lvl) + fv(2, dev_span) +
                                        fv(3, 10**8))) for lvl in range(a.depth))
                    block = max(dev_span // max(budget // sample, 1), 4000 * a.depth)
                    t = 0
                    while size < budget:
                        dur = block - 2000
                        for lvl in range(a.depth):
                            ev = fv(1, 100000 + lvl) + fv(2, t + lvl * 1000) + \
                                fv(3, dur - 2 * lvl * 1000)
                            b = fl(4, ev)
                            evs.append(b)
                            size += len(b)
                        t += block
                        k += 1
                elif name.endswith(b"(MemcpyH2D)"):
                    while size < budget:
                        dur = durs[k & 4095]
                        ev = fv(1, 90000) + fv(2, t) + fv(3, dur) + stat_int(S_CORR, corr) + \
                            stat_str(S_MEMCPY, b"size:%d dest:0 async:1" % (1024 << (k & 7)))
                        corr += 1
                        b = fl(4, ev)
                        evs.append(b)
                        size += len(b)
                        t += dur * 3 + gaps[k & 4095]
                        k += 1
                else:
                    ops, stats = a.ops, a.stats
                    while size < budget:
                        o = (k * 7919) % ops
                        dur = durs[k & 4095]
                        ev = fv(1, 1 + o) + fv(2, t) + fv(3, dur)
                        if stats == "ints":
                            ev += stat_int(S_CORR, corr) + stat_int(S_GROUP, k >> 12)
                            corr += 1
                        elif stats == "strings":
                            ev += stat_int(S_CORR, corr) + \
                                stat_str(S_TF_OP, b"model/layer_%d/op_%d:MatMul" % (o % 48, o))
                            corr += 1
                        ev += tails[o]
                        b = fl(4, ev)
                        evs.append(b)
                        size += len(b)
                        t += dur + gaps[k & 4095]
                        k += 1
                dev_span = max(dev_span, t)
                plane.append(fl(3, fv(1, lid) + fl(2, name) + fv(3, 1_000_000) + b"".join(evs)))
            span = max(span, dev_span)
            for o in range(a.ops):
                body = fl(2, b"fusion.%d" % o)
                if a.costs == "meta":
                    # XEventMetadata.stats is field 5, XEvent.stats field 4.
                    body += fl(5, fv(1, S_FLOPS) + fv(4, 1000 + o * 37)) + \
                        fl(5, fv(1, S_BYTES) + fv(4, 4096 + o * 11)) + \
                        fl(5, fv(1, S_CAT) + fl(5, CATS[o % len(CATS)].encode()))
                plane.append(meta_entry(4, 1 + o, body))
            plane.append(meta_entry(4, 90000, fl(2, b"MemcpyH2D")))
            for lvl in range(a.depth):
                plane.append(meta_entry(4, 100000 + lvl, fl(2, b"scope_%d" % lvl)))
            for sid, sn in STAT_NAMES.items():
                plane.append(meta_entry(5, sid, fl(2, sn.encode())))
            f.write(fl(1, b"".join(plane)))
        # Host plane: step markers over the devices' span.
        plane = [fv(1, 1000), fl(2, b"/host:CPU")]
        step = max(span // a.steps, 1)
        evs = [fl(4, fv(1, 1 + s) + fv(2, s * step) + fv(3, step - 1000)) for s in range(a.steps)]
        plane.append(fl(3, fv(1, 1) + fl(2, b"python3") + fv(3, 1_000_000) + b"".join(evs)))
        for s in range(a.steps):
            plane.append(meta_entry(4, 1 + s, fl(2, b"ProfilerStep#%d" % s)))
        f.write(fl(1, b"".join(plane)))


def kineto_light(a):
    target = a.size_mb * 1000 * 1000
    rng = random.Random(3)
    names = ["aten::op_%d" % i for i in range(50)]
    kern = ["kernel_%d(float*, int)" % i for i in range(50)]
    with open(a.out, "w") as f:
        w = f.write
        w('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100", '
          '"totalGlobalMem": 85020000256, "computeMajor": 9, "computeMinor": 0, "numSms": 132}],\n'
          '"traceEvents": [\n')
        ts, corr, size, step = 1_000_000.0, 1, 0, 0
        while size < target:
            chunk = ['{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, '
                     '"tid": 1, "ts": %.3f, "dur": %.3f},\n' % (step, ts, 400 * 30.0)]
            for _ in range(400):
                k = rng.randrange(50)
                chunk.append('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": 1, '
                             '"ts": %.3f, "dur": 20.000},\n' % (names[k], ts))
                chunk.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", '
                             '"pid": 1, "tid": 1, "ts": %.3f, "dur": 5.000, "args": '
                             '{"correlation": %d}},\n' % (ts + 2, corr))
                chunk.append('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, '
                             '"ts": %.3f, "dur": 25.000, "args": {"correlation": %d}},\n'
                             % (kern[k], ts + 8, corr))
                corr += 1
                ts += 30.0
            s = "".join(chunk)
            w(s)
            size += len(s)
            step += 1
        w('{"ph": "i", "name": "end", "pid": 1, "tid": 1, "ts": %.3f, "s": "t"}\n]}\n' % ts)


def perfetto_plain(a):
    target = a.size_mb * 1000 * 1000
    rng = random.Random(5)
    names = [b"ProfilerStep#%d" % i for i in range(4)] + [b"op_%d" % i for i in range(40)]
    cats = [b"cpu_op", b"user_annotation", b"cuda_runtime"]
    threads = 8
    with open(a.out, "wb") as f:
        size = 0
        for t in range(threads):
            d = fl(60, fv(1, 10 + t) + fl(4, fv(1, 77) + fv(2, 100 + t)))
            f.write(fl(1, fv(10, t + 1) + d))
        ts = [1_000_000] * threads
        while size < target:
            t = rng.randrange(threads)
            out = []
            depth = 0
            for i in range(200):
                if depth < 4 and (depth == 0 or rng.random() < 0.5):
                    nm = names[rng.randrange(4)] if depth == 0 else names[4 + rng.randrange(40)]
                    body = fv(9, 1) + fv(11, 10 + t) + fl(23, nm) + fl(22, cats[i % 3])
                    depth += 1
                else:
                    body = fv(9, 2) + fv(11, 10 + t)
                    depth -= 1
                ts[t] += rng.randrange(1, 50) * 1000
                out.append(fl(1, fv(8, ts[t]) + fv(10, t + 1) + fl(11, body)))
            while depth:
                ts[t] += 1000
                out.append(fl(1, fv(8, ts[t]) + fv(10, t + 1) + fl(11, fv(9, 2) + fv(11, 10 + t))))
                depth -= 1
            b = b"".join(out)
            f.write(b)
            size += len(b)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", choices=["xplane", "kineto-light", "perfetto-plain"])
    p.add_argument("out")
    p.add_argument("size_mb", type=int)
    p.add_argument("--costs", choices=["meta", "event", "none"], default="meta")
    p.add_argument("--stats", choices=["none", "ints", "strings"], default="ints")
    p.add_argument("--lines", type=int, default=3)
    p.add_argument("--devices", type=int, default=1)
    p.add_argument("--ops", type=int, default=50)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--depth", type=int, default=1)
    a = p.parse_args()
    if a.lines < 2 or a.devices < 1 or a.ops < 1 or a.steps < 1 or a.depth < 1:
        sys.exit("gen_shapes: --lines must be >= 2, the rest >= 1")
    {"xplane": xplane, "kineto-light": kineto_light, "perfetto-plain": perfetto_plain}[a.kind](a)


if __name__ == "__main__":
    main()
