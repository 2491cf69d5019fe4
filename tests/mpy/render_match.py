"""MicroPython: draw a match's score screen from its events, as the box draws it, and print the frame in hex.

Usage: micropython tests/mpy/render_match.py EVENTS.jsonl
Folds the events with nakk.match, puts the match on a journal-less table,
lets nakk.ui pick the screen for it and nakk.render draw it on a framebuf.
Prints the 1024-byte MONO_VLSB frame as one line of hex, then the UI mode.
tests/test_sim.py compares the score region with the simulator's screen.
"""
import sys

import framebuf
from binascii import hexlify

from nakk.match import read_lines
from nakk.render import Screen
from nakk.table import Table
from nakk.ui import Ui

with open(sys.argv[1]) as f:
    m, error = read_lines(f)
if error is not None:
    print("error", error[0], error[1].reason)
    sys.exit(2)
t = Table()
t.match = m
ui = Ui(t)
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
Screen(fb).draw(ui)
print(hexlify(buf).decode())        # one 2 KB string, not 1024 small ones (the heap is capped)
print(ui.mode)
