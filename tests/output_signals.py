#!/usr/bin/env python3
"""A real `tracectl export` interrupted while its output is open leaves no
temporary file, and the old output survives:
  - SIGINT, SIGTERM and SIGHUP while it waits on its input (a FIFO), each
    ending the process by that signal;
  - malformed input (exit 3);
  - running out of memory under an address-space limit (exit 5).
The argument picks the part: "signals" (the first two; exit 77, a skip,
when the platform has no FIFOs), "oom" (the last; exit 77 when the build
cannot start under the limit, as sanitizer builds cannot), none: both."""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

TC = os.environ["TC_BIN"]
failures = []


def leftovers(d):
    return [p for p in os.listdir(d) if ".tmp." in p]


def wait_for_tmp(d, p, secs=20):
    end = time.time() + secs
    while time.time() < end:
        if leftovers(d):
            return True
        if p.poll() is not None:
            return False
        time.sleep(0.01)
    return False


def check_after(d, what, out):
    with open(out) as f:
        if f.read() != "old\n":
            failures.append(f"{what}: the old output was changed")
    if leftovers(d):
        failures.append(f"{what}: left {leftovers(d)}")


def signal_case(sig):
    with tempfile.TemporaryDirectory() as d:
        out, fifo = os.path.join(d, "out.json"), os.path.join(d, "in.fifo")
        with open(out, "w") as f:
            f.write("old\n")
        os.mkfifo(fifo)
        # The signal at its default in the child: a runner started under
        # nohup (or as a background job) passes SIGHUP (SIGINT) on ignored,
        # and tracectl leaves an ignored signal ignored.
        p = subprocess.Popen([TC, "export", "--chrome", fifo, "-o", out],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
        if not wait_for_tmp(d, p):
            p.kill()
            p.wait()
            failures.append(f"{sig.name}: no temporary output appeared")
            return
        p.send_signal(sig)
        try:
            rc = p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            failures.append(f"{sig.name}: the process did not end")
            return
        if rc != -sig:
            failures.append(f"{sig.name}: ended with {rc}, want killed by the signal")
        check_after(d, sig.name, out)


def malformed_case():
    with tempfile.TemporaryDirectory() as d:
        out, fifo = os.path.join(d, "out.json"), os.path.join(d, "in.fifo")
        with open(out, "w") as f:
            f.write("old\n")
        os.mkfifo(fifo)
        p = subprocess.Popen([TC, "export", "--chrome", fifo, "-o", out],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not wait_for_tmp(d, p):
            failures.append("malformed: no temporary output appeared")
        with open(fifo, "w") as f:
            f.write('{"traceEvents":[{"ph":"X","name":')
        rc = p.wait(20)
        if rc != 3:
            failures.append(f"malformed: exit {rc}, want 3")
        check_after(d, "malformed", out)


def oom_case():
    limit = 128 << 20

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    probe = subprocess.run([TC, "--version"], preexec_fn=cap, capture_output=True)
    if probe.returncode != 0:
        print("output_signals: SKIP out of memory "
              "(this build does not start under an address-space limit)")
        return False
    with tempfile.TemporaryDirectory() as d:
        out, big = os.path.join(d, "out.json"), os.path.join(d, "big.json")
        with open(out, "w") as f:
            f.write("old\n")
        # One string arg of 160 MiB: reading it must fail for memory.
        with open(big, "w") as f:
            f.write('{"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":1,'
                    '"args":{"a":"')
            chunk = "x" * (1 << 20)
            for _ in range(160):
                f.write(chunk)
            f.write('"}}]}')
        r = subprocess.run([TC, "export", "--chrome", "--threads", "1", "--max-string", "1G",
                            big, "-o", out], preexec_fn=cap, capture_output=True, text=True)
        if r.returncode != 5:
            failures.append(f"out of memory: exit {r.returncode}, want 5 ({r.stderr.strip()})")
        os.unlink(big)
        check_after(d, "out of memory", out)
    return True


PART = sys.argv[1] if len(sys.argv) > 1 else None
if PART not in (None, "signals", "oom"):
    sys.exit(f"output_signals: unknown part {PART!r} (use signals or oom)")
ran = 0
if PART != "oom":
    if hasattr(os, "mkfifo"):
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal_case(s)
        malformed_case()
        ran += 1
    else:
        print("output_signals: SKIP signals (no FIFOs here)")
if PART != "signals":
    ran += oom_case()
for f in failures:
    print("FAIL", f)
print(f"output_signals: {'ok' if not failures else 'failed'}")
sys.exit(1 if failures else 0 if ran else 77)
