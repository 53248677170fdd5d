#!/usr/bin/env python3
"""`tracectl check --junit FILE`: the file parses as XML (xml.etree), holds
one testcase per metric and one <failure> per violated limit, with the
suite's counts matching; names with XML markup characters stay exact and
names no XML can hold (invalid UTF-8, non-characters, controls) still make
a file that parses. The JSON and text outputs agree on the verdicts."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TC = os.environ["TC_BIN"]
SRC = os.environ["TC_SOURCE_ROOT"]
TRACE = os.path.join(SRC, "fixtures", "json", "jax_iters_24.json")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(args, junit):
    r = subprocess.run([TC, "check", "--step-marker", "^train_iter$", "--junit", junit]
                       + args + [TRACE], capture_output=True, text=True)
    return r


with tempfile.TemporaryDirectory() as tmp:
    junit = os.path.join(tmp, "check.xml")
    # Two limits fail (24 copies and ~80 KB per iteration), three hold.
    limits = ["--max", "h2d.count_per_step=5", "--max", "h2d.bytes_per_step=16KiB",
              "--max", "step.mean=150ms", "--min", "device.busy=10%",
              "--max", "op:MemcpyH2D.calls_per_step=30"]
    r = run(limits, junit)
    check(r.returncode == 1, f"exit {r.returncode}, want 1: {r.stderr}")
    violations = [l for l in r.stderr.splitlines() if l.startswith("tracectl: violation: ")]
    check(len(violations) == 2, f"stderr violation lines: {violations}")
    root = ET.parse(junit).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    check(len(suites) == 1, f"{len(suites)} testsuites")
    cases = suites[0].findall("testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    check(len(cases) == 5, f"{len(cases)} testcases, want 5")
    check(len(fails) == 2, f"{len(fails)} failures, want 2")
    check(suites[0].get("tests") == "5" and suites[0].get("failures") == "2",
          f"suite counts {suites[0].attrib}")
    check(root.get("tests") == "5" and root.get("failures") == "2",
          f"root counts {root.attrib}")
    names = [c.get("name") for c in cases]
    check(names == ["h2d.count_per_step", "h2d.bytes_per_step", "step.mean", "device.busy",
                    "op:MemcpyH2D.calls_per_step"], f"names {names}")
    check(sorted(c.get("name") for c in fails) == ["h2d.bytes_per_step", "h2d.count_per_step"],
          "failed testcases")
    msg = fails[0].find("failure").get("message")
    check("h2d.count_per_step" in msg and "24" in msg and "<= 5" in msg, f"message {msg!r}")

    # The same limits as JSON: the verdicts match the JUnit file.
    r = subprocess.run([TC, "check", "--json", "--step-marker", "^train_iter$"] + limits
                       + [TRACE], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    check(doc["schema"] == "tracectl.check/1", "schema")
    check(doc["violations"] == 2 and doc["ok"] is False, "json violations")
    verdicts = {m["metric"]: m["verdict"] for m in doc["metrics"]}
    check(verdicts == {"h2d.count_per_step": "fail", "h2d.bytes_per_step": "fail",
                       "step.mean": "pass", "device.busy": "pass",
                       "op:MemcpyH2D.calls_per_step": "pass"},
          f"json verdicts {verdicts}")

    # Passing limits: every testcase passes.
    os.unlink(junit)
    r = run(["--max", "h2d.count_per_step=30", "--max", "step.p90=20ms"], junit)
    check(r.returncode == 0, f"passing run exit {r.returncode}: {r.stderr}")
    root = ET.parse(junit).getroot()
    cases = root.iter("testcase")
    check(sum(1 for c in cases if c.find("failure") is not None) == 0, "passing run failures")
    check(sorted(os.listdir(tmp)) == ["check.xml"], f"stray files: {os.listdir(tmp)}")

    # No limits: one passing testcase per catalogue metric measured.
    r = run([], junit)
    check(r.returncode == 0, f"no-limit run exit {r.returncode}")
    n = sum(1 for _ in ET.parse(junit).getroot().iter("testcase"))
    check(n >= 30, f"no-limit run: {n} testcases")

# Hostile names make well-formed XML: invalid UTF-8 in a rank's file name
# (lead bytes 0xF5-0xFF, overlong forms, a surrogate, a sequence cut short,
# beyond U+10FFFF) and XML non-characters and controls in op names all
# come out as U+FFFD.
HOSTILE_FILES = [b"\xff", b"\xf5\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xc0\xaf",
                 b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80",
                 b"\xef\xbf\xbe", b"\xef\xbf\xbf", b"\x01\x1b[1m\x7f", b"]]>&<\"'"]
HOSTILE_OPS = ["\ufffe", "\uffff", "\x01\x08", "\x1b[31m", "\x7f", "]]>", "\\\"'<&"]
with tempfile.TemporaryDirectory() as tmp:
    ev = [{"ph": "X", "pid": 1, "tid": 1, "ts": i * 10, "dur": 5, "name": "op" + n}
          for i, n in enumerate(HOSTILE_OPS)]
    trace = json.dumps({"traceEvents": ev}).encode()
    plain = os.path.join(tmp, "plain.json").encode()
    with open(plain, "wb") as f:
        f.write(trace)
    limits = []
    for n in HOSTILE_OPS:
        limits += ["--max", "op:op" + n + ".calls_per_step=0"]
    for i, name in enumerate(HOSTILE_FILES):
        # The hostile rank first: it is the worst of two equal ranks.
        hostile = os.path.join(tmp.encode(), b"r%d" % i + name + b".json")
        with open(hostile, "wb") as f:
            f.write(trace)
        junit = os.path.join(tmp, "hostile.xml")
        r = subprocess.run([TC, "check", "--junit", junit] + limits + [hostile, plain],
                           capture_output=True)
        check(r.returncode == 1, f"hostile {name!r}: exit {r.returncode} {r.stderr!r}")
        try:
            root = ET.parse(junit).getroot()
        except (ET.ParseError, OSError) as e:
            check(False, f"hostile {name!r}: {e}")
            continue
        cases = list(root.iter("testcase"))
        check(len(cases) == len(HOSTILE_OPS), f"hostile {name!r}: {len(cases)} testcases")
        msg = cases[0].find("failure").get("message")
        check(("r%d" % i) in msg and "\ufffd" in msg, f"hostile {name!r}: message {msg!r}")
        # Markup characters are escaped, not replaced: the name comes back.
        check(cases[-1].get("name") == "op:op" + HOSTILE_OPS[-1] + ".calls_per_step",
              f"hostile {name!r}: name {cases[-1].get('name')!r}")
        os.unlink(hostile)

for f in failures:
    print("FAIL", f)
print(f"check_junit: {'ok' if not failures else str(len(failures)) + ' failed'}")
sys.exit(1 if failures else 0)
