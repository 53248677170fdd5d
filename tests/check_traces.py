#!/usr/bin/env python3
"""`tracectl check` with no limits on every real trace in ../shared/traces
(TC_TRACES): exit 0 and every metric of the catalogue listed (share.CATEGORY
once per category; op:NAME and memory.peak_by_op:NAME metrics need a name and
are not listed). The
damaged traces under a bad/ folder must be refused (exit 3) as by every
command. Skipped (77) when the traces are absent."""
import os
import subprocess
import sys

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
TRACES = os.environ.get("TC_TRACES") or os.path.join(SRC, "..", "shared", "traces")
if not os.path.isdir(TRACES):
    print(f"check_traces: skipped, no {TRACES}")
    sys.exit(77)

CATEGORIES = ["compute", "d2h", "d2d", "input", "collective", "profiler", "sync", "launch",
              "h2d", "compile", "host", "idle"]
listing = subprocess.run([TC, "check", "--list"], capture_output=True, text=True, check=True)
want = []
for line in listing.stdout.splitlines():
    if not line or line.startswith(" ") or line.startswith("units in values"):
        break
    name = line.split()[0]
    if name == "share.CATEGORY":
        want += ["share." + c for c in CATEGORIES]
    elif not name.startswith("op:") and not name.endswith(":NAME"):
        want.append(name)
if len(want) < 25 or "step.mean" not in want or "h2d.count_per_step" not in want:
    print(f"FAIL the catalogue listing is not as expected: {want}")
    sys.exit(1)

failures, ran = [], 0
for root, dirs, files in os.walk(TRACES):
    dirs.sort()
    for f in sorted(files):
        if f.endswith((".md", ".textproto")):
            continue
        path = os.path.join(root, f)
        bad = os.path.basename(root) == "bad"
        r = subprocess.run([TC, "check", path], capture_output=True, text=True)
        ran += 1
        if bad:
            if r.returncode != 3:
                failures.append(f"{path}: exit {r.returncode}, want 3 (damaged)")
            continue
        if r.returncode != 0:
            failures.append(f"{path}: exit {r.returncode}: {r.stderr.strip()[:200]}")
            continue
        listed = [line.split()[0] for line in r.stdout.splitlines()
                  if line and not line.startswith(" ")]
        missing = [m for m in want if m not in listed]
        if missing:
            failures.append(f"{path}: not listed: {', '.join(missing)}")
        if "no limits given" not in r.stdout:
            failures.append(f"{path}: no 'no limits given' line")

for f in failures:
    print("FAIL", f)
print(f"check_traces: {ran} traces, {len(failures)} failed")
sys.exit(1 if failures else 0)
