"""Reads an mvcc heap's logs (docs/format.md, "Engine areas": mvcc), for
the damage tests: where each ring's live records and the CLog's live
entries are, so a test can damage exactly one of them."""
import struct

HDR = struct.Struct("<8sIIQ16sQQQQQQQQQII")  # layout 12: journal_offset, journal_size after engine_size
AREA = struct.Struct("<8sIIIIQQQQQQII")
RING_HDR = struct.Struct("<QQQQII")   # magic tail seq c pad crc
CLOG_HDR = struct.Struct("<QQQQQII")  # magic gen c tail head pad crc
# magic len seq cts local dep nranges kind ncdep dep_ring inputs crc (layout 11; ncdep
# conditional dependencies in a trailer: the record's last cdep_bytes(ncdep) bytes)
REC11 = struct.Struct("<IIQQQQIBBHII")
# magic len seq cts local dep cdep*4 cdep_ring*4 nranges kind dep_ring inputs crc (layout 10)
REC10 = struct.Struct("<IIQQQQ4Q4HIHHII")
# magic len seq cts local dep nranges kind dep_ring inputs crc (layouts 7 to 9)
REC = struct.Struct("<IIQQQQIHHII")
# magic len seq cts local nranges kind pad inputs crc (layouts 5 and 6)
REC6 = struct.Struct("<IIQQQIHHII")
CKPT = struct.Struct("<IIQQQ")        # magic crc seq blk cts
RING_MAGIC, CLOG_MAGIC = 0x474E4952474F4C4F, 0x474E4952474F4C43
REC_MAGIC, PAD_MAGIC, CKPT_MAGIC = 0x31474C4F, 0x44415050, 0x31504B43
PAGE = 4096
# The heap layout version (docs/format.md), for reproducing the damage on
# an older build: set by the caller.  5: before the ring headers' c and the
# CLog header's head; 6: before the records' dependency (dep, dep_ring).  7: before CLog link entries (the same record and ring layout); 8: before the code name table (the same logs); 9: before the records' conditional dependencies (cdep, cdep_ring: the 56-byte header); 10: the dependencies in a 96-byte header (11: in a trailer; 12: the sync journal after the engine area, the same logs).
LAYOUT = 12


def cdep_bytes(n):
    """Bytes of a layout-11 record's trailer of n conditional dependencies:
    n u64 commit ts, then n u16 rings, zero-padded to 8."""
    return 8 * n + ((2 * n + 7) & ~7) if n else 0


def cdep_trailer(deps):
    """The trailer for deps, [(cts, ring)]."""
    t = struct.pack("<%dQ" % len(deps), *[c for c, _ in deps]) + struct.pack("<%dH" % len(deps), *[g for _, g in deps])
    return t + bytes(cdep_bytes(len(deps)) - len(t))


def rec_struct():
    """The OLog record header of LAYOUT."""
    return REC11 if LAYOUT >= 11 else REC10 if LAYOUT >= 10 else REC if LAYOUT >= 7 else REC6


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


class Heap:
    def __init__(self, data):
        self.b = bytes(data)
        h = HDR.unpack_from(self.b, 0)
        self.engine_off = h[9]
        a = AREA.unpack_from(self.b, self.engine_off)
        self.block, self.threads, self.olog = a[2], a[3], a[5]
        self.mts_off, self.logs_off, self.clog_off, self.clog_bytes = a[6], a[7], a[9], a[10]
        self.clog_entry = (32 + self.block + 7) & ~7
        self.clog_n = self.clog_bytes // self.clog_entry

    def slot(self, i):
        return self.engine_off + self.logs_off + i * (PAGE + self.olog)

    def ring_headers(self, i):
        """[(file offset, tail, seq, c, valid)] for the two headers."""
        out = []
        for w in range(2):
            at = self.slot(i) + 64 * w
            if LAYOUT <= 5:
                m, tail, seq, _pad, crc = struct.unpack_from("<QQQII", self.b, at)
                out.append((at, tail, seq, 0, m == RING_MAGIC and crc == crc32c(self.b[at:at + 28])))
                continue
            f = RING_HDR.unpack_from(self.b, at)
            ok = f[0] == RING_MAGIC and f[5] == crc32c(self.b[at:at + 36])
            out.append((at, f[1], f[2], f[3], ok))
        return out

    def current_ring_header(self, i):
        hs = [h for h in self.ring_headers(i) if h[4]]
        return max(hs, key=lambda h: h[1]) if hs else None

    def records(self, i):
        """The live records of ring i: [(file offset, len, seq, cts, kind,
        dep, dep_ring)] (dep 0 before layout 7)."""
        cur = self.current_ring_header(i)
        if not cur:
            return []
        pos, seq = cur[1], cur[2]
        ring = self.slot(i) + PAGE
        out = []
        while True:
            off = pos % self.olog
            rec = rec_struct()
            if self.olog - off < rec.size:
                pos += self.olog - off
                off = 0
            f = rec.unpack_from(self.b, ring + off)
            if rec is REC6:  # no dep, dep_ring
                f = f[:5] + (0,) + f[5:7] + (0,) + f[8:]
            if rec is REC10:  # leave out cdep, cdep_ring
                f = f[:6] + f[14:]
            if rec is REC11:  # leave out ncdep
                f = f[:8] + f[9:]
            magic, ln, s = f[0], f[1], f[2]
            if magic not in (REC_MAGIC, PAD_MAGIC) or s != seq or ln < rec.size or ln % 8 or ln > self.olog - off:
                break
            body = self.b[ring + off:ring + off + ln]
            if crc32c(body[rec.size:], crc32c(body[:rec.size - 4])) != f[10]:
                break
            if magic == REC_MAGIC:
                out.append((ring + off, ln, s, f[3], f[7], f[5], f[8]))
            pos += ln
            seq += 1
        return out

    def clog_header(self):
        best = None
        for w in range(2):
            at = self.engine_off + self.clog_off + 64 * w
            if LAYOUT <= 5:
                m, gen, c, tail, _pad, crc = struct.unpack_from("<QQQQII", self.b, at)
                f = (m, gen, c, tail, None)
                ok = m == CLOG_MAGIC and crc == crc32c(self.b[at:at + 36])
            else:
                f = CLOG_HDR.unpack_from(self.b, at)
                ok = f[0] == CLOG_MAGIC and f[6] == crc32c(self.b[at:at + 44])
            if ok and (best is None or f[1] > best[1]):
                best = (at, f[1], f[2], f[3], f[4])
        return best  # (file offset, gen, c, tail, head)

    def clog_entries(self):
        """The durable entries [tail, head): [(file offset, index, blk, cts)]."""
        h = self.clog_header()
        if not h:
            return []
        out = []
        i = h[3]
        while i < (h[4] if h[4] is not None else h[3] + self.clog_n):
            at = self.engine_off + self.clog_off + PAGE + (i % self.clog_n) * self.clog_entry
            f = CKPT.unpack_from(self.b, at)
            if h[4] is None and (f[0] != CKPT_MAGIC or f[2] != i or f[4] >= h[2]):
                break  # layout 5: durable entries are those below c
            out.append((at, i, f[3], f[4]))
            i += 1
        return out
