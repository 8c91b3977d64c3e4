# poke_heap.py HEAP OFFSET_FILE VALUE: writes the 8-byte little-endian VALUE
# at the file offset OFFSET_FILE holds, as a change the page cache made
# durable (or lost) behind amber's back (run/sync_journal_replay.c).
# poke_heap.py HEAP journal-entry-0 BYTE: XORs BYTE into the first data
# byte of the sync journal's first entry (docs/format.md, "Sync journal";
# journal_offset is the u64 at header offset 88), as damage on the medium.
# poke_heap.py HEAP journal-last-sync BYTE: the same in the first entry of
# the last sync the journal holds, as a write the crash tore.
# poke_heap.py HEAP journal-torn-tail|journal-later-sync BYTE: appends a
# valid copy of the journal's last entry (the next number; of the same
# sync, or of a sync of its own), then damages the last entry as above:
# a sync torn in its middle, or damage that a later sync proves.
import os, struct, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "Inputs"))
from mvheap import crc32c  # noqa: E402
heap, where, value = sys.argv[1], sys.argv[2], int(sys.argv[3], 0)
fd = os.open(heap, os.O_RDWR)
if where == "journal-entry-0":
    joff = struct.unpack("<Q", os.pread(fd, 8, 88))[0]
    at = joff + 4096 + 40
elif where in ("journal-last-sync", "journal-torn-tail", "journal-later-sync"):
    joff = struct.unpack("<Q", os.pread(fd, 8, 88))[0]
    pos, seq, epoch, last = 4096, 0, None, None
    while True:  # magic len epoch seq off sync_first crc (docs/format.md)
        magic, ln, ep, sq, _off, first, _crc = struct.unpack("<IIQQQII", os.pread(fd, 40, joff + pos))
        if magic != 0x544E454A or sq != seq or (epoch is not None and ep != epoch):
            break
        epoch = ep
        if first == sq:
            last = pos
        pos += 40 + ((ln + 7) & ~7)
        seq += 1
    assert last is not None, "poke_heap: the journal holds no entry"
    if where != "journal-last-sync":
        # The last entry, copied after itself as entry `seq`.
        prev = pos - 40 - ((ln_last := struct.unpack("<I", os.pread(fd, 4, joff + last + 4))[0]) + 7 & ~7)
        assert prev == last, "poke_heap: the last sync has more than one entry"
        hdr = bytearray(os.pread(fd, 40, joff + last))
        data = os.pread(fd, (ln_last + 7) & ~7, joff + last + 40)
        first = struct.unpack_from("<I", hdr, 32)[0]
        struct.pack_into("<Q", hdr, 16, seq)
        struct.pack_into("<I", hdr, 32, first if where == "journal-torn-tail" else seq)
        struct.pack_into("<I", hdr, 36, crc32c(bytes(hdr[:36]) + data[:ln_last]))
        os.pwrite(fd, bytes(hdr) + data, joff + pos)
    at = joff + last + 40
else:
    at = None
    off = int(open(where).read().split()[0])
    os.pwrite(fd, struct.pack("<q", value), off)
if at is not None:
    b = os.pread(fd, 1, at)[0]
    os.pwrite(fd, bytes([b ^ value]), at)
os.fsync(fd)
os.close(fd)
