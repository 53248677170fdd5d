#!/usr/bin/env python3
"""Write a trace that is big in one dimension, for complexity checks.

Usage: gen_quad.py DIMENSION N OUT [N OUT]...   (one file per pair)

DIMENSION is one of (Chrome trace JSON, OUT.json)
  tracks    N "X" events, each on its own pid/tid pair (N devices, N tracks)
  tids      N "X" events on one pid, each on its own tid (one device, N tracks)
  devices   N kernels, each on a GPU of its own (pid and args.device; N devices)
  args      one "X" event with N args
  flows     N launch/kernel pairs linked by "s"/"f" flow events
  counters  N counter series ("C" events with distinct names), 2 samples each
  samples   one counter series with N samples
  names     N "X" events with distinct names on one track
or (xplane, OUT.xplane.pb; Perfetto, OUT.pftrace)
  planes    N /device:GPU:n planes, one stream line of one event each
  lines     one GPU plane with N stream lines of one event each
  depth     a Perfetto process track under which N tracks nest, each the
            parent of the next, with one slice on each
Deterministic; every event is valid, so the cost measured is the model's and
the analyses', not error handling.
"""
import sys

from gen_perfetto import fl, fv  # protobuf by hand: varint and length-delimited fields


def main():
    if len(sys.argv) < 4 or len(sys.argv) % 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    for k in range(2, len(sys.argv), 2):
        write(sys.argv[1], int(sys.argv[k]), sys.argv[k + 1])


def write(dim, n, out):
    if dim in BINARY:
        with open(out, "wb") as f:
            f.write(BINARY[dim](n))
        return
    with open(out, "w") as f:
        w = f.write
        w('{"traceEvents": [\n')
        w('{"ph": "X", "name": "first", "pid": 1, "tid": 1, "ts": 0, "dur": 1}')
        if dim == "tracks":
            for i in range(n):
                w(',\n{"ph": "X", "name": "op", "pid": %d, "tid": %d, "ts": %d, "dur": 2}'
                  % (i + 2, i + 2, i))
        elif dim == "tids":
            for i in range(n):
                w(',\n{"ph": "X", "name": "op", "pid": 1, "tid": %d, "ts": %d, "dur": 2}'
                  % (i + 2, i))
        elif dim == "devices":
            for i in range(n):
                w(',\n{"ph": "X", "cat": "kernel", "name": "k", "pid": %d, "tid": 7, "ts": %d, '
                  '"dur": 2, "args": {"device": %d, "stream": 7}}' % (i + 2, i, i))
        elif dim == "args":
            w(',\n{"ph": "X", "name": "big", "pid": 1, "tid": 1, "ts": 2, "dur": 5, "args": {')
            w(", ".join('"k%d": %d' % (i, i) for i in range(n)))
            w('}}')
        elif dim == "flows":
            for i in range(n):
                ts = 10 * i + 2
                w(',\n{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, '
                  '"tid": 1, "ts": %d, "dur": 3, "args": {"correlation": %d}}' % (ts, i + 1))
                w(',\n{"ph": "s", "cat": "ac2g", "name": "ac2g", "id": %d, "pid": 1, "tid": 1, '
                  '"ts": %d}' % (i + 1, ts))
                w(',\n{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, '
                  '"dur": 4, "args": {"correlation": %d, "stream": 7, "device": 0}}' % (ts + 4, i + 1))
                w(',\n{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": %d, "pid": 0, "tid": 7, '
                  '"ts": %d, "bp": "e"}' % (i + 1, ts + 4))
        elif dim == "counters":
            for i in range(n):
                w(',\n{"ph": "C", "name": "c%d", "pid": 1, "tid": 1, "ts": %d, "args": {"v": %d}}'
                  % (i, i, i))
                w(',\n{"ph": "C", "name": "c%d", "pid": 1, "tid": 1, "ts": %d, "args": {"v": %d}}'
                  % (i, i + 1, i + 1))
        elif dim == "samples":
            for i in range(n):
                w(',\n{"ph": "C", "name": "mem", "pid": 1, "tid": 1, "ts": %d, "args": {"v": %d}}'
                  % (i, i % 1000))
        elif dim == "names":
            for i in range(n):
                w(',\n{"ph": "X", "name": "op%d", "pid": 1, "tid": 1, "ts": %d, "dur": 1}'
                  % (i, 2 * i + 2))
        else:
            sys.stderr.write("gen_quad.py: unknown dimension %s\n" % dim)
            sys.exit(2)
        w('\n]}\n')


# XSpace.planes 1; XPlane id 1, name 2, lines 3, event_metadata 4 (map:
# key 1, value 2); XLine id 1, name 2, timestamp_ns 3, events 4; XEvent
# metadata_id 1, offset_ps 2, duration_ps 3; XEventMetadata id 1, name 2.
def xline(lid, name, ts_ns, dur_ps):
    ev = fv(1, 1) + fv(2, 0) + fv(3, dur_ps)
    return fl(3, fv(1, lid) + fl(2, name) + fv(3, ts_ns) + fl(4, ev))


def xplane(pid, name, lines):
    meta = fl(4, fv(1, 1) + fl(2, fv(1, 1) + fl(2, b"kernel")))
    return fl(1, fv(1, pid) + fl(2, name) + lines + meta)


def gen_planes(n):
    return b"".join(xplane(i + 1, b"/device:GPU:%d" % i, xline(1, b"Stream #1", 1000 + i, 5000))
                    for i in range(n))


def gen_lines(n):
    return xplane(1, b"/device:GPU:0", b"".join(
        xline(i + 1, b"Stream #%d" % (i + 1), 1000 + i, 5000) for i in range(n)))


# TracePacket timestamp 8, trusted_packet_sequence_id 10, track_event 11
# (type 9, track_uuid 11, name 23), track_descriptor 60 (uuid 1, name 2,
# process 3 (pid 1), parent_uuid 5).
def gen_depth(n):
    out = [fl(1, fv(10, 1) + fl(60, fv(1, 1) + fl(3, fv(1, 1))))]
    for i in range(n):
        uuid = i + 2
        out.append(fl(1, fv(10, 1) + fl(60, fv(1, uuid) + fv(5, uuid - 1) + fl(2, b"t%d" % i))))
    for i in range(n):
        ts = 1000 + 10 * i
        for typ, t in ((1, ts), (2, ts + 5)):
            out.append(fl(1, fv(8, t) + fv(10, 1) + fl(11, fv(9, typ) + fv(11, i + 2) +
                                                     fl(23, b"op"))))
    return b"".join(out)


BINARY = {"planes": gen_planes, "lines": gen_lines, "depth": gen_depth}


if __name__ == "__main__":
    main()
