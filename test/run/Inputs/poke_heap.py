# poke_heap.py HEAP OFFSET_FILE VALUE: writes the 8-byte little-endian VALUE
# at the file offset OFFSET_FILE holds, as a change the page cache made
# durable (or lost) behind amber's back (run/sync_journal_replay.c).
# poke_heap.py HEAP journal-entry-0 BYTE: XORs BYTE into the first data
# byte of the sync journal's first entry (docs/format.md, "Sync journal";
# journal_offset is the u64 at header offset 88), as damage on the medium.
import os, struct, sys
heap, where, value = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
fd = os.open(heap, os.O_RDWR)
if where == "journal-entry-0":
    joff = struct.unpack("<Q", os.pread(fd, 8, 88))[0]
    at = joff + 4096 + 40
    b = os.pread(fd, 1, at)[0]
    os.pwrite(fd, bytes([b ^ value]), at)
else:
    off = int(open(where).read().split()[0])
    os.pwrite(fd, struct.pack("<q", value), off)
os.fsync(fd)
os.close(fd)
