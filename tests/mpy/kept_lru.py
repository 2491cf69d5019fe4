"""MicroPython: render's kept pages give way least recently used, and warm() makes the slots a press takes.

Usage: micropython tests/mpy/kept_lru.py
A Screen on a 128x64 frame keeps foot pages (region 1) under nine keys, one
more than it has slots; the first key, copied again before the ninth is kept
(the deal's first step, which comes back every deal), must still be kept; the
second (not used since) must have given way. Then, on a fresh Screen, the
slots warm() makes (one a call while a match is played) must be those
_keep_page takes first: keeping a page then allocates no slot. Prints one
JSON line: {"first_kept": bool, "second_kept": bool, "slot_bytes": bytes
allocated by keeping a page in each region after two warm() calls}.
"""
import gc
import json

import framebuf

from nakk.ui import flows as U
from nakk.ui.render import Screen


class _Ui:
    mode = U.ENTRY     # warm() makes slots while a match is played, not on the start screen
    lang = 0


def screen():
    buf = bytearray(1024)
    return Screen(framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB), buf=buf)


def keep(s, r, k1, page):
    s._key("step" if r else "names", k1, "answer" if r else None, True if r else None)
    s._keep_page(r, page)


def kept(s, k1):
    s._key("step", k1, "answer", True)
    return s._kept_page(1, 7) is not None


s = screen()
_KEPT = len(s._pages) // 2   # slots a region (render's const, not importable from .mpy)
for k in range(_KEPT):
    keep(s, 1, k, 7)
kept(s, 0)                   # the first key used again
keep(s, 1, _KEPT, 7)         # one key too many: someone gives way
first = kept(s, 0)
second = kept(s, 1)

s = screen()
s._warming = None
s._warm_match = None
ui = _Ui()
s.warm(ui)   # two slots made (the frames task makes one a frame while a match is played)
s.warm(ui)
a = 0             # a global made before it is measured (a new one can grow the module's dict)
gc.collect()
gc.disable()
a = gc.mem_alloc()
keep(s, 0, 1, 1)
keep(s, 1, 1, 7)
a = gc.mem_alloc() - a
gc.enable()
print(json.dumps({"first_kept": first, "second_kept": second, "slot_bytes": a}))
