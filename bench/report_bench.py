#!/usr/bin/env python3
"""`tracectl report` against `tracectl summarize` on one big trace.

Usage: report_bench.py [TRACECTL] [TRACE] [SIZE_MB]
       (build/src/tracectl, /tmp/tracectl-bench-kineto.json, 1024); RUNS (5)

Writes TRACE with gen_kineto.py when it is missing, reads it once to warm
the page cache, then runs summarize and report alternately RUNS times and
prints each one's least wall and least CPU (user + sys) time, peak RSS, the
ratios report / summarize and the page's size.
"""
import os
import subprocess
import sys
import time


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit("%s: status %d" % (" ".join(cmd), status))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    tc = sys.argv[1] if len(sys.argv) > 1 else "build/src/tracectl"
    trace = sys.argv[2] if len(sys.argv) > 2 else "/tmp/tracectl-bench-kineto.json"
    size = sys.argv[3] if len(sys.argv) > 3 else "1024"
    runs = int(os.environ.get("RUNS", "5"))
    if not os.path.exists(trace):
        subprocess.run([sys.executable, os.path.join(here, "gen_kineto.py"), trace, size], check=True)
    with open(trace, "rb") as f:
        while f.read(1 << 24):
            pass
    page = trace + ".report.html"
    cmds = {"summarize": [tc, "summarize", trace], "report": [tc, "report", "-o", page, trace]}
    best = {k: [float("inf"), float("inf"), 0.0] for k in cmds}
    for _ in range(runs):
        for k, cmd in cmds.items():
            wall, cpu, rss = run(cmd)
            b = best[k]
            b[0], b[1], b[2] = min(b[0], wall), min(b[1], cpu), max(b[2], rss)
    mb = os.path.getsize(trace) / 1e6
    print("trace %s: %.0f MB, %d runs each, least times" % (trace, mb, runs))
    for k, (wall, cpu, rss) in best.items():
        print("%-10s wall %6.2f s  cpu %6.2f s  %5.0f MB/s  peak RSS %5.0f MiB" % (k, wall, cpu, mb / wall, rss))
    s, r = best["summarize"], best["report"]
    print("report / summarize: wall %.2fx, cpu %.2fx" % (r[0] / s[0], r[1] / s[1]))
    print("page: %d bytes" % os.path.getsize(page))


if __name__ == "__main__":
    main()
