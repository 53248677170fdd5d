#!/usr/bin/env python3
"""The diagnosis corpus (tests/diagnosis/corpus.tsv): on every listed real
trace and fixture, `tracectl bottlenecks --format json` must put the
expected kind first (or report nothing) and never report the kinds the case
forbids. Every real trace in the folder must be listed, so a new trace
cannot go undiagnosed. The argument picks the rows: "fixtures" (fixtures/
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
        root, rel = path.split("/", 1)
        full = os.path.join(roots[root], rel)
        if root == "traces":
            listed.add(rel)
        if PART and (root == "traces") != (PART == "traces"):
            continue
        if not os.path.exists(full):
            if root == "traces" and not os.path.isdir(TRACES):
                skipped += 1
                continue
            failures.append(f"{path}: listed but missing")
            continue
        r = subprocess.run([TC, "bottlenecks", "--format", "json", full],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{path}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        kinds = [x["kind"] for x in json.loads(r.stdout)["findings"]]
        got = kinds[0] if kinds else "-"
        ran += 1
        if got != first:
            failures.append(f"{path}: first finding {got}, want {first} ({why}); all: {kinds}")
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
