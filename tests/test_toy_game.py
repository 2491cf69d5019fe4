"""A fifth game added in the test directory alone (tests/toy_rules.py, registered by this test) is played
through the UI and the renderer and scored by `nakk score`: nothing outside firmware/nakk/rules/ is
written per game, so nothing else had to change for it."""
import json
import os
import sys

import pytest

from conftest import FIRMWARE, ROOT, TESTS, run_mpy

sys.path.insert(0, FIRMWARE)
sys.path.insert(0, os.path.join(ROOT, "host"))
sys.path.insert(0, TESTS)

from nakk import rules  # noqa: E402

# the toy game from the start screen's last entry (PREV wraps round), table, round, first shuffler;
# A takes 2, B takes 3, a void deal, A takes 3, A takes 3 again: a knockout; both sides confirm
SCRIPT = "PREV OK OK OK OK A NEXT NEXT B PREV OK NEXT NEXT A NEXT NEXT A A B"

# the same player on both interpreters: tokens -> button events -> Ui.handle, flushed as the app does
PLAY = r'''
from nakk.drivers import buttons as K
from nakk.ui import flows as U
from nakk.table import Table
NAMES = K.NAMES

def press(ui, token):
    if token[0] == "L" and len(token) > 1:
        ev = K.event(K.LONG, NAMES.index(token[1:]))
    else:
        b = NAMES.index(token)
        ev = K.event(K.PRESS if b < K.NSIDE else K.SHORT, b)
    r = ui.handle(ev)
    ui.table.flush()
    return r
'''


@pytest.fixture
def tikk():
    import toy_rules
    rules.register(toy_rules.TIKK)
    try:
        yield toy_rules.TIKK
    finally:
        rules.unregister("tikk")
    assert "tikk" not in rules.NAMES


def _play(script):
    env = {}
    exec(PLAY, env)
    ui = env["U"].Ui(env["Table"]())
    for token in script.split():
        env["press"](ui, token)
    return ui


def test_the_toy_game_is_played_through_the_ui_and_scored_by_nakk_score(tikk, tmp_path, capsys):
    from nakk_host.cli import main
    ui = _play("PREV")
    assert ui.items[ui.cursor] == tikk.title          # the start screen lists it, from its own title
    ui = _play(SCRIPT)
    m = ui.table.match
    assert m.rules is tikk and m.st.over and m.locked()
    s = m.summary()
    assert (s["final"], s["winner"], s["ended"], s["deals"]) == ([8, 3], "A", "knockout", 5)
    assert s["last_taker"] == "A"                     # the game's own summary field
    path = tmp_path / "tikk.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in ui.table.saved))
    capsys.readouterr()
    assert main(["score", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(s))
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "over (three and three: a knockout): winner A" in out   # the game's own ending words


def test_the_toy_game_names_its_entries_in_its_own_words(tikk):
    ui = _play(" ".join(SCRIPT.split()[:6]))         # set up, then A takes 2
    env = {}
    exec(PLAY, env)
    env["press"](ui, "LPREV")                         # the undo question names the entry
    assert ui.detail == "Voor 1: 2 A"                 # the game's own counter word, the deal's number
    assert tikk.describe(ui.table.event(2), 1, ui.deal.steps, 1) == "Round 1: 2 A"


def test_the_toy_game_is_drawn_by_the_renderer_on_micropython():
    script = "import sys\nsys.path.insert(0, %r)\n" % TESTS + PLAY + r'''
import json
import framebuf
from nakk.drivers import font
from nakk import rules
from nakk.ui.render import Screen
from nakk.drivers.rings import Rings
import toy_rules
rules.register(toy_rules.TIKK)
ui = U.Ui(Table())
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
ring = Rings(2, 400, 20, brightness=64)
screen = Screen(fb, ring)
facts = {}
for token in "PREV OK OK OK OK A NEXT NEXT B PREV OK NEXT NEXT A".split():
    press(ui, token)
screen.draw(ui)
screen.leds(ui)
st = ui.table.match.st
facts["score"] = list(st.score)
# the header: the game's counter word and count, drawn as font draws them
ref = bytearray(1024)
rfb = framebuf.FrameBuffer(ref, 128, 64, framebuf.MONO_VLSB)
x = font.text(rfb, "Voor", 0, 0) + 4
x += font.text(rfb, str(st.deals + 1), x, 0)
facts["header"] = buf[:x] == ref[:x]
facts["count"] = st.deals + 1
# the gauge: a filled 5x5 box per 2 tikks, from the bottom, on each outer edge
def filled(x, y):
    return fb.pixel(x + 2, y + 2) == 1
facts["gauge"] = [[filled(2 if i == 0 else 121, 43 - 8 * k) for k in range(4)] for i in range(2)]
# the rings: one LED per tikk, every 2nd paler (a group of 2), unlit group ends faintly marked
def rgb(i, p):
    v = ring.ring(i)
    return bytes(v[3 * p:3 * p + 3])
mark = rgb(0, 15)                  # position 15 is unlit and ends a group
def lit(i):
    return sum(1 for p in range(16) if rgb(i, p) not in (b"\0\0\0", mark))
facts["lit"] = [lit(0), lit(1)]
facts["groups"] = [rgb(0, 0) == rgb(0, 2), rgb(0, 1) == rgb(0, 3), rgb(0, 0) != rgb(0, 1), rgb(0, 14) == b"\0\0\0"]
facts["used"] = ring.used
print(json.dumps(facts))
'''
    r = run_mpy(["-c", script], compiled=True)   # as the box runs it: from .mpy
    assert r.returncode == 0, r.stdout + r.stderr
    f = json.loads(r.stdout.strip().splitlines()[-1])
    assert f["score"] == [5, 3]
    assert f["header"] is True and f["count"] == 5
    assert f["gauge"] == [[k < 5 // 2 for k in range(4)], [k < 3 // 2 for k in range(4)]]
    assert f["lit"] == [5, 3] and f["used"] == 2
    assert f["groups"] == [True, True, True, True]
