"""Checks bench/durable's output: every SYSTEM x WORKLOAD x THREADS named on
the command line has exactly one JSON line that ran operations and passed its
verification; amber's were measured with AMBER_PM=msync, PMDK's msynced.
  durable-check.py OUTPUT --systems a,b --workloads w,v --threads 1,2"""
import argparse, json, sys

ap = argparse.ArgumentParser()
ap.add_argument("output")
ap.add_argument("--systems", required=True)
ap.add_argument("--workloads", required=True)
ap.add_argument("--threads", default="1")
a = ap.parse_args()
lines = []
with open(a.output) as f:
    for l in f:
        if not l.strip():
            break  # the table follows the JSON lines after a blank line
        lines.append(json.loads(l))
bad = []
want = [(s, w, int(t)) for s in a.systems.split(",") for w in a.workloads.split(",") for t in a.threads.split(",")]
for s, w, t in want:
    got = [l for l in lines if (l["system"], l["workload"], l["threads"]) == (s, w, t)]
    if len(got) != 1:
        bad.append("%s %s %d threads: %d lines" % (s, w, t, len(got)))
        continue
    l = got[0]
    if not (l["ops"] > 0 and l["throughput"] > 0 and l["seconds"] > 0 and l["verified"] is True):
        bad.append("%s %s %d threads: ops %s throughput %s verified %s" % (s, w, t, l["ops"], l["throughput"],
                                                                          l.get("verified")))
    if s.startswith("amber-") and (l.get("pm") != "msync" or l.get("engine") != s[len("amber-"):]):
        bad.append("%s %s: engine %s pm %s" % (s, w, l.get("engine"), l.get("pm")))
    # Every libpmemobj transaction persists at least its undo log and its
    # end: at least one msync per update region on a file that is not PM
    # (none with PM or PMEM_IS_PMEM_FORCE).
    if s == "pmdk" and not l.get("msyncs_per_update_txn", 0) >= 1:
        bad.append("pmdk %s: %s msyncs per update region" % (w, l.get("msyncs_per_update_txn")))
    if s == "sqlite" and (l.get("journal_mode"), l.get("synchronous")) != ("wal", "full"):
        bad.append("sqlite %s: journal_mode %s synchronous %s" % (w, l.get("journal_mode"), l.get("synchronous")))
extra = len(lines) - len(want)
if extra:
    bad.append("%d lines more than asked for" % extra)
print("\n".join(bad) if bad else "ok: %d lines" % len(lines))
sys.exit(1 if bad else 0)
