#!/usr/bin/env python3
"""`ops --by launcher --json` against TraceLens's reference output for the
three H100 traces (../shared/gold/tracelens/<trace>/, ../shared/traces/GOLD.md):
every row of GEMM.csv, SDPA_fwd.csv and CONV_fwd.csv has a row of the same op
name, input dims and input types with the same calls, FLOPs and bytes per
call (exact), summed kernel time and mean per-call TFLOP/s within 1e-3; the
rows of *Elementwise.csv and Normalization.csv have a row of the same FLOPs and
bytes per call (their times are not compared: TraceLens splits a shape by its
strides, which the launcher rows do not). The trace's Perfetto export gives
the same rows (launches linked by Perfetto flows) but for the class and % of
peak: the export keeps no device model to find peaks by. Skipped (77) when the traces or the reference output are absent."""
import ast
import csv
import json
import os
import subprocess
import sys
import tempfile

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
TRACES = os.environ.get("TC_TRACES") or os.path.join(SRC, "..", "shared", "traces")
GOLD = os.path.join(TRACES, "..", "gold", "tracelens")
NAMES = ["h100-bert-small", "h100-falconsai_nsfw", "h100-qwen1.5-0.5b-chat"]
TABLES = ["GEMM.csv", "SDPA_fwd.csv", "CONV_fwd.csv"]
COSTS_ONLY = ["BinaryElementwise.csv", "UnaryElementwise.csv", "Normalization.csv"]
if not os.path.isdir(GOLD) or not os.path.isdir(os.path.join(TRACES, "json", "tracelens")):
    print(f"tracelens_gold: skipped, no {GOLD}")
    sys.exit(77)


def key(name, dims, types):
    return (name, json.dumps(dims), json.dumps(types))


# The export keeps no device properties, so no peaks: what is judged
# against them (its class only where every part agrees) is left out of the
# comparison.
PEAK_KEYS = ("class", "peak_fraction", "peak_of", "class_on_every_part")


def unclassed(out):
    return [{k: v for k, v in r.items() if k not in PEAK_KEYS} for r in json.loads(out)["rows"]]


def close(a, b, tol=1e-3):
    return abs(a - b) <= tol * max(abs(a), abs(b))


failures, checked = [], 0
for t in NAMES:
    trace = os.path.join(TRACES, "json", "tracelens", t + ".json.gz")
    p = subprocess.run([TC, "ops", "--by", "launcher", "--json", "--top", "0", trace],
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"{t}: exit {p.returncode}: {p.stderr.strip()}")
        continue
    with tempfile.TemporaryDirectory() as tmp:
        pf = os.path.join(tmp, "t.pftrace")
        q = subprocess.run([TC, "export", "--perfetto", trace, "-o", pf], capture_output=True)
        r = subprocess.run([TC, "ops", "--by", "launcher", "--json", "--top", "0", pf],
                           capture_output=True, text=True) if q.returncode == 0 else q
        if r.returncode != 0 or unclassed(r.stdout) != unclassed(p.stdout):
            failures.append(f"{t}: the Perfetto export's rows differ")
    rows = {}
    for r in json.loads(p.stdout)["rows"]:
        if r["input_dims"] is not None and r["input_types"] is not None:
            rows[key(r["name"], json.loads(r["input_dims"]),
                     json.loads(r["input_types"]))] = r
    for table in TABLES + COSTS_ONLY:
        path = os.path.join(GOLD, t, table)
        if not os.path.exists(path):
            continue
        with open(path, newline="") as f:
            for g in csv.DictReader(f):
                checked += 1
                dims = ast.literal_eval(g["Input Dims_first"])
                types = ast.literal_eval(g["Input type_first"])
                what = f"{t}/{table} {g['name']} {dims}"
                r = rows.get(key(g["name"], dims, types))
                if r is None:
                    failures.append(f"{what}: no row")
                    continue
                want = {} if table in COSTS_ONLY else {"calls": int(g["name_count"])}
                want.update({
                    "flops_per_call": round(float(g["GFLOPS_first"]) * 1e9),
                    "bytes_per_call": round(float(g["Data Moved (MB)_first"]) * 1024 * 1024),
                })
                for k, v in want.items():
                    if r[k] is None or round(r[k]) != v:
                        failures.append(f"{what}: {k} {r[k]}, TraceLens {v}")
                if table in COSTS_ONLY:
                    continue
                us = r["kernel_ps"] / 1e6
                if not close(us, float(g["Kernel Time (µs)_sum"])):
                    failures.append(f"{what}: kernel time {us} us, TraceLens "
                                    f"{g['Kernel Time (µs)_sum']}")
                rate = r["flops_per_s_call_mean"]
                if rate is None or not close(rate / 1e12, float(g["TFLOPS/s_mean"])):
                    failures.append(f"{what}: TFLOP/s {rate}, TraceLens {g['TFLOPS/s_mean']}")
for f in failures:
    print("FAIL", f)
print(f"tracelens_gold: {checked} reference rows, {len(failures)} failures")
sys.exit(1 if failures or checked == 0 else 0)
