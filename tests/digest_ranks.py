#!/usr/bin/env python3
"""Write N rank files from one Kineto trace, for digest tests.

Usage: digest_ranks.py TRACE.json[.gz] OUTDIR N

Rank i is a copy of TRACE with distributedInfo.rank = i and every time
stretched by 1 + i/20 around the first timestamp, so each rank has its own
step time. Deterministic; writes OUTDIR/rank{i}.kineto.json.
"""
import gzip
import json
import os
import sys


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        trace = json.load(f)
    events = trace.get("traceEvents", [])
    t0 = min((e["ts"] for e in events if isinstance(e.get("ts"), (int, float))), default=0)
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        k = 1 + i / 20
        evs = []
        for e in events:
            e = dict(e)
            if isinstance(e.get("ts"), (int, float)):
                e["ts"] = round(t0 + (e["ts"] - t0) * k, 3)
            if isinstance(e.get("dur"), (int, float)):
                e["dur"] = round(e["dur"] * k, 3)
            evs.append(e)
        t = dict(trace)
        t["traceEvents"] = evs
        info = dict(t.get("distributedInfo") or {})
        info["rank"] = i
        info["world_size"] = n
        t["distributedInfo"] = info
        with open(os.path.join(out, "rank%d.kineto.json" % i), "w") as f:
            json.dump(t, f)


if __name__ == "__main__":
    main()
