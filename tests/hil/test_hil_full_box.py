"""On the emulated Pico: a box with 100 finished, unsynced matches on its flash boots to the start screen,
answers hello with every one waiting, and keeps heap to spare.

It runs on the `picoemu` fixture of tests/hil/conftest.py (skipped, "HIL NOT RUN", without the kit).
The image is bench/bench_pico_boot.py's: the firmware as .mpy, main.py as firmware/main.py runs the
app plus one print of the heap, and the journal written by the firmware's own journal on the unix
port. With main's journal before branch mem (a small list per match) this box died at boot:
MemoryError in the link's 4 KB buffer.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import bench_pico_boot as B  # noqa: E402

MATCHES = 100
SPARE = 48 * 1024     # heap left after boot with a full box: the link's frames, a sync, a match in play


def test_a_box_with_100_matches_boots_on_the_pico(picoemu, tmp_path):
    img = B.make_image(picoemu, str(tmp_path), "full", MATCHES)
    (free, alloc), ms, hello, wdt = B.boot(picoemu, img, MATCHES)   # NotBooted fails the test with why
    assert hello["unsynced"] == MATCHES and hello["ready"] == MATCHES
    assert wdt == 0, "the watchdog reset the box while it read its journal"
    assert free >= SPARE, "only %d bytes of heap free after boot (%d in use)" % (free, alloc)
