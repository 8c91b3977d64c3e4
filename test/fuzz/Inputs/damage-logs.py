#!/usr/bin/env python3
"""Damage to the logs of dirty mvcc heaps (issue [1/7] part 4).

usage: damage-logs.py --amber AMBER --lib LIBAMBER --work DIR [--full] [--jobs N]
                      [--list N] [--layout N] COUNTERS

COUNTERS is test/fuzz/Inputs/counters.c built with amber-cc.  Base images:
`counters run N T kill` with T = 1 and 2 threads, N = 30 (every record
still in the OLog, no checkpoint) and N = 1200 (checkpoint rounds, live CLog
entries, rings that wrapped and recycled), each with operational records
(AMBER_OLOG=ops) and with value records (the default): eight dirty heaps, each with
every acknowledged commit ("ack THREAD COUNT") in its logs.

Cases, per image (mvheap.py finds the live records and entries):
  record    a byte flipped in a live OLog record of each ring: in its header
            and in its body, for the first, second, middle, last-but-one and
            last record of the ring (--full: every record)
  clog      a byte flipped in a live CLog entry (header, block data): the
            first, middle and last of [tail, head) (--full: every one)
  ringhdr   a bit flipped in each of the two headers of every ring in use
  cloghdr   a bit flipped in each of the two CLog headers
Oracle, per case (the damaged file, then `amber check`, then the program's
own `counters check`, each under a timeout):
  * amber check never changes the file;
  * refused: the program exits non-zero before main with "amber: error:"
    and leaves the file unchanged; detected: amber check exits non-zero;
  * intact: the program runs and finds every acknowledged commit;
  * torn-tail: the damage is in the last record of a ring, which a crash
    while it was written leaves the same way (its commit was never
    acknowledged, docs/engines/mvcc.md): the program runs, its check
    passes, and the ring's thread lost at most that one transaction;
  * torn-tail+: the same, but transactions of other rings that depended
    on that record were replayed without it (listed).  Since layout 7 a
    record names the newest version of another ring it read or overwrote
    (docs/engines/mvcc.md, "Cross-ring dependencies"), so recovery refuses
    such a heap instead: these cases are refused, and their messages are
    listed as LAST-REFUSED;
  * silently accepted: anything else (lost or wrong data accepted, amber
    check passing a heap the program refuses, a refusal that wrote the
    file, a crash, a hang).  Must be 0; the script exits 1 otherwise.
Prints a table: per class and record kind (--by-threads: and thread count), cases, refused, detected,
intact, torn-tail, silently accepted.
"""
import argparse, concurrent.futures, hashlib, os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mvheap

ap = argparse.ArgumentParser()
ap.add_argument("--amber", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--full", action="store_true")
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--list", type=int, default=20)
ap.add_argument("--timeout", type=int, default=60)
ap.add_argument("--only", default="record,clog,ringhdr,cloghdr")
ap.add_argument("--by-threads", action="store_true", help="one row per class, mode and thread count")
ap.add_argument("--old-layout", action="store_true", help="the heap layout before issue [1/7] part 4 (= --layout 5)")
ap.add_argument("--layout", type=int, default=12, help="the builds' heap layout version, 5 to 12 (to reproduce on an older build)")
ap.add_argument("program")
o = ap.parse_args()
only = set(o.only.split(","))
mvheap.LAYOUT = 5 if o.old_layout else o.layout
REC_HDR = mvheap.rec_struct().size  # a record's header: its body follows

work = os.path.abspath(o.work)
if os.path.exists(work):
    shutil.rmtree(work)
os.makedirs(work)
# AMBER_PM_JOURNAL=0: these heaps (on a disk file: the msync backend) are
# damaged by poking bytes in place after a kill; a sync journal holding
# those bytes would put them back at the next open (docs/engines/msync.md).
env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
env.update(LD_PRELOAD=o.lib, AMBER_HEAP_SIZE="1M", AMBER_MVCC_THREADS="4", AMBER_MVCC_OLOG="64K", AMBER_MVCC_CLOG="64K",
           AMBER_MVCC_TLOG="16K", AMBER_PM_JOURNAL="0")
tool_env = {k: v for k, v in env.items() if k != "LD_PRELOAD"}


def run(args, heap=None, extra=None, timeout=None):
    e = dict(env if heap else tool_env)
    if heap:
        e["AMBER_HEAP"] = heap
    e.update(extra or {})
    try:
        r = subprocess.run(args, env=e, capture_output=True, text=True, errors="replace", timeout=timeout or o.timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def counts(out):
    return {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^thread (\d+) count (\d+)$", out, re.M)}


class Base:
    def __init__(self, n, threads, mode):
        self.name = "%s %dT N=%d" % (mode, threads, n)
        self.mode = mode
        self.group = "%s %dT" % (mode, threads) if o.by_threads else mode
        path = os.path.join(work, "base-%s-%d-%d.heap" % (mode, threads, n))
        extra = {"AMBER_OLOG": mode}
        rc, out, err = run([o.program, "run", str(n), str(threads), "kill"], path, extra)
        if rc != -9:
            sys.exit("damage-logs: the workload did not end killed (%s): %s" % (rc, err))
        self.acked = {}
        for m in re.finditer(r"^ack (\d+) (\d+)$", out, re.M):
            self.acked[int(m.group(1))] = int(m.group(2))
        self.bytes = open(path, "rb").read()
        self.heap = mvheap.Heap(self.bytes)
        # The undamaged image recovers every acknowledged commit.
        ref = os.path.join(work, "ref.heap")
        open(ref, "wb").write(self.bytes)
        rc, out, err = run([o.program, "check"], ref)
        got = counts(out)
        if rc != 0 or any(got.get(t, 0) != c for t, c in self.acked.items()):
            sys.exit("damage-logs: the undamaged image %s does not recover its acknowledged commits: %s %s" % (self.name, out, err))
        # Which ring each thread wrote (the ring whose last record holds it).
        self.rings = [i for i in range(self.heap.threads) if self.heap.records(i)]


bases = [Base(n, t, mode) for mode in ("ops", "values") for t in (1, 2) for n in (30, 1200)]
cases = []  # (class, base, what, offset, xor mask, last-record ring or None)


def pick(n):
    if o.full or n <= 5:
        return list(range(n))
    return sorted({0, 1, n // 2, n - 2, n - 1})


for b in bases:
    h = b.heap
    if "record" in only:
        for i in b.rings:
            recs = h.records(i)
            for k in pick(len(recs)):
                at, ln, seq, cts, kind = recs[k][:5]
                last = i if k == len(recs) - 1 else None
                for where, off in (("header", 8 + seq % 8), ("body", REC_HDR + (seq * 13) % max(ln - REC_HDR, 1))):
                    cases.append(("record", b, "ring %d record %d/%d (seq %d, %s) %s byte %d" %
                                  (i, k + 1, len(recs), seq, "ops" if kind == 2 else "values", where, off), at + off,
                                  1 << (seq % 8), last))
    if "clog" in only:
        es = h.clog_entries()
        for k in pick(len(es)):
            at, idx, blk, cts = es[k]
            for where, off in (("header", 16), ("data", 32 + idx % h.block)):
                cases.append(("clog", b, "CLog entry %d (%d of %d, block %d) %s byte %d" % (idx, k + 1, len(es), blk, where, off),
                              at + off, 1 << (idx % 8), None))
    if "ringhdr" in only:
        for i in b.rings:
            cur = h.current_ring_header(i)
            for (at, tail, seq, c, ok) in h.ring_headers(i):
                for field, off in (("tail", 8), ("seq", 16), ("crc", 36)):
                    cases.append(("ringhdr", b, "ring %d %s header %s" % (i, "current" if at == cur[0] else "older", field),
                                  at + off, 1 << ((i + off) % 8), None))
    if "cloghdr" in only:
        cur = h.clog_header()
        for w in range(2):
            at = h.engine_off + h.clog_off + 64 * w
            for field, off in (("gen", 8), ("c", 16), ("tail", 24), ("head", 32)):
                cases.append(("cloghdr", b, "CLog %s header %s" % ("current" if at == cur[0] else "older", field), at + off,
                              1 << (off % 7), None))


def sha(path):
    return hashlib.sha1(open(path, "rb").read()).hexdigest()


def one(idx, case):
    cls, b, what, at, mask, last = case
    path = os.path.join(work, "case-%d.heap" % idx)
    buf = bytearray(b.bytes)
    buf[at] ^= mask
    open(path, "wb").write(buf)
    why = []
    why_last = []
    before = sha(path)
    crc, cout, cerr = run([o.amber, "check", path])
    if sha(path) != before:
        why.append("amber check changed the file")
    if crc == "timeout" or (isinstance(crc, int) and crc < 0):
        why.append("amber check: %s" % crc)
    elif crc not in (0, 3) and "amber: error:" not in cerr:
        why.append("amber check exited %s without an amber: error:" % crc)
    # 3: incomplete (operational records left out, no damage found).
    detected = crc not in (0, 3, "timeout")
    prc, pout, perr = run([o.program, "check"], path)
    got = counts(pout)
    outcome = None
    if prc == "timeout" or (isinstance(prc, int) and prc < 0):
        why.append("program: %s" % prc)
    elif not got:
        if prc == 0 or "amber: error:" not in perr:
            why.append("program exited %s without running and without an amber: error: (%s)" % (prc, perr.strip()[-200:]))
        elif sha(path) != before:
            why.append("the program refused the heap but changed the file")
        else:
            outcome = "refused"
            if last is not None:
                msg = [l for l in perr.splitlines() if l.startswith("amber: error:")]
                why_last.append(msg[0] if msg else perr.strip()[-300:])
            if not detected:
                why.append("amber check passed a heap the program refuses: %s" % perr.strip()[-300:])
    else:
        lost = {t: c - got.get(t, 0) for t, c in b.acked.items() if got.get(t, 0) != c}
        if prc == 0 and not lost:
            outcome = "intact"
        elif prc == 0 and last is not None and len(lost) == 1 and list(lost.values())[0] == 1:
            outcome = "torn-tail"
        elif last is not None and isinstance(prc, int) and prc >= 0:
            # The last record of a ring: a crash while it was written leaves
            # the same bytes, so recovery drops it; transactions of other
            # rings that depended on it are replayed without it
            # (docs/engines/mvcc.md, "Limits").
            outcome = "torn-tail+"
            why_last.append("the last record of ring %d: acknowledged %s, found %s" % (last, b.acked, got))
        else:
            why.append("damage accepted: the program ran (rc %s), acknowledged %s, found %s (%s)%s" %
                       (prc, b.acked, got, perr.strip()[-200:], "; amber check flagged it" if detected else "; amber check passed it"))
    os.unlink(path)
    if why:
        return cls, b, what, "silent", detected, why
    return cls, b, what, outcome, detected, why_last


with concurrent.futures.ThreadPoolExecutor(max_workers=o.jobs) as ex:
    results = list(ex.map(lambda ic: one(*ic), enumerate(cases)))

cols = ["refused", "intact", "torn-tail", "torn-tail+", "silent"]
print("damage-logs: %-8s %-9s %6s %8s %9s %7s %10s %11s %9s" % ("class", "mode", "cases", "refused", "detected", "intact",
                                                                "torn-tail", "torn-tail+", "silent"))
tot = {k: 0 for k in cols + ["detected", "cases"]}
for cls in ("record", "clog", "ringhdr", "cloghdr"):
    for mode in sorted({b.group for b in bases}):
        rs = [r for r in results if r[0] == cls and r[1].group == mode]
        if not rs:
            continue
        n = {k: sum(1 for r in rs if r[3] == k) for k in cols}
        d = sum(1 for r in rs if r[4])
        for k in cols:
            tot[k] += n[k]
        tot["detected"] += d
        tot["cases"] += len(rs)
        print("damage-logs: %-8s %-9s %6d %8d %9d %7d %10d %11d %9d" % (cls, mode, len(rs), n["refused"], d, n["intact"],
                                                                        n["torn-tail"], n["torn-tail+"], n["silent"]))
print("damage-logs: %d cases, %d refused, %d detected, %d intact, %d torn-tail, %d torn-tail+, %d silently accepted" %
      (tot["cases"], tot["refused"], tot["detected"], tot["intact"], tot["torn-tail"], tot["torn-tail+"], tot["silent"]))
for r in [r for r in results if r[3] == "refused" and r[5]][:o.list]:
    print("LAST-REFUSED: %s: %s: %s" % (r[1].name, r[2], "; ".join(r[5])))
for r in [r for r in results if r[3] == "torn-tail+"][:o.list]:
    print("TORN-TAIL+: %s: %s: %s" % (r[1].name, r[2], "; ".join(r[5])))
for r in [r for r in results if r[3] == "silent"][:o.list]:
    print("SILENT: %s: %s: %s" % (r[1].name, r[2], "; ".join(r[5])))
sys.exit(1 if tot["silent"] else 0)
