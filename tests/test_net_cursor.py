"""The live link's Cursor (nakk.link.net): a match's records read a few at a time from a place kept between
calls give exactly what Journal.records gives, in order, while the match in play is appended to and sealed
meanwhile, through damage, and without making an older match the journal's current one; the link's _next
walks every match on flash that way, a bounded piece of work per call."""
import os
import random

from nakk.journal import READ_BUF, Journal
from nakk.link.net import Cursor, Net


def _ev(n, k, rnd):
    return (b'{"m":%d,"k":%d,"pad":"' % (n, k)) + b"x" * rnd.randrange(0, 300) + b'"}'


def _journal(tmp_path, rnd, matches=3, per=25):
    j = Journal(str(tmp_path / "j"), reserve=0, seg_max=480, seal_segs=2)
    for m in range(matches):
        n = j.new_match()
        for k in range(per):
            j.append(n, _ev(n, k, rnd), finished=(k == per - 1 and m < matches - 1))
    return j


def _read_all(c, rnd, buf):
    out = []
    for _ in range(10000):
        got = c.take(buf, rnd.randrange(1, 9))
        out.extend(got)
        if not got and c.end:
            return out
    raise AssertionError("the cursor never reached the end")


def test_the_cursor_reads_what_records_reads_and_leaves_the_current_match(tmp_path):
    rnd = random.Random(7)
    j = _journal(tmp_path, rnd)
    buf = bytearray(READ_BUF)
    hot = j._hot_n
    for n, _ in j.matches():
        want = list(j.records(n, kinds=True))
        assert len(want) == 25
        j._tail(hot)               # records() above made n the current one: the match in play again
        got = _read_all(Cursor(j, n), rnd, buf)
        assert got == want
        assert j._hot_n == hot     # reading an older match left the journal's current one alone


def test_the_cursor_follows_the_match_in_play_through_appends_and_seals(tmp_path):
    rnd = random.Random(11)
    j = _journal(tmp_path, rnd, matches=1, per=3)
    n = j.latest()
    c = Cursor(j, n)
    buf = bytearray(READ_BUF)
    got = []
    for k in range(3, 120):
        got.extend(c.take(buf, rnd.randrange(1, 5), 0))
        j.append(n, _ev(n, k, rnd))          # appends start new segments and seal old ones into the body
    got.extend(_read_all(c, rnd, buf))
    assert got == list(j.records(n, kinds=True))
    assert len(got) == 120
    assert any(name == "body" for name in os.listdir(j._mdir(n)))


def test_the_cursor_skips_damage_as_records_does(tmp_path):
    rnd = random.Random(3)
    j = _journal(tmp_path, rnd, matches=2, per=30)
    n = j.matches()[0][0]
    d = j._mdir(n)
    seg = sorted(x for x in os.listdir(d) if x != "body")[0]
    with open(os.path.join(d, seg), "r+b") as f:
        f.seek(20)
        f.write(b"\xff\x00\x13")
    with open(os.path.join(d, "body"), "r+b") as f:
        f.seek(40)
        f.write(b"\x01\x45\x00")
    want = list(j.records(n, kinds=True))
    assert 0 < len(want) < 30
    assert _read_all(Cursor(j, n), rnd, bytearray(READ_BUF)) == want


def test_the_cursor_skips_and_starts_again_after_a_seal(tmp_path):
    rnd = random.Random(5)
    j = _journal(tmp_path, rnd, matches=1, per=6)
    n = j.latest()
    buf = bytearray(READ_BUF)
    c = Cursor(j, n)
    kept = []
    while c.i < 6:
        kept.extend(c.take(buf, 6 - c.i, max(0, 3 - c.i)))   # three passed over, three kept
    assert kept == list(j.records(n, kinds=True))[3:6]
    j._tail(n)
    for k in range(6, 40):
        j.append(n, _ev(n, k, rnd))                       # the segment it was in is sealed away
    rest = []
    while len(rest) < 34:
        got = c.take(buf, 8)
        assert got or not c.end
        rest.extend(got)
    assert rest == list(j.records(n, kinds=True))[6:]


class _App:
    def __init__(self, j):
        self.journal = j


class _Link:
    key = b"k" * 32
    device = "d"


def test_the_links_next_sends_every_record_of_every_match_in_bounded_steps(tmp_path):
    rnd = random.Random(9)
    j = _journal(tmp_path, rnd, matches=4, per=20)
    hot = j._hot_n
    want = [(n, i + 1, p) for n, _ in j.matches() for i, p in enumerate(j.records(n))]
    j._tail(hot)
    net = Net(_App(j), None, _Link(), {})
    sent = []
    steps = 0
    while True:
        steps += 1
        assert steps < 1000
        nxt = net._next()
        if nxt is None:
            break
        if nxt is False:
            continue
        n, rid, seq, ev = nxt
        assert rid == j.result_id(n)
        sent.append((n, seq, ev))
        if rnd.random() < 0.1 and seq > 2:
            net._i = seq - 2          # the server wants an earlier one again (another server's answer, say)
            sent = [x for x in sent if x[0] != n or x[1] < seq - 1]
        else:
            net._i = seq              # the server's answer: next = seq + 1
    assert sent == [(n, s, bytes(p)) for n, s, p in want]
    assert j._hot_n == hot
    # the match in play grows: the link goes on from where it was
    j.append(hot, _ev(hot, 99, rnd))
    nxt = net._next()
    while nxt is False:
        nxt = net._next()
    assert nxt[0] == hot and nxt[2] == 21 and nxt[3] == list(j.records(hot))[20]
