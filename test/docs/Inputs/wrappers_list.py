"""Checks that docs/wrappers.md names every intercepted function."""
import re
import sys

cmake, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
cmake = re.sub(r"#[^\n]*", "", cmake)
# The list, and what later blocks append to it.
blocks = re.findall(r"(?:set|list\(APPEND)\s*\(?\s*AMBER_INTERCEPTED\b(.*?)\)", cmake, re.S)
if not blocks:
    sys.exit("no AMBER_INTERCEPTED list in " + sys.argv[1])
names = " ".join(blocks).split()
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
