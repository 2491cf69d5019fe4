"""The journal's record codec (nakk.record), on both interpreters from this same file (tests/test_both_interpreters.py)."""
import io

from nakk import record

# One record, byte for byte: the format is the contract with every box in
# the field, so it may not change without a new VERSION.
GOLDEN_PAYLOAD = b'{"game":"suit","maker":"A","result":"win","seq":7,"type":"deal","winner":"A"}'
GOLDEN = ("01454d00" + "".join(["%02x" % b for b in GOLDEN_PAYLOAD]) + "83029e45")


def _hex(b):
    return "".join(["%02x" % x for x in b])


def _stream(payloads, kind=record.EVENT):
    out = bytearray()
    for p in payloads:
        out += record.encode(kind, p)
    return out


SAMPLES = [b"", b"{}", GOLDEN_PAYLOAD, b'{"x":"' + b"y" * 300 + b'"}',
           b"z" * record.MAX_PAYLOAD, bytes(range(256))]


def test_codec_golden_bytes():
    rec = record.encode(record.EVENT, GOLDEN_PAYLOAD)
    assert _hex(rec) == GOLDEN, _hex(rec)
    assert len(rec) == len(GOLDEN_PAYLOAD) + record.OVERHEAD


def test_codec_crc_reference_values():
    assert record.crc32(b"123456789") == 0xCBF43926
    assert record.crc32(b"") == 0
    assert record.crc32_halves(b"123456789") == (0xCBF4, 0x3926)
    for p in SAMPLES:
        h, l = record.crc32_halves(p)
        assert (h << 16) | l == record.crc32(p)


def test_codec_roundtrip():
    for kind in (record.EVENT, record.FINISHED, record.ACK, record.META):
        recs, status = record.decode_all(_stream(SAMPLES, kind))
        assert status == record.END
        assert recs == [(kind, p) for p in SAMPLES]


def test_codec_every_truncation_is_detected():
    data = _stream(SAMPLES[:4])
    bounds = [0]
    for p in SAMPLES[:4]:
        bounds.append(bounds[-1] + len(p) + record.OVERHEAD)
    for cut in range(len(data) + 1):
        recs, status = record.decode_all(data[:cut])
        whole = len([b for b in bounds[1:] if b <= cut])
        assert recs == [(record.EVENT, p) for p in SAMPLES[:whole]], cut
        assert status == (record.END if cut in bounds else record.TRUNCATED), cut


def test_codec_every_bit_flip_is_detected():
    rec = record.encode(record.FINISHED, b'{"seq":3,"type":"deal"}')
    for i in range(len(rec)):
        for bit in range(8):
            bad = bytearray(rec)
            bad[i] ^= 1 << bit
            recs, status = record.decode_all(bad)
            assert recs == [] and status in (record.BAD, record.TRUNCATED), (i, bit)


def test_codec_without_binascii_crc32():
    # A port built without binascii.crc32 uses the 16-bit-halves CRC: the
    # same bytes, the same verdicts.
    with_binascii = [bytes(record.encode(record.ACK, p)) for p in SAMPLES]
    saved = record._crc32
    record._crc32 = None
    try:
        assert [bytes(record.encode(record.ACK, p)) for p in SAMPLES] == with_binascii
        assert record.decode_all(_stream(SAMPLES)) == ([(record.EVENT, p) for p in SAMPLES], record.END)
        rec = record.encode(record.EVENT, b'{"seq":1}')
        for i in range(len(rec)):
            bad = bytearray(rec)
            bad[i] ^= 0x08
            assert record.decode_all(bad)[0] == [], i
        assert record.crc32(b"123456789") == 0xCBF43926
    finally:
        record._crc32 = saved


def test_codec_refuses_what_it_cannot_store():
    for bad in ((record.EVENT, b"x" * (record.MAX_PAYLOAD + 1)), (0x58, b"{}")):
        try:
            record.encode(*bad)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (bad[0],))


def test_codec_reader_resynchronises_after_damage():
    from nakk.journal import _scan
    payloads = [b'{"seq":%d,"type":"deal"}' % i + b" " * (i * 37 % 200) for i in range(60)]
    data = _stream(payloads)
    # damage record 10 (a payload byte) and record 40 (its length field)
    pos = [0]
    for p in payloads:
        pos.append(pos[-1] + len(p) + record.OVERHEAD)
    data[pos[10] + 6] ^= 0x20
    data[pos[40] + 2] ^= 0x01
    bad = [0]
    buf = bytearray(2 * (record.MAX_PAYLOAD + record.OVERHEAD))
    got = [bytes(buf[a + 4:b - 4]) for a, b in _scan(io.BytesIO(bytes(data)), buf, bad)]
    assert got == payloads[:10] + payloads[11:40] + payloads[41:], len(got)
    assert bad[0] == 2
    # a stream bigger than the buffer is read in chunks
    many = payloads * 3
    bad = [0]
    got = [bytes(buf[a + 4:b - 4]) for a, b in _scan(io.BytesIO(bytes(_stream(many))), buf, bad)]
    assert got == many and bad[0] == 0
