"""A result's exact event bytes into the judge's database, folded and checked on the way in.

Paper entry and rescue store through here (a box's results come through
`nakk sync`, sync.py, which also checks their signatures): the bytes become
a `results` row the same way (status verified or flagged, the summary folded
by verify.recompute, the setup's tournament/table/round/room), so every
result reaches the standings alike. Bytes already stored under
the same result id are acknowledged again; different bytes under that id are
an alarm, never an overwrite.
"""

import json

from nakk_host import store
from nakk_host.store import now
from nakk_host.verify import recompute, sha256_hex


class IntakeError(Exception):
    """A result that cannot be stored as given (plain words)."""


def store_result(conn, result_id, raw, source, device_id=None, fs_id=None, match_no=None, signature=None,
                 extra_problems=()):
    """Store one result's stored bytes (canonical event lines joined by "\\n").

    Returns (row id, status, problems, new): new is False when the very same bytes
    were stored under result_id before. Raises IntakeError when different bytes
    exist under that id (and records an alarm)."""
    raw = bytes(raw)
    sha = sha256_hex(raw)
    old = conn.execute("SELECT id, sha256, status, problems FROM results WHERE result_id=?", (result_id,)).fetchone()
    if old is not None:
        if old["sha256"] == sha:
            return old["id"], old["status"], json.loads(old["problems"]), False
        with conn:
            store.add_alarm(conn, "different events under a result id already stored", device_id, result_id, raw)
        raise IntakeError("result %s is stored already with different events (an alarm is recorded)" % result_id)
    events, summary, problems = recompute(raw)
    problems = list(problems) + list(extra_problems)
    setup = events[0] if events and events[0].get("type") == "setup" else {}
    status = "flagged" if problems else "verified"
    with conn:
        rid = conn.execute(
            "INSERT INTO results (result_id, source, device_id, fs_id, match_no, events, sha256, signature, status,"
            " problems, ruleset, tournament, table_no, round_no, room, summary, received_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (result_id, source, device_id, fs_id, match_no, raw, sha, signature, status,
             json.dumps(problems, ensure_ascii=False), setup.get("ruleset"), setup.get("tournament"),
             setup.get("table"), setup.get("round"), setup.get("room"), json.dumps(summary, sort_keys=True), now())
        ).lastrowid
    return rid, status, problems, True


def next_paper_id(conn):
    """A fresh result id for a typed-in sheet: paper-1, paper-2, ..."""
    n = 0
    for (rid,) in conn.execute("SELECT result_id FROM results WHERE result_id LIKE 'paper-%'"):
        try:
            n = max(n, int(rid.split("-", 1)[1]))
        except ValueError:
            pass
    return "paper-%d" % (n + 1)
