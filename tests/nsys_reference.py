#!/usr/bin/env python3
"""The Nsight Systems reader against ../shared/nsys/REFERENCE.json (numbers
computed from the raw rows with SQL; ../shared/traces/GOLD.md, "Nsight
Systems exports"): for every export, the kernel, copy, memset, CUDA
runtime and NVTX range counts; per GPU the kernel count, summed kernel
time, busy time, first start and last end, exact in ns; the top kernels
by total time (demangled names); the processes; the nsys version. Read through `tracectl
info`, `summarize` and `ops --device` as JSON. Exit 77 (a skip) when the
folder is absent."""
import json
import os
import subprocess
import sys

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
NSYS = os.environ.get("TC_NSYS") or os.path.join(SRC, "..", "shared", "nsys")

if not os.path.isfile(os.path.join(NSYS, "REFERENCE.json")):
    print(f"nsys_reference: SKIP (no {NSYS}/REFERENCE.json)")
    sys.exit(77)


def run(*args):
    r = subprocess.run([TC, *args, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def rows(path, device, by):
    doc = run("ops", "--by", by, "--top", "0", "--device", device, path)
    return {x["key"]: x for x in doc["rows"]}


failures = []


def check(name, what, got, want):
    if got != want:
        failures.append(f"{name}: {what} is {got}, want {want}")


def one(ref):
    name = ref["file"]
    path = os.path.join(NSYS, name)
    info = run("info", path)
    summ = run("summarize", path)
    offset_ns = info["start_ns"] - info["origin_ns"]
    devices = {d["name"]: d for d in info["devices"]}
    cpu = [d for d in info["devices"] if d["kind"] == "cpu"]
    gpu = [d for d in info["devices"] if d["kind"] == "gpu"]
    counts = ref["counts"]
    check(name, "writer", info["inputs"][0].get("writer"), "Nsight Systems " + ref["nsys_version"])

    # Host side: the CUDA runtime calls and NVTX ranges of every process.
    # NVTX ranges take Kineto's categories: cpu_op (aten::), user_annotation.
    host = {"cuda_runtime": 0, "cpu_op": 0, "user_annotation": 0}
    for d in cpu:
        for key, row in rows(path, d["name"], "category").items():
            if key in host:
                host[key] += row["count"]
    check(name, "runtime calls", host["cuda_runtime"], counts["runtime_calls"] or 0)
    check(name, "NVTX ranges", host["cpu_op"] + host["user_annotation"],
          counts["nvtx_ranges"] or 0)
    check(name, "processes", sorted(d["pid"] for d in cpu), sorted(ref["pids"]))
    check(name, "GPUs with activity", len(gpu), counts["gpus_active"])

    # Device side, per GPU.
    totals = {"kernel": 0, "gpu_memcpy": 0, "gpu_memset": 0}
    summ_dev = {d["name"]: d for d in summ["devices"]}
    for dev_id, want in ref["per_device"].items():
        dname = f"GPU {dev_id}"
        if dname not in devices:
            failures.append(f"{name}: no device {dname}")
            continue
        # By kind: kernels, copies by direction (memcpy_h2d, ...), memsets.
        cats = rows(path, dname, "kind")
        totals["kernel"] += cats.get("kernel", {}).get("count", 0)
        totals["gpu_memcpy"] += sum(r["count"] for k, r in cats.items()
                                    if k.startswith("memcpy"))
        totals["gpu_memset"] += cats.get("memset", {}).get("count", 0)
        kern = cats.get("kernel", {"count": 0, "total_ps": 0})
        check(name, f"{dname} kernels", kern["count"], want["kernels"])
        check(name, f"{dname} kernel time (ns)", kern["total_ps"] // 1000, want["kernel_time_ns"])
        d = summ_dev[dname]
        check(name, f"{dname} busy (ns)", d["busy_ps"] // 1000, want["busy_ns"])
        check(name, f"{dname} first start (ns)", offset_ns + d["first_ps"] // 1000,
              want["first_start"])
        check(name, f"{dname} last end (ns)", offset_ns + d["last_ps"] // 1000, want["last_end"])
        if len(ref["per_device"]) == 1 and ref.get("top5_kernels_by_demangledName"):
            by_name = rows(path, dname, "name")
            for k in ref["top5_kernels_by_demangledName"]:
                got = by_name.get(k["name"])
                got = (got["count"], got["total_ps"] // 1000) if got else None
                check(name, f"kernel {k['name'][:60]!r} (count, ns)", got,
                      (k["count"], k["total_ns"]))
    check(name, "kernels", totals["kernel"], counts["kernels"] or 0)
    check(name, "memcpys", totals["gpu_memcpy"], counts["memcpys"] or 0)
    check(name, "memsets", totals["gpu_memset"], counts["memsets"] or 0)
    time_sums(name, path)


def time_sums(name, path):
    """Times that are parts of a whole stay within it: steps never overlap,
    so their sum is within the window; the compilation inside the counted
    steps is within the compile union, which is within the span.
    fuser_xent once reported 954 ms of compilation in steps against an
    834 ms union (six overlapping inferred steps summed)."""
    b = run("bottlenecks", path)
    steps = run("steps", path)["steps"]
    for x, y in zip(steps, steps[1:]):
        if y["start_ps"] < x["start_ps"] + x["dur_ps"]:
            failures.append(f"{name}: step {y['num']} starts inside step {x['num']}")
    w = b["window"]
    if b["step_time_ps"] > w["end_ps"] - w["start_ps"]:
        failures.append(f"{name}: step time {b['step_time_ps']} ps over the window "
                        f"{w['end_ps'] - w['start_ps']} ps")
    union = b["compile"]["union_ps"]
    in_steps = b["breakdown_ps"]["compile"]
    if not in_steps <= union <= b["span_ps"]:
        failures.append(f"{name}: compile in steps {in_steps} ps, union {union} ps, "
                        f"span {b['span_ps']} ps: not in order")
    for f in b["findings"]:
        if f["kind"] == "compilation" and f["explained_ps"] > union:
            failures.append(f"{name}: the compilation finding explains {f['explained_ps']} ps "
                            f"of a {union} ps union")


with open(os.path.join(NSYS, "REFERENCE.json")) as f:
    refs = json.load(f)
for ref in refs:
    try:
        one(ref)
    except (RuntimeError, KeyError, ValueError) as e:
        failures.append(f"{ref['file']}: {e}")
for x in failures:
    print("FAIL", x)
print(f"nsys_reference: {len(refs)} exports, {len(failures)} failures")
sys.exit(1 if failures else 0)
