#!/usr/bin/env python3
"""poke.py FILE EDIT...  edits bytes of a file in place.
EDIT: OFFSET^MASK xors one byte; OFFSET=HEX writes bytes (hex digits);
OFFSET is decimal or 0x-prefixed hex."""
import sys

with open(sys.argv[1], "r+b") as f:
    for e in sys.argv[2:]:
        if "^" in e:
            off, mask = e.split("^")
            f.seek(int(off, 0))
            b = f.read(1)[0] ^ int(mask, 0)
            f.seek(int(off, 0))
            f.write(bytes([b]))
        else:
            off, hexs = e.split("=")
            f.seek(int(off, 0))
            f.write(bytes.fromhex(hexs))
