#!/bin/sh
# Cross-check tracectl against tests/tools/xplane_count.py, an independent
# pure-Python wire decoder, on every real xplane file: per-line event counts
# (info --json) and per-op device time in ps (summarize --json) must be equal.
# Exit 77 (skip) when the real traces or python3 are absent.
set -u
TC=${TC_BIN:?}
SRC=${TC_SOURCE_ROOT:?}
TRACES=${TC_TRACES:-$SRC/../shared/traces}
[ -d "$TRACES/xplane" ] || exit 77
command -v python3 >/dev/null || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for f in "$TRACES"/xplane/*.xplane.pb; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	python3 "$SRC/tests/tools/xplane_count.py" "$f" >"$tmp/py.json" || { echo "FAIL $f: python decoder"; fail=1; continue; }
	"$TC" info --json "$f" >"$tmp/info.json" || { echo "FAIL $f: info"; fail=1; continue; }
	"$TC" summarize --json --top 1000000 "$f" >"$tmp/sum.json" || { echo "FAIL $f: summarize"; fail=1; continue; }
	python3 - "$f" "$tmp/py.json" "$tmp/info.json" "$tmp/sum.json" <<'PY' || fail=1
import json, sys
name, py, info, summ = sys.argv[1], *(json.load(open(p)) for p in sys.argv[2:])
bad = 0
want = {(l["plane"], l["id"], l["name"]): l["events"] for l in py["lines"]}
got = {}
for d in info["devices"]:
    for t in d["tracks"]:
        if t["kind"] == "counter":
            continue
        got[(d["name"], t["id"], t["name"])] = t["events"]
if want != got:
    bad = 1
    for k in sorted(set(want) | set(got), key=str):
        if want.get(k) != got.get(k):
            print("  line %r: python %s, tracectl %s" % (k, want.get(k), got.get(k)))
agg_py = sum(l["aggregated"] for l in py["lines"])
if agg_py != info["aggregates"]:
    bad = 1
    print("  aggregates: python %d, tracectl %d" % (agg_py, info["aggregates"]))
ops = {}
for o in summ["ops"]:
    ops[o["name"]] = ops.get(o["name"], 0) + o["total_ps"]
if summ["ops_scope"] == "device" and ops != py["device_ops"]:
    bad = 1
    for k in sorted(set(ops) | set(py["device_ops"])):
        if ops.get(k) != py["device_ops"].get(k):
            print("  op %r: python %s, tracectl %s" % (k, py["device_ops"].get(k), ops.get(k)))
if sum(want.values()) != info["events"]:
    bad = 1
    print("  events: python %d, tracectl %d" % (sum(want.values()), info["events"]))
print("%s %s: %d lines, %d events, %d device ops" % ("FAIL" if bad else "ok", name,
    len(want), sum(want.values()), len(ops)))
sys.exit(bad)
PY
done
[ $n -gt 0 ] || exit 77
exit $fail
