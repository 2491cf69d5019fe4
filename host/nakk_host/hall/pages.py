"""What each hall page shows, read from the judge's database through a read-only connection (plain data for the templates).

Nothing here computes standings: they come from nakk_host.standings, as
`nakk standings` prints them. Match pages are folded again from the stored
event bytes (hall.deals), never from the stored summary.
"""

import json

from nakk_host.hall import deals
from nakk_host.hall.feed import connect_ro


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
        conn = self._conn()
        try:
            rows = conn.execute(
                "SELECT result_id, status, ruleset, tournament, table_no, round_no, room, summary, received_at "
                "FROM results ORDER BY id DESC").fetchall()
        finally:
            conn.close()
        out = []
        for r in rows:
            d = dict(r)
            try:
                d["summary"] = json.loads(d["summary"])
            except ValueError:
                d["summary"] = {}
            d["title"] = titles.get(d["ruleset"], (d["ruleset"] or "?", d["ruleset"] or "?"))
            out.append(d)
        return out

    def match(self, result_id):
        """One result's page data, folded again from its stored bytes; None when there is no such result."""
        conn = self._conn()
        try:
            row = conn.execute("SELECT * FROM results WHERE result_id=?", (result_id,)).fetchone()
        finally:
            conn.close()
        if row is None:
            return None
        d = dict(row)
        try:
            d["problems"] = json.loads(d["problems"])
        except ValueError:
            d["problems"] = []
        d["match"] = deals.describe(d["events"])
        del d["events"]
        return d
