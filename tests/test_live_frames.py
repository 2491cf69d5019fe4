"""The live link's event frame (nakk.link.net.event_frame) is the bytes proto.request makes of the same fields: for
every event a match stores, and for names with quotes, backslashes and letters beyond ASCII."""
import secrets

import boxes
from nakk.event import encode
from nakk.link import proto
from nakk.link.net import event_frame


def test_the_event_frame_is_what_the_json_encoder_makes():
    evs = [b for _, b in boxes.finished_match(seed=3)]
    evs.append(encode({"type": "setup", "v": 1, "ruleset": "saare-2020", "tournament": 'K"rand\\etapp', "table": 3,
                       "round": 2, "seq": 1, "sides": [{"id": "A", "name": "Õun/Jõgi \"Kaks\""},
                                                       {"id": "B", "name": "Mets\\Tamm 🂡"}]}))
    assert any(b"\\" in e and b'"' in e for e in evs)
    for fid, ev in enumerate(evs, 1):
        mac = secrets.token_bytes(32).hex()
        rid = "0123456789abcdef-%d" % fid
        want = proto.request(fid * 997, "event", {"rid": rid, "seq": fid, "ev": ev.decode(), "mac": mac})
        got = event_frame(fid * 997, rid, fid, ev, mac.encode())
        assert got == want
        assert proto.decode_frame(got)["ev"].encode() == ev
