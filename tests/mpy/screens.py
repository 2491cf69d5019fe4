"""MicroPython: the main screens of the box, drawn by nakk.ui.render on a real framebuf, and what each draw sends.

Usage: micropython tests/mpy/screens.py
Plays scripted button presses through nakk.ui.flows on a journal-less table, draws
as the app does (with "saving" while an entry is pending, then again after
the flush), and prints one JSON object per line:
  {"shot": name, "fb": hex of the 1024-byte MONO_VLSB frame, "rings": [hex of each ring used], ...}
  {"mask": name, "value": the page mask draw() returned}
  {"list": name, "fb": hex, "cursor": ui.cursor, "n": items}
  {"frame": name, "fb": hex, ...}: a frame between screenshots (a stuck button's)
tests/test_render.py turns the shots into PNGs (docs/screenshots/) and checks them.
Everything is deterministic: the presses are fixed, and the clock moves only where the script moves it.
"""
import json

import framebuf
from binascii import hexlify

from nakk.drivers import buttons as K
from nakk.drivers import font
from nakk.ui import flows as U
from nakk.ui.render import Screen, wrap
from nakk.drivers.rings import Rings
from nakk.table import Table
from stillclock import Clock   # a script moves it (to time a message out)

NAMES = K.NAMES


def event(token):
    if token[0] == "L" and len(token) > 1:
        return K.event(K.LONG, NAMES.index(token[1:]))
    b = NAMES.index(token)
    return K.event(K.PRESS if b < K.NSIDE else K.SHORT, b)


class Box:
    """A UI, a table, a framebuf and rings, drawn the way the app draws them."""

    def __init__(self):
        self.table = Table()
        self.clock = Clock()
        self.ui = U.Ui(self.table, clock=self.clock)
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.rings = Rings(3, 400, 20, brightness=64)
        self.screen = Screen(self.fb, self.rings, self.buf)   # as the app draws: into the bytes
        self.waiting = 0
        self.last = self.frame()

    def frame(self, saving=False):
        mask = self.screen.draw(self.ui, saving, self.waiting)
        self.screen.leds(self.ui)
        return mask

    def press(self, script):
        """Press each button; returns the masks of the draws of the last press."""
        masks = None
        for token in script.split():
            self.ui.handle(event(token))
            masks = []
            if self.table.pending is not None:
                masks.append(self.frame(True))
                self.table.flush()
            masks.append(self.frame())
        return masks

    def later(self, ms):
        """The clock moves on; the app's frame task ticks the UI and draws. Returns the mask."""
        self.clock.now += ms
        self.ui.tick()
        return self.frame()

    def frame_of(self, name, **extra):
        """A frame that is no screenshot, for the tests to look at."""
        out = {"frame": name, "fb": hexlify(self.buf).decode()}
        for k in extra:
            out[k] = extra[k]
        print(json.dumps(out))

    def sides(self):
        m = self.table.match
        return m.rules.sides if m is not None else 2

    def shot(self, name, **extra):
        rings = []
        for i in range(self.sides()):
            rings.append(hexlify(bytes(self.rings.ring(i))).decode())
        out = {"shot": name, "fb": hexlify(self.buf).decode(), "rings": rings}
        m = self.table.match
        if m is not None and m.st is not None:
            out["score"] = list(m.st.score)
        for k in extra:
            out[k] = extra[k]
        print(json.dumps(out))


def mask(name, value):
    print(json.dumps({"mask": name, "value": value}))


def main():
    font.warm()

    # the start screen of a fresh box
    b = Box()
    b.shot("start", cursor=b.ui.cursor)

    # Saare mäng 2020: the score, and a deal being entered
    b.press("OK OK OK OK")
    b.press("NEXT OK PREV A")                    # ruutu by B, lost: jänn to A: 8
    b.press("OK B")                              # suit by A, lost: won by B: 4
    b.press("NEXT NEXT OK NEXT B")               # white pits by B, B's ♦6 caught the ♣K: 6, a mark
    b.press("NEXT OK")                           # ruutu; OK: the other results are asked
    mask("still", b.frame())                     # nothing changed
    mask("cursor_move", b.press("NEXT")[-1])     # jänn (the maker's) under the cursor
    mask("still_after_move", b.frame())
    b.shot("saare-entry")

    # the deal commits: drawn with "saving" before the flush, then again
    b.ui.handle(event("A"))
    pend = b.table.pending is not None
    mask("commit_saving", b.frame(True))
    saving_fb = hexlify(b.buf).decode()
    b.shot("saving")
    b.table.flush()
    mask("commit_saved", b.frame())
    print(json.dumps({"saving": pend, "fb_saving": saving_fb, "fb_saved": hexlify(b.buf).decode()}))

    # a message: OK where a side is asked (a pokk's maker)
    b.press("OK OK")                             # suit: its other results; OK: a pokk, its maker is asked
    mask("message", b.press("OK")[-1])
    b.shot("message")
    mask("message_cleared", b.press("NEXT")[-1])
    b.press("PREV")
    b.press("LPREV LPREV")                       # both steps taken back: the game is asked again

    # the penalty list, the cursor moved
    b.press("LNEXT NEXT NEXT")
    b.shot("penalty", cursor=b.ui.cursor, n=len(b.ui.items))
    for i in range(len(b.ui.items)):
        b.press("NEXT")
        print(json.dumps({"list": "penalty", "fb": hexlify(b.buf).decode(), "cursor": b.ui.cursor,
                          "n": len(b.ui.items), "detail": 0}))
    b.press("LPREV")

    # the undo question, naming the entry it takes back
    b.press("LPREV")
    d = b.ui.detail
    cut = wrap(d) if font.width(d) > 128 else -1
    lines = [d[:cut], d[cut + 1:]] if cut > 0 else [d]
    b.shot("undo", cursor=b.ui.cursor, detail=d, lines=lines, widths=[font.width(x) for x in lines])
    print(json.dumps({"list": "undo", "fb": hexlify(b.buf).decode(), "cursor": b.ui.cursor,
                      "n": len(b.ui.items), "detail": len(lines)}))
    b.press("NEXT")
    print(json.dumps({"list": "undo", "fb": hexlify(b.buf).decode(), "cursor": b.ui.cursor,
                      "n": len(b.ui.items), "detail": len(lines)}))
    b.press("LPREV")

    # the end of the match: bonuses (karvane mark, prillid) and who has confirmed
    b.press("NEXT A")                            # ruutu made and won by A: A 18, over; B's karvane mark is a bonus
    b.press("A")                                 # A confirms
    b.shot("end")

    # locked, waiting for the judge (one finished result on flash: ↑1)
    b.press("B")
    b.waiting = 1
    b.frame()
    b.shot("judge")

    # Schmier: three teams
    s = Box()
    s.press("PREV OK OK OK OK")
    s.press("A OK")                              # bid 3 by A, every point: +6
    s.press("NEXT B A C OK")                     # bid 4 by B: A 1, B 4, C 1
    s.press("PREV C A B")                        # bid 5 by C; a point to A, one to B so far
    s.shot("schmier")

    # Schmier with a negative and two-digit scores: A -12, B 21, C 14
    c = Box()
    c.press("PREV OK OK OK OK")
    c.press("NEXT NEXT A B B C C B C OK")        # A bids 6, takes nothing (the last point by C: OK saves): A -6; B 3, C 3
    c.press("NEXT NEXT A B B C C B C OK")        # again: A -12, B 6, C 6
    c.press("NEXT NEXT B OK")                    # B bids 6 and takes everything: B 12
    c.press("NEXT NEXT B OK")                    # B 18
    c.press("NEXT NEXT C OK")                    # C 12
    c.press("B B B B C C NEXT OK")               # B bids 3, takes 3; C 2; Game tied: B 21, over; C 14
    st = c.table.match.st
    c.shot("schmier-scores", score=[st.score[i] + st.bonus[i] for i in range(3)], over=st.over)

    # Saare mäng 2020, a deal's first step: "Trump · võit", what each pair's button and OK do
    f = Box()
    f.press("OK OK OK OK A")                     # trump made and won by A: one press, A 2
    f.shot("saare-first")
    # the slip the two-step entry hid (the same winner, the maker wrong), just before A's press saves
    f.frame_of("slip_made_won")                  # A's press: A made it and won
    f.press("OK")
    f.frame_of("slip_lost_won")                  # OK, "Kaotas": A's press: B made it, A won

    # a stuck button: the message, then the bottom line says so until it is released
    d = Box()
    d.press("OK OK OK OK A NEXT OK")             # Saare mäng 2020: a deal, the next one half entered
    d.frame_of("entry")
    d.ui.handle(K.event(K.FAULT, K.OK))          # OK held down 5 s: the driver reports it stuck
    mask("fault_message", d.frame())
    d.frame_of("message")
    mask("fault_message_gone", d.later(U.MSG_MS))
    d.shot("stuck", faults=d.ui.faults)
    mask("fault_still", d.frame())
    mask("fault_still_later", d.later(U.MSG_MS))
    d.ui.handle(K.event(K.FAULT, K.NEXT))        # a second one: both named
    d.frame()
    mask("fault_both", d.later(U.MSG_MS))
    d.frame_of("both")
    d.ui.handle(K.event(K.CLEAR, K.NEXT))
    d.frame()
    d.later(U.MSG_MS)
    d.frame_of("one_again")
    d.ui.handle(K.event(K.CLEAR, K.OK))          # released: "works again", then the entry line
    mask("fault_cleared", d.frame())
    d.frame_of("cleared_message")
    mask("fault_cleared_gone", d.later(U.MSG_MS))
    d.frame_of("cleared", faults=d.ui.faults)

main()
