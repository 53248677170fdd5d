#!/usr/bin/env python3
"""Independent checks of a tracectl Chrome export (not tracectl's own parser).

  export_check.py validate OUT.json[.gz]
      strict JSON (no NaN/Infinity, no duplicate keys) and Trace Event Format
      rules: object form, every X has a non-negative dur, ts non-negative,
      pid/tid integers in 0..2^32-1, process/thread metadata names every pid
      and (pid, tid) used, C args numeric, s/f flow ends paired.
  export_check.py compare [--events] ORIG_SUMMARY.json EXPORT_SUMMARY.json
      op statistics of `tracectl summarize --json` per op name: call counts
      equal, total time equal within 1 ns per call (readers keep ns); with
      --events the event counts too.
  export_check.py memory ORIG_MEMORY.json EXPORT_MEMORY.json
      `tracectl memory --json` equal but for the device identity the export
      renames (device, host, rank, pid): every record, byte and ps; lists
      compared in any order (ties are in the readers' string order).
  export_check.py curve_points ORIG_SUMMARY.json ORIG_MEMORY.json
      prints how many points the curves of allocator records on devices with
      no memory.allocated counter have (one per record), which the export
      writes as counter samples (docs/export.md).
Exit 0 when fine, 1 with one line per problem.
"""
import gzip
import json
import sys


def fail(msgs):
    for m in msgs[:20]:
        print(m)
    if len(msgs) > 20:
        print("... %d more" % (len(msgs) - 20))
    sys.exit(1)


def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in object: %r" % keys)
    return dict(pairs)


def no_constants(name):
    raise ValueError("non-standard JSON constant %s" % name)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=no_dups, parse_constant=no_constants)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def validate(path):
    errs = []
    doc = load(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail(["%s: not the object form with a traceEvents array" % path])
    if doc.get("displayTimeUnit") not in ("ns", "ms"):
        errs.append("displayTimeUnit missing or invalid")
    procs, threads, used_p, used_t = set(), set(), set(), set()
    flows = {}
    for n, e in enumerate(doc["traceEvents"]):
        where = "%s: event %d" % (path, n)
        if not isinstance(e, dict) or not e:
            errs.append(where + ": empty or not an object")
            continue
        ph = e.get("ph")
        if ph not in ("M", "X", "i", "C", "s", "f"):
            errs.append(where + ": unexpected ph %r" % ph)
            continue
        pid = e.get("pid")
        if not isinstance(pid, int) or isinstance(pid, bool) or not 0 <= pid < 2**32:
            errs.append(where + ": pid %r not an integer in 0..2^32-1" % pid)
        if "tid" in e:
            tid = e["tid"]
            if not isinstance(tid, int) or isinstance(tid, bool) or not 0 <= tid < 2**32:
                errs.append(where + ": tid %r not an integer in 0..2^32-1" % tid)
        if ph == "M":
            if e.get("name") == "process_name":
                procs.add(pid)
            elif e.get("name") == "thread_name":
                threads.add((pid, e.get("tid")))
            if not isinstance(e.get("args"), dict):
                errs.append(where + ": metadata without args")
            continue
        ts = e.get("ts")
        if not is_num(ts) or ts < 0:
            errs.append(where + ": ts %r missing or negative" % ts)
        used_p.add(pid)
        if ph in ("X", "i", "s", "f"):
            if "tid" not in e:
                errs.append(where + ": %s without tid" % ph)
            used_t.add((pid, e.get("tid")))
        if ph == "X":
            d = e.get("dur")
            if not is_num(d) or d < 0:
                errs.append(where + ": X without a non-negative dur")
        if ph in ("X", "i") and not isinstance(e.get("name"), str):
            errs.append(where + ": no name")
        if ph == "i" and e.get("s") not in ("t", "p", "g"):
            errs.append(where + ": instant without scope")
        if ph == "C":
            a = e.get("args")
            if not isinstance(a, dict) or not a or not all(is_num(v) for v in a.values()):
                errs.append(where + ": counter args not numeric")
        if ph in ("s", "f"):
            flows.setdefault(e.get("id"), []).append(ph)
    for p in sorted(used_p - procs):
        errs.append("%s: pid %d has no process_name" % (path, p))
    for t in sorted(used_t - threads, key=str):
        errs.append("%s: pid/tid %r has no thread_name" % (path, t))
    for i, ends in flows.items():
        if sorted(ends) != ["f", "s"]:
            errs.append("%s: flow id %r has ends %r" % (path, i, ends))
    if not isinstance(doc.get("otherData"), dict):
        errs.append("%s: no otherData" % path)
    if errs:
        fail(errs)


def op_table(path):
    with open(path) as f:
        s = json.load(f)
    ops = {}
    for o in s.get("ops", []):
        c, t = ops.get(o["name"], (0, 0))
        ops[o["name"]] = (c + o["calls"], t + o["total_ps"])
    return s.get("ops_scope"), ops, s.get("events")


def compare(orig, back, events=False):
    scope_a, a, ev_a = op_table(orig)
    scope_b, b, ev_b = op_table(back)
    errs = []
    if events and ev_a != ev_b:
        errs.append("%r events, %r after the round trip" % (ev_a, ev_b))
    if scope_a != scope_b:
        errs.append("op scope %r became %r" % (scope_a, scope_b))
    for name in sorted(set(a) | set(b)):
        ca, ta = a.get(name, (0, 0))
        cb, tb = b.get(name, (0, 0))
        if ca != cb:
            errs.append("op %r: %d calls, %d after the round trip" % (name, ca, cb))
        elif abs(ta - tb) > 1000 * max(ca, 1):
            errs.append("op %r: total %d ps, %d ps after the round trip" % (name, ta, tb))
    if errs:
        fail(errs)
    print("ops match: %d names, %d calls" % (len(a), sum(c for c, _ in a.values())))


IDENTITY = ("device", "host", "rank", "pid")


def strip_identity(v):
    if isinstance(v, dict):
        return {k: strip_identity(x) for k, x in v.items() if k not in IDENTITY}
    if isinstance(v, list):
        # Ties (equal bytes) are listed in the readers' string order, which
        # is no data: compare the lists as sets.
        return sorted((strip_identity(x) for x in v), key=json.dumps)
    return v


def memory(orig, back):
    with open(orig) as f:
        a = strip_identity(json.load(f))
    with open(back) as f:
        b = strip_identity(json.load(f))
    if a != b:
        errs = []
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                errs.append("memory %r: %.150s became %.150s" % (k, json.dumps(a.get(k)),
                    json.dumps(b.get(k))))
        fail(errs)
    print("memory matches: %d records" % a.get("records", 0))


def curve_points(summary, memory):
    with open(summary) as f:
        counted = {c.get("device") for c in json.load(f).get("counters", [])
                   if c.get("name") == "memory.allocated" and c.get("samples")}
    with open(memory) as f:
        allocators = json.load(f).get("allocators", [])
    print(sum(a.get("records", 0) for a in allocators if a.get("device") not in counted))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "validate":
        try:
            validate(sys.argv[2])
        except ValueError as e:
            fail(["%s: invalid JSON: %s" % (sys.argv[2], e)])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "memory":
        memory(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "curve_points":
        curve_points(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1:3] == ["compare", "--events"]:
        compare(sys.argv[3], sys.argv[4], events=True)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
