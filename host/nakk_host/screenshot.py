"""Screenshots of the Nakk display on the host: a 128x64 MONO_VLSB framebuffer and the LED ring buffers as a PNG or as terminal text (CPython only, standard library only)."""

import math
import struct
import sys
import zlib

OLED_W = 128
OLED_H = 64
LEDS = 16

_INK = (200, 235, 255)      # a lit OLED pixel (white, slightly cold)
_PANEL = (8, 10, 16)        # an unlit OLED pixel
_GRID = (0, 0, 0)           # the gap between pixels when scaled up
_BACK = (32, 34, 38)        # the box around the panel and the rings
_LED_OFF = (20, 21, 24)     # an unlit LED (a faint one is a little lighter)


# ---- reading buffers

def pixel(fb, x, y, width=OLED_W):
    """1 if pixel (x, y) of a MONO_VLSB buffer is lit."""
    return fb[(y >> 3) * width + x] >> (y & 7) & 1


def bitmap(fb, width=OLED_W, height=OLED_H):
    """The buffer as rows of 0/1, top row first."""
    if len(fb) < width * ((height + 7) // 8):
        raise ValueError("framebuffer too short: %d bytes for %dx%d" % (len(fb), width, height))
    return [[pixel(fb, x, y, width) for x in range(width)] for y in range(height)]


def led_colors(ring):
    """(r, g, b) per LED of a GRB ring buffer, in buffer order."""
    return [(ring[i + 1], ring[i], ring[i + 2]) for i in range(0, len(ring) - 2, 3)]


def _shown(rgb):
    """An LED's PWM values (linear light) as an sRGB colour to look at; unlit LEDs grey."""
    if not any(rgb):
        return _LED_OFF
    return tuple(int(round(255 * (v / 255.0) ** (1 / 2.2))) for v in rgb)


def _positions(n, first=0, reverse=False):
    """Buffer index -> position on the ring (0 at 12 o'clock, clockwise), like nakk.drivers.rings."""
    pos = [0] * n
    for p in range(n):
        i = (first - p) % n if reverse else (first + p) % n
        pos[i] = p
    return pos


# ---- PNG

def png_bytes(width, height, rows):
    """A truecolour PNG from rows of bytes (3 bytes per pixel)."""
    raw = bytearray()
    for row in rows:
        if len(row) != 3 * width:
            raise ValueError("row length")
        raw.append(0)               # filter: none
        raw += row
    if len(rows) != height:
        raise ValueError("row count")

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
            + chunk(b"IEND", b""))


def read_png(data):
    """(width, height, rows of bytes) of an 8-bit RGB PNG; enough to check our own files."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos = 8
    idat = b""
    width = height = 0
    while pos < len(data):
        n, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if tag == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if (depth, ctype) != (8, 2):
                raise ValueError("only 8-bit RGB")
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = 3 * width
    rows = []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


class _Canvas:
    def __init__(self, w, h, color):
        self.w = w
        self.h = h
        self.rows = [bytearray(bytes(color) * w) for _ in range(h)]

    def rect(self, x, y, w, h, color):
        c = bytes(color)
        x0, x1 = max(0, x), min(self.w, x + w)
        if x1 <= x0:
            return
        for yy in range(max(0, y), min(self.h, y + h)):
            self.rows[yy][3 * x0:3 * x1] = c * (x1 - x0)

    def disc(self, cx, cy, r, color):
        c = bytes(color)
        for yy in range(int(cy - r), int(cy + r) + 2):
            if not 0 <= yy < self.h:
                continue
            dy = yy + 0.5 - cy
            if abs(dy) > r:
                continue
            dx = math.sqrt(r * r - dy * dy)
            x0 = max(0, int(math.ceil(cx - dx - 0.5)))
            x1 = min(self.w, int(math.floor(cx + dx - 0.5)) + 1)
            if x1 > x0:
                self.rows[yy][3 * x0:3 * x1] = c * (x1 - x0)


def to_png(fb, rings=(), scale=4, path=None, width=OLED_W, height=OLED_H,
           ring_first=0, ring_reverse=False, grid=None):
    """Render the display (scaled `scale` times) and the rings below it as PNG bytes.

    fb: the MONO_VLSB buffer (width * height / 8 bytes). rings: GRB buffers,
    one per ring, drawn side by side as circles of LEDs with position 0 at the
    top, clockwise (ring_first / ring_reverse as given to nakk.drivers.rings.Rings).
    LED values are PWM duty (linear light) and are gamma-encoded for the eye.
    Writes the file too if path is given."""
    if scale < 1:
        raise ValueError("scale")
    if grid is None:
        grid = scale >= 4
    bits = bitmap(fb, width, height)
    margin = 4 * scale
    panel_w, panel_h = width * scale, height * scale
    rings = [bytes(r) for r in rings]
    ring_d = 48 * scale if rings else 0           # diameter of the LED circle
    ring_gap = margin
    rings_w = len(rings) * ring_d + max(0, len(rings) - 1) * ring_gap
    cw = max(panel_w, rings_w) + 2 * margin
    ch = panel_h + 2 * margin + (ring_d + margin if rings else 0)
    cv = _Canvas(cw, ch, _BACK)
    px0 = (cw - panel_w) // 2
    py0 = margin
    cv.rect(px0, py0, panel_w, panel_h, _GRID if grid else _PANEL)
    cell = scale - 1 if grid else scale
    for y in range(height):
        row = bits[y]
        for x in range(width):
            cv.rect(px0 + x * scale, py0 + y * scale, cell, cell, _INK if row[x] else _PANEL)
    if rings:
        rx0 = (cw - rings_w) // 2
        cy = py0 + panel_h + margin + ring_d / 2
        for k, ring in enumerate(rings):
            cols = led_colors(ring)
            n = len(cols)
            pos = _positions(n, ring_first, ring_reverse)
            cx = rx0 + k * (ring_d + ring_gap) + ring_d / 2
            radius = ring_d / 2 - 5 * scale
            dot = max(2.0, min(3.2 * scale, math.pi * radius / n * 0.8))
            for i, rgb in enumerate(cols):
                a = 2 * math.pi * pos[i] / n
                x = cx + radius * math.sin(a)
                y = cy - radius * math.cos(a)
                cv.disc(x, y, dot + 1, (0, 0, 0))
                cv.disc(x, y, dot, _shown(rgb))
    data = png_bytes(cw, ch, cv.rows)
    if path:
        with open(path, "wb") as f:
            f.write(data)
    return data


# ---- terminal

_HALF = (" ", "\u2584", "\u2580", "\u2588")   # index: top << 1 | bottom


def to_text(fb, rings=(), width=OLED_W, height=OLED_H, color=False, border=True,
            ring_first=0, ring_reverse=False):
    """The display as text, two pixel rows per line in half blocks (▀ ▄ █), rings below.

    Each ring is one line of its LEDs in position order (0 = top, clockwise):
    '●' lit, '○' faint (under a quarter of the ring's brightest), '·' off;
    with color=True in 24-bit ANSI colour."""
    bits = bitmap(fb, width, height)
    lines = []
    if border:
        lines.append("\u250c" + "\u2500" * width + "\u2510")
    for y in range(0, height, 2):
        top = bits[y]
        bot = bits[y + 1] if y + 1 < height else [0] * width
        s = "".join(_HALF[top[x] << 1 | bot[x]] for x in range(width))
        lines.append("\u2502" + s + "\u2502" if border else s)
    if border:
        lines.append("\u2514" + "\u2500" * width + "\u2518")
    for k, ring in enumerate(rings):
        cols = led_colors(bytes(ring))
        n = len(cols)
        by_pos = [None] * n
        for i, p in enumerate(_positions(n, ring_first, ring_reverse)):
            by_pos[p] = cols[i]
        top = max(max(c) for c in cols) if cols else 0
        out = []
        for rgb in by_pos:
            if not any(rgb):
                out.append("\u00b7")
                continue
            mark = "\u25cb" if 4 * max(rgb) < top else "\u25cf"
            if color:
                r, g, b = _shown(rgb)
                out.append("\x1b[38;2;%d;%d;%dm%s\x1b[0m" % (r, g, b, mark))
            else:
                out.append(mark)
        lines.append("%s %s" % ("ABCDEFGH"[k % 8], " ".join(out)))
    return "\n".join(lines)


def glyph_art(cols, height=8):
    """Column bytes (bit 0 = top) as rows of '#' and '.', for reading or editing glyphs."""
    return ["".join("#" if c >> y & 1 else "." for c in cols) for y in range(height)]


def font_sheet():
    """Every glyph of nakk.drivers.font as text art, one block per glyph."""
    from nakk.drivers import font
    data = font.font_data()
    chars = [chr(c) for c in font.codepoints()]
    out = []
    for ch in chars:
        o, w = font.glyph(font.glyph_index(ord(ch)))
        out.append("== %s  U+%04X  width %d" % (ch, ord(ch), w))
        out.extend(glyph_art(data[o:o + w]))
    return "\n".join(out)


def main(argv=None):
    """nakk-screenshot FB.bin [RING.bin ...] [-o OUT.png] [--text] [--color] [--font]"""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m nakk_host.screenshot", description=main.__doc__)
    ap.add_argument("fb", nargs="?", help="raw 1024-byte MONO_VLSB framebuffer")
    ap.add_argument("rings", nargs="*", help="raw GRB ring buffers (48 bytes each)")
    ap.add_argument("-o", "--out", help="write a PNG here")
    ap.add_argument("--scale", type=int, default=4)
    ap.add_argument("--text", action="store_true", help="print the screen as text")
    ap.add_argument("--color", action="store_true", help="ANSI colours for the rings")
    ap.add_argument("--font", action="store_true", help="print every glyph of nakk.drivers.font")
    a = ap.parse_args(argv)
    if a.font:
        print(font_sheet())
        return 0
    if not a.fb:
        ap.error("a framebuffer file is needed")
    with open(a.fb, "rb") as f:
        fb = f.read()
    rings = []
    for p in a.rings:
        with open(p, "rb") as f:
            rings.append(f.read())
    if a.out:
        to_png(fb, rings, a.scale, a.out)
    if a.text or not a.out:
        print(to_text(fb, rings, color=a.color))
    return 0


if __name__ == "__main__":
    sys.exit(main())
