#!/usr/bin/env python3
"""`tracectl report` without a browser: on one trace of each format, a
two-rank folder, a diff and names that need escaping, the page has its
sections with one chart or table each, references nothing outside the
file, embeds exactly what `summarize --json` (and `diff --json`) print,
and its marked figures equal the JSON outputs of summarize, ops, steps and
bottlenecks."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_html as rh  # noqa: E402

MAX_BYTES = 2 * 1024 * 1024


def attrs(page, cls=None, tag=None, key=None):
    out = []
    for t, a in page.elements:
        if (tag is None or t == tag) and (cls is None or cls in a.get("class", "").split()) and \
                (key is None or key in a):
            out.append(a)
    return out


def tc_json(tc, args):
    p = rh.run(tc, args)
    if p.returncode != 0:
        raise RuntimeError("tracectl %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
    return p.stdout


def spot_checks(tc, page, inputs, single):
    bad = []
    summ = json.loads(tc_json(tc, ["summarize", "--json"] + inputs))
    bott = json.loads(tc_json(tc, ["bottlenecks", "--json"] + inputs))
    ops = json.loads(tc_json(tc, ["ops", "--json", "--top", "15"] + inputs))
    text = " ".join(page.text)
    # Legend: category totals over the counted steps.
    leg = {a["data-cat"]: int(a["data-ps"]) for a in attrs(page, cls="legend")}
    if leg != summ["step_breakdown"]["breakdown_ps"]:
        bad.append("legend %s != summarize breakdown_ps %s" % (leg, summ["step_breakdown"]["breakdown_ps"]))
    # Span in the header.
    span = [int(a["data-ps"]) for a in attrs(page, tag="span", key="data-ps")]
    if not span or span[0] != summ["span_ps"]:
        bad.append("header span %s != summarize span_ps %s" % (span[:1], summ["span_ps"]))
    # Top ops: the rows of `ops` in order, and their time shown.
    got = [(int(a["data-ps"]), int(a["data-count"])) for a in attrs(page, cls="op")]
    want = [(r["total_ps"], r["count"]) for r in ops["rows"]][:15]
    if got != want:
        bad.append("op bars %s != ops rows %s" % (got[:3], want[:3]))
    for ps, _ in want:
        if "%.3f ms" % (ps / 1e9) not in text:
            bad.append("op time %.3f ms not shown" % (ps / 1e9))
    # Findings: bottlenecks' list (severity low and up) in order.
    kinds = [a["data-kind"] for a in attrs(page, cls="finding")]
    if kinds != [f["kind"] for f in bott["findings"]]:
        bad.append("findings %s != bottlenecks %s" % (kinds, [f["kind"] for f in bott["findings"]]))
    # Device strips: each device's busy time (the bins split it).
    busy = [int(a["data-busy-ps"]) for a in attrs(page, cls="device")]
    if busy != [d["busy_ps"] for d in bott["devices"]][:32]:
        bad.append("device busy %s != bottlenecks %s" % (busy, [d["busy_ps"] for d in bott["devices"]]))
    # Memory peaks.
    peaks = [float(a["data-peak-bytes"]) for a in attrs(page, cls="counter")]
    if peaks != [float(m["peak_bytes"]) for m in bott["memory"]][:8]:
        bad.append("memory peaks %s != bottlenecks %s" % (peaks, bott["memory"][:8]))
    # Transfers over the whole trace: the first row's bytes.
    xb = [float(a["data-bytes"]) for a in attrs(page, tag="td", key="data-bytes")][:3]
    want_x = [float(bott["transfers"][d]["bytes"]) for d in ("h2d", "d2h", "d2d")]
    if xb != want_x:
        bad.append("transfer bytes %s != bottlenecks %s" % (xb, want_x))
    if single:
        steps = json.loads(tc_json(tc, ["steps", "--json"] + inputs))
        got = [int(a["data-ps"]) for a in attrs(page, cls="step")]
        want = [s["dur_ps"] for s in steps["steps"]][:len(got)]
        if not got and steps["steps"] or got != want:
            bad.append("step bars %s != steps %s" % (got[:5], want[:5]))
    return bad


def check_case(tc, tmp, name, args):
    bad = []
    out = os.path.join(tmp, name + ".html")
    p = rh.run(tc, ["report", "-o", out] + args)
    if p.returncode != 0:
        return ["report exit %d: %s" % (p.returncode, p.stderr.decode().strip())]
    raw = open(out, "rb").read()
    if len(raw) > MAX_BYTES:
        bad.append("%d bytes, over %d" % (len(raw), MAX_BYTES))
    stdout = rh.run(tc, ["report", "-o", "-"] + args).stdout
    if stdout != raw:
        bad.append("-o - and -o FILE differ")
    page = rh.parse(raw.decode("utf-8"))
    inputs = [a for a in args if not a.startswith("--")]
    multi = name == "ranks"
    bad += rh.check_sections(page, rh.expected_sections(tc, args, multi))
    bad += ["outside reference: " + r for r in rh.outside_refs(page)]
    embedded = page.json.get("tracectl-data")
    want = tc_json(tc, ["summarize", "--json"] + inputs).decode("utf-8")
    if embedded is None:
        bad.append("no tracectl-data block")
    elif rh.unescape_json(embedded) != want:
        bad.append("embedded JSON differs from summarize --json")
    elif json.loads(embedded) != json.loads(want):
        bad.append("embedded JSON parses differently from summarize --json")
    if "--diff" in args:
        want = tc_json(tc, ["diff", "--json"] + inputs).decode("utf-8")
        got = page.json.get("tracectl-diff")
        if got is None or rh.unescape_json(got) != want or json.loads(got) != json.loads(want):
            bad.append("embedded diff JSON differs from diff --json")
    if name == "hostile":
        if any(t == "img" for t, _ in page.elements):
            bad.append("a name became an <img> element")
        if re.search(rb"</script><img", raw):
            bad.append("a name ended the JSON block")
        if "</script><img src=x onerror=alert(1)> & \"q\" 'a' <!-- x" not in " ".join(page.text):
            bad.append("the escaped name does not read back")
    bad += spot_checks(tc, page, inputs, single=not multi and "--diff" not in args)
    return bad


def main():
    src, build, tc = rh.env_paths()
    if not os.access(tc, os.X_OK):
        print("report_check: SKIP (no tracectl binary at %s)" % tc)
        return rh.SKIP
    with rh.tempdir() as tmp:
        results = [(name, check_case(tc, tmp, name, args)) for name, args in rh.cases(src, build, tmp)]
    return rh.report("report_check", results)

if __name__ == "__main__":
    rh.main_guard(main)
