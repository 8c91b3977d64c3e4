"""pm_group_wait.c's statistics: the gathering counters are consistent;
`none`: no leader waited."""
import json
import sys


def find(x, k):
    if isinstance(x, dict):
        for a, b in x.items():
            if a == k:
                return b
            r = find(b, k)
            if r is not None:
                return r
    return None


s = json.load(open(sys.argv[1]))
g, c, b = (find(s, k) for k in ("sync_gathers", "sync_gathers_complete", "sync_gathers_bounded"))
if None in (g, c, b) or g != c + b:
    sys.exit("bad gathering counters: %r %r %r" % (g, c, b))
if sys.argv[2] == "none" and g:
    sys.exit("%d leaders waited, expected none" % g)
if find(s, "syncs") in (None, 0):
    sys.exit("no syncs counted")
print("ok: %d gathers (%d complete, %d bounded)" % (g, c, b))
