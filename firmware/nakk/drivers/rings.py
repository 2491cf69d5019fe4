"""Nakk LED rings: fill the GRB buffers of one 16-LED WS2812 ring per side (units, progress, celebration, fault) inside a total current budget, allocating nothing."""

# The class knows no pins and no driver. It owns one bytearray, 3 bytes per
# LED in WS2812 order (G, R, B), ring after ring, and memoryviews of each
# ring. The board writes them, e.g. with machine.bitstream(pin, 0,
# (400, 850, 800, 450), rings.ring(i)) or by pointing a NeoPixel's .buf at
# rings.ring(i) and calling write(); a daisy chain takes rings.buf whole.
#
# A frame: call one mode per ring (units, progress, celebrate, fault, blink,
# fill, off), then commit() (ring() commits too), then write. The modes paint
# nominal colours scaled by the brightness level (the dimmed level while the
# box is on the judge's USB); commit() estimates the current of everything
# lit, ma_per_channel_full per colour channel at 255 plus an optional idle
# current per LED, and scales the whole frame down when it is over the
# budget, rounding down so that the estimate never exceeds it.
#
# Positions: a ring's position 0 is the LED at `first`, and positions run
# clockwise as the player sees the ring (reverse=True if the strip runs the
# other way). Integers only; no method allocates.

from nakk.compat import const

LEDS = const(16)

# Nominal colours 0xRRGGBB at full level; the brightness level scales them.
NAKK = const(0xFF7000)      # amber: one LED per unit (a nakk), or per 1/16 of the target
_RINGMARK = const(0xFFD070)  # the last unit of a group: a paler shade
OVER = const(0x00A0FF)      # above 16 units / above the target: blue, again from 0
NEGATIVE = const(0x600000)  # below zero: dim red, running anticlockwise from 0
FAULT = const(0xFF0000)
_GOLD = const(0xFFB000)
_MARK = const(0x141414)     # faint marks where each group ends, while unlit

_DMA = const(10)            # internal current unit: 1/10 mA


def _div(v, level, k):
    """Channel v (0..255) at brightness level (0..255) and fraction k (0..256)."""
    r = v * level * k // 65280
    if r == 0 and v and level and k:
        return 1            # a lit channel stays lit at the lowest levels
    return r


class Rings:
    """The LED rings of one box, one 16-LED ring per side."""

    def __init__(self, rings, max_total_ma, ma_per_channel_full, leds=LEDS,
                 brightness=64, dim_brightness=12, dim_max_total_ma=None,
                 idle_ma_per_led=0, first=0, reverse=False, marks=True):
        if rings < 1 or leds < 1:
            raise ValueError("rings")
        self.rings = rings
        self.leds = leds
        self.buf = bytearray(3 * leds * rings)
        mv = memoryview(self.buf)
        self._views = tuple(mv[3 * leds * i:3 * leds * (i + 1)] for i in range(rings))
        self._zero = bytes(3 * leds)
        self._first = first % leds
        self._reverse = bool(reverse)
        self.marks = marks
        self._ch = max(1, int(ma_per_channel_full * _DMA + 0.5))
        self._idle = int(idle_ma_per_led * _DMA + 0.5) * leds * rings
        self._allow_full = self._allowance(max_total_ma)
        self._allow_dim = self._allowance(
            max_total_ma if dim_max_total_ma is None else min(max_total_ma, dim_max_total_ma))
        self._bright = 0
        self._dim_bright = 0
        self.dimmed = False
        self.used = 2          # rings in use: the sides of the match in play (set by render)
        self._level = 0
        self._dirty = False
        self.set_brightness(brightness, dim_brightness)

    def _allowance(self, max_ma):
        """The largest sum of channel values whose estimated current fits max_ma."""
        room = int(max_ma * _DMA) - self._idle
        if room <= 0:
            return 0
        return room * 255 // self._ch

    # ---- settings

    def set_brightness(self, level, dim_level=None):
        """Brightness 0..255 of the nominal colours; dim_level while dimmed."""
        self._bright = max(0, min(255, level))
        if dim_level is not None:
            self._dim_bright = max(0, min(255, dim_level))
        self._update_level()

    def dim(self, on=True):
        """Dim (on the judge's USB hub) or back to normal; takes effect on the next paint."""
        self.dimmed = bool(on)
        self._update_level()

    def _update_level(self):
        if self.dimmed:
            self._level = min(self._bright, self._dim_bright)
        else:
            self._level = self._bright

    def level(self):
        return self._level

    # ---- pixels

    def _put(self, base, p, rgb, k=256):
        """Paint position p of the ring whose bytes start at base: rgb at the level and k/256
        (one LED; a run of LEDs in one colour scales it once and uses _set)."""
        self._set(base, p, self._scaled(rgb, k))

    def _scaled(self, rgb, k=256):
        """rgb at the brightness level and fraction k/256, as the three bytes G, R, B packed in
        one small int: worked out once per colour and paint, not once per LED."""
        lv = self._level
        return (_div(rgb >> 8 & 0xFF, lv, k) << 16 | _div(rgb >> 16 & 0xFF, lv, k) << 8
                | _div(rgb & 0xFF, lv, k))

    def _set(self, base, p, c):
        """Position p of the ring whose bytes start at base gets the packed colour c (_scaled)."""
        n = self.leds
        p %= n
        if self._reverse:
            p = (self._first - p) % n
        else:
            p = (self._first + p) % n
        o = base + 3 * p
        b = self.buf
        b[o] = c >> 16
        b[o + 1] = c >> 8 & 0xFF
        b[o + 2] = c & 0xFF

    def _clear(self, i):
        base = 3 * self.leds * i
        self._views[i][:] = self._zero      # one copy, not a Python loop over its bytes
        self._dirty = True
        return base

    def pixel(self, i, p, rgb, k=256):
        """Paint position p of ring i with 0xRRGGBB at fraction k/256 of the level."""
        self._put(3 * self.leds * i, p, rgb, k)
        self._dirty = True

    def off(self, i):
        self._clear(i)

    def clear(self):
        for i in range(self.rings):
            self._clear(i)

    def fill(self, i, rgb, k=256):
        base = self._clear(i)
        c = self._scaled(rgb, k)
        for p in range(self.leds):
            self._set(base, p, c)

    # ---- modes

    def units(self, i, n, group):
        """n units (the ruleset's, e.g. nakks), one LED each from position 0; the last of
        every group paler, and where a group ends faintly marked while unlit.

        Above the LEDs the ring stays full and the units over light blue from
        position 0 again; below zero, dim red anticlockwise."""
        base = self._clear(i)
        leds = self.leds
        if n < 0:
            m = min(-n, leds)
            c = self._scaled(NEGATIVE)
            for q in range(m):
                self._set(base, -1 - q, c)
            return
        col = self._scaled(NAKK)
        mark = self._scaled(_RINGMARK)
        lit = min(n, leds)
        for p in range(lit):
            self._set(base, p, mark if p % group == group - 1 else col)
        if n > leds:
            c = self._scaled(OVER)
            for p in range(min(n - leds, leds)):
                self._set(base, p, c)
        elif self.marks:
            c = self._scaled(_MARK)
            for p in range(lit, leds):
                if p % group == group - 1:
                    self._set(base, p, c)

    def progress(self, i, points, target):
        """Other games: points of target as a share of the 16 LEDs, the last one partly lit.

        At or over the target the ring is full and the excess lights blue from
        position 0; negative scores are dim red running anticlockwise."""
        base = self._clear(i)
        leds = self.leds
        if target <= 0:
            target = 1
        if points < 0:
            q = -points * leds
            full = q // target
            part = q % target
            if full >= leds:
                full = leds
                part = 0
            c = self._scaled(NEGATIVE)
            for p in range(full):
                self._set(base, -1 - p, c)
            if part:
                self._put(base, -1 - full, NEGATIVE, part * 256 // target or 1)
            return
        col = NAKK
        c = self._scaled(col)
        if points >= target:
            for p in range(leds):
                self._set(base, p, c)
            over = points - target
            if over > 0:
                m = (over * leds + target - 1) // target
                c = self._scaled(OVER)
                for p in range(min(m, leds)):
                    self._set(base, p, c)
            return
        q = points * leds
        full = q // target
        part = q % target
        for p in range(full):
            self._set(base, p, c)
        if part:
            self._put(base, full, col, part * 256 // target or 1)

    def celebrate(self, i, frame):
        """Winner: a rainbow comet running clockwise over twinkling gold; frame is any int."""
        base = self._clear(i)
        leds = self.leds
        head = frame % leds
        for p in range(leds):
            d = (head - p) % leds
            if d < 6:
                self._put(base, p, _wheel((frame * 5 + p * 16) & 255), 256 >> d)
            elif (p * 7 + frame) % 5 == 0:
                self._put(base, p, _GOLD, 48)

    def blink(self, i, frame, rgb, period=10, every=1):
        """Every `every`-th LED in rgb for the first half of each period of frames, else off."""
        base = self._clear(i)
        if period < 2:
            period = 2
        if every < 1:
            every = 1
        if frame % period < period // 2:
            c = self._scaled(rgb)
            p = 0
            while p < self.leds:        # (a range with a variable step would allocate)
                self._set(base, p, c)
                p += every

    def fault(self, i, frame):
        """Fault: four red LEDs (one per quarter) blinking fast."""
        self.blink(i, frame, FAULT, 6, 4)

    # ---- output

    def current_ma(self):
        """Estimated current of the buffer as it is now, in mA (rounded up)."""
        dma = (sum(self.buf) * self._ch + 254) // 255 + self._idle
        return (dma + _DMA - 1) // _DMA

    def commit(self):
        """Scale the frame down if its estimated current is over the budget; return the estimate in mA."""
        b = self.buf
        allow = self._allow_dim if self.dimmed else self._allow_full
        total = sum(b)
        if total > allow:
            f = allow * 256 // total        # < 256; rounding down keeps the sum <= allow
            for o in range(len(b)):
                b[o] = b[o] * f >> 8
        self._dirty = False
        return self.current_ma()

    def ring(self, i):
        """Ring i's GRB bytes (a memoryview), committed first if anything was painted."""
        if self._dirty:
            self.commit()
        return self._views[i]


def _wheel(h):
    """Colour wheel: h 0..255 -> 0xRRGGBB, red -> green -> blue -> red."""
    if h < 85:
        return (255 - h * 3) << 16 | (h * 3) << 8
    if h < 170:
        h -= 85
        return (255 - h * 3) << 8 | h * 3
    h -= 170
    return (h * 3) << 16 | (255 - h * 3)
