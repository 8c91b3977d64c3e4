# test/bench/plot.test: each named file in DIR is a PNG (signature, IHDR)
# of plausible size, and more than a blank image.
import os, struct, sys

d = sys.argv[1]
for name in sys.argv[2:]:
    p = os.path.join(d, name)
    with open(p, "rb") as f:
        b = f.read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % p
    length, kind = struct.unpack(">I4s", b[8:16])
    assert kind == b"IHDR" and length == 13, "%s: no IHDR chunk first" % p
    w, h = struct.unpack(">II", b[16:24])
    assert 300 <= w <= 6000 and 200 <= h <= 6000, "%s: implausible size %dx%d" % (p, w, h)
    assert len(b) > 10000, "%s: only %d bytes" % (p, len(b))
    print("%s %dx%d" % (name, w, h))
