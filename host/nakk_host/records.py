"""The judge's records as they stand: which were voided by a later record, and what a result's corrections make of it.

Records are never edited (acts.py appends them). A deduction or a correction
is withdrawn by a later `void` record that names it (data.record); both stay
in the history. Every view of a number reads the records through here, so a
voided deduction is gone from the standings, the season, the exports and the
hall alike, and a correction shows wherever the result's score does.
"""

import json

from nakk.event import SIDES

VOIDABLE = ("deduct", "correct")


def _rows(conn, q, args):
    out = []
    for r in conn.execute(q, args):
        d = dict(r)
        d["data"] = json.loads(d["data"] or "{}")
        out.append(d)
    return out


def voids(conn, tournament_id=None):
    """record id -> the void record that withdrew it (of one tournament, or of all)."""
    q = "SELECT * FROM records WHERE kind='void' AND result_id IS NULL"
    args = ()
    if tournament_id is not None:
        q += " AND tournament_id=?"
        args = (tournament_id,)
    return {v["data"].get("record"): v for v in _rows(conn, q + " ORDER BY id", args)}


def of(conn, t, kinds, with_voided=False):
    """Tournament t's records of these kinds, in order, without those a later record voided
    (with_voided: all of them, each voided one with `voided_by`, the void record)."""
    q = "SELECT * FROM records WHERE tournament_id=? AND kind IN (%s) ORDER BY id" % ",".join("?" * len(kinds))
    rows = _rows(conn, q, (t["id"],) + tuple(kinds))
    gone = voids(conn, t["id"])
    out = []
    for r in rows:
        v = gone.get(r["id"])
        if v is not None and r["kind"] in VOIDABLE:
            if not with_voided:
                continue
            r["voided_by"] = v
        out.append(r)
    return out


def result_corrections(conn, result_ids=None):
    """result_id -> its standing corrections (records, in order), over every tournament."""
    gone = voids(conn)
    out = {}
    for r in _rows(conn, "SELECT * FROM records WHERE kind='correct' ORDER BY id", ()):
        if r["id"] in gone or (result_ids is not None and r["result_id"] not in result_ids):
            continue
        out.setdefault(r["result_id"], []).append(r)
    return out


def apply(final, winner, corrections):
    """(final, winner) after the corrections: final per side (a new list), winner a side letter or None."""
    final = list(final)
    for c in corrections:
        pts = c["data"].get("points")
        if pts:
            for i in range(min(len(pts), len(final))):
                final[i] += pts[i]
        if "winner" in c["data"]:
            winner = c["data"]["winner"]
    return final, winner


def text(data, lang="en"):
    """A correction's change in words: "points A +0, B -2, winner B" (Estonian: "punktid A +0, B -2, võitja B")."""
    et = lang == "et"
    parts = []
    if "points" in data:
        parts.append(("punktid " if et else "points ") + ", ".join("%s %+d" % (SIDES[i], p)
                                                                  for i, p in enumerate(data["points"])))
    if "winner" in data:
        parts.append(("võitja %s" if et else "winner %s") % (data["winner"] or ("pole" if et else "none")))
    return ", ".join(parts)


def note(corrections):
    """What the corrections of one result did, for a line beside its score: "corrected (record 3:
    points A +0, B -2)"; "" when there are none."""
    if not corrections:
        return ""
    return "corrected (%s)" % "; ".join("record %d: %s" % (c["id"], text(c["data"])) for c in corrections)
