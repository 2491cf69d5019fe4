"""The hall shows the live scores (docs/live.md): each table's score, deals and time since its last entry, a quiet
table flagged, and a provisional column on the standings, marked as such; the Wi-Fi password on no page."""
import json
import time

from hallkit import Served, hall_tournament
from nakk.event import encode
from nakk.match import Match
from nakk_host import livestore, store


def live_match(conn, code, table, names, deals, dev, at):
    """A match a box is playing, as the live server stores it: its setup and `deals` deals."""
    m = Match()
    evs = [{"type": "setup", "v": 1, "ruleset": "saare-2020", "tournament": code, "table": table, "round": 1,
            "sides": [{"id": "A", "name": names[0]}, {"id": "B", "name": names[1]}]}]
    for i in range(deals):
        evs.append({"type": "deal", "game": "suit", "maker": "AB"[i % 2], "result": "win", "winner": "A"})
    rid = "f%015d-1" % table
    for i, ev in enumerate(evs):
        ev["seq"] = i + 1
        m.apply(ev)
        livestore.add_event(conn, rid, dev, rid[:16], 1, i + 1, encode(ev), at=at)
    return m.summary()


def test_tables_and_standings_show_live_scores_and_flag_a_quiet_table(tmp_path):
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    t, tables = hall_tournament(conn, n=4, played=0)
    store.save_pairing(conn, "box-1", "f000000000000001", b"k" * 32, "laud 1")
    store.save_pairing(conn, "box-2", "f000000000000002", b"k" * 32, "laud 2")
    livestore.save_wifi(conn, "box-1", {"ssid": "Saal", "password": "Salajane-Õhtu-42", "live": "10.0.0.1:7373"})
    now = time.time()
    fresh = live_match(conn, t["code"], 1, tables[0], 3, "box-1", now)
    old = live_match(conn, t["code"], 2, tables[1], 1, "box-2", now - 600)     # 10 minutes without an entry
    conn.close()
    srv = Served(db, "--quiet-minutes", "5")
    try:
        _, html = srv.get("/tables?t=%s" % t["code"])
        rows = html.split('class="live-row')[1:]
        assert len(rows) == 2
        one = [r for r in rows if 'data-result="f000000000000001-1"' in r][0]
        two = [r for r in rows if 'data-result="f000000000000002-1"' in r][0]
        assert " : ".join(str(x) for x in fresh["score"]) in one and 'data-quiet="0"' in one
        assert '<td class="num live-deals">3</td>' in one
        assert 'data-quiet="1"' in two and "vaikne" in two and '<td class="num live-deals">1</td>' in two
        assert int(two.split('data-age="')[1].split('"')[0]) >= 600
        _, html = srv.get("/?t=%s" % t["code"])
        assert "Ajutine*" in html and "ei ole tulemus" in html
        by_name = {}
        for row in html.split("<tr data-name=")[1:]:
            name = json.loads(row.split(">")[0])
            cell = row.split('c-provisional provisional">')[1].split("</td>")[0]
            by_name[name] = cell
        assert "(%d)" % fresh["score"][0] in by_name[tables[0][0]]
        assert "(%d)" % old["score"][1] in by_name[tables[1][1]]
        # the standings themselves are untouched by live scores: nobody has played a counted match
        assert "Provisional*" in srv.get("/?t=%s&lang=en" % t["code"])[1]
        for path in ("/", "/tables", "/draw", "/results", "/projector"):
            assert "Salajane" not in srv.get(path + "?t=%s" % t["code"])[1]
    finally:
        srv.close()


def test_a_synced_result_is_never_overridden_by_the_live_score(tmp_path):
    from hallkit import store_result
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    t, tables = hall_tournament(conn, n=4, played=0)
    live_match(conn, t["code"], 1, tables[0], 3, "box-1", time.time())
    raw = b"\n".join(livestore.events(conn, "f000000000000001-1"))
    store_result(conn, raw, "f000000000000001-1", source="box")
    assert livestore.provisional(conn, t["code"]) == []          # synced: no longer provisional
    (row,) = livestore.tables(conn)
    assert row["synced"]
    conn.close()


def test_nakk_serve_live_says_where_it_listens_and_takes_only_paired_boxes(tmp_path):
    import socket
    import subprocess
    import sys
    from hallkit import free_port
    from nakk.link import proto
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    port = free_port()
    srv = Served(db, "--live", "127.0.0.1:%d" % port)
    try:
        line = srv.proc.stdout.readline()
        assert line.strip() == ("nakk: live scores from the Pico W boxes on 127.0.0.1:%d (only boxes this judge "
                                "paired)" % port)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(proto.request(1, "hello", {"device": "sim-0123456789ab", "fs_id": "0" * 16,
                                                 "nonce": "abcdefgh"}))
            r = proto.decode_frame(s.makefile("rb").readline())
        assert r["ok"] is False and r["error"] == proto.E_NOT_PAIRED
    finally:
        srv.close()
    r = subprocess.run([sys.executable, "-m", "nakk_host.cli", "serve", "--db", db, "--live", "nowhere"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout == "" and r.stderr.startswith("nakk: --live 'nowhere': HOST:PORT")
