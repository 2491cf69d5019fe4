"""The judge's console (`nakk judge`) through Starlette's TestClient: its door, and bad input on every form.

The door: no session is sent to the login page (or refused), the one-time code
works once, a wrong CSRF token or another site's Origin/Referer is refused with
nothing changed, and the server binds the loopback address unless told
otherwise. Bad input: each form's mistake is shown beside its field and the
database is byte for byte what it was (an SQL dump compared).
"""

import io
import re
import sqlite3
import threading

import pytest

from consolekit import (CODE, ORIGIN, app_for, client, csrf, error_beside, evening, flash, login, players_csv,
                        post, snapshot)


# ---------------------------------------------------------------- the door

def test_no_session_is_sent_to_the_login_page_and_changes_are_refused(tmp_path):
    db = str(tmp_path / "judge.db")
    c = client(app_for(db))
    for path in ("/", "/players", "/acts", "/print/draw", "/export/standings.csv"):
        r = c.get(path, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/login", path
    assert c.get("/api/state").status_code == 403
    before = snapshot(db)
    r = c.post("/do/tournament_new", data={"csrf": "x", "name": "Etapp", "ruleset": "saare-2020", "rounds": "3"},
               headers=ORIGIN)
    assert r.status_code == 403 and snapshot(db) == before
    # a made-up cookie is no session
    c.cookies.set("nakk_judge", "made-up")
    assert c.get("/", follow_redirects=False).status_code == 303


def test_the_code_logs_in_once_and_the_cookie_is_httponly_and_strict(tmp_path):
    c = client(app_for(str(tmp_path / "judge.db")))
    bad = login(c, code="000000")
    assert bad.status_code == 400 and "Vale" in error_beside(bad.text, "code")
    r = login(c)
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    assert "nakk_judge=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert c.get("/").status_code == 200
    other = client(c.app)
    assert login(other).status_code == 400          # used: a second browser cannot log in with it


def test_a_wrong_csrf_token_is_refused_and_nothing_changes(tmp_path):
    c, db, token = evening(tmp_path)
    before = snapshot(db)
    for bad in ("", "x" * 32, token[:-1]):
        r = post(c, "draw", bad, round="1")
        assert r.status_code == 403, bad
    r = c.post("/do/draw", data={"round": "1"}, headers=ORIGIN)          # no token at all
    assert r.status_code == 403
    assert snapshot(db) == before
    assert post(c, "draw", token, round="1").status_code == 303          # the right one works
    assert snapshot(db) != before


def test_another_origin_or_referer_is_refused(tmp_path):
    c, db, token = evening(tmp_path)
    before = snapshot(db)
    for headers in ({"Origin": "http://evil.example"}, {"Referer": "http://evil.example/page"},
                    {"Origin": "http://testserver:9999"}, {}):
        r = c.post("/do/draw", data={"csrf": token, "round": "1"}, headers=headers)
        assert r.status_code == 403, headers
    assert snapshot(db) == before
    # reading from another site's page is refused too (its scripts cannot see the state)
    assert c.get("/api/state", headers={"Origin": "http://evil.example"}).status_code == 403
    assert c.post("/do/draw", data={"csrf": token, "round": "1"},
                  headers={"Referer": "http://testserver/"}, follow_redirects=False).status_code == 303


def test_a_foreign_host_is_refused(tmp_path):
    db = str(tmp_path / "judge.db")
    c = client(app_for(db, hosts=["127.0.0.1:8081", "localhost:8081"]))
    assert c.get("/login").status_code == 403                 # Host: testserver (DNS rebinding)
    assert c.get("/login", headers={"Host": "127.0.0.1:8081"}).status_code == 200


def test_nakk_judge_binds_loopback_by_default_and_says_so(tmp_path, monkeypatch):
    import webbrowser
    from nakk_host.console import server
    from nakk_host.cli import parser
    args = parser().parse_args(["judge", "--db", str(tmp_path / "j.db")])
    assert args.host == "127.0.0.1" and not args.no_browser
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url))
    out = io.StringIO()
    got = {}
    sock = __import__("nakk_host.hall.server", fromlist=["bind"]).bind(args.host, 0)

    def run():
        got["rc"] = server.serve(str(tmp_path / "j.db"), args.host, 0, browser=True, out=out, sock=sock,
                                 code="111111", ready=lambda url: got.setdefault("url", url))

    import uvicorn
    servers = []
    real = uvicorn.Server.__init__

    def keep(self, *a, **kw):
        real(self, *a, **kw)
        servers.append(self)
    uvicorn.Server.__init__ = keep
    try:
        th = threading.Thread(target=run)
        th.start()
        import time
        end = time.monotonic() + 10
        while not (servers and servers[0].started):
            assert time.monotonic() < end, "the console never started"
            time.sleep(0.02)
        assert sock.getsockname()[0] == "127.0.0.1"
        line = out.getvalue()
        assert line.count("\n") == 1 and "127.0.0.1" in line and "this computer only" in line and "111111" in line
        assert opened == [got["url"] + "login"]             # the browser opened at the login page
        import urllib.request
        r = urllib.request.urlopen(got["url"] + "login", timeout=5)
        assert r.status == 200
        servers[0].should_exit = True
        th.join(10)
        assert got["rc"] == 0
    finally:
        uvicorn.Server.__init__ = real


# ---------------------------------------------------------------- bad input on every form

def test_a_wrong_csv_says_why_beside_the_file_and_adds_nothing(tmp_path):
    c, db, token = evening(tmp_path, pairs=4)
    before = snapshot(db)
    for data, why in ((b"", "vali CSV-fail"),
                      (b"nimi;vanus\nMets;40\n", "tundmatu veerg"),
                      ("nimi;mängija;mängija\nMets;Üks\n".encode(), "1 mängijat, peab olema 2"),
                      (b"nimi\n", "ühtegi paari"),
                      (b"\x81\x98\xff\xfe", "pole UTF-8 ega Windows-1257")):
        r = post(c, "players_preview", token, files={"file": ("x.csv", data, "text/csv")})
        assert r.status_code == 400, data
        assert why in (error_beside(r.text, "file") or ""), (data, error_beside(r.text, "file"))
    # a file already imported: the confirm step refuses the duplicates, all or none
    r = post(c, "players_preview", token, files={"file": ("x.csv", players_csv(4), "text/csv")})
    assert r.status_code == 200 and "Kinnita" in r.text          # the preview adds nothing yet
    assert snapshot(db) == before
    data = re.search(r'name="data" value="([^"]+)"', r.text).group(1)
    r = post(c, "players_import", token, data=data)
    assert r.status_code == 400 and "on juba kirjas" in error_beside(r.text, "file")
    assert snapshot(db) == before


@pytest.mark.parametrize("action,fields,field,words", [
    ("player_add", {"name": "  "}, "name", "nimi puudub"),
    ("player_add", {"name": "Mets\x00"}, "name", "juhtmärki"),
    ("player_rename", {"no": "1", "name": "", "why": "kirjaviga"}, "name", "uus nimi puudub"),
    ("player_rename", {"no": "1", "name": "Uus", "why": ""}, "why", "miks?"),
    ("player_withdraw", {"no": "99", "why": "haige"}, "no", "99"),
    ("player_withdraw", {"no": "1", "why": ""}, "why", "miks?"),
    ("deduct", {"no": "1", "why": ""}, "why", "miks?"),
    ("deduct", {"no": "1", "points": "neli", "why": "müra"}, "points", "täisarv"),
    ("disqualify", {"no": "", "why": "x"}, "no", "number puudub"),
    ("correct", {"result": "paper-1", "points": "0 -2", "why": ""}, "why", "miks?"),
    ("correct", {"result": "nope-1", "points": "0 -2", "why": "loendusviga"}, "result", "nope-1"),
    ("correct", {"result": "x", "points": "null", "why": "loendusviga"}, "points", "punktid poolte kaupa"),
    ("void", {"what": "", "why": "x"}, "what", "kirje number"),
    ("place", {"result": "x", "round": "", "table": "1", "why": "x"}, "round", "mis voor"),
    ("close", {"round": "1", "table": "1", "why": ""}, "why", "miks?"),
    ("draw", {"round": "5"}, "round", "5. vooru ei saa loosida enne 1. vooru"),
    ("tournament_new", {"name": "", "ruleset": "saare-2020", "rounds": "3"}, "name", "nimi puudub"),
    ("tournament_new", {"name": "X", "ruleset": "saare-2020", "rounds": "kolm"}, "rounds", "täisarv"),
    ("tournament_use", {"code": "pole-olemas"}, "code", "pole-olemas"),
    ("tournament_new", {"name": "X", "ruleset": "saare-2020", "rounds": "3", "settings": "foo=1"}, "settings",
     "tundmatu seade foo"),
    ("tournament_new", {"name": "X", "ruleset": "saare-2020", "rounds": "3", "settings": "noise"}, "settings",
     "VÕTI=VÄÄRTUS"),
    ("tournament_new", {"name": "X", "ruleset": "saare-2020", "rounds": "3", "order": "wins,goals"}, "order",
     "goals"),
    ("tournament_new", {"name": "X", "ruleset": "saare-2020", "rounds": "3", "code": "a b"}, "code", "kood"),
    ("tournament_new", {"name": "X", "ruleset": "schmier", "rounds": "3", "boards": "4"}, "boards", "Turniirisaskule"),
    ("assign_one", {"table": "1", "port": ""}, "port", "vali kast"),
    ("pair", {"port": "", "name": "laud 1"}, "port", "vali kast"),
])
def test_bad_input_on_a_form_is_said_beside_its_field_and_changes_nothing(tmp_path, action, fields, field, words):
    c, db, token = evening(tmp_path, pairs=4)
    before = snapshot(db)
    r = post(c, action, token, **fields)
    assert r.status_code == 400, r.text[:500]
    got = error_beside(r.text, field)
    assert got is not None and words in got, (action, field, got)
    assert snapshot(db) == before


def test_a_second_draw_of_the_same_round_is_refused(tmp_path):
    c, db, token = evening(tmp_path)
    assert post(c, "draw", token, round="1").status_code == 303
    before = snapshot(db)
    r = post(c, "draw", token, round="1")                   # the same form sent again
    assert r.status_code == 400 and "1. voor on juba loositud" in error_beside(r.text, "round")
    assert snapshot(db) == before


def test_a_correction_without_a_reason_is_refused(tmp_path):
    c, db, token = evening(tmp_path, pairs=2, rounds=1)
    assert post(c, "draw", token, round="1").status_code == 303
    conn = sqlite3.connect(db)
    conn.close()
    # a result to correct: the table closed by the judge (a result with who and why)
    assert post(c, "close", token, round="1", table="1", forfeit="B", why="paar lahkus").status_code == 303
    (rid,) = re.findall(r'data-result="([^"]+)"', c.get("/acts").text)
    before = snapshot(db)
    r = post(c, "correct", token, result=rid, points="0 -2", why="   ")
    assert r.status_code == 400 and error_beside(r.text, "why").startswith("miks?")
    assert snapshot(db) == before
    r = post(c, "correct", token, result=rid, points="0 -2", why="loendusviga")
    assert r.status_code == 303 and snapshot(db) != before


def test_english_is_a_choice_kept_in_the_session(tmp_path):
    c, db, token = evening(tmp_path, pairs=4)
    assert "Järgmine samm" in c.get("/").text
    assert post(c, "lang", token, lang="en", back="/players").headers["location"] == "/players"
    page = c.get("/").text
    assert "Next step" in page and "Järgmine samm" not in page
    r = post(c, "player_add", token, name="")
    assert error_beside(r.text, "name") == "the name is missing"
    r = post(c, "player_add", token, name="Mets/Tamm0", players="Mets, Tamm0")   # the module's own words, as the CLI says them
    assert error_beside(r.text, "name").startswith("Mets/Tamm0 is registered already (as no 1")


def test_the_modules_refusals_are_said_in_estonian_and_an_unknown_one_as_it_is():
    from nakk_host.refusals import estonian
    assert estonian("round 2 is not in yet: tables 1, 3 (playing); a swiss draw needs its standings") == \
        "2. voor pole veel käes: laud 1, 3 (playing); loosimine vajab selle edetabelit"
    assert estonian("no result 'x-1' (see `nakk history` or `nakk standings` for result ids)") == "tulemust x-1 pole"
    assert estonian("round 1 table 2 has a result already (paper-1): to replace it, void it first with "
                    "`nakk correct paper-1 --void --why ...`").startswith("1. vooru laual 2 on tulemus juba käes")
    assert estonian("something new went wrong") == "something new went wrong"


def _sheet_page(c):
    r = c.get("/enter?round=1&table=1&room=0")
    return r.text, re.findall(r'data-answer="([^"]+)"', r.text), [int(x) for x in
                                                                 re.findall(r'<td class="big">(-?\d+)</td>', r.text)]


def test_a_paper_sheet_is_typed_deal_by_deal_checked_by_the_rules_and_survives_closing_the_browser(tmp_path):
    c, db, token = evening(tmp_path, pairs=2, rounds=1)
    assert post(c, "draw", token, round="1").status_code == 303
    html, answers, score = _sheet_page(c)
    assert score == [0, 0] and "1 A" in answers and "Mäng" in html      # the ruleset's own form, in Estonian
    # what the box refuses, the sheet refuses with the rules' reason, and keeps what was typed
    before = snapshot(db)
    r = post(c, "sheet", token, round="1", table="1", room="0", what="undo")
    assert r.status_code == 400 and error_beside(r.text, "answer") == "reeglid ei luba: tagasi võtta pole midagi"
    assert snapshot(db) == before
    # trump (its number alone, as the box's OK), then the form asks its result: B won
    assert post(c, "sheet", token, round="1", table="1", room="0", what="answer", answer="1").status_code == 303
    html, answers, _ = _sheet_page(c)
    assert "Tulemus" in html and "1 B" in answers
    assert post(c, "sheet", token, round="1", table="1", room="0", what="answer", answer="1 B").status_code == 303
    html, _, score = _sheet_page(c)
    assert score[1] > 0 and score[0] == 0 and "2. jagamine" in html   # the running score, from Match
    # the browser is closed; the judge logs in again (a new code, a new session): the sheet is there
    app2 = app_for(db)
    app2.sessions.code = "999999"
    c2 = client(app2)
    assert login(c2, code="999999").status_code == 303
    assert "voor 1, laud 1" in c2.get("/enter").text               # listed as being typed in
    _, _, again = _sheet_page(c2)
    assert again == score
    token2 = csrf(c2)
    # to the end: always the first offered answer with side A's "pime pits" where offered
    for _ in range(60):
        html, answers, _ = _sheet_page(c2)
        if not answers:
            break
        pick = answers[-4] if len(answers) >= 4 else answers[0]
        assert post(c2, "sheet", token2, round="1", table="1", room="0", what="answer", answer=pick).status_code == 303
    html, answers, final = _sheet_page(c2)
    assert 'id="sign"' in html
    r = post(c2, "sheet", token2, round="1", table="1", room="0", what="store", why="kast tühi")
    assert r.status_code == 400 and error_beside(r.text, "store")    # signed? asked first
    assert post(c2, "sheet", token2, round="1", table="1", room="0", what="sign", signed="yes").status_code == 303
    r = post(c2, "sheet", token2, round="1", table="1", room="0", what="store", why="")
    assert r.status_code == 400 and error_beside(r.text, "why")
    r = post(c2, "sheet", token2, round="1", table="1", room="0", what="store", why="kast tühi")
    assert r.status_code == 303
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT result_id, source, status FROM results").fetchall()
    drafts = conn.execute("SELECT count(*) FROM sheets").fetchone()[0]
    conn.close()
    assert rows == [("paper-1", "paper", "verified")] and drafts == 0
    st = c2.get("/api/state").json()
    assert st["tables"][0]["state"] == "verified" and st["tables"][0]["final"] == final


class FakeWatcher:
    """The plug-in watcher's surface as the console reads it (nakk_host.watch.Watcher), with made-up boxes."""

    def __init__(self):
        self.paired = []
        self.started = self.stopped = 0

    def start(self):
        self.started += 1

    def stop(self, timeout=30.0):
        self.stopped += 1

    def events(self, since=0):
        return [{"n": 1, "time": "2026-12-07T19:02:03", "kind": "stored", "alarm": False,
                 "et": "Laud 3: 16 : 12 vastu võetud, kontrollitud", "en": "Table 3: 16 : 12 received, verified",
                 "words": "Laud 3: 16 : 12 vastu võetud, kontrollitud"}]

    def boxes(self):
        return [{"port": "/dev/pts/9", "kind": "sim", "label": "simulator laud9.img", "box": "sim-abc", "name": None,
                 "table": None, "room": 0, "state": "unpaired", "state_words": "paarimata",
                 "offer": {"kind": "pair"}, "busy": False, "last": None}]

    def pair(self, port, name=None):
        self.paired.append((port, name))


def test_the_plug_in_watcher_s_words_and_offers_are_on_the_console(tmp_path):
    from nakk_host.console import watch
    db = str(tmp_path / "judge.db")
    fake = FakeWatcher()
    c = client(app_for(db, watcher=watch.Watched(fake)))
    assert login(c).status_code == 303
    token = csrf(c)
    assert post(c, "tournament_new", token, name="Etapp", ruleset="saare-2020", rounds="3").status_code == 303
    page = c.get("/").text
    assert "Laud 3: 16 : 12 vastu võetud, kontrollitud" in page and 'data-watching="yes"' in page
    assert c.get("/api/state").json()["events"][0]["text"].startswith("Laud 3")
    boxes = c.get("/boxes").text
    assert "paarimata" in boxes and 'action="/do/watch_pair"' in boxes
    r = post(c, "watch_pair", token, port="/dev/pts/9", name="")
    assert r.status_code == 400 and error_beside(r.text, "name") and fake.paired == []
    assert post(c, "watch_pair", token, port="/dev/pts/9", name="laud 9").status_code == 303
    assert fake.paired == [("/dev/pts/9", "laud 9")]
    assert post(c, "lang", token, lang="en").status_code == 303
    assert "Table 3: 16 : 12 received, verified" in c.get("/").text


class HubWatcher(FakeWatcher):
    """A watcher with one paired box, 'laud 1', whose match the watcher knows is over (its result left on
    the box); what the console asks of it is noted, and it never opens a port."""

    def __init__(self, device):
        FakeWatcher.__init__(self)
        self.device = device
        self.asked = []
        self.offer = None

    def events(self, since=0):
        return [{"n": 1, "time": "2026-12-07T19:02:03", "kind": "left", "alarm": False, "port": "/dev/pts/7",
                 "et": "Laud 1: 1 tulemust jäi veel kasti: ühendage kast uuesti",
                 "en": "Table 1: 1 results are still on the box: plug it in again", "words": "..."}]

    def boxes(self):
        return [{"port": "/dev/pts/7", "kind": "sim", "label": "simulator kast1.img", "box": self.device,
                 "name": "laud 1", "table": 1, "room": 0, "state": "synced", "state_words": "sünkroonitud",
                 "offer": self.offer, "busy": False, "last": "..."}]

    def sync(self, port):
        self.asked.append(("sync", port))

    def assign(self, port):
        self.asked.append(("assign", port))


def test_while_watching_the_console_syncs_and_pushes_through_the_watcher(tmp_path, monkeypatch):
    from nakk_host import assign as A
    from nakk_host import device as Dev
    from nakk_host import store
    from nakk_host import sync as Sy
    from nakk_host import tournament as T
    from nakk_host.console import watch
    c, db, token = evening(tmp_path)
    assert post(c, "draw", token, round="1").status_code == 303
    conn = store.open_db(db)
    with conn:
        conn.execute("INSERT INTO devices (device_id, fs_id, key, name, paired_at) VALUES "
                     "('sim-1', 'fs', x'00', 'laud 1', '2026-12-07T19:00:00')")
    t = T.get(conn, None)
    A.pushed(conn, t, 1, 1, 0, A.assignment(conn, t, 1, 1, 0), device_id="sim-1")
    conn.close()
    fake = HubWatcher("sim-1")
    c = client(app_for(db, watcher=watch.Watched(fake)))
    assert login(c).status_code == 303
    token = csrf(c)
    # the ports are the watcher's: the console's own sync and push must not open them
    monkeypatch.setattr(Sy, "sync", lambda *a, **k: pytest.fail("sync.sync while the watcher watches"))
    monkeypatch.setattr(A, "push_all", lambda *a, **k: pytest.fail("assign.push_all while the watcher watches"))
    monkeypatch.setattr(Dev, "discover", lambda: pytest.fail("device.discover while the watcher watches"))
    st = c.get("/api/state").json()
    one = next(r for r in st["tables"] if r["table"] == 1)
    assert one["state"] == "finished" and {r["state"] for r in st["tables"] if r["table"] != 1} == {"waiting"}
    assert "läbi, ootab kasti" in c.get("/").text
    r = post(c, "sync", token)
    assert r.status_code == 303 and fake.asked == [("sync", "/dev/pts/7")]
    assert "Sünkroonin 1 kasti" in flash(c.get("/").text)
    r = post(c, "push", token, round="1")                  # nothing offered: said beside the step
    assert r.status_code == 400 and "ükski ühendatud kast ei oota 1. vooru lauda" in error_beside(r.text, "round")
    fake.offer = {"kind": "assign", "tournament": st["tournament"]["code"], "round": 1, "table": 1, "room": 0,
                  "sides": "A – B"}
    assert 'class="assign-offer"' in c.get("/").text
    assert post(c, "push", token, round="1").status_code == 303
    assert fake.asked[-1] == ("assign", "/dev/pts/7")


def test_guessing_the_code_spends_it(tmp_path):
    from nakk_host.console.guard import TRIES
    c = client(app_for(str(tmp_path / "judge.db")))
    for i in range(TRIES):
        assert login(c, code="%06d" % i if "%06d" % i != CODE else "999999").status_code == 400
    assert login(c).status_code == 400              # the right code, too late: restart nakk judge
    assert c.get("/", follow_redirects=False).status_code == 303


def test_a_dead_box_s_match_is_closed_with_its_events_kept(tmp_path):
    from judge_kit import raw_of, saare_events
    c, db, token = evening(tmp_path, pairs=2, rounds=1)
    assert post(c, "draw", token, round="1").status_code == 303
    code = c.get("/api/state").json()["tournament"]["code"]
    before = snapshot(db)
    r = post(c, "close", token, files={"file": ("kast.jsonl", b'{"seq": 1, "type": "setup"\n', "application/json")},
             round="1", table="1", forfeit="B", why="kasti aku tühi")
    assert r.status_code == 400 and error_beside(r.text, "events").startswith("rida 1")
    assert snapshot(db) == before
    half = saare_events(code, 1, 1, ["Mets/Tamm0", "Saar/Kask1"], [("suit", "A", "A")], tail=())
    r = post(c, "close", token, files={"file": ("kast.jsonl", b"\xef\xbb\xbf" + raw_of(half), "application/json")},
             round="1", table="1", forfeit="B", why="kasti aku tühi")
    assert r.status_code == 303, error_beside(r.text, "events") or error_beside(r.text, "table")
    conn = sqlite3.connect(db)
    (raw,) = conn.execute("SELECT events FROM results").fetchone()
    conn.close()
    kinds = [re.search(rb'"type":\s*"(\w+)"', line).group(1) for line in bytes(raw).split(b"\n")]
    assert kinds == [b"setup", b"deal", b"forfeit"]


def test_the_console_and_the_hall_run_at_once_on_one_database(tmp_path):
    import os
    import httpx2
    from consolekit import Judge
    from hallkit import Served
    db = str(tmp_path / "judge.db")
    judge = Judge(db, dict(os.environ))
    hall = None
    try:
        web = httpx2.Client(base_url=judge.url, headers={"Origin": judge.url.rstrip("/")}, timeout=10)
        pre = re.search(r'name="pre" value="([^"]+)"', web.get("/login").text).group(1)
        assert web.post("/login", data={"pre": pre, "code": judge.code}).status_code == 303
        token = re.search(r'name="csrf" value="([^"]+)"', web.get("/").text).group(1)
        assert web.post("/do/tournament_new", data={"csrf": token, "name": "Etapp", "ruleset": "saare-2020",
                                                    "rounds": "3"}).status_code == 303
        hall = Served(db)                            # the hall's read-only pages beside the console
        r = web.post("/do/players_preview", data={"csrf": token}, files={"file": ("p.csv", players_csv(4))})
        data = re.search(r'name="data" value="([^"]+)"', r.text).group(1)
        assert web.post("/do/players_import", data={"csrf": token, "data": data}).status_code == 303
        assert web.post("/do/draw", data={"csrf": token, "round": "1"}).status_code == 303
        status, page = hall.get("/draw")
        assert status == 200 and "Mets/Tamm0" in page and "Saar/Kask1" in page   # drawn in the console
        req = __import__("urllib.request", fromlist=["Request"]).Request(hall.url + "/", data=b"x", method="POST")
        with pytest.raises(Exception) as e:
            __import__("urllib.request", fromlist=["urlopen"]).urlopen(req, timeout=5)
        assert "405" in str(e.value)                # the hall stays read-only
        web.close()
    finally:
        if hall is not None:
            hall.close()
        judge.close()


def test_turniirisasku_table_cards_name_the_room_and_each_team_s_pair(tmp_path):
    db = str(tmp_path / "judge.db")
    c = client(app_for(db))
    assert login(c).status_code == 303
    token = csrf(c)
    assert post(c, "tournament_new", token, name="Turniirisasku", ruleset="sasku", rounds="1",
                boards="4").status_code == 303
    teams = "nimi;mängija;mängija;mängija;mängija\n" + "".join(
        "Võistkond %s;%s1;%s2;%s3;%s4\n" % (x, x, x, x, x) for x in ("Õ", "Ä", "Ö", "Ü"))
    r = post(c, "players_preview", token, files={"file": ("t.csv", teams.encode("utf-8"), "text/csv")})
    data = re.search(r'name="data" value="([^"]+)"', r.text).group(1)
    assert post(c, "players_import", token, data=data).status_code == 303
    assert post(c, "draw", token, round="1").status_code == 303
    rows = c.get("/api/state").json()["tables"]
    assert sorted((r["table"], r["room"]) for r in rows) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    cards = c.get("/print/cards?round=1").text
    assert cards.count('class="sheet card"') == 4
    for room in (1, 2):
        assert "Tuba %d" % room in cards
    assert re.search(r"Võistkond . 1 \(\d\)", cards) and re.search(r"Võistkond . 2 \(\d\)", cards)
    assert c.get("/print/cards?round=2").status_code == 404


def test_a_result_no_draw_knows_is_listed_and_placed_at_its_table(tmp_path):
    from judge_kit import saare_events, store
    from nakk_host.store import open_db
    c, db, token = evening(tmp_path, pairs=2, rounds=1)
    assert post(c, "draw", token, round="1").status_code == 303
    conn = open_db(db)
    store(conn, "box1-1", saare_events(None, 1, 1, ["Mets/Tamm0", "Saar/Kask1"], [("suit", "A", "A")] * 3))
    conn.close()
    assert "box1-1" in re.search(r'<ul id="to-place">(.*?)</ul>', c.get("/acts").text, re.S).group(1)
    r = post(c, "place", token, result="box1-1", round="1", table="1", why="kast seati käsitsi")
    assert r.status_code == 303
    assert 'id="to-place"' not in c.get("/acts").text
    assert c.get("/api/state").json()["tables"][0]["result_ids"] == ["box1-1"]


def test_the_exports_are_the_cli_s_files_as_downloads(tmp_path):
    from nakk_host import export as X
    from nakk_host import standings as S
    from nakk_host import tournament as T
    from nakk_host.store import open_db
    c, db, token = evening(tmp_path, pairs=4, rounds=1)
    assert post(c, "draw", token, round="1").status_code == 303
    conn = open_db(db)
    t = T.get(conn)
    want = {"standings.csv": X.standings_csv(S.standings(conn, t)), "matches.csv": X.matches_csv(conn, t)}
    conn.close()
    for name, text in want.items():
        r = c.get("/export/" + name)
        assert r.status_code == 200 and r.content == b"\xef\xbb\xbf" + text.encode("utf-8")
        assert 'filename="%s"' % name in r.headers["content-disposition"]
    assert c.get("/export/season.csv").status_code == 404          # this stage is in no season
    assert c.get("/export/../judge.db").status_code in (404, 400)


def test_a_windows_1257_csv_is_previewed_with_its_encoding_named_and_its_letters_right(tmp_path):
    c, db, token = evening(tmp_path, pairs=2)
    before = snapshot(db)
    csv = "nimi;mängija;mängija;klubi\nŠokk/Žürii;Šokk;Žürii;Põlva\nÕun/Pärn;Õun;Pärn;Kärdla\n".encode("cp1257")
    r = post(c, "players_preview", token, files={"file": ("excel.csv", csv, "text/csv")})
    assert r.status_code == 200 and "Windows-1257 (Balti; Eesti Exceli CSV)" in r.text
    assert "Šokk/Žürii" in r.text and "Õun/Pärn" in r.text
    assert snapshot(db) == before                                   # a preview adds nothing
    data = re.search(r'name="data" value="([^"]+)"', r.text).group(1)
    assert post(c, "players_import", token, data=data).status_code == 303
    names = re.findall(r'<tr data-no="\d+"><td>\d+</td><td>([^<]+)</td>', c.get("/players").text)
    assert names[-2:] == ["Šokk/Žürii", "Õun/Pärn"]


# words the modules write in English (history lines, sync and box errors, the rules' refusals): none of
# them may be left on an Estonian page
ENGLISH = ("the", "of", "is", "not", "no", "record", "round", "table", "against", "won", "lost", "winner",
           "points", "corrected", "voided", "void", "deduction", "withdrawn", "renamed", "rank", "result",
           "box", "judge", "signature", "answer", "stored", "missing", "must", "already", "paired", "undo")


def _visible_words(html):
    """The words a reader sees on a page: no markup, scripts, styles or attribute values."""
    import html as H
    text = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", html)
    text = H.unescape(re.sub(r"(?s)<[^>]*>", " ", text))
    return re.findall(r"[A-Za-zÕÄÖÜŠŽõäöüšž]+", text)


def test_the_estonian_pages_of_a_played_evening_say_nothing_in_english(tmp_path):
    from nakk_host import device as Dev
    from nakk_host import store
    from nakk_host import sync as Sy
    from nakk_host import watch as Wt
    from nakk_host import watchjobs
    from nakk_host.console import watch
    c, db, token = evening(tmp_path, pairs=4, rounds=1)
    assert post(c, "draw", token, round="1").status_code == 303
    for table in (1, 2):                                   # both tables from their paper sheets
        q = dict(round="1", table=str(table), room="0")
        for _ in range(80):
            page = c.get("/enter?round=1&table=%d&room=0" % table).text
            answers = re.findall(r'data-answer="([^"]+)"', page)
            if not answers:
                break
            assert post(c, "sheet", token, what="answer", answer=answers[0], **q).status_code == 303
        assert post(c, "sheet", token, what="sign", signed="yes", **q).status_code == 303
        assert post(c, "sheet", token, what="store", why="kast tühi", **q).status_code == 303
    assert post(c, "correct", token, result="paper-1", points="0 -2", why="loendusviga").status_code == 303
    assert post(c, "deduct", token, no="2", points="1", why="hilinemine").status_code == 303
    conn = sqlite3.connect(db)
    (rec,) = conn.execute("SELECT id FROM records WHERE kind='deduct'").fetchone()
    conn.close()
    assert post(c, "void", token, what=str(rec), why="eksitus").status_code == 303
    assert post(c, "player_rename", token, no="3", name="Mets/Kask", why="kirjaviga").status_code == 303
    assert post(c, "player_withdraw", token, no="4", why="haigus").status_code == 303
    # a box the watcher saw fail, in the words it keeps: a bad signature, a second result, no answer
    w = Wt.Watcher(db)
    port = Dev.Port("/dev/pts/42", "sim", "simulator kast.img")
    b = Wt._Box(port)
    b.name = "laud 1"
    w._boxes[port.url] = b
    rep = Sy.BoxReport(port)
    rep.rejected = [("x-1", "x-1 has a bad signature: not signed with the key this judge gave the box"),
                    ("x-2", "a different result is already stored under this id (alarm)")]
    rep.error = "/dev/pts/42: the box does not answer (list) (sent 3 times)"
    conn = store.open_db(db)
    watchjobs.report(w, b, rep, conn)
    conn.close()
    app = app_for(db, watcher=watch.Watched(w))
    app.sessions.code = "999999"
    c2 = client(app)
    assert login(c2, code="999999").status_code == 303
    token2 = csrf(c2)
    r = post(c2, "sheet", token2, round="1", table="1", room="0", what="undo")     # the rules refuse it
    pages = {"undo refused": r.text}
    for path in ("/", "/acts", "/history", "/history?no=1", "/history?no=2", "/history?no=4", "/standings",
                 "/players", "/boxes", "/rounds", "/enter"):
        pages[path] = c2.get(path).text
    assert "kirje %d tühistamine" % rec in pages["/history"] and "allkiri ei klapi" in pages["/"]
    left = {path: sorted({x for x in _visible_words(html) if x.lower() in ENGLISH})
            for path, html in pages.items()}
    assert {p: x for p, x in left.items() if x} == {}
    # and in English the same lines are English (the words are the modules', not dropped)
    assert post(c2, "lang", token2, lang="en").status_code == 303
    assert "void of record %d" % rec in c2.get("/history").text
    found = {path: {x.lower() for x in _visible_words(c2.get(path).text)} & set(ENGLISH)
             for path in ("/", "/history", "/history?no=1")}
    assert {"record", "void", "voided"} <= found["/history"] and {"signature", "box"} <= found["/"], found
    assert {"round", "table", "against", "won", "result"} & found["/history?no=1"], found
