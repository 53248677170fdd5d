#!/usr/bin/env python3
"""`tracectl ops --by category --json` on the three H100 Kineto traces against
TraceLens's checked-in ops_summary_by_category.csv (../shared/gold/tracelens,
GOLD.md): for every category both vocabularies have, the kernel time of the
work a known host op launched (launched_ps, what TraceLens counts) within
1e-3 relative. Skipped (77) when the traces or the gold are absent."""
import csv
import json
import os
import subprocess
import sys

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
TRACES = os.environ.get("TC_TRACES") or os.path.join(SRC, "..", "shared", "traces")
GOLD = os.path.join(TRACES, "..", "gold", "tracelens")
if not os.path.isdir(os.path.join(TRACES, "json", "tracelens")) or not os.path.isdir(GOLD):
    print(f"tracelens_categories: skipped, no {TRACES} or {GOLD}")
    sys.exit(77)

# TraceLens's name -> tracectl's; "other" differs in content (TraceLens puts
# attention, concatenation and gathers there) and is not compared.
SHARED = {"GEMM": "GEMM", "CONV_fwd": "CONV_fwd", "CONV_bwd": "CONV_bwd",
          "NORM_fwd": "normalization", "elementwise": "elementwise", "reduce": "reduction"}
failures, compared = [], 0
for name in ("h100-bert-small", "h100-falconsai_nsfw", "h100-qwen1.5-0.5b-chat"):
    path = os.path.join(TRACES, "json", "tracelens", name + ".json.gz")
    out = subprocess.run([TC, "ops", "--by", "category", "--json", path],
                         capture_output=True, text=True, check=True)
    ours = {r["key"]: r["launched_ps"] / 1e9 for r in json.loads(out.stdout)["rows"]}
    with open(os.path.join(GOLD, name, "ops_summary_by_category.csv"), newline="") as f:
        for row in csv.DictReader(f):
            cat = SHARED.get(row["op category"])
            if cat is None:
                continue
            want = float(row["total_direct_kernel_time_ms"])
            got = ours.get(cat, 0.0)
            compared += 1
            if abs(got - want) > 1e-3 * want:
                failures.append(f"{name}: {cat} {got:.9f} ms, TraceLens {want:.9f} ms")
for f in failures:
    print("FAIL", f)
print(f"tracelens_categories: {compared} categories compared, {len(failures)} failed")
sys.exit(1 if failures or compared < 11 else 0)
