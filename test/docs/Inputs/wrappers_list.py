"""Checks that docs/wrappers.md names every intercepted function."""
import re
import sys

cmake, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
block = re.search(r"set\(AMBER_INTERCEPTED(.*?)\)", cmake, re.S)
if not block:
    sys.exit("no AMBER_INTERCEPTED list in " + sys.argv[1])
names = block.group(1).split()
quoted = set()
for span in re.findall(r"`([^`]*)`", doc):
    quoted.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))


def named(n):
    if n in quoted:
        return True
    # A family's fortified forms may be named as a group: "and their
    # `__*_chk` forms" after the plain names.
    m = re.fullmatch(r"__(\w+)_chk", n)
    return bool(m) and m.group(1) in quoted and "their `__*_chk` forms" in doc


missing = [n for n in names if not named(n)]
if missing:
    sys.exit("docs/wrappers.md does not name: " + " ".join(missing))
print("%d intercepted names documented" % len(names))
