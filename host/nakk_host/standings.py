"""Standings, the draw on show and each table's state, recomputed from the stored events (a JSON-ready API).

This is what `nakk standings`, the exports and the hall page (`nakk serve`)
read. Every figure comes from folding each result's stored event bytes again
with nakk.match (Turniirisasku: joining the two rooms with nakk.offbox.teams), then
the judge's records (corrections, deductions, placements, voids) on top, in
order. Totals typed in anywhere are never read.

Public API (names stable; every return value is plain dicts, lists, str, int,
bool and None, so json.dumps takes it as it is):

    standings(conn, tournament=None, round_no=None)  the table after round N (default: every result in)
    season(conn, season)                             the stages of a season summed
    round_tables(conn, tournament=None, round_no=None)
                                                     a round's draw and each table's state:
                                                     bye | waiting | playing | verified | flagged
    matches(conn, tournament=None, round_no=None)    every drawn match with its result as counted
    unplaced(conn, tournament=None)                  results no drawn table claims (for the judge to place)
    current_round(conn, tournament=None)             the latest drawn round number (0: none yet)

`tournament` is a tournament's code (what the boxes carry as
setup.tournament), or None for the latest created one.
"""

import json

from nakk.event import SIDES, EventError
from nakk.offbox.teams import team_match

from nakk_host import records as R
from nakk_host import tournament as T
from nakk_host.verify import recompute

# Words for the criteria, printed with every table so nobody has to guess the order.
CRITERIA_TEXT = {
    "wins": "partii wins", "diff": "difference of nakks (won - lost - deductions)",
    "nakks": "nakks won (less deductions)", "against": "fewer nakks lost", "h2h": "wins between the tied",
    "mp": "match points (win 2, draw 1)", "points": "points (less deductions)",
}
_LOWER_IS_BETTER = ("against",)

# sha256 -> (events, summary, problems): a result's fold never changes, so it is done once per process
_FOLDS = {}
_FOLDS_MAX = 50000


def fold_result(raw, sha):
    """(events, summary, problems) of a result's stored bytes, folded once and kept by hash."""
    hit = _FOLDS.get(sha)
    if hit is None:
        if len(_FOLDS) >= _FOLDS_MAX:
            _FOLDS.clear()
        hit = recompute(raw)
        _FOLDS[sha] = hit
    return hit


def _t(conn, tournament):
    return tournament if isinstance(tournament, dict) else T.get(conn, tournament)


def _entrants(conn, t):
    from nakk_host.players import entrants
    return {e["id"]: e for e in entrants(conn, t)}


def current_round(conn, tournament=None):
    t = _t(conn, tournament)
    return conn.execute("SELECT coalesce(max(round_no), 0) FROM rounds WHERE tournament_id=?", (t["id"],)).fetchone()[0]


# ---------------------------------------------------------------- results at their places

def _records(conn, t, kinds):
    """The records of these kinds that stand (a deduction or correction voided later is left out)."""
    return R.of(conn, t, kinds)


def _placed_results(conn, t):
    """(place -> [result dicts], unplaced result dicts). A place is (round, table, room).
    A result is at the place its setup names, unless the judge placed it elsewhere
    or voided it (records); a placed result may swap its sides."""
    voided = set()
    placed = {}
    for r in _records(conn, t, ("void", "place", "unvoid")):
        if r["kind"] == "void":
            if r["result_id"]:              # a void of a result; a void of a record names no result
                voided.add(r["result_id"])
        elif r["kind"] == "unvoid":
            voided.discard(r["result_id"])
        else:
            placed[r["result_id"]] = (r["round_no"], r["table_no"], r["room"] or 0, bool(r["data"].get("swap")))
    ids = tuple(placed)
    q = ("SELECT id, result_id, source, events, sha256, status, problems, ruleset, tournament, table_no, round_no,"
         " room, received_at FROM results WHERE tournament=?")
    args = [t["code"]]
    if ids:
        q += " OR result_id IN (%s)" % ",".join("?" * len(ids))
        args += list(ids)
    places = {}
    unplaced = []
    drawn = set((r, tb, rm) for r, tb, rm in conn.execute(
        "SELECT round_no, table_no, room FROM draw WHERE tournament_id=?", (t["id"],)))
    for row in conn.execute(q + " ORDER BY id", args):
        d = dict(row)
        d["problems"] = json.loads(d["problems"])
        d["voided"] = d["result_id"] in voided
        if d["result_id"] in placed:
            rn, tb, rm, swap = placed[d["result_id"]]
        else:
            rn, tb, rm, swap = d["round_no"], d["table_no"], d["room"] or 0, False
        d["swap"] = swap
        if d["voided"]:
            continue
        if (rn, tb, rm) not in drawn:
            unplaced.append(d)
            continue
        places.setdefault((rn, tb, rm), []).append(d)
    return places, unplaced


def _corrections(conn, t):
    """result_id -> list of correction records, in order."""
    out = {}
    for r in _records(conn, t, ("correct",)):
        out.setdefault(r["result_id"], []).append(r)
    return out


def _room_result(res, corrections, nsides):
    """What one stored result counts for, from its events and the judge's corrections:
    {final: per side, winner: side index or None, ended, problems}."""
    events, summary, problems = fold_result(res["events"], res["sha256"])
    problems = list(problems)
    if res["status"] != "verified":
        for p in res["problems"]:
            if p not in problems:
                problems.append(p)
        if not problems:
            problems.append("flagged")
    if "final" not in summary:
        return {"final": [0] * nsides, "winner": None, "ended": None, "problems": problems or ["no setup"],
                "events": events}
    final, w = R.apply(summary["final"], summary["winner"], corrections.get(res["result_id"], ()))
    winner = None if w is None else SIDES.index(w)
    if res["swap"]:
        final = final[::-1]
        winner = None if winner is None else 1 - winner
    return {"final": final, "winner": winner, "ended": summary.get("ended"), "problems": problems,
            "events": events}


def _draw_rows(conn, t, round_no=None):
    q = "SELECT * FROM draw WHERE tournament_id=?"
    args = [t["id"]]
    if round_no is not None:
        q += " AND round_no<=?"
        args.append(round_no)
    return [dict(r) for r in conn.execute(q + " ORDER BY round_no, table_no, room", args)]


def _assigned(conn, t):
    return set((r, tb, rm) for r, tb, rm in conn.execute(
        "SELECT round_no, table_no, room FROM assignments WHERE tournament_id=?", (t["id"],)))


def _state(results, assigned):
    if not results:
        return "playing" if assigned else "waiting"
    if len(results) > 1:
        return "flagged"
    return "verified" if results[0]["status"] == "verified" else "flagged"


def matches(conn, tournament=None, round_no=None):
    """Every drawn match up to round_no (all rounds by default) with what it counts for.

    Each: {round, table, entrants: [entrant ids in side order (teams: team ids)], bye,
    state, counted (bool), final: per entrant or None, winner: entrant id or None (a draw,
    a closed match), result_ids, problems, rooms (Turniirisasku: per room state)}."""
    t = _t(conn, tournament)
    places, _ = _placed_results(conn, t)
    corr = _corrections(conn, t)
    assigned = _assigned(conn, t)
    rows = _draw_rows(conn, t, round_no)
    out = []
    if t["format"] == "teams":
        by_match = {}
        for r in rows:
            by_match.setdefault((r["round_no"], r["table_no"]), {})[r["room"]] = r
        for (rn, tb), rooms in sorted(by_match.items()):
            out.append(_team_match(rn, tb, rooms, places, corr, assigned))
        return out
    nsides = 3 if t["format"] == "schmier" else 2
    for r in rows:
        ids = [x for x in (r["a"], r["b"], r["c"]) if x is not None]
        m = {"round": r["round_no"], "table": r["table_no"], "room": 0, "entrants": ids,
             "bye": r["b"] is None, "final": None, "winner": None, "counted": False, "result_ids": [],
             "problems": []}
        if m["bye"]:
            m["state"] = "bye"
            m["counted"] = True
            m["winner"] = r["a"]
            out.append(m)
            continue
        res = places.get((r["round_no"], r["table_no"], 0), [])
        m["state"] = _state(res, (r["round_no"], r["table_no"], 0) in assigned)
        m["result_ids"] = [x["result_id"] for x in res]
        if len(res) > 1:
            m["problems"] = ["%d results for this table (%s): void the wrong one with `nakk correct --void`"
                             % (len(res), ", ".join(m["result_ids"]))]
        elif res:
            rr = _room_result(res[0], corr, nsides)
            m["problems"] = rr["problems"]
            m["final"] = rr["final"]
            m["winner"] = None if rr["winner"] is None else ids[rr["winner"]]
            m["ended"] = rr["ended"]
            m["counted"] = m["state"] == "verified"
        out.append(m)
    return out


def _team_match(rn, tb, rooms, places, corr, assigned):
    """A Turniirisasku team match: both rooms' results joined deal by deal (nakk.offbox.teams)."""
    r1 = rooms.get(1)
    teams = [r1["a"]] if r1["b"] is None else [r1["a"], r1["b"]]
    m = {"round": rn, "table": tb, "room": 0, "entrants": teams, "bye": r1["b"] is None, "final": None,
         "winner": None, "counted": False, "result_ids": [], "problems": [], "rooms": []}
    if m["bye"]:
        m["state"] = "bye"
        m["counted"] = True
        m["winner"] = teams[0]
        return m
    found = {}
    states = []
    for room in (1, 2):
        res = places.get((rn, tb, room), [])
        st = _state(res, (rn, tb, room) in assigned)
        states.append(st)
        drawn = rooms.get(room)
        # who sits in the room: side A (NS) is the first team's pair 1, side B (EW) the other's pair 2
        m["rooms"].append({"room": room, "state": st, "result_ids": [x["result_id"] for x in res],
                           "entrants": [drawn["a"], drawn["b"]] if drawn else []})
        m["result_ids"] += [x["result_id"] for x in res]
        if len(res) > 1:
            m["problems"].append("room %d has %d results: void the wrong one" % (room, len(res)))
        elif res:
            found[room] = res[0]
    m["state"] = ("flagged" if "flagged" in states else "verified" if states == ["verified", "verified"]
                  else "playing" if "playing" in states or "verified" in states else "waiting")
    if m["state"] != "verified":
        for room, res in sorted(found.items()):
            m["problems"] += ["room %d: %s" % (room, p) for p in _room_result(res, corr, 2)["problems"]]
        return m
    ev1 = fold_result(found[1]["events"], found[1]["sha256"])[0]
    ev2 = fold_result(found[2]["events"], found[2]["sha256"])[0]
    try:
        joined = team_match(ev1, ev2)
    except EventError as e:
        m["state"] = "flagged"
        m["problems"].append("the two rooms do not make one match: %s%s" % ((e.field + ": ") if e.field else "",
                                                                          e.reason))
        return m
    # joined["teams"] are the setup's team names: room 1's side A is this match's first team
    totals = list(joined["totals"])
    for room, res in found.items():
        for c in corr.get(res["result_id"], ()):
            pts = c["data"].get("points") or [0, 0]
            # room 1: side A is team 0; room 2: side A is team 1
            if room == 1:
                totals[0] += pts[0]
                totals[1] += pts[1]
            else:
                totals[1] += pts[0]
                totals[0] += pts[1]
    m["final"] = totals
    m["boards"] = joined["boards"]
    if joined["disqualified"]:
        m["winner"] = teams[joined["teams"].index(joined["winner"])] if joined["winner"] else None
    elif totals[0] != totals[1]:
        m["winner"] = teams[0] if totals[0] > totals[1] else teams[1]
    m["counted"] = True
    return m


# ---------------------------------------------------------------- standings

def _deductions(conn, t, round_no=None):
    """entrant id -> total points deducted (positive number), from the judge's records."""
    out = {}
    for r in _records(conn, t, ("deduct",)):
        if round_no is not None and r["round_no"] is not None and r["round_no"] > round_no:
            continue
        out[r["entrant_id"]] = out.get(r["entrant_id"], 0) + r["points"]
    return out


def _blank(e):
    return {"no": e["no"], "name": e["name"], "club": e["club"], "players": e["players"], "key": e["key"],
            "status": e["status"], "played": 0, "wins": 0, "draws": 0, "losses": 0, "byes": 0,
            "nakks": 0, "against": 0, "diff": 0, "points": 0, "mp": 0, "deductions": 0, "h2h": 0}


def _tally(t, ms, ents, deductions):
    rows = {eid: _blank(e) for eid, e in ents.items()}
    for m in ms:
        if not m["counted"]:
            continue
        if m["bye"]:
            r = rows[m["entrants"][0]]
            r["byes"] += 1
            r["wins"] += 1
            r["mp"] += 2
            continue
        ids = m["entrants"]
        for i, eid in enumerate(ids):
            r = rows[eid]
            r["played"] += 1
            own = m["final"][i]
            other = sum(m["final"][j] for j in range(len(ids)) if j != i)
            r["nakks"] += own
            r["points"] += own
            r["against"] += other
            if m["winner"] == eid:
                r["wins"] += 1
                r["mp"] += 2
            elif m["winner"] is None:
                r["draws"] += 1
                r["mp"] += 1 if t["format"] == "teams" else 0
            else:
                r["losses"] += 1
    for eid, pts in deductions.items():
        if eid in rows:
            rows[eid]["deductions"] += pts
    for r in rows.values():
        # deductions come off the overall result: the nakks (points) won
        r["nakks"] -= r["deductions"]
        r["points"] -= r["deductions"]
        r["diff"] = r["nakks"] - r["against"]
    return rows


def _value(r, key):
    return -r[key] if key in _LOWER_IS_BETTER else r[key]


def _rank(rows, order, ms=None, idkey="id"):
    """Sort rows by the order of criteria and give ranks (equal on every criterion: equal rank).
    h2h: wins in the matches between the entrants tied on every criterion before it."""
    if "h2h" in order and ms is not None:
        prefix = order[:order.index("h2h")]
        groups = {}
        for eid, r in rows.items():
            groups.setdefault(tuple(_value(r, k) for k in prefix), set()).add(eid)
        for g in groups.values():
            if len(g) < 2:
                continue
            for m in ms:
                if m["counted"] and not m["bye"] and m["winner"] in g and all(x in g for x in m["entrants"]):
                    rows[m["winner"]]["h2h"] += 1
    items = sorted(rows.items(), key=lambda kv: tuple(-_value(kv[1], k) for k in order) + (kv[1]["no"],))
    out = []
    prev = None
    for i, (eid, r) in enumerate(items):
        k = tuple(_value(r, key) for key in order)
        r["rank"] = out[-1]["rank"] if prev == k else i + 1
        prev = k
        out.append(r)
    return out


COLUMNS = {
    "stage": ["rank", "no", "name", "club", "played", "wins", "losses", "byes", "nakks", "against", "diff",
              "deductions"],
    "teams": ["rank", "no", "name", "club", "played", "mp", "wins", "draws", "losses", "points", "against",
              "diff", "deductions"],
    "schmier": ["rank", "no", "name", "club", "played", "points", "wins", "deductions"],
}


def _head(t):
    return {"code": t["code"], "name": t["name"], "date": t["date"], "place": t["place"], "ruleset": t["ruleset"],
            "format": t["format"], "rounds": t["rounds"], "season": t["season"], "settings": t["settings"]}


def pending_text(p):
    """A table not counted yet, in words: "round 1 table 2 (waiting)"; a Turniirisasku match says each
    room's state ("room 1 verified, room 2 playing"), as one room may be in before the other."""
    state = ", ".join("room %d %s" % (x["room"], x["state"]) for x in p.get("rooms") or ()) or p["state"]
    return "round %d table %d (%s)" % (p["round"], p["table"], state)


def order_text(order, fmt="stage"):
    """The order of criteria in words, printed with every table (Saare mäng counts nakks, the others points)."""
    text = ", then ".join(CRITERIA_TEXT[k] for k in order)
    return text if fmt == "stage" else text.replace("difference of nakks", "difference of points")


def standings(conn, tournament=None, round_no=None):
    """The standings of a tournament after round round_no (default: everything in so far).

    Returns {tournament, round, order, order_text, columns, rows, pending, barred}: rows in
    rank order (a disqualified entrant last, rank None; one barred from this stage only in
    barred), each with rank, no, name, club, players, status, played, wins,
    draws, losses, byes, nakks, against, diff, points, mp, deductions; pending:
    the drawn tables up to that round whose result does not count yet (state and
    problems), so a table of standings never hides a missing result."""
    t = _t(conn, tournament)
    ms = matches(conn, t, round_no)
    ents = _entrants(conn, t)
    rows = _tally(t, ms, ents, _deductions(conn, t, round_no))
    order = t["order_by"]
    ranked, barred = _ranked(rows, order, ms)
    pending = [{"round": m["round"], "table": m["table"], "state": m["state"], "problems": m["problems"],
                "rooms": [{"room": x["room"], "state": x["state"]} for x in m.get("rooms", ())]}
               for m in ms if not m["counted"]]
    for r in ranked:
        r.pop("key", None)
    return {"tournament": _head(t), "round": round_no if round_no is not None else current_round(conn, t),
            "order": list(order), "order_text": order_text(order, t["format"]), "columns": COLUMNS[t["format"]],
            "rows": ranked, "pending": pending, "barred": barred}


UNRANKED = ("disqualified", "barred")


def _ranked(rows, order, ms):
    """(rows in rank order, barred): a disqualified entrant is not ranked (rank None, after the
    field; its matches still count for its opponents); one barred from this stage by a
    disqualification in the season's previous stage is not in the table at all (barred: [{no, name}])."""
    field = {eid: r for eid, r in rows.items() if r["status"] not in UNRANKED}
    out = _rank(field, order, ms)
    for r in sorted((r for r in rows.values() if r["status"] == "disqualified"), key=lambda r: r["no"]):
        r["rank"] = None
        out.append(r)
    barred = [{"no": r["no"], "name": r["name"]} for r in sorted(rows.values(), key=lambda r: r["no"])
              if r["status"] == "barred"]
    return out, barred


def season(conn, season_name):
    """A season's stages summed per entrant (season.py)."""
    from nakk_host.season import season as of_season
    return of_season(conn, season_name)


def round_tables(conn, tournament=None, round_no=None):
    """A round's draw for the hall: {tournament, round, tables: [{table, state, bye, sides: [{no, name,
    players}], final, winner (no or None), problems, rooms}]}. Default round: the latest drawn."""
    t = _t(conn, tournament)
    if round_no is None:
        round_no = current_round(conn, t)
    ents = _entrants(conn, t)
    tables = []
    for m in matches(conn, t, round_no):
        if m["round"] != round_no:
            continue
        sides = [{"no": ents[e]["no"], "name": ents[e]["name"], "players": ents[e]["players"]}
                 for e in m["entrants"]]
        rooms = []
        for x in m.get("rooms", ()):
            # Turniirisasku: which pair of which team sits in the room (side A: pair 1, side B: pair 2)
            pairs = []
            for i, e in enumerate(x.get("entrants", ())):
                players = ents[e]["players"][0:2] if i == 0 else ents[e]["players"][2:4]
                pairs.append({"no": ents[e]["no"], "team": ents[e]["name"], "pair": i + 1,
                              "name": "%s %d" % (ents[e]["name"], i + 1), "players": players})
            rooms.append({"room": x["room"], "state": x["state"], "result_ids": x["result_ids"], "sides": pairs})
        tables.append({"table": m["table"], "state": m["state"], "bye": m["bye"], "sides": sides,
                       "final": m["final"], "winner": None if m["winner"] is None else ents[m["winner"]]["no"],
                       "problems": m["problems"], "result_ids": m["result_ids"], "rooms": rooms})
    return {"tournament": _head(t), "round": round_no, "tables": tables}


def unplaced(conn, tournament=None):
    """Results that name this tournament (or were placed in it) but no drawn table: each
    {result_id, source, round, table, room, status, received_at} for the judge to place."""
    t = _t(conn, tournament)
    _, out = _placed_results(conn, t)
    return [{"result_id": d["result_id"], "source": d["source"], "round": d["round_no"], "table": d["table_no"],
             "room": d["room"], "status": d["status"], "received_at": d["received_at"]} for d in out]


def unassigned_results(conn):
    """Results that name no known tournament (a box played a match nobody assigned)."""
    rows = conn.execute("SELECT result_id, source, tournament, round_no, table_no, room, status, received_at "
                        "FROM results WHERE tournament IS NULL OR tournament NOT IN (SELECT code FROM tournaments)"
                        " ORDER BY id")
    placed = set(r[0] for r in conn.execute("SELECT result_id FROM records WHERE kind IN ('place', 'void')"))
    return [{"result_id": r[0], "source": r[1], "tournament": r[2], "round": r[3], "table": r[4], "room": r[5],
             "status": r[6], "received_at": r[7]} for r in rows if r[0] not in placed]
