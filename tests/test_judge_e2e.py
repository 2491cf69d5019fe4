"""The judge's evening end to end on simulated boxes: `nakk` commands, the real firmware on the unix port, SQLite.

Players are imported from a Windows-1257 CSV, three rounds are drawn with
`nakk round`, each table's assignment is put on its box's flash image with
`nakk assign --image` (where the link puts it), the boxes play through their
buttons, and each finished match is read back from the flash by the
firmware's own reader and stored through intake.store_result. That last
step stands in for `nakk sync` (the serial link is another branch's work):
the bytes are the box's own stored records, but they do not cross a pty here.
"""

import os

import pytest

from nakk_host import cli
from nakk_host import simulator as Sim
from nakk_host import standings as S
from nakk_host import tournament as T
from nakk_host.intake import store_result
from nakk_host.store import open_db

# keys on the box after it offers the judge's assignment (one OK starts it)
BLIND_PITS = "NEXT NEXT NEXT NEXT"            # the cursor from Trump to Pime pits
A_WINS = "OK  B B  %s A A  %s A A  A B" % (BLIND_PITS, BLIND_PITS)       # B's trump won; A's blind pits twice
B_WINS = "OK  A B  %s B B  %s B B  A B" % (BLIND_PITS, BLIND_PITS)       # A's trump beaten; B's blind pits twice
# by hand from the rules: trump 2, beaten +2, blind pits 8, prillid (loser at 0) +2 at the end
A_WINS_FINAL = (2 * 8, 2)                     # A: 16; B: 2 (no prillid: B has a nakk)
B_WINS_FINAL = (0, (2 + 2) + 2 * 8 + 2)       # B: 20 + prillid 2 = 22; A: 0


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    (tmp_path / "xdg").mkdir()
    monkeypatch.setenv("NAKK_DB", str(tmp_path / "judge.db"))
    monkeypatch.setenv("NAKK_JUDGE", "Kohtunik Kalju")
    return tmp_path


def nakk(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


def play(image, keys):
    """Play a match on a box through its buttons; the box's stored records of it, read back
    from its flash by the firmware's own reader."""
    with Sim.Simulator(image, register=False) as sim:
        Sim.play(sim, Sim.parse_keys(keys))
    return b"\n".join(Sim.dump_events(image))


def test_a_stage_on_simulated_boxes(env, capsys):
    csv_path = env / "osalejad.csv"
    csv_path.write_bytes("nimi;mängija;mängija;klubi\n"
                         "Mets/Tamm;Mari Mets;Jaan Tamm;Kihelkonna\n"
                         "Saar/Kask;Õie Saar;Jüri Kask;Mustjala\n"
                         "Lõhmus/Pärn;Ülle Lõhmus;Šiim Pärn;Kärla\n"
                         "Kuusk/Vaher;Ants Kuusk;Žanna Vaher;Kihelkonna\n".encode("cp1257"))
    nakk(capsys, "tournament", "new", "Saare mäng, 1. etapp", "--ruleset", "saare-2020", "--rounds", "3",
         "--date", "2026-12-01", "--code", "etapp1")
    out = nakk(capsys, "players", "import", str(csv_path))
    assert "Windows-1257" in out and "4 pairs added" in out
    conn = open_db(os.environ["NAKK_DB"])
    t = T.get(conn, "etapp1")
    names = {e["name"] for e in __import__("nakk_host.players", fromlist=["x"]).entrants(conn, t)}
    assert names == {"Mets/Tamm", "Saar/Kask", "Lõhmus/Pärn", "Kuusk/Vaher"}

    expect = {n: {"wins": 0, "nakks": 0, "against": 0} for n in names}
    met = set()
    for rn in (1, 2, 3):
        out = nakk(capsys, "round", "--seed", "11")
        assert "round %d drawn (round-robin" % rn in out
        tables = S.round_tables(conn, t, rn)["tables"]
        assert [tb["state"] for tb in tables] == ["waiting", "waiting"]
        for tb in tables:
            image = str(env / ("box%d.img" % tb["table"]))
            nakk(capsys, "assign", "--round", str(rn), "--table", str(tb["table"]), "--image", image)
            assert S.round_tables(conn, t, rn)["tables"][tb["table"] - 1]["state"] == "playing"
            keys, final = (A_WINS, A_WINS_FINAL) if tb["table"] == 1 else (B_WINS, B_WINS_FINAL)
            if rn > 1:
                keys = "OK:long " + keys      # the box still shows its last result: long OK, a new match
            raw = play(image, keys)
            assert b'"tournament":"etapp1"' in raw and b'"round":%d' % rn in raw
            _, status, problems, new = store_result(conn, "box%d-r%d" % (tb["table"], rn), raw, "box")
            assert (status, problems, new) == ("verified", [], True)
            a, b = [s["name"] for s in tb["sides"]]
            met.add(frozenset((a, b)))
            winner = a if final[0] > final[1] else b
            expect[a]["nakks"] += final[0]
            expect[a]["against"] += final[1]
            expect[b]["nakks"] += final[1]
            expect[b]["against"] += final[0]
            expect[winner]["wins"] += 1
        assert [tb["state"] for tb in S.round_tables(conn, t, rn)["tables"]] == ["verified", "verified"]
    assert len(met) == 6                                   # a round robin: everyone met everyone once

    st = S.standings(conn, t)
    assert st["pending"] == []
    got = {r["name"]: {"wins": r["wins"], "nakks": r["nakks"], "against": r["against"]} for r in st["rows"]}
    assert got == expect
    # ranked by wins, then the difference, then the nakks won
    order = sorted(expect, key=lambda n: (-expect[n]["wins"], -(expect[n]["nakks"] - expect[n]["against"]),
                                          -expect[n]["nakks"]))
    keyed = [(expect[n]["wins"], expect[n]["nakks"] - expect[n]["against"], expect[n]["nakks"]) for n in order]
    assert [(r["wins"], r["diff"], r["nakks"]) for r in st["rows"]] == keyed
    out = nakk(capsys, "standings")
    assert "partii wins, then difference of nakks" in out


# Turniirisasku: 2 boards a match; hand values from sasku-tournament.md: trump made 2, ruutu made 4,
# trump beaten: 4 to the defenders
ROOM1 = "OK  A A  NEXT A A  A B"            # team X (A, NS): trump 2, ruutu 4
ROOM2 = "OK  A B  NEXT B B  A B"            # team Y's pair makes trump, X (B, EW) beats it: 4; X's ruutu: 4


def test_a_sasku_team_match_over_two_simulated_rooms(env, capsys):
    nakk(capsys, "tournament", "new", "Turniirisasku", "--ruleset", "sasku", "--rounds", "1", "--boards", "2",
         "--code", "sasku1")
    for team, players in (("Tiigrid", ("T1", "T2", "T3", "T4")), ("Karud", ("K1", "K2", "K3", "K4"))):
        argv = ["players", "add", team]
        for p in players:
            argv += ["--player", p]
        nakk(capsys, *argv)
    nakk(capsys, "round", "--seed", "3")
    conn = open_db(os.environ["NAKK_DB"])
    t = T.get(conn, "sasku1")
    tb = S.round_tables(conn, t, 1)["tables"][0]
    x, y = [s["name"] for s in tb["sides"]]           # room 1: x's pair 1 NS (A); room 2: y's pair 1 NS (A)
    for room, keys in ((1, ROOM1), (2, ROOM2)):
        image = str(env / ("room%d.img" % room))
        nakk(capsys, "assign", "--table", "1", "--room", str(room), "--image", image)
        raw = play(image, keys)
        assert b'"room":%d' % room in raw and b'"team":"%s"' % x.encode() in raw
        assert store_result(conn, "room%d" % room, raw, "box")[1] == "verified"
        if room == 1:
            assert S.round_tables(conn, t, 1)["tables"][0]["state"] == "playing"
    m = S.matches(conn, t)[0]
    assert m["state"] == "verified"
    x_points = 2 + 4 + 4 + 4
    assert m["final"] == [x_points, 0]
    st = S.standings(conn, t)
    rows = {r["name"]: r for r in st["rows"]}
    assert (rows[x]["mp"], rows[x]["points"], rows[x]["wins"]) == (2, x_points, 1)
    assert (rows[y]["mp"], rows[y]["points"], rows[y]["against"]) == (0, 0, x_points)
    assert st["rows"][0]["name"] == x


def test_rescue_keeps_the_deals_of_a_dead_box(env, capsys):
    nakk(capsys, "tournament", "new", "Etapp", "--ruleset", "saare-2020", "--rounds", "1", "--code", "e")
    nakk(capsys, "players", "add", "Mets/Tamm")
    nakk(capsys, "players", "add", "Saar/Kask")
    nakk(capsys, "round", "--seed", "1")
    image = str(env / "box.img")
    nakk(capsys, "assign", "--table", "1", "--image", image)
    sim = Sim.Simulator(image, register=False)
    try:
        Sim.play(sim, Sim.parse_keys("OK  A A  NEXT B B"))      # A +2; B's ruutu +4; then the box dies
    finally:
        sim.kill()
    out = nakk(capsys, "close", "--round", "1", "--table", "1", "--image", image, "--forfeit", "B",
               "--why", "box dead, B had to leave")
    assert "3 events kept" in out
    conn = open_db(os.environ["NAKK_DB"])
    m = S.matches(conn, "e")[0]
    assert m["state"] == "verified" and m["final"] == [2, 4]
    ents = {e["id"]: e["name"] for e in __import__("nakk_host.players", fromlist=["x"]).entrants(conn, T.get(conn, "e"))}
    a_name = S.round_tables(conn, "e", 1)["tables"][0]["sides"][0]["name"]
    assert ents[m["winner"]] == a_name                  # B forfeited: A wins
    hist = nakk(capsys, "history")
    assert "box dead, B had to leave" in hist
