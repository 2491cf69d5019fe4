"""MicroPython: the pages render keeps drawn (names line, foot) give the same pixels as drawing them.

Usage: micropython tests/mpy/page_lockstep.py [PRESSES]
Two Screens draw the same UI in lockstep into their own frames: one as the app
draws (kept pages copied when the names line or the foot shows what it showed
before), one that always draws (its kept-page lookup turned off). Each ruleset's
match is set up by the start wizard and then played with seeded random presses
(side buttons, cursor moves, OK, long PREV/NEXT, the undo); after every press and
every flush the two frames are compared. Prints one JSON line per ruleset:
  {"rules": name, "frames": n, "kept": pages copied, "differ": frames that differed,
   "first": the first difference (press number and page) or null}
"""
import json
import random
import sys

import framebuf

from nakk.drivers import buttons as K
from nakk.drivers import font
from nakk.ui import flows as U
from nakk.ui.render import Screen
from nakk.table import Table
from stillclock import Clock   # a script moves it (to time a message out)


def _frame():
    buf = bytearray(1024)
    return buf, framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)


class Lockstep:
    def __init__(self):
        self.table = Table()
        self.clock = Clock()
        self.ui = U.Ui(self.table, clock=self.clock, max_sides=3)
        self.buf, fb = _frame()
        self.ref_buf, ref_fb = _frame()
        self.screen = Screen(fb, None, self.buf)
        self.ref = Screen(ref_fb, None, self.ref_buf)
        self.ref._kept_page = lambda r, page: None     # always draws
        self.kept = 0
        self.frames = 0
        self.differ = 0
        self.first = None
        found = self.screen._kept_page

        def counting(r, page):
            e = found(r, page)
            if e is not None:
                self.kept += 1
            return e
        self.screen._kept_page = counting

    def draw(self, n, saving=False):
        self.screen.draw(self.ui, saving)
        self.ref.draw(self.ui, saving)
        self.frames += 1
        if self.buf != self.ref_buf:
            self.differ += 1
            if self.first is None:
                for p in range(8):
                    if self.buf[p * 128:(p + 1) * 128] != self.ref_buf[p * 128:(p + 1) * 128]:
                        self.first = [n, p]
                        break

    def press(self, n, ev):
        self.clock.now += 1000       # no chord, no message timing out between presses
        self.ui.handle(ev)
        if self.table.pending is not None:
            self.draw(n, True)
            self.table.flush()
        self.draw(n)


def short(b):
    return K.event(K.SHORT, b)


def play(cursor, presses, seed):
    """The start wizard's first item moved to `cursor` (the ruleset), then random presses."""
    s = Lockstep()
    n = 0
    s.draw(n)
    for _ in range(cursor):
        n += 1
        s.press(n, short(K.NEXT))
    for _ in range(4):
        n += 1
        s.press(n, short(K.OK))
    random.seed(seed)
    choices = (K.event(K.PRESS, K.A), K.event(K.PRESS, K.B), K.event(K.PRESS, K.C),
               short(K.NEXT), short(K.NEXT), short(K.PREV), short(K.OK), short(K.OK),
               K.event(K.LONG, K.PREV), K.event(K.LONG, K.NEXT))
    for _ in range(presses):
        n += 1
        s.press(n, choices[random.getrandbits(16) % len(choices)])
    m = s.table.match
    return {"rules": m.rules.name if m is not None and m.rules is not None else None, "frames": s.frames,
            "kept": s.kept, "differ": s.differ, "first": s.first}


def main():
    font.warm()
    presses = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    # argv[2]: one ruleset (its place in the start wizard's list), as a box plays one game
    for cursor in [int(sys.argv[2])] if len(sys.argv) > 2 else range(4):
        print(json.dumps(play(cursor, presses, 11 + cursor)))


main()
