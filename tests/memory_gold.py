#!/usr/bin/env python3
"""`tracectl memory` against references (docs/analysis.md, "Memory by op"):
- the TensorBoard PyTorch plugin's memory-view test trace
  (../shared/gold/tbp/memory_view_test.json): its expected GPU and CPU
  per-op tables (../shared/traces/GOLD.md, "TB plugin memory view"), every
  number;
- the H100 Kineto traces: each allocator's peak from pairing the records
  equals the trace's own "Total Allocated" there and the largest one in the
  file (read here from the raw JSON), and what was live at the peak sums
  to it;
- the TF GPU xplane: the same against the allocator's bytes_allocated,
  read by the independent decoder tests/tools/xplane_count.py (the largest
  bytes_allocated per allocator, its time, and the allocator's own
  peak_bytes_in_use there);
- `diff` of two H100 traces: its memory peaks are each side's, and each
  side's bytes held at the peak by op sum to that peak.
Skips (77) without ../shared."""
import decimal
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

TC = os.environ["TC_BIN"]
TRACES = os.environ.get("TC_TRACES", "")
GOLD = os.path.join(os.path.dirname(TRACES.rstrip("/")), "gold")
failures = []

# GOLD.md: op -> [self increase, self allocation size, self allocation
# count, increase, allocation size, allocation count, calls]
TB_GPU = {
    "aten::to": [104, 104, 2, 104, 204, 3, 4],
    "aten::nll_loss_backward": [0, 10, 1, 0, 10, 1, 1],
    "aten::copy_": [0, 100, 1, 0, 100, 1, 1],
    "aten::addmm": [0, 30, 1, 0, 30, 1, 1],
    "aten::tranas_stride": [0, 50, 1, 0, 50, 1, 1],
    "aten::transpose": [0, 50, 1, 0, 100, 2, 1],
    "aten::t": [0, 100, 1, 0, 200, 3, 1],
    "aten::liner": [20, 130, 3, 20, 360, 7, 1],
}
TB_CPU = {
    "aten::to": [4, 4, 1, 4, 4, 1, 4],
    "aten::liner": [0, 100, 1, 50, 150, 2, 1],
    "aten::tranas_stride": [50, 50, 1, 50, 50, 1, 1],
    "aten::transpose": [0, 0, 0, 50, 50, 1, 1],
    "aten::t": [0, 0, 0, 50, 50, 1, 1],
}
FIELDS = ["self_increase_bytes", "self_allocation_bytes", "self_allocations",
          "increase_bytes", "allocation_bytes", "allocations", "calls"]


def check(cond, what):
    if not cond:
        failures.append(what)


def memory(path):
    r = subprocess.run([TC, "memory", "--json", path], capture_output=True, text=True)
    check(r.returncode == 0, "%s: exit %d: %s" % (path, r.returncode, r.stderr))
    return json.loads(r.stdout) if r.returncode == 0 else None


def tb_plugin():
    doc = memory(os.path.join(GOLD, "tbp", "memory_view_test.json"))
    if not doc:
        return
    tables = {"gpu": {}, "cpu": {}}
    for o in doc["ops"]:
        kind = "gpu" if o["device"].startswith("GPU") else "cpu"
        tables[kind][o["name"]] = [o[k] for k in FIELDS]
    for kind, want in (("gpu", TB_GPU), ("cpu", TB_CPU)):
        got = tables[kind]
        check(set(got) == set(want), "tb %s: ops %s, expected %s" % (kind, sorted(got), sorted(want)))
        for name, row in want.items():
            check(got.get(name) == row, "tb %s %s: %s, expected %s" % (kind, name, got.get(name), row))


def peaks_hold(doc, what):
    """Each allocator's peak is the trace's own total there, and the live
    table sums to it."""
    for a in doc["allocators"]:
        tag = "%s %s %s" % (what, a["device"], a["allocator"])
        check(a["trace_total_at_peak"] == a["peak_bytes"],
              "%s: peak %d, trace's total there %s" % (tag, a["peak_bytes"], a["trace_total_at_peak"]))
        live = sum(h["bytes"] for h in a["live_at_peak"])
        check(live == a["peak_bytes"], "%s: live at peak sums to %d, peak %d" % (tag, live, a["peak_bytes"]))
        check(a["allocations"] + a["frees"] == a["records"], "%s: records" % tag)
        check(a["paired"] + a["freed_allocated_before_start"] == a["frees"], "%s: frees" % tag)


def kineto(name):
    path = os.path.join(TRACES, "json", "tracelens", name + ".json.gz")
    doc = memory(path)
    if not doc:
        return
    peaks_hold(doc, name)
    with gzip.open(path, "rt") as f:
        # Times exactly: epoch microseconds with decimals are past a double.
        raw = json.load(f, parse_float=decimal.Decimal)
    top, when = {}, {}
    for e in raw["traceEvents"]:
        if e.get("name") == "[memory]":
            a = e["args"]
            key = "cpu" if a["Device Type"] == 0 else "gpu"
            if a["Total Allocated"] > top.get(key, -1):
                top[key] = a["Total Allocated"]
                when[key] = int(decimal.Decimal(e["ts"]) * 1000000)
    got = {("cpu" if a["device"].startswith("python") else "gpu"): a["peak_bytes"]
           for a in doc["allocators"]}
    check(got == top, "%s: peaks %s, the trace's largest totals %s" % (name, got, top))
    # At that time: the trace's clock and tracectl's differ by one origin.
    at = {("cpu" if a["device"].startswith("python") else "gpu"): a["peak_ps"]
          for a in doc["allocators"]}
    offsets = {when[k] - at[k] for k in when if k in at}
    check(len(offsets) == 1, "%s: peak times %s, the trace's %s" % (name, at, when))
    check(sum(a["records"] for a in doc["allocators"]) == doc["records"], "%s: records" % name)


def xplane():
    path = os.path.join(TRACES, "xplane", "xprof-tf_gpu_multiworker.xplane.pb")
    doc = memory(path)
    if not doc:
        return
    peaks_hold(doc, "tf_gpu_multiworker")
    gpus = sorted(a["allocator"] for a in doc["allocators"] if a["device"].startswith("/device:GPU"))
    check(gpus == ["GPU_1_bfc", "GPU_4_bfc", "GPU_6_bfc"], "tf: GPU allocators %s" % gpus)
    shapes = [b for a in doc["allocators"] for b in a["largest_buffers"] if b["shape"]]
    check(len(shapes) > 0, "tf: no buffer with a shape")
    # The allocator's own figures, decoded apart from tracectl.
    p = subprocess.run([sys.executable, os.path.join(HERE, "tools", "xplane_count.py"), path],
                       capture_output=True, text=True)
    check(p.returncode == 0, "tf: xplane_count.py exit %d: %s" % (p.returncode, p.stderr))
    if p.returncode:
        return
    raw = json.loads(p.stdout)["allocators"]
    offsets = set()
    for a in doc["allocators"]:
        r = raw.get(a["allocator"])
        tag = "tf %s" % a["allocator"]
        check(r is not None, "%s: not in the file" % tag)
        if not r:
            continue
        check(r["max_bytes_allocated"] == a["peak_bytes"],
              "%s: peak %d, the file's largest bytes_allocated %d" %
              (tag, a["peak_bytes"], r["max_bytes_allocated"]))
        # peak_bytes_in_use is a high-water mark since the process began:
        # the GPUs' is the trace's peak, the host's came before the trace.
        check(r["peak_bytes_in_use_there"] >= a["peak_bytes"], "%s: peak_bytes_in_use" % tag)
        if a["device"].startswith("/device:GPU"):
            check(r["peak_bytes_in_use_there"] == a["peak_bytes"],
                  "%s: peak %d, peak_bytes_in_use there %d" %
                  (tag, a["peak_bytes"], r["peak_bytes_in_use_there"]))
        offsets.add(r["at_ps"] - a["peak_ps"])
    check(len(offsets) == 1, "tf: peak times differ from the file's by %s" % sorted(offsets))


def diff_pair():
    """diff's memory peaks and held-at-peak rows against `memory` of each
    side: two H100 runs, one allocator per device."""
    paths = [os.path.join(TRACES, "json", "tracelens", n + ".json.gz")
             for n in ("h100-bert-small", "h100-falconsai_nsfw")]
    r = subprocess.run([TC, "diff", "--json"] + paths, capture_output=True, text=True)
    check(r.returncode == 0, "diff: exit %d: %s" % (r.returncode, r.stderr))
    if r.returncode:
        return
    d = json.loads(r.stdout)
    for k, path in (("base", paths[0]), ("test", paths[1])):
        doc = memory(path)
        if not doc:
            return
        want = {("host" if a["device"].startswith("python") else a["device"]): a["peak_bytes"]
                for a in doc["allocators"]}
        got = {p["allocator"]: p["peak_bytes"][k] for p in d["memory_peaks"]}
        check(got == want, "diff %s: peaks %s, memory's %s" % (k, got, want))
        held = {}
        for o in d["memory_ops"]:
            held[o["device"]] = held.get(o["device"], 0) + o["held_at_peak_bytes"][k]
        check(held == want, "diff %s: held at the peak sums to %s, peaks %s" % (k, held, want))


def main():
    if not TRACES or not os.path.isdir(TRACES) or not os.path.isdir(GOLD):
        print("SKIP: no %s" % (TRACES or "TC_TRACES"))
        return 77
    tb_plugin()
    for name in ("h100-bert-small", "h100-falconsai_nsfw", "h100-qwen1.5-0.5b-chat"):
        kineto(name)
    xplane()
    diff_pair()
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
