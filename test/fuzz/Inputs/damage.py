#!/usr/bin/env python3
"""Deterministic damage to real heap files (issue [3/7], part 7).

usage: damage.py --amber AMBER --lib LIBAMBER --work DIR [--full] [--jobs N]
                 [--only CLASS,...] [--list-failures N] PROGRAM...

Each PROGRAM is a workload built with amber-cc that answers `run N` and
`check` like test/crash/Inputs/bank.c (test/fuzz/Inputs/mix.c adds large
objects and many size classes).  Base images come from make-images.py, per
program: a cleanly closed heap after 30 steps; a crash image in the MUTATING
state; one in the COPYING state.
Classes of cases:
  flips     a bit flip in every byte of: the header, the status words, the
            two ORDO record slots (first program's clean image), each twin's
            data header, each twin's page descriptors in use (slab and large
            heads, pages inside large runs); and the romulus state word set to
            each other state.  Quick mode flips one bit per byte (which bit
            rotates) in the first --descs (2) descriptors of each kind;
            --full flips all eight bits of every descriptor in use (or of
            --descs of each kind).
  sizes     the file truncated to 13 lengths and extended by 3.
  versions  layout version, engine, features, page size, geometry and base
            changed, each with the header checksum left alone and re-sealed.
  foreign   not a heap: empty, text, an ELF binary, zeros, random bytes, a
            heap magic followed by garbage, a directory, /dev/null, a FIFO.

Oracle per case, each process under a timeout:
  * `amber check` exits 0, or 1/2 with "amber: error:"; it never changes the
    file; it never passes a heap the program refuses.
  * `PROGRAM check` (the runtime's open and recovery, then the workload's own
    invariants) either refuses (exit 2, "amber: error:", main never ran) or
    runs and finds the data intact: "check: ok" and the transfers the
    undamaged image holds.  With --full, an accepted heap also takes three
    more transfers and is checked again.
Outcomes: refused (both refuse), accepted-intact (both accept), flagged (the
program accepts intact data, amber check reports damage the program need not
see, e.g. in the romulus twin), known-gap (damage accepted where the format
has no checksum to catch it: see known_gap()), failure (anything else: a
signal, a hang, an error without "amber: error:", or damage accepted: the
program ran on it and the workload's check failed).  Prints the counts, each
known gap and each failure; exits 1 when there is a failure.
"""
import argparse, concurrent.futures, hashlib, os, random, shutil, stat, struct, subprocess, sys, zlib

ap = argparse.ArgumentParser()
ap.add_argument("--amber", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--full", action="store_true")
ap.add_argument("--skip-meta", action="store_true", help="no flips in the header, status words and ORDO slots")
ap.add_argument("--descs", type=int, help="descriptors flipped per kind and twin (quick mode: 2; --full: all)")
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--only", default="flips,sizes,versions,foreign")
ap.add_argument("--list-failures", type=int, default=20)
ap.add_argument("--timeout", type=int, default=30)
ap.add_argument("programs", nargs="+")
o = ap.parse_args()
only = set(o.only.split(","))
if o.descs is None:
    o.descs = 1 << 30 if o.full else 2

here = os.path.dirname(os.path.abspath(__file__))
work = os.path.abspath(o.work)
if os.path.exists(work):
    shutil.rmtree(work)
os.makedirs(work)
imgdir = os.path.join(work, "images")
for prog in o.programs:
    subprocess.run([sys.executable, os.path.join(here, "make-images.py"), "--lib", o.lib, "--amber", o.amber, "--out", imgdir,
                    "--prefix", os.path.basename(prog) + "-", prog], check=True, capture_output=True)

env = {k: v for k, v in os.environ.items() if not k.startswith("AMBER_")}
env["LD_PRELOAD"] = o.lib
tool_env = {k: v for k, v in env.items() if k != "LD_PRELOAD"}

# ---- the format (docs/format.md) ----
HDR = struct.Struct("<8sIIQ16sQQQQQQQQQII")  # up to and including crc: 128 bytes (layout 12)
STATUS, ORDO, SLOT = 4096, 8192, 256
ORDO_LEN = 240  # sizeof(struct amber_ordo_record)
DESC = 64
STATES = {"IDLE": 0x49444C45, "MUTATING": 0x4D555441, "COPYING": 0x434F5059}


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


class Base:
    def __init__(self, program, name, path):
        self.program = program
        self.name = "%s %s" % (os.path.basename(program), name)
        self.bytes = open(path, "rb").read()
        f = HDR.unpack_from(self.bytes, 0)
        self.data_off, self.data_size, self.engine_off = f[7], f[8], f[9]
        self.npages = self.data_size // 4096
        self.first = 1 + (self.npages * DESC + 4095) // 4096
        self.state = struct.unpack_from("<Q", self.bytes, STATUS + 16)[0]
        self.transfers = None

    def descs_in_use(self, twin_off):
        """(page, file offset, kind) of slab and large-object heads, and of
        the pages inside large runs (their descriptors stay empty)."""
        out = []
        p = 0
        while p < self.npages:
            at = twin_off + 4096 + p * DESC
            kind = self.bytes[at]
            if kind == 1:
                out.append((p, at, "slab"))
            elif kind == 2:
                out.append((p, at, "large"))
                n = struct.unpack_from("<I", self.bytes, at + 4)[0]
                for q in range(p + 1, min(p + n, self.npages)):
                    out.append((q, twin_off + 4096 + q * DESC, "interior"))
                p += max(n, 1)
                continue
            p += 1
        return out


def run(args, heap, program=True, timeout=None):
    e = dict(env if program else tool_env)
    if program:
        e["AMBER_HEAP"] = heap
    try:
        r = subprocess.run(args, env=e, capture_output=True, text=True, errors="replace", timeout=timeout or o.timeout)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def transfers(out):
    for line in out.splitlines():
        if line.startswith("transfers "):
            return int(line.split()[1])
    return None


bases = []
for prog in o.programs:
    for name, fn in (("clean", "b-clean.heap"), ("mutating", "c-mutating.heap"), ("copying", "d-copying.heap")):
        b = Base(prog, name, os.path.join(imgdir, os.path.basename(prog) + "-" + fn))
        scratch = os.path.join(work, "ref.heap")
        open(scratch, "wb").write(b.bytes)
        rc, out, err = run([prog, "check"], scratch)
        if rc != 0 or "check: ok" not in out:
            sys.exit("damage: the undamaged image %s fails the workload's check: %s %s" % (b.name, out, err))
        b.transfers = transfers(out)
        bases.append(b)

# ---- cases: (class, description, base or None, builder(path)) ----
cases = []


def patched(base, edits, length=None):
    def build(path):
        buf = bytearray(base.bytes)
        for off, val in edits:
            buf[off:off + len(val)] = val
        if length is not None:
            buf = buf[:length] if length <= len(buf) else buf + bytes(length - len(buf))
        with open(path, "wb") as f:
            f.write(buf)
    return build


def flip(base, off, bit):
    return patched(base, [(off, bytes([base.bytes[off] ^ (1 << bit)]))])


def add_flips(base, region, start, length, salt):
    for i in range(length):
        bits = range(8) if o.full else [(i * 5 + salt) % 8]
        for bit in bits:
            cases.append(("flips", "%s: %s byte %d (file offset 0x%x) bit %d" % (base.name, region, i, start + i, bit), base,
                          flip(base, start + i, bit), region, i))


if "flips" in only:
    for salt, base in enumerate(bases):
        twins = (("main", base.data_off), ("twin", base.engine_off))
        if base is bases[0] and not o.skip_meta:
            add_flips(base, "header", 0, HDR.size, salt)
            add_flips(base, "status words", STATUS, 64, salt)
            add_flips(base, "ORDO slot 0", ORDO, ORDO_LEN, salt)
            add_flips(base, "ORDO slot 1", ORDO + SLOT, ORDO_LEN, salt)
        for tname, toff in twins:
            add_flips(base, "%s data header" % tname, toff, 64, salt)
            seen = {}
            for p, at, kind in base.descs_in_use(toff):
                # Quick mode: the first --descs descriptors of each kind.
                seen[kind] = seen.get(kind, 0) + 1
                if seen[kind] <= o.descs:
                    add_flips(base, "%s descriptor of page %d (%s)" % (tname, p, kind), at, DESC, salt)
        for sname, sval in STATES.items():
            if sval != base.state:
                cases.append(("flips", "%s: romulus state word set to %s" % (base.name, sname), base,
                              patched(base, [(STATUS + 16, struct.pack("<Q", sval))]), "state word", 0))

clean = bases[0]
L = len(clean.bytes)
if "sizes" in only:
    for n in (0, 1, 8, 100, 127, 128, 4096, 8192, 65536, 65536 + 4096, L // 2, L - 4096, L - 1):
        cases.append(("sizes", "truncated to %d bytes" % n, None, patched(clean, [], n), "size", 0))
    for n in (1, 4096, 1 << 20):
        cases.append(("sizes", "extended by %d bytes" % n, None, patched(clean, [], L + n), "size", 0))


def header_edit(fields, reseal):
    f = list(HDR.unpack_from(clean.bytes, 0))
    for i, v in fields.items():
        f[i] = v
    raw = bytearray(HDR.pack(*f))
    if reseal:
        struct.pack_into("<I", raw, HDR.size - 4, crc32c(raw[:HDR.size - 4]))
    return patched(clean, [(0, bytes(raw))])


if "versions" in only:
    # Every other layout version, the ones before and after this one included.
    cur = HDR.unpack_from(clean.bytes, 0)[1]
    edits = [("version %d" % v, {1: v}) for v in (0, 1, cur - 1, cur + 1, 0xFFFF, 0xFFFFFFFF)]
    edits += [("engine %d" % v, {2: v}) for v in (0, 2, 3, 99)]
    edits += [("features 0x%x" % v, {3: v}) for v in (1, 1 << 63)]
    edits += [("page size %d" % v, {14: v}) for v in (0, 8192)]
    f = HDR.unpack_from(clean.bytes, 0)
    edits += [("data size %d" % v, {8: v}) for v in (f[8] // 2, f[8] * 2, f[8] + 1)]
    edits += [("file size %d" % (f[5] + 4096), {5: f[5] + 4096})]
    edits += [("data offset 0", {7: 0}), ("engine offset %d" % (f[9] + 4096), {9: f[9] + 4096})]
    edits += [("journal offset %d" % (f[11] + 4096), {11: f[11] + 4096}), ("journal size 4096", {12: 4096}),
              ("journal size %d" % (f[12] + 4096), {12: f[12] + 4096})]
    edits += [("base 0x%x" % v, {6: v}) for v in (0, 0x1000, f[6] + 4096, 1 << 47)]
    for what, fields in edits:
        for reseal in (False, True):
            cases.append(("versions", "header %s, checksum %s" % (what, "re-sealed" if reseal else "as found"), None,
                          header_edit(fields, reseal), "header", 0))


def write_bytes(data):
    def build(path):
        with open(path, "wb") as f:
            f.write(data)
    return build


def special(kind):
    def build(path):
        if kind == "dir":
            os.mkdir(path)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "devnull":
            os.symlink("/dev/null", path)
    return build


if "foreign" in only:
    rng = random.Random(1)
    elf = open(o.programs[0], "rb").read()
    foreign = [
        ("an empty file", write_bytes(b"")),
        ("a text file", write_bytes(b"this is not a heap\n" * 1000)),
        ("an ELF executable", write_bytes(elf)),
        ("zeros the size of a heap", write_bytes(bytes(L))),
        ("random bytes the size of a heap", write_bytes(bytes(rng.getrandbits(8) for _ in range(65536)) * (L // 65536))),
        ("the heap magic followed by random bytes", write_bytes(b"AMBERHP\0" + bytes(rng.getrandbits(8) for _ in range(L - 8)))),
        ("a directory", special("dir")),
        ("/dev/null (a symbolic link to it)", special("devnull")),
        ("a FIFO", special("fifo")),
    ]
    for what, build in foreign:
        cases.append(("foreign", what, None, build, "foreign", 0))


# ---- running a case ----
def sha(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    if not stat.S_ISREG(st.st_mode):
        return "special %o" % st.st_mode
    h = hashlib.sha1()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def known_gap(base, region, byte):
    """Damage no check can see without a checksum the format lacks: the
    allocator's page descriptors and the root fields (data header bytes
    48..63) of the image recovery keeps while a crash left the twins
    different (MUTATING: the twin; COPYING: main); and the state word set to
    another legal value (it is the commit point; single bit flips in it are
    all caught).  An idle heap's twins are equal, so there the same damage
    is caught by comparing them."""
    if base is None:
        return False
    if region == "state word":
        return True
    keep = {STATES["MUTATING"]: "twin", STATES["COPYING"]: "main"}.get(base.state)
    if not keep or not region.startswith(keep + " "):
        return False
    return "descriptor" in region or (region.endswith("data header") and byte >= 48)


def one(idx, case):
    cls, what, base, build, region, byte = case
    path = os.path.join(work, "case-%d.heap" % idx)
    remove(path)
    build(path)
    why = []
    gap = []  # per reason: whether a known gap explains it
    # amber check: read-only, precise.
    before = sha(path)
    crc, cout, cerr = run([o.amber, "check", path], path, program=False)
    if sha(path) != before:
        why.append("amber check changed the file")
    if crc == "timeout" or (isinstance(crc, int) and crc < 0):
        why.append("amber check: %s" % (crc if crc == "timeout" else "signal %d" % -crc))
    elif crc not in (0, 1, 2) or (crc != 0 and "amber: error:" not in cerr):
        why.append("amber check exited %s without a clean amber: error: (%s)" % (crc, cerr.strip()[-200:]))
    check_ok = crc == 0
    # The program: the runtime's open and recovery, the workload's invariants.
    program = base.program if base else o.programs[0]
    prc, pout, perr = run([program, "check"], path)
    ran = "transfers " in pout
    outcome = None
    if prc == "timeout" or (isinstance(prc, int) and prc < 0):
        why.append("program: %s" % (prc if prc == "timeout" else "signal %d" % -prc))
    elif not ran:
        if prc == 0 or "amber: error:" not in perr:
            why.append("program exited %s without running and without a clean amber: error: (%s)" % (prc, perr.strip()[-200:]))
        else:
            outcome = "refused"
            if check_ok:
                # amber_root's size check refuses a root size that changed
                # within its size class: the size has no checksum.
                gap.append("amber_root(" in perr)
                why.append("amber check passed a heap the program refuses: %s" % perr.strip()[-300:])
    else:
        expect = base.transfers if base else None
        intact = prc == 0 and "check: ok" in pout and (expect is None or transfers(pout) == expect)
        if intact and o.full:
            n = transfers(pout) + 3
            r2 = run([program, "run", str(n)], path)
            r3 = run([program, "check"], path)
            intact = r2[0] == 0 and r3[0] == 0 and "check: ok" in r3[1] and transfers(r3[1]) == n
            if not intact and "amber: error:" in (r2[2] + r3[2]) and isinstance(r2[0], int) and r2[0] >= 0:
                # A later refusal (clean, but after the program ran): report it.
                why.append("accepted, then refused later: %s" % (r2[2] + r3[2]).strip()[-300:])
        if not intact:
            gap.append(True)
            why.append("damage accepted: the program ran on it and the workload check failed (rc %s): %s %s%s" %
                       (prc, " ".join(pout.split()), perr.strip()[-300:],
                        "; amber check had flagged it" if not check_ok else "; amber check had passed it"))
        else:
            outcome = "accepted-intact" if check_ok else "flagged"
    remove(path)
    if why and len(gap) == len(why) and all(gap) and known_gap(base, region, byte):
        return cls, what, "known-gap", why, region
    if why:
        return cls, what, "failure", why, region
    return cls, what, outcome, [], region


results = []
with concurrent.futures.ThreadPoolExecutor(max_workers=o.jobs) as ex:
    for r in ex.map(lambda ic: one(*ic), enumerate(cases)):
        results.append(r)

classes = ["flips", "sizes", "versions", "foreign"]
outcomes = ["refused", "accepted-intact", "flagged", "known-gap", "failure"]
print("damage: %-9s %6s %8s %16s %8s %10s %8s" % ("class", "cases", "refused", "accepted-intact", "flagged", "known-gap", "failures"))
tot = {k: 0 for k in outcomes}
for c in classes:
    rs = [r for r in results if r[0] == c]
    if not rs:
        continue
    n = {k: sum(1 for r in rs if r[2] == k) for k in outcomes}
    for k in outcomes:
        tot[k] += n[k]
    print("damage: %-9s %6d %8d %16d %8d %10d %8d" % (c, len(rs), n["refused"], n["accepted-intact"], n["flagged"], n["known-gap"],
                                                   n["failure"]))
print("damage: %d cases, %d refused, %d accepted-intact, %d flagged, %d known-gap, %d failures" %
      (len(results), tot["refused"], tot["accepted-intact"], tot["flagged"], tot["known-gap"], tot["failure"]))
for r in results:
    if r[2] == "known-gap" and o.list_failures:
        print("KNOWN GAP: %s: %s" % (r[1], "; ".join(r[3])[:300]))
fails = [r for r in results if r[2] == "failure"]
by_region = {}
for r in fails:
    by_region[r[4]] = by_region.get(r[4], 0) + 1
for region, n in sorted(by_region.items()):
    print("damage: failures in %s: %d" % (region, n))
for r in fails[:o.list_failures]:
    print("FAILURE: %s: %s" % (r[1], "; ".join(r[3])))
sys.exit(1 if fails else 0)
