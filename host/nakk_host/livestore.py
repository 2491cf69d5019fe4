"""The live scores in the judge's database (docs/live.md): the events Pico W boxes send while they play.

Written only by the live server (nakk_host/live.py), read by the hall's pages and the console.
A live event is stored once, in order (seq 1, 2, 3 ... of its match, no gap) in `live_events`;
it is never a result: the synced result (store.results, over USB or the same TCP link) is the
verified one, and where it exists it is what the hall shows. Refused frames are counted in
`live_refused` (one row per box and reason: a stranger cannot grow the file by sending more).
"""

import json
import time

from nakk.event import EventError, parse
from nakk.match import Match

from nakk_host import store


def expected(conn, result_id):
    """The seq the store wants next for this match (1 when it has none)."""
    row = conn.execute("SELECT max(seq) FROM live_events WHERE result_id=?", (result_id,)).fetchone()
    return (row[0] or 0) + 1


def stored_event(conn, result_id, seq):
    row = conn.execute("SELECT event FROM live_events WHERE result_id=? AND seq=?", (result_id, seq)).fetchone()
    return None if row is None else bytes(row[0])


def add_event(conn, result_id, device_id, fs_id, match_no, seq, raw, at=None):
    """Store one event (commits). The caller checked that seq is expected(conn, result_id)."""
    with conn:
        conn.execute("INSERT INTO live_events (result_id, device_id, fs_id, match_no, seq, event, received_at) "
                     "VALUES (?,?,?,?,?,?,?)",
                     (result_id, device_id, fs_id, match_no, seq, bytes(raw), time.time() if at is None else at))


def count_refused(conn, device_id, why):
    """One more refused frame from (or claiming to be from) device_id (commits)."""
    with conn:
        conn.execute("INSERT INTO live_refused (device_id, why, n, last_at) VALUES (?,?,1,?) "
                     "ON CONFLICT(device_id, why) DO UPDATE SET n=n+1, last_at=excluded.last_at",
                     (device_id or "?", why, store.now()))


def refused(conn):
    """{(device_id, why): count} of every refused frame."""
    return {(r[0], r[1]): r[2] for r in conn.execute("SELECT device_id, why, n FROM live_refused")}


def events(conn, result_id):
    """The stored live events of a match, as their exact bytes, in seq order."""
    return [bytes(r[0]) for r in conn.execute("SELECT event FROM live_events WHERE result_id=? ORDER BY seq",
                                              (result_id,))]


def fold(raws):
    """A live match folded from its events' bytes: (summary, setup) or (None, setup) when it does
    not fold (the box is trusted by its key, but a live score is never worth a crash)."""
    m = Match()
    setup = None
    try:
        for raw in raws:
            ev = parse(raw)
            if ev.get("type") == "setup":
                setup = ev
            m.apply(ev)
    except (EventError, KeyError, ValueError, TypeError):
        return None, setup
    return m.summary(), setup


def tables(conn, now=None, quiet_s=None):
    """Every match with live events, latest per box first: dicts of result_id, device_id, name (the
    box's name at pairing), tournament, table, round, room, sides, score, deals, seq, over,
    last_at (Unix time of its latest event), age_s, quiet (longer than quiet_s without one) and
    synced (the verified result is stored: the hall shows that one)."""
    now = time.time() if now is None else now
    rows = conn.execute(
        "SELECT l.result_id, l.device_id, max(l.seq) AS seq, max(l.received_at) AS last_at, d.name, "
        "(SELECT 1 FROM results r WHERE r.result_id=l.result_id) AS synced "
        "FROM live_events l LEFT JOIN devices d ON d.device_id=l.device_id "
        "GROUP BY l.result_id ORDER BY last_at DESC").fetchall()
    out = []
    latest = set()
    for r in rows:
        summary, setup = fold(events(conn, r["result_id"]))
        setup = setup or {}
        summary = summary or {}
        age = max(0.0, now - r["last_at"])
        d = {"result_id": r["result_id"], "device_id": r["device_id"], "name": r["name"],
             "tournament": setup.get("tournament"), "table": setup.get("table"), "round": setup.get("round"),
             "room": setup.get("room"), "sides": summary.get("sides") or [s.get("name", s.get("id"))
                                                                         for s in setup.get("sides", [])],
             "score": summary.get("score"), "final": summary.get("final"), "deals": summary.get("deals"),
             "seq": r["seq"], "over": bool(summary.get("over")), "winner": summary.get("winner"),
             "last_at": r["last_at"], "age_s": age, "synced": bool(r["synced"]),
             "current": r["device_id"] not in latest}
        latest.add(r["device_id"])
        d["quiet"] = bool(quiet_s is not None and d["current"] and not d["over"] and age > quiet_s)
        out.append(d)
    return out


def current(conn, now=None, quiet_s=None):
    """The matches boxes are playing now (tables(): the latest per box), newest first: what the
    hall's tables page and the console's evening page show."""
    return [d for d in tables(conn, now, quiet_s) if d["current"]]


def provisional(conn, tournament):
    """Live matches of a tournament that have no synced result yet: [(setup, summary)], for the
    standings' "provisional" column (never mixed into the standings themselves)."""
    out = []
    for r in conn.execute("SELECT DISTINCT result_id FROM live_events WHERE result_id NOT IN "
                          "(SELECT result_id FROM results WHERE result_id IS NOT NULL)").fetchall():
        summary, setup = fold(events(conn, r[0]))
        if summary is not None and setup is not None and setup.get("tournament") == tournament:
            out.append((setup, summary))
    return out


def wifi_of(conn, device_id):
    """The network given to a box at pairing ({"ssid", "password", "live"}), or None. Only `nakk
    pair` reads it (to give it to the box again); nothing prints it."""
    row = conn.execute("SELECT wifi FROM devices WHERE device_id=?", (device_id,)).fetchone()
    if row is None or not row[0]:
        return None
    try:
        return json.loads(row[0])
    except ValueError:
        return None


def save_wifi(conn, device_id, wifi):
    """Keep the network a box was given at pairing (commits)."""
    with conn:
        conn.execute("UPDATE devices SET wifi=? WHERE device_id=?",
                     (None if wifi is None else json.dumps(wifi, sort_keys=True), device_id))
