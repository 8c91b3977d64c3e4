#!/usr/bin/env python3
"""durability_table.py AMBER HEAP GUIDE: docs/guide.md's table of what each
failure keeps (section 8: medium, AMBER_PM, backend, process crash, power
loss) is what the program prints.  Every (medium, AMBER_PM) pair appears
exactly once, and for each row `amber info --json HEAP`, run with
AMBER_PM_MEDIUM=medium and AMBER_PM=value, reports that backend and those
words.  The sentence about AMBER_PM=sim quotes the program too."""
import json
import os
import re
import subprocess
import sys

amber, heap, guide_path = sys.argv[1:4]
guide = open(guide_path).read()
MEDIA = ("memory", "file", "dax", "dax-autoflush")
PMS = ("auto", "pmem", "fence", "msync", "none")
row_re = re.compile(r"^\| `([a-z-]+)` \| `([a-z]+)` \| `([a-z]+)` \| ([^|]+?) \| ([^|]+?) \|$", re.M)
bad, seen = [], {}


def info(medium, pm):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
    env.update(AMBER_PM_MEDIUM=medium, AMBER_PM=pm)
    r = subprocess.run([amber, "info", "--json", heap], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit("durability_table: amber info failed (AMBER_PM_MEDIUM=%s AMBER_PM=%s): %s" % (medium, pm, r.stderr))
    return json.loads(r.stdout)


for medium, pm, backend, crash, power in row_re.findall(guide):
    if (medium, pm) in seen:
        bad.append("row %s / %s appears twice" % (medium, pm))
    seen[(medium, pm)] = 1
    got = info(medium, pm)
    want = {"medium": medium, "pm": backend, "process_crash": crash, "power_loss": power}
    for k, v in want.items():
        if got[k] != v:
            bad.append("row %s / AMBER_PM=%s: %s is '%s' in the guide, the program says '%s'" % (medium, pm, k, v, got[k]))
for medium in MEDIA:
    for pm in PMS:
        if (medium, pm) not in seen:
            bad.append("no row for medium %s with AMBER_PM=%s" % (medium, pm))
sim = info("file", "sim")["power_loss"]
if "`power loss: %s`" % sim.replace(" ", "\n") not in guide and "power loss: %s" % sim not in re.sub(r"\s+", " ", guide):
    bad.append("the guide does not quote AMBER_PM=sim's words: power loss: %s" % sim)
if bad:
    sys.exit("durability_table: docs/guide.md disagrees with amber info:\n  " + "\n  ".join(bad))
print("durability table: %d rows match amber info" % len(seen))
