#!/usr/bin/env python3
"""exit() while other threads commit (issue 17 part 1): runs exit_race.c
with seeds 1..RUNS on fresh heaps and checks each run:

  - the program exits with status 0 (no thread ends it with an error);
  - `amber info` says clean exactly when the runtime printed no warning
    that it left the heap dirty;
  - the next open finds every acknowledged commit, and at most one
    unacknowledged commit per worker (the one whose ack exit() cut off);
  - `amber check` then passes.

It ends with "exit-race ENGINE: R runs, A acks, L lost, D left dirty,
V violations" and exits 1 on any violation."""
import argparse, os, re, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--prog", required=True)
ap.add_argument("--amber", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--heap", required=True)
ap.add_argument("--engine", default="mvcc")
ap.add_argument("--runs", type=int, default=10)
a = ap.parse_args()


def run(args, **kw):
    env = dict(os.environ, AMBER_HEAP=a.heap, AMBER_HEAP_SIZE="64M", AMBER_ENGINE=a.engine, LD_PRELOAD=a.lib)
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, **kw)


acks = lost = dirty = bad = 0
for seed in range(1, a.runs + 1):
    if os.path.exists(a.heap):
        os.remove(a.heap)
    p = run([a.prog, "run", str(seed)])
    why = []
    if p.returncode != 0:
        why.append("exit status %d" % p.returncode)
    acked = max([int(m) for m in re.findall(r"^ack (\d+)$", p.stdout, re.M)] or [0])
    threads = int(re.search(r"^threads (\d+)$", p.stdout, re.M).group(1))
    warned = "left dirty" in p.stderr
    other = [l for l in p.stderr.splitlines() if l.startswith("amber:") and "left dirty" not in l]
    if other:
        why.append("runtime said: " + " | ".join(other))
    info = subprocess.run([a.amber, "info", a.heap], capture_output=True, text=True).stdout
    state = re.search(r"^state\s+(\w+)", info, re.M)
    state = state.group(1) if state else "?"
    if state != ("dirty" if warned else "clean"):
        why.append("heap %s after a close that %s" % (state, "warned it left it dirty" if warned else "did not warn"))
    dirty += warned
    s = run([a.prog, "show"])
    m = re.search(r"^found (\d+)$", s.stdout, re.M)
    found = int(m.group(1)) if m else -1
    if found < acked:
        lost += 1
        why.append("%d acknowledged, %d found" % (acked, found))
    elif found > acked + threads:
        why.append("%d found but only %d acknowledged by %d threads" % (found, acked, threads))
    c = subprocess.run([a.amber, "check", a.heap], capture_output=True, text=True)
    if c.returncode != 0:
        why.append("amber check: " + (c.stdout + c.stderr).strip().replace("\n", " | "))
    acks += acked
    if why:
        bad += 1
        print("seed %d: %s" % (seed, "; ".join(why)))
os.remove(a.heap)
print("exit-race %s: %d runs, %d acks, %d lost, %d left dirty, %d violations" % (a.engine, a.runs, acks, lost, dirty, bad))
sys.exit(1 if bad else 0)
