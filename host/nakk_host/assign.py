"""What each table's box is told to play: the judge's assignment record, built from the round's draw.

The record (docs/events.md, "The judge's assignment record") becomes the
box's setup event: tournament, table, round, ruleset and settings, the sides
with names (and teams and players), boards and room for Turniirisasku, and
the clock, and `assignment`: an id drawn for it, which the box copies into the
match's setup event, so the signed result names what the judge assigned and
`nakk sync` refuses one moved to another table, round or tournament
(check_result). `assignment()` reads the draw; `push()` sends it to a box with
the link's `assign` request signed with the box's key from the judge's
database (device.py); `write_to_image()` puts it where
the link puts it on a simulator's flash image (assignment.json beside the
journal), through the firmware's own block device on the unix port.
"""

import json
import secrets
import time

from nakk.event import SIDES, encode
from nakk.match import Match

from nakk_host import players as P
from nakk_host.store import now
from nakk_host.tournament import TournamentError


def _side(t, e, i, room):
    """One side of a box's match for entrant e (a team's pair in Turniirisasku)."""
    if t["format"] == "teams":
        # NS (side A) is the team's pair 1, EW (side B) its pair 2 (docs/rules.md, Turniirisasku §7)
        pair = e["players"][0:2] if i == 0 else e["players"][2:4]
        s = {"id": SIDES[i], "name": "%s %d" % (e["name"], 1 if i == 0 else 2), "team": e["name"]}
        if pair:
            s["players"] = pair
        return s
    s = {"id": SIDES[i], "name": e["name"]}
    if e["players"]:
        s["players"] = list(e["players"])
    return s


def assignment(conn, t, round_no, table_no, room=0, clock=None):
    """The assignment record for one box (a dict), checked as the box will check it.
    TournamentError for a table that is not drawn or is a bye."""
    row = conn.execute("SELECT * FROM draw WHERE tournament_id=? AND round_no=? AND table_no=? AND room=?",
                       (t["id"], round_no, table_no, room)).fetchone()
    if row is None:
        raise TournamentError("round %d has no table %d%s" % (round_no, table_no, " room %d" % room if room else ""))
    if row["b"] is None:
        raise TournamentError("round %d table %d is a bye: no box plays it" % (round_no, table_no))
    ents = {e["id"]: e for e in P.entrants(conn, t)}
    ids = [x for x in (row["a"], row["b"], row["c"]) if x is not None]
    a = {"tournament": t["code"], "table": table_no, "round": round_no, "ruleset": t["ruleset"],
         "sides": [_side(t, ents[eid], i, room) for i, eid in enumerate(ids)],
         "clock": int(time.time()) if clock is None else clock, "assignment": secrets.token_hex(8)}
    if t["settings"]:
        a["settings"] = dict(t["settings"])
    if t["format"] == "teams":
        a["room"] = room
        a["boards"] = [row["first_board"], row["last_board"]]
    # the same check the box makes before it starts the match
    ev = dict(a, seq=1, type="setup", v=1)
    Match().apply(ev)
    return a


def round_assignments(conn, t, round_no, table_no=None):
    """[(table, room, record)] for every box of a round (byes left out), or of one table."""
    out = []
    q = "SELECT table_no, room, b FROM draw WHERE tournament_id=? AND round_no=?"
    args = [t["id"], round_no]
    if table_no is not None:
        q += " AND table_no=?"
        args.append(table_no)
    rows = conn.execute(q + " ORDER BY table_no, room", args).fetchall()
    if not rows:
        raise TournamentError("round %d%s is not drawn" % (round_no, " table %d" % table_no if table_no else ""))
    for tb, room, b in rows:
        if b is None:
            continue
        out.append((tb, room, assignment(conn, t, round_no, tb, room)))
    return out


def push(conn, record, url=None, timeout=None):
    """Push an assignment to a box over its serial link (device.Box.assign), signed with the key
    this judge's database (conn) holds for it: the box at url, or the one box connected.
    Returns (device id, url). TournamentError in plain words."""
    from nakk_host import device as D
    if url is None:
        ports = D.discover()
        if len(ports) != 1:
            raise TournamentError("%s: name the box with --port (%s)" % (
                "no box is connected" if not ports else "%d boxes are connected" % len(ports),
                ", ".join(p.url for p in ports) or "USB or a running simulator"))
        url = ports[0].url
    try:
        with D.Box(url, timeout or D.TIMEOUT) as box:
            hello = box.hello()
            box.assign(record, key_of(conn, hello), hello)
    except D.Refused as e:
        raise TournamentError("the box at %s refused the assignment: %s" % (url, e.why))
    except D.DeviceError as e:
        raise TournamentError(str(e))
    return str(hello.get("device")), url


def key_of(conn, hello):
    """The key this judge gave the box that said hello; TournamentError when it never paired it
    (a box takes assignments from its own judge only)."""
    from nakk_host import store
    dev = str(hello.get("device"))
    known = store.device(conn, dev)
    if known is None or known["key"] is None or not hello.get("paired"):
        raise TournamentError("box %s is not paired with this judge: nakk pair it first (a box takes "
                              "assignments from its own judge only)" % dev)
    if known["fs_id"] != hello.get("fs_id"):
        raise TournamentError("box %s was reformatted since it was paired: nakk pair it again" % dev)
    return bytes(known["key"])


def table_of(name):
    """The table number a box's name ends in ("laud 3", "Table 12", "3"; Turniirisasku "laud 3/2":
    table 3, room 2), as (table, room); None when the name names no table."""
    import re
    m = re.search(r"(\d+)(?:\s*/\s*([12]))?\s*$", name or "")
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def push_all(conn, t, round_no, timeout=None):
    """Push each connected box the match of the table its paired name ends in. Returns
    [(port url, device id, table, room, what happened)]; boxes not paired with this judge,
    named with no table, or at a table not in the round are listed and left alone."""
    from nakk_host import device as D
    from nakk_host import store
    out = []
    for port in D.discover():
        try:
            with D.Box(port.url, timeout or D.TIMEOUT) as box:
                hello = box.hello()
                dev = str(hello.get("device"))
                known = store.device(conn, dev)
                place = table_of(known["name"]) if known else None
                if place is None:
                    out.append((port.url, dev, None, None, "not paired with this judge" if known is None else
                                "its name %r names no table: pair it with --name 'laud N'" % known["name"]))
                    continue
                tb, room = place
                if t["format"] != "teams":
                    room = 0
                elif not room:
                    out.append((port.url, dev, tb, None, "which room? name it 'laud %d/1' or 'laud %d/2'" % (tb, tb)))
                    continue
                try:
                    rec = assignment(conn, t, round_no, tb, room)
                except TournamentError as e:
                    out.append((port.url, dev, tb, room, str(e)))
                    continue
                try:
                    box.assign(rec, key_of(conn, hello), hello)
                except TournamentError as e:
                    out.append((port.url, dev, tb, room, str(e)))
                    continue
                except D.Refused as e:
                    out.append((port.url, dev, tb, room, "refused: %s" % e.why))
                    continue
                pushed(conn, t, round_no, tb, room, rec, device_id=dev)
                out.append((port.url, dev, tb, room, "sent: " + " vs ".join(x["name"] for x in rec["sides"])))
        except D.DeviceError as e:
            out.append((port.url, None, None, None, "no answer: %s" % e))
    return out


def encoded(a):
    """The record's canonical bytes, as the link sends them and the box reads assignment.json."""
    return encode(a)


def pushed(conn, t, round_no, table_no, room, record, device_id=None):
    """Note that a box was given this assignment (the table shows 'playing' until its result is in)."""
    with conn:
        conn.execute("INSERT INTO assignments (tournament_id, round_no, table_no, room, device_id, content,"
                     " pushed_at, aid) VALUES (?,?,?,?,?,?,?,?)",
                     (t["id"], round_no, table_no, room, device_id, json.dumps(record, ensure_ascii=False), now(),
                      record.get("assignment")))


# Runs on the unix port: mounts the image as the simulator's board does (formatting a fresh
# one), and writes the record atomically where the app looks (beside the journal).
_WRITE = """
import sys, os, vfs
from nakk.offbox.blockdev import mount_image
bdev = mount_image(sys.argv[1], "/img")
try:
    os.mkdir("/img/journal")
except OSError:
    pass
data = sys.stdin.buffer.read()
with open("/img/journal/assignment.tmp", "wb") as f:
    f.write(data)
os.rename("/img/journal/assignment.tmp", "/img/journal/assignment.json")
vfs.umount("/img")
bdev.close()
"""


def write_to_image(image, record):
    """Put an assignment where the link puts it on a box: assignment.json beside the journal on a
    simulator's flash image (created and formatted if missing), through the firmware's own
    block device on the MicroPython unix port. The simulator must not be running on it."""
    import os
    import subprocess
    import tempfile
    from nakk_host import simulator as Sim
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(_WRITE)
        script = f.name
    try:
        r = subprocess.run([Sim.micropython_path(), "-X", "heapsize=" + Sim.HEAP, script, os.path.abspath(image)],
                           input=encoded(record), env=Sim.micropython_env(), capture_output=True, timeout=60)
    finally:
        os.unlink(script)
    if r.returncode != 0:
        raise TournamentError("could not write the assignment to %s: %s" % (
            image, r.stderr.decode(errors="replace").strip().splitlines()[-1:] or "micropython failed"))
