"""The serial link's frame codec, protocol version 2: shared by the box (MicroPython) and the judge's tool (CPython).

A frame is one line of printable ASCII (docs/protocol.md has the whole protocol):

    ~N{"cmd":"hello","id":7}~1c291ca3\\n

    ~N          the marker: a line that does not start with it is not a frame
    {...}       the body: one JSON object, canonical (nakk.event.encode: sorted
                keys, ASCII only, no floats) and checked by the same strict
                parser as events (nakk.event.parse) when read
    ~crc        "~" and the CRC-32 of the body's bytes, 8 lower-case hex digits
    \\n          the end; a "\\r" before it is dropped (rp2 writes "\\r\\n"), and
                is outside the CRC

A frame is at most MAX_LINE bytes without its line end. Requests carry
"id" (1..ID_MAX) and "cmd"; every response carries the request's "id" and
"ok": true with the command's fields, or "ok": false with "error" (a code
from ERRORS) and "why" (plain words). A frame the box cannot read gets an
error response with id 0.

Signing messages (MACs) are built here too, so both ends sign the very same
bytes: see result_msg, ack_msg, hello_msg, pair_msg, signed_msg, consent_msg.
"""

from nakk import record
from nakk.event import EventError, encode, encode_view, parse

VERSION = 2
MARK = b"~N"
MAX_LINE = 2048          # bytes of a frame, without "\r\n"
ID_MAX = 1 << 30         # request ids are 1..ID_MAX-1 (small ints on the Pico)
CHUNK = 768              # bytes of a match's stored data per `get` response (escaped: at most 1536)
_TAIL = 9                # "~" + 8 hex digits

# error codes, in an error response's "error"
E_DAMAGED = "damaged"    # the CRC does not match, or the line is not printable ASCII
E_TOO_LONG = "too-long"  # longer than MAX_LINE (the rest of the line was dropped)
E_BAD = "bad-request"    # a sound frame whose body is not a valid request
E_UNKNOWN = "unknown-command"
E_NO_MATCH = "no-match"  # no finished, unacknowledged match with that number
E_NOT_PAIRED = "not-paired"
E_BAD_MAC = "bad-mac"    # a request that must be signed by the box's judge and is not (or not rightly)
E_REFUSED = "refused"    # the players said no (pairing), or the box cannot now
E_BUSY = "busy"          # another question is already on the box's screen
E_FAILED = "failed"      # the box tried and could not (flash full, ...)
ERRORS = (E_DAMAGED, E_TOO_LONG, E_BAD, E_UNKNOWN, E_NO_MATCH, E_NOT_PAIRED, E_BAD_MAC,
          E_REFUSED, E_BUSY, E_FAILED)

COMMANDS = ("hello", "list", "get", "ack", "assign", "pair", "repl")

_HEXD = b"0123456789abcdef"


class ProtoError(Exception):
    """A line that is a frame but cannot be used: .code (one of ERRORS), .why, and .rid: the
    request's id when a sound frame's body could be read that far (else 0)."""

    def __init__(self, code, why, rid=0):
        super().__init__(why)
        self.code = code
        self.why = why
        self.rid = rid


def _salvage_id(body):
    """The id of a sound frame whose body the strict parser refused: `"id":<digits>` as the
    canonical encoding writes it, so the sender hears why at once; 0 when there is none."""
    i = body.find(b'"id":')
    if i < 0:
        return 0
    i += 5
    v = 0
    k = 0
    while i < len(body) and 48 <= body[i] <= 57 and k < 10:
        v = v * 10 + body[i] - 48
        i += 1
        k += 1
    return v if 0 < v < ID_MAX else 0


def _crc_hex(body):
    c = record.crc32(body)
    out = bytearray(8)
    for i in range(8):
        out[7 - i] = _HEXD[c & 15]
        c >>= 4
    return bytes(out)


def frame_parts(obj, view=False):
    """(body, tail) of the frame for a dict: written after MARK, they are the frame (the box
    writes the three pieces one after the other rather than joining 2 KB in RAM). view: the
    body is a view of the encoder's buffer (nakk.event.encode_view), to be written before
    anything else is encoded."""
    try:
        body = encode_view(obj) if view else encode(obj)
    except EventError as e:
        raise ProtoError(E_BAD, "cannot encode the frame: " + e.reason)
    if len(body) + len(MARK) + _TAIL > MAX_LINE:
        raise ProtoError(E_TOO_LONG, "frame longer than %d bytes" % MAX_LINE)
    return body, b"~" + _crc_hex(body) + b"\n"


def frame_of(body):
    """The frame for a body that is already one canonical JSON object (bytes): what encode_frame
    gives for that object. ProtoError(E_TOO_LONG) if it would not fit."""
    if len(body) + len(MARK) + _TAIL > MAX_LINE:
        raise ProtoError(E_TOO_LONG, "frame longer than %d bytes" % MAX_LINE)
    return MARK + body + b"~" + _crc_hex(body) + b"\n"


def encode_frame(obj):
    """The frame (bytes, ending in "\\n") for a dict; ProtoError(E_TOO_LONG) if it would not fit."""
    body, tail = frame_parts(obj)
    return MARK + body + tail


def is_frame(line):
    """Whether a line (bytes, no line end) starts with the marker: only those are answered."""
    return len(line) >= 2 and line[0] == MARK[0] and line[1] == MARK[1]


def decode_frame(line):
    """The body (a dict) of one frame line (bytes; a trailing "\\r\\n" or "\\n" is dropped).

    Raises ProtoError: E_TOO_LONG, E_DAMAGED (not printable ASCII, no CRC, a
    CRC that does not match) or E_BAD (not one strict JSON object)."""
    n = len(line)
    while n and (line[n - 1] == 10 or line[n - 1] == 13):
        n -= 1
    if n > MAX_LINE:
        raise ProtoError(E_TOO_LONG, "frame longer than %d bytes" % MAX_LINE)
    if n < len(MARK) + 2 + _TAIL or not is_frame(line):
        raise ProtoError(E_DAMAGED, "not a whole frame")
    for i in range(n):
        c = line[i]
        if c < 0x20 or c > 0x7E:
            raise ProtoError(E_DAMAGED, "byte %d is not printable ASCII" % i)
    t = n - _TAIL
    if line[t] != 0x7E:
        raise ProtoError(E_DAMAGED, "no CRC at the end")
    body = bytes(line[len(MARK):t])
    if _crc_hex(body) != bytes(line[t + 1:n]):
        raise ProtoError(E_DAMAGED, "CRC mismatch")
    try:
        obj = parse(body)
    except EventError as e:
        raise ProtoError(E_BAD, e.reason, _salvage_id(body))
    i = obj.get("id")
    if not isinstance(i, int) or isinstance(i, bool) or i < 0 or i >= ID_MAX:
        raise ProtoError(E_BAD, "id: a whole number 0..%d" % (ID_MAX - 1))
    return obj


def reply_parts(rid, fields=None, view=False):
    """frame_parts of a successful response (view: see frame_parts)."""
    obj = {} if fields is None else fields
    obj["id"] = rid
    obj["ok"] = True
    return frame_parts(obj, view)


def request(rid, cmd, fields=None):
    """A request frame: {"id": rid, "cmd": cmd, ...fields}."""
    obj = {} if fields is None else dict(fields)
    obj["id"] = rid
    obj["cmd"] = cmd
    return encode_frame(obj)


def reply(rid, fields=None):
    """A successful response frame to request rid."""
    obj = {} if fields is None else fields
    obj["id"] = rid
    obj["ok"] = True
    return encode_frame(obj)


def error(rid, code, why):
    """An error response frame (rid 0 when the request could not be read)."""
    if len(why) > 200:
        why = why[:200]
    return encode_frame({"id": rid, "ok": False, "error": code, "why": why})


def check_request(obj):
    """(id, cmd) of a decoded request; ProtoError(E_BAD) when it is not one."""
    rid = obj.get("id")
    cmd = obj.get("cmd")
    if not isinstance(rid, int) or isinstance(rid, bool) or rid < 1:
        raise ProtoError(E_BAD, "id: a request's id is 1..%d" % (ID_MAX - 1))
    if not isinstance(cmd, str):
        raise ProtoError(E_BAD, "cmd: missing")
    return rid, cmd


# ---------------------------------------------------------------- what gets signed

def hexlify(b):
    """Lower-case hex of bytes (binascii is not on every port's path the same way)."""
    out = bytearray(2 * len(b))
    for i in range(len(b)):
        out[2 * i] = _HEXD[b[i] >> 4]
        out[2 * i + 1] = _HEXD[b[i] & 15]
    return bytes(out)


def unhexlify(s):
    """bytes from hex text (str or bytes); ValueError if it is not hex of whole bytes."""
    if isinstance(s, str):
        s = s.encode()
    if len(s) & 1:
        raise ValueError("odd hex length")
    out = bytearray(len(s) // 2)
    for i in range(len(out)):
        hi = _nib(s[2 * i])
        lo = _nib(s[2 * i + 1])
        if hi < 0 or lo < 0:
            raise ValueError("not hex")
        out[i] = hi << 4 | lo
    return bytes(out)


def _nib(c):
    if 48 <= c <= 57:
        return c - 48
    if 97 <= c <= 102:
        return c - 87
    if 65 <= c <= 70:
        return c - 55
    return -1


def _b(s):
    return s.encode() if isinstance(s, str) else bytes(s)


def result_msg(result_id, sha256_hex):
    """What a box signs for a finished match: its result id and the SHA-256 of its exact stored bytes."""
    return b"nakk-result 1\n" + _b(result_id) + b"\n" + _b(sha256_hex)


def ack_msg(result_id, sha256_hex):
    """What the judge signs to acknowledge a stored result (the box drops it only on this)."""
    return b"nakk-ack 1\n" + _b(result_id) + b"\n" + _b(sha256_hex)


def hello_msg(nonce, device_id, fs_id):
    """What a paired box signs in its hello: the judge's fresh nonce, so a recorded answer cannot be replayed."""
    return b"nakk-hello 1\n" + _b(nonce) + b"\n" + _b(device_id) + b"\n" + _b(fs_id)


def pair_msg(nonce, device_id, fs_id):
    """What a box signs with its new key when the players confirmed the pairing."""
    return b"nakk-pair 1\n" + _b(nonce) + b"\n" + _b(device_id) + b"\n" + _b(fs_id)


def signed_msg(device_id, fs_id, body):
    """What the judge signs for a request that changes the box (assign, repl): the box's device and
    filesystem ids and the request's canonical body (nakk.event.encode, bytes) without its "id" and
    "mac". The body carries "cmd" and the box's current "challenge" (from its hello), so a signed
    request is good for one box, one command and once."""
    return b"nakk-req 2\n" + _b(device_id) + b"\n" + _b(fs_id) + b"\n" + _b(body)


def consent_msg(nonce, device_id, fs_id, new_key_sha256_hex, judge):
    """What a paired box's current judge signs, with the current key, to let a pair request give it a
    new key: that new key's SHA-256, the pair request's nonce and the new judge's name."""
    return (b"nakk-consent 2\n" + _b(nonce) + b"\n" + _b(device_id) + b"\n" + _b(fs_id) + b"\n"
            + _b(new_key_sha256_hex) + b"\n" + _b(judge))


# ---------------------------------------------------------------- the live link (docs/live.md)
# A Pico W box sends each saved event to the judge's live server over TCP, in these same frames.

def live_hello_msg(nonce, challenge, device_id, fs_id):
    """What the live server signs in its answer to a box's hello: the box's fresh nonce and the
    server's challenge for this connection, so the box knows it reached its own judge."""
    return (b"nakk-live-hello 1\n" + _b(nonce) + b"\n" + _b(challenge) + b"\n" + _b(device_id) + b"\n"
            + _b(fs_id))


def live_msg(challenge, fid, device_id, result_id, seq, event):
    """What a box signs for one event sent live: the connection's challenge and the frame's id
    (a recorded frame is good on one connection, once), its device, the result id, the event's
    seq and its exact stored bytes."""
    return (b"nakk-live 1\n" + _b(challenge) + b"\n" + _b(str(fid)) + b"\n" + _b(device_id) + b"\n"
            + _b(result_id) + b"\n" + _b(str(seq)) + b"\n" + _b(event))


def live_ack_msg(nonce, fid, result_id, nxt):
    """What the live server signs when it answers an event: the box's nonce of this connection,
    the frame's id, the result id and the seq it wants next (all before it are stored)."""
    return (b"nakk-live-ack 1\n" + _b(nonce) + b"\n" + _b(str(fid)) + b"\n" + _b(result_id) + b"\n"
            + _b(str(nxt)))
