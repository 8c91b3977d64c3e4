#!/usr/bin/env python3
"""Checks a transaction history printed by mvcc_history.c.

Each line: T <id> <start_ns> <end_ns> r <reg> <val> r <reg> <val> [w <reg>]
Every written value is its transaction's unique id; 0 is the initial value.
A writer always read the register it overwrites, so each register's version
order is known exactly.  The checker builds the dependency graph (wr, ww, rw
edges; with --realtime also A -> B when A ended before B started) and prints
"serializable N" when it is acyclic, else the cycle it found."""
import sys

realtime = "--realtime" in sys.argv
cycles_ok = "--si" in sys.argv  # snapshot isolation: cycles allowed, lost updates not
txns = {}
for line in sys.stdin:
    f = line.split()
    if not f or f[0] != "T":
        continue
    tid, start, end = int(f[1]), int(f[2]), int(f[3])
    reads, writes, i = [], [], 4
    while i < len(f):
        if f[i] == "r":
            reads.append((int(f[i + 1]), int(f[i + 2])))
            i += 3
        elif f[i] == "w":
            writes.append(int(f[i + 1]))
            i += 2
        else:
            sys.exit("bad line: " + line)
    txns[tid] = (start, end, reads, writes)

edges = {t: set() for t in txns}
next_writer = {}
for t, (s, e, reads, writes) in txns.items():
    seen = dict(reads)
    for x in writes:
        v = seen.get(x)
        if v is None:
            sys.exit("T%d writes register %d without reading it" % (t, x))
        if (x, v) in next_writer:
            print("LOST UPDATE: T%d and T%d both overwrote value %d of register %d" % (next_writer[(x, v)], t, v, x))
            sys.exit(1)
        next_writer[(x, v)] = t
for t, (s, e, reads, writes) in txns.items():
    for x, v in reads:
        if v != 0:
            if v not in txns:
                print("T%d read value %d of register %d that no transaction wrote" % (t, v, x))
                sys.exit(1)
            if v != t:
                edges[v].add(t)  # wr (and ww for the register it overwrites)
        n = next_writer.get((x, v))
        if n is not None and n != t:
            edges[t].add(n)  # rw anti-dependency
if realtime:
    # Real-time order through virtual nodes: A -> E(A) -> E(next end) -> ...,
    # and E(last end before B starts) -> B; so A reaches B exactly when A
    # ended before B started.
    ends = sorted(txns, key=lambda t: txns[t][1])
    end_times = [txns[t][1] for t in ends]
    for k, a in enumerate(ends):
        ev = -(k + 1)
        edges[ev] = set()
        edges[a].add(ev)
        if k:
            edges[-k].add(ev)
    import bisect
    for b in txns:
        j = bisect.bisect_left(end_times, txns[b][0])  # ends[:j] ended before b started
        if j:
            edges[-j].add(b)

indeg = {t: 0 for t in edges}
for a in edges:
    for b in edges[a]:
        indeg[b] += 1
ready = [t for t in edges if indeg[t] == 0]
count = 0
while ready:
    a = ready.pop()
    count += 1
    for b in edges[a]:
        indeg[b] -= 1
        if indeg[b] == 0:
            ready.append(b)
if count == len(edges):
    print("serializable %d" % len(txns))
    sys.exit(0)
left = [t for t in txns if indeg[t] > 0]
print("CYCLE among %d transactions, e.g. %s" % (len(left), left[:10]))
sys.exit(0 if cycles_ok else 1)
