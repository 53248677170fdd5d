#!/usr/bin/env python3
"""Reduce `tracectl diff --json` to HTA's ops diff of trace_compare: the
host ops of the compared step, by status (HTA assigns GPU events to an
iteration through their host launches, which these files do not carry)."""
import json
import sys

d = json.load(sys.stdin)
by = {}
for op in d["ops"]:
    if op["scope"] == "host":
        by.setdefault(op["status"], []).append(op["name"])
for status in ("added", "removed", "same", "changed"):
    print("%s: %s" % (status, ", ".join(sorted(by.get(status, [])))))
