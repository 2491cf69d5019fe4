"""The judge's acts on a tournament: deductions, disqualification, corrections, voids, placements, and the history.

Each act is a new row in `records` with who and why; nothing stored is ever
edited. The standings apply the records on top of the folded results, so
`history()` can say, line by line, why every number is what it is.
"""

from nakk import rules as rules_pkg
from nakk.event import SIDES

from nakk_host import players as P
from nakk_host import standings as S
from nakk_host.tournament import TournamentError


def deduct(conn, t, no, by, why, points=None, round_no=None):
    """Deduct points from an entrant's overall result (SM-15: the noise deduction, 4 by default).
    Counts from round round_no on (default: the current round)."""
    e = P.find(conn, t, no)
    if points is None:
        cfg = rules_pkg.get(t["ruleset"]).config(t["settings"] or None)
        points = cfg.get("noise_deduction", 4)
    if points <= 0:
        raise TournamentError("a deduction is a positive number of points taken off (got %d)" % points)
    if round_no is None:
        round_no = S.current_round(conn, t)
    with conn:
        P.record(conn, t, "deduct", by, why, entrant=e, points=points, round_no=round_no)
    return e, points


def disqualify(conn, t, no, by, why):
    """Remove an entrant: left out of this tournament's later draws and barred from the
    season's next stage (SM: "ei tohi järgmises etapis osaleda"). Results played stay."""
    e = P.find(conn, t, no)
    if e["status"] == "disqualified":
        raise TournamentError("%s is disqualified already" % e["name"])
    with conn:
        P.record(conn, t, "disqualify", by, why, entrant=e, round_no=S.current_round(conn, t))
    return e


def _result(conn, t, result_id):
    row = conn.execute("SELECT result_id, tournament, round_no, table_no, room, ruleset FROM results"
                       " WHERE result_id=?", (result_id,)).fetchone()
    if row is None:
        raise TournamentError("no result %r (see `nakk history` or `nakk standings` for result ids)" % result_id)
    return dict(row)


def correct(conn, t, result_id, by, why, points=None, winner=False):
    """Correct a result without touching its events: points to add per side (e.g. [0, -2]),
    and/or the winner ('A', 'B', 'C', or None for no winner; False: unchanged)."""
    r = _result(conn, t, result_id)
    n = rules_pkg.get(r["ruleset"]).sides if r["ruleset"] else len(points or [0, 0])
    data = {}
    if points is not None:
        if len(points) != n:
            raise TournamentError("give %d numbers, one per side (%s)" % (n, " ".join(SIDES[:n])))
        data["points"] = list(points)
    if winner is not False:
        if winner is not None and winner not in SIDES[:n]:
            raise TournamentError("the winner is one of %s (or none)" % ", ".join(SIDES[:n]))
        data["winner"] = winner
    if not data:
        raise TournamentError("say what changes: --points and/or --winner (or --void)")
    with conn:
        P.record(conn, t, "correct", by, why, result_id=result_id, data=data,
                 round_no=r["round_no"], table_no=r["table_no"], room=r["room"])
    return data


def void(conn, t, result_id, by, why):
    """Leave a result out of the standings (a second result for a table, a match played by
    mistake). Its events stay stored."""
    _result(conn, t, result_id)
    with conn:
        P.record(conn, t, "void", by, why, result_id=result_id)


def place(conn, t, result_id, round_no, table_no, by, why, room=0, swap=False):
    """Place a result at a drawn table (a box played a match nobody assigned it).
    swap: the result's side A is the draw's second entrant."""
    _result(conn, t, result_id)
    if conn.execute("SELECT 1 FROM draw WHERE tournament_id=? AND round_no=? AND table_no=? AND room=?",
                    (t["id"], round_no, table_no, room)).fetchone() is None:
        raise TournamentError("round %d has no table %d%s in %s" % (
            round_no, table_no, " room %d" % room if room else "", t["code"]))
    with conn:
        P.record(conn, t, "place", by, why, result_id=result_id, round_no=round_no, table_no=table_no, room=room,
                 data={"swap": bool(swap)})


# ---------------------------------------------------------------- history

def _name(ents, eid):
    e = ents.get(eid)
    return "%s (%d)" % (e["name"], e["no"]) if e else "?"


def history(conn, t, no=None):
    """Why every number is what it is: a list of lines (dicts: round, what, text, by, why).

    For one entrant: each counted match with what it adds (and the result id it
    came from), each correction of those results, each deduction, status change and
    rename, with who and why; then the totals as the standings show them. Without
    an entrant: every record of the judge in order."""
    ents = {e["id"]: e for e in P.entrants(conn, t)}
    recs = S._records(conn, t, ("deduct", "disqualify", "withdraw", "reinstate", "rename", "correct", "void",
                                "place", "enter", "close"))
    out = []
    if no is None:
        for r in recs:
            who = _name(ents, r["entrant_id"]) if r["entrant_id"] else (r["result_id"] or "")
            extra = ""
            if r["kind"] == "deduct":
                extra = " -%d" % r["points"]
            elif r["kind"] == "correct":
                extra = " %s" % _corr_text(r["data"])
            elif r["kind"] == "place":
                extra = " at round %d table %d%s" % (r["round_no"], r["table_no"], " (sides swapped)"
                                                    if r["data"].get("swap") else "")
            elif r["kind"] == "rename":
                extra = " %s -> %s" % (r["data"].get("from"), r["data"].get("to"))
            out.append({"at": r["at"], "round": r["round_no"], "what": r["kind"], "by": r["by_whom"],
                        "why": r["why"], "text": "%s %s%s" % (r["kind"], who, extra)})
        return out
    e = P.find(conn, t, no)
    corr = {}
    for r in recs:
        if r["kind"] == "correct":
            corr.setdefault(r["result_id"], []).append(r)
    for m in S.matches(conn, t):
        if e["id"] not in m["entrants"]:
            continue
        i = m["entrants"].index(e["id"])
        if m["bye"]:
            out.append({"round": m["round"], "what": "bye", "by": "", "why": "",
                        "text": "round %d: a bye (counts as a win, no nakks)" % m["round"]})
            continue
        others = ", ".join(_name(ents, x) for x in m["entrants"] if x != e["id"])
        if not m["counted"]:
            out.append({"round": m["round"], "what": "match", "by": "", "why": "",
                        "text": "round %d table %d against %s: not counted (%s%s)" % (
                            m["round"], m["table"], others, m["state"],
                            ": " + "; ".join(m["problems"]) if m["problems"] else "")})
            continue
        own = m["final"][i]
        against = sum(m["final"]) - own
        res = "won" if m["winner"] == e["id"] else "no winner" if m["winner"] is None else "lost"
        out.append({"round": m["round"], "what": "match", "by": "", "why": "",
                    "text": "round %d table %d against %s: %d:%d, %s (result %s)" % (
                        m["round"], m["table"], others, own, against, res, ", ".join(m["result_ids"]))})
        for rid in m["result_ids"]:
            for c in corr.get(rid, ()):
                out.append({"round": m["round"], "what": "correct", "by": c["by_whom"], "why": c["why"],
                            "at": c["at"], "text": "  corrected %s: %s" % (rid, _corr_text(c["data"]))})
    for r in recs:
        if r["entrant_id"] != e["id"]:
            continue
        if r["kind"] == "deduct":
            text = "deduction of %d from the overall result (from round %s)" % (r["points"], r["round_no"])
        elif r["kind"] == "rename":
            text = "renamed %s -> %s" % (r["data"].get("from"), r["data"].get("to"))
        else:
            text = {"disqualify": "disqualified (barred from the season's next stage)",
                    "withdraw": "withdrawn", "reinstate": "reinstated"}.get(r["kind"], r["kind"])
        out.append({"round": r["round_no"], "what": r["kind"], "by": r["by_whom"], "why": r["why"], "at": r["at"],
                    "text": text})
    st = S.standings(conn, t)
    row = [x for x in st["rows"] if x["no"] == e["no"]][0]
    out.append({"round": None, "what": "total", "by": "", "why": "",
                "text": "rank %d: " % row["rank"] + ", ".join("%s %s" % (c, row[c]) for c in st["columns"]
                                                               if c not in ("rank", "no", "name", "club"))})
    return out


def _corr_text(data):
    parts = []
    if "points" in data:
        parts.append("points " + ", ".join("%s %+d" % (SIDES[i], p) for i, p in enumerate(data["points"])))
    if "winner" in data:
        parts.append("winner %s" % (data["winner"] or "none"))
    return ", ".join(parts)
