"""The font's text drawn in Python: a glyph at a time through a scratch framebuf (or pixel by
pixel without framebuf, on CPython), UTF-8 decoding and the glyph lookup. nakk.drivers.font calls
these where its viper loop (glyphs.py) does not reach: CPython, a port without viper, scale 3 and
more, a framebuf of the caller's without its bytes (the undo question's line drawn ahead). Reads
the glyph tables (fontdata.py) only; touches nothing but the framebuf it is given."""
from nakk.compat import const

try:
    import framebuf as _fbuf
except ImportError:  # CPython: draw through fb.pixel() / fb.fill_rect()
    _fbuf = None

from nakk.drivers.fontdata import EXTRA as _EXTRA, FONT as _FONT

# the tables' layout, as nakk/drivers/font.py has it (which checks the tables against it)
_HEIGHT = const(8)   # text cell height in pixels
_GAP = const(1)      # blank columns between text glyphs
_NASCII = const(95)  # glyphs 0-94 are ASCII 32-126
_SUIT0 = const(107)  # index of ♦ (then ♣ ♥ ♠)
_ELLIPSIS = const(111)
_UNKNOWN = const(119)
_SLOT = const(6)     # bytes per text glyph: width + 5 columns

if _fbuf is not None:
    _SCR = bytearray(_SLOT - 1)
    _SFB = _fbuf.FrameBuffer(_SCR, _SLOT - 1, _HEIGHT, _fbuf.MONO_VLSB)
    _INV = _fbuf.FrameBuffer(bytearray(1), 2, 1, _fbuf.MONO_HLSB)
    _INV.pixel(0, 0, 1)   # palette for colour 0: glyph ink -> 0, background -> 1 = key
    _INV.pixel(1, 0, 0)
else:
    _SCR = _SFB = _INV = None


def glyph_index(cp):
    """Glyph number for a code point (the hollow box if the font lacks it)."""
    if 32 <= cp < 127:
        return cp - 32
    if 1 <= cp <= 4:
        return _SUIT0 + cp - 1
    g = _NASCII
    for c in _EXTRA:
        if c == cp:
            return g
        g += 1
    return _UNKNOWN


def _put(fb, g, x, y, color, scale):
    """Draw glyph g with its top-left at (x, y); return its width in columns."""
    f = _FONT
    o = g * _SLOT
    w = f[o]
    if scale == 1 and _SFB is not None:
        scr = _SCR
        scr[0] = f[o + 1]
        scr[1] = f[o + 2]
        scr[2] = f[o + 3]
        scr[3] = f[o + 4]
        scr[4] = f[o + 5]
        if color:
            fb.blit(_SFB, x, y, 0)
        else:
            fb.blit(_SFB, x, y, 1, _INV)
        return w
    k = 0
    while k < w:
        o += 1
        b = f[o]
        r = 0
        while b:
            if b & 1:
                if scale == 1:
                    fb.pixel(x + k, y + r, color)
                else:
                    fb.fill_rect(x + k * scale, y + r * scale, scale, scale, color)
            b >>= 1
            r += 1
        k += 1
    return w


def _cp_at(s, i, n):
    """Decode the UTF-8 sequence at s[i]; return cp << 3 | its length (one small int).

    A malformed or truncated sequence is one U+FFFD (drawn as the box)."""
    c = s[i]
    if c < 0x80:
        return c << 3 | 1
    if c < 0xC0:              # stray continuation byte
        return 0xFFFD << 3 | 1
    if c < 0xE0:
        if i + 1 < n and s[i + 1] & 0xC0 == 0x80:
            return ((c & 0x1F) << 6 | (s[i + 1] & 0x3F)) << 3 | 2
        return 0xFFFD << 3 | 1
    if c < 0xF0:
        if i + 2 < n and s[i + 1] & 0xC0 == 0x80 and s[i + 2] & 0xC0 == 0x80:
            return ((c & 0x0F) << 12 | (s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F)) << 3 | 3
        k = 1
        while k < 3 and i + k < n and s[i + k] & 0xC0 == 0x80:
            k += 1
        return 0xFFFD << 3 | k
    k = 1
    while k < 4 and i + k < n and s[i + k] & 0xC0 == 0x80:
        k += 1
    return 0xFFFD << 3 | k



def _py_run(fb, s, n, x, y, color, scale, clip):
    """_run in Python: the glyphs blitted one by one (any framebuf, any scale)."""
    step = _GAP * scale
    cx = x
    if clip:
        ell = _FONT[_ELLIPSIS * _SLOT] * scale
    if isinstance(s, str):
        for ch in s:
            g = glyph_index(ord(ch))
            w = _FONT[g * _SLOT] * scale
            if clip and cx - x + w + step + ell > clip:
                if fb is not None:
                    _put(fb, _ELLIPSIS, cx, y, color, scale)
                return cx - x + ell
            if fb is not None:
                _put(fb, g, cx, y, color, scale)
            cx += w + step
    else:
        i = 0
        while i < n:
            v = _cp_at(s, i, n)
            i += v & 7
            g = glyph_index(v >> 3)
            w = _FONT[g * _SLOT] * scale
            if clip and cx - x + w + step + ell > clip:
                if fb is not None:
                    _put(fb, _ELLIPSIS, cx, y, color, scale)
                return cx - x + ell
            if fb is not None:
                _put(fb, g, cx, y, color, scale)
            cx += w + step
    return cx - x - step if cx > x else 0
