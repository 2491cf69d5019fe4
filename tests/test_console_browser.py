"""A stage of 8 pairs and 3 rounds run from the judge's console alone, in headless Chromium, on 4 simulated boxes.

`nakk judge` runs as the judge starts it (a subprocess; its one line gives the
address and the code), and with it the plug-in watcher. Everything after is
clicks in the browser: log in, create the tournament, import the pairs from a
CSV (preview, confirm); four boxes are plugged in (their simulators start and
register, where the watcher looks) and the evening page offers each for
pairing: the judge keeps the suggested name and presses Pair, the players hold
PREV+NEXT when the box asks. Each round is drawn; the watcher offers every box
its table (round 1: the offers' own buttons; then the push step, through the
same offers); the players play at the tables (the firmware on the unix port,
its buttons); round 1's table 4 is typed in from its paper sheet; the boxes are
brought back and plugged in again (their simulators restart), and the watcher
syncs each at once, no button pressed: the page, left open, says "Laud N: a : b
vastu võetud, kontrollitud" and shows the table verified without a reload. A
result is corrected (a reason asked first), the standings are read, and the
draw, table cards, scoresheets and standings are printed through Chromium's
print to PDF, each an A4 page. Without Chromium the test says NOT RUN with the
reason (pytest's skip), as test_hall_browser does.
"""

import base64
import os
import re
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from consolekit import Judge, players_csv  # noqa: E402
from test_hall_browser import WHY_NOT, new_browser  # noqa: E402
from test_judge_e2e import A_WINS  # noqa: E402

BOXES = 4


@pytest.fixture
def stage(tmp_path, monkeypatch):
    if WHY_NOT:
        pytest.skip(WHY_NOT)
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(xdg))       # the simulators' registry: this test's own
    env = dict(os.environ, NAKK_JUDGE="Kohtunik Kalju")
    judge = Judge(str(tmp_path / "judge.db"), env)
    b = new_browser()
    try:
        yield judge, b, tmp_path
    finally:
        b.quit()
        judge.close()


def js(b, script, *args):
    return b.execute_script(script, *args)


def click(b, css):
    """Click a button that submits a form and wait for the next page to load."""
    js(b, "window.nakkOld = 1;")
    b.find_element("css selector", css).click()
    until(b, lambda d: js(d, "return window.nakkOld === undefined && document.readyState === 'complete'"),
          "the page after clicking %s" % css, 60)


def fill(b, form, **fields):
    for name, value in fields.items():
        el = b.find_element("css selector", "%s [name=%s]" % (form, name))
        el.clear()
        el.send_keys(value)


def flash(b):
    els = b.find_elements("css selector", "#flash")
    return els[0].text if els else ""


def state(b):
    """The evening page's tables as the live DOM shows them: {table: state}."""
    return js(b, "var o = {}; document.querySelectorAll('#tables tr[data-table]').forEach(function (r) {"
                 " o[r.getAttribute('data-table')] = r.getAttribute('data-state'); }); return o;")


def pdf_pages(b, path):
    """Chromium's print of a page to PDF: (pages, A4 media boxes)."""
    b.get(path)
    data = base64.b64decode(b.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True,
                                                                  "printBackground": True})["data"])
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    # A4 is 210 x 297 mm: 595.3 x 841.9 points (Chromium rounds to its own units, within a point)
    boxes = [(float(w), float(h)) for w, h in re.findall(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)]
    return pages, sum(1 for w, h in boxes if abs(w - 595.3) < 1 and abs(h - 841.9) < 1)


def until(b, cond, what, timeout=30):
    """Selenium's wait for the live page: cond(b) true within timeout seconds, else a failure naming what."""
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(b, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: cond(d))
    except TimeoutException:
        raise AssertionError("timed out after %d s waiting for %s; the page says: %s; the state: %s"
                             % (timeout, what, js(b, "var e = document.getElementById('live'); "
                                                    "return e ? e.innerText : document.body.innerText")[-1500:],
                                js(b, "var r = new XMLHttpRequest(); r.open('GET', '/api/state', false); r.send();"
                                      " var s = JSON.parse(r.responseText); return JSON.stringify([s.boxes, "
                                      "s.events.slice(-6)]);")[:4000]))


def click_live(b, css, what):
    """Click a button inside the live part of the page (swapped as the evening changes): found afresh
    when a swap replaced it between finding and clicking; then wait for the next page."""
    from selenium.common.exceptions import StaleElementReferenceException

    def press(d):
        js(d, "window.nakkOld = 1;")
        try:
            d.find_element("css selector", css).click()
            return True
        except StaleElementReferenceException:
            return False
    until(b, press, what)
    until(b, lambda d: js(d, "return window.nakkOld === undefined && document.readyState === 'complete'"),
          "the page after %s" % what, 60)


def events(b):
    return js(b, "var e = document.getElementById('events'); return e ? e.innerText : '';")


def row_text(b, sim):
    rows = b.find_elements("css selector", box_row(sim))
    return rows[0].text if rows else ""


def box_row(sim):
    return '#plugged tr[data-port="%s"]' % sim.tty


def plug_in(images):
    """Boxes plugged into the judge's computer: their simulators start (and register, where the watcher looks)."""
    from nakk_host import simulator as Sim
    return [Sim.Simulator(img) for img in images]


def pair_by_offer(b, sim):
    """The watcher offers the new box for pairing on the evening page; the judge names it and presses
    Pair; the players hold PREV+NEXT when the box asks."""
    b.get(b.base)
    until(b, lambda d: d.find_elements("css selector", box_row(sim) + '[data-offer="pair"] button.pair-offer'),
          "the pairing offer of %s" % sim.tty)
    assert "pole selle kohtunikuga paaritud: paarida?" in events(b)
    # the name the console suggests (the first table no box is named after); the judge keeps it
    name = b.find_element("css selector", box_row(sim) + " form.offer-pair [name=name]").get_attribute("value")
    assert re.fullmatch(r"laud \d", name), name
    before = sim.sent

    def hold():
        end = time.monotonic() + 20
        while sim.sent == before and time.monotonic() < end:     # the question is drawn: display bytes go out
            time.sleep(0.01)
        sim.press("PREV+NEXT", long=True)
    th = threading.Thread(target=hold)
    th.start()
    click_live(b, box_row(sim) + " button.pair-offer", "Pair")
    th.join(30)
    assert "hoidke PREV ja NEXT" in flash(b), flash(b)
    place = name.capitalize()
    until(b, lambda d: "%s: paaritud selle kohtunikuga" % place in events(d), "%s paired" % name)
    return int(name.split()[1])


def play(sims, tables, keys):
    """The players at each table play their match on its box (concurrently, as in the hall)."""
    from nakk_host import simulator as Sim
    errors = []

    def one(sim):
        try:
            Sim.play(sim, Sim.parse_keys(keys))
        except Exception as e:      # said after the join, with the table
            errors.append((sim.image, e))
    threads = [threading.Thread(target=one, args=(sims[t - 1],)) for t in tables]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors, errors


def test_a_stage_of_8_pairs_and_3_rounds_from_the_console_alone(stage):
    from nakk_host import simulator as Sim
    judge, b, tmp = stage
    b.base = judge.url
    t0 = time.monotonic()
    # log in with the code the command printed
    b.get(judge.url)
    assert b.current_url.endswith("/login")
    fill(b, "form", code=judge.code, by="Kohtunik Kalju")
    click(b, "#login")
    # the tournament, then its pairs from the club's spreadsheet (preview, then confirm)
    b.get(judge.url + "tournaments")
    fill(b, "#tournament-new", name="Kuressaare etapp", rounds="3")
    click(b, "#create")
    assert "Impordi paarid" in b.find_element("css selector", "#steps").text
    csv_path = tmp / "osalejad.csv"
    csv_path.write_bytes(players_csv(8))
    b.get(judge.url + "players")
    b.find_element("css selector", "#csv").send_keys(str(csv_path))
    click(b, "#preview-button")
    assert len(b.find_elements("css selector", "#preview tbody tr")) == 8
    assert b.find_elements("css selector", "#entrants tbody tr") == []       # nothing added before the confirm
    click(b, "#confirm-import")
    assert len(b.find_elements("css selector", "#entrants tbody tr")) == 8

    # four new boxes plugged in: the watcher offers each for pairing, the judge accepts the named offer
    images = [str(tmp / ("kast%d.img" % (i + 1))) for i in range(BOXES)]
    sims = plug_in(images)
    try:
        b.get(judge.url)
        until(b, lambda d: len(d.find_elements("css selector", '#plugged tr[data-offer="pair"]')) == BOXES,
              "%d pairing offers" % BOXES)
        at = {}                                          # table -> the image of the box named after it
        for sim in sims:
            at[pair_by_offer(b, sim)] = sim.image
        assert sorted(at) == [1, 2, 3, 4], at
        order = sorted(at)
        sims = [next(s for s in sims if s.image == at[t]) for t in order]    # sims[t - 1] plays table t
        for rn in (1, 2, 3):
            b.get(judge.url)
            click(b, "#step-draw")
            assert "Voor %d loositud" % rn in flash(b), flash(b)
            assert sorted(state(b).values()) == ["waiting"] * 4
            # the watcher sees the new round and offers each box its table
            until(b, lambda d: len(d.find_elements("css selector", '#plugged tr[data-offer="assign"]')) == BOXES,
                  "round %d's assignment offers" % rn)
            if rn == 1:
                for sim in sims:                       # one offer at a time, by its own button
                    click_live(b, box_row(sim) + " button.assign-offer", "the offer to %s" % sim.tty)
                    assert "Saadan kastile tema laua" in flash(b), flash(b)
            else:
                click_live(b, "#step-push", "the push step")  # every offered box at once
                assert "saadan %d kastile" % BOXES in flash(b), flash(b)
            until(b, lambda d: set(state(d).values()) == {"playing"}, "round %d at the boxes" % rn)
            paper = (4,) if rn == 1 else ()
            if paper:
                # table 4's box would not start: its players kept the paper sheet, the judge types it in
                b.find_element("css selector", 'tr[data-table="4"] a.enter-link').click()
                for _ in range(40):
                    if not b.find_elements("css selector", "#step"):
                        break
                    choices = b.find_elements("css selector", "#step button.choice")
                    pick = [c for c in choices if c.get_attribute("data-answer") == "1 A"] or choices[:1]
                    click(b, '#step button.choice[data-answer="%s"]' % pick[0].get_attribute("data-answer"))
                click(b, "#signed-yes")
                fill(b, "#store", why="kasti ekraan ei töötanud")
                click(b, "#store-button")
                assert "Paberleht salvestatud: paper-1" in flash(b), flash(b)
            boxed = [t for t in order if t not in paper]
            play(sims, boxed, "OK " + A_WINS)
            # the evening page is left open; the winning pairs bring their boxes: unplugged from the
            # table, plugged into the judge's computer, synced by the watcher with no button pressed
            b.get(judge.url)
            until(b, lambda d: js(d, "return document.body.getAttribute('data-link')") == "open", "the live link")
            js(b, "window.nakkMarker = %d;" % rn)
            for t in boxed:
                sims[t - 1].close()
            for t, sim in zip(boxed, plug_in([at[t] for t in boxed])):
                sims[t - 1] = sim
            # each box's row says what came in, and so does the list of what happened (both live)
            said = {t: re.compile(r"Laud %d: (\d+ : \d+) vastu võetud, kontrollitud" % t) for t in boxed}
            until(b, lambda d: all(said[t].search(row_text(d, sims[t - 1])) for t in boxed),
                  "round %d's results in words" % rn)
            words = {t: said[t].search(row_text(b, sims[t - 1])).group(0) for t in boxed}
            assert all(w in events(b) for w in words.values()), (words, events(b))
            until(b, lambda d: set(state(d).values()) == {"verified"}, "round %d's results on the page" % rn)
            assert js(b, "return window.nakkMarker") == rn, "the page reloaded"
            scores = js(b, "return Array.from(document.querySelectorAll('#tables td.score')).map(function (td) "
                           "{ return td.textContent.trim(); })")
            assert all("kontrollitud" in s for s in scores), scores
            for t in boxed:                            # the words say the score the table shows
                cell = b.find_element("css selector", 'tr[data-table="%d"] td.score' % t).text
                assert cell.startswith(said[t].search(words[t]).group(1)), (t, cell, words[t])
            if rn == 2:
                # a correction: the reason is asked first, then it counts
                b.get(judge.url + "acts")
                rid = b.find_elements("css selector", "#results tr[data-result]")[-1].get_attribute("data-result")
                fill(b, "#correct", result=rid, points="0 -2")
                click(b, "#correct-button")
                assert b.find_element("css selector", '#correct [data-error="why"]').text.startswith("miks?")
                fill(b, "#correct", why="loendusviga, protokoll näitab vähem")
                click(b, "#correct-button")
                assert "%s parandatud" % rid in flash(b), flash(b)
    finally:
        for sim in sims:
            sim.close()
    # the standings: 8 pairs, 3 matches each; every step is done
    b.get(judge.url)
    assert b.find_element("css selector", '[data-step="done"]')
    b.get(judge.url + "standings")
    played = [td.text for td in b.find_elements("css selector", "#standings td.c-played")]
    assert played == ["3"] * 8, played
    # printed: the draw and the standings one A4 page each, a card and a scoresheet a table
    for path, want in (("print/draw?round=3", 1), ("print/cards?round=3", 4), ("print/sheets?round=3", 4),
                       ("print/standings", 1)):
        pages, a4 = pdf_pages(b, judge.url + path)
        assert (pages, a4) == (want, want), (path, pages, a4)
    # and in English at a click
    b.get(judge.url)
    click(b, "#lang")
    assert "Next step" in b.find_element("css selector", "#steps").text
    took = time.monotonic() - t0
    assert took < 180, "the evening took %.0f s" % took
