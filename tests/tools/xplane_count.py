#!/usr/bin/env python3
"""Independent XSpace (*.xplane.pb) decoder for cross-checking tracectl.

Pure Python, standard library only, and sharing no code with tracectl: it
walks the protobuf wire format itself and prints JSON with
  lines:  one entry per (plane, line id, line name) with timeline events
          and aggregated events (num_occurrences) counted apart;
  device_ops: total duration in integer picoseconds per op name, over the
          device-work lines (XLA Ops, Sparse Core Ops, Stream #...) of
          device planes. The op name is the event metadata name, cut to the
          instruction name for HLO text ("%name = ...") and before a
          TraceMe "#k=v#" suffix;
  allocators: per allocator_name of the MemoryAllocation and
          MemoryDeallocation events, their count and the largest
          bytes_allocated (the allocator's own total after each record),
          with the record's time and its peak_bytes_in_use there.

    python3 tests/tools/xplane_count.py FILE.xplane.pb
"""
import json
import struct
import sys


def varint(b, i):
    v = 0
    shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i
        if shift > 63:
            raise ValueError("varint too long at %d" % i)


def fields(b, i, end):
    """Yield (field number, wire type, value); LEN values are (start, end)."""
    while i < end:
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v = int.from_bytes(b[i:i + 8], "little")
            i += 8
        elif wt == 2:
            n, i = varint(b, i)
            v = (i, i + n)
            i += n
        elif wt == 5:
            v = int.from_bytes(b[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d at %d" % (wt, i))
        if i > end:
            raise ValueError("field runs past its message at %d" % i)
        yield num, wt, v


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def text(b, span):
    return bytes(b[span[0]:span[1]]).decode("utf-8", "replace")


def op_name(name):
    if name.startswith("%") and " = " in name:
        return name[1:name.index(" = ")]
    if len(name) >= 2 and name.endswith("#") and "#" in name[:-1]:
        return name[:name.index("#")]
    return name


def is_device_work_line(name):
    return name in ("XLA Ops", "Sparse Core Ops") or name.startswith("Stream #")


def map_entry(b, span):
    """An event or stat metadata map entry: (id, name)."""
    key, name = 0, ""
    for ef, ewt, ev in fields(b, span[0], span[1]):
        if ef == 1:
            key = s64(ev)
        elif ef == 2:
            for mf, mwt, mv in fields(b, ev[0], ev[1]):
                if mf == 2:
                    name = text(b, mv)
    return key, name


def stat_value(b, span, smeta):
    """An XStat as (name, value): numbers as int or float, a ref_value as
    the name it refers to."""
    sid, val = 0, None
    for f, wt, v in fields(b, span[0], span[1]):
        if f == 1:
            sid = s64(v)
        elif f == 2:
            val = struct.unpack("<d", v.to_bytes(8, "little"))[0]
        elif f in (3, 4):
            val = v if f == 3 else s64(v)
        elif f == 5:
            val = text(b, v)
        elif f == 7:
            val = smeta.get(s64(v), "")
    return smeta.get(sid, ""), val


def allocator_record(b, stats, smeta, ts_ps, allocators):
    """Fold one MemoryAllocation/Deallocation event into allocators."""
    st = dict(stat_value(b, sp, smeta) for sp in stats)
    name = st.get("allocator_name")
    if name is None:
        return
    a = allocators.setdefault(name, {"records": 0, "max_bytes_allocated": -1})
    a["records"] += 1
    total = st.get("bytes_allocated")
    if total is not None and total > a["max_bytes_allocated"]:
        a["max_bytes_allocated"] = int(total)
        a["at_ps"] = ts_ps
        a["peak_bytes_in_use_there"] = int(st.get("peak_bytes_in_use", -1))


def main():
    b = memoryview(open(sys.argv[1], "rb").read())
    lines = {}
    device_ops = {}
    allocators = {}
    for num, wt, v in fields(b, 0, len(b)):
        if num != 1:
            continue
        pname = ""
        plines = []
        meta = {}
        smeta = {}
        for pf, pwt, pv in fields(b, v[0], v[1]):
            if pf == 2:
                pname = text(b, pv)
            elif pf == 3:
                plines.append(pv)
            elif pf in (4, 5):
                key, name = map_entry(b, pv)
                (meta if pf == 4 else smeta)[key] = name
        if pname in ("Task Environment", "/host:metadata"):
            continue
        device_plane = not pname.startswith("/host:")
        for span in plines:
            lid, lname, dname, n, agg, line_ns = 0, "", "", 0, 0, 0
            events = []
            for lf, lwt, lv in fields(b, span[0], span[1]):
                if lf == 1:
                    lid = s64(lv)
                elif lf == 2:
                    lname = text(b, lv)
                elif lf == 11:
                    dname = text(b, lv)
                elif lf == 3:
                    line_ns = s64(lv)
                elif lf == 4:
                    mid, dur, is_agg, off, stats = 0, 0, False, 0, []
                    for ef, ewt, ev in fields(b, lv[0], lv[1]):
                        if ef == 1:
                            mid = s64(ev)
                        elif ef == 2:
                            is_agg = False
                            off = s64(ev)
                        elif ef == 3:
                            dur = s64(ev)
                        elif ef == 4:
                            stats.append(ev)
                        elif ef == 5:
                            is_agg = True
                    if meta.get(mid) in ("MemoryAllocation", "MemoryDeallocation"):
                        allocator_record(b, stats, smeta, line_ns * 1000 + off, allocators)
                    if is_agg:
                        agg += 1
                    else:
                        n += 1
                        events.append((mid, dur))
            if lname == "_counters_":
                continue
            key = (pname, lid, dname or lname)
            old = lines.get(key, (0, 0))
            lines[key] = (old[0] + n, old[1] + agg)
            if device_plane and is_device_work_line(lname):
                for mid, dur in events:
                    name = op_name(meta.get(mid, "(unknown event metadata)"))
                    device_ops[name] = device_ops.get(name, 0) + max(dur, 0)
    out = {
        "lines": [
            {"plane": k[0], "id": k[1], "name": k[2], "events": v[0], "aggregated": v[1]}
            for k, v in lines.items()
        ],
        "device_ops": device_ops,
        "allocators": allocators,
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
