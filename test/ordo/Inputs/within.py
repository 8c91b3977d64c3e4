"""within.py QUIET.json PREFIX N: every PREFIX.I.json (amber ordo HEAP --json)
holds a confirmed boundary within the documented bound of the quiet
measurement QUIET.json (amber ordo --json): at most the quiet boundary plus
the clean round-trip limit (docs/ordo.md, "Disturbed measurements"), and at
least an eighth of the quiet boundary."""
import json
import sys

quiet = json.load(open(sys.argv[1]))
prefix, n = sys.argv[2], int(sys.argv[3])
if quiet["clock"] != "tsc":
    print("within: logical clock, no boundary to measure")
    sys.exit(0)
bound = quiet["boundary_cycles"] + quiet["clean_rtt_cycles"]
got = [json.load(open("%s.%d.json" % (prefix, i))) for i in range(n)]
values = [g["boundary_cycles"] for g in got]
print("quiet %d cycles, bound %d, stored %s" % (quiet["boundary_cycles"], bound, values))
# Below: a value far under the quiet one had no sample (the old code stored
# 1 then, which is unsound: timestamps it calls ordered may not be).
low = max(1, quiet["boundary_cycles"] // 8)
bad = [g for g in got if g["provisional"] or g["boundary_cycles"] > bound or g["boundary_cycles"] < low]
for g in bad:
    print("within: %s stored %d cycles (%s, provisional %s): outside [%d, %d]" %
          (g["path"], g["boundary_cycles"], g["how"], g["provisional"], low, bound), file=sys.stderr)
sys.exit(1 if bad else 0)
