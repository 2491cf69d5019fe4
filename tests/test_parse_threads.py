"""The strict parser and the encoder from many threads at once (the judge's tool syncs each box in its own thread):
no valid event or frame is refused, and every one comes out as it went in."""
import threading

import boxes
from nakk.link import proto
from nakk.event import encode, parse

THREADS = 16
ROUNDS = 150


def _lines():
    """Events with nested objects and many keys (a setup), short ones (deals), and frames of each."""
    return [parse(b) for _, b in boxes.finished_match(1)] + [parse(b) for _, b in boxes.finished_match(2, events=30)]


def _run(work):
    errors = []
    start = threading.Barrier(THREADS)

    def one(k):
        try:
            start.wait()
            work(k)
        except Exception as e:           # collected, and the test names them
            errors.append("%s: %r" % (type(e).__name__, e))

    ts = [threading.Thread(target=one, args=(k,)) for k in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    return errors


def test_valid_events_parse_and_encode_the_same_in_every_thread():
    evs = _lines()
    want = [encode(e) for e in evs]
    bad = []

    def work(k):
        for r in range(ROUNDS):
            for i in range(len(evs)):
                j = (i + k + r) % len(evs)      # threads at different events at the same moment
                if parse(want[j]) != evs[j] or encode(evs[j]) != want[j]:
                    bad.append(j)
    errors = _run(work)
    assert not errors and not bad, (errors[:5], bad[:5])


def test_valid_frames_decode_in_every_thread():
    evs = _lines()
    frames = [proto.request(i + 1, "get", {"n": i + 1, "ev": e}) for i, e in enumerate(evs)]
    frames += [proto.reply(i + 1, {"data": encode(e).decode(), "ev": e}) for i, e in enumerate(evs)]
    want = [proto.decode_frame(f) for f in frames]

    def work(k):
        for r in range(ROUNDS // 3):
            for i in range(len(frames)):
                j = (i * 7 + k + r) % len(frames)
                got = proto.decode_frame(frames[j])      # a refused frame raises ProtoError
                assert got == want[j], j
                again = proto.request(got["id"], "get", {"n": got["id"], "ev": got["ev"]}) if "cmd" in got else None
                assert again is None or again == frames[j], j
    errors = _run(work)
    assert not errors, errors[:5]


def test_a_refused_line_still_says_why_in_every_thread():
    # the error path reads the buffer too (bad UTF-8 is told from bad JSON): each thread its own
    good = encode({"seq": 1, "type": "close", "reason": "x"})
    latin = b'{"seq":1,"type":"close","reason":"\xe4"}'

    def work(k):
        for _ in range(ROUNDS * 3):
            try:
                parse(latin)
                raise AssertionError("Latin-1 text was accepted")
            except ValueError as e:
                assert "not UTF-8" in str(e), e
            assert parse(good)["reason"] == "x"
    assert not _run(work)
