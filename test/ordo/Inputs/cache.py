"""cache.py FILE boot|check: the ORDO cache file (heap/ordo_cache.c, 216
bytes: magic, version, uid, boot id at 16..32, ..., crc32c of the bytes
before the last 4).  boot: rewrites the boot id (as a file from an earlier
boot would hold) and re-seals the checksum.  check: prints its mode and
whether its checksum holds."""
import os
import stat
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


path, what = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
sealed = len(b) == 216 and b[:8] == b"AMBORDC\0" and struct.unpack_from("<I", b, len(b) - 4)[0] == crc32c(b[:-4])
if what == "check":
    print("mode %04o %s" % (stat.S_IMODE(os.lstat(path).st_mode), "sealed" if sealed else "damaged"))
elif what == "boot":
    assert sealed, "not a sealed cache file"
    b[16:32] = bytes(16 - i for i in range(16))
    struct.pack_into("<I", b, len(b) - 4, crc32c(b[:-4]))
    tmp = path + ".new"
    with open(tmp, "wb") as f:
        f.write(b)
    os.chmod(tmp, 0o600)
    os.rename(tmp, path)
