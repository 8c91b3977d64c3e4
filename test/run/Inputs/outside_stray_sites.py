"""outside_stray.c: the stray-store counts of an AMBER_STATS_FILE against
the lines of SOURCE marked "stray xN" (N stores counted at that line).

usage: outside_stray_sites.py STATS.json SOURCE"""
import json
import os
import re
import sys

stats = json.load(open(sys.argv[1]))
src = sys.argv[2]
want = {}
for no, line in enumerate(open(src), 1):
    m = re.search(r"// stray x(\d+)", line)
    if m:
        want["%s:%d" % (os.path.basename(src), no)] = int(m.group(1))
print("stray_stores", stats["stray_stores"])
got = {}
for s in stats["stray_store_sites"]:
    got[os.path.basename(s["site"])] = s["count"]
for site, n in want.items():
    print(site, got.get(site), "ok" if got.get(site) == n else "MISMATCH (want %d)" % n)
ok = got == want and stats["stray_stores"] == sum(want.values()) and stats["stray_stores_unlisted"] == 0
print("sites", "ok" if ok else "MISMATCH: %r" % got)
