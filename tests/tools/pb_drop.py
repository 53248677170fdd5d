#!/usr/bin/env python3
"""Copy a protobuf file without one field, to make a message that misses it:
    pb_drop.py IN OUT PATH
PATH is field numbers joined by dots: "3.30" drops field 30 of every
message in field 3 of the top message. Leading bytes that are not a
message (none in a digest) are not handled."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xplane_count import varint  # noqa: E402  (the tools' one varint reader)


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


def drop(b, path):
    out, i = bytearray(), 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            _, i = varint(b, i)
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        elif wt == 2:
            n, j = varint(b, i)
            body = b[j:j + n]
            i = j + n
            if num == path[0] and len(path) > 1:
                body = drop(body, path[1:])
                out += enc(key) + enc(len(body)) + body
                continue
        else:
            sys.exit(f"pb_drop: wire type {wt} at byte {start}")
        if not (num == path[0] and len(path) == 1):
            out += b[start:i]
    return bytes(out)


src, dst, path = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(".")]
with open(src, "rb") as f:
    data = f.read()
with open(dst, "wb") as f:
    f.write(drop(data, path))
