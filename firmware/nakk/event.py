"""The event format: strict JSON parsing, canonical bytes, and the fields every event type carries.

One event is one line of printable ASCII JSON. The canonical encoding (keys
sorted, no spaces, non-ASCII escaped) is what the journal stores, what is
uploaded, and what signatures and hashes cover; it is byte-identical on
MicroPython and CPython. MicroPython's json.loads accepts invalid JSON (a
trailing comma, for one), so parsing is done here, strictly.
"""

import json

FORMAT_VERSION = 2     # the newest format this code writes and reads (it reads every one from 1)
MAX_LINE = 2048  # bytes; an event is typically 60-200
_MAX_DEPTH = 4

SIDES = ("A", "B", "C")

# type -> required fields, optional fields (field -> kind). The rules check
# what a deal holds; here only the envelope and the generic events.
_INT, _STR, _SIDE, _LIST, _DICT, _BOOL, _ANY = "int", "str", "side", "list", "dict", "bool", "any"
ENVELOPE = ("seq", "type")
SCHEMA = {
    "setup": (
        (("v", _INT), ("ruleset", _STR), ("sides", _LIST)),
        (("settings", _DICT), ("tournament", _STR), ("table", _INT), ("round", _INT),
         ("room", _INT), ("boards", _LIST), ("seats", _LIST), ("first_shuffler", _INT),
         ("match", _INT), ("clock", _INT), ("device", _STR), ("note", _STR), ("assignment", _STR)),
    ),
    "deal": ((), None),  # fields belong to the ruleset
    "redeal": ((("reason", _STR),), (("note", _STR),)),
    "penalty": ((("offence", _STR), ("by", _SIDE)), (("cards", _INT), ("note", _STR))),
    "adjust": ((("side", _SIDE), ("points", _INT), ("reason", _STR)), ()),
    "cancel": ((("target", _INT),), (("note", _STR),)),
    "forfeit": ((("by", _SIDE),), (("reason", _STR),)),
    "close": ((("reason", _STR),), ()),
    "dispute": ((("by", _SIDE),), (("reason", _STR),)),
    "confirm": ((("by", _SIDE),), ()),
    "synced": ((), (("hash", _STR), ("judge", _STR))),
}
TYPES = tuple(sorted(SCHEMA))


class EventError(ValueError):
    """A rejected event: which field, and why, in words a judge can act on."""

    def __init__(self, field, reason):
        super().__init__((field + ": " + reason) if field else reason)
        self.field = field
        self.reason = reason


# ---------------------------------------------------------------- parsing
#
# parse() first checks the raw bytes strictly, with integer comparisons only
# (indexing bytes yields ints, so the check allocates nothing on MicroPython),
# then lets json.loads build the objects. The checker rejects what RFC 8259
# rejects, and also floats, exponents, deep nesting and duplicate keys (found
# by counting keys in the text and in the result), none of which an event needs.
#
# A parse keeps all its state in its own frames, none in the module: the judge's
# tool parses in a thread per box (`nakk sync`). So the buffer is passed down to
# _fail, and _check_value returns the keys it counted with its end index in one
# small int, end + _KEYS * keys (an index is at most MAX_LINE < _KEYS; a line
# holds under 1024 keys): a tuple per value would allocate.

_WS = b" \t\r\n"
_ESC = b'"\\/bfnrt'
_HEX = b"0123456789abcdefABCDEF"


_KEYS = 4096


def _fail(b, pos, why):
    # a byte >= 0x80 where JSON wanted something else may be the start of text
    # that is not UTF-8 at all (Latin-1, UTF-16, a binary file): say that instead
    if pos < len(b) and b[pos] >= 0x80 and _utf8_len(b, pos, len(b)) == 0:
        _not_utf8(b, pos)
    raise EventError("", "invalid JSON at column %d: %s" % (pos + 1, why))


def _not_utf8(b, pos):
    raise EventError("", "not UTF-8 text (byte 0x%02X at column %d)" % (b[pos], pos + 1))


def _utf8_len(b, i, n):
    """The length of the UTF-8 sequence whose lead byte (>= 0x80) is b[i], or 0 if it is not valid UTF-8.

    Strict as RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF
    (CPython's decoder refuses those, and json.loads would raise on them)."""
    c = b[i]
    if 0xC2 <= c <= 0xDF:
        extra, lo, hi = 1, 0x80, 0xBF
    elif 0xE0 <= c <= 0xEF:
        extra = 2
        lo = 0xA0 if c == 0xE0 else 0x80
        hi = 0x9F if c == 0xED else 0xBF
    elif 0xF0 <= c <= 0xF4:
        extra = 3
        lo = 0x90 if c == 0xF0 else 0x80
        hi = 0x8F if c == 0xF4 else 0xBF
    else:
        return 0
    if i + extra >= n or not lo <= b[i + 1] <= hi:
        return 0
    for k in range(i + 2, i + 1 + extra):
        if b[k] & 0xC0 != 0x80:
            return 0
    return 1 + extra


def _skip_ws(b, i, n):
    while i < n and b[i] in _WS:
        i += 1
    return i


def _check_value(b, i, n, depth):
    """Check one JSON value starting at b[i]; return the index after it + _KEYS * the object keys in it."""
    i = _skip_ws(b, i, n)
    if i >= n:
        _fail(b, i, "unexpected end")
    c = b[i]
    if c == 0x7B or c == 0x5B:  # { [
        if depth >= _MAX_DEPTH:
            _fail(b, i, "nested too deep")
        close = 0x7D if c == 0x7B else 0x5D
        i = _skip_ws(b, i + 1, n)
        if i < n and b[i] == close:
            return i + 1
        keys = 0
        while True:
            if c == 0x7B:
                i = _skip_ws(b, i, n)
                if i >= n or b[i] != 0x22:
                    _fail(b, i, "expected a key")
                i = _check_string(b, i, n)
                keys += 1
                i = _skip_ws(b, i, n)
                if i >= n or b[i] != 0x3A:
                    _fail(b, i, "expected ':'")
                i += 1
            i = _check_value(b, i, n, depth + 1)
            keys += i // _KEYS
            i = _skip_ws(b, i % _KEYS, n)
            if i < n and b[i] == 0x2C:
                i += 1
                continue
            if i < n and b[i] == close:
                return i + 1 + _KEYS * keys
            _fail(b, i, "expected ',' or '%s'" % ("}" if close == 0x7D else "]"))
    if c == 0x22:
        return _check_string(b, i, n)
    if c == 0x2D or 0x30 <= c <= 0x39:
        return _check_number(b, i, n)
    for word in (b"true", b"false", b"null"):
        k = len(word)
        if i + k <= n and _same(b, i, word):
            return i + k
    _fail(b, i, "unexpected character")


def _same(b, i, word):
    for k in range(len(word)):
        if b[i + k] != word[k]:
            return False
    return True


def _check_string(b, i, n):
    i += 1
    while True:
        if i >= n:
            _fail(b, i, "unterminated string")
        c = b[i]
        if c == 0x22:
            return i + 1
        if c == 0x5C:
            if i + 1 >= n or b[i + 1] not in _ESC and b[i + 1] != 0x75:
                _fail(b, i, "bad escape")
            if b[i + 1] == 0x75:  # \uXXXX
                for k in range(i + 2, i + 6):
                    if k >= n or b[k] not in _HEX:
                        _fail(b, i, "bad \\u escape")
                i += 6
            else:
                i += 2
        elif c < 0x20:
            _fail(b, i, "control character in string")
        elif c < 0x80:
            i += 1
        else:  # a UTF-8 sequence: lead byte, then continuation bytes 10xxxxxx
            k = _utf8_len(b, i, n)
            if k == 0:
                _not_utf8(b, i)
            i += k


def _check_number(b, i, n):
    start = i
    if b[i] == 0x2D:
        i += 1
    if i >= n or not 0x30 <= b[i] <= 0x39:
        _fail(b, i, "bad number")
    if b[i] == 0x30 and i + 1 < n and 0x30 <= b[i + 1] <= 0x39:
        _fail(b, i, "leading zero")
    while i < n and 0x30 <= b[i] <= 0x39:
        i += 1
    if i < n and (b[i] == 0x2E or b[i] == 0x65 or b[i] == 0x45):
        _fail(b, i, "only whole numbers are allowed")
    if i - start > 10:
        _fail(b, start, "number too long")
    return i


def _count_keys(v):
    if isinstance(v, dict):
        k = len(v)
        for x in v.values():
            if isinstance(x, (dict, list)):
                k += _count_keys(x)
        return k
    k = 0
    for x in v:
        if isinstance(x, (dict, list)):
            k += _count_keys(x)
    return k


def parse(line):
    """Parse one event line (bytes or str) into a dict; EventError if it is not strict JSON."""
    if isinstance(line, str):
        try:
            line = line.encode()
        except UnicodeError:  # CPython: a str holding undecodable bytes (surrogateescape)
            raise EventError("", "not UTF-8 text")
    n = len(line)
    if n > MAX_LINE:
        raise EventError("", "line longer than %d bytes" % MAX_LINE)
    i = _skip_ws(line, 0, n)
    if i >= n or line[i] != 0x7B:
        _fail(line, i, "an event is a JSON object")
    end = _check_value(line, i, n, 0)
    keys = end // _KEYS
    end = end % _KEYS
    if _skip_ws(line, end, n) != n:
        _fail(line, end, "text after the object")
    out = json.loads(line)
    if _count_keys(out) != keys:
        raise EventError("", "invalid JSON: a duplicate key")
    return out


# ---------------------------------------------------------------- encoding

def encode(obj):
    """The canonical bytes of an event (or any JSON value made of dicts, lists, str, int, bool, None).

    Written into one buffer made at import (events are at most MAX_LINE
    bytes), so encoding an event allocates little more than its bytes: the
    device encodes every entry as it is made. Thread-safe: each encode takes a buffer
    from _bufs and gives it back, so two threads never write into the same one."""
    bufs = _bufs
    buf = bufs.pop() if bufs else bytearray(MAX_LINE)   # list.pop is atomic in CPython
    try:
        n = _enc(obj, buf, 0)
        out = bytes(memoryview(buf)[:n])
    except IndexError:
        out = _encode_big(obj, len(buf) * 4)
    finally:
        bufs.append(buf)
    return out


def _encode_big(obj, size):
    # bigger than an event (a summary, a report): a larger buffer, this once
    while True:
        buf = bytearray(size)
        try:
            return bytes(memoryview(buf)[:_enc(obj, buf, 0)])
        except IndexError:
            size *= 4


def encode_view(obj):
    """encode(obj) as a memoryview of the encoder's own buffer, not copied: valid only until
    the next encode. For a reply written out at once (nakk.link.task), so a box whose heap is
    fragmented needs no block of the reply's size (a `get` reply is ~1.3 KB). Bigger than
    the buffer: encode()'s copy. The box's single thread only (it writes the one buffer
    made at import, which a concurrent encode may hold)."""
    try:
        n = _enc(obj, _ebuf, 0)
    except IndexError:
        return encode(obj)
    return memoryview(_ebuf)[:n]


# made at import, while the box's heap is still in one piece: made on first use, a full
# box's first `get` (a sync before any entry) needed 2 KB in one block of a fragmented heap
_ebuf = bytearray(MAX_LINE)
_bufs = [_ebuf]   # the encoders' free buffers: on the box only ever this one; a thread more, one more
_HEXOUT = b"0123456789abcdef"  # the encoder writes lower case; the parser's _HEX takes both


def _put(buf, n, lit):
    """Append the bytes of lit at n; returns the new length (IndexError when buf is full)."""
    for c in lit:
        buf[n] = c
        n += 1
    return n


def _byte(buf, n, b):
    buf[n] = b          # IndexError past the end: encode() retries with a larger buffer
    return n + 1


def _enc_int(v, buf, n):
    if v < 0:
        n = _byte(buf, n, 45)
        v = -v
    start = n
    while True:
        n = _byte(buf, n, 48 + v % 10)
        v //= 10
        if v == 0:
            break
    i, j = start, n - 1
    while i < j:
        t = buf[i]
        buf[i] = buf[j]
        buf[j] = t
        i += 1
        j -= 1
    return n


def _enc(v, buf, n):
    if v is None:
        return _put(buf, n, b"null")
    if v is True:
        return _put(buf, n, b"true")
    if v is False:
        return _put(buf, n, b"false")
    if isinstance(v, int):
        return _enc_int(v, buf, n)
    if isinstance(v, str):
        return _enc_str(v, buf, n)
    if isinstance(v, (list, tuple)):
        n = _byte(buf, n, 0x5B)
        first = True
        for x in v:
            if not first:
                n = _byte(buf, n, 0x2C)
            first = False
            n = _enc(x, buf, n)
        return _byte(buf, n, 0x5D)
    if isinstance(v, dict):
        n = _byte(buf, n, 0x7B)
        first = True
        for k in sorted(v):  # keys are distinct, so an unstable sort is still total
            if not isinstance(k, str):
                raise EventError(str(k), "keys must be strings")
            if not first:
                n = _byte(buf, n, 0x2C)
            first = False
            n = _enc_str(k, buf, n)
            n = _byte(buf, n, 0x3A)
            n = _enc(v[k], buf, n)
        return _byte(buf, n, 0x7D)
    raise EventError("", "cannot encode a %s" % type(v).__name__)


def _u(buf, n, o):
    n = _byte(buf, n, 0x5C)
    n = _byte(buf, n, 0x75)
    for sh in (12, 8, 4, 0):
        n = _byte(buf, n, _HEXOUT[(o >> sh) & 15])
    return n


def _enc_str(s, buf, n):
    n = _byte(buf, n, 0x22)
    for c in s:
        o = ord(c)
        if o == 0x22 or o == 0x5C:
            n = _byte(buf, n, 0x5C)
            n = _byte(buf, n, o)
        elif 0x20 <= o < 0x7F:
            n = _byte(buf, n, o)
        elif o > 0xFFFF:  # outside the BMP: a surrogate pair, as JSON spells it
            o -= 0x10000
            n = _u(buf, n, 0xD800 + (o >> 10))
            n = _u(buf, n, 0xDC00 + (o & 0x3FF))
        else:
            n = _u(buf, n, o)
    return _byte(buf, n, 0x22)


# ---------------------------------------------------------------- checking

def kind_ok(value, kind):
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _STR:
        return isinstance(value, str)
    if kind == _SIDE:
        return value in SIDES
    if kind == _LIST:
        return isinstance(value, list)
    if kind == _DICT:
        return isinstance(value, dict)
    if kind == _BOOL:
        return isinstance(value, bool)
    return True


def check_fields(ev, required, optional):
    """Check an event's fields against (name, kind) lists; unknown fields are rejected (optional=None: not checked)."""
    check_pair(ev, (required, optional))


def check_pair(ev, pair):
    """check_fields with its two lists in one pair made once (SCHEMA's, a ruleset's constant):
    the deal entry checks each event twice, and then makes no tuple for it."""
    required, optional = pair
    for name, kind in required:
        if name not in ev:
            raise EventError(name, "missing")
        if not kind_ok(ev[name], kind):
            raise EventError(name, "must be %s" % _KIND_WORDS[kind])
    if optional is None:
        return
    for name in ev:
        # a field the type does not require: one it allows, of its kind
        if name == "seq" or name == "type" or _find(required, name) is not None:
            continue
        kind = _find(optional, name)
        if kind is None:
            raise EventError(name, "unknown field for a %s event" % ev.get("type"))
        if not kind_ok(ev[name], kind):
            raise EventError(name, "must be %s" % _KIND_WORDS[kind])


def _find(fields, name):
    for f, kind in fields:
        if f == name:
            return kind
    return None


_KIND_WORDS = {_INT: "a whole number", _STR: "text", _SIDE: "a side (A, B or C)",
               _LIST: "a list", _DICT: "an object", _BOOL: "true or false", _ANY: "a value"}


def check_envelope(ev):
    """Check the fields every event has, and the generic part of its type's schema."""
    if not isinstance(ev, dict):
        raise EventError("", "an event is a JSON object")
    seq = ev.get("seq")
    if not kind_ok(seq, _INT) or seq < 1:
        raise EventError("seq", "must be a whole number from 1")
    t = ev.get("type")
    if not isinstance(t, str) or t not in SCHEMA:
        raise EventError("type", "must be one of " + ", ".join(TYPES))
    check_pair(ev, SCHEMA[t])
    _short(ev, "note")
    _short(ev, "reason")
    return t


def _short(ev, name):
    if name in ev and len(ev[name]) > 200:
        raise EventError(name, "longer than 200 characters")
