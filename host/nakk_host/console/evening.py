"""The evening on one screen, as data: the current round's tables with their states, and the judge's next step.

Read from the modules the hall and the CLI read (standings.round_tables,
store's devices and alarms, livestore's live scores as the hall's tables page
shows them) and from the plug-in watcher's boxes; nothing is computed here
that another view computes differently.
"""

from nakk_host import assign as A
from nakk_host import livestore
from nakk_host import players as P
from nakk_host import standings as S
from nakk_host import store


def _boxes_by_table(conn, t):
    """(table, room) -> the paired box named after it ('laud 3', Turniirisasku 'laud 3/2')."""
    out = {}
    for d in store.devices(conn):
        place = A.table_of(d["name"]) if d["key"] is not None else None
        if place is not None:
            tb, room = place
            out[(tb, room if t["format"] == "teams" else 0)] = d
    return out


def _last_assigned(conn, t, rn):
    """(table, room) -> (device id, when) of the latest assignment pushed for the round."""
    return {(tb, room): (dev, at) for tb, room, dev, at in conn.execute(
        "SELECT table_no, room, device_id, pushed_at FROM assignments WHERE tournament_id=? AND round_no=? "
        "ORDER BY id", (t["id"], rn))}


# what the page shows of a live match (livestore.tables' fields); its age is not here but its last_at: the
# state then changes when an entry comes or a table turns quiet, not every second (the page counts the age)
_LIVE = ("result_id", "name", "tournament", "round", "table", "room", "sides", "score", "deals", "seq", "over",
         "synced", "quiet", "last_at")


def live(conn, quiet_s=None):
    """The matches Pico W boxes are playing now, newest first (livestore.current: the hall's query)."""
    return [{k: d[k] for k in _LIVE} for d in livestore.current(conn, None, quiet_s)]


def tables(conn, t, rn, watched=(), playing=()):
    """The round's tables (Turniirisasku: a row per room): table, room, sides, state, box, alarm, score,
    and `live`, the live score of the match a box plays there (one of `playing`, from live()) or None."""
    if not rn:
        return []
    at = {}
    for d in playing:           # newest first: a table's latest match wins
        if d["tournament"] == t["code"] and d["round"] == rn:
            at.setdefault((d["table"], d["room"] or 0), d)
    rt = S.round_tables(conn, t, rn)
    boxes = _boxes_by_table(conn, t)
    assigned = _last_assigned(conn, t, rn)
    live = {b.get("device"): b for b in watched}
    alarms = {}
    for a in store.alarms(conn):
        if a.get("device_id"):
            alarms.setdefault(a["device_id"], []).append(a)
    rows = []
    for tb in rt["tables"]:
        places = [(x["room"], x["sides"], x["state"], x["result_ids"]) for x in tb["rooms"]] if tb["rooms"] \
            and not tb["bye"] else [(0, tb["sides"], tb["state"], tb["result_ids"])]
        for room, sides, state, rids in places:
            box = boxes.get((tb["table"], room))
            dev, since = assigned.get((tb["table"], room)) or (box["device_id"] if box else None, "")
            # a box's alarms since it was given this table (an older one belongs to another match)
            raised = [a["what"] for a in alarms.get(dev, ()) if (a["at"] or "") >= (since or "")] if dev else []
            seen = live.get(dev) or {}
            row = {"table": tb["table"], "room": room, "sides": [{"no": s["no"], "name": s["name"]} for s in sides],
                   "bye": tb["bye"], "state": state, "result_ids": rids, "problems": tb["problems"],
                   "box": box["name"] if box else None, "device": dev, "paired": box is not None,
                   "assigned": (tb["table"], room) in assigned, "box_state": seen.get("state"),
                   "box_text": seen.get("text"), "alarms": raised,
                   "final": tb["final"] if not room else None, "winner": tb["winner"],
                   "live": at.get((tb["table"], room))}
            if state == "playing" and finished(seen):
                row["state"] = "finished"          # over on the box, its result not in yet
            rows.append(row)
    return rows


# what the watcher says of a box whose finished match it holds and the database lacks: being taken now,
# left on the box, damaged on the way, or stored in part before the link broke
_HELD = {"left", "garbled", "stored-then-failed"}


def finished(seen):
    """The watcher knows the box's match is over and its result not in yet."""
    return seen.get("state") == "syncing" or seen.get("last_kind") in _HELD


def offers(conn, watched):
    """The watcher's boxes plugged in now, each with the name its pairing offer suggests: the first
    table no paired box is named after ('laud 1', 'laud 2', ...)."""
    taken = {A.table_of(d["name"]) for d in store.devices(conn) if d["key"] is not None and d["name"]}
    taken |= {(b["table"], b["room"] or 0) for b in watched if b.get("table")}
    n = 1
    out = []
    for b in watched:
        b = dict(b)
        if (b.get("offer") or {}).get("kind") == "pair":
            while (n, 0) in taken:
                n += 1
            b["suggest"] = "laud %d" % n
            n += 1
        out.append(b)
    return out


def next_steps(conn, t, rows):
    """What the judge can do now, most pressing first: [{do, round, enabled, out (tables not in)}]."""
    if t is None:
        return [{"do": "tournament"}]
    steps = []
    if not P.entrants(conn, t):
        return [{"do": "import"}]
    rn = S.current_round(conn, t)
    out = [r for r in rows if r["state"] not in ("verified", "bye")]
    if rn and any(not r["assigned"] and not r["bye"] and r["state"] == "waiting" for r in rows):
        steps.append({"do": "push", "round": rn})
        steps.append({"do": "print", "round": rn})
    if rn < t["rounds"]:
        steps.append({"do": "draw", "round": rn + 1, "enabled": not out,
                      "out": ["%d%s" % (r["table"], "/%d" % r["room"] if r["room"] else "") for r in out]})
    elif not out:
        steps.append({"do": "done"})
    return steps


def state(conn, t, watcher, lang="et", quiet_s=None):
    """Everything the evening page shows, as plain data (also the live JSON). `elsewhere`: the live
    matches not on a table of the round shown (another tournament or round, a match without one)."""
    watched = watcher.boxes(lang)
    boxes = offers(conn, watched)
    playing = live(conn, quiet_s)
    if t is None:
        return {"tournament": None, "round": 0, "tables": [], "steps": next_steps(conn, None, []),
                "events": watcher.events(lang), "watching": getattr(watcher, "available", False), "boxes": boxes,
                "elsewhere": playing}
    rn = S.current_round(conn, t)
    rows = tables(conn, t, rn, watched, playing)
    shown = {r["live"]["result_id"] for r in rows if r["live"]}
    return {"tournament": {"code": t["code"], "name": t["name"], "rounds": t["rounds"], "format": t["format"]},
            "round": rn, "tables": rows, "steps": next_steps(conn, t, rows), "events": watcher.events(lang),
            "watching": getattr(watcher, "available", False), "boxes": boxes,
            "unplaced": [u["result_id"] for u in S.unplaced(conn, t)],
            "elsewhere": [d for d in playing if d["result_id"] not in shown]}


def as_json(st):
    """The state as the live page compares it: the same text for the same state (the page's own copy
    tells the script what it shows, so a change between the render and its first poll is not missed)."""
    import json
    return json.dumps(st, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
