"""What the box watcher (nakk_host.watch) does with one box, in that box's own thread: look at it, sync it,
pair it, give it its next assignment. It touches the box's serial port and the judge's database, and only
through the modules that already do each job: sync.sync_box, judge.pair_box, assign.assignment/push/pushed.

Each job reports through the watcher: w.event(b, kind, **fields) (words: nakk_host.watchwords) and
w.update(b, **state). A job raises nothing it could catch: the watcher turns anything else into a
"crash" event.
"""

from nakk_host import assign as A
from nakk_host import device as D
from nakk_host import store
from nakk_host import sync as S
from nakk_host import watchwords as W
from nakk_host.refusals import both
from nakk_host.tournament import TournamentError


def _db(w):
    return store.open_db(w.db, create=False)


def look(w, b):
    """A box that has just appeared: ask who it is; sync it (paired with this judge), offer it for
    pairing (paired with nobody), or say whose it is (another judge's)."""
    w.update(b, state="checking")
    try:
        with D.Box(b.port.url, w.timeout) as box:
            h = box.hello()
    except D.DeviceError as e:
        w.update(b, state="failed")
        w.event(b, "no-answer" if isinstance(e, D.Timeout) else "failed", why=both(str(e)))
        return
    dev = str(h.get("device"))
    conn = _db(w)
    try:
        known = store.device(conn, dev)
    finally:
        conn.close()
    w.update(b, device=dev, fs_id=h.get("fs_id"), name=known["name"] if known else None, judge=h.get("judge"))
    if h.get("broken"):
        w.update(b, state="failed")
        w.event(b, "broken", why=h["broken"])
        return
    if h.get("damaged"):
        w.event(b, "damaged", matches=", ".join(str(n) for n in h.get("damaged_matches") or []) or "?")
    if not h.get("paired"):
        w.update(b, state="unpaired")
        w.set_offer(b, {"kind": "pair"})
        return
    if known is None or known["key"] is None or known["fs_id"] != h.get("fs_id"):
        w.update(b, state="foreign")
        w.event(b, "foreign", judge=h.get("judge"))
        return
    sync_now(w, b)


def sync_now(w, b):
    """Sync a paired box with the one sync there is (sync.sync_box: stored once, then acknowledged),
    say what came in, and offer its next assignment when it lacks one."""
    w.update(b, state="syncing")
    rep = S.sync_box(b.port, w.db, w.timeout)
    conn = _db(w)
    try:
        if rep.device:
            known = store.device(conn, rep.device)
            w.update(b, device=rep.device, name=known["name"] if known else b.name)
        report(w, b, rep, conn)
        if rep.error is None:
            w.set_offer(b, offer_for(conn, b.device, b.name, w.tournament))
    finally:
        conn.close()


# a refusal's reason (sync.Rejected's words) -> the event kind that says it
_REJECTED = (("bad signature", "signature"), ("damaged on the way", "garbled"),
             ("already stored under this id", "twice"), ("assignment", "moved"), ("claims tournament", "moved"))


def report(w, b, rep, conn):
    """Events for one sync's BoxReport: each result in words (the table and score as stored), each
    refusal as an alarm, and why a sync failed."""
    for kind, rids in (("result", rep.new), ("already", rep.already)):
        for rid in rids:
            row = store.result_by_id(conn, rid)
            if row is None:
                continue
            summary = store.result_row(row)["summary"]
            problems = store.result_row(row)["problems"]
            k = "recount" if kind == "result" and row["status"] != "verified" else kind
            where = W.place(row["table_no"], row["room"] or 0) or b.who()
            w.event(b, k, where=where, score=W.score(summary.get("final")),
                    why=tuple("; ".join(x) for x in zip(*[both(p) for p in problems])) if problems else "",
                    result_id=rid, table=row["table_no"], room=row["room"] or 0, final=summary.get("final"),
                    round=row["round_no"])
    for rid, why in rep.rejected:
        kind = next((k for text, k in _REJECTED if text in why), "rejected")
        w.event(b, kind, rid=rid or "?", why=both(why), result_id=rid)
    stored = len(rep.new) + len(rep.already)
    if rep.error is not None:
        e = rep.error
        if stored:
            kind = "stored-then-failed"
        elif "did not prove" in e:
            kind = "key"
        elif "reformatted since it was paired" in e:
            kind = "reformatted"
        elif "does not answer" in e:
            kind = "no-answer"
        else:
            kind = "failed"
        w.update(b, state="failed", stored=b.stored + len(rep.new))
        w.event(b, kind, why=both(e), count=stored)
        return
    w.update(b, state="synced", stored=b.stored + len(rep.new))
    if not stored and not rep.rejected:
        w.event(b, "nothing")
    if rep.left:
        w.event(b, "left", count=rep.left)


def offer_for(conn, device, name, tournament=None):
    """The assignment a box should be offered, or None: the box's name names a table (nakk pair
    --name 'laud 3'; Turniirisasku 'laud 3/2'), the tournament's latest round is drawn with a match at
    that table, this box was never given it, and no result of it is stored."""
    from nakk_host import standings
    from nakk_host import tournament as T
    place = A.table_of(name) if name else None
    if place is None or device is None:
        return None
    try:
        t = T.get(conn, tournament)
    except TournamentError:
        return None
    rn = standings.current_round(conn, t)
    tb, room = place
    if t["format"] != "teams":
        room = 0
    elif not room:
        return None
    row = conn.execute("SELECT a, b, c FROM draw WHERE tournament_id=? AND round_no=? AND table_no=? AND room=?",
                       (t["id"], rn, tb, room)).fetchone()
    if not rn or row is None or row["b"] is None:
        return None
    if conn.execute("SELECT 1 FROM assignments WHERE tournament_id=? AND round_no=? AND table_no=? AND room=? "
                    "AND device_id=?", (t["id"], rn, tb, room, device)).fetchone():
        return None
    if conn.execute("SELECT 1 FROM results WHERE tournament=? AND round_no=? AND table_no=? AND coalesce(room, 0)=?",
                    (t["code"], rn, tb, room)).fetchone():
        return None
    names = [conn.execute("SELECT name FROM entrants WHERE id=?", (i,)).fetchone()[0]
             for i in (row["a"], row["b"], row["c"]) if i is not None]
    return {"kind": "assign", "tournament": t["code"], "round": rn, "table": tb, "room": room,
            "sides": " – ".join(names)}


def assign_now(w, b, offer):
    """Give the box the assignment it was offered (assign.push, signed with its key), and note it."""
    from nakk_host import tournament as T
    w.update(b, state="assigning")
    where = W.place(offer["table"], offer["room"])
    conn = _db(w)
    try:
        t = T.get(conn, offer["tournament"])
        rec = A.assignment(conn, t, offer["round"], offer["table"], offer["room"])
        dev, _ = A.push(conn, rec, b.port.url, w.timeout)
        A.pushed(conn, t, offer["round"], offer["table"], offer["room"], rec, device_id=dev)
    except TournamentError as e:
        w.update(b, state="synced")
        w.event(b, "assign-failed", where=where, round=offer["round"], why=both(str(e)))
        w.set_offer(b, offer_for(conn, b.device, b.name, w.tournament), again=True)
        return
    finally:
        conn.close()
    w.update(b, state="synced")
    w.set_offer(b, None)
    w.event(b, "assigned", where=where, round=offer["round"], sides=offer["sides"], table=offer["table"],
            room=offer["room"])


def pair_now(w, b, name=None):
    """Pair the box as `nakk pair` does (judge.pair_box: the box asks its players to hold PREV and
    NEXT together), then sync it at once."""
    from nakk_host import judge
    w.update(b, state="pairing")
    w.event(b, "pairing")
    try:
        h = judge.pair_box(w.db, b.port.url, name, say=lambda s: None, judge_name=w.judge_name)
    except Exception as e:      # CommandError in plain words (nobody held the keys, busy, another judge's)
        w.update(b, state="unpaired")
        w.event(b, "pair-failed", why=both(str(e)))
        w.set_offer(b, {"kind": "pair"}, again=True)
        return
    conn = _db(w)
    try:
        known = store.device(conn, str(h.get("device")))
    finally:
        conn.close()
    w.update(b, device=str(h.get("device")), name=known["name"] if known else name)
    w.set_offer(b, None)
    w.event(b, "paired")
    sync_now(w, b)
