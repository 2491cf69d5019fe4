"""Bytes allocated per deal press by the real app on the MicroPython unix port (tests/mpy/press_alloc.py).

On the Pico, with the app's heap fragmented after a match start, every
allocation of more than one 16-byte block scans the allocation table from
the lowest free block: ~0.5-0.8 ms each (docs/latency.md). So the presses a
deal needs must allocate little: these ceilings are bytes from the event to
the end of its first frame, collector off, on the 64-bit unix port (objects
about twice their size on the Pico). The font's own drawing is counted too.
The demo matches (host/nakk_host/demo) are played press by press through
App.on_event on a fresh box (a LittleFS image file).
"""
import os

import pytest

from conftest import ROOT, run_mpy

SCRIPT = os.path.join(ROOT, "tests", "mpy", "press_alloc.py")
DEMO = os.path.join(ROOT, "host", "nakk_host", "demo")
HEAP = "352K"      # the simulator's (the whole app)

ENTRY = 1          # nakk.ui.flows modes
MOVED, SUBMITTED = 1, 2

# Ceilings, bytes on the 64-bit unix port. Before issue 11's allocation work a deal
# entry took 0.8-1.3 KB (Saare mäng), 2.6-2.9 KB (Turniirisasku: the next board's form
# built in the press) and 1.7-2.2 KB (Schmier); now 0.6-1.1 KB (docs/latency.md, i11e).
MOVE_FIRST = 768        # a cursor move or OK step, the first time a match shows that list or word
ENTRY_FIRST = 1280      # a deal entry that neither ends the match nor starts a pokk replay (its form)
MOVE_KEPT = 320         # the same presses in the next match: lists, words, pages and forms kept
ENTRY_KEPT = 1024


def presses(tmp_path, *rulesets):
    img = tmp_path / "flash.img"
    r = run_mpy([SCRIPT, str(img)] + [os.path.join(DEMO, n + ".keys") for n in rulesets],
                heap=HEAP, compiled=True, timeout=300)
    assert r.returncode == 0 and "done" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    matches = [[]]
    for line in r.stdout.splitlines():
        if line == "match":
            matches.append([])
        elif line.startswith("press "):
            mode, kind, button, what, n, after, banner = (int(x) for x in line.split()[1:])
            matches[-1].append({"mode": mode, "what": what, "bytes": n, "after": after, "banner": banner})
    return matches


@pytest.mark.parametrize("ruleset", ["saare-2020", "saare-classic", "sasku", "schmier"])
def test_the_presses_of_a_deal_allocate_under_a_ceiling(tmp_path, ruleset):
    (match,) = presses(tmp_path, ruleset)
    deal = [p for p in match if p["mode"] == ENTRY]
    moves = [p["bytes"] for p in deal if p["what"] == MOVED]
    entries = [p["bytes"] for p in deal
               if p["what"] == SUBMITTED and p["after"] == ENTRY and not p["banner"]]
    assert moves and entries
    assert max(moves) <= MOVE_FIRST, moves
    assert max(entries) <= ENTRY_FIRST, entries


def test_the_next_match_s_deal_presses_allocate_less(tmp_path):
    first, second = presses(tmp_path, "saare-2020", "saare-2020")
    deal = [p for p in second if p["mode"] == ENTRY]
    moves = [p["bytes"] for p in deal if p["what"] == MOVED]
    entries = [p["bytes"] for p in deal if p["what"] == SUBMITTED]
    assert len(entries) == 7 and moves
    assert max(moves) <= MOVE_KEPT, moves
    assert max(entries) <= ENTRY_KEPT, entries
