"""MicroPython: draw a match's score screen from its events, as the box draws it, and print the frame in hex.

Usage: micropython tests/mpy/render_match.py EVENTS.jsonl
Folds the events with nakk.match, puts the match on a journal-less table,
lets nakk.ui.flows pick the screen for it and nakk.ui.render draw it on a framebuf.
Prints the 1024-byte MONO_VLSB frame as one line of hex, then the UI mode.
tests/test_sim.py compares the score region with the simulator's screen.
"""
import binascii
import sys

import framebuf

from nakk.match import read_lines
from nakk.ui.render import Screen
from nakk.table import Table
from nakk.ui.flows import Ui

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
print(binascii.hexlify(buf).decode())   # one string: a list of 1024 would need 8 KB in one piece
print(ui.mode)
