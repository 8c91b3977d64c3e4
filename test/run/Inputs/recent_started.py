"""Exit 1 unless the statistics (AMBER_STATS_FILE, argv[1]) show recent
starts (docs/engines/mvcc.md, "Recent starts") whenever the run had the TSC
clock: with the logical clock no start is recent."""
import json
import sys

with open(sys.argv[1]) as f:
    stats = json.loads(f.readline())
if stats["clock"] == "tsc" and not stats.get("recent_starts"):
    print("no recent starts with the TSC clock: %s" % sys.argv[1])
    sys.exit(1)
