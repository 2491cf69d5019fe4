"""Event codec tests, run on CPython (pytest) and on MicroPython (tests/mpyrun.py) from this same file."""

from nakk.event import EventError, encode, parse, check_envelope


def rejects(line, words=""):
    try:
        parse(line)
    except EventError as e:
        assert words in str(e), (line, str(e))
        return
    raise AssertionError("accepted: %r" % (line,))


def test_parse_accepts_valid_event():
    ev = parse('{"seq": 2, "type": "deal", "game": "suit", "eyes": [75, 45], "note": "J\\u00e4nn \\"x\\""}')
    assert ev["seq"] == 2 and ev["eyes"] == [75, 45]
    assert ev["note"] == 'Jänn "x"'


def test_parse_accepts_upper_case_unicode_escapes():
    # RFC 8259 allows either case of hex digit in \\uXXXX; other tools write upper case
    assert parse('{"a": "\\u00E4"}') == {"a": "\u00e4"}
    assert parse('{"a": "\\u00e4\\u00C4\\uD83D\\uDE00"}')["a"][:2] == "\u00e4\u00c4"
    assert parse('{"a": "\\uABCD"}') == parse('{"a": "\\uabcd"}')
    rejects('{"a": "\\u00G4"}', "bad \\u escape")


def test_parse_rejects_what_micropython_json_lets_through():
    rejects('{"seq": 1, "type": "deal",}', "expected a key")
    rejects('{"seq": [1, 2,], "type": "deal"}')
    rejects("{'seq': 1}", "expected a key")
    rejects('{"seq": 01}', "leading zero")
    rejects('{"seq": 1.5}', "whole numbers")
    rejects('{"seq": 1e3}', "whole numbers")
    rejects('{"seq": 1, "seq": 2}', "duplicate key")
    rejects('{"a": "tab\there"}', "control character")
    rejects('{"a": "\\x41"}', "bad escape")
    rejects('{"a": 1} x', "text after the object")
    rejects('[1, 2]', "an event is a JSON object")
    rejects('{"a": tru}', "unexpected")
    rejects('{"a": "unterminated', "unterminated")
    rejects('{"a": {"b": {"c": {"d": {"e": 1}}}}}', "nested too deep")
    rejects("", "an event is a JSON object")
    rejects(b'{"a": "\xc3("}', "UTF-8")
    rejects(b'{"a": "\xe2\x82"}', "UTF-8")
    rejects('{"a": "' + "x" * 3000 + '"}', "longer than")


def test_text_that_is_not_utf8_is_named_by_byte_and_column():
    # a Latin-1 name (a Windows spreadsheet), UTF-16 (\\xff\\xfe), a binary file, a stray continuation byte
    rejects(b'{"a": "J\xe4nn"}', "not UTF-8 text (byte 0xE4 at column 9)")
    rejects(b"\xff\xfe{\x00", "not UTF-8 text (byte 0xFF at column 1)")
    rejects(b'{"a": 1, \xa2}', "not UTF-8 text (byte 0xA2 at column 10)")
    rejects(b'{"a": 1}\x89PNG', "not UTF-8 text (byte 0x89 at column 9)")
    # what a strict decoder refuses: overlong forms, surrogates, past U+10FFFF
    rejects(b'{"a": "\xe0\x80\x80"}', "not UTF-8 text (byte 0xE0 at column 8)")
    rejects(b'{"a": "\xc0\xaf"}', "not UTF-8 text (byte 0xC0")
    rejects(b'{"a": "\xed\xa0\x80"}', "not UTF-8 text (byte 0xED")
    rejects(b'{"a": "\xf4\x90\x80\x80"}', "not UTF-8 text (byte 0xF4")
    # valid UTF-8 where JSON does not allow it is a JSON error, not an encoding error
    rejects(b'{\xc3\xa4: 1}', "expected a key")
    # and valid UTF-8 of every length still parses
    assert parse(b'{"a": "\xc3\xa4\xe2\x99\xa6\xf0\x9f\x82\xa1"}')["a"] == "\u00e4\u2666\U0001f0a1"


def test_encode_is_canonical():
    ev = {"type": "deal", "seq": 3, "winner": "A", "eyes": [61, 59], "ok": True, "no": None, "note": "Õun ♦"}
    b = encode(ev)
    assert b == b'{"eyes":[61,59],"no":null,"note":"\\u00d5un \\u2666","ok":true,"seq":3,"type":"deal","winner":"A"}', b
    assert parse(b) == ev
    assert encode(parse(b)) == b


def test_encode_rejects_floats():
    try:
        encode({"a": 1.5})
    except EventError:
        return
    raise AssertionError("a float was encoded")


def test_envelope_names_the_field():
    for ev, field in (
        ({"type": "deal"}, "seq"),
        ({"seq": 0, "type": "deal"}, "seq"),
        ({"seq": True, "type": "deal"}, "seq"),
        ({"seq": 1, "type": "bogus"}, "type"),
        ({"seq": 2, "type": "penalty", "by": "A"}, "offence"),
        ({"seq": 2, "type": "penalty", "offence": "card-shown", "by": "D"}, "by"),
        ({"seq": 2, "type": "cancel", "target": "3"}, "target"),
        ({"seq": 2, "type": "confirm", "by": "A", "extra": 1}, "extra"),
    ):
        try:
            check_envelope(ev)
        except EventError as e:
            assert e.field == field, (ev, e.field)
            continue
        raise AssertionError("accepted %r" % (ev,))
