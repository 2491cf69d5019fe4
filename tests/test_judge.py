"""The judge's acts and the draw: paper sheets, corrections, deductions, disqualification, history, players, Swiss."""

import json
import os
import random

import pytest

from nakk_host import cli
from nakk_host import draw as D
from nakk_host import acts as J
from nakk_host import players as P
from nakk_host import standings as S
from nakk_host import tournament as T
from judge_kit import VALUE, db, saare_events, stage, store


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NAKK_DB", str(tmp_path / "judge.db"))
    monkeypatch.setenv("NAKK_JUDGE", "Kohtunik Kalju")
    return tmp_path


def run(capsys, monkeypatch, argv, stdin=None):
    if stdin is not None:
        import io
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


# ---------------------------------------------------------------- players

def test_csv_encodings_are_detected_and_said():
    text = "nimi;klubi\nÕie/Šiim;Kärla\n"
    assert P.decode(text.encode("utf-8")) == (text, "UTF-8")
    assert P.decode(b"\xef\xbb\xbf" + text.encode("utf-8")) == (text, "UTF-8 with a BOM")
    got, enc = P.decode(text.encode("cp1257"))
    assert got == text and "1257" in enc
    rows = P.parse_csv(got, "stage")
    assert rows == [{"name": "Õie/Šiim", "club": "Kärla", "players": []}]


def test_bad_csv_says_the_line_and_imports_nothing(env, capsys, monkeypatch):
    run(capsys, monkeypatch, ["tournament", "new", "E", "--ruleset", "saare-2020", "--rounds", "2"])
    bad = env / "bad.csv"
    bad.write_text("name,player,player\nA/B,Ann,Bert\nC/D,Carl\n", encoding="utf-8")
    rc, out, err = run(capsys, monkeypatch, ["players", "import", str(bad)])
    assert rc == 1 and err.startswith("nakk: line 3: 1 players; a pair entrant has 2")
    rc, out, err = run(capsys, monkeypatch, ["players", "list"])
    assert "0 entrants" in out


def test_rename_keeps_the_number_and_withdraw_leaves_the_draw(env, capsys, monkeypatch):
    conn = db(env)
    t = stage(conn, ["A", "B", "C", "D", "E"], rounds=2)
    e = P.rename(conn, t, 2, "B uus", "judge", "typo on the sheet")
    assert (e["no"], e["name"], e["key"]) == (2, "B uus", P.key_of("B", ["B 1", "B 2"]))
    P.withdraw(conn, t, 5, "judge", "went home")
    D.draw_next(conn, t, seed=3)
    drawn = [s["no"] for tb in S.round_tables(conn, t)["tables"] for s in tb["sides"]]
    assert sorted(drawn) == [1, 2, 3, 4]
    with pytest.raises(T.TournamentError):
        P.rename(conn, t, 2, "X", "", "why")            # nobody said who


# ---------------------------------------------------------------- paper

def test_paper_sheet_refuses_what_the_box_refuses_and_loses_nothing(env, capsys, monkeypatch):
    run(capsys, monkeypatch, ["tournament", "new", "E", "--ruleset", "saare-2020", "--rounds", "1", "--code", "e"])
    run(capsys, monkeypatch, ["players", "add", "Mets/Tamm"])
    run(capsys, monkeypatch, ["players", "add", "Saar/Kask"])
    run(capsys, monkeypatch, ["round", "--seed", "1"])
    sheet = "\n".join([
        "",                 # deal 1
        "2", "2 B",         # ruutu, its other results; "Jänn" by B: B made it, won with jänn: 4 + 2
        "p bogus A",        # refused by the rules: no such offence
        "",                 # deal 2
        "4", "9",           # blind pits, its other results; 9 is not on the list
        "1",                # "Lost" needs a side (the winner's)
        "u",                # the judge drops this deal: nothing entered, deal 1 kept
        "",
        "4 A",              # blind pits made and won by A: 8
        "",
        "4 A",              # A: 16
        "y",
    ]) + "\n"
    rc, out, err = run(capsys, monkeypatch, ["enter", "--round", "1", "--table", "1", "--why", "box flat"], sheet)
    assert rc == 0, err
    assert "refused (the rules)" in out and "choose 1 to" in out and "needs a side" in out
    assert "deal dropped, nothing entered" in out
    assert "stored as paper-1 (verified)" in out
    conn = db(env)
    m = S.matches(conn, "e")[0]
    assert m["final"] == [2 * VALUE["pime-pits"], VALUE["ruutu"] + 2]
    rc, out, err = run(capsys, monkeypatch, ["enter", "--round", "1", "--table", "1", "--why", "again"], "\nq\n")
    assert rc == 1 and "has a result already (paper-1)" in err and "--void" in err
    run(capsys, monkeypatch, ["correct", "paper-1", "--void", "--why", "typed the wrong table"])
    rc, out, err = run(capsys, monkeypatch, ["enter", "--round", "1", "--table", "1", "--why", "again"], "\nq\n")
    assert rc == 1 and "nothing stored" in err


# ---------------------------------------------------------------- corrections, deductions, history

def _one_round(conn, names):
    t = stage(conn, names, rounds=2, code="c")
    D.draw_next(conn, t, seed=2)
    tables = S.round_tables(conn, t)["tables"]
    pairs = [[s["name"] for s in tb["sides"]] for tb in tables]
    store(conn, "r1t1", saare_events("c", 1, 1, pairs[0], [("suit", "B", "B")] + [("pime-pits", "A", "A")] * 2))
    store(conn, "r1t2", saare_events("c", 1, 2, pairs[1], [("ruutu", "A", "A")] * 4))
    return t, pairs


def test_correction_and_deduction_change_the_standings_and_history_says_why(env, capsys, monkeypatch):
    conn = db(env)
    t, pairs = _one_round(conn, ["Mets", "Tamm", "Saar", "Kask"])
    (a1, b1), (a2, b2) = pairs
    before = {r["name"]: r for r in S.standings(conn, t)["rows"]}
    assert (before[a1]["nakks"], before[b1]["nakks"]) == (16, 2)
    assert (before[a2]["nakks"], before[b2]["nakks"]) == (16 + 2, 0)      # prillid: +2
    rc, out, err = run(capsys, monkeypatch, ["correct", "r1t1", "-t", "c", "--points", "0", "-2", "--why",
                                             "B's trump counted twice on the box"])
    assert rc == 0, err
    rc, out, err = run(capsys, monkeypatch, ["deduct", b2, "-t", "c", "--why", "second warning for noise"])
    assert rc == 0 and "4 deducted" in out
    after = {r["name"]: r for r in S.standings(conn, t)["rows"]}
    assert (after[b1]["nakks"], after[a1]["against"]) == (2 - 2, 2 - 2)
    assert (after[b2]["nakks"], after[b2]["deductions"], after[b2]["diff"]) == (0 - 4, 4, 0 - 4 - 18)
    # the stored result is untouched: a new record, never an edit
    row = conn.execute("SELECT events FROM results WHERE result_id='r1t1'").fetchone()[0]
    assert b'"game":"suit"' in row
    rc, out, err = run(capsys, monkeypatch, ["history", b1, "-t", "c", "--json"])
    lines = json.loads(out)
    texts = [x["text"] for x in lines]
    assert any("corrected r1t1: points A +0, B -2" in x for x in texts)
    assert any(x["why"] == "B's trump counted twice on the box" and x["by"] == "Kohtunik Kalju" for x in lines)
    assert texts[-1].startswith("rank ")
    rc, out, err = run(capsys, monkeypatch, ["history", b2, "-t", "c", "--json"])
    assert any(x["what"] == "deduct" and x["why"] == "second warning for noise" for x in json.loads(out))
    # without --by (and no NAKK_JUDGE) the judge is asked who
    monkeypatch.delenv("NAKK_JUDGE")
    rc, out, err = run(capsys, monkeypatch, ["deduct", b2, "-t", "c", "--why", "x"])
    assert rc == 2 and "say who" in err


def test_void_and_place(env, capsys, monkeypatch):
    conn = db(env)
    t = stage(conn, ["Mets", "Tamm"], rounds=1, code="v")
    D.draw_next(conn, t, seed=1)
    names = [s["name"] for s in S.round_tables(conn, t)["tables"][0]["sides"]]
    store(conn, "boxed", saare_events("v", 1, 1, names, [("pime-pits", "A", "A")] * 2))
    # a box set up by hand (no tournament) played the same table, sides the other way round
    store(conn, "manual", saare_events(None, 1, 1, names[::-1], [("pime-pits", "A", "A")] * 2))
    assert S.unassigned_results(conn)[0]["result_id"] == "manual"
    monkeypatch.setenv("NAKK_DB", str(env / "judge.db"))
    assert cli.main(["standings", "-t", "v"]) == 0
    assert "results to place" in capsys.readouterr().out
    J.place(conn, t, "manual", 1, 1, "judge", "box 3 was set up by hand", swap=True)
    m = S.matches(conn, t)[0]
    assert m["state"] == "flagged" and "2 results" in m["problems"][0]
    J.void(conn, t, "boxed", "judge", "the players restarted on box 3")
    m = S.matches(conn, t)[0]
    assert m["state"] == "verified" and m["final"] == [0, 16 + 2] and m["result_ids"] == ["manual"]   # +2: prillid


def test_disqualified_pair_is_left_out_of_the_next_stage(env):
    conn = db(env)
    s1 = stage(conn, ["Mets", "Tamm", "Saar", "Kask"], rounds=1, season="2026", date="2026-11-01", code="s1")
    J.disqualify(conn, s1, "Saar", "judge", "insulted the judge")
    s2 = stage(conn, ["Mets", "Tamm", "Saar", "Kask"], rounds=1, season="2026", date="2026-12-01", code="s2")
    rn, method, seed, barred = D.draw_next(conn, s2, seed=1)
    assert [e["name"] for e in barred] == ["Saar"]
    drawn = [s["name"] for tb in S.round_tables(conn, s2)["tables"] for s in tb["sides"]]
    assert sorted(drawn) == ["Kask", "Mets", "Tamm"]
    # and the stage after next has them back
    s3 = stage(conn, ["Mets", "Tamm", "Saar", "Kask"], rounds=1, season="2026", date="2027-01-01", code="s3")
    assert D.draw_next(conn, s3, seed=1)[3] == []


def test_season_sums_stages_and_takes_deductions_off(env):
    conn = db(env)
    totals = {}
    for code, date in (("s1", "2026-11-01"), ("s2", "2026-12-01")):
        t = stage(conn, ["Mets", "Tamm"], rounds=1, season="2026", date=date, code=code)
        D.draw_next(conn, t, seed=1)
        names = [s["name"] for s in S.round_tables(conn, t)["tables"][0]["sides"]]
        store(conn, code, saare_events(code, 1, 1, names, [("suit", "B", "B")] + [("pime-pits", "A", "A")] * 2))
        for n, f, a, w in ((names[0], 16, 2, 1), (names[1], 2, 16, 0)):
            x = totals.setdefault(n, [0, 0, 0])
            x[0] += w
            x[1] += f
            x[2] += a
    J.deduct(conn, T.get(conn, "s2"), "Mets", "judge", "noise")
    totals["Mets"][1] -= 4
    se = S.season(conn, "2026")
    got = {r["name"]: [r["wins"], r["nakks"], r["against"]] for r in se["rows"]}
    assert got == totals
    assert all(r["stages_played"] == 2 for r in se["rows"])


# ---------------------------------------------------------------- the draw

def test_round_robin_meets_everyone_once():
    for n in (4, 5, 8):
        ids = list(range(n))
        met = set()
        rounds = n - 1 + n % 2
        for r in range(1, rounds + 1):
            pairs = D.round_robin(ids, r)
            seen = [x for p in pairs for x in p if x is not None]
            assert sorted(seen) == ids
            for a, b in pairs:
                if b is not None:
                    assert frozenset((a, b)) not in met
                    met.add(frozenset((a, b)))
        assert len(met) == n * (n - 1) // 2


def test_swiss_avoids_repeats_pairs_near_ranks_and_gives_the_bye_to_the_lowest():
    rng = random.Random(4)
    ranked = list(range(41))
    met = set()
    byes = set()
    for rnd in range(6):
        pairs = D.swiss(ranked, met, byes)
        assert sorted(x for p in pairs for x in p if x is not None) == sorted(ranked)
        bye = [a for a, b in pairs if b is None]
        assert len(bye) == 1 and bye[0] not in byes
        assert bye[0] == [x for x in ranked if x not in byes][-1]
        byes.add(bye[0])
        for a, b in pairs:
            if b is not None:
                assert frozenset((a, b)) not in met
                met.add(frozenset((a, b)))
        rng.shuffle(ranked)
    # the first round, nobody met: neighbours in the ranking meet
    assert D.swiss(list(range(8)), set())[:2] == [(0, 1), (2, 3)]


def test_swiss_repeats_only_when_unavoidable():
    # 4 entrants who have all met: a repeat is the only way
    ids = [1, 2, 3, 4]
    met = {frozenset(p) for p in ((1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3))}
    pairs = D.swiss(ids, met)
    assert sorted(x for p in pairs for x in p) == ids


def test_a_draw_is_repeatable_from_its_seed(env):
    draws = []
    for k in range(2):
        os.makedirs(env / str(k))
        conn = db(env / str(k))
        t = stage(conn, ["P%d" % i for i in range(9)], rounds=3, code="r")
        D.draw_next(conn, t, seed=42)
        draws.append([[s["no"] for s in tb["sides"]] for tb in S.round_tables(conn, t)["tables"]])
    assert draws[0] == draws[1]


def test_swiss_round_waits_for_the_results_it_needs(env):
    conn = db(env)
    t = stage(conn, ["P%d" % i for i in range(6)], rounds=3, code="w", draw="swiss")
    D.draw_next(conn, t, seed=1)
    with pytest.raises(T.TournamentError) as e:
        D.draw_next(conn, t, seed=1)
    assert "round 1 is not in yet: tables 1, 2, 3" in str(e.value)
    # a round robin is known ahead: its next round is drawn at once (an early table need not wait)
    t2 = stage(conn, ["Q%d" % i for i in range(4)], rounds=3, code="rr")
    D.draw_next(conn, t2, seed=1)
    assert D.draw_next(conn, t2, seed=1)[:2] == (2, "round-robin")


def test_schmier_tables_of_three(env):
    conn = db(env)
    t = T.create(conn, "Schmier", "schmier", "schmier", 2, code="sch")
    P.add_many(conn, t, [{"name": "T%d" % i} for i in range(7)])
    D.draw_next(conn, t, seed=5)
    tables = S.round_tables(conn, t)["tables"]
    assert [len(tb["sides"]) for tb in tables] == [3, 3, 1] and tables[2]["bye"]


def test_cli_round_page_season_json_and_plain_errors(env, capsys, monkeypatch):
    rc, out, err = run(capsys, monkeypatch, ["standings"])
    assert rc == 1 and "no such database" in err and not (env / "judge.db").exists()
    db(env).close()
    rc, out, err = run(capsys, monkeypatch, ["standings"])
    assert rc == 1 and err == "nakk: no tournament yet: create one with `nakk tournament new`\n"
    run(capsys, monkeypatch, ["tournament", "new", "E1", "--ruleset", "saare-2020", "--rounds", "2",
                              "--season", "2026", "--code", "e1"])
    rc, out, err = run(capsys, monkeypatch, ["tournament", "new", "E1", "--ruleset", "saare-2020", "--rounds", "2",
                                             "--code", "e1"])
    assert rc == 1 and "exists already" in err
    rc, out, err = run(capsys, monkeypatch, ["tournament", "new", "X", "--ruleset", "saare-2020", "--rounds", "2",
                                             "--set", "target=3"])
    assert rc == 1 and err == "nakk: settings.target: must be a whole number 4..200\n"
    for n in ("Mets/Tamm", "Saar/Kask", "Õun/Pirn"):
        run(capsys, monkeypatch, ["players", "add", n])
    page = env / "draw.html"
    rc, out, err = run(capsys, monkeypatch, ["round", "--seed", "4", "--html", str(page)])
    assert rc == 0, err
    html = page.read_text(encoding="utf-8")
    assert "1. voor / round 1" in html and "Õun/Pirn" in html and "vaba / bye" in html
    rc, out, err = run(capsys, monkeypatch, ["round", "--show", "1", "--html", str(page)])
    assert rc == 1 and "exists" in err                         # never overwritten unasked
    rc, out, err = run(capsys, monkeypatch, ["round", "--show", "--html", str(env / "again.html")])
    assert rc == 0 and "Õun/Pirn" in (env / "again.html").read_text(encoding="utf-8")
    rc, out, err = run(capsys, monkeypatch, ["standings", "--season", "--json"])
    se = json.loads(out)
    assert se["season"] == "2026" and len(se["rows"]) == 3
    rc, out, err = run(capsys, monkeypatch, ["standings", "-t", "nope"])
    assert rc == 1 and err.startswith("nakk: no tournament 'nope'")
    rc, out, err = run(capsys, monkeypatch, ["correct", "nope", "--why", "x", "--points", "1", "1"])
    assert rc == 1 and "no result 'nope'" in err


def test_round_robin_gives_way_to_swiss_when_the_field_changes(env):
    conn = db(env)
    t = stage(conn, ["A", "B", "C", "D"], rounds=3, code="rr")
    assert D.draw_next(conn, t, seed=1)[1] == "round-robin"
    for tb in S.round_tables(conn, t)["tables"]:
        names = [s["name"] for s in tb["sides"]]
        store(conn, "r1t%d" % tb["table"], saare_events("rr", 1, tb["table"], names, [("pime-pits", "A", "A")] * 2))
    P.add_many(conn, t, [{"name": "E", "players": ["E 1", "E 2"]}])          # a late entry
    rn, method, seed, barred = D.draw_next(conn, t, seed=1)
    assert method == "swiss"
    met = {frozenset(s["no"] for s in tb["sides"]) for tb in S.round_tables(conn, t, 1)["tables"]}
    for tb in S.round_tables(conn, t, 2)["tables"]:
        assert frozenset(s["no"] for s in tb["sides"]) not in met


def test_paper_sheets_of_schmier_and_sasku_follow_their_forms():
    from nakk_host import enter as E
    asked = []

    def answers(lines):
        it = iter(lines)

        def ask(prompt):
            asked.append(prompt)
            return next(it)
        return ask

    sides3 = [{"id": x, "name": "T" + x} for x in "ABC"]
    sheet = E.Sheet({"ruleset": "schmier", "sides": sides3})
    # SCH-01 as typed: A bids 3 (choice 1); High A; Low B; Right A; Left C; Joker B; Game A,
    # as a tally (format 2): B's two points, C's one, and the rest (3) to the bidder
    assert sheet.events[0]["v"] == 2                     # the format the box writes for Schmier
    fields = E._deal_steps(sheet, answers(["1 A", "A4 B2 C1", "A B B C rest"]), asked.append)
    assert any("7 of 6 given" in p for p in asked)       # too many points: asked again, nothing kept
    assert fields["tally"] == [3, 2, 1]
    sheet.deal(fields)
    assert sheet.m.st.score == [3, 2, 1]
    # A bids 6 (choice 4) and takes everything: "rest" gives every point to the bidder
    fields = E._deal_steps(sheet, answers(["4 A", "rest"]), asked.append)
    sheet.deal(fields)
    assert sheet.m.st.score == [9, 2, 1]
    assert any(p.startswith("Bid: 1 3 [bidder]") for p in asked)

    sides2 = [{"id": "A", "name": "Tiigrid 1", "team": "Tiigrid"}, {"id": "B", "name": "Karud 2", "team": "Karud"}]
    sheet = E.Sheet({"ruleset": "sasku", "sides": sides2, "room": 1, "boards": [5, 6]})
    fields = E._deal_steps(sheet, answers(["2 A", "1 A"]), asked.append)      # ruutu by A, A wins
    assert fields["board"] == 5
    sheet.deal(fields)
    fields = E._deal_steps(sheet, answers(["3", "1 B"]), asked.append)        # all passed; B has more eyes
    sheet.deal(fields)
    assert sheet.m.st.over and sheet.m.st.score == [4, 2]
    # Saare mäng's sohk, judged inside the deal as on the box: "o1 B", then the deal as it went
    # (A made it and won with jänn: the rules pay A by its result, 2 + 2)
    sheet = E.Sheet({"ruleset": "saare-2020", "sides": sides2})
    fields = E._deal_steps(sheet, answers(["o1 B", "1", "2 A"]), asked.append)
    assert (fields["sohk"], fields["result"], fields["winner"], fields["maker"]) == ("B", "jann", "A", "A")
    sheet.deal(fields)
    assert sheet.m.st.score == [4, 0]
    assert any("o1 SIDE: Sohk" in p for p in asked)


def test_a_sasku_field_of_three_teams_has_a_bye(env, capsys, monkeypatch):
    run(capsys, monkeypatch, ["tournament", "new", "Sasku", "--ruleset", "sasku", "--rounds", "2", "--boards", "4"])
    for team in ("Tiigrid", "Karud", "Hundid"):
        run(capsys, monkeypatch, ["players", "add", team] + sum([["--player", team + str(i)] for i in range(4)], []))
    rc, out, err = run(capsys, monkeypatch, ["round", "--seed", "3"])
    assert rc == 0, err
    conn = db(env)
    tables = S.round_tables(conn, None, 1)["tables"]
    assert [(len(tb["sides"]), tb["bye"], tb["state"]) for tb in tables] == [(2, False, "waiting"), (1, True, "bye")]
    assert [r["room"] for r in tables[0]["rooms"]] == [1, 2]
    rc, out, err = run(capsys, monkeypatch, ["assign", "--table", "2"])
    assert rc == 1 and "is a bye" in err
    st = S.standings(conn, None)
    bye = tables[1]["sides"][0]["name"]
    assert [(r["name"], r["mp"], r["byes"]) for r in st["rows"]][0] == (bye, 2, 1)


def test_cli_withdraw_and_rename_are_in_the_history(env, capsys, monkeypatch):
    run(capsys, monkeypatch, ["tournament", "new", "E", "--ruleset", "saare-2020", "--rounds", "2"])
    run(capsys, monkeypatch, ["players", "add", "Mets/Tamm", "--club", "Kärla"])
    run(capsys, monkeypatch, ["players", "add", "Saar/Kask"])
    rc, out, err = run(capsys, monkeypatch, ["players", "rename", "2", "Saar/Kaske", "--why", "spelt wrong"])
    assert rc == 0 and "no 2 is now Saar/Kaske" in out
    rc, out, err = run(capsys, monkeypatch, ["players", "withdraw", "1", "--why", "went home"])
    assert rc == 0 and "withdrawn" in out
    rc, out, err = run(capsys, monkeypatch, ["players", "withdraw", "1", "--why", "again"])
    assert rc == 1 and "withdrawn already" in err
    rc, out, err = run(capsys, monkeypatch, ["history", "--json"])
    recs = json.loads(out)
    assert [(r["what"], r["why"], r["by"]) for r in recs] == [("rename", "spelt wrong", "Kohtunik Kalju"),
                                                            ("withdraw", "went home", "Kohtunik Kalju")]
    assert "Saar/Kask -> Saar/Kaske" in recs[0]["text"]
    rc, out, err = run(capsys, monkeypatch, ["players", "list"])
    assert "withdrawn" in out and "Saar/Kaske" in out
