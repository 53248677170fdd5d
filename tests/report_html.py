"""Reading `tracectl report` pages for the tests (report_check.py,
report_browser.py): sections with their charts and tables, the embedded
JSON, attributes of marked elements, and references that would leave the
file."""
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77

# Sections every page has, and those that depend on the input.
ALWAYS = ["header", "findings", "steps", "utilization", "ops", "transfers"]
CHARTS = {"steps", "attribution", "utilization", "ops", "roofline", "memory", "ranks"}  # one <svg> each; others one <table>


def env_paths():
    src = os.environ.get("TC_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.environ.get("TC_BUILD_ROOT") or os.path.join(src, "build")
    tc = os.environ.get("TC_BIN") or os.path.join(build, "src", "tracectl")
    return src, build, tc


class Page(html.parser.HTMLParser):
    """Sections (id -> counts of svg/table inside), the JSON script blocks,
    every element's attributes, style and script text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = {}
        self.order = []
        self.stack = []          # open section ids
        self.json = {}           # script id -> raw text
        self.elements = []       # (tag, attrs dict)
        self.styles = []
        self.scripts = []
        self._script = None
        self._style = False
        self.text = []
        self.where = []          # per element: (section id, index of its innermost <g>)
        self.gs = []             # open <g> elements' indices
        self.texts = []          # <text> elements: (class, text, section id, index)
        self._text = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.where.append((self.stack[-1] if self.stack else None, self.gs[-1] if self.gs else None))
        self.elements.append((tag, a))
        if tag == "g":
            self.gs.append(len(self.elements) - 1)
        elif tag == "text":
            self._text = [a.get("class", ""), [], self.where[-1][0], len(self.elements) - 1]
        if tag == "section":
            sid = a.get("id", "")
            self.sections[sid] = {"svg": 0, "table": 0}
            self.order.append(sid)
            self.stack.append(sid)
        elif tag in ("svg", "table") and self.stack:
            self.sections[self.stack[-1]][tag] += 1
        elif tag == "script":
            self._script = (a.get("type"), a.get("id"), [])
        elif tag == "style":
            self._style = True

    def handle_endtag(self, tag):
        if tag == "g" and self.gs:
            self.gs.pop()
        elif tag == "text" and self._text:
            self.texts.append((self._text[0], "".join(self._text[1]), self._text[2], self._text[3]))
            self._text = None
        if tag == "section" and self.stack:
            self.stack.pop()
        elif tag == "script" and self._script:
            typ, sid, parts = self._script
            text = "".join(parts)
            if typ == "application/json":
                self.json[sid] = text
            else:
                self.scripts.append(text)
            self._script = None
        elif tag == "style":
            self._style = False

    def handle_data(self, data):
        if self._script:
            self._script[2].append(data)
        elif self._style:
            self.styles.append(data)
        else:
            self.text.append(data)
            if self._text:
                self._text[1].append(data)


def parse(text):
    p = Page()
    p.feed(text)
    p.close()
    return p


def inside(page, i, cls):
    """The <g> of class cls that element i is in, or None."""
    g = page.where[i][1]
    while g is not None:
        if cls in page.elements[g][1].get("class", "").split():
            return g
        g = page.where[g][1]
    return None


def unescape_json(raw):
    """The embedded JSON as the command printed it: the writer escapes
    '</' as '<\\/' and '<!--' as '\\u003c!--'."""
    return raw.replace("<\\/", "</").replace("\\u003c!--", "<!--")


def outside_refs(page):
    """References that would make a browser fetch something: attributes
    naming a URL, src/href attributes, url() and @import in styles, URLs
    in the inline scripts."""
    bad = []
    url = re.compile(r"(https?:|//|ftp:|file:)", re.I)
    for tag, attrs in page.elements:
        for k, v in attrs.items():
            if k in ("src", "href", "srcset", "action", "poster", "xlink:href", "background"):
                bad.append("%s %s=%r" % (tag, k, v))
            elif v and url.search(v) and not (tag == "meta" and k == "content" and "default-src" in v):
                bad.append("%s %s=%r" % (tag, k, v))
    for s in page.styles:
        if re.search(r"url\(|@import", s, re.I):
            bad.append("style: " + s[:80])
    for s in page.scripts:
        if url.search(s) or re.search(r"fetch\(|XMLHttpRequest|import\(", s):
            bad.append("script: " + s[:80])
    return bad


def check_sections(page, want):
    """Every section in want present, no other, each with exactly one
    chart (svg) or one table, per its kind; the memory chart with the
    live-at-peak table under it where the trace has allocator records
    (class mem-holders, one per run). Returns a list of problems."""
    bad = []
    if page.order != [s for s in page.order if s in want] or set(page.order) != set(want):
        bad.append("sections %s, want %s" % (page.order, sorted(want)))
    holders = {}
    for i, (t, a) in enumerate(page.elements):
        if t == "table" and "mem-holders" in a.get("class", "").split():
            holders[page.where[i][0]] = holders.get(page.where[i][0], 0) + 1
    for sid, n in page.sections.items():
        kind = "svg" if sid in CHARTS else "table"
        other = "table" if kind == "svg" else "svg"
        extra = holders.get(sid, 0) if sid == "memory" else 0
        if extra > 2:
            bad.append("section memory has %d live-at-peak tables" % extra)
        if n[kind] != 1 or n[other] != extra:
            bad.append("section %s has %d svg and %d table, want one %s" % (sid, n["svg"], n["table"], kind))
    return bad


def memory_holders(page, tc, args):
    """A page of a trace with allocator records has, for each run, the
    live-at-peak table of its largest peak ('tracectl memory --json' of
    that run), whose rows sum to that peak, under a heading marked with
    the peak's bytes and time; where the trace's own total is that peak,
    the memory curve's peak dot of that counter is drawn."""
    inputs = [a for a in args if not a.startswith("--")]
    runs = [[i] for i in inputs] if "--diff" in args else [inputs]
    tops = []
    for r in runs:
        p = run(tc, ["memory", "--json"] + r)
        if p.returncode != 0:
            return ["memory exit %d" % p.returncode]
        doc = json.loads(p.stdout)
        if doc["records"]:
            tops.append(max(doc["allocators"], key=lambda a: a["peak_bytes"]))
    tables, heads = [], []
    for i, (t, a) in enumerate(page.elements):
        if page.where[i][0] != "memory":
            continue
        if t == "table" and "mem-holders" in a.get("class", "").split():
            tables.append([])
        elif t == "td" and "data-live-bytes" in a and tables:
            tables[-1].append(int(a["data-live-bytes"]))
        elif t == "h3" and "mem-peak" in a.get("class", "").split():
            heads.append((int(a["data-peak-bytes"]), int(a["data-peak-ps"])))
    if len(tables) != len(tops) or not all(tables):
        return ["%d live-at-peak tables in the memory section, want %d" % (len(tables), len(tops))]
    bad = []
    for top, rows in zip(tops, tables):
        if len(top["live_at_peak"]) <= 20 and sum(rows) != top["peak_bytes"]:
            bad.append("live-at-peak rows sum to %d, peak %d" % (sum(rows), top["peak_bytes"]))
    if heads != [(t["peak_bytes"], t["peak_ps"]) for t in tops]:
        bad.append("live-at-peak headings %s, want the peaks %s" %
                   (heads, [(t["peak_bytes"], t["peak_ps"]) for t in tops]))
    for top in tops:
        if top["trace_total_at_peak"] != top["peak_bytes"]:
            continue
        dots = [i for i, (t, a) in enumerate(page.elements) if t == "circle" and
                page.where[i][0] == "memory" and inside(page, i, "counter") is not None and
                float(page.elements[inside(page, i, "counter")][1]["data-peak-bytes"]) ==
                top["peak_bytes"]]
        if not dots:
            bad.append("no peak dot of %d bytes on the memory curve" % top["peak_bytes"])
    return bad


def memory_diff(page, tc, args):
    """A --diff page's diff table has diff's memory rows: each allocator's
    peak, then the ops whose bytes held at the peak changed, in its order
    (top 20), each with its change in bytes."""
    if "--diff" not in args:
        return []
    p = run(tc, ["diff", "--json"] + [a for a in args if not a.startswith("--")])
    if p.returncode != 0:
        return ["diff exit %d" % p.returncode]
    d = json.loads(p.stdout)
    want = [(r["allocator"], (r["peak_bytes"]["test"] or 0) - (r["peak_bytes"]["base"] or 0))
            for r in d["memory_peaks"]]
    want += [("%s: %s" % (r["device"], r["name"]), r["held_at_peak_bytes"]["change"])
             for r in d["memory_ops"] if r["held_at_peak_bytes"]["change"]][:20]
    got, cells = [], []
    for i, (t, a) in enumerate(page.elements):
        if page.where[i][0] != "diff":
            continue
        if t == "tr":
            cells = [] if "mem" in a.get("class", "").split() else None
        elif t == "td" and cells is not None and "data-bytes" in a:
            got.append(int(a["data-bytes"]))
    names = [r for r, _ in want]
    if got != [c for _, c in want]:
        return ["diff table memory rows %s != diff's %s" % (got, want)]
    text = " ".join(page.text)
    return ["diff table has no row %r" % n for n in names if n not in text]


def run(tc, args, cwd=None):
    return subprocess.run([tc] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def hostile_trace(folder):
    """A small Kineto-style trace whose names need escaping: markup,
    quotes, a script end and an HTML comment opener."""
    name = "</script><img src=x onerror=alert(1)> & \"q\" 'a' <!-- x"
    ev = [
        {"ph": "X", "name": "ProfilerStep#1", "cat": "user_annotation", "pid": 1, "tid": 1,
         "ts": 0, "dur": 100},
        {"ph": "X", "name": name, "cat": "kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 50,
         "args": {"stream": 7, "device": 0}},
        {"ph": "X", "name": "gemm <b>", "cat": "kernel", "pid": 0, "tid": 7, "ts": 61, "dur": 20,
         "args": {"stream": 7, "device": 0}},
    ]
    path = os.path.join(folder, "hostile <&>.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    return path


def many_devices_trace(folder):
    """A Kineto-style trace of 6 GPUs with a memory counter each, 4 steps
    over 12 s: memory in small multiples, time axes in seconds."""
    ev = []
    for step in range(4):
        t0 = step * 3000000
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % (step + 1), "cat": "user_annotation",
                   "pid": 100, "tid": 1, "ts": t0, "dur": 3000000})
        for d in range(6):
            ev.append({"ph": "X", "name": "gemm_kernel_%d" % (d % 2), "cat": "kernel", "pid": d,
                       "tid": 7, "ts": t0 + 1000 + d * 1000, "dur": 2000000 - d * 100000,
                       "args": {"stream": 7, "device": d}})
            for k in range(3):
                ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 100, "tid": 1,
                           "ts": t0 + k * 1000000 + d,
                           "args": {"Device Type": 1, "Device Id": d,
                                    "Total Allocated": (d + 1) * (k + 1) * 2 ** 28}})
    path = os.path.join(folder, "six_gpus.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    return path


def cases(src, build, tmp):
    """(name, report arguments, extra sections) for one trace of each
    format, a two-rank folder, a diff and names that need escaping."""
    ranks = os.path.join(tmp, "ddp")
    os.makedirs(ranks, exist_ok=True)
    for r in (0, 1):
        f = "torch_ddp_rank%d.kineto.json.gz" % r
        dst = os.path.join(ranks, f)
        if not os.path.exists(dst):
            with open(os.path.join(src, "fixtures", "real", f), "rb") as a, open(dst, "wb") as b:
                b.write(a.read())
    fj = os.path.join(src, "fixtures", "json")
    return [
        ("xplane", [os.path.join(build, "fixtures", "sample.xplane.pb")]),
        ("tpu", [os.path.join(build, "fixtures", "xplane-tpu.xplane.pb")]),
        ("perfetto", [os.path.join(build, "fixtures", "perfetto", "gpu.pb")]),
        ("kineto", [os.path.join(src, "fixtures", "real", "torch_mlp.kineto.json.gz")]),
        ("ranks", [ranks]),
        ("diff", ["--diff", os.path.join(fj, "diff_base.json"), os.path.join(fj, "diff_test.json")]),
        ("diff-memory", ["--diff", os.path.join(fj, "memory_stable.json"),
                         os.path.join(fj, "memory_grown.json")]),
        ("hostile", [hostile_trace(tmp)]),
        ("warmup", [os.path.join(src, "fixtures", "real", "jax_host.xplane.pb.gz")]),
        ("devices", [many_devices_trace(tmp)]),
        ("kineto-shapes", [os.path.join(fj, "rocm_shapes.json")]),
    ] + real_diff() + real_shapes()


def shared_traces():
    return os.environ.get("TC_TRACES") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "traces")


def real_shapes():
    """An H100 Kineto trace with shapes (TraceLens's) where ../shared is
    present: the launcher rows' roofline and table."""
    path = os.path.join(shared_traces(), "json", "tracelens", "h100-bert-small.json.gz")
    return [("kineto-shapes-real", [path])] if os.path.exists(path) else []


def real_diff():
    """The diff of two real runs (HTA's trace_diff pair) where ../shared
    is present: two clocks 69,000 s apart."""
    traces = shared_traces()
    pair = [os.path.join(traces, "json", "hta", "trace_diff__%s__%s.json.gz" % (k, k))
            for k in ("control", "test")]
    if not all(os.path.exists(p) for p in pair):
        return []
    return [("diff-real", ["--diff"] + pair)]


def expected_sections(tc, args, multi_rank):
    """The sections a report of args should have: memory when the trace has
    memory counters (bottlenecks' memory list), ranks with several files,
    diff with --diff."""
    want = set(ALWAYS)
    inputs = [a for a in args if not a.startswith("--")]
    if "--diff" in args:
        want |= {"diff", "attribution"}
    # With --diff each run is read alone; a counter that stays at 0 is not drawn.
    for run_inputs in ([[i] for i in inputs] if "--diff" in args else [inputs]):
        p = run(tc, ["bottlenecks", "--json"] + run_inputs)
        if p.returncode == 0 and any(m["peak_bytes"] > 0 for m in json.loads(p.stdout)["memory"][:8]):
            want.add("memory")
    if multi_rank and "--diff" not in args:
        want.add("ranks")
    if "--diff" not in args and roof_rows(tc, inputs)[0]:
        want.add("roofline")
    if "--diff" not in args and any(
            r.get("peak_fraction") is not None for r in launcher_rows(tc, inputs)[0]):
        want.add("launchers")
    return want


def launcher_rows(tc, inputs):
    """`ops --by launcher --json` rows and the whole answer; ([], None)
    where it fails (digests, folders of ranks)."""
    p = run(tc, ["ops", "--by", "launcher", "--json", "--top", "0"] + inputs)
    if p.returncode != 0:
        return [], None
    d = json.loads(p.stdout)
    return d["rows"], d


def roof_rows(tc, inputs):
    """The `ops --json` rows a roofline draws (FLOPs, bytes and FLOP/s
    known) where the peaks are known, and the peaks; ([], None) else."""
    p = run(tc, ["ops", "--json", "--top", "0"] + inputs)
    if p.returncode != 0:
        return [], None
    d = json.loads(p.stdout)
    rows = [r for r in d["rows"] if (r.get("flops") or 0) > 0 and (r.get("bytes_accessed") or 0) > 0
            and (r.get("flops_per_s") or 0) > 0]
    if not rows:
        # No op carries costs (Kineto): the launcher rows' from shapes.
        lrows, d = launcher_rows(tc, inputs)
        rows = [r for r in lrows if (r.get("flops") or 0) > 0 and (r.get("bytes") or 0) > 0
                and (r.get("flops_per_s") or 0) > 0 and (r.get("kernel_ps") or 0) > 0]
    if not d or not d.get("peak_source"):
        return [], None
    return rows, d


def roofline(page, tc, args):
    """A one-run page's roofline: one point per op with FLOPs and bytes,
    at its FLOP/s and FLOP/B, inside the plot, under the device's peaks
    (`ops --json`). Returns a list of problems."""
    if "--diff" in args:
        return []
    rows, d = roof_rows(tc, [a for a in args if not a.startswith("--")])
    pts = [a for t, a in page.elements if t == "circle" and "roof-op" in a.get("class", "").split()]
    roofs = [a for t, a in page.elements if t == "polyline" and a.get("class") == "roof"]
    if not rows:
        return ["roofline drawn without ops with FLOPs and bytes"] if pts or roofs else []
    bad = []
    got = sorted((float(a["data-flops-per-s"]), float(a["data-flops-per-byte"])) for a in pts)
    want = sorted((float(r["flops_per_s"]), float(r["flops_per_byte"])) for r in rows)
    if len(got) != len(want) or any(abs(g[0] - w[0]) > 1e-9 * w[0] or abs(g[1] - w[1]) > 1e-9 * w[1]
                                    for g, w in zip(got, want)):
        bad.append("roofline points %s != ops rows %s" % (got[:3], want[:3]))
    if len(roofs) != 1 or float(roofs[0]["data-peak-flops"]) != float(d["peak_flops_per_s"]) or \
            float(roofs[0]["data-peak-bw"]) != float(d["peak_bytes_per_s"]):
        bad.append("roofline roofs %s != ops peaks" % [dict(r) for r in roofs])
    for a in pts:
        if not (0 <= float(a["cx"]) <= 1200 and 0 <= float(a["cy"]) <= 360):
            bad.append("roofline point outside the plot: %s" % a.get("cx") + "," + a.get("cy"))
    return bad


def launchers(page, tc, args, top=15):
    """A one-run page's launcher table: its rows the top `ops --by launcher
    --json` rows, with their efficiency. Returns a list of problems."""
    if "--diff" in args:
        return []
    got = [a for t, a in page.elements if t == "tr" and "data-peak-fraction" in a]
    rows, _ = launcher_rows(tc, [a for a in args if not a.startswith("--")])
    if not any(r.get("peak_fraction") is not None for r in rows):
        return ["launcher table drawn without an efficiency"] if got else []
    want = [(r["kernel_ps"], -1 if r.get("peak_fraction") is None else r["peak_fraction"])
            for r in rows[:top]]
    have = [(int(a["data-ps"]), float(a["data-peak-fraction"])) for a in got]
    if len(have) != len(want) or any(h[0] != w[0] or abs(h[1] - w[1]) > 1e-12 * max(1, abs(w[1]))
                                     for h, w in zip(have, want)):
        return ["launcher rows %s != ops --by launcher %s" % (have[:3], want[:3])]
    return []


def report(prog, results):
    """Print one line per case and its problems; the exit status."""
    failed = 0
    for name, bad in results:
        print("%s: %s %s" % (prog, name, "ok" if not bad else "FAIL"))
        for b in bad:
            print("  " + b)
        failed += bool(bad)
    return 1 if failed else 0


def main_guard(fn):
    try:
        sys.exit(fn())
    except KeyboardInterrupt:
        sys.exit(1)


def tempdir():
    return tempfile.TemporaryDirectory(prefix="tc-report-")
