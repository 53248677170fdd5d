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


def fields(b):
    """Each field of message b: (start, end, number, body), body the bytes
    of a length-delimited one (else None)."""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        body = None
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
        else:
            sys.exit(f"pb: wire type {wt} at byte {start}")
        yield start, i, num, body


def edit(b, path, last):
    """b with last(message) applied to each message path leads to."""
    if not path:
        return last(b)
    out = bytearray()
    for start, end, num, body in fields(b):
        if num == path[0] and body is not None:
            body = edit(body, path[1:], last)
            out += enc(num << 3 | 2) + enc(len(body)) + body
        else:
            out += b[start:end]
    return bytes(out)


def drop(b, path):
    def without(m):
        return b"".join(m[s:e] for s, e, num, _ in fields(m) if num != path[-1])
    return edit(b, path[:-1], without)


if __name__ == "__main__":
    src, dst, path = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(".")]
    with open(src, "rb") as f:
        data = f.read()
    with open(dst, "wb") as f:
        f.write(drop(data, path))
