"""The draw as the hall sees it: the printed page (header, round, pair numbers), and Turniirisasku's rooms (which
team's pair sits in which room) on the screen, the printed page and the hall; a team match half in says which room."""

import re

import pytest

from hallkit import Served
from judge_kit import db, stage, store
from nakk_host import assign as A
from nakk_host import cli
from nakk_host import draw as D
from nakk_host import players as P
from nakk_host import standings as S
from nakk_host import tournament as T


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NAKK_DB", str(tmp_path / "judge.db"))
    monkeypatch.setenv("NAKK_JUDGE", "Kohtunik Kalju")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


def _cells(html, tag):
    body = html.split("<%s>" % ("thead" if tag == "th" else "tbody"), 1)[1]
    return [re.findall(r"<%s[^>]*>([^<]*)</%s>" % (tag, tag), row) for row in body.split("</tr>")[:-1]]


def test_the_printed_draw_of_round_3(env, capsys):
    conn = db(env)
    t = stage(conn, ["Mets", "Tamm", "Saar", "Kask"], rounds=3, code="e")
    for _ in range(3):
        D.draw_next(conn, t)                     # a round robin: drawn ahead
    run(capsys, "round", "--show", "3", "--html", "draw3.html")
    html = (env / "draw3.html").read_text(encoding="utf-8")
    assert _cells(html, "th")[0] == ["Laud / table", "A", "B"]
    assert "<h1>Etapp: 3. voor / round 3</h1>" in html and "after round" not in html
    rows = _cells(html, "td")
    by_no = {e["no"]: e["name"] for e in P.entrants(conn, t)}
    drawn = S.round_tables(conn, t, 3)["tables"]
    assert rows == [[str(tb["table"])] + ["%s (%d)" % (s["name"], s["no"]) for s in tb["sides"]] for tb in drawn]
    assert all(by_no[s["no"]] == s["name"] for tb in drawn for s in tb["sides"])


def _sasku(conn):
    tk = T.create(conn, "Turniirisasku", "sasku", "teams", 1, boards=2, code="ts")
    P.add_many(conn, tk, [{"name": n, "players": [n + str(i) for i in range(1, 5)]} for n in ("Tiigrid", "Karud")])
    D.draw_next(conn, tk, seed=3)
    return T.get(conn, "ts")


def test_turniirisasku_says_which_pair_sits_in_which_room(env, capsys):
    conn = db(env)
    tk = _sasku(conn)
    drawn = conn.execute("SELECT room, a, b FROM draw WHERE tournament_id=? ORDER BY room", (tk["id"],)).fetchall()
    team = {e["id"]: e for e in P.entrants(conn, tk)}
    # room 1: side A is the first team's pair 1, side B the other's pair 2; room 2 the other way round
    want = {room: ("%s 1 (%d)" % (team[a]["name"], team[a]["no"]), "%s 2 (%d)" % (team[b]["name"], team[b]["no"]))
            for room, a, b in drawn}
    assert want[1][0].split(" 1 ")[0] == want[2][1].split(" 2 ")[0]
    # the assignment each room's box gets names the same pairs
    for room in (1, 2):
        rec = A.assignment(conn, tk, 1, 1, room)
        assert [s["name"] for s in rec["sides"]] == [x.rsplit(" (", 1)[0] for x in want[room]]
    out = run(capsys, "round", "--show", "--html", "draw.html")
    for room, (a, b) in want.items():
        assert re.search(r"│\s+1 │ %d\s+│ %s\s+│ %s\s+│" % (room, re.escape(a), re.escape(b)), out), out
    rows = _cells((env / "draw.html").read_text(encoding="utf-8"), "td")
    assert rows == [["1", str(room), a, b] for room, (a, b) in sorted(want.items())]
    # one room in, the other still playing: the standings say which
    rec = A.assignment(conn, tk, 1, 1, 1)
    evs = [dict({k: v for k, v in rec.items() if k != "clock"}, seq=1, type="setup", v=1)]
    for board in (1, 2):
        evs.append({"seq": len(evs) + 1, "type": "deal", "board": board, "contract": "suit", "maker": "A",
                    "eyes": [90, 30]})
    for side in "AB":
        evs.append({"seq": len(evs) + 1, "type": "confirm", "by": side})
    got = store(conn, "room1", evs)
    assert got[1] == "verified", got
    A.pushed(conn, tk, 1, 1, 2, A.assignment(conn, tk, 1, 1, 2), device_id="box-7")
    out = run(capsys, "standings", "-t", "ts")
    assert "round 1 table 1 (room 1 verified, room 2 playing)" in out
    run(capsys, "export", "-t", "ts", "--out", "out")
    assert "round 1 table 1 (room 1 verified, room 2 playing)" in (env / "out" / "standings.html").read_text()
    conn.close()
    srv = Served(str(env / "judge.db"))
    try:
        page = srv.get("/draw?t=ts")[1]
        for room, (a, b) in want.items():
            cell = page.split('data-room="%d">' % room, 1)[1].split("</div>", 1)[0]
            assert cell.startswith("Tuba %d: " % room), cell
            assert a.split(" (")[0] in cell and b.split(" (")[0] in cell, cell
        pending = srv.get("/?t=ts")[1].split('class="pending"', 1)[1].split("</ul>", 1)[0]
        assert re.search(r"Tuba 1 <span class=\"status verified\">.*Tuba 2 <span class=\"status playing\">", pending)
    finally:
        srv.close()
