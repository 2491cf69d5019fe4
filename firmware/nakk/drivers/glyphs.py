"""Nakk glyphs: the font's text loop (UTF-8 -> glyph -> column bytes in a MONO_VLSB buffer, at scale 1 or 2) and score-digit copy as viper native code; MicroPython only."""

# font.py imports this behind a fallback: CPython, and a port without viper, keep
# font.py's Python loops, which this must match pixel for pixel (tests/mpy/glyphs_check.py
# compares the two). Why: on the Pico one bytecode op costs ~3 us and the Python loop
# spends tens of ops a glyph (decode, index, a blit through a scratch framebuf), so a
# screen of new words took 20+ ms; here a glyph is a few hundred machine instructions.
#
# Native code lives in RAM on the Pico (this module: ~5.7 KB), so it stays three small
# functions: text, score digits, inverting a kept word. Scale 2 (Schmier's scores too wide
# for the score digits, render.py) is a bit of run()'s options and a column loop of its own
# (+~700 bytes in all; a loop shared with scale 1 took +400 but made every 1x text a few per
# cent slower). The .mpy
# holding it is built for one architecture (mpy-cross -march=..., see
# host/nakk_host/build.py); the rest of the firmware is architecture-free bytecode.
#
# Layout (font.py's _FONT): 6 bytes a glyph, its width then 5 column bytes, bit 0 the
# top row; glyphs 0-94 are ASCII 32-126, 95.. the code points in font.py's _EXTRA (xcp
# here), 107-110 the suits (also the bytes 1-4), 111 the ellipsis, the last one the box.

import micropython

_F = b""      # font.py's tables, given by setup(): _FONT, the code points of glyphs 95..
_X = None     # (array "H"), the score digits _BIG and their offsets _BOFF (array "H")
_NX = 0
_B = b""
_BO = None


def _digit_table():
    # byte c (below 59) -> its score glyph + 1, as font.py's _BIG orders them: 0-9, '-', ':',
    # ' '; 0 for a byte big() skips (one table for its two passes)
    t = bytearray(59)
    for i in range(10):
        t[48 + i] = i + 1
    t[45] = 11
    t[58] = 12
    t[32] = 13
    return bytes(t)


_DG = _digit_table()


def setup(font, xcp, big, boff):
    """Give the font's tables (once, at font's import): fewer arguments a call (each costs ~4 us)."""
    global _F, _X, _NX, _B, _BO
    _F = font
    _X = xcp
    _NX = len(xcp)
    _B = big
    _BO = boff


@micropython.viper
def run(buf: ptr8, bw: int, s: ptr8, n: int, x: int, y: int, opts: int) -> int:
    """Draw (bw > 0) or measure text s at (x, y) into buf, MONO_VLSB, bw wide (its stride).

    n: bytes of s, or (opts bit 0, a str's buffer: valid UTF-8) its characters. opts bit 1:
    colour 1 (sets the ink's pixels; else clears them), bits 2-8: the buffer's height,
    bit 9: scale 2 (each pixel a 2 x 2 block, as font._put's fill_rect), bits 10 and up:
    clip, font.py's cut with '...' at that many pixels (0: none).
    Returns the width from x to the last ink column, as font._py_run does."""
    font = ptr8(_F)
    xcp = ptr16(_X)
    nx = int(_NX)
    clear = 0 if opts & 2 else 0xFF     # colour 0 clears the ink's pixels
    bh = (opts >> 2) & 0x7F
    s1 = (opts >> 9) & 1          # log2 of the scale: a glyph is 5 << s1 columns, 8 << s1 rows
    clip = opts >> 10
    ell = int(font[666]) << s1    # width of glyph 111, the ellipsis (6 bytes a glyph)
    if opts & 1:
        lim = 0x3FFFFFFF          # a str: count characters, its bytes are well formed
        kn = n
    else:
        lim = n
        kn = 0x3FFFFFFF
    # where the rows land, the same for every glyph: a column's bits shifted up (y on or
    # below page q's top) or down (y above the buffer), then cut into np pages from
    # offset a0, each masked (m0-m2) where the buffer's height ends inside it
    gh = 8 << s1
    np = 0
    a0 = 0
    up = 0
    dn = 0
    m0 = 0xFF
    m1 = 0xFF
    m2 = 0xFF
    if bw > 0 and y < bh and y + gh > 0:
        q = 0
        if y >= 0:
            q = y >> 3
            up = y & 7
        else:
            dn = 0 - y
        a0 = q * bw
        np = (gh + up - dn + 7) >> 3  # pages the shifted column covers
        left = bh - q * 8             # rows of the buffer from page q down
        if np * 8 > left:
            np = (left + 7) >> 3
        if left < 8:
            m0 = (1 << left) - 1
        elif left < 16:
            m1 = (1 << (left - 8)) - 1
        elif left < 24:
            m2 = (1 << (left - 16)) - 1
    gw = 5 << s1
    step = 1 << s1                # the blank column between glyphs, scaled
    cx = x
    i = 0
    k = 0
    while i < lim and k < kn:
        # UTF-8 as font._cp_at decodes it: a malformed or cut sequence is one U+FFFD
        c = int(s[i])
        cp = 0xFFFD
        ln = 1
        if c < 0x80:
            cp = c
        elif c < 0xC0:
            pass
        elif c < 0xE0:
            if i + 1 < lim and (int(s[i + 1]) & 0xC0) == 0x80:
                cp = ((c & 0x1F) << 6) | (int(s[i + 1]) & 0x3F)
                ln = 2
        elif c < 0xF0:
            if i + 2 < lim and (int(s[i + 1]) & 0xC0) == 0x80 and (int(s[i + 2]) & 0xC0) == 0x80:
                cp = ((c & 0x0F) << 12) | ((int(s[i + 1]) & 0x3F) << 6) | (int(s[i + 2]) & 0x3F)
                ln = 3
            else:
                while ln < 3 and i + ln < lim and (int(s[i + ln]) & 0xC0) == 0x80:
                    ln += 1
        else:
            while ln < 4 and i + ln < lim and (int(s[i + ln]) & 0xC0) == 0x80:
                ln += 1
        i += ln
        k += 1
        # glyph index, as font.glyph_index
        if cp >= 32 and cp < 127:
            g = cp - 32
        elif cp >= 1 and cp <= 4:
            g = 106 + cp
        else:
            g = 119
            j = 0
            while j < nx:
                if int(xcp[j]) == cp:
                    g = 95 + j
                    break
                j += 1
        w = int(font[g * 6]) << s1
        last = 0
        if clip > 0 and cx - x + w + step + ell > clip:
            g = 111               # no room: the ellipsis here, and stop
            last = 1
        # the glyph's columns (unused ones are 0) ORed in or cleared, clipped to the buffer;
        # at scale 2 each font column is two screen columns and each of its bits two rows
        if np > 0 and cx < bw and cx + gw > 0:
            o = g * 6 + 1
            col = 0
            if cx < 0:
                col = 0 - cx
            end = gw
            if cx + gw > bw:
                end = bw - cx
            # (old | v) ^ (v & clear): old | v for colour 1, old & ~v for colour 0
            if s1 == 0:           # scale 1, nearly every call: its own loop, two pages at most
                while col < end:
                    b = int(font[o + col])
                    if b != 0:
                        p = a0 + cx + col
                        b = (b << up) >> dn
                        v = b & m0
                        buf[p] = (int(buf[p]) | v) ^ (v & clear)
                        if np > 1:
                            v = (b >> 8) & m1
                            buf[p + bw] = (int(buf[p + bw]) | v) ^ (v & clear)
                    col += 1
            else:
                while col < end:
                    b = int(font[o + (col >> 1)])
                    if b != 0:
                        b = (b | (b << 4)) & 0x0F0F      # bit r -> bits 2r and 2r + 1
                        b = (b | (b << 2)) & 0x3333
                        b = (b | (b << 1)) & 0x5555
                        b = ((b | (b << 1)) << up) >> dn
                        p = a0 + cx + col
                        v = b & m0
                        buf[p] = (int(buf[p]) | v) ^ (v & clear)
                        if np > 1:
                            v = (b >> 8) & m1
                            buf[p + bw] = (int(buf[p + bw]) | v) ^ (v & clear)
                            if np > 2:
                                v = (b >> 16) & m2
                                buf[p + 2 * bw] = (int(buf[p + 2 * bw]) | v) ^ (v & clear)
                    col += 1
        if last:
            return cx - x + ell
        cx += w + step
    if cx > x:
        return cx - x - step
    return 0


@micropython.viper
def invert(src: ptr8, dst: ptr8, n: int):
    """dst[i] = src[i] ^ 0xFF for the first n bytes (a kept word as dark ink on a lit box)."""
    i = 0
    while i < n:
        dst[i] = int(src[i]) ^ 0xFF
        i += 1


@micropython.viper
def big(buf: ptr8, s: ptr8, n: int, x: int, y: int, draw: int) -> int:
    """Score digits: the first n bytes of s (0-9 - : and space; others skipped) at (x, y).

    Returns their width; draw != 0: also copies them into buf, the 128 x 64 frame, as
    font._py_big_run's direct path does (page rows written whole: over a cleared area),
    or returns -1 and draws nothing when y is not 0..32 or a glyph would not lie
    within columns 0..127 (font.py then draws them its own way)."""
    bt = ptr8(_B)
    bo = ptr16(_BO)
    dg = ptr8(_DG)
    cx = x
    fits = 1
    i = 0
    while i < n:
        c = int(s[i])
        i += 1
        g = -1
        if c < 59:
            g = int(dg[c]) - 1
        if g < 0:
            continue
        w = int(bt[int(bo[g])])
        if cx < 0 or cx > 128 - w:
            fits = 0
        cx += w + 2
    width = 0
    if cx > x:
        width = cx - x - 2
    if draw == 0:
        return width
    if fits == 0 or y < 0 or y > 32:
        return -1
    sh = y & 7
    p0 = (y >> 3) * 128
    last = 4
    if sh != 0:
        last = 5
    cx = x
    i = 0
    while i < n:
        c = int(s[i])
        i += 1
        g = -1
        if c < 59:
            g = int(dg[c]) - 1
        if g < 0:
            continue
        o = int(bo[g])
        w = int(bt[o])
        o += 1
        # page row q: the glyph's page q shifted down sh rows, with page q - 1's low rows
        q = 0
        while q < last:
            a = p0 + q * 128 + cx
            lo = o + q * w
            hi = lo - w
            k = 0
            while k < w:
                v = 0
                if q < 4:
                    v = int(bt[lo + k]) << sh
                if q > 0:
                    v = v | (int(bt[hi + k]) >> (8 - sh))
                buf[a + k] = v & 0xFF
                k += 1
            q += 1
        cx += w + 2
    return width
