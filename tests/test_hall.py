"""`nakk serve` without a browser: the match page's rows folded from stored bytes, the read-only guard, the change stream, CLI errors."""
import hashlib
import http.client
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest

from hallkit import Served, example_bytes, free_port, store_result, wait_for
from nakk_host import store
from nakk_host.hall import deals

NAKK = os.path.join(os.path.dirname(sys.executable), "nakk")


def lines_of(raw):
    return [json.loads(x) for x in raw.split(b"\n")]


def raw_of(events):
    from nakk.event import encode
    return b"\n".join(encode(e) for e in events)


# ---------------------------------------------------------------- the match page's content

def test_deals_are_folded_from_the_stored_bytes():
    raw = example_bytes()
    d = deals.describe(raw)
    s = d["summary"]
    rows = d["rows"]
    assert d["problem"] is None and d["ruleset"] == "saare-2020"
    # every point on the page is a row's delta: the deltas add up to the folded totals
    for i in range(2):
        assert sum((r["delta"] or [0, 0])[i] for r in rows) == s["score"][i]
        assert rows[-1]["totals"][i] == s["score"][i]
    by_seq = {r["seq"]: r for r in rows}
    # the pokk and its replay: the chain shows 1 after the pokk, 0 after the replay, which says so
    assert by_seq[6]["chain"] == 1 and by_seq[6]["delta"] is None
    assert by_seq[7]["chain"] == 0 and "pokk replay" in by_seq[7]["words"][1]
    assert "Ruutu" in by_seq[7]["words"][1] and "karvane" in by_seq[7]["words"][1]
    # who made which game, in the players' words (the ruleset's describe hook), both languages
    assert by_seq[2]["words"] == ("Trump, A Mets/Tamm tegi ja võitis", "Suit, A Mets/Tamm made it and won")
    assert by_seq[4]["words"][0] == "Trump, A Mets/Tamm tegi, B Saar/Kask võitis"
    assert by_seq[5]["type"] == "penalty" and by_seq[5]["words"][0] == "Kaart näidatud: A Mets/Tamm"
    assert by_seq[5]["delta"] == [0, 2]
    assert by_seq[8]["words"] == ("Vale jagamine", "Misdeal") and by_seq[8]["deal"] is None
    assert [r["deal"] for r in rows if r["deal"]] == list(range(1, s["deals"] + 1))
    # the bonuses: two karvane marks for A
    assert d["bonus_parts"][0] == [(("karvane ×2", "karvane ×2"), 2)] and d["bonus_parts"][1] == []


def test_a_cancelled_entry_is_marked_and_takes_its_points_back():
    ev = lines_of(example_bytes())[:4]          # setup and three deals
    ev.append({"seq": 5, "type": "cancel", "target": 4})
    d = deals.describe(raw_of(ev))
    by_seq = {r["seq"]: r for r in d["rows"]}
    assert by_seq[4]["cancelled"] and not by_seq[3]["cancelled"]
    assert by_seq[5]["totals"] == by_seq[3]["totals"] == d["summary"]["score"]


def test_schmier_points_are_named_per_team():
    setup = {"seq": 1, "type": "setup", "v": 1, "ruleset": "schmier",
             "sides": [{"id": "A", "name": "Õun"}, {"id": "B", "name": "Šokk"}, {"id": "C", "name": "Žürii"}]}
    deal = {"seq": 2, "type": "deal", "bidder": "B", "bid": 4, "high": "B", "low": "A", "right": "B",
            "left": "C", "joker": "B", "game": None}
    d = deals.describe(raw_of([setup, deal]))
    row = d["rows"][0]
    assert row["delta"] == [1, -4, 1]            # B bid 4 and took 3: set
    et, en = row["words"]
    # the bid and what each team took, counted from the points (format 1) as the box's tally says it
    assert (et, en) == ("4 B Šokk, punktid A1 B3 C1, viik", "4 B Šokk, points A1 B3 C1, tie")


def test_bytes_that_stop_folding_are_named():
    raw = example_bytes().replace(b'"result":"jann"', b'"result":"jannn"')
    d = deals.describe(raw)
    assert d["problem"].startswith("event 3 does not fold: result")
    assert [r["seq"] for r in d["rows"]] == [2]


# ---------------------------------------------------------------- the running server

@pytest.fixture
def hall(tmp_path):
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    store_result(conn, example_bytes(), "ab12-1")
    srv = Served(db)
    try:
        yield srv, conn, db
    finally:
        srv.close()
        conn.close()


def _digest(db):
    conn = store.open_db(db)
    try:
        rows = conn.execute("SELECT result_id, events, status FROM results ORDER BY id").fetchall()
    finally:
        conn.close()
    return hashlib.sha256(repr([tuple(r) for r in rows]).encode()).hexdigest(), len(rows)


def test_pages_answer_in_estonian_and_english(hall):
    srv, conn, db = hall
    status, et = srv.get("/match/ab12-1")
    assert status == 200 and 'lang="et"' in et
    assert "Võitja" in et and "Mets/Tamm" in et and "Pime pits" in et and "♦6 püüdis ♣K" in et
    assert 'href="/match/ab12-1?lang=en"' in et
    status, en = srv.get("/match/ab12-1?lang=en")
    assert 'lang="en"' in en and "Winner" in en and "Blind pits" in en and "Võitja" not in en
    status, lst = srv.get("/results")
    assert "ab12-1" in lst and "20 : 14" in lst
    with pytest.raises(Exception) as e:
        srv.get("/match/nope-9")
    assert "404" in str(e.value)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_a_request_that_would_change_something_is_refused(hall, method):
    srv, conn, db = hall
    before = _digest(db)
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    body = "result_id=ab12-1&status=flagged"
    for path in ("/results", "/match/ab12-1", "/events", "/"):
        c.request(method, path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = c.getresponse()
        text = r.read().decode()
        assert r.status == 405 and r.getheader("Allow") == "GET, HEAD", (method, path, r.status)
        assert "read-only" in text
    c.close()
    assert _digest(db) == before


class Sse:
    """A server-sent event stream read as EventSource reads it (a thread parses it into (id, event) pairs)."""

    def __init__(self, port, path="/events", last_id=None):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        self.conn.request("GET", path, headers=headers)
        self.sock = self.conn.sock
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200 and self.resp.getheader("Content-Type").startswith("text/event-stream")
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        fields = {}
        try:
            while True:
                line = self.resp.readline()
                if not line:
                    return
                line = line.decode().rstrip("\r\n")
                if line:
                    if ": " in line and not line.startswith(":"):
                        k, v = line.split(": ", 1)
                        fields[k] = v
                    continue
                if "event" in fields:
                    self.events.put((fields.get("id"), fields["event"]))
                fields = {}
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            return

    def next_event(self, timeout):
        try:
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self):
        # shutdown first: it wakes the reader thread, which holds the response's buffer lock
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()


def test_a_store_reaches_the_change_stream_within_2_s(hall, tmp_path):
    srv, conn, db = hall
    status, page = srv.get("/results")
    since = page.split('data-since="', 1)[1].split('"', 1)[0]
    s = Sse(srv.port, "/events?since=" + since)
    try:
        assert s.next_event(1.0) is None            # up to date: nothing to say
        t0 = time.monotonic()
        store_result(conn, example_bytes(), "ab12-2")
        got = s.next_event(5)
        took = time.monotonic() - t0
        assert got is not None and got[1] == "change", got
        assert took < 2.0, took
        # and the page a browser fetches then shows it
        assert "ab12-2" in srv.get("/results")[1]
        # a page that comes back with its last id catches up at once; an up-to-date one hears nothing
        s2 = Sse(srv.port, last_id=since)
        assert s2.next_event(2) == (got[0], "change")
        s2.close()
        s3 = Sse(srv.port, last_id=got[0])
        assert s3.next_event(1.0) is None
        s3.close()
        boot = got[0].split("-")[0]
        s4 = Sse(srv.port, last_id=boot + "-999")     # a version this run never had: told to fetch at once
        assert s4.next_event(2) == (got[0], "change")
        s4.close()
    finally:
        s.close()


def test_after_a_server_restart_every_page_fetches_again(hall):
    srv, conn, db = hall
    since = srv.get("/results")[1].split('data-since="', 1)[1].split('"', 1)[0]
    srv.close()
    srv2 = Served(db)
    try:
        s = Sse(srv2.port, last_id=since)
        got = s.next_event(3)
        s.close()
        assert got is not None and got[1] == "change" and got[0] != since
    finally:
        srv2.close()


def test_serve_errors_are_plain_words(tmp_path):
    r = subprocess.run([NAKK, "serve", "--db", str(tmp_path / "none.db")], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and r.stderr.startswith("nakk: ") and "no such database" in r.stderr
    assert not (tmp_path / "none.db").exists()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all")
    r = subprocess.run([NAKK, "serve", "--db", str(junk)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "not a Nakk database" in r.stderr and "Traceback" not in r.stderr
    assert junk.read_bytes() == b"not a database at all"
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        r = subprocess.run([NAKK, "serve", "--db", db, "--port", str(taken.getsockname()[1])],
                           capture_output=True, text=True, timeout=30)
    finally:
        taken.close()
    assert r.returncode == 1 and "is taken" in r.stderr and "Traceback" not in r.stderr


def test_with_scripting_off_the_projector_pages_on_the_server(tmp_path):
    from hallkit import hall_tournament
    import re
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    hall_tournament(conn, 12)
    conn.close()
    srv = Served(db, "--page-seconds", "7")
    try:
        seen = []
        for page in (1, 2, 3):
            html = srv.get("/projector?rows=5&page=%d" % page)[1]
            rows = re.findall(r'<tr data-name="([^"]+)"( class="off")?>', html)
            assert len(rows) == 12
            on = [name for name, off in rows if not off]
            assert len(on) == (5 if page < 3 else 2)
            seen += on
            nxt = 1 if page == 3 else page + 1
            # <noscript>: the page refreshes itself to the next page after --page-seconds
            assert '<noscript><meta http-equiv="refresh" content="7;url=/projector?rows=5&amp;page=%d">' % nxt in html
            assert re.search(r'id="clock">\d\d:\d\d<', html) and 'class="round-no">1<' in html
        assert sorted(seen) == sorted(name for name, _ in rows)
    finally:
        srv.close()


def test_a_database_that_goes_away_is_a_plain_error_not_a_crash(hall):
    srv, conn, db = hall
    assert srv.get("/tables")[0] == 200
    conn.close()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    with pytest.raises(Exception) as e:
        srv.get("/match/ab12-1")                 # not read before, so not in the page cache
    assert "503" in str(e.value)
    assert e.value.read().decode().startswith("nakk serve: andmebaasi ei saa lugeda / cannot read the database")
    assert srv.proc.poll() is None              # still serving


def _cell(html, name, col):
    import re
    row = html.split('<tr data-name="%s"' % name, 1)[1].split("</tr>", 1)[0]
    return re.search(r'class="num c-%s[^"]*">([^<]*)<' % col, row).group(1)


def test_a_correction_and_a_deduction_reach_open_pages_within_2_s(tmp_path):
    from hallkit import hall_tournament
    from nakk_host import acts
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    t, tables = hall_tournament(conn, 8)
    srv = Served(db)
    try:
        page = srv.get("/")[1]
        since = page.split('data-since="', 1)[1].split('"', 1)[0]
        a, b = tables[0]                       # box-1: side A won 16 : 0 (+2 prillid)
        assert _cell(page, a, "nakks") == "18"
        s = Sse(srv.port, "/events?since=" + since)
        try:
            t0 = time.monotonic()
            acts.correct(conn, t, "box-1", "kohtunik", "A's count was 2 too high", points=[-2, 0])
            got = s.next_event(5)
            assert got is not None and time.monotonic() - t0 < 2.0
            assert _cell(srv.get("/")[1], a, "nakks") == "16"
            t0 = time.monotonic()
            acts.deduct(conn, t, 1, "kohtunik", "lärm")
            got = s.next_event(5)
            assert got is not None and time.monotonic() - t0 < 2.0
            page = srv.get("/")[1]
            assert _cell(page, "Mets/Tamm", "no") == "1"          # pair no 1
            assert _cell(page, "Mets/Tamm", "deductions") == "−4"
        finally:
            s.close()
    finally:
        srv.close()
        conn.close()


def schmier_evening(conn):
    """A Schmier tournament 'sch' of three teams with round 1 drawn and its one match stored (team A
    bids 6 and takes every point, four hands): the names of table 1's teams in seat order."""
    from judge_kit import raw_of
    from nakk_host import draw as D
    from nakk_host import players as P
    from nakk_host import standings as S
    from nakk_host import tournament as T
    ts = T.create(conn, "Schmieri õhtu", "schmier", "schmier", 1, code="sch")
    P.add_many(conn, ts, [{"name": n} for n in ("Hundid", "Karud", "Ilvesed")])
    D.draw_next(conn, ts, seed=1)
    names = [s["name"] for s in S.round_tables(conn, ts)["tables"][0]["sides"]]
    evs = [{"type": "setup", "v": 1, "ruleset": "schmier", "tournament": "sch", "round": 1, "table": 1,
            "sides": [{"id": x, "name": n} for x, n in zip("ABC", names)]}]
    evs += [{"type": "deal", "bidder": "A", "bid": 6, "high": "A", "low": "A", "right": "A", "left": "A",
             "joker": "A", "game": "A"}] * 4
    evs += [{"type": "confirm", "by": s} for s in "ABC"]
    store_result(conn, raw_of([dict(e, seq=i + 1) for i, e in enumerate(evs)]), "s1")
    return names


def test_every_page_of_a_schmier_and_a_sasku_tournament(tmp_path):
    """Three teams a table (Schmier) and team matches over two rooms (Turniirisasku) on every page, both languages."""
    from nakk_host import draw as D
    from nakk_host import players as P
    from nakk_host import tournament as T
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    names = schmier_evening(conn)
    tk = T.create(conn, "Turniirisasku", "sasku", "teams", 1, boards=2, code="sasku1")
    P.add_many(conn, tk, [{"name": n, "players": [n + str(i) for i in range(4)]} for n in ("Tiigrid", "Karud")])
    D.draw_next(conn, tk, seed=3)
    conn.close()
    srv = Served(db)
    try:
        for code, expect in (("sch", (names[0], "24")), ("sasku1", ("Tiigrid", "Karud"))):
            for path in ("/", "/season", "/draw", "/tables", "/projector"):
                for lang in ("", "&lang=en"):
                    status, html = srv.get("%s?t=%s%s" % (path, code, lang))
                    assert status == 200, (code, path)
                    if path != "/season":
                        assert expect[0] in html, (code, path, lang)
                    if path != "/season" and (code == "sasku1" or path != "/draw"):
                        assert expect[1] in html, (code, path, lang)
            draw = srv.get("/draw?t=%s" % code)[1]
            assert ("Tuba" in draw) == (code == "sasku1")
        status, html = srv.get("/match/s1?lang=en")
        # the hand in the players' words (the ruleset's describe hook): the bid, and the points
        # each team took counted from format 1's point-by-point fields
        assert "6 A {0}, points A6 B0 C0".format(names[0]) in html
        tables = srv.get("/tables?t=sch")[1]
        assert 'data-state="verified"' in tables and 'href="/match/s1?t=sch"' in tables
    finally:
        srv.close()


def test_the_season_page_sums_the_stages_with_each_stage_rank(tmp_path):
    from hallkit import hall_tournament
    from nakk_host import standings as S
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    hall_tournament(conn, 6, name="Etapp A", date="2026-11-01")
    hall_tournament(conn, 6, name="Etapp B", ids="b-")
    want = S.season(conn, "Saaremaa hooaeg 2026")
    conn.close()
    srv = Served(db)
    try:
        html = srv.get("/season")[1]
        assert "Saaremaa hooaeg 2026" in html and "Etapp A (2026-11-01), Etapp B (2026-12-01)" in html
        for r in want["rows"]:
            assert _cell(html, r["name"], "rank") == str(r["rank"])
            assert _cell(html, r["name"], "nakks") == str(r["nakks"])
            row = html.split('<tr data-name="%s"' % r["name"], 1)[1].split("</tr>", 1)[0]
            ranks = [x.strip() for x in row.split('c-stage">')[1:]]
            assert [x.split("<")[0] for x in ranks] == [str(s["rank"]) if s else "–" for s in r["stages"]]
    finally:
        srv.close()


def test_after_nakk_demo_nakk_serve_shows_the_demos_result_and_standings(tmp_path):
    """The issue's 'done when': `nakk demo --db` creates its tournament, draws round 1, assigns the
    table to the box, plays, pairs and syncs; the standings (standings.py and `nakk serve`) count it."""
    from nakk_host import standings as S
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))     # the demo's simulator registers here
    db = str(tmp_path / "nakk.db")
    r = subprocess.run([NAKK, "demo", "--db", db], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert r.stdout.rstrip("\n").splitlines()[-1] == "See it in a browser: nakk serve --db %s" % db
    conn = store.open_db(db)
    try:
        rid, summary, events = conn.execute("SELECT result_id, summary, events FROM results").fetchone()
        setup = json.loads(bytes(events).split(b"\n")[0])
        final = json.loads(summary)["final"]
        # the box played the judge's assignment: the draw's table 1 of round 1, pushed before the presses
        assert setup["tournament"] == "nakk-demo-saare-2020" and (setup["round"], setup["table"]) == (1, 1)
        drawn = conn.execute("SELECT e1.name, e2.name FROM draw d JOIN entrants e1 ON e1.id=d.a "
                             "JOIN entrants e2 ON e2.id=d.b WHERE d.round_no=1 AND d.table_no=1").fetchone()
        names = [x["name"] for x in setup["sides"]]
        assert names == list(drawn)
        st = S.standings(conn, "nakk-demo-saare-2020")
    finally:
        conn.close()
    assert final[0] > final[1]                                   # the script's A wins: 17 to 10
    rows = {x["name"]: x for x in st["rows"]}
    assert set(rows) == set(names) and st["pending"] == []
    for name, nakks, wins, rank in ((names[0], final[0], 1, 1), (names[1], final[1], 0, 2)):
        assert (rows[name]["nakks"], rows[name]["wins"], rows[name]["rank"]) == (nakks, wins, rank), name
    srv = Served(db)
    try:
        home = srv.get("/?lang=en")[1]
        for name, nakks, wins, rank in ((names[0], final[0], 1, 1), (names[1], final[1], 0, 2)):
            assert (_cell(home, name, "nakks"), _cell(home, name, "wins"), _cell(home, name, "rank")) == \
                (str(nakks), str(wins), str(rank)), name
        assert 'data-result="%s"' % rid in srv.get("/results")[1]
        match = srv.get("/match/%s?lang=en" % rid)[1]
        assert 'final-score">%d<' % final[0] in match and 'final-score">%d<' % final[1] in match
        assert "pokk replay" in match and "karvane" in match.lower()
    finally:
        srv.close()
    # run again on the same database: the tournament is reused, round 2 drawn and played
    r = subprocess.run([NAKK, "demo", "--db", db], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "tournament nakk-demo-saare-2020 reused, 2 entrants; round 2 drawn" in r.stdout
    conn = store.open_db(db)
    try:
        st = S.standings(conn, "nakk-demo-saare-2020")
    finally:
        conn.close()
    assert st["round"] == 2 and sorted(x["played"] for x in st["rows"]) == [2, 2]
    assert sum(x["nakks"] for x in st["rows"]) == 2 * sum(final)


def test_serve_says_when_it_listens_beyond_this_laptop_and_answers_head(tmp_path):
    """The warning goes by the address bound: 0.0.0.0 reaches the hall, 127.0.0.2 only this machine."""
    import urllib.request
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    port = free_port()
    # 0.0.0.0 listens on every address of this machine; the test talks to it on 127.0.0.1 only
    p = subprocess.Popen([NAKK, "serve", "--db", db, "--host", "0.0.0.0", "--port", str(port)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = p.stdout.readline()
        second = p.stdout.readline()
        assert first.startswith("nakk serve: %s on http://0.0.0.0:%d/" % (db, port)), first
        assert "anyone on the hall's network can read these pages" in second
        req = urllib.request.Request("http://127.0.0.1:%d/results" % port, method="HEAD")
        r = wait_for(lambda: _try(req), 20, "the server")
        assert r.status == 200 and r.read() == b""
    finally:
        p.terminate()
        p.wait(10)
        p.stdout.close()
        p.stderr.close()
    # on the loopback address it says nothing of the hall's network
    p = subprocess.Popen([NAKK, "serve", "--db", db, "--host", "127.0.0.2", "--port", str(port)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().startswith("nakk serve: %s on http://127.0.0.2:%d/" % (db, port))
        wait_for(lambda: _try(urllib.request.Request("http://127.0.0.2:%d/results" % port)), 20, "the server")
        p.terminate()
        rest = p.communicate(timeout=10)[0]
        assert "hall's network" not in rest
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def _try(req):
    import urllib.request
    try:
        return urllib.request.urlopen(req, timeout=2)
    except OSError:
        return None
