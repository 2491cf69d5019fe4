"""The event format: strict JSON parsing, canonical bytes, and the fields every event type carries.

One event is one line of printable ASCII JSON. The canonical encoding (keys
sorted, no spaces, non-ASCII escaped) is what the journal stores, what is
uploaded, and what signatures and hashes cover; it is byte-identical on
MicroPython and CPython. MicroPython's json.loads accepts invalid JSON (a
trailing comma, for one), so parsing is done here, strictly.
"""

FORMAT_VERSION = 1
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
         ("match", _INT), ("clock", _INT), ("device", _STR), ("note", _STR)),
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

class _Parser:
    # A small recursive-descent JSON parser. It rejects what RFC 8259 rejects,
    # and additionally floats, exponents, duplicate keys and deep nesting,
    # none of which an event ever needs.
    def __init__(self, text):
        self.s = text
        self.i = 0

    def fail(self, why):
        raise EventError("", "invalid JSON at column %d: %s" % (self.i + 1, why))

    def ws(self):
        s, i, n = self.s, self.i, len(self.s)
        while i < n and s[i] in " \t\r\n":
            i += 1
        self.i = i

    def value(self, depth):
        self.ws()
        if self.i >= len(self.s):
            self.fail("unexpected end")
        c = self.s[self.i]
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            return self.string()
        if c == "-" or "0" <= c <= "9":
            return self.number()
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(word, self.i):
                self.i += len(word)
                return val
        self.fail("unexpected %r" % c)

    def obj(self, depth):
        if depth > _MAX_DEPTH:
            self.fail("nested too deep")
        self.i += 1
        out = {}
        self.ws()
        if self.s.startswith("}", self.i):
            self.i += 1
            return out
        while True:
            self.ws()
            if not self.s.startswith('"', self.i):
                self.fail("expected a key")
            key = self.string()
            if key in out:
                self.fail("duplicate key %r" % key)
            self.ws()
            if not self.s.startswith(":", self.i):
                self.fail("expected ':'")
            self.i += 1
            out[key] = self.value(depth)
            self.ws()
            if self.s.startswith(",", self.i):
                self.i += 1
                continue
            if self.s.startswith("}", self.i):
                self.i += 1
                return out
            self.fail("expected ',' or '}'")

    def arr(self, depth):
        if depth > _MAX_DEPTH:
            self.fail("nested too deep")
        self.i += 1
        out = []
        self.ws()
        if self.s.startswith("]", self.i):
            self.i += 1
            return out
        while True:
            out.append(self.value(depth))
            self.ws()
            if self.s.startswith(",", self.i):
                self.i += 1
                continue
            if self.s.startswith("]", self.i):
                self.i += 1
                return out
            self.fail("expected ',' or ']'")

    def string(self):
        s = self.s
        i = self.i + 1
        parts = []
        start = i
        n = len(s)
        while True:
            if i >= n:
                self.fail("unterminated string")
            c = s[i]
            if c == '"':
                break
            if c == "\\":
                parts.append(s[start:i])
                if i + 1 >= n:
                    self.fail("bad escape")
                e = s[i + 1]
                if e == "u":
                    h = s[i + 2:i + 6]
                    if len(h) != 4 or not _is_hex(h):
                        self.i = i
                        self.fail("bad \\u escape")
                    parts.append(chr(int(h, 16)))
                    i += 6
                else:
                    k = '"\\/bfnrt'.find(e)
                    if k < 0:
                        self.i = i
                        self.fail("bad escape")
                    parts.append('"\\/\b\f\n\r\t'[k])
                    i += 2
                start = i
                continue
            if ord(c) < 0x20:
                self.i = i
                self.fail("control character in string")
            i += 1
        parts.append(s[start:i])
        self.i = i + 1
        return "".join(parts)

    def number(self):
        s, i, n = self.s, self.i, len(self.s)
        j = i + 1 if s[i] == "-" else i
        if j >= n or not ("0" <= s[j] <= "9"):
            self.fail("bad number")
        if s[j] == "0" and j + 1 < n and "0" <= s[j + 1] <= "9":
            self.fail("leading zero")
        while j < n and "0" <= s[j] <= "9":
            j += 1
        if j < n and s[j] in ".eE":
            self.i = j
            self.fail("only whole numbers are allowed")
        if j - i > 10:
            self.fail("number too long")
        self.i = j
        return int(s[i:j])


def _is_hex(h):
    for c in h:
        if c not in "0123456789abcdefABCDEF":
            return False
    return True


def parse(line):
    """Parse one event line (str or bytes) into a dict; EventError if it is not valid JSON."""
    if isinstance(line, (bytes, bytearray, memoryview)):
        if len(line) > MAX_LINE:
            raise EventError("", "line longer than %d bytes" % MAX_LINE)
        try:
            line = bytes(line).decode()
        except Exception:
            raise EventError("", "not valid UTF-8")
    elif len(line) > MAX_LINE:
        raise EventError("", "line longer than %d bytes" % MAX_LINE)
    p = _Parser(line)
    p.ws()
    if not line.startswith("{", p.i):
        p.fail("an event is a JSON object")
    out = p.value(0)
    p.ws()
    if p.i != len(line):
        p.fail("text after the object")
    return out


# ---------------------------------------------------------------- encoding

def encode(obj):
    """The canonical bytes of an event (or any JSON value made of dicts, lists, str, int, bool, None)."""
    out = []
    _enc(obj, out)
    return "".join(out).encode()


def _enc(v, out):
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, str):
        _enc_str(v, out)
    elif isinstance(v, (list, tuple)):
        out.append("[")
        first = True
        for x in v:
            if not first:
                out.append(",")
            first = False
            _enc(x, out)
        out.append("]")
    elif isinstance(v, dict):
        out.append("{")
        first = True
        for k in sorted(v):  # keys are distinct, so an unstable sort is still total
            if not isinstance(k, str):
                raise EventError(str(k), "keys must be strings")
            if not first:
                out.append(",")
            first = False
            _enc_str(k, out)
            out.append(":")
            _enc(v[k], out)
        out.append("}")
    else:
        raise EventError("", "cannot encode a %s" % type(v).__name__)


def _enc_str(s, out):
    out.append('"')
    for c in s:
        o = ord(c)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif 0x20 <= o < 0x7F:
            out.append(c)
        elif o > 0xFFFF:  # outside the BMP: a surrogate pair, as JSON spells it
            o -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
        else:
            out.append("\\u%04x" % o)
    out.append('"')


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
    """Check an event's fields against (name, kind) lists; unknown fields are rejected."""
    for name, kind in required:
        if name not in ev:
            raise EventError(name, "missing")
        if not kind_ok(ev[name], kind):
            raise EventError(name, "must be %s" % _KIND_WORDS[kind])
    known = {}
    for name, kind in required:
        known[name] = kind
    if optional is None:
        return
    for name, kind in optional:
        known[name] = kind
    for name in ev:
        if name in ENVELOPE:
            continue
        if name not in known:
            raise EventError(name, "unknown field for a %s event" % ev.get("type"))
        if not kind_ok(ev[name], known[name]):
            raise EventError(name, "must be %s" % _KIND_WORDS[known[name]])


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
    required, optional = SCHEMA[t]
    check_fields(ev, required, optional)
    for name in ("note", "reason"):
        if name in ev and len(ev[name]) > 200:
            raise EventError(name, "longer than 200 characters")
    return t
