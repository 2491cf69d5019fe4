"""The link's frame codec and signing, run on CPython (pytest) and on MicroPython (tests/mpy_runner.py) from this same file."""

from nakk.link import proto
from nakk.link.proto import ProtoError
from nakk.link.sign import eq, hmac_sha256

# RFC 4231, HMAC-SHA-256 test cases 1-7 (case 5 is compared on its first 128 bits, as the RFC gives it)
RFC4231 = (
    (b"\x0b" * 20, b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 20, b"\xdd" * 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    (bytes(range(1, 26)), b"\xcd" * 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    (b"\x0c" * 20, b"Test With Truncation", "a3b6167473100ee06e0c796c2955552b"),
    (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    (b"\xaa" * 131, b"This is a test using a larger than block-size key and a larger than block-size data. "
     b"The key needs to be hashed before being used by the HMAC algorithm.",
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
)


def rejects(line, code, words=""):
    try:
        proto.decode_frame(line)
    except ProtoError as e:
        assert e.code == code, (line, e.code, e.why)
        assert words in e.why, (line, e.why)
        return
    raise AssertionError("accepted: %r" % (line,))


def test_hmac_rfc4231():
    for key, msg, want in RFC4231:
        got = proto.hexlify(hmac_sha256(key, msg)).decode()
        assert got[:len(want)] == want, (key[:4], got)


def test_hmac_agrees_with_cpython_when_there():
    try:
        import hashlib
        import hmac
        ref = hmac.new
    except (ImportError, AttributeError):
        return      # MicroPython: the RFC vectors above are the reference
    for n in (0, 1, 31, 32, 63, 64, 65, 200):
        key = bytes((i * 7 + n) & 255 for i in range(n))
        msg = bytes((i * 13) & 255 for i in range(n * 3))
        assert hmac_sha256(key, msg) == ref(key, msg, hashlib.sha256).digest()


def test_eq_is_plain_equality():
    assert eq(b"abc", b"abc")
    assert not eq(b"abc", b"abd")
    assert not eq(b"abc", b"ab")
    assert eq(b"", b"")
    assert eq(bytearray(b"\x00\xff"), b"\x00\xff")


def test_frame_round_trip():
    line = proto.request(7, "get", {"n": 12, "off": 0})
    assert line.startswith(b"~N{") and line.endswith(b"\n")
    assert proto.is_frame(line)
    obj = proto.decode_frame(line)
    assert obj == {"id": 7, "cmd": "get", "n": 12, "off": 0}
    assert proto.check_request(obj) == (7, "get")
    # rp2 writes "\r\n": the CR is outside the CRC
    assert proto.decode_frame(line[:-1] + b"\r\n") == obj
    r = proto.decode_frame(proto.reply(7, {"data": 'x"y\\z \u00e4'}))
    assert r == {"id": 7, "ok": True, "data": 'x"y\\z \u00e4'}
    e = proto.decode_frame(proto.error(0, proto.E_DAMAGED, "CRC mismatch"))
    assert e["ok"] is False and e["error"] == "damaged" and e["id"] == 0


def test_frames_are_printable_ascii():
    line = proto.reply(1, {"name": "J\u00e4nn \u00d5un\ttab", "n": -5, "l": [True, None]})
    for c in line[:-1]:
        assert 0x20 <= c <= 0x7E, line


def test_decode_rejects_damage():
    good = proto.request(3, "hello")[:-1]
    rejects(good[:-1] + (b"0" if good[-1:] != b"0" else b"1"), proto.E_DAMAGED, "CRC")
    flipped = bytearray(good)
    flipped[5] ^= 0x01
    rejects(bytes(flipped), proto.E_DAMAGED, "CRC")
    rejects(good[:10], proto.E_DAMAGED)
    rejects(good[:-9], proto.E_DAMAGED)
    rejects(good[:6] + b"\x03" + good[7:], proto.E_DAMAGED, "printable")
    rejects(b"~N" + b"x" * proto.MAX_LINE, proto.E_TOO_LONG)
    rejects(b"~N", proto.E_DAMAGED)


def test_decode_rejects_bodies_that_are_not_strict_json():
    for body in (b'{"id":1,"cmd":"x",}', b'{"id":1,"id":2}', b'[1]', b'{"id":1.5}', b"{'id':1}"):
        line = b"~N" + body + b"~" + proto._crc_hex(body)
        rejects(line, proto.E_BAD)
    for body in (b'{"cmd":"x"}', b'{"id":-1}', b'{"id":"3"}', b'{"id":1073741824}'):
        rejects(b"~N" + body + b"~" + proto._crc_hex(body), proto.E_BAD, "id")
    # a sound frame the strict parser refuses still names its id, so the sender hears why at once
    body = b'{"cmd":"x","id":77,"n":10000000000}'
    try:
        proto.decode_frame(b"~N" + body + b"~" + proto._crc_hex(body))
    except ProtoError as e:
        assert e.code == proto.E_BAD and e.rid == 77, (e.code, e.rid)
    else:
        raise AssertionError("accepted a number too long")


def test_check_request_needs_id_and_cmd():
    for obj in ({"id": 0, "cmd": "x"}, {"id": 1}, {"id": True, "cmd": "x"}, {"id": 2, "cmd": 5}):
        try:
            proto.check_request(obj)
        except ProtoError as e:
            assert e.code == proto.E_BAD
            continue
        raise AssertionError("accepted %r" % (obj,))


def test_encode_refuses_what_would_not_fit():
    try:
        proto.reply(1, {"data": "x" * proto.MAX_LINE})
    except ProtoError as e:
        assert e.code == proto.E_TOO_LONG
    else:
        raise AssertionError("an oversized frame was encoded")
    # a full chunk of event bytes fits, even if every byte needs escaping in JSON
    chunk = '"\\' * (proto.CHUNK // 2)
    line = proto.reply(2 ** 29, {"n": 999999, "off": 10 ** 6, "size": 10 ** 6, "data": chunk,
                                 "sha256": "0" * 64, "sig": "0" * 64, "rid": "0" * 16 + "-999999",
                                 "final": [-999, 999, 999], "end": False})
    assert len(line) <= proto.MAX_LINE + 1


def test_not_frames():
    assert not proto.is_frame(b"")
    assert not proto.is_frame(b"hello")
    assert not proto.is_frame(b">>> print(1)")
    assert not proto.is_frame(b"~")


def test_hex():
    assert proto.hexlify(b"\x00\x0f\xa0\xff") == b"000fa0ff"
    assert proto.unhexlify("000fA0ff") == b"\x00\x0f\xa0\xff"
    for bad in ("abc", "zz", "0g"):
        try:
            proto.unhexlify(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


def test_signed_messages_differ_by_purpose():
    sha = "ab" * 32
    msgs = (proto.result_msg("00aa-3", sha), proto.ack_msg("00aa-3", sha),
            proto.hello_msg("n1", "dev", "00aa"), proto.pair_msg("n1", "dev", "00aa"))
    assert len(set(msgs)) == 4
    assert proto.result_msg("00aa-3", sha) != proto.result_msg("00aa-4", sha)
    assert hmac_sha256(b"k", msgs[0]) != hmac_sha256(b"k", msgs[1])
