#!/usr/bin/env python3
"""Multi-rank analysis on generated jobs (bench/gen_ranks.py): the injected
slow rank and step are the ones the straggler finding names, for 8 and 64
ranks, as Kineto JSON and as xplane, with and without clock skew between
hosts; a healthy job names no straggler; a missing rank is warned about by
number. Skips (77) without protoc, which the xplane files need."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
GEN = os.path.join(SRC, "bench", "gen_ranks.py")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def gen(out, *args):
    subprocess.run([sys.executable, GEN, out] + [str(a) for a in args], check=True)


def bottlenecks(folder):
    r = subprocess.run([TC, "bottlenecks", "--json", folder], capture_output=True, text=True)
    check(r.returncode == 0, "%s: exit %d: %s" % (folder, r.returncode, r.stderr))
    return json.loads(r.stdout) if r.returncode == 0 else None, r.stderr


def disjoint(doc, what):
    """The findings on one device of one rank explain at most its step time,
    and the straggler's wait is not counted again as communication."""
    step = {(a["device"], a.get("rank")): a["step_time_ps"] for a in doc.get("attribution", [])}
    total = {}
    for f in doc.get("findings", []):
        key = (f["device"], f.get("rank"))
        total[key] = total.get(key, 0) + f["explained_ps"]
    check(step, "%s: no attribution" % what)
    for key, ps in total.items():
        # Every finding names an attributed device: a key that matched
        # none would pass the sum unchecked.
        check(key in step and ps <= step[key],
              "%s: findings on %s explain %d ps of %s" % (what, key, ps, step.get(key)))
    kinds = [f["kind"] for f in doc.get("findings", [])]
    if "straggler" in kinds and "communication" in kinds:
        st = doc["findings"][kinds.index("straggler")]
        check(st["explained_ps"] > 0, "%s: straggler explains no time" % what)


def stragglers(doc):
    return [f for f in (doc or {}).get("findings", []) if f["kind"] == "straggler"]


def main():
    if not shutil.which("protoc"):
        print("SKIP: protoc is not installed (the xplane job is encoded with it)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        cases = [(8, 5, 3), (64, 41, 2)]
        for fmt in ("kineto", "xplane"):
            for n, rank, step in cases:
                for skew in (0, 20):
                    d = os.path.join(tmp, "%s-%d-%d" % (fmt, n, skew))
                    gen(d, "--format", fmt, "--ranks", n, "--steps", 5, "--slow-rank", rank,
                        "--slow-step", step, "--skew-ms", skew)
                    doc, _ = bottlenecks(d)
                    what = "%s, %d ranks, skew %d ms" % (fmt, n, skew)
                    s = stragglers(doc)
                    check(len(s) == 1, "%s: %d straggler findings" % (what, len(s)))
                    disjoint(doc or {}, what)
                    if s:
                        t = s[0]["text"]
                        check(t.startswith("rank %d arrives last" % rank),
                              "%s: straggler is not rank %d: %s" % (what, rank, t))
                        check(" in step %d;" % step in t or " in steps %d," % step in t,
                              "%s: straggler step is not %d: %s" % (what, step, t))
                    r = subprocess.run([TC, "summarize", "--json", d], capture_output=True,
                                       text=True)
                    sj = json.loads(r.stdout)
                    ranks = sj.get("ranks", [])
                    check([x["rank"] for x in ranks] == list(range(n)),
                          "%s: ranks array is not 0..%d" % (what, n - 1))
                    top = sj.get("collectives", {}).get("top_by_skew", [])
                    if fmt == "kineto":
                        # NCCL's all-reduce bus factor over n ranks; 4 Mi floats.
                        ok = top and all(abs(c["busbw_bytes_per_s"] / c["algbw_bytes_per_s"]
                                             - 2.0 * (n - 1) / n) < 1e-9 for c in top)
                        check(ok and top[0]["bytes"] in (16 << 20, 8 << 20),
                              "%s: algbw/busbw/bytes wrong: %s" % (what, top[:1]))
                        check(top and top[0]["last_rank"] == rank and top[0]["step"] == step,
                              "%s: largest skew not at rank %d step %d" % (what, rank, step))
                    devs = sj.get("devices", [])
                    check(sorted(x["rank"] for x in devs) == list(range(n)),
                          "%s: devices do not carry ranks 0..%d" % (what, n - 1))
        # A sampled job: no Seq, and rank 0 lost its first collective, so
        # occurrences do not match; paired by their ends, the straggler
        # is still rank 5 in step 3.
        d = os.path.join(tmp, "sampled")
        gen(d, "--ranks", 8, "--steps", 5, "--slow-rank", 5, "--slow-step", 3, "--skew-ms", 20)
        for n in sorted(os.listdir(d)):
            with open(os.path.join(d, n)) as f:
                doc = json.load(f)
            first = True
            evs = []
            for e in doc["traceEvents"]:
                if "Seq" in e.get("args", {}):
                    del e["args"]["Seq"]
                    if first and n.startswith("rank_0."):
                        first = False
                        continue
                evs.append(e)
            doc["traceEvents"] = evs
            with open(os.path.join(d, n), "w") as f:
                json.dump(doc, f)
        r = subprocess.run([TC, "summarize", "--json", d], capture_output=True, text=True)
        coll = json.loads(r.stdout).get("collectives", {}) if r.returncode == 0 else {}
        check(coll.get("matched_by") == "end" and coll.get("lined_up"),
              "sampled job: not paired by end: %s" % {k: coll.get(k) for k in
                                                      ("matched_by", "lined_up")})
        doc, _ = bottlenecks(d)
        s = stragglers(doc)
        check(len(s) == 1 and s[0]["text"].startswith("rank 5 arrives last") and
              " in step 3" in s[0]["text"], "sampled job: straggler is not rank 5 step 3: %s" % s)
        disjoint(doc or {}, "sampled job")
        d = os.path.join(tmp, "healthy")
        gen(d, "--ranks", 8, "--steps", 5, "--skew-ms", 20)
        doc, _ = bottlenecks(d)
        check(not stragglers(doc), "healthy job: straggler named: %s" % stragglers(doc))
        d = os.path.join(tmp, "missing")
        gen(d, "--ranks", 8, "--steps", 5, "--missing-rank", 3, "--slow-rank", 6,
            "--slow-step", 2)
        doc, _ = bottlenecks(d)
        r = subprocess.run([TC, "summarize", "--json", d], capture_output=True, text=True)
        warn = [w["message"] for w in json.loads(r.stdout).get("warnings", [])]
        check(any("world_size is 8 but 7 ranks were read: missing rank 3;" in w for w in warn),
              "missing rank: no warning naming rank 3: %r" % warn)
        s = stragglers(doc)
        check(len(s) == 1 and s[0]["text"].startswith("rank 6 arrives last"),
              "missing rank: straggler is not rank 6: %s" % s)
    for f in failures:
        print("FAIL " + f)
    print("ranks: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
