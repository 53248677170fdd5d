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
- the TF GPU xplane: the same against the allocator's bytes_allocated.
Skips (77) without ../shared."""
import gzip
import json
import os
import subprocess
import sys

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
        raw = json.load(f)
    top = {}
    for e in raw["traceEvents"]:
        if e.get("name") == "[memory]":
            a = e["args"]
            key = "cpu" if a["Device Type"] == 0 else "gpu"
            top[key] = max(top.get(key, 0), a["Total Allocated"])
    got = {("cpu" if a["device"].startswith("python") else "gpu"): a["peak_bytes"]
           for a in doc["allocators"]}
    check(got == top, "%s: peaks %s, the trace's largest totals %s" % (name, got, top))
    check(sum(a["records"] for a in doc["allocators"]) == doc["records"], "%s: records" % name)


def xplane():
    doc = memory(os.path.join(TRACES, "xplane", "xprof-tf_gpu_multiworker.xplane.pb"))
    if not doc:
        return
    peaks_hold(doc, "tf_gpu_multiworker")
    gpus = sorted(a["allocator"] for a in doc["allocators"] if a["device"].startswith("/device:GPU"))
    check(gpus == ["GPU_1_bfc", "GPU_4_bfc", "GPU_6_bfc"], "tf: GPU allocators %s" % gpus)
    shapes = [b for a in doc["allocators"] for b in a["largest_buffers"] if b["shape"]]
    check(len(shapes) > 0, "tf: no buffer with a shape")


def main():
    if not TRACES or not os.path.isdir(TRACES) or not os.path.isdir(GOLD):
        print("SKIP: no %s" % (TRACES or "TC_TRACES"))
        return 77
    tb_plugin()
    for name in ("h100-bert-small", "h100-falconsai_nsfw", "h100-qwen1.5-0.5b-chat"):
        kineto(name)
    xplane()
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
