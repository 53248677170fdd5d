#!/usr/bin/env python3
"""Copies of a one-rank tracectl digest as ranks 0..N-1, for merge timings.

Usage: digest_copies.py DIGEST OUTDIR N

Each copy is DIGEST with its rank's name ("rank I") and number (I)
rewritten on the wire (proto/digest.proto: Digest.ranks = 3, Rank.name = 1,
Rank.number = 2); nothing else changes. Writes OUTDIR/rankI.tcd.
"""
import os
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def enc(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


def fields(b):
    """(number, wire type, raw bytes of the whole field, payload) of each field."""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            _, i = varint(b, i)
            yield num, wt, b[start:i], None
        elif wt == 1:
            i += 8
            yield num, wt, b[start:i], None
        elif wt == 5:
            i += 4
            yield num, wt, b[start:i], None
        elif wt == 2:
            n, j = varint(b, i)
            i = j + n
            yield num, wt, b[start:i], b[j:i]
        else:
            raise ValueError("wire type %d" % wt)


def ld(num, payload):
    return enc(num << 3 | 2) + enc(len(payload)) + payload


def main():
    src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, "rb").read()
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        top = bytearray()
        for num, wt, raw, payload in fields(data):
            if num != 3:
                top += raw
                continue
            rank = bytearray()
            name = ("rank %d" % r).encode()
            rank += ld(1, name) + enc(2 << 3) + enc(r)
            for fnum, _, fraw, _ in fields(payload):
                if fnum not in (1, 2):
                    rank += fraw
            top += ld(3, bytes(rank))
        with open(os.path.join(out, "rank%d.tcd" % r), "wb") as f:
            f.write(top)


if __name__ == "__main__":
    main()
