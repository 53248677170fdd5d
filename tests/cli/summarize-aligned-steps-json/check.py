#!/usr/bin/env python3
"""summarize --json and steps --json give each step the same start_ps and
dur_ps: the step aligned to its device work, not the marker's own."""
import json
import sys

summ = json.load(open(sys.argv[1]))
steps = {s["num"]: s for s in json.load(open(sys.argv[2]))["steps"]}
print(summ["schema"])
for s in summ["steps"]:
    t = steps[s["num"]]
    for k in ("start_ps", "dur_ps"):
        print("step %d %s %d: %s" % (s["num"], k, s[k],
              "same in steps --json" if s[k] == t[k] else "steps --json has %d" % t[k]))
