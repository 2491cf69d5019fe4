"""On the emulated Pico: a box with 100 finished, unsynced matches on its flash boots to the start screen,
answers hello with every one waiting, and keeps heap to spare.

It runs on the `picoemu` fixture of tests/hil/conftest.py (branch i11, the emulated Pico kit): until
that is merged it is named hil_full_box.py so that pytest does not collect it; once it is, rename it to
test_hil_full_box.py. The same check, with figures, is bench/bench_pico_boot.py (which needs only
the kit); against i11's conftest it is this test. With main's journal before branch mem (a small
list per match) this box died at boot: MemoryError in the link's 4 KB buffer.
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
