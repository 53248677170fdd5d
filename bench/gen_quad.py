#!/usr/bin/env python3
"""Write a Chrome trace JSON that is big in one dimension, for complexity checks.

Usage: gen_quad.py DIMENSION N OUT.json [N OUT.json]...   (one file per pair)

DIMENSION is one of
  tracks    N "X" events, each on its own pid/tid pair (N devices, N tracks)
  tids      N "X" events on one pid, each on its own tid (one device, N tracks)
  args      one "X" event with N args
  flows     N launch/kernel pairs linked by "s"/"f" flow events
  counters  N counter series ("C" events with distinct names), 2 samples each
  samples   one counter series with N samples
  names     N "X" events with distinct names on one track
Deterministic; every event is valid, so the cost measured is the model's and
the analyses', not error handling.
"""
import sys


def main():
    if len(sys.argv) < 4 or len(sys.argv) % 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    for k in range(2, len(sys.argv), 2):
        write(sys.argv[1], int(sys.argv[k]), sys.argv[k + 1])


def write(dim, n, out):
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


if __name__ == "__main__":
    main()
