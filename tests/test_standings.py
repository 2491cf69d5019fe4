"""Standings recomputed from stored events, the hall's API (round_tables), placements and states."""

import json

from nakk_host import draw as D
from nakk_host import standings as S
from judge_kit import VALUE, db, saare_events, stage, store


def _names(conn, t, rt):
    return [[s["name"] for s in tb["sides"]] for tb in rt["tables"]]


def test_round_robin_standings_equal_hand_sums(tmp_path):
    conn = db(tmp_path)
    t = stage(conn, ["Mets", "Tamm", "Saar", "Kask"])
    rn, method, seed, barred = D.draw_next(conn, t, seed=5)
    assert (rn, method) == (1, "round-robin")
    rt = S.round_tables(conn, t)
    assert [tb["state"] for tb in rt["tables"]] == ["waiting", "waiting"]
    tables = _names(conn, t, rt)
    # table 1: side A wins 16:2 (B's trump, A's two blind pits); table 2: side B wins 20:0 (+2 prillid)
    # (A's trump beaten: 2 + 2 to B; B's blind pits twice)
    store(conn, "t1", saare_events(t["code"], 1, 1, tables[0],
                                   [("suit", "B", "B"), ("pime-pits", "A", "A"), ("pime-pits", "A", "A")]))
    store(conn, "t2", saare_events(t["code"], 1, 2, tables[1],
                                   [("suit", "A", "B"), ("pime-pits", "B", "B"), ("pime-pits", "B", "B")]))
    st = S.standings(conn, t)
    json.dumps(st)
    by = {r["name"]: r for r in st["rows"]}
    w1, l1 = tables[0]
    l2, w2 = tables[1]
    a_for = 2 * VALUE["pime-pits"]
    assert (by[w1]["wins"], by[w1]["nakks"], by[w1]["against"]) == (1, a_for, VALUE["suit"])
    # trump beaten: 2 + 2; two blind pits: 16; the loser has no nakk: prillid, +2 at the end
    w2_for = (VALUE["suit"] + 2) + 2 * VALUE["pime-pits"] + 2
    assert (by[w2]["wins"], by[w2]["nakks"], by[w2]["against"]) == (1, w2_for, 0)
    assert by[l2]["diff"] == 0 - w2_for
    # order: wins, then difference: w2 (+22) before w1 (+14), then l1 (-14), then l2 (-22)
    assert [r["name"] for r in st["rows"]] == [w2, w1, l1, l2]
    assert [r["rank"] for r in st["rows"]] == [1, 2, 3, 4]
    assert st["pending"] == []
    assert [tb["state"] for tb in S.round_tables(conn, t)["tables"]] == ["verified", "verified"]


def test_unfinished_or_second_result_is_flagged_and_not_counted(tmp_path):
    conn = db(tmp_path)
    t = stage(conn, ["Mets", "Tamm"], rounds=1)
    D.draw_next(conn, t, seed=1)
    names = _names(conn, t, S.round_tables(conn, t))[0]
    store(conn, "half", saare_events(t["code"], 1, 1, names, [("suit", "A", "A")], tail=()))
    st = S.standings(conn, t)
    assert all(r["played"] == 0 for r in st["rows"])
    assert st["pending"][0]["state"] == "flagged"
    assert "the match is not over" in st["pending"][0]["problems"]


def test_result_of_no_drawn_table_is_unplaced(tmp_path):
    conn = db(tmp_path)
    t = stage(conn, ["Mets", "Tamm"], rounds=1)
    D.draw_next(conn, t, seed=1)
    store(conn, "stray", saare_events(t["code"], 1, 9, ["A", "B"], [("pime-pits", "A", "A")] * 2))
    assert [u["result_id"] for u in S.unplaced(conn, t)] == ["stray"]
    assert S.round_tables(conn, t)["tables"][0]["state"] == "waiting"


def test_schmier_team_totals(tmp_path):
    from nakk_host import players as P
    from nakk_host import tournament as T
    from judge_kit import raw_of
    from nakk_host.intake import store_result
    conn = db(tmp_path)
    t = T.create(conn, "Schmier", "schmier", "schmier", 1, code="sch")
    P.add_many(conn, t, [{"name": n} for n in ("Hundid", "Karud", "Ilvesed")])
    D.draw_next(conn, t, seed=1)
    names = [s["name"] for s in S.round_tables(conn, t)["tables"][0]["sides"]]
    sides = [{"id": x, "name": n} for x, n in zip("ABC", names)]
    evs = [{"seq": 1, "type": "setup", "v": 1, "ruleset": "schmier", "tournament": "sch", "round": 1, "table": 1,
            "sides": sides}]
    # SCH-01: A bids 3; High, Right, Game A; Low, Joker B; Left C: 3, 2, 1
    evs.append({"type": "deal", "bidder": "A", "bid": 3, "high": "A", "right": "A", "game": "A", "low": "B",
                "joker": "B", "left": "C"})
    # then A bids 6 and takes all six, three times: +6 each (21: the game is over)
    for _ in range(3):
        evs.append({"type": "deal", "bidder": "A", "bid": 6, "high": "A", "low": "A", "right": "A", "left": "A",
                    "joker": "A", "game": "A"})
    for s in "ABC":
        evs.append({"type": "confirm", "by": s})
    for i, e in enumerate(evs):
        e["seq"] = i + 1
    got = store_result(conn, "s1", raw_of(evs), "box")
    assert got[1] == "verified", got[2]
    rows = {r["name"]: r for r in S.standings(conn, t)["rows"]}
    assert [rows[n]["points"] for n in names] == [3 + 3 * 6, 2, 1]
    assert [rows[n]["wins"] for n in names] == [1, 0, 0]
    assert S.standings(conn, t)["rows"][0]["name"] == names[0]


def test_h2h_breaks_a_tie_by_the_matches_between_the_tied():
    rows = {i: {"no": i, "wins": w, "diff": d, "h2h": 0} for i, w, d in ((1, 2, 5), (2, 2, 9), (3, 2, 1), (4, 0, 0))}
    # 3 beat 1 and 2; 2 beat 1: among the three tied on wins, 3 has 2 h2h wins, 2 has 1, 1 none
    ms = [{"counted": True, "bye": False, "entrants": [3, 1], "winner": 3},
          {"counted": True, "bye": False, "entrants": [2, 3], "winner": 3},
          {"counted": True, "bye": False, "entrants": [1, 2], "winner": 2},
          {"counted": True, "bye": False, "entrants": [4, 1], "winner": 1}]
    ranked = S._rank(rows, ["wins", "h2h", "diff"], ms)
    assert [r["no"] for r in ranked] == [3, 2, 1, 4]
    assert [r["h2h"] for r in ranked] == [2, 1, 0, 0]
    # without h2h the difference decides
    rows2 = {i: dict(r, h2h=0) for i, r in rows.items()}
    assert [r["no"] for r in S._rank(rows2, ["wins", "diff"], ms)] == [2, 1, 3, 4]


def test_teams_csv_needs_four_players():
    from nakk_host import players as P
    rows = P.parse_csv("võistkond,mängija,mängija,mängija,mängija\nTiigrid,a,b,c,d\n", "teams")
    assert rows == [{"name": "Tiigrid", "club": "", "players": ["a", "b", "c", "d"]}]
    import pytest
    from nakk_host.tournament import TournamentError
    with pytest.raises(TournamentError, match="line 2: 2 players; a team entrant has 4"):
        P.parse_csv("team,player,player\nKarud,a,b\n", "teams")
