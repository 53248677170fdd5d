#!/usr/bin/env python3
"""Copy a protobuf file with fields set, to craft messages (digests):
    pb_set.py IN OUT PATH=VALUE...
PATH is field numbers joined by dots, as for pb_drop.py: "3.39" is field
39 of every message in field 3 of the top message. VALUE is an integer
(a varint; negative ones as 64-bit two's complement), "s:TEXT" (a string)
or "pad:N" (N zero bytes, length-delimited). The field's occurrences are
replaced by one with VALUE, appended at the end of each message."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pb_drop import drop, edit, enc  # noqa: E402


def field(num, value):
    if value.startswith("s:"):
        body = value[2:].encode()
        return enc(num << 3 | 2) + enc(len(body)) + body
    if value.startswith("pad:"):
        n = int(value[4:])
        return enc(num << 3 | 2) + enc(n) + bytes(n)
    return enc(num << 3) + enc(int(value) & (1 << 64) - 1)


def put(b, path, value):
    """b with field path[-1] set to value in the messages path[:-1] leads to."""
    return edit(b, path[:-1], lambda m: drop(m, path[-1:]) + field(path[-1], value))


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        data = f.read()
    for arg in sys.argv[3:]:
        path, value = arg.split("=", 1)
        data = put(data, [int(x) for x in path.split(".")], value)
    with open(dst, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
