"""`nakk sync`: every finished match on every box reaches the judge's database exactly once.

For each box, in its own thread (a hall has 20-25 boxes on hubs, and one
that hangs must not hold up the others):

  1. hello with a fresh nonce: the box must be one this judge paired, with
     the filesystem it had then, and must sign the nonce with its key;
  2. list, then get each finished match: its exact stored bytes, their
     SHA-256, the box's HMAC over result id and hash, the totals it showed;
  3. check: the result id is this box's, the bytes hash as said, the
     signature verifies (constant-time compare); fold the bytes again with
     nakk.rules (verify.recompute): a match that does not fold, is not
     over, or gives other totals than the box showed is stored *flagged*;
     and it must be what the judge assigned (check_assigned): a result that
     names an assignment this judge did not give this box, differs from it,
     or claims a table another box was assigned is refused, with an alarm;
  4. store every checked result in one transaction and commit (WAL,
     synchronous=FULL): a result id already stored with the same bytes is
     "already stored"; with other bytes it is an alarm, never an overwrite;
  5. only after the commit, acknowledge each stored result (an HMAC over
     result id and hash); the box then drops it from its flash.

A crash anywhere leaves either nothing stored (the box still has it: the
next sync takes it) or the result stored and not acknowledged (the next sync
finds it already stored, with the same hash, and acknowledges it). A link lost
after the commit is reported so: the results count as stored (BoxReport.unacked
names those the box has not heard acknowledged).
"""

import hashlib
import hmac
import json
import os
import secrets
import signal
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

from nakk.link import proto
from nakk.link.sign import hmac_sha256
from nakk_host import device as D
from nakk_host import store
from nakk_host.verify import recompute

BATCH = 40   # results per commit (the box lists at most 40 at a time)


def _crash_point(name):
    """Fault injection for the tests (SIGKILL of the judge's process before/after a commit):
    NAKK_CRASH_AT=name kills this process here. Unset in normal use."""
    if os.environ.get("NAKK_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


class BoxReport:
    """What one box's sync did: new, already stored, flagged, rejected (with why), and a failure."""

    def __init__(self, port):
        self.port = port
        self.device = None
        self.fs_id = None
        self.new = []        # result ids stored by this run
        self.already = []    # result ids the judge had already (acknowledged again)
        self.flagged = []    # of new: stored flagged (with problems)
        self.rejected = []   # (result id or None, why): not stored, not acknowledged
        self.alarms = 0
        self.error = None    # the box could not be synced (unreachable, not paired, ...)
        self.left = 0        # finished matches still on the box afterwards
        self.unacked = []    # of new and already: stored, but the box did not confirm the ack (the
                             # link failed after the commit): the next sync finds them stored
        self.reopened = 0    # times the port had to be reopened (a request went unanswered)
        self.resent = 0      # requests sent again (a frame lost or garbled on the way)

    def ok(self):
        return self.error is None and not self.rejected

    def to_json(self):
        return {"port": self.port.url, "kind": self.port.kind, "device": self.device, "fs_id": self.fs_id,
                "new": self.new, "already": self.already, "flagged": self.flagged,
                "rejected": [{"result_id": r, "why": w} for r, w in self.rejected],
                "alarms": self.alarms, "error": self.error, "left": self.left, "unacked": self.unacked,
                "reopened": self.reopened, "resent": self.resent}


class Rejected(Exception):
    """A result that is not stored and not acknowledged; the message says why."""

    def __init__(self, why, alarm=False):
        Exception.__init__(self, why)
        self.alarm = alarm


def check_result(key, fs_id, got):
    """Verify one result as the box sent it (device.Box.get's dict). Returns (status, problems,
    summary, setup); raises Rejected for a result that must not be stored."""
    n = got["n"]
    rid = got["rid"]
    raw = got["raw"]
    if rid != "%s-%d" % (fs_id, n):
        raise Rejected("result id %s is not this box's match %d" % (rid, n), alarm=True)
    sha = hashlib.sha256(raw).hexdigest()
    if len(raw) != got["size"] or not hmac.compare_digest(sha, str(got["sha256"])):
        raise Rejected("%s was damaged on the way (its hash does not match): it stays on the box" % rid)
    sig = got.get("sig")
    try:
        sig_b = bytes.fromhex(sig) if isinstance(sig, str) else b""
    except ValueError:
        sig_b = b""
    if not hmac.compare_digest(hmac_sha256(key, proto.result_msg(rid, sha)), sig_b):
        raise Rejected("%s has a bad signature: not signed with the key this judge gave the box" % rid, alarm=True)
    events, summary, problems = recompute(raw)
    setup = events[0] if events and events[0].get("type") == "setup" else None
    if setup is not None and setup.get("match") not in (None, n):
        problems.append("the setup says match %s, the box stores it as match %d" % (setup.get("match"), n))
    shown = got.get("final")
    if summary.get("over") and shown != summary.get("final"):
        problems.append("the box showed totals %s, the judge's rules give %s" % (shown, summary.get("final")))
    if got.get("events") is not None and got["events"] != len(events) and not problems:
        problems.append("the box counted %s events, the judge reads %d" % (got["events"], len(events)))
    return ("flagged" if problems else "verified"), problems, summary, setup


# the setup fields an assignment fixes: a result must carry them as the judge sent them
_ASSIGNED = ("tournament", "table", "round", "room", "ruleset", "settings", "sides", "seats", "first_shuffler",
             "boards")


def check_assigned(conn, dev_id, setup, rid=None):
    """Raise Rejected (an alarm naming the box) unless a result's setup fits what this judge
    assigned: the assignment it names (setup.assignment) was given to this box, says the same
    tournament, table, round, sides and settings, and has no other result (rid: this one's); and a result naming no assignment does not claim a
    table and round the judge assigned to another box. A match set up by hand at a table nobody
    was assigned passes (the judge places it)."""
    if setup is None:
        return
    aid = setup.get("assignment")
    if aid is not None:
        row = conn.execute("SELECT a.*, t.code FROM assignments a JOIN tournaments t ON t.id = a.tournament_id "
                           "WHERE a.aid=?", (str(aid),)).fetchone()
        if row is None:
            raise Rejected("box %s: the result names assignment %s, which this judge never made" % (dev_id, aid),
                           alarm=True)
        if row["device_id"] not in (None, dev_id) and not str(row["device_id"]).startswith("image:"):
            raise Rejected("box %s: the result names assignment %s, which this judge gave box %s"
                           % (dev_id, aid, row["device_id"]), alarm=True)
        used = conn.execute("SELECT result_id FROM results WHERE device_id=? AND result_id<>? "
                            "AND instr(CAST(events AS TEXT), ?) > 0",
                            (dev_id, rid, '"assignment":"%s"' % aid)).fetchone()
        if used is not None:
            raise Rejected("box %s: assignment %s already has its result %s: a second one is not stored"
                           % (dev_id, aid, used["result_id"]), alarm=True)
        given = json.loads(row["content"])
        for k in _ASSIGNED:
            if given.get(k) != setup.get(k):
                raise Rejected("box %s: the result says %s %s, its assignment %s said %s (moved?)"
                               % (dev_id, k, json.dumps(setup.get(k), ensure_ascii=False)[:60], aid,
                                  json.dumps(given.get(k), ensure_ascii=False)[:60]), alarm=True)
        return
    tb, rn, code = setup.get("table"), setup.get("round"), setup.get("tournament")
    if tb is None or rn is None or code is None:
        return
    rows = conn.execute("SELECT a.device_id FROM assignments a JOIN tournaments t ON t.id = a.tournament_id "
                        "WHERE t.code=? AND a.round_no=? AND a.table_no=? AND a.room=?",
                        (code, rn, tb, setup.get("room") or 0)).fetchall()
    devs = {r["device_id"] for r in rows if r["device_id"]}
    if devs and dev_id not in devs and not any(d.startswith("image:") for d in devs):
        raise Rejected("box %s: the result claims tournament %s round %s table %s, which this judge assigned to "
                       "box %s (moved?)" % (dev_id, code, rn, tb, ", ".join(sorted(devs))), alarm=True)


def _judge_name():
    try:
        return "nakk@" + socket.gethostname()[:50]
    except OSError:
        return "nakk"


def sync_box(port, db_path, timeout=D.TIMEOUT, judge=None):
    """Sync one box into the database at db_path; returns its BoxReport (never raises for a box problem)."""
    rep = BoxReport(port)
    judge = judge or _judge_name()
    try:
        conn = store.open_db(db_path)
    except store.StoreError as e:
        rep.error = str(e)
        return rep
    try:
        box = D.Box(port.url, timeout)
        try:
            box.open()
            _sync(box, conn, rep, judge)
        finally:
            rep.reopened = box.reopened
            rep.resent = box.resent
            box.close()
    except D.DeviceError as e:
        rep.error = str(e)
    except store.StoreError as e:
        rep.error = str(e)
    finally:
        conn.close()
    return rep


def _sync(box, conn, rep, judge):
    nonce = secrets.token_hex(8)
    hello = box.hello(nonce)
    dev_id, fs_id = str(hello.get("device")), str(hello.get("fs_id"))
    rep.device, rep.fs_id = dev_id, fs_id
    known = store.device(conn, dev_id)
    if known is None or known["key"] is None:
        rep.error = "unknown box %s: this judge never paired it (nakk pair)" % dev_id
        return
    if known["fs_id"] != fs_id:
        rep.error = ("box %s was reformatted since it was paired (filesystem %s, paired with %s): pair it again"
                     % (dev_id, fs_id, known["fs_id"]))
        return
    key = bytes(known["key"])
    if not hello.get("paired"):
        rep.error = "box %s says it is not paired: pair it again (nakk pair)" % dev_id
        return
    mac = hello.get("mac")
    try:
        mac_b = bytes.fromhex(mac) if isinstance(mac, str) else b""
    except ValueError:
        mac_b = b""
    if not hmac.compare_digest(hmac_sha256(key, proto.hello_msg(nonce, dev_id, fs_id)), mac_b):
        with conn:
            store.add_alarm(conn, "box %s did not prove it holds this judge's key (paired with another laptop, "
                            "or not the box it claims to be)" % dev_id, dev_id)
        rep.alarms += 1
        rep.error = "box %s did not prove it holds this judge's key: pair it again" % dev_id
        return
    tried = set()
    while True:
        matches, more = box.list()
        todo = [(n, rid) for n, rid in matches if rid not in tried]
        if not todo:
            rep.left = len(matches)
            break
        for i in range(0, len(todo), BATCH):
            _batch(box, conn, rep, key, dev_id, fs_id, hello, todo[i:i + BATCH], judge)
        tried.update(rid for _, rid in todo)
        if not more:
            matches, _ = box.list()
            rep.left = len(matches)
            break


def _batch(box, conn, rep, key, dev_id, fs_id, hello, todo, judge):
    checked = []      # (n, rid, sha) to acknowledge once committed
    fetched = box.get_many([n for n, _ in todo])
    for n, rid in todo:
        got = fetched[n]
        if isinstance(got, D.Refused):
            rep.rejected.append((rid, "the box would not send it: %s" % got.why))
            continue
        try:
            status, problems, summary, setup = check_result(key, fs_id, got)
            check_assigned(conn, dev_id, setup, got["rid"])
            checked.append((n, got, status, problems, summary, setup))
        except Rejected as e:
            rep.rejected.append((got["rid"], str(e)))
            if e.alarm:
                with conn:
                    store.add_alarm(conn, str(e), dev_id, got["rid"], got["raw"])
                rep.alarms += 1
    to_ack = []
    new, flagged = [], []
    with conn:   # one transaction: committed on leaving, rolled back on an exception
        conn.execute("BEGIN IMMEDIATE")
        for n, got, status, problems, summary, setup in checked:
            rid = got["rid"]
            sha = hashlib.sha256(got["raw"]).hexdigest()
            have = store.result_by_id(conn, rid)
            if have is not None:
                if hmac.compare_digest(have["sha256"], sha):
                    rep.already.append(rid)
                    to_ack.append((n, rid, sha))
                else:
                    store.add_alarm(conn, "a different result under id %s, which is already stored: "
                                    "the stored one is kept (stored hash %s, offered %s)"
                                    % (rid, have["sha256"][:12], sha[:12]), dev_id, rid, got["raw"])
                    rep.alarms += 1
                    rep.rejected.append((rid, "a different result is already stored under this id (alarm)"))
                continue
            store.insert_result(conn, rid, dev_id, fs_id, n, got["raw"], sha, got.get("sig"), status,
                                problems, summary, setup)
            new.append(rid)
            if status == "flagged":
                flagged.append(rid)
            to_ack.append((n, rid, sha))
        store.saw_device(conn, dev_id, hello)
        _crash_point("before-commit")
    _crash_point("after-commit")
    rep.new += new
    rep.flagged += flagged
    acking = [rid for _, rid, _ in to_ack]
    rep.unacked += acking          # until the box confirms: a link lost now leaves them stored, unacked
    box.ack_many(to_ack, key, judge)
    done = set(acking)
    rep.unacked = [rid for rid in rep.unacked if rid not in done]


def sync(ports, db_path, timeout=D.TIMEOUT, on_done=None):
    """Sync every port concurrently; returns the BoxReports in port order. on_done(report) as each ends."""
    store.open_db(db_path).close()      # create and migrate once, before the threads
    if not ports:
        return []
    lock = threading.Lock()

    def one(port):
        rep = sync_box(port, db_path, timeout)
        if on_done is not None:
            with lock:
                on_done(rep)
        return rep

    with ThreadPoolExecutor(max_workers=min(32, len(ports))) as pool:
        return list(pool.map(one, ports))


def summary_json(reports):
    return json.dumps({"boxes": [r.to_json() for r in reports],
                       "new": sum(len(r.new) for r in reports),
                       "already": sum(len(r.already) for r in reports),
                       "flagged": sum(len(r.flagged) for r in reports),
                       "rejected": sum(len(r.rejected) for r in reports),
                       "failed": sum(1 for r in reports if r.error)}, indent=1)
