"""The journal's record codec: framing, kind, format version and CRC-32.

Runs unchanged on MicroPython (rp2, unix) and CPython. A record is

    offset  size  field
    0       1     format version, 1
    1       1     kind: b"E" event (match open after it), b"F" event (match
                  finished after it), b"A" the judge's acknowledgement,
                  b"M" journal metadata (the id and counter files)
    2       2     payload length n, little-endian, 0..MAX_PAYLOAD
    4       n     payload: the event's exact canonical bytes, opaque here
    4+n     4     CRC-32 (IEEE 802.3, as zlib and binascii) of bytes 0..4+n,
                  little-endian

so a record costs its payload plus OVERHEAD (8) bytes. docs/journal.md has
the whole on-flash format.

Checking a record never allocates an integer above 2**30 (which on the Pico
would be a heap object): the CRC is run over the record *including* its
stored CRC, and a good record always gives the CRC-32 residue 0x2144DF1C,
which is a small integer. Where binascii.crc32 is missing, a table-driven
CRC-32 kept in two 16-bit halves stands in; both give identical values.
"""

VERSION = 1
OVERHEAD = 8
MAX_PAYLOAD = 2048

EVENT = 0x45    # "E"
FINISHED = 0x46  # "F"
ACK = 0x41      # "A"
META = 0x4D     # "M"
KINDS = (EVENT, FINISHED, ACK, META)

# parse() results other than a position
END = 0          # no bytes left: a clean end
TRUNCATED = -1   # a record starts but its bytes run past the end (torn tail)
BAD = -2         # wrong version or kind, or the CRC does not match

_RESIDUE_HI = 0x2144
_RESIDUE_LO = 0xDF1C

try:
    from binascii import crc32 as _crc32
except ImportError:  # pragma: no cover - every supported port has it today
    _crc32 = None

_T_HI = None
_T_LO = None


def _tables():
    global _T_HI, _T_LO
    if _T_HI is None:
        hi = [0] * 256
        lo = [0] * 256
        for i in range(256):
            h, l = 0, i
            for _ in range(8):
                if l & 1:
                    l = ((l >> 1) | ((h & 1) << 15)) ^ 0x8320
                    h = (h >> 1) ^ 0xEDB8
                else:
                    l = (l >> 1) | ((h & 1) << 15)
                    h >>= 1
            hi[i] = h
            lo[i] = l
        _T_HI, _T_LO = hi, lo
    return _T_HI, _T_LO


def crc32_halves(data, start=0, end=None):
    """CRC-32 of data[start:end] as (high 16 bits, low 16 bits), small ints only."""
    if end is None:
        end = len(data)
    th, tl = _tables()
    h, l = 0xFFFF, 0xFFFF
    for i in range(start, end):
        x = (l ^ data[i]) & 0xFF
        l = (((l >> 8) | ((h & 0xFF) << 8)) ^ tl[x])
        h = (h >> 8) ^ th[x]
    return h ^ 0xFFFF, l ^ 0xFFFF


def crc32(data):
    """CRC-32 of a bytes-like object, as an int (as binascii.crc32 gives it)."""
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    h, l = crc32_halves(data)
    return (h << 16) | l


def _residue_ok(buf, start, end):
    if _crc32 is not None:
        return _crc32(memoryview(buf)[start:end]) == 0x2144DF1C
    h, l = crc32_halves(buf, start, end)
    return h == _RESIDUE_HI and l == _RESIDUE_LO


def encode(kind, payload):
    """The record for one payload (bytes-like), as a bytearray."""
    if kind not in KINDS:
        raise ValueError("unknown record kind")
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError("payload longer than %d bytes" % MAX_PAYLOAD)
    buf = bytearray(n + OVERHEAD)
    buf[0] = VERSION
    buf[1] = kind
    buf[2] = n & 0xFF
    buf[3] = n >> 8
    buf[4:4 + n] = payload
    if _crc32 is not None:
        c = _crc32(memoryview(buf)[:4 + n])
        buf[4 + n] = c & 0xFF
        buf[5 + n] = (c >> 8) & 0xFF
        buf[6 + n] = (c >> 16) & 0xFF
        buf[7 + n] = (c >> 24) & 0xFF
    else:
        h, l = crc32_halves(buf, 0, 4 + n)
        buf[4 + n] = l & 0xFF
        buf[5 + n] = l >> 8
        buf[6 + n] = h & 0xFF
        buf[7 + n] = h >> 8
    return buf


def parse(buf, pos, end):
    """Check the record that starts at buf[pos] (buf holds bytes up to end).

    Returns the position just after it when it is whole and sound; then its
    kind is buf[pos + 1] and its payload is buf[pos + 4:next - 4]. Otherwise
    returns END (pos == end), TRUNCATED or BAD, all <= 0. Allocates nothing
    but, with binascii, one memoryview."""
    if pos >= end:
        return END
    if end - pos < OVERHEAD:
        return TRUNCATED if buf[pos] == VERSION else BAD
    if buf[pos] != VERSION or buf[pos + 1] not in KINDS:
        return BAD
    n = buf[pos + 2] | (buf[pos + 3] << 8)
    if n > MAX_PAYLOAD:
        return BAD
    nxt = pos + n + OVERHEAD
    if nxt > end:
        return TRUNCATED
    if not _residue_ok(buf, pos, nxt):
        return BAD
    return nxt


def decode_all(data):
    """(records, status) for a whole buffer: records is a list of (kind, payload
    bytes) up to the first record that is not sound; status is END when every
    byte was a good record, else TRUNCATED or BAD. For tools and tests."""
    out = []
    pos = 0
    end = len(data)
    while True:
        nxt = parse(data, pos, end)
        if nxt <= 0:
            return out, nxt
        out.append((data[pos + 1], bytes(data[pos + 4:nxt - 4])))
        pos = nxt
