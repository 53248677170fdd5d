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


def drawn_peaks(bott):
    """The memory peaks a run draws: of the first 8 counters, those not
    flat at 0 (under 1 % of the run's highest peak)."""
    mem = [float(m["peak_bytes"]) for m in bott["memory"][:8]]
    top = max(mem, default=0)
    return [p for p in mem if p > 0 and p >= top / 100]


UNIT = re.compile(r"^-?\d+(\.\d+)? (ns|us|ms|s|B|KiB|MiB|GiB|TiB)$")


def texts(page, cls, section=None):
    return [(t, i) for c, t, sec, i in page.texts if cls in c.split() and section in (None, sec)]


def chart_rules(tc, page, runs):
    """The drawing rules of the charts (issue 54.10), runs being each
    run's inputs: ticks with units, numbered bars, a legend of drawn
    categories, hatched warm-up steps, time axes in s past 10 s, no flat
    memory series, small multiples past 4 devices."""
    bad = []
    el = page.elements
    # y axes: ticks with a unit, at least two per chart drawn.
    for sec in ("steps", "memory"):
        if sec not in page.sections:
            continue
        ticks = [t for t, _ in texts(page, "ytick", sec)]
        if len(ticks) < 2 or not all(UNIT.match(t) for t in ticks):
            bad.append("%s: y ticks %s, want two or more with units" % (sec, ticks[:6]))
    # Step numbers under the bars: a number is a drawn step's; with 20
    # bars or fewer every bar has one.
    bars = [a["data-step"] for a in attrs(page, cls="step")]
    nums = [t for t, _ in texts(page, "stepnum", "steps")]
    if bars and (not nums or not set(nums) <= set(bars) or nums[0] != bars[0]):
        bad.append("step numbers %s for bars %s" % (nums[:8], bars[:8]))
    if bars and len(bars) <= 20 and sorted(nums) != sorted(bars):
        bad.append("step numbers %s, want one per bar %s" % (nums, bars))
    # Legend: every category drawn in a bar, and no other.
    drawn = set()
    hatched = set()
    for i, (t, a) in enumerate(el):
        g = rh.inside(page, i, "step") if t == "rect" else None
        if g is None:
            continue
        if a.get("fill") == "url(#hatch)":
            hatched.add(g)
        for c in a.get("class", "").split():
            drawn.add(int(c[1:]))
    names = {}
    for i, (t, a) in enumerate(el):
        g = rh.inside(page, i, "legend") if t == "rect" else None
        if g is not None:
            names[el[g][1]["data-cat"]] = int(a["class"][1:])
    # c11 (idle's grey) is also a bar without attribution.
    if not drawn - {11} <= set(names.values()) <= drawn:
        bad.append("legend %s, categories drawn %s" % (sorted(names.values()), sorted(drawn)))
    leg = {a["data-cat"] for a in attrs(page, cls="legend")}
    if set(names) != leg:
        bad.append("legend entries %s without a swatch" % sorted(leg - set(names)))
    # Warm-up and partial steps hatched, never faded.
    warm = [i for i, (t, a) in enumerate(el) if t == "g" and "warm" in a.get("class", "").split()]
    if set(warm) != hatched:
        bad.append("%d warm-up/partial bars, %d hatched" % (len(warm), len(hatched)))
    if any(".warm" in s_ for s_ in page.styles) or any(
            page.where[i][0] == "steps" and ("opacity" in a or "fill-opacity" in a)
            for i, (t, a) in enumerate(el)):
        bad.append("faded step bars")
    # Time axes: one per run and chart, ticks in s past a 10 s span.
    spans = [json.loads(tc_json(tc, ["summarize", "--json"] + r))["span_ps"] for r in runs]
    for sec in ("utilization", "memory"):
        axes = {}
        for t, i in texts(page, "xtick", sec):
            axes.setdefault(rh.inside(page, i, "xaxis"), []).append(t)
        if sec == "utilization" and len(axes) != len(runs):
            bad.append("%d time axes for %d runs" % (len(axes), len(runs)))
        for k, ticks in enumerate(axes.values()):
            span = spans[min(k, len(spans) - 1)] if sec == "utilization" else max(spans)
            secs = [t.endswith(" s") for t in ticks]
            if not all(UNIT.match(t) for t in ticks) or (sec == "utilization" and
                                                          any(secs) != (span > 10e12)):
                bad.append("%s: time ticks %s for a span of %d ps" % (sec, ticks[:5], span))
    # Memory: no flat series; small multiples past 4 devices.
    multiples = len(attrs(page, cls="multiple"))
    want = 0
    for r in runs:
        bott = json.loads(tc_json(tc, ["bottlenecks", "--json"] + r))
        peaks = drawn_peaks(bott)
        devs = {m["device"] for m in bott["memory"][:8] if float(m["peak_bytes"]) in peaks}
        want += len(devs) if len(devs) > 4 else 0
    if multiples != want:
        bad.append("%d small multiples, want %d" % (multiples, want))
    if any(float(a["data-peak-bytes"]) <= 0 for a in attrs(page, cls="counter")):
        bad.append("a memory series flat at 0")
    return bad


def spot_checks(tc, page, inputs, single):
    bad = []
    summ = json.loads(tc_json(tc, ["summarize", "--json"] + inputs))
    bott = json.loads(tc_json(tc, ["bottlenecks", "--json"] + inputs))
    ops = json.loads(tc_json(tc, ["ops", "--json", "--top", "15"] + inputs))
    text = " ".join(page.text)
    # Legend: category totals over the counted steps, zero ones left out
    # (chart_rules checks that a zero one is drawn in a warm-up bar).
    leg = {a["data-cat"]: int(a["data-ps"]) for a in attrs(page, cls="legend")}
    want = {k: v for k, v in summ["step_breakdown"]["breakdown_ps"].items() if v or k in leg}
    if leg != want:
        bad.append("legend %s != summarize breakdown_ps %s" % (leg, want))
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
    if peaks != drawn_peaks(bott):
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


def diff_checks(tc, page, inputs):
    """report --diff BASE TEST: two runs, each on its own clock, compared
    with diff's figures; no run taken for a rank."""
    bad = []
    d = json.loads(tc_json(tc, ["diff", "--json"] + inputs))
    summ = [json.loads(tc_json(tc, ["summarize", "--json", i])) for i in inputs]
    bott = [json.loads(tc_json(tc, ["bottlenecks", "--json", i])) for i in inputs]
    steps = [json.loads(tc_json(tc, ["steps", "--json", i])) for i in inputs]
    if not any(re.search(r"td\.n[^{]*\{[^}]*white-space:nowrap", s_) for s_ in page.styles):
        bad.append("the diff table's numbers may wrap")
    text = " ".join(page.text)
    if re.search(r"\brank [0-9]", text):
        bad.append("a run named as a rank")
    span = [int(a["data-ps"]) for a in attrs(page, tag="span", key="data-ps")][:2]
    if span != [s["span_ps"] for s in summ]:
        bad.append("header spans %s != each run's span_ps %s" % (span, [s["span_ps"] for s in summ]))
    runs = [t for t, _ in texts(page, "run", "steps")]
    if len(runs) != 2 or not runs[0].startswith("base: ") or not runs[1].startswith("test: "):
        bad.append("step bar panels %s, want base and test" % runs)
    got = [int(a["data-ps"]) for a in attrs(page, cls="step")]
    want = [s["dur_ps"] for r in steps for s in r["steps"]]
    if got != want:
        bad.append("step bars %s != each run's steps %s" % (got[:5], want[:5]))
    busy = [int(a["data-busy-ps"]) for a in attrs(page, cls="device")]
    if busy != [x["busy_ps"] for b in bott for x in b["devices"][:32]]:
        bad.append("device busy %s != each run's bottlenecks" % busy)
    peaks = [float(a["data-peak-bytes"]) for a in attrs(page, cls="counter")]
    if peaks != [p for b in bott for p in drawn_peaks(b)]:
        bad.append("memory peaks %s != each run's bottlenecks" % peaks)
    # Attribution: diff's rows, per step, those not zero on both sides.
    got = [(a["data-cat"], int(a["data-base-ps"]), int(a["data-test-ps"]))
           for a in attrs(page, cls="delta")]
    want = [(r["category"], r["per_step_ps"]["base"], r["per_step_ps"]["test"])
            for r in d["attribution"] if r["per_step_ps"]["base"] or r["per_step_ps"]["test"]]
    if got != want:
        bad.append("attribution %s != diff %s" % (got[:3], want[:3]))
    got = [(int(a["data-base-ps"]), int(a["data-test-ps"])) for a in attrs(page, cls="opdiff")]
    want = [(r["time_per_step_ps"]["base"], r["time_per_step_ps"]["test"]) for r in d["ops"][:15]]
    if got != want:
        bad.append("op rows %s != diff ops %s" % (got[:3], want[:3]))
    got = [(a["data-kind"], a["data-change"]) for a in attrs(page, cls="finding-change")]
    want = [(f["kind"], f["change"]) for f in d["findings"]]
    if got != want:
        bad.append("findings %s != diff %s" % (got, want))
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
    bad += rh.roofline(page, tc, args)
    bad += rh.launchers(page, tc, args)
    bad += ["outside reference: " + r for r in rh.outside_refs(page)]
    diff = "--diff" in args
    # With --diff each run is embedded as summarize prints it alone.
    runs = [[i] for i in inputs] if diff else [inputs]
    for block, run in zip(("tracectl-data", "tracectl-test"), runs):
        embedded = page.json.get(block)
        want = tc_json(tc, ["summarize", "--json"] + run).decode("utf-8")
        if embedded is None:
            bad.append("no %s block" % block)
        elif rh.unescape_json(embedded) != want:
            bad.append("embedded %s differs from summarize --json" % block)
        elif json.loads(embedded) != json.loads(want):
            bad.append("embedded %s parses differently from summarize --json" % block)
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
    bad += rh.memory_holders(page, tc, args)
    bad += rh.memory_diff(page, tc, args)
    if diff:
        bad += diff_checks(tc, page, inputs)
    else:
        bad += spot_checks(tc, page, inputs, single=not multi)
    bad += chart_rules(tc, page, runs)
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
