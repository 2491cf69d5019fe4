"""The hall pages in a real headless Chromium (Debian's chromium + chromium-driver, driven by Selenium).

Live updates without a reload, catching up after a dropped connection, the
projector paging by itself, no sideways scroll on a 360 px phone, Estonian
letters drawn as letters, writes refused. Without Chromium these tests are
skipped with the reason (never counted as passed); the README's test
command installs it where the machine allows.

Run as a script, it writes the README's screenshots of the projector and
phone views: .venv/bin/python tests/test_hall_browser.py
"""
import os
import shutil
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hallkit import ROOT, Served, example_bytes, hall_tournament, store_result, table_events, wait_for  # noqa: E402
from judge_kit import raw_of  # noqa: E402
from nakk_host import store  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
WHY_NOT = None
if CHROMIUM is None or DRIVER is None:
    WHY_NOT = ("headless Chromium is not installed (needs Debian's `chromium` and `chromium-driver`; "
               "the README's test command installs them when run as root)")
else:
    try:
        import selenium  # noqa: F401
    except ImportError:
        WHY_NOT = "selenium is not installed (pip install -e '.[test]')"


def new_browser(width=1280, height=800):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars", "--window-size=%d,%d" % (width, height), "--lang=et"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(executable_path=DRIVER), options=opts)


@pytest.fixture(scope="module")
def browser():
    if WHY_NOT:
        pytest.skip(WHY_NOT)
    b = new_browser()
    try:
        yield b
    finally:
        b.quit()


@pytest.fixture
def judge(tmp_path):
    """A judge's database with a tournament of 8 pairs, 3 of round 1's 4 tables in."""
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    t, tables = hall_tournament(conn, 8)
    try:
        yield db, conn, t, tables
    finally:
        conn.close()


def js(b, script, *args):
    return b.execute_script(script, *args)


def row_cells(b, name):
    """The standings row of a pair as {column: text}, read from the live DOM."""
    return js(b, """
        var tr = document.querySelector('#standings tr[data-name="' + arguments[0] + '"]');
        if (!tr) return null;
        var out = {};
        tr.querySelectorAll('td').forEach(function (td) {
            td.classList.forEach(function (c) { if (c.indexOf('c-') === 0) out[c.slice(2)] = td.textContent.trim(); });
        });
        return out;""", name)


def wait_live(b):
    wait_for(lambda: js(b, "return document.body.getAttribute('data-link')") == "open", 10, "the page's live link")


def test_a_stored_result_appears_on_an_open_standings_page_without_a_reload(browser, judge):
    db, conn, t, tables = judge
    srv = Served(db)
    try:
        browser.get(srv.url + "/")
        wait_live(browser)
        js(browser, "window.nakkMarker = 42;")          # gone if the page reloads
        a, b = tables[3]
        assert row_cells(browser, a)["played"] == "0" and row_cells(browser, b)["played"] == "0"
        t0 = time.monotonic()
        store_result(conn, raw_of(table_events(t["code"], 4, tables[3], 0)), "box-4")
        wait_for(lambda: row_cells(browser, a)["played"] == "1", 10, "table 4's result on the open page")
        took = time.monotonic() - t0
        assert js(browser, "return window.nakkMarker") == 42, "the page reloaded"
        assert row_cells(browser, a)["wins"] == "1" and row_cells(browser, b)["wins"] == "0"
        assert took < 2.0, "the page showed the stored result after %.2f s" % took
        # the tables page, opened now, shows every table verified
        browser.get(srv.url + "/tables")
        states = js(browser, "return Array.from(document.querySelectorAll('tr[data-state]')).map(function (r) "
                             "{ return r.getAttribute('data-state'); })")
        assert states == ["verified"] * 4
    finally:
        srv.close()


def test_a_page_whose_connection_drops_catches_up_when_it_comes_back(browser, judge):
    db, conn, t, tables = judge
    srv = Served(db)
    port = srv.port
    try:
        browser.get(srv.url + "/results")
        wait_live(browser)
        js(browser, "window.nakkMarker = 7;")
        srv.close()                                  # the laptop's server stops: the page loses its link
        wait_for(lambda: js(browser, "return document.body.getAttribute('data-link')") == "lost", 10,
                 "the page to notice the lost link")
        assert js(browser, "return document.getElementById('link-state').textContent") == "ühendus katkes, ootan…"
        store_result(conn, raw_of(table_events(t["code"], 4, tables[3], 1)), "box-4")
        srv = Served(db, port=port)                  # back on the same address
        wait_for(lambda: js(browser, "return !!document.querySelector('tr[data-result=\"box-4\"]')"), 15,
                 "the result stored while the page was cut off")
        assert js(browser, "return window.nakkMarker") == 7, "the page reloaded instead of catching up"
        wait_live(browser)
        assert js(browser, "return document.getElementById('link-state').textContent") == "otse"
    finally:
        srv.close()


def test_the_projector_pages_by_itself(tmp_path):
    if WHY_NOT:
        pytest.skip(WHY_NOT)
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    hall_tournament(conn, 24)
    conn.close()
    srv = Served(db, "--page-seconds", "1")
    b = new_browser(1280, 720)
    try:
        b.get(srv.url + "/projector")
        assert "projector" in b.find_element("tag name", "body").get_attribute("class")

        def shown():
            return js(b, """
                var rows = Array.from(document.querySelectorAll('#standings tbody tr'))
                  .filter(function (r) { return r.offsetParent !== null; });
                return {names: rows.map(function (r) { return r.getAttribute('data-name'); }),
                        bottom: document.getElementById('pager').getBoundingClientRect().bottom,
                        height: window.innerHeight, page: document.getElementById('pager').getAttribute('data-page'),
                        pages: Number(document.body.getAttribute('data-pages')),
                        clock: document.getElementById('clock').textContent,
                        round: document.querySelector('.round-no').textContent};""")

        first = wait_for(lambda: (lambda s: s if s["page"] == "1" else None)(shown()), 10, "page 1")
        assert first["pages"] > 1, "24 pairs should not fit one projector screen"
        assert 0 < len(first["names"]) < 24 and first["bottom"] <= first["height"]
        assert first["round"] == "1" and len(first["clock"]) == 5 and first["clock"][2] == ":"
        second = wait_for(lambda: (lambda s: s if s["page"] == "2" else None)(shown()), 10, "page 2")
        assert second["names"] and not set(second["names"]) & set(first["names"])
        # every pair is shown on some page, once
        seen = list(first["names"]) + list(second["names"])
        for p in range(3, first["pages"] + 1):
            seen += wait_for(lambda: (lambda s: s if s["page"] == str(p) else None)(shown()), 10, "page %d" % p)["names"]
        assert sorted(seen) == sorted(js(b, "return Array.from(document.querySelectorAll('#standings tbody tr'))"
                                            ".map(function (r) { return r.getAttribute('data-name'); })"))
        assert len(seen) == 24
        wait_for(lambda: shown()["page"] == "1", 10, "the pages to come round again")
    finally:
        b.quit()
        srv.close()


PHONE_PAGES = ("/", "/season", "/draw", "/tables", "/results", "/match/box-1", "/match/example-1",
               "/?lang=en", "/match/example-1?lang=en", "/tables?lang=en")


def test_the_phone_view_has_no_horizontal_scroll_at_360_px(browser, judge):
    db, conn, t, tables = judge
    store_result(conn, example_bytes(), "example-1")
    srv = Served(db)
    try:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
        for path in PHONE_PAGES:
            browser.get(srv.url + path)
            m = js(browser, "return {w: window.innerWidth, sw: document.documentElement.scrollWidth, "
                            "bw: document.body.scrollWidth, rows: document.querySelectorAll('main tr').length};")
            assert m["w"] == 360, m
            assert m["rows"] > 0, path
            assert m["sw"] <= 360 and m["bw"] <= 360, "%s scrolls sideways at 360 px: %r" % (path, m)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        srv.close()


LETTERS = "õäöüšžÕÄÖÜŠŽ"


def test_estonian_letters_render(browser, judge):
    db, conn, t, tables = judge
    store_result(conn, example_bytes(), "example-1")
    srv = Served(db)
    try:
        browser.get(srv.url + "/")
        text = js(browser, "return document.body.innerText")
        for name in ("Õun/Pärn", "Šokk/Žürii", "Jõgi/Järv", "Küla/Linn", "Mägi/Org", "Öökull/Rebane"):
            assert name in text
        assert "Võrdsete punktide korral otsustab: partiivõidud" in text
        browser.get(srv.url + "/match/example-1")
        assert "♦6 püüdis ♣K" in js(browser, "return document.body.innerText")
        # Each letter, drawn in the page's own font, differs from its plain base letter (the accent is there)
        # and from a character no font has (the "missing glyph" box): the font really draws õ ä ö ü š ž.
        bad = js(browser, """
            var font = getComputedStyle(document.querySelector('h1')).fontWeight + ' 40px ' +
                       getComputedStyle(document.body).fontFamily;
            function pixels(ch) {
                var c = document.createElement('canvas'); c.width = 60; c.height = 60;
                var g = c.getContext('2d'); g.font = font; g.fillStyle = '#000'; g.fillText(ch, 10, 45);
                return Array.from(g.getImageData(0, 0, 60, 60).data).join(',');
            }
            var base = {'õ': 'o', 'ä': 'a', 'ö': 'o', 'ü': 'u', 'š': 's', 'ž': 'z'};
            var missing = pixels('\\uE000');
            var out = [];
            arguments[0].split('').forEach(function (ch) {
                var b = base[ch.toLowerCase()];
                if (ch !== ch.toLowerCase()) b = b.toUpperCase();
                var p = pixels(ch);
                if (p === pixels(b) || p === missing || p === pixels(' ')) out.push(ch);
            });
            return out;""", LETTERS)
        assert bad == [], "drawn as something else: %s" % "".join(bad)
    finally:
        srv.close()


def test_a_request_that_tries_to_change_anything_is_refused(browser, judge):
    db, conn, t, tables = judge
    before = [tuple(r) for r in conn.execute("SELECT result_id, sha256, status FROM results ORDER BY id")]
    srv = Served(db)
    try:
        browser.get(srv.url + "/results")
        got = browser.execute_async_script("""
            var done = arguments[arguments.length - 1];
            var tries = [['POST', '/results'], ['PUT', '/match/box-1'], ['DELETE', '/match/box-1'],
                         ['PATCH', '/'], ['POST', '/events']];
            Promise.all(tries.map(function (t) {
                return fetch(t[1], {method: t[0], body: t[0] === 'DELETE' ? null : 'status=flagged',
                                    headers: {'Content-Type': 'application/x-www-form-urlencoded'}})
                    .then(function (r) { return r.text().then(function (x) { return [t[0], r.status, x]; }); });
            })).then(done);""")
        assert [g[1] for g in got] == [405] * 5, got
        assert all("read-only" in g[2] for g in got)
        # a form posted the old way gets the same answer
        js(browser, """var f = document.createElement('form'); f.method = 'post'; f.action = '/results';
                       var i = document.createElement('input'); i.name = 'status'; i.value = 'flagged';
                       f.appendChild(i); document.body.appendChild(f); f.submit();""")
        wait_for(lambda: "read-only" in js(browser, "return document.body.innerText"), 10, "the refusal page")
    finally:
        srv.close()
    after = [tuple(r) for r in conn.execute("SELECT result_id, sha256, status FROM results ORDER BY id")]
    assert after == before


# ---------------------------------------------------------------- README screenshots

def screenshots(outdir):
    """The projector (1280x720) and phone (360 px) views of a sample tournament, as PNG files in outdir."""
    import tempfile
    tmp = tempfile.mkdtemp(prefix="nakk-shots-")
    db = os.path.join(tmp, "judge.db")
    conn = store.open_db(db)
    hall_tournament(conn, 24)
    store_result(conn, example_bytes(), "example-1")
    conn.close()
    srv = Served(db, "--page-seconds", "600")
    paths = []
    try:
        b = new_browser(1280, 720)
        try:
            b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
            b.get(srv.url + "/projector")
            wait_for(lambda: js(b, "return document.body.getAttribute('data-pages')"), 10, "the projector's pages")
            paths.append(os.path.join(outdir, "hall-projector.png"))
            b.save_screenshot(paths[-1])
            b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 360, "height": 780, "deviceScaleFactor": 1, "mobile": True})
            b.get(srv.url + "/")
            paths.append(os.path.join(outdir, "hall-phone.png"))
            b.save_screenshot(paths[-1])
            b.get(srv.url + "/match/example-1")
            paths.append(os.path.join(outdir, "hall-phone-match.png"))
            b.save_screenshot(paths[-1])
        finally:
            b.quit()
    finally:
        srv.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return paths


if __name__ == "__main__":
    if WHY_NOT:
        sys.exit("nakk: " + WHY_NOT)
    for p in screenshots(os.path.join(ROOT, "docs", "screenshots")):
        print(p)


def test_a_result_synced_from_a_simulated_box_appears_on_an_open_standings_page(browser, judge, tmp_path,
                                                                                 monkeypatch):
    """End to end: the real firmware on the simulator holds table 4's finished match; `nakk sync` (pty,
    pyserial) stores it; the standings page open in Chromium shows it without a reload."""
    import secrets
    import subprocess
    import boxes
    from nakk_host.simulator import Simulator
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))   # this test's own simulator registry
    os.makedirs(str(tmp_path / "xdg"))
    db, conn, t, tables = judge
    image = str(tmp_path / "table4.img")
    key = secrets.token_bytes(32)
    fs_id, nums = boxes.fill(image, 1, key, match=boxes.finished_match(4, t["code"], 4, 1))
    store.save_pairing(conn, boxes.sim_device_id(image), fs_id, key, "laud 4")
    srv = Served(db)
    try:
        browser.get(srv.url + "/")
        wait_live(browser)
        js(browser, "window.nakkMarker = 13;")
        a, b = tables[3]
        assert row_cells(browser, a)["played"] == "0"
        with Simulator(image):
            r = subprocess.run([os.path.join(os.path.dirname(sys.executable), "nakk"), "sync", "--db", db],
                               capture_output=True, text=True, timeout=120)
            t0 = time.monotonic()
            assert r.returncode == 0, r.stdout + r.stderr
        wait_for(lambda: row_cells(browser, a)["played"] == "1", 10, "the synced result on the open page")
        took = time.monotonic() - t0
        assert js(browser, "return window.nakkMarker") == 13, "the page reloaded"
        assert took < 2.0, "shown %.2f s after nakk sync returned" % took
        want = conn.execute("SELECT summary FROM results WHERE result_id=?", ("%s-%d" % (fs_id, nums[0]),)).fetchone()
        assert want is not None
        final = __import__("json").loads(want[0])["final"]
        assert row_cells(browser, a)["nakks"] == str(final[0]) and row_cells(browser, b)["nakks"] == str(final[1])
    finally:
        srv.close()
