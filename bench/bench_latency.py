"""Bench: figures for docs/latency.md -- the unix-port-to-RP2040 speed factor and the Python cost of board.show()/leds().

Run:  python bench/bench_latency.py     (re-runs itself on the unix port with
      firmware/ and tests/mpy/ on MICROPYPATH)

Figures printed:
1. the unix port's time for the "Integer addition 1000000 times" loop of
   shaoziyang/micropython_benchmarks, whose README gives 7984 ms for
   MicroPython 1.23.0 on an RP2040 at 125 MHz; their ratio is the factor
   docs/latency.md scales unix-port times by (an estimate: one loop, one
   board, and this machine's load);
2. nakk.board.pico's show(mask) and leds() per call on the unix port, with
   the fake machine/ssd1306/neopixel of tests/mpy/pico_fakes.py: Python
   overhead only (the fakes' bus writes are Python too, so this is an upper
   bound; the real bus time is computed in docs/latency.md);
3. press to frame, per kind of press, over MATCHES Saare mäng 2020 matches
   played through the real nakk.ui.flows.Ui and nakk.table.Table (no journal: the
   flash write comes after the first frame, which already shows the entry
   with "saving"), drawn by the real nakk.ui.render.Screen on the board's
   framebuf (pico_fakes) with the board's nakk.drivers.rings.Rings (3 rings, as
   main.py builds it). One sample is what App.on_event does up to its first
   frame: ui.handle(ev), screen.draw(ui, saving), board.show(mask), then
   screen.leds(ui) and board.leds() when the rings
   changed. show() runs the board's own code; the SPI write is a memoryview
   copy into a 1 KiB sink and the pins are a builtin call (abs), so this is
   the Python side; the wire time is computed: bytes x 0.896 us (8.93 MHz),
   and 0.48 ms per ring for the WS2812 bitstream. The presses are what a
   player presses (the cursor moved the shorter way round, the maker's and
   the winner's side buttons, long NEXT + offence + offender, long PREV + OK
   after a wrong entry), drawn from bench/deal-mix.json with a seeded
   xorshift32. The whole run is played PASSES times (deterministic, a clock
   that moves 1 s per press) and each press keeps its fastest pass, which
   takes this machine's scheduler noise out and keeps the slow presses slow.
   The collector is off while a press (and the idle frame after it) is
   timed; between them it is on, as by default, and the bench collects
   before a press when less than GC_FREE is free (collecting before every
   press would cool this machine's caches and add a third or more to the
   times, which the RP2040, its heap in uncached SRAM, would not see). The
   heap each press allocates is
   printed, and a collection is timed on its own. After an entry the app's
   second frame (after the flush) is drawn, untimed, and after every press a
   frame of the frames task (nothing to draw, or the rings animating) is
   timed: what a press can find the loop busy with. Pico = unix-port time x
   the factor of 1 (an estimate: nothing is measured on a Pico); the totals
   add the driver's part (bench/bench_buttons.py) and the wire times.
"""
import sys
from array import array

RP2040_ADD_1E6_MS = 7984  # shaoziyang/micropython_benchmarks README, RP2040 MicroPython v1.23.0 column

# This heap models no box: it is the firmware's part (~210 KB on this 64-bit port: the modules a match
# uses, Saare mäng, the board with its framebuffer; ~270 KB after the 30 matches, with what the firmware
# keeps between them, the font's words among it) and the harness's (~85 KB: the fake machine/ssd1306/neopixel, this file's and bench_presses'
# bytecode, loaded as .mpy, the sample arrays), with room enough that few presses find less than
# GC_FREE free (the run prints how many did, and the heap in use). At 416K nearly every press found
# less than 64 KB free and was timed 30-50 % slower, the caches cooled by the collection before it.
# The heap size changes none of the timed figures otherwise, only the time of a collection, which is
# printed apart as "this heap's". The box's own heap: bench_ui.py, docs/architecture.md "RAM at boot".
HEAP = "448K"
MATCHES = 30          # Saare mäng 2020 matches played for the press-to-frame figures
PASSES = 5            # each press keeps its fastest of this many identical passes
SEED = 2026
GC_FREE = 32768       # the bench collects (untimed) before a press when less than this is free
CAP = 800             # presses the arrays hold (30 matches of this seed take 633)
SPI_NS_PER_BYTE = 896     # 8 bits at 8.93 MHz (125 MHz / 14): see docs/latency.md
WINDOW_BYTES = 6          # column/page window command bytes per run of pages
RING_US = 480             # 16 LEDs x 24 bits x 1.25 us, per ring
# Driver part (bench/bench_buttons.py, as the app builds it). The ISR sets a ThreadSafeFlag that
# wakes the driver's edge task, so a side PRESS and a cluster SHORT (decided on the release edge, the press
# having been down steadily for debounce_ms) wait for no poll: 0 on the tasks' wake schedule (with the 10 ms
# poll alone it was mean 4.5, worst 9 there and 10.3 on a live loop). A LONG is emitted by the timer task
# when the hold reaches long_ms = 800: 0, or up to 1 ms late, as the loop sleeps whole ms. What the event
# then costs until the UI's `await get()` returns is Python: the ISR, a pass of the scheduler to the edge
# task, poll(), emit, a pass to the UI task, get. Measured on a live unix-port loop with rp2's select order
# (bench_buttons.py's RpPoll, in Python: an upper bound), edge to get, us, median / max over 20 edges, each
# the fastest of 5 passes. A LONG comes the same way from the timer task.
# (wait ms typical, wait ms worst, Python us typical, Python us worst):
SIDE_SEEN = (0.0, 0.0, 37, 58)
SHORT_SEEN = (0.0, 0.0, 38, 66)
LONG_SEEN = (0.0, 1.0, 38, 66)
GOAL_MS = 20

def _launch():
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import mpyenv
    mpyenv.rerun(__file__, "bench_latency", HEAP,
                 (mpyenv.firmware_path(), os.path.join(mpyenv.ROOT, "tests", "mpy"), here),
                 mpy=("bench_latency", "bench_presses"))


def _add_test(p):
    for i in range(p[0]):
        C = p[1] + p[2]  # noqa: F841


def _best_us(f, arg, n):
    import time
    best = 1 << 30
    for _ in range(n):
        t0 = time.ticks_us()
        f(arg)
        best = min(best, time.ticks_diff(time.ticks_us(), t0))
    return best


def _bench():
    import gc
    samples = _Samples()      # first, at the bottom of the heap
    gc.collect()
    add_ms = _best_us(_add_test, [1000000, 12345678, 56781234], 7) / 1000
    factor = RP2040_ADD_1E6_MS / add_ms
    _parts(add_ms, factor)    # its board and closures are garbage once it returns: _presses builds its own
    _presses(factor, samples)


def _parts(add_ms, factor):
    import pico_fakes as F
    F.install()
    from nakk.board import pico
    b = pico.build(watchdog=False)
    F.RECORD[0] = False
    b.rings.units(0, 7, 4)
    b.rings.units(1, 3, 4)
    b.rings.units(2, 12, 4)

    def shows(mask):
        for _ in range(100):
            b.show(mask)

    def leds(_):
        for _ in range(100):
            b.leds()

    full = _best_us(shows, 0xFF, 5) / 100
    two = _best_us(shows, 0b00000110, 5) / 100
    five = _best_us(shows, 0b01101101, 5) / 100  # 5 pages in 3 runs
    led = _best_us(leds, 0, 5) / 100

    v = sys.implementation.version
    print("bench_latency: MicroPython %d.%d.%d unix port, -X heapsize=%s" % (v[0], v[1], v[2], HEAP))
    print("int add loop 1e6 (best of 7): %.1f ms here, %d ms on an RP2040 at 125 MHz -> factor %.0f"
          % (add_ms, RP2040_ADD_1E6_MS, factor))
    print("board.show() per call with the fake bus (Python overhead, here): show(0xFF) %.1f us,"
          " show(0b00000110) %.1f us, show(0b01101101: 5 pages in 3 runs) %.1f us" % (full, two, five))
    print("  x factor -> on the RP2040 about %.0f us per run of pages, on top of the bus time (upper bound)"
          % (five / 3 * factor))
    print("board.leds() with fake NeoPixels (3 rings): %.1f us here -> about %.0f us x factor (upper bound)"
          % (led, led * factor))

    # what one glyph of text costs: a step name as the UI hands it over (a str), drawn and measured
    from nakk.drivers import font
    font.warm()
    fb = b.fb
    word = "Tulemus"

    def draws(_):
        for _ in range(100):
            font.text(fb, word, 0, 56)

    def widths(_):
        for _ in range(100):
            font.width(word)

    drawn = _best_us(draws, 0, 7) / 100
    measured = _best_us(widths, 0, 7) / 100
    n = len(word)
    print("text: %r (%d glyphs, str) drawn in %.1f us, measured (width(), as align and max_w do first) in %.1f us"
          % (word, n, drawn, measured))
    print("  per glyph: draw %.2f us, measure %.2f us here -> about %.2f and %.2f ms x factor"
          % (drawn / n, measured / n, drawn / n * factor / 1000, measured / n * factor / 1000))


# ---------------------------------------------------------------- press to frame

# kinds of press: (key, label, driver part)
KINDS = (
    ("move", "cursor move (NEXT/PREV, deal entry)", SHORT_SEEN),
    ("step", "side press -> next step", SIDE_SEEN),
    ("commit", "side press completing a deal (match goes on)", SIDE_SEEN),
    ("pen_open", "long NEXT: penalty list", LONG_SEEN),
    ("pen_commit", "side press committing a penalty", SIDE_SEEN),
    ("undo_open", "long PREV: undo question", LONG_SEEN),
    ("undo_ok", "OK confirming the undo", SHORT_SEEN),
    # the other presses of a match
    ("commit_end", "side press completing the last deal", SIDE_SEEN),
    ("ok_commit", "OK completing a deal (pokk)", SHORT_SEEN),
    ("list_move", "cursor move in a list (penalty, menu, start)", SHORT_SEEN),
    ("menu_open", "long OK: menu (redeal)", LONG_SEEN),
    ("redeal_ok", "OK committing a redeal", SHORT_SEEN),
    ("start_ok", "OK on a start step", SHORT_SEEN),
    ("start_commit", "OK starting the match", SHORT_SEEN),
    ("confirm", "side press confirming the result", SIDE_SEEN),
)


def _mix():
    """The Saare mäng 2020 weights of the repo's deal mix (run from the clone's root: _launch sets the cwd)."""
    import json
    path = "bench/deal-mix.json"
    try:
        with open(path) as f:
            return json.load(f)["saare-2020"], path
    except OSError:
        sys.exit("bench_latency: cannot read %s (run from the root of the clone)" % path)


def _popcount(m):
    n = 0
    while m:
        n += m & 1
        m >>= 1
    return n


def _runs(m):
    n = 0
    prev = 0
    for p in range(8):
        b = (m >> p) & 1
        if b and not prev:
            n += 1
        prev = b
    return n


class _Match:
    """One match: a fresh Table and Ui on the shared screen; press() times one event as App.on_event does."""

    def __init__(self, bench, rng, mix):
        from nakk.ui import flows as U
        from nakk.table import Table
        from stillclock import Clock   # tests/mpy
        self.b = bench
        self.rng = rng
        self.mix = mix
        self.U = U
        self.table = Table()
        self.clock = Clock()    # moves only when the bench says (1 s a press: no chord, no timeout, no idle)
        self.ui = U.Ui(self.table, clock=self.clock, chord_ms=U.CHORD_MS)
        bench.frame(self.ui, False)

    def press(self, ev):
        import gc
        import time
        from nakk.drivers import buttons as K
        b = self.b
        ui = self.ui
        table = self.table
        U = self.U
        mode0 = ui.mode
        k = K.kind(ev)
        btn = K.button(ev)
        ev = K.event(k, btn, self.clock.now)   # the event carries its time: a second apart, never a chord
        screen = b.screen
        board = b.board
        rings = board.rings
        if gc.mem_free() < GC_FREE:
            gc.collect()            # outside the timing, and not before every press (that would cool the caches)
            b.gcs += 1
        gc.disable()                # on between presses: what the app does untimed may collect when the heap is full
        m0 = gc.mem_alloc()
        t0 = time.ticks_us()
        ui.handle(ev)
        th = time.ticks_us()
        pending = table.pending is not None
        mask = screen.draw(ui, pending, 0)
        if mask:
            board.show(mask)
        t1 = time.ticks_us()
        lit = screen.leds(ui)
        if lit:
            board.leds()
        t2 = time.ticks_us()
        alloc = gc.mem_alloc() - m0
        gc.enable()
        self.clock.advance(1000)
        # which kind of press this was
        if mode0 == U.ENTRY:
            if k == K.SHORT and (btn == K.NEXT or btn == K.PREV):
                kind = "move"
            elif k == K.PRESS:
                kind = ("commit_end" if ui.mode == U.END else "commit") if pending else "step"
            elif k == K.SHORT and btn == K.OK:
                kind = "ok_commit" if pending else "other"
            elif k == K.LONG and btn == K.NEXT:
                kind = "pen_open"
            elif k == K.LONG and btn == K.PREV:
                kind = "undo_open" if ui.mode == U.UNDO else "other"
            elif k == K.LONG and btn == K.OK:
                kind = "menu_open"
            else:
                kind = "other"
        elif mode0 == U.END and k == K.LONG and btn == K.PREV:
            kind = "undo_open"
        elif k == K.SHORT and (btn == K.NEXT or btn == K.PREV):
            kind = "list_move"
        elif mode0 == U.PENALTY and k == K.PRESS and pending:
            kind = "pen_commit"
        elif mode0 == U.UNDO and k == K.SHORT and btn == K.OK and pending:
            kind = "undo_ok"
        elif mode0 == U.MENU and k == K.SHORT and btn == K.OK and pending:
            kind = "redeal_ok"
        elif mode0 == U.START and k == K.SHORT and btn == K.OK:
            kind = "start_commit" if pending else "start_ok"
        elif mode0 == U.END and k == K.PRESS and pending:
            kind = "confirm"
        else:
            kind = "other"
        b.record(kind, time.ticks_diff(th, t0), time.ticks_diff(t1, t0), time.ticks_diff(t2, t1), mask, lit,
                 alloc)
        if pending:
            # the app: held CHORD_MS, then the flush and the frame without "saving" (untimed)
            table.flush()
            b.frame(ui, False)
            b.screen.keep_detail(ui.undo_words())   # as App.flush: the undo's words made ahead
        # what the frames task does when nothing changed (ui.tick() left out: this clock is not real time)
        gc.disable()
        t0 = time.ticks_us()
        mask = screen.draw(ui, False, 0)
        if mask:
            board.show(mask)
        animated = screen.leds(ui)
        if animated:
            board.leds()
        t1 = time.ticks_us()
        gc.enable()
        assert not mask
        i = b.n - 1
        b.idle[i] = min(b.idle[i], time.ticks_diff(t1, t0))
        b.idle_lit[i] = 1 if animated else 0
        return pending

    # -- what a player presses
    def move(self, i):
        from bench_presses import cursor_to
        cursor_to(self, i)

    def side(self, letter):
        from nakk.drivers import buttons as K
        return self.press(K.event(K.PRESS, "ABC".index(letter)))

    def ok(self):
        from nakk.drivers import buttons as K
        return self.press(K.event(K.SHORT, K.OK))

    def long(self, btn):
        from nakk.drivers import buttons as K
        return self.press(K.event(K.LONG, btn))

    def start(self):
        U = self.U
        while self.ui.mode == U.START:
            self.ok()
        assert self.ui.mode == U.ENTRY

    def _want(self):
        rng = self.rng
        mix = self.mix
        st = self.table.match.st
        game = rng.pick(mix["game"])
        if game == "redeal":
            return None
        maker = rng.pick(mix["maker"])
        if st.chain:
            maker = "AB"[st.pending[0]]
            game = st.pending[1]
        if game in ("valge-pits", "pime-pits") and rng.chance(mix["pits_capture_share"]):
            return game, maker, "capture", "AB"[rng.below(2)]
        o = rng.pick(mix["outcome"])
        if o == "pokk":
            return game, maker, "pokk", None
        result = "win" if o in ("won", "lost") else o.split("-")[1]
        if game in ("valge-pits", "pime-pits") and result == "jann":
            result = "win"                 # no jänn in pits: the screen does not offer it
        winner = maker if o.startswith("won") else "AB"[1 - "AB".index(maker)]
        return game, maker, result, winner

    def enter(self, want):
        """One deal from the entry screen, as bench_presses' player enters it (bench_presses.plan:
        "Trump · võit" with one press when it is that, else the game, OK, the result)."""
        from bench_presses import plan
        U = self.U
        ui = self.ui
        game, maker, result, winner = want
        fields = {"game": game, "maker": maker, "result": result}
        if result == "capture":
            fields["capture"] = winner
        elif winner is not None:
            fields["winner"] = winner
        while True:
            assert ui.mode == U.ENTRY
            i, side = plan(ui, fields, False)     # taps only (a held press is timed as its tap)
            self.move(i)
            done = self.side("AB"[side]) if side is not None else self.ok()
            if done:
                return

    def play(self):
        from nakk.drivers import buttons as K
        from nakk.event import SIDES
        U = self.U
        ui = self.ui
        rng = self.rng
        mix = self.mix
        self.start()
        deals = 0
        while ui.mode == U.ENTRY:
            m = self.table.match
            if rng.chance(mix["penalty_per_deal"]):
                offence = rng.pick(mix["penalty_offence"])
                by = SIDES[m.st.shuffler % 2] if offence == "misdeal-twice" else "AB"[rng.below(2)]
                self.long(K.NEXT)
                assert ui.mode == U.PENALTY
                # the offence's first row (cards shown: 2 cards, the event's default)
                self.move([c[0] for c in ui.offences].index(offence))
                assert self.side(by)
                continue
            want = self._want()
            if want is None:
                self.long(K.OK)
                assert ui.mode == U.MENU
                reasons = [r for r in m.rules.redeal_reasons if not (r[0] == "no-picture" and m.st.chain)]
                r = reasons[rng.below(len(reasons))]
                self.move(list(ui.items).index(m.rules.redeal_word[ui.lang] + ": " + r[1 + ui.lang]))
                assert self.ok()
                continue
            if rng.chance(mix["undo_per_deal"]):
                # a wrong entry (the other side won), taken back with long PREV + OK
                game, maker, result, winner = want
                wrong = (game, maker, "win", "AB"[1 - "AB".index(winner)] if winner else maker)
                self.enter(wrong)
                self.long(K.PREV)
                assert ui.mode == U.UNDO and ui.cursor == 0
                assert self.ok()
                if ui.mode != U.ENTRY:
                    break
            self.enter(want)
            deals += 1
            if deals > 200:
                raise AssertionError("the match does not end")
        assert ui.mode == U.END and ui.cursor == 0
        for i in range(2):
            self.side("AB"[i])
        assert ui.mode == U.DONE
        return deals


class _Samples:
    """The samples in press order, in arrays made before anything else is on the heap: growing them
    would need the heap twice over, and made after the imports they need holes the imports' code
    has scattered."""

    def __init__(self):
        self.scratch = array("i", range(CAP))     # for the figures afterwards: nothing big is allocated then
        self.kind = bytearray(CAP)                # index into KINDS (len(KINDS): other)
        self.hnd = array("i", range(CAP))         # us: ui.handle
        self.disp = array("i", range(CAP))        # us: ui.handle + screen.draw + board.show
        self.ring = array("i", range(CAP))        # us: screen.leds + board.leds
        self.mask = bytearray(CAP)                # pages sent
        self.lit = bytearray(CAP)                 # 1 when the rings were written
        self.alloc = array("i", range(CAP))       # heap bytes the press allocated
        self.idle = array("i", range(CAP))        # us: the frames task's frame after the press, nothing changed
        self.idle_lit = bytearray(CAP)            # 1 when that frame painted the rings (they animate)


class _Bench:
    """The screen, and the samples (a _Samples) filled in press order."""

    def __init__(self, board, samples):
        from nakk.ui.render import Screen
        self.board = board
        self.screen = Screen(board.fb, board.rings, getattr(board, "buf", None))   # as the app builds it
        self.n = 0                 # presses so far in this pass
        self.gcs = 0               # collections before a press (GC_FREE), all passes
        self.first = True          # the first pass appends; the later ones keep the fastest time
        s = samples
        self.kind, self.hnd, self.disp, self.ring = s.kind, s.hnd, s.disp, s.ring
        self.mask, self.lit, self.alloc, self.idle, self.idle_lit = s.mask, s.lit, s.alloc, s.idle, s.idle_lit

    def next_pass(self):
        self.n = 0
        self.first = False

    def frame(self, ui, saving):
        mask = self.screen.draw(ui, saving, 0)
        if mask:
            self.board.show(mask)
        if self.screen.leds(ui):
            self.board.leds()

    def record(self, kind, hnd, disp, ring, mask, lit, alloc):
        k = len(KINDS)
        for j in range(len(KINDS)):
            if KINDS[j][0] == kind:
                k = j
        i = self.n
        if i >= CAP:
            raise ValueError("more than CAP presses: raise CAP")
        if self.first:
            self.kind[i] = k
            self.hnd[i] = hnd
            self.disp[i] = disp
            self.ring[i] = ring
            self.mask[i] = mask
            self.lit[i] = 1 if lit else 0
            self.alloc[i] = alloc
            self.idle[i] = 1 << 30
        else:
            assert self.kind[i] == k and self.mask[i] == mask, "the passes differ"
            if hnd < self.hnd[i]:
                self.hnd[i] = hnd
            if disp < self.disp[i]:
                self.disp[i] = disp
            if ring < self.ring[i]:
                self.ring[i] = ring
        self.n += 1


class _Sink:
    """The SPI bus: the write is a memoryview copy into a 1 KiB sink (the Pico's is C and waits for the wire)."""

    def __init__(self):
        self.buf = bytearray(1024)
        self.nbytes = 0

    def write(self, data):
        n = len(data)
        self.buf[0:n] = data
        self.nbytes += n


def _med_max(v, n):
    """Median and maximum of v[0:n], sorted in place (insertion sort: allocates nothing)."""
    for i in range(1, n):
        x = v[i]
        k = i - 1
        while k >= 0 and v[k] > x:
            v[k + 1] = v[k]
            k -= 1
        v[k + 1] = x
    med = v[n // 2] if n & 1 else (v[n // 2 - 1] + v[n // 2]) / 2
    return med, v[n - 1]


def _presses(factor, samples):
    import gc
    import pico_fakes as F
    from nakk.drivers import font
    from nakk import journal  # noqa: F401  (imported by the app at boot; the UI imports it on a new match)
    from nakk import rules
    rules.get("saare-2020")   # the ruleset played, and no other (as a box: its first match imports it)
    from nakk.board import pico
    F.RECORD[0] = False
    board = pico.build(watchdog=False)
    F.RECORD[0] = False
    sink = _Sink()
    board.oled.spi = sink
    board.oled.cs = abs         # a builtin call per pin move, as the Pico's Pin.__call__ is C
    board.oled.dc = abs
    font.warm()
    mix, mix_from = _mix()
    # the harness's code before its arrays (bench_presses' player and tests/mpy's clock, as .mpy / small),
    # the firmware's modules a match uses before the first match (the box has them from boot)
    from bench_presses import Rng, plan, cursor_to  # noqa: F401
    from stillclock import Clock  # noqa: F401
    from nakk.ui import flows  # noqa: F401
    from nakk.table import Table  # noqa: F401
    from nakk.event import SIDES, encode  # noqa: F401
    scratch = samples.scratch
    gc.collect()
    free0 = gc.mem_free()
    used0 = gc.mem_alloc()

    bench = _Bench(board, samples)
    deals = 0
    for p in range(PASSES):
        if p:
            bench.next_pass()
        rng = Rng(SEED)   # bench_presses' integer-only draws
        gc.collect()
        for _ in range(MATCHES):
            deals += _Match(bench, rng, mix).play()
    deals //= PASSES
    npress = bench.n
    gc.collect()
    used1 = gc.mem_alloc()

    # a collection, timed on its own (the heap holds what a box holds in play, and the bench)
    import time
    gct = array("i", range(9))
    for k in range(9):
        t0 = time.ticks_us()
        gc.collect()
        gct[k] = time.ticks_diff(time.ticks_us(), t0)
    gc_us = _med_max(gct, len(gct))[0]

    def figure(j, what):
        """(median, max, mean) of one figure over the presses of kind j (j < 0: every press)."""
        n = 0
        for i in range(npress):
            if j < 0 or bench.kind[i] == j:
                if what == 0:
                    v = bench.hnd[i]
                elif what == 1:
                    v = bench.disp[i] - bench.hnd[i]
                elif what == 2:
                    v = bench.disp[i]
                elif what == 3:
                    v = bench.ring[i]
                elif what == 4:
                    v = _popcount(bench.mask[i])
                elif what == 5:      # wire, ns
                    m = bench.mask[i]
                    v = (_popcount(m) * 128 + _runs(m) * WINDOW_BYTES) * SPI_NS_PER_BYTE if m else 0
                elif what == 6:      # rings written: the bitstream, us
                    v = RING_US * nring if bench.lit[i] else 0
                elif what == 7:
                    v = bench.alloc[i]
                elif what == 8:      # idle frames that draw nothing at all
                    if bench.idle_lit[i]:
                        continue
                    v = bench.idle[i]
                else:                # idle frames that paint the rings (the winner's ring animates)
                    if not bench.idle_lit[i]:
                        continue
                    v = bench.idle[i]
                scratch[n] = v
                n += 1
        if not n:
            return None
        total = 0
        for i in range(n):
            total += scratch[i]
        med, mx = _med_max(scratch, n)
        return med, mx, total // n

    kinds = KINDS + (("other", "other", SIDE_SEEN),)
    ms = factor / 1000           # unix-port us -> Pico ms
    nring = board.rings.rings
    print()
    print("press to frame: %d Saare mäng 2020 matches (%d deals, %d presses), mix from %s;"
          % (MATCHES, deals, npress, mix_from))
    print("  each press the fastest of %d identical passes; the collector off while a press is timed" % PASSES)
    print("  heap (-X heapsize=%s): %.1f KB in use, %.1f KB free after the setup (firmware modules, Saare mäng,"
          " the harness and its arrays), before the first match; %.1f KB in use after the passes, collected"
          " (what the firmware keeps between matches); a collection before %d of the %d presses (less than %d KB free)"
          % (HEAP, used0 / 1024, free0 / 1024, used1 / 1024, bench.gcs, npress * PASSES, GC_FREE // 1024))
    print("  handle = ui.handle; draw = screen.draw + board.show (Python side); display = handle + draw;"
          " rings = screen.leds + board.leds")
    print()
    print("unix port, us (median/max); pages sent (median/max); heap bytes the press allocates (mean, 64-bit port)")
    print("%-46s %4s | %9s | %9s | %9s | %9s | %5s | %6s" % ("kind", "n", "handle", "draw", "display", "rings",
                                                           "pages", "heap B"))
    rows = []
    for j in range(len(kinds)):
        key, label, seen = kinds[j]
        f = figure(j, 0)
        if f is None:
            continue
        h = f
        dr = figure(j, 1)
        d = figure(j, 2)
        r = figure(j, 3)
        pg = figure(j, 4)
        w = figure(j, 5)
        ld = figure(j, 6)
        al = figure(j, 7)
        n = 0
        for i in range(npress):
            if bench.kind[i] == j:
                n += 1
        print("%-46s %4d | %4d %4d | %4d %4d | %4d %4d | %4d %4d | %2d/%-2d | %6d"
              % (label, n, h[0], h[1], dr[0], dr[1], d[0], d[1], r[0], r[1], pg[0], pg[1], al[2]))
        rows.append((label, seen, h[0], h[1], dr[0], dr[1], d[0], d[1], r[0], r[1],
                     w[0] / 1e6, w[1] / 1e6, ld[0] / 1000, ld[1] / 1000))
    idle = figure(-1, 8)
    anim = figure(-1, 9)
    print()
    print("a frame of the frames task with nothing to draw (signatures only): median %d us, max %d us"
          " -> %.1f / %.1f ms on the Pico" % (idle[0], idle[1], idle[0] * ms, idle[1] * ms))
    if anim is not None:
        print("  the same while the winner's ring animates (painted every frame, match over): median %d us,"
              " max %d us -> %.1f / %.1f ms + %.2f ms bitstream" % (anim[0], anim[1], anim[0] * ms, anim[1] * ms,
                                                                   RING_US * nring / 1000))
    print("a gc collection on this heap: %d us -> about %.0f ms x factor (rough: a collection is memory-bound)"
          % (gc_us, gc_us * ms))
    # the canonical bytes of an entry: Table.flush encodes it, after the frame that shows the entry
    from nakk.event import encode
    entry = {"type": "deal", "game": "ruutu", "maker": "B", "result": "jann", "winner": "A", "seq": 12}

    def encodes(_):
        for _ in range(20):
            encode(entry)

    gc.collect()
    enc_us = _best_us(encodes, 0, 15) / 20
    print("event.encode of a deal entry (Table.flush, after the first frame): %.0f us -> %.1f ms x factor"
          % (enc_us, enc_us * ms))
    print()
    print("Pico estimate, ms: unix-port time x %.0f; wire = (128 per page + %d per run) x %d ns;"
          " bitstream %d us per ring x %d rings" % (factor, WINDOW_BYTES, SPI_NS_PER_BYTE, RING_US, nring))
    print("  event seen (driver, bench_buttons.py): the ISR wakes the edge task, so a side PRESS and a"
          " cluster SHORT wait %.0f / %.0f," % (SIDE_SEEN[0], SIDE_SEEN[1]))
    print("  a LONG %.0f / %.0f after the hold reached 800 ms (the ms tick); + the Python from the edge to get:"
          " PRESS %d / %d us -> %.1f / %.1f ms," % (LONG_SEEN[0], LONG_SEEN[1], SIDE_SEEN[2], SIDE_SEEN[3],
                                                   SIDE_SEEN[2] * ms, SIDE_SEEN[3] * ms))
    print("  SHORT (and LONG, from the timer task) %d / %d us -> %.1f / %.1f ms"
          % (SHORT_SEEN[2], SHORT_SEEN[3], SHORT_SEEN[2] * ms, SHORT_SEEN[3] * ms))
    print("  typical = driver median + medians, worst = driver worst + maxima")
    print("%-46s | %11s | %11s | %11s | %9s | %11s | %11s | %11s | %s" % (
        "kind", "seen", "handle", "draw", "wire", "press->disp", "+rings", "from event", "display"))
    print("%-46s | %5s %5s | %5s %5s | %5s %5s | %4s %4s | %5s %5s | %5s %5s | %5s %5s | <= %d ms" % (
        "", "typ", "worst", "med", "max", "med", "max", "med", "max", "typ", "worst", "typ", "worst", "typ", "worst",
        GOAL_MS))
    for label, seen, hm, hx, drm, drx, dm, dx, rm, rx, wm, wx, lm, lx in rows:
        ev_t = dm * ms + wm                       # from the event being taken to the display done
        ev_w = dx * ms + wx
        seen_t = seen[0] + seen[2] * ms           # the press seen: the driver's wait + the Python to get
        seen_w = seen[1] + seen[3] * ms
        disp_t = seen_t + ev_t
        disp_w = seen_w + ev_w
        ring_t = disp_t + rm * ms + lm
        ring_w = disp_w + rx * ms + lx
        verdict = "yes" if disp_w <= GOAL_MS else ("typical only" if disp_t <= GOAL_MS else "no")
        print("%-46s | %5.1f %5.1f | %5.1f %5.1f | %5.1f %5.1f | %4.2f %4.2f | %5.1f %5.1f | %5.1f %5.1f | %5.1f %5.1f"
              " | %s" % (label, seen_t, seen_w, hm * ms, hx * ms, drm * ms, drx * ms, wm, wx, disp_t, disp_w,
                         ring_t, ring_w, ev_t, ev_w, verdict))


if sys.implementation.name == "micropython":
    _bench()
elif __name__ == "__main__":
    _launch()
