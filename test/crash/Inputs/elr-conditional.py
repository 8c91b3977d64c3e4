"""Recovery of records with conditional dependencies (the mvcc engine's
early lock release, docs/engines/mvcc.md): heaps built byte by byte from a
killed counters run (two worker rings, every record live), then

  present   the last record of ring A names three conditional dependencies
            that live records hold (a trailer of three, docs/format.md):
            recovery keeps it, and everything is recovered;
  missing   the last record of ring A names, as its second conditional
            dependency (the first one held), a commit of ring B that no
            record holds: recovery drops it
            (thread A recovers one commit fewer, B all), says so, and
            counts unacknowledged_dropped 1;
  cascade   also the last record of ring B names A's dropped record: both
            are dropped (each thread one fewer), count 2;
  crash     the cascade heap, recovery killed at its k-th persistence event
            (AMBER_CRASH_AT=k, k = 1..6), then recovered again: the same
            result each time (the drop is durable before anything else is
            written, and a half-done drop is finished);
  check     amber check calls neither heap damaged.

Prints one "elr-conditional: CASE ok" line per case, or exits non-zero."""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "Inputs"))
import mvheap  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--amber", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("program")
o = ap.parse_args()

work = os.path.abspath(o.work)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
# AMBER_PM_JOURNAL=0: these heaps (on a disk file: the msync backend) are
# damaged by poking bytes in place after a kill; a sync journal holding
# those bytes would put them back at the next open (docs/engines/msync.md).
env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
env.update(LD_PRELOAD=o.lib, AMBER_HEAP_SIZE="1M", AMBER_MVCC_THREADS="4", AMBER_MVCC_OLOG="64K", AMBER_MVCC_CLOG="64K",
           AMBER_MVCC_TLOG="16K", AMBER_ENGINE="mvcc", AMBER_PM_JOURNAL="0")
tool_env = {k: v for k, v in env.items() if k not in ("LD_PRELOAD",)}


def run(args, heap, extra=None, tool=False):
    e = dict(tool_env if tool else env)
    e["AMBER_HEAP"] = heap
    e.update(extra or {})
    r = subprocess.run(args, env=e, capture_output=True, text=True, errors="replace", timeout=120)
    return r.returncode, r.stdout, r.stderr


def fail(msg):
    sys.exit("elr-conditional: FAILED: " + msg)


base = os.path.join(work, "base.heap")
rc, out, err = run([o.program, "run", "20", "2", "kill"], base)
if rc != -9:
    fail("the workload did not end killed (%s): %s" % (rc, err))
acked = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^ack (\d+) (\d+)$", out, re.M)}
img = bytearray(open(base, "rb").read())
h = mvheap.Heap(img)
R = mvheap.REC11
# Worker rings: the rings with more than one record (ring of the root's
# record holds one); the thread of a ring is the slot its records write.
rings = [i for i in range(h.threads) if len(h.records(i)) > 1]
if len(rings) != 2:
    fail("expected two worker rings, found %r" % rings)


def last(i):
    return h.records(i)[-1]  # (file offset, len, seq, cts, kind, dep, dep_ring)


def set_cdeps(b, i, rec, deps):
    """Gives ring i's last record `rec` the conditional dependencies deps,
    [(cts, ring)]: a trailer after its body (the record grows into the
    ring's unwritten end), ncdep, len and crc."""
    off, ln = rec[0], rec[1]
    f = list(R.unpack_from(b, off))
    body = ln - mvheap.cdep_bytes(f[8])
    t = mvheap.cdep_trailer(deps)
    if off - (h.slot(i) + mvheap.PAGE) + body + len(t) > h.olog:
        fail("ring %d's last record is too near the ring's end for a trailer" % i)
    b[off + body:off + body + len(t)] = t
    f[1], f[8] = body + len(t), len(deps)  # len, ncdep
    struct.pack_into(R.format, b, off, *f)
    ln = f[1]
    crc = mvheap.crc32c(bytes(b[off + R.size:off + ln]), mvheap.crc32c(bytes(b[off:off + R.size - 4])))
    struct.pack_into("<I", b, off + R.size - 4, crc)


# A: the ring whose last record is older (B's may then depend on it).
a, b = sorted(rings, key=lambda i: last(i)[3])
ra, rb = last(a), last(b)
all_cts = {r[3] for i in range(h.threads) for r in h.records(i)}
ghost = ra[3] - 1
while ghost in all_cts:
    ghost -= 1


# Live records of ring B older than A's last one: dependencies that hold.
held = [r[3] for r in h.records(b) if r[3] < ra[3]]
if len(held) < 3:
    fail("ring %d has %d records older than ring %d's last one; want 3" % (b, len(held), a))
present = bytearray(img)
set_cdeps(present, a, ra, [(held[-1], b), (held[-2], b), (held[-3], b)])
missing = bytearray(img)
set_cdeps(missing, a, ra, [(held[-1], b), (ghost, b)])
cascade = bytearray(missing)
set_cdeps(cascade, b, rb, [(ra[3], a)])


def recover(image, name, extra=None):
    p = os.path.join(work, name + ".heap")
    open(p, "wb").write(image)
    return p, run([o.program, "check"], p, dict({"AMBER_VERBOSE": "1", "AMBER_STATS_FILE": p + ".stats"}, **(extra or {})))


def counts(out):
    return {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^thread (\d+) count (\d+)$", out, re.M)}


def expect(name, image, ndropped):
    p = os.path.join(work, name + "-tool.heap")
    open(p, "wb").write(image)
    rc, out, err = run([o.amber, "check", p], p, tool=True)
    if rc != 0 or "damage" in err:
        fail("%s: amber check says (%s): %s %s" % (name, rc, out, err))
    p, (rc, out, err) = recover(image, name)
    got = counts(out)
    if rc != 0 or "check: ok" not in out:
        fail("%s: the check failed (%s): %s %s" % (name, rc, out, err))
    fewer = sorted(t for t, c in acked.items() if got.get(t) != c)
    if len(fewer) != ndropped or any(got[t] != acked[t] - 1 for t in fewer):
        fail("%s: recovered %r, acknowledged %r (expected %d threads one fewer)" % (name, got, acked, ndropped))
    if "recovery dropped %d OLog records" % ndropped not in err:
        fail("%s: recovery did not say it dropped %d records: %s" % (name, ndropped, err))
    st = json.load(open(p + ".stats"))
    if st.get("unacknowledged_dropped") != ndropped:
        fail("%s: stats say unacknowledged_dropped %r" % (name, st.get("unacknowledged_dropped")))
    return got


# The unchanged image recovers everything.
p, (rc, out, err) = recover(img, "plain")
if rc != 0 or counts(out) != {t: acked.get(t, 0) for t in counts(out)} or "dropped" in err:
    fail("the unchanged image: %s %s" % (out, err))
print("elr-conditional: plain ok")
p, (rc, out, err) = recover(present, "present")
if rc != 0 or "check: ok" not in out or counts(out) != {t: acked.get(t, 0) for t in counts(out)} or "dropped" in err:
    fail("present: %s %s" % (out, err))
rc, out, err = run([o.amber, "check", p], p, tool=True)
if rc != 0 or "damage" in err:
    fail("present: amber check says (%s): %s %s" % (rc, out, err))
print("elr-conditional: present ok")
expect("missing", missing, 1)
print("elr-conditional: missing ok")
want = expect("cascade", cascade, 2)
print("elr-conditional: cascade ok")
for k in range(1, 7):
    p = os.path.join(work, "crash-%d.heap" % k)
    open(p, "wb").write(cascade)
    rc, out, err = run([o.program, "check"], p, {"AMBER_CRASH_AT": str(k)})
    if rc not in (0, -9):
        fail("crash at %d: %s %s" % (k, rc, err))
    rc, out, err = run([o.program, "check"], p)
    if rc != 0 or counts(out) != want:
        fail("crash at %d, then recovered: %r, want %r: %s" % (k, counts(out), want, err))
print("elr-conditional: crash ok")
