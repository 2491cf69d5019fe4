"""The screenshots of docs/entry.md, drawn by nakk.render on CPython into a MONO_VLSB buffer and made PNG by
nakk_host.screenshot: a Turniirisasku board being entered, the judge's assignment, the capitals with marks,
a side button held on "Trump · võit", Schmier's tally with a button held and on the tied Game point.

Each committed PNG must be what the code draws now; `python tests/test_entry_shots.py` writes them again.
"""
import os
import sys

from conftest import FIRMWARE, ROOT, TESTS

sys.path.insert(0, FIRMWARE)
sys.path.insert(0, TESTS)
from nakk.drivers import font  # noqa: E402
from nakk.ui import render  # noqa: E402
from nakk_host.screenshot import read_png, to_png  # noqa: E402
from test_render_words import FB  # noqa: E402
from test_ui import box, play  # noqa: E402

SHOTS = os.path.join(ROOT, "docs", "screenshots")
NAMES = ("sasku-entry", "sasku-board", "assignment", "capitals", "held", "schmier-held", "schmier-tie")
SIDES = [{"id": "A", "name": "Šokk/Žukov"}, {"id": "B", "name": "Öö/Ärni"}]
SHORT = [{"id": "A", "name": "Õun"}, {"id": "B", "name": "Šokk"}]      # room for what the buttons do
THREE = [{"id": "A", "name": "Õun"}, {"id": "B", "name": "Šokk"}, {"id": "C", "name": "Ära"}]


def _started(a, sides=SIDES):
    ui = box()
    ui.offer(dict(a, table=3, round=2, first_shuffler=0, sides=sides))
    return ui


def shot(name):
    """The 1024 bytes of the screen `name`."""
    fb = FB()
    if name in ("sasku-entry", "sasku-board"):
        ui = _started({"ruleset": "sasku", "room": 1}, SHORT)
        play(ui, "OK A NEXT OK PREV A OK B")          # boards 1-3 as they went
        if name == "sasku-board":
            play(ui, "NEXT NEXT OK NEXT OK")          # board 4 left out: the next stored as 5
        render.Screen(fb).draw(ui)
    elif name == "held":
        # Saare mäng 2020: A's button down on "Trump · võit" (past the chord window, not yet 0.8 s):
        # the win drawn, the header saying what holding it enters, the entry not on flash
        from nakk.drivers import buttons as K
        ui = _started({"ruleset": "saare-2020"}, SHORT)
        play(ui, "OK A")
        ui.handle(K.event(K.PRESS, K.A, ui.test_clock.ticks_ms() + 1000))
        assert ui.holding() == K.A and ui.table.pending is not None
        render.Screen(fb).draw(ui, 2)
    elif name in ("schmier-held", "schmier-tie"):
        # Schmier: B bid 4 (held on 3); A took a point. Held: C's button down on "+1 punkt" (the
        # tap's point drawn, "hoia: +2" in the header); the tie: the cursor on "Mängupunkt viik"
        from nakk.drivers import buttons as K
        ui = _started({"ruleset": "schmier"}, THREE)
        play(ui, "OK LB A")
        if name == "schmier-held":
            ui.handle(K.event(K.PRESS, K.C, ui.test_clock.ticks_ms() + 1000))
            assert ui.holding() == K.C and ui.table.pending is None
            render.Screen(fb).draw(ui, 2)
        else:
            play(ui, "NEXT NEXT")
            assert ui.choice_text() == "Mängupunkt viik"
            render.Screen(fb).draw(ui)
    elif name == "assignment":
        ui = _started({"ruleset": "saare-2020", "settings": {"sohk_policy": "forfeit-partii", "target": 12}})
        render.Screen(fb).draw(ui)
    else:
        # the capitals with marks beside their small letters and plain capitals, in both text sizes
        font.text(fb, "ÕÄÖÜŠŽ  õäöüšž  OAOUSZ", 1, 0)
        font.text(fb, "Šokk/Žukov  Öö/Ärni  Õun", 1, 11)
        font.text(fb, "ÄÖÜ äöü", 1, 26, scale=2)
        font.text(fb, "ÕŠŽ õšž", 1, 46, scale=2)
    return bytes(fb.buf)


def png(name):
    return to_png(shot(name))


def test_the_entry_screenshots_are_what_the_code_draws():
    for name in NAMES:
        path = os.path.join(SHOTS, name + ".png")
        assert os.path.exists(path), "missing %s: run python tests/test_entry_shots.py" % path
        with open(path, "rb") as f:
            committed = read_png(f.read())
        assert committed == read_png(png(name)), "docs/screenshots/%s.png is out of date" % name


def test_the_entry_page_shows_them():
    with open(os.path.join(ROOT, "docs", "entry.md"), encoding="utf-8") as f:
        page = f.read()
    for name in NAMES:
        assert "screenshots/%s.png" % name in page, name


if __name__ == "__main__":
    for name in NAMES:
        path = os.path.join(SHOTS, name + ".png")
        with open(path, "wb") as f:
            f.write(png(name))
        print("wrote", os.path.relpath(path, ROOT))
