#!/usr/bin/env python3
"""Copies of a one-rank tracectl digest as ranks 0..N-1, for merge timings.

Usage: digest_copies.py DIGEST OUTDIR N

Each copy is DIGEST with its rank's name ("rank I") and number (I) set by
appending the two fields to the rank message (proto/digest.proto:
Digest.ranks = 3, Rank.name = 1, Rank.number = 2): the last occurrence of a
field wins, and tracectl merge writes the canonical form. The wire walk is
tests/tools/xplane_count.py's. Writes OUTDIR/rankI.tcd.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tools"))
from xplane_count import fields  # noqa: E402


def enc(v):
    """Base-128 varint, low groups first."""
    groups = [(v >> s) & 0x7F for s in range(0, max(v.bit_length(), 1), 7)]
    return bytes([g | 0x80 for g in groups[:-1]] + groups[-1:])


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, "rb").read()
    ranks = [v for num, wt, v in fields(data, 0, len(data)) if num == 3]
    if len(ranks) != 1:
        sys.exit("digest_copies: %s holds %d ranks, not 1" % (src, len(ranks)))
    start, end = ranks[0]
    head = data[:start - len(enc(end - start)) - 1]  # up to the rank's key
    tail = data[end:]
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        name = ("rank %d" % r).encode()
        rank = data[start:end] + bytes([1 << 3 | 2]) + enc(len(name)) + name + bytes([2 << 3]) + enc(r)
        with open(os.path.join(out, "rank%d.tcd" % r), "wb") as f:
            f.write(head + bytes([3 << 3 | 2]) + enc(len(rank)) + rank + tail)


if __name__ == "__main__":
    main()
