"""The judge's commands: `nakk sync`, `nakk results`, `nakk pair`, `nakk doctor` (one function and parser each; cli.py adds them).

Tables and the progress bar are rich's; --json prints one JSON document for scripts.
"""

import json
import os
import secrets
import sys

from nakk.link import proto
from nakk.link.sign import KEY_LEN, hmac_sha256
from nakk_host.cmdtable import Command, arg, db


def _errors():
    from nakk_host.errors import CommandError
    return CommandError


def _db(path, create=False):
    """The judge's database through the one opener (store.open_db): a missing one is an error
    unless this command begins one (create)."""
    from nakk_host import store
    try:
        return store.open_db(path, create=create)
    except store.StoreError as e:
        raise _errors()(str(e))


def _ports(urls):
    from nakk_host import device as D
    ports = D.ports_from(urls)
    if not ports:
        raise _errors()("no box found: no USB scoreboard (2E8A:0005) and no running simulator; "
                        "plug one in, start `nakk sim`, or name a port with --port")
    return ports


def _console(stderr=False):
    from rich.console import Console
    # into a pipe or a file: lines as long as they need (nothing cut to fit 80 columns)
    tty = (sys.stderr if stderr else sys.stdout).isatty()
    return Console(stderr=stderr, highlight=False, width=None if tty else 160)


# ---------------------------------------------------------------- sync

def run_sync(db, urls, as_json=False, timeout=None, out=None):
    """Sync and print the summary; returns (exit status, reports). Used by `nakk sync` and `nakk demo`."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from nakk_host import device as D
    from nakk_host import sync as S
    _db(db).close()                     # the database first: a wrong --db is said before any box is asked
    ports = _ports(urls)
    timeout = D.TIMEOUT if timeout is None else timeout
    show = not as_json and sys.stderr.isatty()
    if show:
        with Progress(TextColumn("syncing"), BarColumn(), MofNCompleteColumn(), TextColumn("boxes"),
                      TimeElapsedColumn(), console=_console(stderr=True), transient=True) as bar:
            task = bar.add_task("sync", total=len(ports))
            reports = S.sync(ports, db, timeout, on_done=lambda r: bar.advance(task))
    else:
        reports = S.sync(ports, db, timeout)
    if as_json:
        print(S.summary_json(reports), file=out or sys.stdout)
    else:
        print_sync(reports, db, out)
    return (0 if all(r.ok() for r in reports) else 1), reports


def print_sync(reports, db, out=None):
    from rich.table import Table
    con = _console() if out is None else _rich_to(out)
    t = Table(title="nakk sync into %s" % db, title_justify="left")
    for col in ("box", "new", "already stored", "flagged", "rejected", "left on box"):
        t.add_column(col, justify="left" if col == "box" else "right")
    notes = []
    for r in reports:
        name = r.device or r.port.url
        if r.port.kind == "sim":
            name += " (simulator)"
        if r.error and not (r.new or r.already):
            t.add_row(name, "-", "-", "-", "-", "-")
            notes.append("%s: not synced: %s" % (name, r.error))
            continue
        t.add_row(name, str(len(r.new)), str(len(r.already)), str(len(r.flagged)), str(len(r.rejected)),
                  "?" if r.error else str(r.left))
        if r.error:
            # stored is stored: the results are in the database whatever the cable did next
            notes.append("%s: %d result(s) stored, then the sync broke off: %s. %s" % (
                name, len(r.new) + len(r.already), r.error,
                "%d of them stay on the box until the next sync, which finds them stored and lets the box drop "
                "them" % len(r.unacked) if r.unacked else "Sync again for the rest."))
        for rid, why in r.rejected:
            notes.append("%s: rejected %s: %s" % (name, rid or "", why))
        for rid in r.flagged:
            notes.append("%s: %s stored FLAGGED: the judge's recount differs (nakk results)" % (name, rid))
    con.print(t)
    for n in notes:
        con.print(n, markup=False)
    new = sum(len(r.new) for r in reports)
    already = sum(len(r.already) for r in reports)
    if new == 0 and not any(r.error for r in reports):
        con.print("Nothing new: %d result(s) were already stored." % already if already else
                  "Nothing new: no finished match waits on the box(es).", markup=False)


def _rich_to(f):
    from rich.console import Console
    return Console(file=f, highlight=False, width=120)


def _positive_timeout(args):
    if args.timeout is not None and not args.timeout > 0:
        raise _errors()("--timeout is a number of seconds above 0 (got %s)" % args.timeout, 2)


def cmd_sync(args):
    _positive_timeout(args)
    if args.watch:
        if args.port or args.json:
            raise _errors()("--watch watches every port and prints words: not with --port or --json", 2)
        from nakk_host import watch
        _db(args.db).close()
        return watch.watch_cli(args.db, args.lang, timeout=args.timeout)
    status, _ = run_sync(args.db, args.port, args.json, args.timeout)
    return status


# ---------------------------------------------------------------- results

def result_rows(conn):
    """Every stored result as `nakk results` shows it: totals and winner after the judge's standing
    corrections (as the standings count them), each correction named in `corrections`."""
    from nakk_host import records as R
    from nakk_host import store
    rows = []
    names = {d["device_id"]: d["name"] for d in store.devices(conn)}
    corr = R.result_corrections(conn)
    for r in store.results(conn):
        s = r["summary"]
        cs = corr.get(r["result_id"], ())
        totals, winner = s.get("final"), s.get("winner")
        if cs and totals:
            totals, winner = R.apply(totals, winner, cs)
        rows.append({"result_id": r["result_id"], "box": names.get(r["device_id"]) or r["device_id"] or r["source"],
                     "tournament": r["tournament"], "table": r["table_no"], "round": r["round_no"],
                     "room": r["room"], "ruleset": r["ruleset"], "sides": s.get("sides"),
                     "totals": totals, "winner": winner, "over": s.get("over"),
                     "box_totals": s.get("final"), "corrections": R.note(cs),
                     "status": r["status"], "problems": r["problems"], "received_at": r["received_at"]})
    return rows


def cmd_results(args):
    conn = _db(args.db, create=False)
    try:
        rows = result_rows(conn)
    finally:
        conn.close()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print_results(rows)
    return 0


def print_results(rows, out=None):
    from rich.table import Table
    con = _console() if out is None else _rich_to(out)
    if not rows:
        con.print("No results stored yet (nakk sync pulls them from the boxes).")
        return
    t = Table(title_justify="left")
    for col in ("box", "table", "round", "ruleset", "sides", "totals", "winner", "status"):
        t.add_column(col)
    for r in rows:
        sides = " - ".join(str(x) for x in r["sides"] or [])
        totals = " : ".join(str(x) for x in r["totals"] or [])
        status = r["status"]
        if r["problems"]:
            status += ": " + "; ".join(r["problems"])
        if r.get("corrections"):
            status += "; " + r["corrections"]
        t.add_row(str(r["box"]), _s(r["table"]), _s(r["round"]), _s(r["ruleset"]), sides, totals,
                  _s(r["winner"]) if r["over"] else "not over", status)
    con.print(t)


def _s(v):
    return "-" if v is None else str(v)


# ---------------------------------------------------------------- pair

def default_judge():
    """Who the judge is, as a box shows it when asked to pair and records in its acks: $NAKK_JUDGE,
    else nakk@<this computer's name>."""
    import os
    import socket
    name = os.environ.get("NAKK_JUDGE")
    if not name:
        try:
            name = "nakk@" + socket.gethostname()
        except OSError:
            name = "nakk"
    return name[:JUDGE_MAX]


JUDGE_MAX = 40     # characters of the judge's name the box takes (nakk.link.task)


def _check_db_for_pairing(db):
    """Pairing may begin a database, but never in a file that is not one, nor where none can be made."""
    import os
    from nakk_host import store
    try:
        if not db or db == ":memory:":
            raise store.StoreError("--db %r names no database file" % db)
        if os.path.lexists(db):
            store.check_db(db)
        elif not os.path.isdir(os.path.dirname(os.path.abspath(db))):
            raise store.StoreError("%s: no such folder for the database" % db)
    except store.StoreError as e:
        raise _errors()(str(e))


def pair_box(db, url, name=None, timeout=None, say=print, judge_name=None, wifi=None):
    """Pair the box at url with this judge: a fresh key, confirmed at the box by holding PREV and
    NEXT together while it shows the judge's name. A box this judge paired before is given the new
    key with the old one's consent; one paired with another judge refuses. wifi: the network and
    the live server's address a Pico W box reports over (docs/live.md), kept on the box and in the
    database, never printed. Returns the hello."""
    import hashlib
    import os
    from nakk_host import device as D
    from nakk_host import store
    E = _errors()
    who = (judge_name or default_judge())[:JUDGE_MAX]
    _check_db_for_pairing(db)
    # pairing may be the first thing a judge does: a missing database is begun, but only once the
    # box has said yes (a box that does not answer leaves no empty file behind)
    conn = _db(db) if os.path.lexists(db) else None
    try:
        with D.Box(url) as box:
            h = box.hello()
            key = secrets.token_bytes(KEY_LEN)
            nonce = secrets.token_hex(8)
            consent = None
            if h.get("paired"):
                known = store.device(conn, str(h["device"])) if conn is not None else None
                if known is None or known["key"] is None or known["fs_id"] != h.get("fs_id"):
                    raise E("not paired: the box is paired with another judge (%s); only that judge's "
                            "nakk pair, or the box's own reset, frees it (docs/security.md)" % h.get("judge", "?"))
                consent = hmac_sha256(bytes(known["key"]), proto.consent_msg(
                    nonce, h["device"], h["fs_id"], hashlib.sha256(key).hexdigest(), who))
            say("Box %s (filesystem %s): confirm at the box: hold PREV and NEXT together." % (h["device"], h["fs_id"]))
            try:
                r = box.pair(key, nonce, who, timeout=timeout or D.PAIR_TIMEOUT, consent=consent, wifi=wifi)
            except D.Refused as e:
                raise E("not paired: %s" % e.why)
            want = hmac_sha256(key, proto.pair_msg(nonce, h["device"], h["fs_id"]))
            import hmac
            if not hmac.compare_digest(want, bytes.fromhex(str(r.get("mac", "")))):
                raise E("not paired: the box's answer is not signed with the new key")
            if conn is None:
                conn = _db(db, create=True)
            store.save_pairing(conn, h["device"], h["fs_id"], key, name)
            from nakk_host import livestore
            livestore.save_wifi(conn, h["device"], wifi)
            return h
    except D.DeviceError as e:
        raise E(str(e))
    finally:
        if conn is not None:
            conn.close()


def cmd_pair(args):
    _positive_timeout(args)
    _check_db_for_pairing(args.db)      # a wrong --db is said before any box is asked
    if args.port:
        url = args.port
    else:
        ports = _ports(None)
        if len(ports) > 1:
            raise _errors()("%d boxes found: name the one to pair with --port (%s)"
                            % (len(ports), ", ".join(p.url for p in ports)), 2)
        url = ports[0].url
    h = pair_box(args.db, url, args.name, args.timeout, judge_name=args.judge, wifi=_wifi_args(args))
    print("Paired box %s (filesystem %s) with %s: nakk sync now takes its results." % (h["device"], h["fs_id"], args.db))
    if args.wifi:
        print("It reports live scores over Wi-Fi network %r to %s (a Pico W; the password is kept, not shown)."
              % (args.wifi, args.live))
    return 0


def _wifi_args(args):
    """The --wifi/--password/--live options as the pair request's wifi, or None; refused in words."""
    E = _errors()
    if not args.wifi and not args.live:
        return None
    if not args.wifi or not args.live:
        raise E("--wifi SSID and --live HOST:PORT go together (the network and the judge's live server)", 2)
    pw = args.password if args.password is not None else os.environ.get("NAKK_WIFI_PASSWORD")
    if pw is None:
        raise E("--wifi needs the network's password: --password or $NAKK_WIFI_PASSWORD", 2)
    from nakk_host import live
    try:
        live.parse_address(args.live)
    except live.LiveError as e:
        raise E(str(e), 2)
    if not 1 <= len(args.wifi) <= 32 or len(pw) > 63:
        raise E("--wifi: 1 to 32 characters; --password: at most 63", 2)
    return {"ssid": args.wifi, "password": pw, "live": args.live}


# ---------------------------------------------------------------- doctor

LOW_FLASH = 128 * 1024


def diagnose(port, conn, timeout=None):
    """What `nakk doctor` says about one box: a dict with the hello's facts and `problems` in words."""
    from nakk_host import device as D
    from nakk_host import store
    import hmac
    import time
    d = {"port": port.url, "kind": port.kind, "problems": []}
    try:
        with D.Box(port.url, timeout or D.TIMEOUT) as box:
            nonce = secrets.token_hex(8)
            h = box.hello(nonce)
    except D.DeviceError as e:
        d["problems"].append("does not answer: %s" % e)
        return d
    for k in ("device", "fs_id", "fw", "proto", "journal", "paired", "unsynced", "ready", "free", "clock"):
        d[k] = h.get(k)
    p = d["problems"]
    known = store.device(conn, str(h.get("device"))) if conn is not None else None
    d["name"] = known["name"] if known else None     # what the judge called it at `nakk pair --name`
    if not h.get("paired"):
        p.append("not paired: run nakk pair")
    elif known is None:
        p.append("paired with another judge's laptop: this database does not know it (nakk pair to take it over)")
    elif known["fs_id"] != h.get("fs_id"):
        p.append("reformatted since it was paired: pair it again")
    else:
        want = hmac_sha256(bytes(known["key"]), proto.hello_msg(nonce, str(h["device"]), str(h["fs_id"])))
        if not hmac.compare_digest(want, bytes.fromhex(str(h.get("mac", "")) or "")):
            p.append("its key is not the one in this database: pair it again")
    if isinstance(h.get("free"), int) and h["free"] < LOW_FLASH:
        p.append("flash nearly full (%d KB free): sync it now" % (h["free"] // 1024))
    if h.get("broken"):
        p.append("its journal cannot be read (%s): it hands over nothing; copy its flash and call for help"
                 % h["broken"])
    if h.get("damaged"):
        which = h.get("damaged_matches") or []
        p.append("%d match(es) on its flash have damaged records%s: what is left of them is kept on the box"
                 % (h["damaged"], (" (match " + ", ".join(str(n) for n in which) + ")") if which else ""))
    d["rejected"] = h.get("rejected")
    if h.get("rejected"):
        p.append("it refused %d request(s) since it started that were not signed by its judge%s (another "
                 "laptop tried to change it: assign, maintenance, pairing or an ack)"
                 % (h["rejected"], (" (%s)" % h["judge"]) if h.get("judge") else ""))
    if isinstance(h.get("clock"), int) and abs(h["clock"] - time.time()) > 300:
        p.append("its clock is off by %d s (an assignment sets it)" % int(h["clock"] - time.time()))
    return d


def cmd_doctor(args):
    _positive_timeout(args)
    if args.hardware:
        from nakk_host import hwcheck   # the board itself, over the REPL of maintenance mode
        return hwcheck.cmd(args, _errors())
    conn = _db(args.db)                 # the pairings it checks; a wrong --db is said before any box is asked
    try:
        ports = _ports(args.port)
        boxes = [diagnose(p, conn, args.timeout) for p in ports]
    finally:
        conn.close()
    if args.json:
        print(json.dumps(boxes, indent=1))
    else:
        from rich.table import Table
        t = Table(title_justify="left")
        for col in ("box", "name", "firmware", "protocol", "filesystem", "paired", "unsynced", "free flash", "verdict"):
            # a box's id is never cut short with "…": it is what the judge compares with the label
            t.add_column(col, overflow="fold", no_wrap=col in ("box", "filesystem"))
        con = _console()
        for b in boxes:
            free = "%d KB" % (b["free"] // 1024) if isinstance(b.get("free"), int) else "-"
            t.add_row(_s(b.get("device") or b["port"]), _s(b.get("name")), _s(b.get("fw")), _s(b.get("proto")), _s(b.get("fs_id")),
                      {True: "yes", False: "no"}.get(b.get("paired"), "-"), _s(b.get("unsynced")), free,
                      "OK" if not b["problems"] else "see below")
        con.print(t)
        for b in boxes:
            for p in b["problems"]:
                con.print("%s%s (%s): %s" % (b.get("device") or "box", " '%s'" % b["name"] if b.get("name") else "",
                                             b["port"], p), markup=False)
    return 0 if all(not b["problems"] for b in boxes) else 1


COMMANDS = (
    Command("sync", cmd_sync,
            "pull every finished match from the boxes into the judge's database",
            "Find every connected box (USB 2E8A:0005 and running simulators) or the ports "
                "named, and for each, concurrently: pull its finished matches, check their signatures, "
                "count them again with nakk.rules, store them (exactly once), and only then acknowledge "
                "them so the box drops them.",
            db(),
            arg("--port", action="append", metavar="URL", help="a box's port: a device path, socket://host:port, ... (repeat for more; default: every box found)"),
            arg("--timeout", type=float, default=None, help="seconds to wait for a box's answer (default 3)"),
            arg("--json", action="store_true", help="print the summary as JSON"),
            arg("--watch", action="store_true", help="keep watching: sync each box as it is plugged in, offer "
                "pairing and assignments, say each in words until Ctrl-C (docs/watch.md)"),
            arg("--lang", choices=("et", "en"), default="et", help="the words of --watch (default et)")),

    Command("results", cmd_results,
            "list the results stored in the judge's database",
            "List the stored results: box, table, round, ruleset, sides, totals, winner, "
                "and whether each was verified or flagged (with why).",
            db(),
            arg("--json", action="store_true", help="print the results as JSON")),

    Command("pair", cmd_pair,
            "pair a box with this judge (a key, confirmed at the box by holding PREV+NEXT)",
            "Give a box a fresh signing key, kept in the judge's database. The box must be on "
                "its start screen; it asks (\"Paarida kohtuniku arvutiga?\", naming the judge): nothing "
                "changes until PREV and NEXT are held together at the box. A box paired with another judge "
                "refuses (docs/security.md).",
            arg("--port", metavar="URL", help="the box's port (default: the only box found)"),
            db("created if missing"),
            arg("--name", help="what the judge calls this box (e.g. 'laud 3')"),
            arg("--judge", metavar="NAME", help="the judge's name the box shows and keeps (default: $NAKK_JUDGE, "
                "else nakk@<this computer>)"),
            arg("--timeout", type=float, help="seconds to wait for the long press (default 75)"),
            arg("--wifi", metavar="SSID", help="a Pico W box: the hall's Wi-Fi network it reports live scores "
                "over (docs/live.md); with --live"),
            arg("--password", help="the Wi-Fi network's password (default: $NAKK_WIFI_PASSWORD); kept on the box "
                "and in the database, never shown"),
            arg("--live", metavar="HOST:PORT", help="where the judge's live server listens (nakk serve --live)")),

    Command("doctor", cmd_doctor,
            "list the connected boxes and anything wrong with them",
            "List every connected box (or the ports named): firmware and protocol version, "
                "filesystem id, paired or not, unsynced results, free flash, and what is wrong, in words.",
            arg("--port", action="append", metavar="URL", help="a box's port (repeat; default: every box found)"),
            db("to check pairings; not needed with --hardware"),
            arg("--timeout", type=float, help="seconds to wait for a box's answer (default 3)"),
            arg("--json", action="store_true", help="print the findings as JSON"),
            arg("--hardware", action="store_true", help="check one box's display, rings, buttons (press each when asked), RAM and clock")),
)
