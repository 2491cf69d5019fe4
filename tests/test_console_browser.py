"""A stage of 8 pairs and 3 rounds run from the judge's console alone, in headless Chromium, on 4 simulated boxes.

`nakk judge` runs as the judge starts it (a subprocess; its one line gives the
address and the code). Everything after is clicks in the browser: log in,
create the tournament, import the pairs from a CSV (preview, confirm), draw
each round, pair the four boxes (the players hold PREV+NEXT on each box),
push the round to the boxes, the players play at the tables (the firmware on
the unix port, its buttons), the boxes are synced (the plug-in watcher when
there is one, else the console's sync button), round 1's table 4 is typed in
from its paper sheet, a result is corrected (a reason asked first), the
standings are read, and the draw, table cards, scoresheets and standings are
printed through Chromium's print to PDF, each an A4 page. Without Chromium
the test says NOT RUN with the reason (pytest's skip), as test_hall_browser does.
"""

import base64
import os
import re
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hallkit import wait_for  # noqa: E402
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
    wait_for(lambda: js(b, "return window.nakkOld === undefined && document.readyState === 'complete'"), 60,
             "the page after clicking %s" % css)


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


def pair_box(b, sim, name):
    """The console's pairing form; the players hold PREV+NEXT on the box when it asks."""
    from selenium.webdriver.support.ui import Select
    b.get(b.base + "boxes")
    select = Select(b.find_element("css selector", "#pair [name=port]"))
    option = next(o for o in select.options if os.path.basename(sim.image) in o.text)
    select.select_by_visible_text(option.text)
    fill(b, "#pair", name=name)
    before = sim.sent

    def hold():
        end = time.monotonic() + 20
        while sim.sent == before and time.monotonic() < end:     # the question is drawn: display bytes go out
            time.sleep(0.01)
        sim.press("PREV+NEXT", long=True)
    th = threading.Thread(target=hold)
    th.start()
    click(b, "#pair-button")
    th.join(30)
    assert ("paaritatud nimega %s" % name) in flash(b), flash(b)


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


def sync(b):
    """The boxes are brought to the judge: the watcher syncs them itself; without one, the judge presses the
    console's sync button (in a second tab: the evening page stays open in the first)."""
    if js(b, "return document.getElementById('live').getAttribute('data-watching')") == "yes":
        return
    main = b.current_window_handle
    b.switch_to.new_window("tab")
    b.get(b.base)
    click(b, "#sync")
    assert "Sünkroonitud %d kasti" % BOXES in flash(b), flash(b)
    b.close()
    b.switch_to.window(main)


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

    images = [str(tmp / ("laud%d.img" % (i + 1))) for i in range(BOXES)]
    sims = [Sim.Simulator(img) for img in images]
    try:
        for i, sim in enumerate(sims):
            pair_box(b, sim, "laud %d" % (i + 1))
        for rn in (1, 2, 3):
            b.get(judge.url)
            click(b, "#step-draw")
            assert "Voor %d loositud" % rn in flash(b), flash(b)
            assert sorted(state(b).values()) == ["waiting"] * 4
            click(b, "#step-push")
            assert "%d kasti said oma laua" % BOXES in flash(b), flash(b)
            assert set(state(b).values()) == {"playing"}
            if rn == 1:
                play(sims, (1, 2, 3), "OK " + A_WINS)
                # table 4's box would not start: its players kept the paper sheet, the judge types it in
                b.get(judge.url)
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
            else:
                play(sims, (1, 2, 3, 4), "OK " + A_WINS)
            # the evening page, left open, shows the results without a reload
            b.get(judge.url)
            wait_for(lambda: js(b, "return document.body.getAttribute('data-link')") == "open", 10, "the live link")
            js(b, "window.nakkMarker = %d;" % rn)
            sync(b)
            wait_for(lambda: set(state(b).values()) == {"verified"}, 20, "round %d's results on the page" % rn)
            assert js(b, "return window.nakkMarker") == rn, "the page reloaded"
            scores = js(b, "return Array.from(document.querySelectorAll('#tables td.score')).map(function (td) "
                           "{ return td.textContent.trim(); })")
            assert all("kontrollitud" in s for s in scores), scores
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
    assert took < 300, "the evening took %.0f s" % took
