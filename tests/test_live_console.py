"""The judge's console takes live scores too (docs/live.md): `nakk judge --live` runs the live server beside the
console, a Pico W box (simulated) plays against it, its entries are stored once and the evening page shows each
table's live score, deal count, time since its last entry and a quiet table's flag; two live servers on one
database store an event once, and one port is one server's."""
import json
import os
import re
import time

import httpx2

import boxes
from consolekit import Judge, app_for, client, login
from hallkit import free_port, hall_tournament
from nakk.event import parse
from nakk.match import Match
from nakk_host import cli, live, store
from nakk_host.simulator import Simulator, dump_events, parse_keys, play
from test_live import LIVE_HEAP, _Conn, live_rows, wait_for
from test_live_hall import live_match


def test_the_evening_page_shows_each_table_s_live_score_and_flags_a_quiet_one(tmp_path):
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    t, tables = hall_tournament(conn, n=6, played=0)
    now = time.time()
    fresh = live_match(conn, t["code"], 1, tables[0], 3, "box-1", now)
    old = live_match(conn, t["code"], 2, tables[1], 1, "box-2", now - 1200)    # 20 minutes without an entry
    conn.close()
    c = client(app_for(db, quiet_s=600))
    assert login(c).status_code == 303
    html = c.get("/").text
    rows = {int(m.group(1)): m.group(2) for m in re.finditer(r'<tr data-table="(\d+)" data-room="0"(.*?)</tr>',
                                                             html, re.S)}
    one, two = rows[1], rows[2]
    assert 'data-result="f000000000000001-1"' in one and 'data-quiet="0"' in one
    assert '<span class="live-score">%s</span>' % " : ".join(str(x) for x in fresh["score"]) in one
    assert '<span class="live-deals">3</span>' in one and "vaikne" not in one
    assert 'data-result="f000000000000002-1"' in two and 'data-quiet="1"' in two and "vaikne" in two
    assert '<span class="live-deals">1</span>' in two
    assert '<span class="live-score">%s</span>' % " : ".join(str(x) for x in old["score"]) in two
    assert int(two.split('data-age="')[1].split('"')[0]) >= 1200
    assert "data-result" not in rows[3] and "live-elsewhere" not in html     # no box plays table 3
    # the live JSON the page polls: the same while nothing comes (the age is the page's to count)
    s1, s2 = c.get("/api/state").text, c.get("/api/state").text
    assert s1 == s2
    by_table = {r["table"]: r["live"] for r in json.loads(s1)["tables"]}
    assert by_table[2]["quiet"] and not by_table[1]["quiet"] and by_table[3] is None


def test_nakk_judge_takes_a_pico_w_box_s_entries_once_and_shows_them(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    judge = Judge(db, dict(os.environ), "--live", "127.0.0.1:%d" % free_port())
    try:
        said = judge.proc.stdout.readline()
        m = re.match(r"nakk: live scores from the Pico W boxes on (127\.0\.0\.1:\d+) \(only boxes this judge "
                     r"paired\)\n$", said)
        assert m, said
        where = m.group(1)
        # one port, one server: `nakk serve --live` there says so in one line and stops
        assert cli.main(["serve", "--db", db, "--port", str(free_port()), "--live", where]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("nakk: port %s on 127.0.0.1 is taken" % where.split(":")[1])
        image, fs_id, key = boxes.paired_box(tmp_path, "laud1", db, count=1, live=where)
        with Simulator(image, register=False, heap=LIVE_HEAP) as sim:
            sim.press("OK", long=True)            # the finished match answered: the start screen
            play(sim, parse_keys("OK OK OK OK  A B A B A"))
            mine = {"%s-%d" % (fs_id, n): dump_events(image, n) for n in (1, 2)}
            total = sum(len(v) for v in mine.values())
            wait_for(lambda: len(live_rows(db)) >= total, "every event stored by nakk judge's listener")
        rows = live_rows(db)
        got = {}
        for rid, seq, ev in rows:
            got.setdefault(rid, []).append(ev)
            assert seq == len(got[rid])
        assert got == {rid: [bytes(e) for e in evs] for rid, evs in mine.items()}      # each once, in order
        m2 = Match()
        for e in mine["%s-2" % fs_id]:
            m2.apply(parse(e))
        web = httpx2.Client(base_url=judge.url, headers={"Origin": judge.url.rstrip("/")}, timeout=10)
        pre = re.search(r'name="pre" value="([^"]+)"', web.get("/login").text).group(1)
        assert web.post("/login", data={"pre": pre, "code": judge.code}).status_code == 303
        html = web.get("/").text
        web.close()
        row = html.split('data-result="%s-2"' % fs_id)[1].split("</tr>")[0]      # no tournament: "elsewhere"
        assert '<span class="live-score">%s</span>' % " : ".join(str(x) for x in m2.summary()["score"]) in row
        assert '<span class="live-deals">%d</span>' % m2.summary()["deals"] in row and m2.summary()["deals"] > 0
        assert 'data-result="%s-1"' % fs_id not in html     # the box's older match: not what it plays now
    finally:
        judge.close()


def test_two_live_servers_on_one_database_store_an_event_once(tmp_path):
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    a, where_a = live.serve_in_thread(db, "127.0.0.1", 0, log=lambda s: None)
    b, where_b = live.serve_in_thread(db, "127.0.0.1", 0, log=lambda s: None)
    try:
        image, fs_id, key = boxes.paired_box(tmp_path, "laud2", db, count=1)
        dev = boxes.sim_device_id(image)
        ev = dump_events(image, 1)[0]
        rid = "%s-1" % fs_id
        from nakk.link import proto
        from nakk.link.sign import hmac_sha256
        answers = []
        for where in (where_a, where_b):       # the same event to both (a box re-paired to the other port)
            c = _Conn(where)
            h = c.ask(proto.request(1, "hello", {"device": dev, "fs_id": fs_id, "nonce": "abcdefgh21"}))
            mac = hmac_sha256(key, proto.live_msg(h["challenge"], 2, dev, rid, 1, ev)).hex()
            answers.append(c.ask(proto.request(2, "event", {"rid": rid, "seq": 1, "ev": ev.decode(), "mac": mac})))
            c.close()
        assert [r["next"] for r in answers] == [2, 2] and all(r["ok"] for r in answers)
        assert (a.stored, b.stored, b.again) == (1, 0, 1)
        # the race: a server that looked (seq 1 wanted) before the other stored it writes, finds the row there
        # and stores nothing ((result_id, seq) is live_events' key)
        third = live.LiveServer(db)
        assert third._add(rid, dev, fs_id, 1, 1, ev) is False and third.stored == 0
        third.conn.close()
        assert live_rows(db) == [(rid, 1, bytes(ev))]
    finally:
        a.stop()
        b.stop()


def test_nakk_judge_refuses_a_bad_live_address_before_it_makes_the_database(tmp_path, capsys):
    db = str(tmp_path / "judge.db")
    assert cli.main(["judge", "--db", db, "--no-browser", "--live", "saal:seitse"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["nakk: --live 'saal:seitse': HOST:PORT, e.g. 192.168.8.10:7373"] and not os.path.exists(db)
    assert cli.main(["judge", "--db", db, "--no-browser", "--quiet-minutes", "0"]) == 2
    assert capsys.readouterr().err.startswith("nakk: --quiet-minutes") and not os.path.exists(db)
