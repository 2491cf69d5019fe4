"""What each hall page shows, read from the judge's database through a read-only connection (plain data for the templates).

Nothing here computes standings: they come from nakk_host.standings, as
`nakk standings` prints them. Match pages are folded again from the stored
event bytes (hall.deals), never from the stored summary.
"""

import json
from contextlib import closing

import time

from nakk_host import livestore
from nakk_host import records as R
from nakk_host import standings as S
from nakk_host import tournament as T
from nakk_host.hall import deals
from nakk_host.hall.feed import connect_ro


# Columns that say nothing when every row is empty or zero there (no clubs given, nobody had a bye):
# the hall leaves them out so the projector's type can be larger and a phone needs no sideways scroll.
_OPTIONAL = ("club", "byes", "draws", "deductions")


def shown_columns(table):
    rows = table.get("rows") or []
    return [c for c in table.get("columns", []) if c not in _OPTIONAL or any(r.get(c) for r in rows)]


def _corrected(d, summary, corrections):
    """The score a result counts for, as every view shows it: d["final"], d["winner"] after the
    judge's standing corrections (the box's own in summary), and d["corrections"] to name them."""
    final, winner = summary.get("final") or [], summary.get("winner")
    if corrections and final:
        final, winner = R.apply(final, winner, corrections)
    d["final"], d["winner"] = final, winner
    d["corrections"] = [{"record": c["id"], "by": c["by_whom"], "why": c["why"], "text": R.text(c["data"]),
                         "points": c["data"].get("points"), "winner": c["data"].get("winner", False)}
                        for c in corrections]


class Pages:
    """Page data for one database file. Each call opens its own read-only connection (pages render in threads)."""

    def __init__(self, path):
        self.path = path

    def _conn(self):
        return connect_ro(self.path)

    # ------------------------------------------------------------ results

    def results(self):
        """Every stored result, newest first, with what the list shows."""
        titles = deals.titles()
        with closing(self._conn()) as conn:
            rows = conn.execute(
                "SELECT result_id, status, ruleset, tournament, table_no, round_no, room, summary, received_at "
                "FROM results ORDER BY id DESC").fetchall()
            corr = R.result_corrections(conn)
        out = []
        for r in rows:
            d = dict(r)
            try:
                d["summary"] = json.loads(d["summary"])
            except ValueError:
                d["summary"] = {}
            d["title"] = titles.get(d["ruleset"], (d["ruleset"] or "?", d["ruleset"] or "?"))
            _corrected(d, d["summary"], corr.get(d["result_id"], ()))
            out.append(d)
        return out

    def match(self, result_id):
        """One result's page data, folded again from its stored bytes; None when there is no such result."""
        with closing(self._conn()) as conn:
            row = conn.execute("SELECT * FROM results WHERE result_id=?", (result_id,)).fetchone()
            corr = R.result_corrections(conn, (result_id,)).get(result_id, ())
            name = None
            if row is not None and row["tournament"]:
                t = conn.execute("SELECT name FROM tournaments WHERE code=?", (row["tournament"],)).fetchone()
                name = t[0] if t is not None else None
        if row is None:
            return None
        d = dict(row)
        d["tournament_name"] = name or d["tournament"]
        try:
            d["problems"] = json.loads(d["problems"])
        except ValueError:
            d["problems"] = []
        d["match"] = deals.describe(d["events"])
        del d["events"]
        _corrected(d, d["match"]["summary"], corr)
        return d

    # ------------------------------------------------------------ the tournament (nakk_host.standings)

    def _tournament(self, conn, code):
        """The tournament head a page is about (latest created by default), or None when there is none."""
        try:
            return T.get(conn, code or None)
        except T.TournamentError:
            return None

    def standings(self, code=None, round_no=None):
        """{standings: S.standings(...) after round_no (default: all in)} or None without a tournament."""
        with closing(self._conn()) as conn:
            t = self._tournament(conn, code)
            if t is None:
                return None
            st = S.standings(conn, t["code"], round_no)
            st["columns"] = shown_columns(st)
            st["provisional"] = _provisional(conn, t, st["rows"])
            return {"standings": st}

    def season(self, code=None, name=None):
        """{season: S.season(...), tournament: head} for the named season, or the tournament's; None if neither."""
        with closing(self._conn()) as conn:
            t = self._tournament(conn, code)
            if name is None:
                name = t["season"] if t is not None else None
            if name is None:
                return {"season": None, "tournament": t}
            try:
                se = S.season(conn, name)
                se["columns"] = shown_columns(se)
                return {"season": se, "tournament": t}
            except T.TournamentError:
                return {"season": None, "tournament": t}

    def round_tables(self, code=None, round_no=None):
        """S.round_tables(...) (the draw and each table's state), or None without a tournament."""
        with closing(self._conn()) as conn:
            t = self._tournament(conn, code)
            if t is None:
                return None
            return S.round_tables(conn, t["code"], round_no)

    # ------------------------------------------------------------ live scores (docs/live.md)

    def live(self, quiet_s=None):
        """The matches Pico W boxes are playing now (livestore.tables: the latest per box), newest first."""
        with closing(self._conn()) as conn:
            return livestore.current(conn, time.time(), quiet_s)


def _provisional(conn, t, rows):
    """{entrant no: its side's live score} for the matches of this tournament that boxes are playing
    and that have no synced result yet (livestore.provisional): shown beside the standings, never in them."""
    out = {}
    for setup, summary in livestore.provisional(conn, t["code"]):
        d = conn.execute("SELECT a, b, c FROM draw WHERE tournament_id=? AND round_no=? AND table_no=? AND room=?",
                         (t["id"], setup.get("round"), setup.get("table"), setup.get("room") or 0)).fetchone()
        if d is None:
            continue
        score = summary.get("score") or []
        for i, eid in enumerate((d[0], d[1], d[2])):
            if eid is None or i >= len(score):
                continue
            e = conn.execute("SELECT no FROM entrants WHERE id=?", (eid,)).fetchone()
            if e is not None:
                out[e[0]] = {"score": score[i], "table": setup.get("table"), "deals": summary.get("deals")}
    return out
