#!/usr/bin/env python3
"""Each step of an exported step range against the same step in the whole
trace: its device busy time and its end must be the same, or the export
cut off the step's device tail."""
import json
import sys

whole = {s["num"]: s for s in json.load(open(sys.argv[1]))["steps"]}
cut = json.load(open(sys.argv[2]))["steps"]
for s in cut:
    w = whole[s["num"]]
    ok = s["device_busy_ps"] == w["device_busy_ps"]
    print("step %d: device busy %d ps, whole trace %d ps: %s" % (
        s["num"], s["device_busy_ps"], w["device_busy_ps"],
        "complete" if ok else "partial"))
