"""Button driver: IRQ-latched edges -> debounced PRESS/SHORT/LONG/FAULT/CLEAR events, each carrying its time.

Side buttons A=0, B=1, C=2 and the cluster PREV=3, OK=4, NEXT=5, each to ground against the pull-up.
The hard IRQ latches edges into a ring without allocating; two tasks replay them with their own
times, debounce, and queue PRESS/LONG (side), SHORT/LONG (cluster), FAULT/CLEAR events as small ints.
Touches only the pins it is given, the clock and asyncio. docs/buttons.md: how it works, the
events, what each path costs.

    btn = Buttons((pin_a, pin_b, None, pin_prev, pin_ok, pin_next))
    btn.start()
    ev = await btn.get()              # or btn.get_nowait(), or btn.sink = f (see _deliver)
"""

from nakk.compat import const

import array

try:
    import asyncio
except ImportError:  # pragma: no cover - very old MicroPython
    import uasyncio as asyncio

# The ISR's wake-up. None on a port without it (and on CPython): the driver
# then polls every poll_ms, as it did before the flag. Tests set this to None
# to run that fallback.
ThreadSafeFlag = getattr(asyncio, "ThreadSafeFlag", None)

# Button indices.
A = const(0)
B = const(1)
C = const(2)
PREV = const(3)
OK = const(4)
NEXT = const(5)
NBUTTONS = const(6)
NSIDE = const(3)  # indices below this are side buttons
NAMES = ("A", "B", "C", "PREV", "OK", "NEXT")

# Event kinds.
PRESS = const(1)
SHORT = const(2)
LONG = const(3)
FAULT = const(4)
CLEAR = const(5)
KINDS = ("", "PRESS", "SHORT", "LONG", "FAULT", "CLEAR")
_TMASK = const(0x3FFFFF)  # an event's time: ticks_ms modulo 2**22

# Defaults (ms).
_DEBOUNCE_MS = const(25)  # settled time that confirms a release
_LONG_MS = const(800)  # cluster long press
_STUCK_MS = const(5000)  # down this long = stuck -> FAULT
_POLL_MS = const(10)  # the timer task wakes at least this often (a safety net: edges wake the driver at once)
_RING = const(64)  # edge ring (power of two; holds _RING - 1 edges)
_QUEUE = const(16)  # event queue

# Per-button state.
_IDLE = const(0)
_DOWN = const(1)
_LOCK = const(2)
# Per-press flags.
_F_LONG = const(1)  # LONG emitted: no SHORT on release
_F_SHORT = const(2)  # SHORT emitted at the release edge: nothing more for this press
_F_DONE = const(3)  # _F_LONG | _F_SHORT: the press has had its event
# Ring entry code: bits 0-2 button, bit 3 level read in the ISR, bit 4 both edges seen.
_R_LEVEL = const(8)
_R_BOTH = const(16)
_NONE = const(255)


def kind(ev):
    """Event kind (PRESS, SHORT, LONG, FAULT, CLEAR)."""
    return (ev >> 3) & 7


def button(ev):
    """Button index of an event."""
    return ev & 7


def at(ev):
    """When the event happened: ticks_ms modulo 2**22 (compare with span)."""
    return ev >> 6


def span(t0, t1):
    """ms from t0 to t1, either an event's at() or a ticks_ms (t1 not before t0, less than 70 min apart)."""
    return (t1 - t0) & _TMASK


def event(k, data, t=0):
    """Encode an event (what the driver emits): kind k, button data, at ticks_ms t."""
    return ((t & _TMASK) << 6) | (k << 3) | data


def describe(ev):
    """'PRESS A', 'LONG OK', ... for logs and tests (allocates: not for the hot path)."""
    return KINDS[(ev >> 3) & 7] + " " + NAMES[ev & 7]


class Buttons:
    """The six buttons of a Nakk box, debounced in two asyncio tasks that this object owns.

    pins: sequence of up to six Pin-like objects in index order (A, B, C, PREV,
        OK, NEXT); None for a button the box does not have. Each needs value(),
        irq(handler=, trigger=, hard=), IRQ_FALLING/IRQ_RISING, and irq()
        returning an object with flags() (machine.Pin on rp2; offbox/simpins).
    clock: object with ticks_ms(), ticks_add(), ticks_diff(); default `time`.
    """

    def __init__(self, pins, clock=None, debounce_ms=_DEBOUNCE_MS, long_ms=_LONG_MS,
                 stuck_ms=_STUCK_MS, poll_ms=_POLL_MS,
                 ring=_RING, queue=_QUEUE):
        from nakk.compat import clock as ticks
        clock = ticks(clock)
        n = len(pins)
        if n > NBUTTONS:
            raise ValueError("at most 6 buttons")
        if ring < 4 or ring & (ring - 1):
            raise ValueError("ring must be a power of two >= 4")
        if queue < 1:
            raise ValueError("queue must be >= 1")
        self._pins = tuple(pins)
        self._n = n
        self._ms = clock.ticks_ms
        self._add = clock.ticks_add
        self._diff = clock.ticks_diff
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.stuck_ms = stuck_ms
        self.poll_ms = poll_ms
        # Edge ring, written by the ISR.
        self._rmask = ring - 1
        self._ri = bytearray(ring)
        self._rt = array.array("l", [0] * ring)
        self._head = 0
        self._tail = 0
        self.overflows = 0  # edges dropped on a full ring (written by the ISR only)
        self._ovf_seen = 0
        self._bd = 0            # _due's answer: the deadline of the timer due first
        # Per-button decision state.
        self._st = bytearray(n)
        self._fl = bytearray(n)
        self._raw = bytearray(n)  # 1 = line reads pressed (last edge seen)
        self._te = array.array("l", [0] * n)  # time of the last edge
        self._td = array.array("l", [0] * n)  # time the press began
        self.faults = 0  # bitmask of buttons in fault
        # Event queue, read by the UI.
        self._q = bytearray(queue)
        self._qt = array.array("l", [0] * queue)  # when each queued event happened (the timeline's time)
        self._qsize = queue
        self._qh = 0
        self._qn = 0
        self.dropped = 0
        self.polled = 0  # the time poll() has replayed edges and timers up to
        self.event = asyncio.Event()  # set while events are queued
        # The consumer's callback, or None: sink(ev) is then called by the driver's own
        # tasks right after the poll that decided ev (see the module's doc: Sink).
        self.sink = None
        # Set by the ISR after each edge (and on overflow): wakes the edge task.
        self._flag = ThreadSafeFlag() if ThreadSafeFlag is not None else None
        self._task = None   # the timer task (start() returns it)
        self._etask = None  # the edge task, waiting on _flag
        self._both = 0
        now = self._ms()
        self._now = now
        # Attach the IRQs first, then read the levels: an edge in between is
        # then either in the initial level or a no-change entry in the ring.
        for i in range(n):
            p = self._pins[i]
            if p is None:
                continue
            trig = p.IRQ_FALLING | p.IRQ_RISING
            self._both = trig
            h = self._handler(i)
            try:
                p.irq(handler=h, trigger=trig, hard=True)
            except TypeError:  # a port without hard IRQs: soft IRQ, still no allocation
                p.irq(handler=h, trigger=trig)
        for i in range(n):
            p = self._pins[i]
            if p is not None and not p.value():
                # Held at boot: ignore until released.
                self._raw[i] = 1
                self._te[i] = now
                self._st[i] = _LOCK
                self.faults |= 1 << i
                self._emit((FAULT << 3) | i)

    # ---- interrupt side ------------------------------------------------

    def _handler(self, i):
        # One closure per button, made once here; calling it allocates nothing.
        isr = self._isr

        def h(pin):
            isr(i, pin)

        return h

    def _isr(self, i, pin):
        t = self._ms()
        c = i
        if pin.value():
            c |= _R_LEVEL
        if pin.irq().flags() & self._both == self._both:
            c |= _R_BOTH
        h = self._head
        nh = (h + 1) & self._rmask
        if nh == self._tail:
            self.overflows += 1
        else:
            self._ri[h] = c
            self._rt[h] = t
            self._head = nh
        f = self._flag
        if f is not None:
            f.set()  # wake the edge task (allocates nothing; safe in a hard IRQ)

    # ---- decisions (run by the tasks; tests call poll(now) directly) -------

    # The driver's functions keep their frames at most 11 words (arguments, locals and the
    # value stack): a bigger one is allocated on the heap at every call, and poll runs at each
    # wake of both tasks and each edge. Hence the small helpers and the attributes read again
    # rather than kept in locals: poll with its ring loop inline and _edge1 with locals (heap
    # frames) made the .mpy path's slowest cursor move 10.2 ms instead of 8.3-9.0
    # (docs/latency.md).
    def poll(self, now=None):
        """Replay latched edges and fire timers up to `now`; emit events. Allocates nothing."""
        if now is None:
            now = self._ms()
        if self._diff(now, self._now) < 0:
            now = self._now
        while self._tail != self._head and self._replay(now):
            pass
        if self.overflows != self._ovf_seen:
            self._reread(now)
        self._advance(now)
        self.polled = now

    def _replay(self, now):
        # The oldest latched edge, unless it came after `now` was read (then the next poll):
        # the timers due before it fire first. True if it was replayed.
        t = self._rt[self._tail]
        if self._diff(t, now) > 0:
            return False
        c = self._ri[self._tail]
        self._tail = (self._tail + 1) & self._rmask
        if self._diff(t, self._now) < 0:
            t = self._now
        self._advance(t)
        self._edge(c & 7, t, 0 if c & _R_LEVEL else 1, c & _R_BOTH)
        return True

    def _reread(self, now):
        # The ISR's ring overflowed: edges were lost, so read every pin as it is now.
        self._ovf_seen = self.overflows
        self._advance(now)
        for i in range(self._n):
            p = self._pins[i]
            if p is not None:
                self._edge(i, now, 0 if p.value() else 1, 0)

    def _edge(self, i, t, pressed, both):
        if both and pressed == self._raw[i]:
            # Both edges latched, level back where it was: a pulse (a whole tap
            # inside an interrupts-off stretch, or bounce). Replay it.
            self._edge1(i, t, 1 - pressed)
        self._edge1(i, t, pressed)

    def _edge1(self, i, t, pressed):
        if pressed == self._raw[i]:
            return
        self._raw[i] = pressed
        s = self._st[i]
        if (s == _DOWN and not pressed and i >= NSIDE and not self._fl[i] & _F_DONE
                and self._diff(t, self._te[i]) >= self.debounce_ms):
            # The first release edge of a cluster press that was down steadily
            # for debounce_ms (a real press: no spike, no press bounce, no
            # replayed tap): SHORT now, at the edge's time (self._now == t).
            # The button stays DOWN until the release is confirmed.
            self._fl[i] |= _F_SHORT
            self._emit((SHORT << 3) | i)
        self._te[i] = t
        if s != _IDLE:
            return  # bounce, release or a faulted button: timers decide
        # IDLE and now pressed: the leading edge of a press.
        self._st[i] = _DOWN
        self._td[i] = t
        self._fl[i] = 0
        if i < NSIDE:
            self._emit((PRESS << 3) | i)

    def _deadline(self, i):
        # Next timer of button i, or -1 (ticks are never negative).
        s = self._st[i]
        if s == _IDLE:
            return -1
        add = self._add
        if not self._raw[i]:
            return add(self._te[i], self.debounce_ms)  # release confirmed / fault clears
        if s == _LOCK:
            return -1
        d = add(self._td[i], self.stuck_ms)  # held down this long: stuck
        if not self._fl[i] & _F_DONE:        # a side button's LONG too (a held answer, nakk.ui.flows)
            diff = self._diff
            dl = add(self._td[i], self.long_ms)
            ds = add(self._te[i], self.debounce_ms)  # held steadily, not bouncing
            if diff(ds, dl) > 0:
                dl = ds
            if diff(dl, d) < 0:
                d = dl
        return d

    def _advance(self, t):
        # Fire every timer due at or before t, earliest first (ties: lower
        # button index). Timers due at t fire before an edge at t.
        while True:
            best = self._due(t)
            if best == _NONE:
                break
            bd = self._bd
            if self._diff(bd, self._now) < 0:
                bd = self._now  # e.g. stuck_ms passed while the contact was open: fires now
            self._now = bd
            self._fire(best, bd)
        self._now = t

    def _due(self, t):
        # The button whose timer is due first at or before t (its deadline left in _bd), or _NONE.
        best = _NONE
        for i in range(self._n):
            if self._st[i] == _IDLE:
                continue      # no timer (a call saved per idle button: ~20 us each on the Pico)
            d = self._deadline(i)
            if d >= 0 and self._diff(d, t) <= 0 and (best == _NONE or self._diff(d, self._bd) < 0):
                best = i
                self._bd = d
        return best

    def _fire(self, i, d):
        s = self._st[i]
        if s == _LOCK:  # released long enough: works again
            self._st[i] = _IDLE
            self.faults &= ~(1 << i)
            self._emit((CLEAR << 3) | i)
        elif not self._raw[i]:  # release confirmed
            self._st[i] = _IDLE
            if i >= NSIDE and not self._fl[i] & _F_DONE:  # no early SHORT: now
                self._emit((SHORT << 3) | i)
            self._fl[i] = 0
        elif self._diff(d, self._add(self._td[i], self.stuck_ms)) >= 0:
            self._st[i] = _LOCK
            self._fl[i] = 0
            self.faults |= 1 << i
            self._emit((FAULT << 3) | i)
        else:
            self._fl[i] |= _F_LONG
            self._emit((LONG << 3) | i)

    def _emit(self, ev):
        n = self._qn
        if n == self._qsize:
            self.dropped += 1
            return
        h = self._qh + n
        if h >= self._qsize:
            h -= self._qsize
        self._q[h] = ev
        self._qt[h] = self._now
        self._qn = n + 1
        self.event.set()

    def _sleep_ms(self, now):
        # How long the timer task may sleep: until the next timer, and at most
        # poll_ms. With the edge task (the flag) also at most the shortest
        # time from an edge to a timer that edge can set (debounce_ms,
        # stuck_ms): the edge task cannot move this sleep's end, and
        # so no timer an edge sets can fall before it. Without the flag, edges
        # are latched meanwhile and seen at the next wake.
        s = self.poll_ms
        if self._flag is not None:
            if 0 < self.debounce_ms < s:
                s = self.debounce_ms
            if 0 < self.stuck_ms < s:
                s = self.stuck_ms
        for i in range(self._n):
            if self._st[i] == _IDLE:
                continue
            d = self._deadline(i)
            if d >= 0:
                d = self._diff(d, now)
                if d < s:
                    s = d
        return s if s > 0 else 0

    # ---- the UI's side -------------------------------------------------

    def get_nowait(self):
        """The oldest queued event (with its time, see at()), or 0 when there is none."""
        n = self._qn
        if not n:
            return 0
        h = self._qh
        ev = ((self._qt[h] & _TMASK) << 6) | self._q[h]
        h += 1
        self._qh = 0 if h == self._qsize else h
        self._qn = n - 1
        if n == 1:
            self.event.clear()
        return ev

    def pending(self):
        """Number of queued events."""
        return self._qn

    def latched(self):
        """An edge (or an overflow) the ISR latched that poll() has not replayed yet: a press
        is on its way, so work that can wait (drawing ahead) stops for it. Allocates nothing."""
        return self._head != self._tail or self.overflows != self._ovf_seen

    async def get(self):
        """Wait for the next event (one consumer: the UI)."""
        while not self._qn:
            await self.event.wait()
        return self.get_nowait()

    def is_down(self, i):
        """Debounced: button i is pressed (and not faulted); after an early SHORT, until the release is confirmed."""
        return self._st[i] == _DOWN

    # ---- the tasks -------------------------------------------------------

    def start(self):
        """Start this object's tasks (idempotent); returns the timer task."""
        if self._task is None:
            self._task = asyncio.create_task(self._run())
            if self._flag is not None:
                self._etask = asyncio.create_task(self._edges())
        return self._task

    # Sink: instead of `await get()` in a task of its own, the consumer may set
    # `btn.sink = f` before start(): the driver's tasks then call f(ev) for each event
    # right after the poll that decided it, in order (the queue is drained by whichever
    # task polled). An edge then reaches the consumer in the edge task's own pass of the
    # loop: the ISR's flag wakes one task, not two (no asyncio.Event, no second task
    # switch). f runs inside the driver's task, so it must not raise (the app reports its
    # own errors) and should not block; edges that come while it runs are latched,
    # polled right after it returns with their own times, and handed over in turn.
    # latched() says whether the ISR has latched an edge that no poll has seen yet (work
    # between presses stops for it). (Comments, not the docstring: the firmware is also
    # compiled from source inside a capped heap, where a docstring costs parse memory.)
    def _deliver(self):
        # Hand every queued event to the sink, oldest first; True if there was one.
        # The queue is drained in order whichever task polled, so the sink sees the
        # events in the order the driver decided them.
        s = self.sink
        if s is None or not self._qn:
            return False
        while self._qn:
            s(self.get_nowait())
        return True

    async def _run(self):
        # The timer task: poll, then sleep until the next timer (at most
        # poll_ms). sleep_ms allocates nothing. With a sink, what it decided is
        # handed over at once, then the edges latched meanwhile are polled too
        # (the sink may have run for a whole frame).
        ms = self._ms
        sleep_ms = asyncio.sleep_ms
        while True:
            now = ms()
            self.poll(now)
            while self._deliver():
                now = ms()
                self.poll(now)
            await sleep_ms(self._sleep_ms(now))

    async def _edges(self):
        # The edge task: the ISR sets the flag, this polls at once. Edges that
        # come while it runs set the flag again: one more poll, never a lost one.
        # With a sink the event goes straight to it from here: no second task to wake.
        ms = self._ms
        flag = self._flag
        while True:
            await flag.wait()
            self.poll(ms())
            while self._deliver():
                self.poll(ms())

    def deinit(self):
        """Stop the tasks and detach the IRQs."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._etask is not None:
            self._etask.cancel()
            self._etask = None
        for p in self._pins:
            if p is not None:
                p.irq(handler=None)
