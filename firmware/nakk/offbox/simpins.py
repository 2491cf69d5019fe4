"""Simulated button pins and a hand-driven ms clock, shared by the simulator and the tests.

SimPin is Pin-like (value(), irq(handler=, trigger=, hard=), irq().flags(),
IRQ_FALLING/IRQ_RISING with the rp2 values) for a button wired to ground
with a pull-up: released reads 1, pressed reads 0. The outside world moves
the line with press()/release()/drive(level); a matching edge calls the
handler at once, synchronously, like a hard IRQ on the Pico.

disable_irq()/enable_irq(state) mirror machine.disable_irq/enable_irq for
all SimPins: while disabled, edges only set the pin's pending flags (the
RP2040 latches edge events the same way); enable_irq runs each pending
handler once, with flags() telling which edges were seen, as after a flash
erase on the real board.

SimClock is a ticks_ms clock that only moves when told to, with the Pico's
tick arithmetic (wraps at 2**30) or, with period=None, this port's own
time.ticks_add/ticks_diff. Moving pins (with interrupts on) and the clock
allocates nothing, so tests can measure the driver with the heap locked.

The simulator maps keys to pins: a key gives a tap (`await tap(pin)`); a
held key or a dedicated key can give `await tap(pin, 1000)` for a long press.
"""

from nakk.compat import const

import time

from nakk.drivers.buttons import kind

_FALL = const(4)  # rp2 values of Pin.IRQ_FALLING / IRQ_RISING
_RISE = const(8)

_UNSET = object()
_gate = [0, []]  # [interrupts disabled depth, pins with pending edges]


class _SimIrq:
    def __init__(self, pin):
        self._pin = pin

    def flags(self):
        """Edges that caused the current handler call (valid inside the handler)."""
        return self._pin._flags

    def trigger(self):
        return self._pin._trigger


class SimPin:
    """A button input on a simulated board (see the module docstring)."""

    IN = 0
    PULL_UP = 1
    IRQ_FALLING = _FALL
    IRQ_RISING = _RISE

    def __init__(self, level=1, name=""):
        self.name = name
        self._v = 1 if level else 0
        self._handler = None
        self._trigger = 0
        self._flags = 0  # flags of the handler call under way
        self._pending = 0  # edges latched while interrupts are off
        self._irq = _SimIrq(self)
        self.edges = 0  # edges the line has made (for tests)

    def value(self, v=None):
        """Read the line. (On an input, value(x) only sets the output latch: ignored.)"""
        return self._v

    def __call__(self, v=None):
        return self._v

    def irq(self, handler=_UNSET, trigger=_FALL | _RISE, hard=False):
        """Like machine.Pin.irq: irq() only returns the irq object (what an ISR
        calls to read flags()); irq(handler=None) detaches."""
        if handler is _UNSET:
            return self._irq
        self._handler = handler
        self._trigger = trigger if handler is not None else 0
        self._pending = 0
        return self._irq

    def drive(self, level):
        """The outside world sets the line; fires the IRQ on a matching edge."""
        level = 1 if level else 0
        if level == self._v:
            return
        self._v = level
        self.edges += 1
        f = (_RISE if level else _FALL) & self._trigger
        if not f:
            return
        if _gate[0]:
            if not self._pending:
                _gate[1].append(self)
            self._pending |= f
            return
        self._call(f)

    def _call(self, f):
        self._flags = f
        h = self._handler
        if h is not None:
            h(self)
        self._flags = 0

    def press(self):
        self.drive(0)

    def release(self):
        self.drive(1)

    def bounce(self, n, end):
        """n extra edges of contact bounce, then settle at `end` (all in the same ms)."""
        for _ in range(n):
            self.drive(1 - self._v)
        self.drive(end)


def disable_irq():
    """Like machine.disable_irq for SimPins: edges are latched, handlers wait."""
    _gate[0] += 1
    return _gate[0] - 1


def enable_irq(state=0):
    """Like machine.enable_irq: when back to enabled, run each latched handler once."""
    _gate[0] = state
    if state:
        return
    pend = _gate[1]
    while pend:
        p = pend.pop(0)
        f = p._pending
        p._pending = 0
        if f:
            p._call(f)


def make_pins(n=6):
    """Pins for A, B, C, PREV, OK, NEXT (all released), named as in the pin map."""
    from nakk.board.pins import BUTTONS
    names = [b[0] for b in BUTTONS]
    return tuple(SimPin(1, names[i] if i < len(names) else str(i)) for i in range(n))


def cycles(b, pins, clock, steps, period, k0, k1, t0=0, kinds=None):
    """Drive the button driver b through cycles k0 to k1 of `steps`, one poll() a ms, and take
    its events: how many it gave (kinds: a bytearray, counted by event kind). steps: (ms into a
    cycle of `period` ms, button, level), in order; each edge bounces twice. The driver's tests
    and bench/bench_buttons.py run it with the heap locked: it allocates nothing itself."""
    n = 0
    for k in range(k0, k1):
        base = k * period
        j = 0
        for ms in range(period):
            clock.set(clock.ticks_add(t0, base + ms))
            while j < len(steps) and steps[j][0] == ms:
                p = pins[steps[j][1]]
                p.drive(steps[j][2])
                p.bounce(2, steps[j][2])
                j += 1
            b.poll()
            while True:
                ev = b.get_nowait()
                if not ev:
                    break
                if kinds is not None:
                    kinds[kind(ev)] += 1
                n += 1
    return n


async def tap(pin, ms=80):
    """Press `pin` for `ms` of real time (the simulator's key press)."""
    try:
        import asyncio
    except ImportError:  # pragma: no cover
        import uasyncio as asyncio
    pin.press()
    await asyncio.sleep_ms(ms)
    pin.release()


class SimClock:
    """A ticks_ms clock that moves only when told to.

    period: 2**30 (the Pico's ticks_ms) by default; None uses this port's own
    time.ticks_add/ticks_diff, so their wrap is exercised as well."""

    def __init__(self, start=0, period=1 << 30):
        self._p = period
        if period is None:
            self._t = start
        else:
            self._mask = period - 1
            self._half = period >> 1
            self._t = start & self._mask

    def ticks_ms(self):
        return self._t

    def ticks_add(self, t, d):
        if self._p is None:
            return time.ticks_add(t, d)
        return (t + d) & self._mask

    def ticks_diff(self, a, b):
        if self._p is None:
            return time.ticks_diff(a, b)
        d = (a - b) & self._mask
        if d >= self._half:
            d -= self._p
        return d

    def advance(self, ms):
        self._t = self.ticks_add(self._t, ms)

    def set(self, t):
        self._t = t
