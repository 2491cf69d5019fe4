"""A season's standings: its stages summed per entrant, by who they are (through renames), from standings.py's tallies.

A stage counts for an entrant only where it was ranked: a pair disqualified in
a stage, or barred from it by the previous stage's disqualification, gets
nothing from that stage (nor a stage played).
"""

from nakk_host import standings as S
from nakk_host import tournament as T


def season(conn, season_name):
    """A season's stages summed per entrant (by who they are, through renames): wins, nakks or
    points, against, deductions and the number of stages, ranked by the latest stage's order.

    Returns {season, stages: [tournament heads], order, order_text, columns, rows}; each row
    also has `stages`: per stage {code, rank} (None where the entrant did not play)."""
    sid = T.season_id(conn, season_name)
    stages = T.all_tournaments(conn, sid)
    if not stages:
        return {"season": season_name, "stages": [], "order": [], "order_text": "", "columns": [], "rows": []}
    fmt = stages[-1]["format"]
    order = [k for k in stages[-1]["order_by"] if k != "h2h"]
    total = {}
    for i, t in enumerate(stages):
        if t["format"] != fmt:
            continue
        ms = S.matches(conn, t)
        ents = S._entrants(conn, t)
        rows = S._tally(t, ms, ents, S._deductions(conn, t))
        ranked = S._ranked(rows, t["order_by"], ms)[0]
        for r in ranked:
            if r["rank"] is None:
                continue                # disqualified there: that stage does not count for it
            s = total.get(r["key"])
            if s is None:
                s = S._blank({"no": 0, "name": r["name"], "club": r["club"], "players": r["players"],
                              "key": r["key"], "status": "active"})
                s["stages"] = [None] * len(stages)
                s["stages_played"] = 0
                total[r["key"]] = s
            s["name"], s["club"] = r["name"], r["club"]
            for k in ("played", "wins", "draws", "losses", "byes", "nakks", "against", "points", "mp",
                      "deductions"):
                s[k] += r[k]
            s["diff"] = s["nakks"] - s["against"]
            s["stages"][i] = {"code": t["code"], "rank": r["rank"]}
            s["stages_played"] += 1
    keyed = {}
    for n, (key, s) in enumerate(sorted(total.items())):
        s["no"] = n + 1
        keyed[key] = s
    ranked = S._rank(keyed, order)
    for r in ranked:
        r.pop("key", None)
        r.pop("no", None)
    cols = [c for c in S.COLUMNS[fmt] if c not in ("no",)]
    cols.insert(cols.index("played"), "stages_played")
    return {"season": season_name, "stages": [S._head(t) for t in stages], "order": order,
            "order_text": S.order_text(order, fmt), "columns": cols, "rows": ranked}
