"""The journal on littlefs (MicroPython, tests/mpy/journal_checks.py) and on a plain directory (CPython),
and properties of its record codec (the codec's plain tests, on both interpreters, are tests/core/test_record.py)."""
import io
import os
import zlib

import pytest

from hypothesis import given, settings, strategies as st

from conftest import TESTS, run_mpy
from nakk import record
from nakk.journal import Journal, JournalError, write_atomic
from core.test_record import _stream


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
    assert sorted(os.listdir(root)) == ["id", "index", "m%06d" % m, "next"]
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


def test_matches_written_in_turn_keep_their_tails(tmp_path):
    """Only one match's whole tail is kept in RAM (the others: the kind of their last record); writing
    to two matches in turn, reading a third between, puts every record where it belongs, and a
    fresh journal reads the same."""
    root = str(tmp_path / "j")
    j = Journal(root, seg_max=120, seal_segs=2)
    a, b, c = j.new_match(), j.new_match(), j.new_match()
    j.append(c, b'{"seq":1,"type":"setup"}', finished=True)
    want = {a: [], b: []}
    for i in range(40):
        for n in (a, b):
            p = b'{"seq":%d,"m":%d}' % (i, n) + b" " * (i * 7 % 40)
            j.append(n, p, finished=(n == a and i == 39))
            want[n].append(p)
            if i % 5 == 0:
                assert j.head(c, 2) == [b'{"seq":1,"type":"setup"}']   # another match read between
    assert j.matches() == [(a, True), (b, False), (c, True)]
    for jj in (j, Journal(root)):
        assert list(jj.records(a)) == want[a] and list(jj.records(b)) == want[b]
        assert jj.head(b, 2) == want[b][:2]
        assert jj.matches() == [(a, True), (b, False), (c, True)] and not jj.damaged
    with pytest.raises(JournalError):
        j.head(99, 1)


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
    "blockdev_no_alloc": "320K", "stream_memory": "320K", "index": "3M",
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_journal_on_littlefs(name, tmp_path):
    args = [os.path.join(TESTS, "mpy", "journal_checks.py"), name, str(tmp_path / "flash.img")]
    r = run_mpy(args, heap=CHECKS[name], path=(os.path.join(TESTS, "mpy"),), timeout=300)
    assert "OK " + name in r.stdout.splitlines(), r.stdout[-3000:] + r.stderr[-3000:]
