"""The judge's evening end to end on simulated boxes: `nakk` commands, the real firmware on the unix port, SQLite.

Players are imported from a Windows-1257 CSV, three rounds are drawn with
`nakk round`, each table's assignment is pushed to its box over the serial
link (`nakk assign --port`, the simulator's pty, pyserial), the players start
it with one OK and play it through the buttons, and `nakk sync --port` pulls
the finished match through the same link into the judge's database. The
boxes are paired by writing the judge's key where the link keeps it
(tests/boxes.py, as the sync tests do): pairing itself is tested there.
"""

import json
import os
import secrets

import pytest

import boxes
from nakk_host import cli
from nakk_host import players as P
from nakk_host import simulator as Sim
from nakk_host import standings as S
from nakk_host import store
from nakk_host import tournament as T
from nakk_host.store import open_db

# keys on the box after it offers the judge's assignment (one OK starts it)
# a deal (issue 14): the maker's button on "<game> · võit" when the maker won; else OK, then the
# winner's button on the result ("Kaotas": the maker lost)
BLIND_PITS = "NEXT NEXT NEXT"                 # the cursor from Trump to Pime pits
A_WINS = "OK  B  %s A  %s A  A B" % (BLIND_PITS, BLIND_PITS)      # B's trump won; A's blind pits twice
B_WINS = "OK  OK B  %s B  %s B  A B" % (BLIND_PITS, BLIND_PITS)   # A's trump beaten; B's blind pits twice
# by hand from the rules: trump 2, beaten +2, blind pits 8, prillid (loser at 0) +2 at the end
A_WINS_FINAL = (2 * 8, 2)                     # A: 16; B: 2 (no prillid: B has a nakk)
B_WINS_FINAL = (0, (2 + 2) + 2 * 8 + 2)       # B: 20 + prillid 2 = 22; A: 0


@pytest.fixture
def env(tmp_path, monkeypatch, own_registry):
    monkeypatch.setenv("NAKK_DB", str(tmp_path / "judge.db"))
    monkeypatch.setenv("NAKK_JUDGE", "Kohtunik Kalju")
    return tmp_path


def nakk(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    assert rc == 0, out.err + out.out
    return out.out


def paired_box(path, name):
    """A fresh box (flash image) paired with the judge's database: its key where the link keeps it."""
    image = str(path / (name + ".img"))
    key = secrets.token_bytes(32)
    fs_id, _ = boxes.fill(image, 0, key)
    conn = store.open_db(os.environ["NAKK_DB"])
    store.save_pairing(conn, boxes.sim_device_id(image), fs_id, key, name)
    conn.close()
    return image


def play_at_table(capsys, image, assign_args, keys):
    """Push the table's assignment to its box over the link, play the match through the buttons
    (the first OK takes the assignment), sync it over the link. Returns the box's stored events."""
    with Sim.Simulator(image, register=False) as sim:
        out = nakk(capsys, "assign", "--port", sim.tty, *assign_args)
        assert "sent to box %s" % boxes.sim_device_id(image) in out
        Sim.play(sim, Sim.parse_keys(keys))
        raw = b"\n".join(Sim.dump_events(image))
        out = nakk(capsys, "sync", "--db", os.environ["NAKK_DB"], "--port", sim.tty, "--json")
        assert '"new": [' in out and '"rejected": []' in out
    return raw


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
    names = {e["name"] for e in P.entrants(conn, t)}
    assert names == {"Mets/Tamm", "Saar/Kask", "Lõhmus/Pärn", "Kuusk/Vaher"}
    images = {1: paired_box(env, "laud1"), 2: paired_box(env, "laud2")}

    expect = {n: {"wins": 0, "nakks": 0, "against": 0} for n in names}
    met = set()
    for rn in (1, 2, 3):
        out = nakk(capsys, "round", "--seed", "11")
        assert "round %d drawn (round-robin" % rn in out
        tables = S.round_tables(conn, t, rn)["tables"]
        assert [tb["state"] for tb in tables] == ["waiting", "waiting"]
        for tb in tables:
            keys, final = (A_WINS, A_WINS_FINAL) if tb["table"] == 1 else (B_WINS, B_WINS_FINAL)
            raw = play_at_table(capsys, images[tb["table"]], ["--round", str(rn), "--table", str(tb["table"])],
                                keys)
            assert b'"tournament":"etapp1"' in raw and b'"round":%d' % rn in raw
            a, b = [s["name"] for s in tb["sides"]]
            setup = json.loads(raw.split(b"\n")[0])
            assert [x["name"] for x in setup["sides"]] == [a, b]       # who plays whom, as the box showed it
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
    # and the printed final standings: the CSV for the club's spreadsheet says the same
    nakk(capsys, "export", "--out", str(env / "etapp1"))
    lines = (env / "etapp1" / "standings.csv").read_bytes().decode("utf-8-sig").splitlines()
    cells = [line.split(";") for line in lines[1:]]
    assert [int(c[5]) for c in cells] == [expect[n]["wins"] for n in order]            # ranked as above
    assert {(c[2], int(c[5]), int(c[8])) for c in cells} == {(n, expect[n]["wins"], expect[n]["nakks"])
                                                             for n in expect}
    assert "Lõhmus/Pärn" in (env / "etapp1" / "standings.html").read_text(encoding="utf-8")


# Turniirisasku: 2 boards a match; hand values from the Turniirisasku rules (docs/rules.md): trump made 2, ruutu made 4,
# trump beaten: 4 to the defenders
# (a board as the box enters it: the pair that made the game and won presses its button; OK opens the
# other results, "Kaotas" first, then the winner's button)
ROOM1 = "OK  A  NEXT A  A B"              # team X (A, NS): trump 2, ruutu 4
ROOM2 = "OK  OK B  NEXT B  A B"           # team Y's pair (A) makes trump, X (B, EW) beats it: 4; X's ruutu: 4


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
        image = paired_box(env, "room%d" % room)
        raw = play_at_table(capsys, image, ["--table", "1", "--room", str(room)], keys)
        setup = json.loads(raw.split(b"\n")[0])
        assert setup["room"] == room and setup["boards"] == [1, 2]
        assert [s["team"] for s in setup["sides"]] == ([x, y] if room == 1 else [y, x])
        if room == 1:
            assert S.round_tables(conn, t, 1)["tables"][0]["rooms"][1]["state"] == "waiting"
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


def one_round(capsys, code, pairs=("Mets/Tamm", "Saar/Kask"), seed=1):
    """A one-round Saare mäng tournament with these pairs, its round drawn, as the judge types it."""
    nakk(capsys, "tournament", "new", "Etapp", "--ruleset", "saare-2020", "--rounds", "1", "--code", code)
    for n in pairs:
        nakk(capsys, "players", "add", n)
    nakk(capsys, "round", "--seed", str(seed))


def test_rescue_keeps_the_deals_of_a_dead_box(env, capsys):
    # the box's flash is read by the firmware's own reader (nakk close --image), not over the link: the box is dead
    one_round(capsys, "e")
    image = paired_box(env, "laud1")
    sim = Sim.Simulator(image, register=False)
    try:
        nakk(capsys, "assign", "--table", "1", "--port", sim.tty)
        Sim.play(sim, Sim.parse_keys("OK  A  NEXT B"))      # A's trump +2; B's ruutu +4; then the box dies
    finally:
        sim.kill()
    out = nakk(capsys, "close", "--round", "1", "--table", "1", "--image", image, "--forfeit", "B",
               "--why", "box dead, B had to leave")
    assert "3 events kept" in out
    conn = open_db(os.environ["NAKK_DB"])
    m = S.matches(conn, "e")[0]
    assert m["state"] == "verified" and m["final"] == [2, 4]
    ents = {e["id"]: e["name"] for e in P.entrants(conn, T.get(conn, "e"))}
    a_name = S.round_tables(conn, "e", 1)["tables"][0]["sides"][0]["name"]
    assert ents[m["winner"]] == a_name                  # B forfeited: A wins
    hist = nakk(capsys, "history")
    assert "box dead, B had to leave" in hist


def test_a_match_no_assignment_asked_for_is_synced_and_placed(env, capsys):
    one_round(capsys, "p")
    image = paired_box(env, "laud1")
    with Sim.Simulator(image, register=False) as sim:
        # set up by hand on the box: Saare mäng 2020, table 1, round 1, A1 shuffles; A wins 16:2
        Sim.play(sim, Sim.parse_keys("OK OK OK OK  B  %s A  %s A  A B" % (BLIND_PITS, BLIND_PITS)))
        nakk(capsys, "sync", "--db", os.environ["NAKK_DB"], "--port", sim.tty)
    conn = open_db(os.environ["NAKK_DB"])
    out = nakk(capsys, "standings")
    assert "results to place" in out and "no tournament" in out
    rid = S.unassigned_results(conn)[0]["result_id"]
    nakk(capsys, "correct", rid, "--place", "1", "1", "--why", "box 1 was set up by hand")
    m = S.matches(conn, "p")[0]
    assert m["state"] == "verified" and m["final"] == list(A_WINS_FINAL) and m["result_ids"] == [rid]
    assert S.unassigned_results(conn) == []


def test_assign_all_gives_each_box_its_tables_match(env, capsys):
    one_round(capsys, "all", ("Mets/Tamm", "Saar/Kask", "Õun/Pirn", "Kuusk/Vaher"), seed=2)
    images = [paired_box(env, "laud %d" % i) for i in (1, 2)]
    stray = str(env / "stray.img")                       # a box this judge never paired
    sims = [Sim.Simulator(img) for img in images + [stray]]   # registered: found as USB boxes are
    try:
        rc = cli.main(["assign", "--all"])
        out = capsys.readouterr().out
        assert rc == 1 and "not paired with this judge" in out       # the stray box is named, left alone
        conn = open_db(os.environ["NAKK_DB"])
        tables = S.round_tables(conn, "all")["tables"]
        assert [tb["state"] for tb in tables] == ["playing", "playing"]
        for sim, tb in zip(sims, tables):
            Sim.play(sim, Sim.parse_keys("OK"))                       # one OK takes the judge's assignment
    finally:
        for sim in sims:
            sim.close()
    for img, tb in zip(images, tables):
        setup = json.loads(Sim.dump_events(img)[0])
        assert (setup["table"], [x["name"] for x in setup["sides"]]) == (tb["table"],
                                                                          [s["name"] for s in tb["sides"]])
