"""Damages one OLog record of an mvcc heap (its checksum then fails): the
K-th from the end (K >= 1) of the ring with the most live records.  For
test/run/defer_durable.c: damage inside a deferred batch that was made
durable and acknowledged, which recovery cannot tell from a batch the
crash tore (docs/engines/mvcc.md, "Deferred durability").

  damage_record.py HEAP K"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "Inputs"))
import mvheap  # noqa: E402

path, k = sys.argv[1], int(sys.argv[2])
img = bytearray(open(path, "rb").read())
h = mvheap.Heap(img)
ring = max(range(h.threads), key=lambda i: len(h.records(i)))
recs = h.records(ring)
if len(recs) < k:
    sys.exit("damage_record: ring %d has %d live records, fewer than %d" % (ring, len(recs), k))
off, ln = recs[-k][0], recs[-k][1]
img[off + ln - 1] ^= 0xFF  # the body's last byte: the checksum fails
open(path, "wb").write(img)
print("damaged record seq %d of ring %d (%d live)" % (recs[-k][2], ring, len(recs)))
