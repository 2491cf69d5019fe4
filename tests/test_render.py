"""The box's screens as nakk.render draws them on the MicroPython unix port, and the screenshots in docs/screenshots/.

tests/mpy/screens.py plays scripted presses through nakk.ui and draws every
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

SHOTS = os.path.join(ROOT, "docs", "screenshots")
REGENERATE = ".venv/bin/python tests/test_render.py"
# what each screenshot shows (README "Screens" takes its sentences from here)
CAPTIONS = (
    ("start", "A new match: the game, then table, round and the first to shuffle, each chosen with PREV/NEXT and OK."),
    ("saare-entry", "Saare mäng 2020 in play: deal number and shuffler, each pair's nakks (a karvane mark under B),"
                    " and the deal being entered on the bottom line with the answer under the cursor."),
    ("saving", "The new score shows at once, with \"salvestan\" (saving) in the header until the entry is on flash."),
    ("message", "OK where a side button is asked for enters nothing and says what to press."),
    ("penalty", "Long NEXT lists the offences; the offender's side button gives the one under the cursor."),
    ("undo", "Long PREV names the entry it would take back, and only OK takes it back."),
    ("end", "The match is over: totals with the end bonuses (+1 for B's karvane mark) and who has confirmed"
            " (A ✓, B ?), each side with its own button."),
    ("judge", "Both sides have answered, so the result is locked and waits for the judge (↑1: one finished"
              " result on flash)."),
    ("schmier", "Schmier's three teams, with a hand entered point by point (OK gives the rest of the points to"
                " the bidder's team)."),
)


@pytest.fixture(scope="module")
def screens():
    r = run_mpy([os.path.join(TESTS, "mpy", "screens.py")], timeout=120)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    out = {"shot": {}, "mask": {}, "list": []}
    for line in r.stdout.splitlines():
        d = json.loads(line)
        if "shot" in d:
            out["shot"][d["shot"]] = d
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


def test_a_cursor_move_touches_only_the_bottom_line(screens):
    assert screens["mask"]["cursor_move"] == 0x80


def test_a_score_change_touches_the_body_and_saving_only_the_header(screens):
    saving = screens["mask"]["commit_saving"]
    assert saving & 0x7C, hex(saving)          # the big digits (pages 2-6)
    assert saving & 0x01                       # the header says "saving"
    assert screens["mask"]["commit_saved"] == 0x01    # after the flush only "saving" goes away


def test_a_message_is_the_bottom_line(screens):
    assert screens["mask"]["message"] == 0x80
    assert screens["mask"]["message_cleared"] == 0x80
    msg = fb(screens["shot"]["message"]["fb"])
    assert lit(msg, 0, 56, 128, 64) > 0.6 * 128 * 8     # inverse video
    entry = fb(screens["shot"]["saare-entry"]["fb"])
    assert lit(entry, 0, 56, 40, 64) < 0.4 * 40 * 8     # the step's name, not inverse


# ---------------------------------------------------------------- what is drawn

def test_the_saving_header_appears_only_while_saving(screens):
    s = screens["saving"]
    assert s["saving"] is True                 # an entry was pending when it was drawn
    box = (60, 0, 128, 8)
    assert lit(fb(s["fb_saving"]), *box) > 0.6 * 68 * 8
    assert lit(fb(s["fb_saved"]), *box) < 0.4 * 68 * 8
    assert fb(s["fb_saving"])[128:] == fb(s["fb_saved"])[128:]    # the rest is the same frame
    for name in ("saare-entry", "message", "end", "schmier"):
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
    assert {c for name, c in seen if name == "penalty"} == {0, 1, 2, 3, 4}
    assert {c for name, c in seen if name == "undo"} == {0, 1}


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


def test_every_screenshot_is_in_the_readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for name, _ in CAPTIONS:
        assert "docs/screenshots/%s.png" % name in readme, name


def main():
    r = run_mpy([os.path.join(TESTS, "mpy", "screens.py")], timeout=120)
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
