#!/usr/bin/env python3
"""The diagnosis corpus (tests/diagnosis/corpus.tsv): on every listed real
trace (../shared/traces: traces/..., ../shared/nsys: nsys/...) and fixture,
`tracectl bottlenecks --format json` must put the
expected kind first (or report nothing; "a>b": a then b first; "*": not
checked) and never report the kinds the case forbids; an optional fifth
column holds checks on the document's top-level fields, ";"-separated:
"key=value" (equal) or "key~text" (contains).

Consistency (issue 48, class 9), on every row and on every other fixture
tracectl reads: a cause's explained time is exactly its attribution
categories on its device; a finding on another device than the breakdown's
says why; severity follows the bands its text states; a finding whose
text or advice calls what it saw expected or by design is at most low; and
no "not launch-bound" beside a launch category above the host one. An input of several files joined by "+"
is one multi-rank job. The findings on one device (of one rank) must never
explain more than its step time together. Every real trace in the folder
must be listed, so a new trace cannot go undiagnosed. The argument picks the rows: "fixtures" (fixtures/
and build/), "traces" (the real traces and nsys exports; exit 77, a
skip, when ../shared/traces is absent; nsys rows skip without ../shared/nsys), none: all."""
import json
import os
import re
import subprocess
import sys

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
BUILD = os.environ["TC_BUILD_ROOT"]
TRACES = os.environ.get("TC_TRACES") or os.path.join(SRC, "..", "shared", "traces")
NSYS = os.environ.get("TC_NSYS") or os.path.join(SRC, "..", "shared", "nsys")

PART = sys.argv[1] if len(sys.argv) > 1 else None
if PART not in (None, "fixtures", "traces"):
    sys.exit(f"diagnosis: unknown part {PART!r} (use fixtures or traces)")
if PART == "traces" and not os.path.isdir(TRACES):
    print(f"diagnosis: SKIP (no traces folder {TRACES})")
    sys.exit(77)

roots = {"traces": TRACES, "nsys": NSYS, "fixtures": os.path.join(SRC, "fixtures"),
         "build": BUILD}
REAL = ("traces", "nsys")  # the real inputs in ../shared

# The attribution categories each cause explains (analysis/rules.c).
CAUSE_CATS = {
    "idle-device": ["idle"], "host-bound": ["launch", "host"],
    "launch-bound": ["launch", "host"], "sync-bound": ["sync"], "input-bound": ["input"],
    "communication": ["collective"], "transfer-bound": ["h2d", "d2h", "d2d"],
    "compilation": ["compile"],
}
SEVERITIES = ["none", "low", "medium", "high", "critical"]
CRITICAL = 50.0  # analysis/analyze.c TC_TH_CRITICAL


def consistency(path, doc):
    """The class 9 rules on one bottlenecks document; a list of failures."""
    out = []
    att = {(a["device"], a.get("rank")): a for a in doc.get("attribution", [])}
    bd_dev = doc.get("breakdown_device")
    kinds = [x["kind"] for x in doc["findings"]]
    # Parts within their whole: steps never overlap, so the step time is
    # within the window; compilation in the steps within its union, the
    # union within the span (fuser_xent: 954 ms in steps of an 834 ms
    # union; the MTIA inference trace: 816 ms of steps in a 341 ms window).
    w = doc.get("window") or {}
    if w and (doc.get("step_time_ps") or 0) > w["end_ps"] - w["start_ps"]:
        out.append(f"{path}: step time {doc['step_time_ps']} ps over the "
                   f"{w['end_ps'] - w['start_ps']} ps window")
    union = (doc.get("compile") or {}).get("union_ps", 0)
    in_steps = (doc.get("breakdown_ps") or {}).get("compile", 0)
    if not in_steps <= union <= doc["span_ps"]:
        out.append(f"{path}: compilation in steps {in_steps} ps, union {union} ps, span "
                   f"{doc['span_ps']} ps")
    for x in doc["findings"]:
        kind, sev, text = x["kind"], x["severity"], x["text"]
        where = f"{path}: {kind} on {x['device']}"
        a = att.get((x["device"], x.get("rank")))
        if a is None and not att:
            a = {"breakdown_ps": doc.get("breakdown_ps") or {},
                 "step_time_ps": doc.get("step_time_ps") or 0}
        cats = CAUSE_CATS.get(kind)
        # A straggler takes the wait out of communication: not exact there.
        if cats and a and not (kind == "communication" and "straggler" in kinds):
            want = sum(a["breakdown_ps"].get(c, 0) for c in cats)
            if x["explained_ps"] != want:
                out.append(f"{where}: explains {x['explained_ps']} ps, its categories "
                           f"{'+'.join(cats)} hold {want} ps")
            step = a["step_time_ps"]
            if step and abs(x["share"] - want / step) > 1e-9:
                out.append(f"{where}: share {x['share']:.6f}, categories {want / step:.6f}")
        if (cats and x["explained_ps"] > 0 and bd_dev is not None and x["device"] != bd_dev
                and "worst" not in text and "straggler" not in text
                and not (x.get("rank") is not None and f"rank {x['rank']}:" in text)):
            out.append(f"{where}: measured off the breakdown's device {bd_dev} without "
                       f"saying why")
        m = re.search(r"bands (\d+(?:\.\d+)?)/(\d+(?:\.\d+)?) %", text)
        if cats and m:
            lo, hi, pct = float(m.group(1)), float(m.group(2)), 100.0 * x["share"]
            allowed = (["high", "critical"] if pct >= hi else ["medium"] if pct >= lo
                       else ["low", "none"])
            if pct < CRITICAL and "critical" in allowed:
                allowed.remove("critical")
            if sev not in allowed:
                out.append(f"{where}: [{sev}] at {pct:.2f} % with bands {lo:g}/{hi:g} %")
        said = (text + " " + (x.get("suggestion") or "")).lower()
        if ("by design" in said or re.search(r"\bexpected\b", said)) and \
                SEVERITIES.index(sev) > SEVERITIES.index("low"):
            out.append(f"{where}: [{sev}] though it calls what it saw expected")
        if "not launch-bound" in text and a:
            bd = a["breakdown_ps"]
            if bd.get("launch", 0) > bd.get("host", 0):
                out.append(f"{where}: says not launch-bound beside launch "
                           f"{bd['launch']} ps > host {bd['host']} ps")
    return out


def check_field(doc, check):
    """One "key=value" / "key~text" check; None when it holds."""
    m = re.match(r"([a-z_]+)([=~])(.*)$", check)
    if not m:
        return f"bad check {check!r}"
    key, op, want = m.groups()
    got = doc.get(key)
    ok = str(got) == want if op == "=" else want in str(got)
    return None if ok else f"{key} is {got!r}, want {op}{want!r}"
failures, ran, skipped, listed, checked = [], 0, 0, set(), set()
with open(os.path.join(SRC, "tests", "diagnosis", "corpus.tsv")) as f:
    for line in f:
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        path, first, forbidden, why = cols[:4]
        checks = cols[4].split(";") if len(cols) > 4 and cols[4] else []
        parts = [p.split("/", 1) for p in path.split("+")]
        full = [os.path.join(roots[root], rel) for root, rel in parts]
        on_traces = any(root in REAL for root, _ in parts)
        if len(parts) == 1 and on_traces:
            listed.add(path)
        if PART and on_traces != (PART == "traces"):
            continue
        if not all(os.path.exists(x) for x in full):
            if on_traces and not all(os.path.isdir(roots[r]) for r, _ in parts if r in REAL):
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
        if first != "*" and got != first:
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
        failures += consistency(path, doc)
        checked.add(tuple(full))
        for c in checks:
            msg = check_field(doc, c)
            if msg:
                failures.append(f"{path}: {msg} ({why})")
        bad = [k for k in forbidden.split(",") if k != "-" and k in kinds]
        if bad:
            failures.append(f"{path}: must not report {bad} ({why})")

for root in REAL if PART != "fixtures" else ():
    if not os.path.isdir(roots[root]):
        continue
    for d, _, files in os.walk(roots[root]):
        for n in files:
            rel = os.path.relpath(os.path.join(d, n), roots[root])
            if rel.startswith("bad/") or "/bad/" in rel or n.endswith(
                    (".md", ".textproto", ".json") if root == "nsys" else (".md", ".textproto")):
                continue
            if f"{root}/{rel}" not in listed:
                failures.append(f"{root}/{rel}: not in the diagnosis corpus")

# Consistency on every fixture the corpus does not list (those that
# tracectl refuses, on purpose, are not diagnosed).
if PART != "traces":
    for root in (os.path.join(SRC, "fixtures"), os.path.join(BUILD, "fixtures")):
        for d, _, files in sorted(os.walk(root)):
            for n in sorted(files):
                full = os.path.join(d, n)
                if (full,) in checked or not n.endswith((".json", ".gz", ".pb", ".pftrace")):
                    continue
                r = subprocess.run([TC, "bottlenecks", "--format", "json", full],
                                   capture_output=True, text=True)
                if r.returncode == 0:
                    ran += 1
                    failures += consistency(os.path.relpath(full, SRC), json.loads(r.stdout))

for f in failures:
    print("FAIL", f)
print(f"diagnosis: {ran} inputs diagnosed, {skipped} skipped (no traces folder), "
      f"{len(failures)} failures")
if ran == 0:
    sys.exit(77)
sys.exit(1 if failures else 0)
