"""MicroPython: bytes allocated per button press by the real app (nakk.app.App), from the event to its first frame.

Usage: micropython tests/mpy/press_alloc.py IMAGE KEYS-FILE [KEYS-FILE ...]

Each KEYS file (host/nakk_host/demo/*.keys: A B C PREV OK NEXT, OK:long ...)
is played as one match on a fresh box (a LittleFS image file, SimPins, a
framebuf, rings), one press after another, by calling App.on_event with the
driver's event, the collector off (gc.disable()), and gc.mem_alloc() read
before and at the end of the press's first frame: what the players see
first (for an entry: the new score with "saving"; the flash write comes
after it and is not counted). Between presses the box does what its frames
task does while the players look: the entry is flushed, the words are drawn
ahead (App._idle), the heap is collected. The clock moves 1 s per press, so
no two side presses are a chord.

Several KEYS files are played one after another on the same box, each
match started by a long OK on the one before ("match" is printed between).

Prints one line per press:
  press <ui mode before> <kind> <button> <what ui.handle said> <bytes> <ui mode after> <banner up: 1>
and "done" at the end (tests/test_press_alloc.py reads them).
"""
import gc
import sys

import framebuf

from nakk import app as A
from nakk.ui import flows as U
from nakk.offbox import simpins as S
from nakk.offbox.blockdev import mount_image
from nakk.drivers.buttons import LONG, NAMES, NSIDE, PRESS, SHORT, event
from nakk.drivers.rings import Rings


class Board:
    def __init__(self, image):
        self.image = image
        self.pins = S.make_pins(6)
        self.clock = S.SimClock(1000)
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.rings = Rings(3, 350, 20)
        self.settings = "/flash/settings.json"
        self.serial = None

    def show(self, mask):
        return 0

    def leds(self):
        pass

    def buzz(self, ms):
        pass

    def usb_host(self):
        return False

    def mount(self):
        mount_image(self.image, "/flash")
        return "/flash/journal"

    def feed(self):
        pass


def keys(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0]
            for tok in line.split():
                t = tok.upper()
                long = t.endswith(":LONG")
                if long:
                    t = t[:-5]
                out.append((NAMES.index(t), long))
    return out


def main(image, paths):
    board = Board(image)
    app = A.App(board)
    clock = board.clock
    state = [0]

    def flush_later():
        # the press ends at its first frame: the flush (and its second frame) come after
        state[0] = gc.mem_alloc()

    for n in range(len(paths)):
        presses = keys(paths[n])
        if n:
            # the next match: a long OK on the finished result opens the start screen
            presses.insert(0, (NAMES.index("OK"), True))
            print("match")
        for b, long in presses:
            clock.advance(1000)
            k = PRESS if b < NSIDE else (LONG if long else SHORT)
            ev = event(k, b, clock.ticks_ms())
            mode = app.ui.mode
            what = [0]
            handle = app.ui.handle

            def spy(e):
                r = handle(e)
                what[0] = r[0]
                return r

            app.ui.handle = spy
            app.flush = flush_later
            gc.collect()
            gc.disable()
            state[0] = 0
            a0 = gc.mem_alloc()
            app.on_event(ev)
            a1 = state[0] or gc.mem_alloc()
            gc.enable()
            del app.ui.handle
            del app.flush
            print("press %d %d %d %d %d %d %d" % (mode, k, b, what[0], a1 - a0, app.ui.mode,
                                                0 if app.ui.banner is None else 1))
            # what the app does after the press, while the players look
            clock.advance(1000)
            app.flush()
            for _ in range(400):
                if app.ui.mode == U.START:
                    app._idle()
                elif not app.screen.warm(app.ui):
                    break
            gc.collect()
    print("done")


main(sys.argv[1], sys.argv[2:])
