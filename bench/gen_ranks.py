#!/usr/bin/env python3
"""Write a data-parallel training job of N ranks as per-rank traces.

Usage: gen_ranks.py OUTDIR [--ranks N] [--steps S] [--format kineto|xplane]
                           [--slow-rank R] [--slow-step K] [--slow-ms MS]
                           [--skew-ms MS] [--missing-rank R]

Each rank runs the same steps: forward, backward, then two all-reduce
buckets and an optimizer kernel. A collective starts on a rank when that
rank arrives and ends on every rank together, a transfer time after the
last arrival. --slow-rank/--slow-step make one rank's backward --slow-ms
longer in one step (all others then wait for it). --skew-ms shifts each
host's clock by a different multiple of it (up to +-2x), as unsynchronised
hosts would. --missing-rank leaves one rank's file out (world_size still
counts it). Small per-rank jitter makes the arrival order vary between
healthy steps. Deterministic.

kineto: OUTDIR/rank_<r>.pt.trace.json with distributedInfo and NCCL
kernels carrying Kineto's collective args (Collective name, Process Group
Name/Ranks, Seq, In/Out msg nelems, dtype, Group size).
xplane: OUTDIR/host-<rrr>.xplane.pb (one host per rank, its hostname in
XSpace.hostnames), a GPU plane with XLA Ops (fusions, all-reduce.N) and a
Steps line; encoded with protoc --encode=tensorflow.profiler.XSpace.
"""
import argparse
import json
import os
import random
import subprocess
import sys

FWD_MS, BWD_MS, OPT_MS, XFER_MS, GAP_MS = 3.0, 4.0, 0.5, 1.0, 0.2
NELEMS = (4 * 1024 * 1024, 2 * 1024 * 1024)  # two buckets of float32 gradients


def timeline(a):
    """Per rank, per step: [(name, kind, start_ms, dur_ms, bucket)] on one true clock."""
    rnd = random.Random(1234 + a.ranks)
    out = {r: [] for r in range(a.ranks)}
    t = 10.0
    for s in range(a.steps):
        arrive = {}
        for r in range(a.ranks):
            jit = rnd.uniform(0, 0.05)
            slow = a.slow_ms if (r == a.slow_rank and s == a.slow_step) else 0.0
            f0 = t + GAP_MS
            b0 = f0 + FWD_MS + slow
            b_half = b0 + BWD_MS / 2 + jit
            b_end = b0 + BWD_MS + jit
            out[r].append(("fusion.fwd", "compute", f0, FWD_MS + 0.0, None, s))
            out[r].append(("fusion.bwd", "compute", b0, BWD_MS + jit, None, s))
            arrive.setdefault(0, {})[r] = b_half
            arrive.setdefault(1, {})[r] = b_end
        ends = {}
        for k in (0, 1):
            last = max(arrive[k].values())
            ends[k] = last + XFER_MS
            for r in range(a.ranks):
                out[r].append(("all-reduce", "coll", arrive[k][r], ends[k] - arrive[k][r], k, s))
        o0 = ends[1] + 0.05
        for r in range(a.ranks):
            out[r].append(("fusion.opt", "compute", o0, OPT_MS, None, s))
        t = o0 + OPT_MS + GAP_MS
    return out


def skew(a, r):
    return a.skew_ms * (((r * 7) % 5) - 2) / 2.0


def write_kineto(a, r, evs, path):
    base_us = 1700000000000000.0 + skew(a, r) * 1000.0
    pid = 3000 + r
    ranks = "[" + ", ".join(str(i) for i in range(a.ranks)) + "]"
    te = [
        {"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python3"}},
        {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "python3"}},
        {"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
    ]
    seq = 0
    steps = {}
    for name, kind, st, du, bucket, s in evs:
        steps.setdefault(s, [st, st + du])
        steps[s][0] = min(steps[s][0], st)
        steps[s][1] = max(steps[s][1], st + du)
        e = {"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": round(base_us + st * 1000, 3),
             "dur": round(du * 1000, 3), "args": {"device": 0, "stream": 7}}
        if kind == "coll":
            e["name"] = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
            e["args"].update({"Collective name": "allreduce", "Process Group Name": "0",
                              "Process Group Ranks": ranks, "Seq": seq,
                              "In msg nelems": NELEMS[bucket], "Out msg nelems": NELEMS[bucket],
                              "dtype": "Float", "Group size": a.ranks})
            seq += 1
        else:
            e["name"] = "void at::native::%s_kernel<float>()" % name.split(".")[1]
        te.append(e)
    for s, (lo, hi) in sorted(steps.items()):
        te.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": pid,
                   "tid": pid, "ts": round(base_us + (lo - 0.1) * 1000, 3),
                   "dur": round((hi - lo + 0.15) * 1000, 3), "args": {}})
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85020000256,
                                 "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
           "distributedInfo": {"backend": "nccl", "rank": r, "world_size": a.ranks},
           "traceEvents": te}
    with open(path, "w") as f:
        json.dump(doc, f)


def write_xplane(a, r, evs, path, proto_dir):
    ts_ns = 1700000000000000000 + int(skew(a, r) * 1e6)
    names = {"fusion.fwd": 1, "fusion.bwd": 2, "fusion.opt": 3}
    lines = []
    steps = {}
    ops = []
    count = {}
    for name, kind, st, du, bucket, s in evs:
        steps.setdefault(s, [st, st + du])
        steps[s][0] = min(steps[s][0], st)
        steps[s][1] = max(steps[s][1], st + du)
        mid = names[name] if kind != "coll" else 10 + bucket
        ops.append("    events { metadata_id: %d offset_ps: %d duration_ps: %d }"
                   % (mid, int(st * 1e9), int(du * 1e9)))
        count[mid] = count.get(mid, 0) + 1
    lines.append("  lines {\n    id: 1\n    name: \"XLA Ops\"\n    timestamp_ns: %d\n%s\n  }"
                 % (ts_ns, "\n".join(ops)))
    st_ev = []
    for s, (lo, hi) in sorted(steps.items()):
        st_ev.append("    events { metadata_id: %d offset_ps: %d duration_ps: %d\n"
                     "      stats { metadata_id: 1 int64_value: %d } }"
                     % (100 + s, int((lo - 0.1) * 1e9), int((hi - lo + 0.15) * 1e9), s))
    lines.append("  lines {\n    id: 2\n    name: \"Steps\"\n    timestamp_ns: %d\n%s\n  }"
                 % (ts_ns, "\n".join(st_ev)))
    md = ['  event_metadata { key: 1 value { id: 1 name: "fusion.1" } }',
          '  event_metadata { key: 2 value { id: 2 name: "fusion.2" } }',
          '  event_metadata { key: 3 value { id: 3 name: "fusion.3" } }',
          '  event_metadata { key: 10 value { id: 10 name: "all-reduce.1" } }',
          '  event_metadata { key: 11 value { id: 11 name: "all-reduce.2" } }']
    md += ['  event_metadata { key: %d value { id: %d name: "%d" } }' % (100 + s, 100 + s, s)
           for s in steps]
    md.append('  stat_metadata { key: 1 value { id: 1 name: "group_id" } }')
    text = ('hostnames: "host-%03d"\nplanes {\n  id: 1\n  name: "/device:GPU:0"\n%s\n%s\n}\n'
            % (r, "\n".join(lines), "\n".join(md)))
    with open(path, "wb") as f:
        subprocess.run(["protoc", "--encode=tensorflow.profiler.XSpace", "--proto_path=" + proto_dir,
                        os.path.join(proto_dir, "xplane.proto")], input=text.encode(), stdout=f,
                       check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("outdir")
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--format", choices=["kineto", "xplane"], default="kineto")
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-step", type=int, default=-1)
    p.add_argument("--slow-ms", type=float, default=5.0)
    p.add_argument("--skew-ms", type=float, default=0.0)
    p.add_argument("--missing-rank", type=int, default=-1)
    a = p.parse_args()
    proto_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proto")
    os.makedirs(a.outdir, exist_ok=True)
    tl = timeline(a)
    for r in range(a.ranks):
        if r == a.missing_rank:
            continue
        if a.format == "kineto":
            write_kineto(a, r, tl[r], os.path.join(a.outdir, "rank_%d.pt.trace.json" % r))
        else:
            write_xplane(a, r, tl[r], os.path.join(a.outdir, "host-%03d.xplane.pb" % r), proto_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
