#!/usr/bin/env python3
"""`tracectl report` pages in a real browser (headless Debian chromium),
one launch per page: one trace of each format, a two-rank folder, a diff
and names that need escaping. Each page must render its sections with one
chart or table each (--dump-dom; the memory chart with the live-at-peak
table that sums to the peak where the trace has allocator records, under
a heading with the peak and beside the curve's peak dot; a diff's memory
rows; the
roofline's points the ops with FLOPs and bytes), log nothing to the console, run its
inline script without an error or a blocked fetch, load no resource, make
no request other than the file itself (--log-net-log), and give a
screenshot that is not blank. Skips (77) where chromium is missing or
cannot start."""
import concurrent.futures
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_html as rh  # noqa: E402

TIMEOUT = 120
# Background features would make requests of their own (updates, sync,
# spelling dictionaries); they are not the page's and are turned off.
QUIET = ["--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-default-apps", "--disable-extensions",
         "--disable-features=Translate,OptimizationHints,MediaRouter,SpellCheck"]


def chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def browse(exe, page, tmp, tag):
    """One launch: DOM on stdout, console in the log, net log, screenshot."""
    ud = os.path.join(tmp, "profile-" + tag)
    net = os.path.join(tmp, tag + ".netlog.json")
    png = os.path.join(tmp, tag + ".png")
    # --disable-dev-shm-usage: CI machines and containers often have a small /dev/shm.
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--user-data-dir=" + ud,
           "--enable-logging=stderr", "--v=1", "--log-net-log=" + net,
           "--screenshot=" + png, "--window-size=1280,2400", "--dump-dom"] + QUIET + \
        ["file://" + page]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "", net, png, "timed out after %d s" % TIMEOUT
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), net, png, None


def net_urls(path):
    """URLs of requests the page made: the browser's own (no initiating
    origin, not file:) are left out."""
    try:
        text = open(path).read()
    except OSError:
        return None
    try:
        log = json.loads(text)
    except ValueError:  # a log cut at exit lacks its closing brackets
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    urls = set()
    for e in log.get("events", []):
        p = e.get("params") or {}
        url = p.get("url")
        if not url:
            continue
        if url.startswith("file:") or p.get("initiator", "not an origin") != "not an origin":
            urls.add(url)
    return urls


def png_pixels(path):
    """(width, height, distinct colours, share of pixels unlike the first)
    of an 8-bit RGB or RGBA PNG, decoded with zlib."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w, h, ctype = 8, [], 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("PNG colour type %d depth %d" % (ctype, depth))
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    bpp = 4 if ctype == 6 else 3
    stride = w * bpp
    prev = bytearray(stride)
    colours, unlike, first = set(), 0, None
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        # Every 8th pixel of every 4th row is plenty to tell blank from drawn.
        if y % 4 == 0:
            for x in range(0, w, 8):
                px = bytes(line[x * bpp:x * bpp + 3])
                first = px if first is None else first
                colours.add(px)
                unlike += px != first
        prev = line
    return w, h, len(colours), unlike / max(1, ((h + 3) // 4) * ((w + 7) // 8))


def two_runs(doc):
    """A --diff page as rendered: two runs, each on its own time axis,
    their step bars in two panels, nothing named as a rank."""
    bad = []
    axes = {rh.inside(doc, i, "xaxis") for c, _, sec, i in doc.texts
            if sec == "utilization" and "xtick" in c.split()}
    if len(axes) != 2:
        bad.append("%d time axes in the utilisation chart, want one per run" % len(axes))
    runs = [t for c, t, sec, _ in doc.texts if sec == "steps" and "run" in c.split()]
    if [r.split(":")[0] for r in runs] != ["base", "test"]:
        bad.append("step panels %s, want base and test" % runs)
    text = " ".join(doc.text)
    if "rank 0" in text or "rank 1" in text or "(rank" in text:
        bad.append("the runs are drawn as ranks")
    return bad


def check(exe, tc, tmp, name, args):
    page = os.path.join(tmp, name + ".html")
    p = rh.run(tc, ["report", "-o", page] + args)
    if p.returncode != 0:
        return ["report exit %d: %s" % (p.returncode, p.stderr.decode().strip())], False
    dom, log, net, png, err = browse(exe, page, tmp, name)
    if err:
        return [err], False
    if "<html" not in dom:
        return ["no DOM from chromium: " + log.strip().splitlines()[-1:][0] if log.strip() else
                "no DOM from chromium"], not dom
    bad = []
    doc = rh.parse(dom)
    bad += rh.check_sections(doc, rh.expected_sections(tc, args, name == "ranks"))
    bad += rh.memory_holders(doc, tc, args)
    bad += rh.memory_diff(doc, tc, args)
    bad += rh.roofline(doc, tc, args)
    bad += rh.launchers(doc, tc, args)
    if "--diff" in args:
        bad += two_runs(doc)
    root = next((a for t, a in doc.elements if t == "html"), {})
    if root.get("data-rendered") != "1":
        bad.append("the page's script did not finish")
    if root.get("data-json") != "ok":
        bad.append("the embedded JSON did not parse in the page")
    for key in ("data-errors", "data-csp"):
        if root.get(key):
            bad.append("%s: %s" % (key, root[key]))
    if root.get("data-resources") != "0":
        bad.append("resources loaded: %s" % root.get("data-resources"))
    console = [line for line in log.splitlines() if ":CONSOLE" in line]
    bad += ["console: " + c for c in console]
    urls = net_urls(net)
    if urls is None:
        bad.append("no net log")
    else:
        bad += ["request: " + u for u in sorted(urls) if u != "file://" + page]
    try:
        size = os.path.getsize(png)
        w, h, ncol, unlike = png_pixels(png)
        if size < 10000 or (w, h) != (1280, 2400) or ncol < 8 or unlike < 0.01:
            bad.append("screenshot %d bytes %dx%d, %d colours, %.1f %% not background" %
                       (size, w, h, ncol, 100 * unlike))
    except (OSError, ValueError, zlib.error) as e:
        bad.append("screenshot: %s" % e)
    return bad, False


def main():
    src, build, tc = rh.env_paths()
    exe = chromium()
    if not exe:
        print("report_browser: SKIP (no chromium on PATH)")
        return rh.SKIP
    with rh.tempdir() as tmp:
        work = rh.cases(src, build, tmp)
        # Two browsers at a time: most of a launch is waiting.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            results = list(ex.map(lambda c: (c[0], check(exe, tc, tmp, c[0], c[1])), work))
        if all(cannot for _, (_, cannot) in results):
            print("report_browser: SKIP (chromium cannot start: %s)" % results[0][1][0][0])
            return rh.SKIP
    return rh.report("report_browser", [(name, bad) for name, (bad, _) in results])


if __name__ == "__main__":
    rh.main_guard(main)
