#!/usr/bin/env python3
"""The diagnosis corpus (tests/diagnosis/corpus.tsv): on every listed real
trace and fixture, `tracectl bottlenecks --format json` must put the
expected kind first (or report nothing; "a>b": a then b first) and never
report the kinds the case forbids. An input of several files joined by "+"
is one multi-rank job. The findings on one device (of one rank) must never
explain more than its step time together. Every real trace in the folder
must be listed, so a new trace cannot go undiagnosed. The argument picks the rows: "fixtures" (fixtures/
and build/), "traces" (the real traces; exit 77, a skip, when
../shared/traces is absent), none: all."""
import json
import os
import subprocess
import sys

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
BUILD = os.environ["TC_BUILD_ROOT"]
TRACES = os.environ.get("TC_TRACES") or os.path.join(SRC, "..", "shared", "traces")

PART = sys.argv[1] if len(sys.argv) > 1 else None
if PART not in (None, "fixtures", "traces"):
    sys.exit(f"diagnosis: unknown part {PART!r} (use fixtures or traces)")
if PART == "traces" and not os.path.isdir(TRACES):
    print(f"diagnosis: SKIP (no traces folder {TRACES})")
    sys.exit(77)

roots = {"traces": TRACES, "fixtures": os.path.join(SRC, "fixtures"), "build": BUILD}
failures, ran, skipped, listed = [], 0, 0, set()
with open(os.path.join(SRC, "tests", "diagnosis", "corpus.tsv")) as f:
    for line in f:
        if not line.strip() or line.startswith("#"):
            continue
        path, first, forbidden, why = line.rstrip("\n").split("\t")
        parts = [p.split("/", 1) for p in path.split("+")]
        full = [os.path.join(roots[root], rel) for root, rel in parts]
        on_traces = any(root == "traces" for root, _ in parts)
        if len(parts) == 1 and on_traces:
            listed.add(parts[0][1])
        if PART and on_traces != (PART == "traces"):
            continue
        if not all(os.path.exists(x) for x in full):
            if on_traces and not os.path.isdir(TRACES):
                skipped += 1
                continue
            failures.append(f"{path}: listed but missing")
            continue
        r = subprocess.run([TC, "bottlenecks", "--format", "json"] + full,
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{path}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        doc = json.loads(r.stdout)
        kinds = [x["kind"] for x in doc["findings"]]
        want = first.split(">")
        got = ">".join(kinds[:len(want)]) if kinds else "-"
        ran += 1
        if got != first:
            failures.append(f"{path}: first findings {got}, want {first} ({why}); all: {kinds}")
        # Per device (and rank): explained time within its step time.
        steps = {}
        for at in doc.get("attribution", []):
            key = (at["device"], at.get("rank"))
            steps[key] = None if key in steps else at["step_time_ps"]
        total, share = {}, {}
        for x in doc["findings"]:
            key = (x["device"], x.get("rank"))
            total[key] = total.get(key, 0) + x["explained_ps"]
            share[key] = share.get(key, 0) + x["share"]
        for key, ps in total.items():
            step = steps.get(key) or (doc["step_time_ps"] if not steps else None)
            if share[key] > 1 + 1e-9 or (step is not None and ps > step):
                failures.append(f"{path}: findings on {key} explain {ps} ps "
                                f"({share[key]:.4f} of step time {step})")
        bad = [k for k in forbidden.split(",") if k != "-" and k in kinds]
        if bad:
            failures.append(f"{path}: must not report {bad} ({why})")

if PART != "fixtures" and os.path.isdir(TRACES):
    for d, _, files in os.walk(TRACES):
        for n in files:
            rel = os.path.relpath(os.path.join(d, n), TRACES)
            if rel.startswith("bad/") or "/bad/" in rel or n.endswith((".md", ".textproto")):
                continue
            if rel not in listed:
                failures.append(f"traces/{rel}: not in the diagnosis corpus")

for f in failures:
    print("FAIL", f)
print(f"diagnosis: {ran} inputs diagnosed, {skipped} skipped (no traces folder), "
      f"{len(failures)} failures")
if ran == 0:
    sys.exit(77)
sys.exit(1 if failures else 0)
