#!/usr/bin/env python3
"""Real heap images for fuzz_heap and the damage tests.

usage: make-images.py --lib LIBAMBER --amber AMBER --out DIR [--prefix P]
                      [--seeds DIR] [--mvcc] PROGRAM

PROGRAM is a workload built with amber-cc (test/crash/Inputs/bank.c,
test/fuzz/Inputs/mix.c): `PROGRAM run N` does N steps, each a transaction.
Every heap is a romulus heap with a 1 MiB data area.  Writes:
  DIR/a-fresh.heap     created by `amber create`, never opened by a program
  DIR/b-clean.heap     after 30 steps and a clean exit (IDLE, clean)
  DIR/c-mutating.heap  SIGKILLed by AMBER_CRASH_AT inside a transaction
  DIR/d-copying.heap   SIGKILLed while the romulus twin was being copied
  DIR/e-idle-dirty.heap SIGKILLed between transactions (IDLE, dirty)
With --mvcc, PROGRAM is test/fuzz/Inputs/counters.c and the heaps are
mvcc heaps (value records, 4 OLog rings of 64 KiB, a 64 KiB CLog), killed
with every acknowledged commit in the logs: DIR/m-30-1.heap (1 thread, 30
transactions), m-30-2.heap (2 threads), m-1200-2.heap (checkpoints, rings
that wrapped); seeds patch their rings and CLog (regions 5 and 6).
Crash points are searched in a seeded order, so the set is the same each
time.  Names get the --prefix (several workloads can share DIR).  With
--seeds, writes fuzz_heap inputs for each image in DIR (no patch; the state
word set to each state; a bit flip in each region) into that directory.
"""
import argparse, os, shutil, struct, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--amber", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--seeds")
ap.add_argument("--prefix", default="")
ap.add_argument("--mvcc", action="store_true")
ap.add_argument("program")
o = ap.parse_args()

os.makedirs(o.out, exist_ok=True)
env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
# Romulus heaps, named: the images are its states (MUTATING, COPYING, IDLE)
# and the tests that damage them poke its twin.
# AMBER_PM_JOURNAL=0: these heaps (on a disk file: the msync backend) are
# damaged by poking bytes in place after a kill; a sync journal holding
# those bytes would put them back at the next open (docs/engines/msync.md).
env.update(AMBER_HEAP_SIZE="1M", LD_PRELOAD=o.lib, AMBER_ENGINE="romulus", AMBER_PM_JOURNAL="0")
STATES = {0x49444C45: "IDLE", 0x4D555441: "MUTATING", 0x434F5059: "COPYING"}


def state(path):
    with open(path, "rb") as f:
        f.seek(4096)
        clean, _opens, st = struct.unpack("<QQQ", f.read(24))
    return clean == 0x434C45414E000001, STATES.get(st, hex(st))


def run(heap, n, crash_at=0):
    if os.path.exists(heap):
        os.unlink(heap)
    e = dict(env, AMBER_HEAP=heap)
    if crash_at:
        e["AMBER_CRASH_AT"] = str(crash_at)
    return subprocess.run([o.program, "run", str(n)], env=e, capture_output=True, timeout=60)


def out(name):
    return os.path.join(o.out, o.prefix + name)


if o.mvcc:
    e = dict(env, AMBER_ENGINE="mvcc", AMBER_OLOG="values", AMBER_MVCC_THREADS="4", AMBER_MVCC_OLOG="64K", AMBER_MVCC_CLOG="64K",
             AMBER_MVCC_TLOG="16K")
    names = []
    for n, t in ((30, 1), (30, 2), (1200, 2)):
        heap = out("m-%d-%d.heap" % (n, t))
        if os.path.exists(heap):
            os.unlink(heap)
        r = subprocess.run([o.program, "run", str(n), str(t), "kill"], env=dict(e, AMBER_HEAP=heap), capture_output=True, timeout=60)
        if r.returncode != -9:
            sys.exit("make-images: the mvcc workload did not end killed: %s" % r.stderr.decode())
        names.append(heap)
    if o.seeds:
        os.makedirs(o.seeds, exist_ok=True)
        images = sorted(f for f in os.listdir(o.out) if not f.startswith(".") and f.endswith(".heap"))
        k = 0
        for name in names:
            b = 1 + images.index(os.path.basename(name))
            for seed in ([b, 0, 0, 0], [b, 0, 0, 0, 5, 0x40, 0x10, 4], [b, 0, 0, 0, 5, 0x30, 0x10, 1], [b, 0, 0, 0, 6, 0x20, 0x10, 2],
                         [b, 0, 0, 0, 6, 0x10, 0, 8]):
                with open(os.path.join(o.seeds, "%sseed-%03d" % (o.prefix, k)), "wb") as f:
                    f.write(bytes(seed))
                k += 1
    print("make-images: %d mvcc images in %s" % (len(names), o.out))
    sys.exit(0)

subprocess.run([o.amber, "create", out("a-fresh.heap"), "--size", "1M"], env={k: v for k, v in env.items() if k != "LD_PRELOAD"},
               check=True, capture_output=True)
r = run(out("b-clean.heap"), 30)
if r.returncode != 0:
    sys.exit("make-images: the workload failed: %s" % r.stderr.decode())
tmp = out("crash.tmp")
want = {("MUTATING", False): "c-mutating.heap", ("COPYING", False): "d-copying.heap", ("IDLE", False): "e-idle-dirty.heap"}
# The run's persistence events: the first N at which it completes.
total = 64
while run(tmp, 30, crash_at=total).returncode == -9:
    total *= 2
# Crash points from the second half of the run first, so the twins differ in
# allocator metadata and objects, not only in the root.
stride = max(7, total // 150)
for n in list(range(total // 4, total, stride)) + list(range(15, total // 4, stride)):
    if not want:
        break
    r = run(tmp, 30, crash_at=n)
    if r.returncode != -9:
        continue
    key = state(tmp)
    key = (key[1], key[0])
    if key in want:
        shutil.move(tmp, out(want.pop(key)))
if os.path.exists(tmp):
    os.unlink(tmp)
if want:
    sys.exit("make-images: no crash image in states %s" % sorted(want))

if o.seeds:
    os.makedirs(o.seeds, exist_ok=True)
    images = sorted(f for f in os.listdir(o.out) if not f.startswith(".") and f.endswith(".heap"))
    # fuzz_heap's base 0 is its own fresh heap; files follow in name order.
    k = 0
    def seed(data):
        global k
        with open(os.path.join(o.seeds, "%sseed-%03d" % (o.prefix, k)), "wb") as f:
            f.write(bytes(data))
        k += 1
    for b in range(len(images) + 1):
        seed([b, 0, 0, 0])
        for pick in range(3):
            seed([b, 0, 0, 0, 6, 0, 0, pick])
        for region in range(6):
            seed([b, 0, 0, 0, region, 5 * region + 3, 0, 1 << region])
        seed([b, 1 | 2 | 4 | 8 | 16 | 32, 0, 0, 3 | (8 << 3), 48, 0] + [0x11] * 8)
print("make-images: %d images in %s" % (len([f for f in os.listdir(o.out) if f.endswith(".heap")]), o.out))
