"""static-start.test's layout figures (test/packaging): the pages the writable segment's file
data and .bss's first bytes span, .bss's alignment, and whether the names
the start-up code looks up lie with the start-up code."""
import re, subprocess, sys

def pages(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and f[6] == "RW":
            vaddr, filesz = int(f[2], 16), int(f[4], 16)
            return ((vaddr + filesz) >> 12) - (vaddr >> 12) + 1
    raise SystemExit("no RW segment in " + path)

def bss_align(path):
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+\.bss\s+NOBITS\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\d+)", line)
        if m:
            return int(m.group(1))
    return 0

def symbols(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return {f[2]: int(f[0], 16) for f in (l.split() for l in out.splitlines()) if len(f) == 3}

plain, amber = sys.argv[1], sys.argv[2]
print("plain: writable pages %d, bss aligned 8 or less: %s" % (pages(plain), bss_align(plain) <= 8))
print("amber: writable pages %d, bss aligned 64 or less: %s" % (pages(amber), bss_align(amber) <= 64))
s = symbols(amber)
# Inside the runtime's code, the start-up code (.text.startup) comes first,
# then these constants (amber_start_ro, libamber_rt.lds), then the rest:
# so they lie between a start-up function and any other one.
names = [n for n in s if n.split(".")[-1] in ("alloc_names", "module_init", "recover_only")]
print("amber: start-up names beside resolve_start: %s"
      % (len(names) == 3 and all(s["resolve_start"] < s[n] < s["amber_clones_find"] for n in names)))
