"""The journal: its record codec on CPython and MicroPython, and the journal on
littlefs (MicroPython, tests/mpy/journal_checks.py) and on a plain directory
(CPython).

The plain test_codec_* functions below run under pytest on CPython and, from
this same file, under MicroPython (tests/mpy_runner.py imports this module
there, where pytest does not exist and only they are defined)."""
import io

from nakk import record

try:
    import pytest
except ImportError:  # MicroPython
    pytest = None

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


if pytest is not None:
    import os
    import zlib

    from hypothesis import given, settings, strategies as st

    from conftest import TESTS, run_mpy
    from nakk.journal import Journal, JournalError, write_atomic

    CODEC_TESTS = sorted(n for n in dir() if n.startswith("test_codec_"))

    # ------------------------------------------------------------ codec, both interpreters

    def test_codec_tests_pass_on_micropython():
        r = run_mpy([os.path.join(TESTS, "mpy_runner.py"), "test_journal"], path=(TESTS,))
        passed = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("PASS ")]
        assert r.returncode == 0 and passed == CODEC_TESTS, r.stdout + r.stderr[-3000:]

    # ------------------------------------------------------------ codec properties (CPython)

    payloads = st.binary(min_size=0, max_size=record.MAX_PAYLOAD)
    kinds = st.sampled_from(record.KINDS)

    @given(st.lists(st.tuples(kinds, payloads), max_size=12))
    @settings(max_examples=200, deadline=None)
    def test_prop_roundtrip(recs):
        data = bytearray()
        for k, p in recs:
            data += record.encode(k, p)
        assert record.decode_all(data) == (recs, record.END)

    @given(st.lists(payloads.filter(len), min_size=1, max_size=6), st.data())
    @settings(max_examples=300, deadline=None)
    def test_prop_damage_never_yields_a_wrong_record(ps, data):
        # Any corruption of one byte: the records read are exactly the
        # originals minus the damaged one, never an altered one, and the
        # reader finds its way back to the next record.
        stream = _stream(ps)
        i = data.draw(st.integers(0, len(stream) - 1))
        x = data.draw(st.integers(1, 255))
        stream[i] ^= x
        from nakk.journal import _scan
        buf = bytearray(2 * (record.MAX_PAYLOAD + record.OVERHEAD))
        bad = [0]
        got = [bytes(buf[a + 4:b - 4]) for a, b in _scan(io.BytesIO(bytes(stream)), buf, bad)]
        ends = []
        e = 0
        for p in ps:
            e += len(p) + record.OVERHEAD
            ends.append(e)
        hit = len([e for e in ends if e <= i])  # the record that holds byte i
        assert got == ps[:hit] + ps[hit + 1:]
        assert bad[0] == 1

    @given(st.binary(max_size=3000))
    @settings(max_examples=200, deadline=None)
    def test_prop_crc_matches_zlib(b):
        assert record.crc32(b) == zlib.crc32(b)
        h, l = record.crc32_halves(b)
        assert (h << 16) | l == zlib.crc32(b)

    @given(st.binary(max_size=600))
    @settings(max_examples=300, deadline=None)
    def test_prop_garbage_never_crashes(b):
        recs, status = record.decode_all(b)
        assert status in (record.END, record.TRUNCATED, record.BAD)

    # ------------------------------------------------------------ the journal on CPython

    def test_journal_on_cpython(tmp_path):
        root = str(tmp_path / "journal")
        j = Journal(root)
        assert len(j.fs_id) == 16
        n = j.new_match()
        want = [b'{"seq":%d,"type":"deal"}' % i + b" " * (i * 29 % 150) for i in range(50)]
        for i, p in enumerate(want):
            j.append(n, p, finished=(i == 49))
        assert list(j.records(n)) == want
        assert "body" in os.listdir(root + "/m%06d" % n)  # sealed on this interpreter too
        m = j.new_match()
        j.append(m, b'{"seq":0,"type":"setup"}')
        j2 = Journal(root)
        assert j2.fs_id == j.fs_id
        assert j2.matches() == [(n, True), (m, False)]
        assert list(j2.records(n)) == want
        with pytest.raises(JournalError):
            j2.ack(m, b"{}")
        j2.ack(n, b'{"type":"synced"}')
        assert j2.matches() == [(m, False)]
        assert sorted(os.listdir(root)) == ["id", "m%06d" % m, "next"]
        assert Journal(root).new_match() == m + 1
        assert j2.free_bytes() > 0

    def test_journal_torn_tail_on_cpython(tmp_path):
        root = str(tmp_path / "j")
        j = Journal(root)
        n = j.new_match()
        for i in range(5):
            j.append(n, b'{"seq":%d}' % i)
        seg = root + "/m%06d/0000" % n
        with open(seg, "ab") as f:
            f.write(record.encode(record.EVENT, b'{"seq":5}')[:9])
        j = Journal(root)
        assert list(j.records(n)) == [b'{"seq":%d}' % i for i in range(5)]
        assert j.damaged == {n: 1}
        j.append(n, b'{"seq":6}')
        assert list(j.records(n))[-1] == b'{"seq":6}'
        assert sorted(os.listdir(root + "/m%06d" % n)) == ["0000", "0001"]

    def test_write_atomic(tmp_path):
        p = str(tmp_path / "settings.json")
        write_atomic(p, b"one")
        write_atomic(p, b"two")
        assert open(p, "rb").read() == b"two"
        assert os.listdir(str(tmp_path)) == ["settings.json"]

    # ------------------------------------------------------------ the journal on littlefs (MicroPython)

    CHECKS = {
        # name: heap. The simulated flash lives in the heap (a Pico-size one
        # is 1.4 MB), so those runs get a bigger one; the two that use the
        # simulator's image file run in the default 320K.
        "roundtrip": "3M", "resume": "3M", "fs_id": "3M", "stale_tmp": "3M",
        "corrupt_tail": "3M", "sealing": "3M", "corrupt_middle": "3M", "ack": "3M",
        "full": "3M", "append_cost_flat": "4M", "nor_semantics": "1M",
        "blockdev_no_alloc": "320K", "stream_memory": "320K",
    }

    @pytest.mark.parametrize("name", sorted(CHECKS))
    def test_journal_on_littlefs(name, tmp_path):
        args = [os.path.join(TESTS, "mpy", "journal_checks.py"), name, str(tmp_path / "flash.img")]
        r = run_mpy(args, heap=CHECKS[name], path=(os.path.join(TESTS, "mpy"),), timeout=300)
        assert "OK " + name in r.stdout.splitlines(), r.stdout[-3000:] + r.stderr[-3000:]
