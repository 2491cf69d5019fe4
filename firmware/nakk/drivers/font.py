"""Nakk font: 8 px proportional text with Estonian letters and card suits, and 18x32 score digits, drawn on a MONO_VLSB framebuf without heap allocation."""

# Text is drawn glyph by glyph: the glyph's 5 column bytes are copied into one
# preallocated 5x8 framebuf which is blitted with transparency (through an
# inverting palette for colour 0), so clipping at the screen edge is framebuf's. Score digits are
# framebufs over one bytearray, made once at import. Nothing allocates per call:
#   - bytes / bytearray / memoryview in UTF-8 are decoded here, byte by byte;
#   - int is formatted into a module buffer (score, deal number) without str();
#   - str works too: MicroPython interns the 1-char strings that iterating a
#     str yields, so each character costs a few bytes of qstr pool the first
#     time it is ever drawn, and nothing after. warm() interns the whole
#     character set at boot, so str text allocates nothing from then on.
#
# Layout of a text glyph: an 8-row cell, bit 0 of a column byte is the top
# row. Capitals and digits use rows 0-6, the x-height is rows 2-6, row 7
# holds descenders; ä ö ü keep their body and carry the dots in row 0; õ š ž
# (two-row accents) use a shorter body. The accented capitals are capitals: their
# marks in row 0 and a body of rows 1-6, taller and wider than the small letter's. Glyphs are
# 1-5 columns wide with 1 blank column between them.
#
# Code points: printable ASCII, õ ä ö ü š ž Õ Ä Ö Ü Š Ž, ♦ ♣ ♥ ♠ (also the
# control bytes 1-4, in that order, for callers that build bytes), … ← → ↑ ↓
# ✓ ° ·. Anything else draws as a hollow box.

from nakk.compat import const, micropython

try:
    import framebuf as _fbuf
except ImportError:  # CPython: draw through fb.pixel() / fb.fill_rect()
    _fbuf = None

from array import array

HEIGHT = const(8)    # text cell height in pixels
LINE = const(9)      # suggested line pitch (descenders clear the next line)
BIG_H = const(32)    # score digit height
BIG_W = const(18)    # score digit width (0-9; '-' is 12, ':' 4, ' ' 8)

LEFT = const(0)      # align: x is the left edge
CENTER = const(1)    # x is the centre
RIGHT = const(2)     # x is the right edge (exclusive)

RUUTU = "\u2666"     # ♦ diamonds
RISTI = "\u2663"     # ♣ clubs
ARTU = "\u2665"      # ♥ hearts
POTI = "\u2660"      # ♠ spades

_BIG_GAP = const(2)  # blank columns between score glyphs
_NGLYPHS = const(120)
_SLOT = const(6)     # bytes per text glyph: width + 5 columns

# The glyph tables (code points of glyphs 95.., text glyphs, score glyphs) are data of their own.
from nakk.drivers.fontdata import BIG as _BIG, EXTRA as _EXTRA, FONT as _FONT  # noqa: E402
# the text loop in Python (where the viper loop does not reach) and the glyph lookup
from nakk.drivers.fontpy import _INV, _SFB, _cp_at, _put, _py_run, glyph_index  # noqa: E402,F401

_BIG_MINUS = const(10)
_BIG_COLON = const(11)
_BIG_SPACE = const(12)
_NBIG = const(13)

# ---- tables and buffers, made once at import

_BOFF = array("H", bytes(2 * _NBIG))
_NUM = bytearray(12)                        # an int formatted as ASCII


def _index_tables():
    if len(_FONT) != _SLOT * _NGLYPHS:
        raise ValueError("font table")
    o = 0
    for g in range(_NBIG):
        _BOFF[g] = o
        o += _BIG[o] * 4 + 1
    if o != len(_BIG):
        raise ValueError("big digit table")


_index_tables()

if _fbuf is not None:
    _BIGMV = memoryview(_BIG)
    _BIGFB = tuple(
        _fbuf.FrameBuffer(_BIGMV[_BOFF[g] + 1:_BOFF[g] + 1 + 4 * _BIG[_BOFF[g]]],
                          _BIG[_BOFF[g]], BIG_H, _fbuf.MONO_VLSB)
        for g in range(_NBIG))
else:
    _BIGFB = None

# The text loop as viper native code where the port has it (nakk/drivers/glyphs.py, pixel for pixel
# the same as the Python loop, _py_run in fontpy.py): CPython, or a port or .mpy without it, keeps Python.
try:
    from nakk.drivers import glyphs as _G
except (ImportError, SyntaxError, ValueError):  # no viper, or an .mpy built for another arch
    _G = None
if _G is not None:
    _G.setup(_FONT, array("H", _EXTRA), _BIG, _BOFF)   # with the code points of glyphs 95..
    _NO_BUF = bytearray(1)       # buf argument when only measuring


def glyph(g):
    """(offset, width) of glyph g's columns in font_data(); for tests and tools."""
    o = g * _SLOT
    return o + 1, _FONT[o]


def font_data():
    return _FONT


def big_data():
    return _BIG


def _big_index(c):
    if 48 <= c <= 57:
        return c - 48
    if c == 45:
        return _BIG_MINUS
    if c == 58:
        return _BIG_COLON
    if c == 32:
        return _BIG_SPACE
    return -1


def _int_to_num(n):
    """Write int n as ASCII into _NUM; return its length. No allocation for small ints."""
    neg = n < 0
    if neg:
        n = -n
    k = 0
    while True:
        _NUM[k] = 48 + n % 10
        n //= 10
        k += 1
        if n == 0 or k >= 11:
            break
    if neg:
        _NUM[k] = 45
        k += 1
    i = 0
    j = k - 1
    while i < j:
        t = _NUM[i]
        _NUM[i] = _NUM[j]
        _NUM[j] = t
        i += 1
        j -= 1
    return k


# ---- text

@micropython.native
def _run(fb, s, n, x, y, color, scale, clip, buf=None, bw=0):
    """Draw (fb not None) or measure the first n bytes of s, or all of str s.

    clip > 0: stop before a glyph that would leave no room for '…' within clip
    pixels, and draw '…' there. Returns the width from x to the last ink column.
    buf, bw: fb's own bytes (MONO_VLSB, bw wide, 8 high) when the caller made fb;
    the display's frame (target()) is known without them."""
    if _G is not None and (scale == 1 or scale == 2):
        # opts: a str's character count (bit 0), colour 1 (bit 1), the buffer's height (bits
        # 2-8), scale 2 (bit 9: Schmier's wide scores, render.py), clip (bits 10..): one int
        # instead of five arguments (~4 µs each on the Pico). Scale 1, nearly every call,
        # skips the scale bit's test
        o = clip << 10 | (2 if color else 0) | (1 if isinstance(s, str) else 0)
        if scale != 1:
            o |= 512
        if fb is _tfb and fb is not None:
            return _G.run(_tbuf, 128, s, n, x, y, o | 64 << 2)
        if fb is None:
            return _G.run(_NO_BUF, 0, s, n, x, y, o)
        if buf is not None:
            return _G.run(buf, bw, s, n, x, y, o | HEIGHT << 2)
    return _py_run(fb, s, n, x, y, color, scale, clip)


def width(s, scale=1):
    """Width in pixels of text s (str, UTF-8 bytes/bytearray/memoryview, or int)."""
    if isinstance(s, int):
        return _run(None, _NUM, _int_to_num(s), 0, 0, 1, scale, 0)
    if scale == 1 and isinstance(s, str) and s in _cache:
        return _cache[s][1]
    return _run(None, s, len(s), 0, 0, 1, scale, 0)


_CACHE_MAX = const(96)   # strings kept drawn (~100 B each on the Pico): a match's words in both languages
_keep_max = _CACHE_MAX   # fewer where the heap is short (keep_at_most)
_MORE_MAX = const(16)    # cut forms and inverted bytes kept, each table starting again when full
_cache = {}
_clip = {}   # str -> (max_w, its drawing cut to max_w)
_inv = {}    # kept strings drawn in colour 0 (a lit box's words) -> their bytes inverted

# The display's own frame (see target()): text and digits at rows the page grid allows
# are copied into its bytes instead of blitted. On the RP2040 framebuf's blit costs about
# 1 µs a pixel (a 25 px word: 0.3 ms, a score digit: 0.7 ms), a slice copy a few µs.
_TW = const(128)
_tfb = None        # the FrameBuffer drawn on by the app
_tbuf = None       # its bytes: MONO_VLSB, _TW wide, 8 pages
_big_pages = {}    # score glyph g shifted down s rows (g << 3 | s) -> 5 page rows (bytearrays)


def target(fb, buf):
    """Copy into buf (fb's own bytes, MONO_VLSB, 128 x 64) rather than blit, where that gives
    the same pixels: a kept string at a row on the page grid, score digits over a cleared area.
    Copying writes the string's blank columns too, so the caller draws each such text and
    digit onto background (cleared, or a lit box for colour 0) that nothing else inked.
    target(None, None) turns it off."""
    global _tfb, _tbuf
    _tfb = fb
    _tbuf = buf


def _draw_kept(s, clip):
    """(framebuf, width, its bytes) of str s drawn once (clip > 0: cut with '…' as text() cuts
    it at max_w = clip), or None when it has no width."""
    n = len(s)
    w = _run(None, s, n, 0, 0, 1, 1, clip)
    if w <= 0:
        return None
    b = bytearray(w)
    f = _fbuf.FrameBuffer(b, w, HEIGHT, _fbuf.MONO_VLSB)
    _run(f, s, n, 0, 0, 1, 1, clip, b, w)
    return (f, w, b)


def _cached(s, keep=True):
    """(framebuf, width, bytes) of str s drawn once, or None (CPython, empty, or not to be kept)."""
    e = _cache.get(s)
    if e is None:
        if _SFB is None or not keep:
            return None
        if len(_cache) >= _keep_max:
            forget()           # start again: what is on screen now is drawn again on its next use
        e = _draw_kept(s, 0)
        if e is not None:
            _cache[s] = e
    return e


def _clipped(s, max_w):
    """s kept drawn cut to max_w with '…' (a name or a step's word too long for its place)."""
    c = _clip.get(s)
    if c is None or c[0] != max_w:
        if len(_clip) >= _MORE_MAX:
            _clip.clear()
        c = (max_w, _draw_kept(s, max_w))
        _clip[s] = c
    return c[1]


def _inverse(s, e):
    """The kept string's bytes as dark ink on a lit background (colour 0 over a lit box)."""
    v = _inv.get(s)
    if v is None:
        if len(_inv) >= _MORE_MAX:
            _inv.clear()
        b = e[2]
        v = bytearray(len(b))
        if _G is not None:
            _G.invert(b, v, len(b))
        else:
            for i in range(len(b)):
                v[i] = b[i] ^ 0xFF
        _inv[s] = v
    return v


def _put_kept(fb, s, e, x, y, color, align, whole):
    """Draw a kept drawing e of s (whole: not cut) at (x, y) aligned; returns its width."""
    w = e[1]
    if align == CENTER:
        x -= w // 2
    elif align == RIGHT:
        x -= w
    if fb is _tfb and not (y & 7) and 0 <= y < 64 and 0 <= x <= _TW - w and (color or whole):
        o = (y >> 3) * _TW + x
        _tbuf[o:o + w] = e[2] if color else _inverse(s, e)
    elif color:
        fb.blit(e[0], x, y, 0)
    else:
        fb.blit(e[0], x, y, 1, _INV)
    return w


def kept(s):
    """Whether str s is kept drawn (text() of it blits, allocating nothing)."""
    return s in _cache


def keep_at_most(n):
    """Keep at most n strings drawn (never more than _CACHE_MAX, never fewer than 8): the app
    sizes the cache by the heap it finds at boot."""
    global _keep_max
    _keep_max = max(8, min(_CACHE_MAX, n))
    if len(_cache) > _keep_max:
        forget()


def forget():
    """Drop the strings kept drawn (e.g. when the language changes)."""
    _cache.clear()
    _clip.clear()
    _inv.clear()


def _row(o, b, w):
    # bytes b into the frame at offset o, as bytecode: the VM slices without a slice object
    # on the heap, native code makes one
    _tbuf[o:o + w] = b


@micropython.native
def text(fb, s, x, y, color=1, align=LEFT, max_w=0, scale=1, keep=True):
    """Draw s with its cell's top-left at (x, y) (or aligned on x); return the width drawn.

    s: str, UTF-8 bytes/bytearray/memoryview, or int. Ink only: the background
    is left as it is (clear it with fb.fill_rect first). color 0 draws dark
    ink on a lit background. max_w > 0 truncates with '…' to fit. scale 2 or
    more draws each pixel as a scale x scale block (scale 2 by the viper loop onto
    the display's frame, like scale 1; 3 and more in Python).

    A str that fits is drawn once into its own small framebuf and blitted
    from then on (one blit instead of a Python loop per letter: text is what
    a press waits for on the Pico, docs/latency.md), and so is its cut form
    when max_w cuts it. Up to 96 strings are kept (then the cache starts
    again), and 16 cut forms; keep=False for text that changes
    (a message's detail), which is drawn letter by letter and not kept."""
    if scale == 1 and isinstance(s, str):
        e = _cache.get(s)
        if e is None:
            e = _cached(s, keep)
        if e is not None:
            w = e[1]
            if max_w <= 0 or w <= max_w:
                # the common case first (a frame draws dozens of words): a kept word on a page
                # row of the frame (colour 0: its inverted bytes, over a lit box), copied
                if align:
                    x -= w // 2 if align == CENTER else w
                if fb is _tfb and not (y & 7) and 0 <= y < 64 and 0 <= x <= _TW - w:
                    _row((y >> 3) * _TW + x, e[2] if color else _inverse(s, e), w)
                    return w
                return _put_kept(fb, s, e, x, y, color, LEFT, True)
            c = _clipped(s, max_w)
            if c is not None:
                return _put_kept(fb, s, c, x, y, color, align, False)
    if isinstance(s, int):
        n = _int_to_num(s)
        s = _NUM
    else:
        n = len(s)
    clip = 0
    if max_w > 0 or align != LEFT:
        w = _run(None, s, n, 0, 0, 1, scale, 0)
        if max_w > 0 and w > max_w:
            clip = max_w
            w = _run(None, s, n, 0, 0, 1, scale, clip)
        if align == CENTER:
            x -= w // 2
        elif align == RIGHT:
            x -= w
    return _run(fb, s, n, x, y, color, scale, clip)


def codepoints():
    """The code points the font draws, in glyph order (the last is the box for anything else)."""
    return list(range(32, 127)) + list(_EXTRA)


def warm():
    """Intern every character of the font as a 1-char str, so str text never allocates later.

    Call once at boot; returns the number of characters."""
    n = 0
    for cp in range(32, 127):
        n += len(chr(cp))
    for cp in _EXTRA:
        n += len(chr(cp))
    return n


# ---- score digits

def _big_rows(g, sh):
    """Score glyph g shifted down sh rows, as the 5 page rows (bytearrays) it covers."""
    k = g << 3 | sh
    rows = _big_pages.get(k)
    if rows is None:
        o = _BOFF[g]
        w = _BIG[o]
        rows = tuple(bytearray(w) for _ in range(5))
        for q in range(5):
            r = rows[q]
            for c in range(w):
                lo = _BIG[o + 1 + q * w + c] if q < 4 else 0
                hi = _BIG[o + 1 + (q - 1) * w + c] if q > 0 else 0
                r[c] = ((lo << sh) | (hi >> (8 - sh))) & 0xFF
        _big_pages[k] = rows
    return rows


def warm_digits(y):
    """Make the page rows of every score glyph drawn at row y (at start-up, not in a press).

    Not with the viper loop: it shifts the digits' pages as it copies them (~2 KB less heap)."""
    if _G is not None:
        return
    for g in range(_NBIG):
        _big_rows(g, y & 7)


def _big_width(s, n):
    """Width of score text (its first n bytes, or a str): bytes (an int's _NUM) by the
    viper loop where there is one, else Python."""
    if _G is not None and not isinstance(s, str):
        return _G.big(_NO_BUF, s, n, 0, 0, 0)
    return _py_big_run(None, s, n, 0, 0, 1)


def _py_big_run(fb, s, n, x, y, color):
    cx = x
    strs = isinstance(s, str)
    direct = fb is _tfb and fb is not None and color and 0 <= y <= 32
    if direct:
        sh = y & 7
        p0 = (y >> 3) * _TW
        last = 5 if sh and y < 32 else 4
    i = 0
    while i < n:
        g = _big_index(ord(s[i]) if strs else s[i])
        i += 1
        if g < 0:
            continue
        o = _BOFF[g]
        w = _BIG[o]
        if direct and 0 <= cx <= _TW - w:
            rows = _big_rows(g, sh)
            o = p0 + cx
            for q in range(last):
                _tbuf[o:o + w] = rows[q]
                o += _TW
        elif fb is not None:
            if _BIGFB is not None:
                if color:
                    fb.blit(_BIGFB[g], cx, y, 0)
                else:
                    fb.blit(_BIGFB[g], cx, y, 1, _INV)
            else:
                _big_pixels(fb, o, w, cx, y, color)
        cx += w + _BIG_GAP
    return cx - x - _BIG_GAP if cx > x else 0


def _big_pixels(fb, o, w, x, y, color):
    for p in range(4):
        for k in range(w):
            b = _BIG[o + 1 + p * w + k]
            r = 0
            while b:
                if b & 1:
                    fb.pixel(x + k, y + p * 8 + r, color)
                b >>= 1
                r += 1


def digits_width(s):
    """Width in pixels of score text s (digits, '-', ':', ' '; str, bytes or int)."""
    if isinstance(s, int):
        return _big_width(_NUM, _int_to_num(s))
    return _big_width(s, len(s))


@micropython.native
def digits(fb, s, x, y, color=1, align=LEFT):
    """Draw score text s (0-9 - : and space; str, bytes or int) 32 px tall; return its width.

    Other characters are skipped. Ink only, like text()."""
    if isinstance(s, int):
        n = _int_to_num(s)
        s = _NUM
    else:
        n = len(s)
    if align != LEFT:
        w = _big_width(s, n)
        x -= w // 2 if align == CENTER else w
    if _G is not None and fb is _tfb and fb is not None and color and not isinstance(s, str):
        # bytes onto the display's frame: the viper loop (-1: not within it, drawn below)
        w = _G.big(_tbuf, s, n, x, y, 1)
        if w >= 0:
            return w
    return _py_big_run(fb, s, n, x, y, color)
