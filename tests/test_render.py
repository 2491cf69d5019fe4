"""The box's screens as nakk.ui.render draws them on the MicroPython unix port, and the screenshots in docs/screenshots/.

tests/mpy/screens.py plays scripted presses through nakk.ui.flows and draws every
step on a real framebuf as the app does; these tests check what it drew and
sent (page masks), and that the committed PNGs are what the code renders now.
After a change to the screens, regenerate the PNGs with:

    .venv/bin/python tests/test_render.py
"""
import json
import os
import sys

import pytest

from conftest import ROOT, TESTS, run_mpy

sys.path.insert(0, os.path.join(ROOT, "host"))
from nakk_host.screenshot import pixel, read_png, to_png  # noqa: E402
from nakk_host.simulator import HEAP as APP_HEAP  # noqa: E402

# The harness holds four boxes at once (every ruleset, their screens, a frame's JSON), which the
# app never does; with them the unix port's qstr pool steps to its 7th pool (1280 entries,
# 14.5 KB in one piece) when the second ruleset loads, and the four boxes leave no such run free
# (where the step falls moves with every qstr the firmware adds or drops: 64 KB leaves room for
# it; the four fewer names of event.py's one check_pair moved it from needing 362 KB to 405).
HARNESS_HEAP = 64
HEAP = "%dK" % (int(APP_HEAP[:-1]) + HARNESS_HEAP)

SHOTS = os.path.join(ROOT, "docs", "screenshots")
REGENERATE = ".venv/bin/python tests/test_render.py"
# what each screenshot shows (docs/box.md, "Screens", takes its sentences from here)
CAPTIONS = (
    ("start", "A new match: the game, then table, round and the first to shuffle, each chosen with PREV/NEXT and OK."),
    ("saare-entry", "Saare mäng 2020 in play: the deal's number (\"Mäng 4\") and shuffler, each pair's nakks with its"
                    " rings as a gauge on the outer edge (4 nakks = 1 ring), and the deal being entered on the bottom"
                    " line: the game (Ruutu), the answer under the cursor (Jänn, the maker's), and under each name"
                    " what that pair's button says (\"A: tegi, võitis\": A made it and won); B's karvane mark (the"
                    " +1 it brings B at the end) steps aside while B's words need the room."),
    ("saare-first", "A deal's first step: the cursor on the likeliest deal, \"Trump · võit\" (trump made and won);"
                    " under each pair's name what its button does there (\"A: tegi, võitis\": A made it and won,"
                    " the whole deal in one press), and left of the answer what OK does (\"OK:muu\": the game's other"
                    " results). PREV/NEXT move round the games."),
    ("saving", "The new score shows at once, with \"salvestan\" (saving) in the header until the entry is on flash."),
    ("message", "OK where a side button is asked for enters nothing and says what to press."),
    ("penalty", "Long NEXT lists the offences; the offender's side button gives the one under the cursor."),
    ("undo", "Long PREV names the entry it would take back in the players' words (on two lines when they are wider than the screen), and only OK takes it back."),
    ("end", "The match is over: totals with the end bonuses (+1 for B's karvane mark) and who has confirmed"
            " (A ✓, B ?), each side with its own button."),
    ("judge", "Both sides have answered, so the result is locked and waits for the judge (↑1: one locked"
              " result on flash; the +1 beside B is its karvane bonus, in the final totals)."),
    ("schmier", "Schmier's three teams with a hand being tallied: C bid 5 (\"Pakkus 5\"), A and B have one point each"
                " so far (each team's button adds one), and \"OK+4\" under C: OK gives the rest to the bidder's team."),
    ("schmier-scores", "Schmier's scores run negative and past 9: each team's score stays in its own third of the"
                       " screen, 4 px clear of the dividers, and one too wide for the big digits there (any two"
                       " characters) is drawn in double-size text."),
    ("stuck", "A button held down for 5 s is reported stuck; after the message the bottom line keeps naming it"
              " until it is released (PREV, OK and NEXT have no ring to show it)."),
)


@pytest.fixture(scope="module")
def screens():
    # the firmware as .mpy, as the Pico runs it: compiling the UI, the renderer and every
    # ruleset from source inside the capped heap is more than the box ever does; the app's heap
    # (the simulator's) and HARNESS_HEAP more for what this harness holds besides
    r = run_mpy([os.path.join(TESTS, "mpy", "screens.py")], timeout=120, compiled=True, heap=HEAP)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    out = {"shot": {}, "mask": {}, "list": [], "frame": {}}
    for line in r.stdout.splitlines():
        d = json.loads(line)
        if "shot" in d:
            out["shot"][d["shot"]] = d
        elif "frame" in d:
            out["frame"][d["frame"]] = d
        elif "mask" in d:
            out["mask"][d["mask"]] = d["value"]
        elif "list" in d:
            out["list"].append(d)
        else:
            out["saving"] = d
    return out


def fb(hexstr):
    return bytes.fromhex(hexstr)


def png(shot):
    return to_png(fb(shot["fb"]), rings=[bytes.fromhex(r) for r in shot["rings"]], scale=4)


def lit(buf, x0, y0, x1, y1):
    """Lit pixels in the box [x0, x1) x [y0, y1)."""
    return sum(pixel(buf, x, y) for x in range(x0, x1) for y in range(y0, y1))


# ---------------------------------------------------------------- what is sent

def test_nothing_changed_sends_nothing(screens):
    assert screens["mask"]["still"] == 0
    assert screens["mask"]["still_after_move"] == 0


def test_a_cursor_move_touches_only_the_bottom_line_and_what_the_buttons_say(screens):
    # from "Kaotas" (a side button: "võitis") to "Jänn" ("tegi, võitis"): the answer on the
    # bottom line, and on the names line what each side's button now does
    assert screens["mask"]["cursor_move"] == 0x82


def test_a_score_change_touches_the_body_and_saving_only_the_header(screens):
    saving = screens["mask"]["commit_saving"]
    assert saving & 0x7C, hex(saving)          # the big digits (pages 2-6)
    assert saving & 0x01                       # the header says "saving"
    assert screens["mask"]["commit_saved"] == 0x01    # after the flush only "saving" goes away


def test_a_message_on_the_entry_is_the_header(screens):
    # issue 26: a message ("Tühistatud", a refusal) leaves the bottom line, the answer the next
    # press acts on, as it was; the header says it, inverse (the frame sends both pages)
    assert screens["mask"]["message"] & 0x01 and not screens["mask"]["message"] & 0x7E
    assert screens["mask"]["message_cleared"] & 0x01
    msg = fb(screens["shot"]["message"]["fb"])
    assert lit(msg, 0, 0, 128, 8) > 0.6 * 128 * 8       # inverse video
    assert lit(msg, 0, 56, 28, 64) < 0.4 * 28 * 8       # the bottom line is the entry's: its step's word ("Trump")
    entry = fb(screens["shot"]["saare-entry"]["fb"])
    assert lit(entry, 0, 56, 20, 64) < 0.4 * 20 * 8     # the step's name ("Ruutu"), not inverse


# ---------------------------------------------------------------- what is drawn

def test_the_saving_header_appears_only_while_saving(screens):
    s = screens["saving"]
    assert s["saving"] is True                 # an entry was pending when it was drawn
    box = (60, 0, 128, 8)
    assert lit(fb(s["fb_saving"]), *box) > 0.6 * 68 * 8
    assert lit(fb(s["fb_saved"]), *box) < 0.4 * 68 * 8
    assert fb(s["fb_saving"])[128:] == fb(s["fb_saved"])[128:]    # the rest is the same frame
    for name in ("saare-entry", "end", "schmier", "schmier-scores", "stuck"):
        assert lit(fb(screens["shot"][name]["fb"]), *box) < 0.4 * 68 * 8, name


def _bar(buf, detail):
    """Runs of rows (y) lit at x = 1 in the list's rows (under the detail line): the inverse cursor bar."""
    ys = [y for y in range(8 + 10 * detail, 56) if pixel(buf, 1, y)]
    runs = []
    for y in ys:
        if runs and runs[-1][1] == y - 1:
            runs[-1][1] = y
        else:
            runs.append([y, y])
    return runs


def test_the_inverse_cursor_is_where_ui_cursor_says(screens):
    lists = screens["list"]
    assert len(lists) >= 6
    seen = set()
    for d in lists:
        buf = fb(d["fb"])
        detail = d["detail"]
        rows = 4 - detail
        n, cur = d["n"], d["cursor"]
        top = 0
        if n > rows:
            top = min(max(cur - rows // 2, 0), n - rows)
        runs = _bar(buf, detail)
        assert len(runs) == 1, (d["list"], cur, runs)
        y0, y1 = runs[0]
        assert y1 - y0 + 1 == 10
        assert y0 == 8 + 10 * detail + 10 * (cur - top), (d["list"], cur, top, y0)
        seen.add((d["list"], cur))
    # saare-2020: card shown, sohk, cards shown 2..9, shuffling, misdealt twice, noise
    assert {c for name, c in seen if name == "penalty"} == set(range(13))
    assert {c for name, c in seen if name == "undo"} == {0, 1}


def _ink_columns(buf, y0, y1):
    """The x of every column with a lit pixel in rows [y0, y1)."""
    return [x for x in range(128) if any(pixel(buf, x, y) for y in range(y0, y1))]


def _ink_rows(buf, x0, x1, y0, y1):
    ys = [y for y in range(y0, y1) if any(pixel(buf, x, y) for x in range(x0, x1))]
    return (ys[0], ys[-1]) if ys else None


def test_three_scores_keep_to_their_columns(screens):
    shot = screens["shot"]["schmier-scores"]
    assert shot["score"] == [-12, 21, 14] and shot["over"]
    buf = fb(shot["fb"])
    col = 128 // 3
    dividers = (col, 2 * col)
    for d in dividers:
        assert all(pixel(buf, d, y) for y in range(17, 51)), d          # a full divider
        for x in (d - 1, d + 1):                                         # with blank columns either side
            assert not any(pixel(buf, x, y) for y in range(16, 56)), (d, x)
    # the score pages (2-6): apart from the dividers, each team's ink is inside its own column, 4 px
    # clear of the dividers (2 px read as "-1|21|14": the scores ran into them)
    ink = [x for x in _ink_columns(buf, 16, 56) if x not in dividers]
    for i in range(3):
        mine = [x for x in ink if col * i <= x < col * (i + 1)]
        assert mine, i
        assert min(mine) >= col * i + 4 and max(mine) <= col * (i + 1) - 5, (i, min(mine), max(mine))
    assert max(ink) < 3 * col
    # -12 is too wide for the 32 px digits in 42 px: double-size text, centred on the digits' rows
    top, bottom = _ink_rows(buf, 0, col, 16, 56)
    assert bottom - top + 1 == 14 and abs((top + bottom) - (18 + 49)) <= 1, (top, bottom)
    for i in (1, 2):              # 21 and 14 (38 px as big digits): double-size text, 4 px clear
        top, bottom = _ink_rows(buf, col * i + 2, col * (i + 1) - 2, 16, 56)
        assert bottom - top + 1 == 14, (i, top, bottom)
    # the names row: each name inside its column too
    names = _ink_columns(buf, 8, 16)
    for i in range(3):
        mine = [x for x in names if col * i <= x < col * (i + 1)]
        assert mine and min(mine) >= col * i + 1 and max(mine) <= col * (i + 1) - 2, (i, mine)


def _foot(buf):
    return buf[128 * 7:]


def _dark_in_foot(buf):
    return sum(1 - pixel(buf, x, y) for x in range(128) for y in range(56, 64))


def test_a_stuck_button_stays_on_the_bottom_line_until_released(screens):
    m = screens["mask"]
    f = screens["frame"]
    entry, message = fb(f["entry"]["fb"]), fb(f["message"]["fb"])
    stuck = fb(screens["shot"]["stuck"]["fb"])
    assert screens["shot"]["stuck"]["faults"] == 1 << 4                 # OK
    # the message, then (the message timed out) the stuck line: each touches the bottom line only
    assert m["fault_message"] == 0x80 and m["fault_message_gone"] == 0x80
    assert stuck[:128 * 7] == entry[:128 * 7] == message[:128 * 7]
    assert lit(stuck, 0, 56, 128, 64) > 0.6 * 128 * 8                    # inverse
    assert _foot(stuck) != _foot(entry)
    assert _foot(stuck) == _foot(message)        # "Nupp kinni: OK", where the message had it
    # it stays: nothing to draw again while the button is held
    assert m["fault_still"] == 0 and m["fault_still_later"] == 0
    # two stuck buttons: both named, one after the other
    both = fb(f["both"]["fb"])
    assert m["fault_both"] == 0x80
    assert lit(both, 0, 56, 128, 64) > 0.6 * 128 * 8
    assert _dark_in_foot(both) > _dark_in_foot(stuck) + 10
    assert both[:128 * 7 + 60] == stuck[:128 * 7 + 60]                   # the start of the line is the same
    assert fb(f["one_again"]["fb"]) == stuck                               # NEXT released: OK alone again
    # OK released: "works again" (in the header, as any message on the entry: issue 26), then
    # the deal entry as it was, on the bottom line at once
    assert m["fault_cleared"] == 0x81 and m["fault_cleared_gone"] & 0x01
    freed = fb(f["cleared_message"]["fb"])
    assert lit(freed, 0, 0, 128, 8) > 0.6 * 128 * 8 and _foot(freed) == _foot(entry)
    cleared = fb(f["cleared"]["fb"])
    assert f["cleared"]["faults"] == 0
    assert cleared == entry
    assert lit(cleared, 0, 56, 20, 64) < 0.4 * 20 * 8


def test_a_wrong_maker_with_the_same_winner_shows_before_the_saving_press(screens):
    # issue 14 point 5: A made it and won, or B made it and A won, are both saved by A's press;
    # what that press does differs on screen before it: under the names ("A: tegi, võitis" /
    # "A: võitis", page 1) and on the bottom line ("Trump · võit" / "Kaotas", page 7)
    made = fb(screens["frame"]["slip_made_won"]["fb"])
    lost = fb(screens["frame"]["slip_lost_won"]["fb"])
    names, foot = slice(128, 256), slice(896, 1024)
    assert any(made[names]) and any(lost[names])
    assert made[names] != lost[names]
    assert made[foot] != lost[foot]


def test_rings_show_the_score(screens):
    entry = screens["shot"]["saare-entry"]
    assert len(entry["rings"]) == 2 and all(any(bytes.fromhex(r)) for r in entry["rings"])
    assert len(screens["shot"]["schmier"]["rings"]) == 3
    assert not any(bytes.fromhex(screens["shot"]["start"]["rings"][0]))


# ---------------------------------------------------------------- the screenshots

@pytest.mark.parametrize("name", [c[0] for c in CAPTIONS])
def test_committed_screenshot_is_what_the_code_renders(screens, name):
    path = os.path.join(SHOTS, name + ".png")
    assert os.path.exists(path), "missing %s: run %s" % (path, REGENERATE)
    with open(path, "rb") as f:
        committed = read_png(f.read())
    now = read_png(png(screens["shot"][name]))
    assert committed == now, "docs/screenshots/%s.png is out of date: run %s" % (name, REGENERATE)


def test_every_screenshot_is_on_the_box_page():
    with open(os.path.join(ROOT, "docs", "box.md"), encoding="utf-8") as f:
        page = f.read()
    for name, caption in CAPTIONS:
        assert "](screenshots/%s.png)" % name in page, name
        assert caption in page, name             # the page's sentence is the caption here


def main():
    # the firmware as .mpy, as the Pico runs it: compiling the UI, the renderer and every
    # ruleset from source inside the capped heap is more than the box ever does; the app's heap
    # (the simulator's) and HARNESS_HEAP more for what this harness holds besides
    r = run_mpy([os.path.join(TESTS, "mpy", "screens.py")], timeout=120, compiled=True, heap=HEAP)
    if r.returncode != 0:
        sys.exit(r.stdout + r.stderr)
    os.makedirs(SHOTS, exist_ok=True)
    for line in r.stdout.splitlines():
        d = json.loads(line)
        if "shot" in d:
            path = os.path.join(SHOTS, d["shot"] + ".png")
            with open(path, "wb") as f:
                f.write(png(d))
            print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()


def test_the_rings_gauge_fills_one_box_per_four_nakks(screens):
    shot = screens["shot"]["saare-entry"]
    buf = fb(shot["fb"])
    score = shot.get("score")
    assert score is not None, "screens.py reports the score of each shot"
    for side, x in ((0, 2), (1, 128 - 7)):
        filled = [lit(buf, x, 43 - 8 * k, x + 5, 43 - 8 * k + 5) == 25 for k in range(4)]
        assert filled == [k < score[side] // 4 for k in range(4)], (side, score, filled)


def test_the_undo_question_names_the_whole_entry(screens):
    # issue 14: the undo question names the entry as the players would say it; a Saare mäng
    # deal's words are wider than the screen, so they go on two lines, none cut short
    u = screens["shot"]["undo"]
    assert " ".join(u["lines"]) == u["detail"]
    assert all(0 < w <= 128 for w in u["widths"]), u
    assert len(u["lines"]) == 2, u           # this deal's words do not fit one line
    buf = fb(u["fb"])
    for row in (1, 2):                      # both text lines under the title carry ink
        assert any(pixel(buf, x, y) for x in range(128) for y in range(8 * row + (row - 1) * 2 + 1,
                                                                            8 * row + (row - 1) * 2 + 8)), row
