# glyphs_check.py: nakk.drivers.glyphs (viper) against nakk.drivers.font's Python loop, byte for byte, on MicroPython.
#
# Every glyph, and strings (str, bytes, memoryview, malformed UTF-8, cut with '...'), drawn at
# every x in -8..130 and every y in -8..64 in both colours, once by the viper loop and once
# by the Python loop (framebuf blits), on the same random background; the two frames and the
# returned widths must be equal. Prints "draws N", "bad N" (and the first few differences),
# "viper 1" when the viper path was the one under test. Score digits too (every x in -20..130,
# y in -8..40), and scale 2 (2x text: every glyph near the edges at every y, and random
# ints, strs and bytes drawn as font.text draws them). Run by tests/test_glyphs.py.
import framebuf
from nakk.drivers import font

W = 128
H = 64
buf = bytearray(W * H // 8)
fb = framebuf.FrameBuffer(buf, W, H, framebuf.MONO_VLSB)
font.target(fb, buf)
print("viper", 1 if font._G is not None else 0)

# a fixed pseudo-random background: ORing ink and clearing it both show on it
bg = bytearray(len(buf))
r = 12345
for i in range(len(bg)):
    r = (r * 1103515245 + 12345) & 0x7FFFFFFF
    bg[i] = (r >> 16) & 0xFF
bg = bytes(bg)
clear = bytes(len(buf))
lit = b"\xff" * len(buf)

got = bytearray(len(buf))
bad = 0
draws = 0


def report(what, x, y, c, clip, a, b):
    global bad
    bad += 1
    if bad <= 5:
        print("differs", what, x, y, c, clip, a, b)


def check(s, n, x, y, c, clip, back, scale=1):
    """One draw both ways on the display's frame."""
    global draws
    buf[:] = back
    a = font._run(fb, s, n, x, y, c, scale, clip)
    got[:] = buf
    buf[:] = back
    b = font._py_run(fb, s, n, x, y, c, scale, clip)
    draws += 1
    if a != b or got != buf:
        report(("2x " if scale == 2 else "") + repr(s), x, y, c, clip, a, b)


def sweep(s, clip=0):
    n = len(s)
    for c in (1, 0):
        for y in range(-8, 65):
            for x in range(-8, 131):
                check(s, n, x, y, c, 0, bg)
        if clip:   # the cut with '...' depends on x only: every x, the rows of two pages
            for y in range(-8, 9):
                for x in range(-8, 131):
                    check(s, n, x, y, c, clip, bg)
    # and on a clear frame / a lit frame, as the app draws (ink on background)
    for y in range(-8, 65, 3):
        for x in range(-8, 131, 5):
            check(s, n, x, y, 1, clip, clear)
            check(s, n, x, y, 0, clip, lit)


# every glyph, as UTF-8 bytes (a str of one character goes the same loop in "characters" mode)
cps = font.codepoints()
for cp in cps:
    sweep(chr(cp).encode())
print("glyphs", len(cps))

STRS = (
    "Saare mäng", "Jänn Karvane", "Õun & ŠŽ žüriiõ", "♦♣♥♠ … ← → ↑ ↓ ✓ ° ·", "OK+12:7",
    "x" * 40, "ÄÖÜ äöü õÕ šŠ", "€ ∞ 日本",          # the last three are not in the font: the box
)
BYTES = (
    b"\x01\x02\x03\x04 suits", b"\xff\xc3 bad", b"a\xe2\x99", b"\xe2\x99\xa5x", b"\xf0\x9f\x98\x80!",
    b"\xc3", b"\x80\x80", b"\xe2\x28\xa1", b"\xf8\x80\x80\x80\x80", bytearray(b"V\xc3\xb5itja"),
    memoryview(b"__Saare m\xc3\xa4ng__")[2:-2],
)
for s in STRS:
    sweep(s, 30)
for s in BYTES:
    sweep(s, 17)
print("strings", len(STRS) + len(BYTES))

# measuring (no frame) and drawing into a small buffer of the string's own width (a kept word)
for s in STRS + BYTES:
    n = len(s)
    for clip in (0, 5, 9, 17, 30, 200):
        a = font._run(None, s, n, 0, 0, 1, 1, clip)
        b = font._py_run(None, s, n, 0, 0, 1, 1, clip)
        draws += 1
        if a != b:
            report("measure " + repr(s), 0, 0, 1, clip, a, b)
        w = max(1, a)
        for x in (-3, 0, 2):
            for y in (-2, 0, 3):
                b1 = bytearray(w)
                b2 = bytearray(w)
                f1 = framebuf.FrameBuffer(b1, w, 8, framebuf.MONO_VLSB)
                f2 = framebuf.FrameBuffer(b2, w, 8, framebuf.MONO_VLSB)
                a = font._run(f1, s, n, x, y, 1, 1, clip, b1, w)
                b = font._py_run(f2, s, n, x, y, 1, 1, clip)
                draws += 1
                if a != b or b1 != b2:
                    report("small " + repr(s), x, y, 1, clip, a, b)

# score digits (bytes, as an int is drawn): the viper copy against the Python one, every x in
# -20..130 and y in -8..40 (what does not fit is drawn by Python either way), and measuring
DIGITS = [bytes([c]) for c in b"0123456789-: "] + [b"57", b"-157", b"12:7", b"1a2", b"", b"888 88",
                                                   bytearray(b"-3"), memoryview(b"x42x")[1:3]]
for s in DIGITS:
    n = len(s)
    a = font._big_width(s, n)
    b = font._py_big_run(None, s, n, 0, 0, 1)
    draws += 1
    if a != b:
        report("digits width " + repr(s), 0, 0, 1, 0, a, b)
    for y in range(-8, 41):
        for x in range(-20, 131):
            buf[:] = bg
            a = font.digits(fb, s, x, y)
            got[:] = buf
            buf[:] = bg
            b = font._py_big_run(fb, s, n, x, y, 1)
            draws += 1
            if a != b or got != buf:
                report("digits " + repr(s), x, y, 1, 0, a, b)
print("digits", len(DIGITS))

# scale 2 (2x text: Schmier's scores too wide for the 32 px digits, render.py): the viper
# loop's doubled columns against _py_run's fill_rect blocks. Every glyph at every y in
# -17..64 and the x near both edges and one inside; then random ints, strs and bytes
# (a deterministic generator) at random x/y on and off the frame, both colours, with and
# without a cut, drawn aligned through font.text as render draws them; and measuring.
X2 = tuple(range(-11, 3)) + (61,) + tuple(range(117, 130))
for cp in cps:
    s = chr(cp).encode()
    for c in (1, 0):
        for y in range(-17, 65):
            for x in X2:
                check(s, len(s), x, y, c, 0, bg, 2)
print("glyphs2", len(cps))

seed = 271828


def rnd(k):
    """A number in 0..k-1 (an LCG: the same draws on every run and port)."""
    global seed
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    return (seed >> 8) % k


def text2(v, x, y, c, max_w, align, back):
    """font.text at scale 2 on the frame against the same through the Python loop."""
    global draws
    buf[:] = back
    a = font.text(fb, v, x, y, c, align, max_w, 2)
    got[:] = buf
    buf[:] = back
    if isinstance(v, int):
        s = font._NUM
        n = font._int_to_num(v)
    else:
        s = v
        n = len(v)
    clip = 0
    dx = 0
    if max_w > 0 or align != font.LEFT:
        w = font._py_run(None, s, n, 0, 0, 1, 2, 0)
        if max_w > 0 and w > max_w:
            clip = max_w
            w = font._py_run(None, s, n, 0, 0, 1, 2, clip)
        dx = w // 2 if align == font.CENTER else (w if align == font.RIGHT else 0)
    b = font._py_run(fb, s, n, x - dx, y, c, 2, clip)
    draws += 1
    if a != b or got != buf:
        report("text2 " + repr(v), x, y, c, max_w, a, b)


ALPHA = [chr(cp) for cp in cps] + ["\u20ac", "\u65e5"]     # and two the font lacks
n2 = 0
for t in range(6000):
    kind = rnd(3)
    if kind == 0:           # a score: Schmier's are two or three digits, either sign
        v = rnd(2001) - 1000 if rnd(4) else rnd(2000000001) - 1000000000
    else:
        v = "".join(ALPHA[rnd(len(ALPHA))] for _ in range(rnd(9)))
        if kind == 2:
            v = v.encode()
    x = rnd(180) - 26
    y = rnd(100) - 20
    c = rnd(2)
    max_w = (0, 0, rnd(70), 5 + rnd(40))[rnd(4)]
    align = rnd(3)
    back = (bg, clear, lit)[rnd(3)]
    text2(v, x, y, c, max_w, align, back)
    n2 += 1
    # measuring, as font.width(v, 2) (render's test of the room)
    if isinstance(v, int):
        a = font.width(v, 2)
        b = font._py_run(None, font._NUM, font._int_to_num(v), 0, 0, 1, 2, 0)
    else:
        a = font.width(v, 2)
        b = font._py_run(None, v, len(v), 0, 0, 1, 2, 0)
    draws += 1
    if a != b:
        report("width2 " + repr(v), 0, 0, 1, 0, a, b)
print("random2", n2)

# the 2x draw and measure onto the display's frame take the viper loop, not the Python one
py_run = font._py_run
font._py_run = None          # calling it now fails: TypeError
try:
    font.text(fb, -12, 21, 27, 1, font.CENTER, 0, 2)
    font.text(fb, 104, 64, 27, 0, font.CENTER, 30, 2)
    font.width(-12, 2)
    print("viper2", 1)
except TypeError:
    print("viper2", 0)
font._py_run = py_run

# inverting a kept word's bytes
src = bytes(range(256))
dst = bytearray(256)
if font._G is not None:
    font._G.invert(src, dst, 256)
    draws += 1
    if bytes(dst) != bytes(b ^ 0xFF for b in src):
        report("invert", 0, 0, 0, 0, 0, 0)
print("draws", draws)
print("bad", bad)
