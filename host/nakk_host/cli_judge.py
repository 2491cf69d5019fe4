"""The judge's day on the command line: tournament, players, round, assign, enter, close (then cli_acts.py).
One small function and parser per command; the work is in the modules.

cli.py registers these with one line (COMMANDS); errors from the modules
(TournamentError, IntakeError, StoreError) become `nakk: message` and a
non-zero exit there.
"""

import json
import os
import sys

from nakk_host import standings as S
from nakk_host.cmdtable import Command, arg, either, judged, who
from nakk_host.judge import _console     # one console for every table the judge's commands print
from nakk_host import tournament as T
from nakk_host.export import draw_rows as _draw_rows, round_html  # noqa: F401  (shared with the console)


def _fail(message, status=1):
    from nakk_host.errors import CommandError
    raise CommandError(message, status)


def _guard(func):
    """Run a command; the modules' plain-words errors become CommandError."""
    def run(args):
        import sqlite3
        from nakk_host.intake import IntakeError
        from nakk_host.store import StoreError
        try:
            return func(args)
        except (T.TournamentError, IntakeError, StoreError) as e:
            _fail(str(e))
        except sqlite3.Error as e:          # e.g. the database is locked by another program
            _fail("the database %s: %s" % (args.db, e))
        except OSError as e:                # a file that cannot be written (export, --html)
            _fail("%s: %s" % (e.filename or "file", e.strerror or e))
    return run


def _db(args, create=False):
    """The judge's database through the one opener: missing is an error unless this command begins one."""
    from nakk_host.store import open_db
    return open_db(args.db, create=create)


def _tour(conn, args):
    return T.get(conn, args.tournament)


def _open(args, who=False):
    """(database, tournament) as -t names it; who: --by and --why are checked first."""
    if who:
        _need_who(args)
    conn = _db(args)
    return conn, _tour(conn, args)


def _need_who(args):
    if not args.by:
        _fail("say who does this: --by NAME (or set NAKK_JUDGE)", 2)
    if not args.why:
        _fail("say why: --why TEXT", 2)


def _print_table(title, columns, rows, caption=None):
    from rich.table import Table
    tb = Table(title=title, caption=caption, caption_justify="left")
    for c in columns:
        tb.add_column(str(c), justify="right" if c in ("#", "rank", "no", "played", "wins", "draws", "losses",
                                                        "byes", "nakks", "against", "diff", "deductions",
                                                        "points", "mp", "table", "stages_played") else "left")
    for r in rows:
        tb.add_row(*["" if v is None else str(v) for v in r])
    _console().print(tb)


# ---------------------------------------------------------------- tournament

def _settings(pairs):
    try:
        return T.parse_settings(pairs)
    except T.TournamentError as e:
        _fail(str(e), 2)


@_guard
def cmd_tournament(args):
    conn = _db(args, create=args.action == "new")
    if args.action == "new":
        if not args.name or not args.ruleset or args.rounds is None:
            _fail("nakk tournament new NAME --ruleset R --rounds N [--format F]", 2)
        fmt = args.format or {"sasku": "teams", "schmier": "schmier"}.get(args.ruleset, "stage")
        t = T.create(conn, args.name, args.ruleset, fmt, args.rounds, date=args.date, place=args.place,
                     settings=_settings(args.set), boards=args.boards, draw=args.draw,
                     order_by=args.order.split(",") if args.order else None, season=args.season, code=args.code)
        print("tournament %s: %s, %s, %s, %d rounds%s%s" % (
            t["code"], t["name"], t["ruleset"], T.FORMATS[t["format"]][0], t["rounds"],
            ", season %s" % t["season"] if t["season"] else "",
            ", %d boards a match" % t["boards"] if t["boards"] else ""))
        print("standings order: %s" % S.order_text(t["order_by"], t["format"]))
        return 0
    rows = []
    for t in T.all_tournaments(conn):
        rows.append([t["code"], t["name"], t["date"], t["place"], t["ruleset"], t["format"], t["rounds"],
                     S.current_round(conn, t), t["season"]])
    _print_table("Tournaments", ["code", "name", "date", "place", "ruleset", "format", "rounds", "drawn", "season"],
                 rows)
    return 0


# ---------------------------------------------------------------- players

@_guard
def cmd_players(args):
    from nakk_host import players as P
    conn, t = _open(args)
    if args.action == "import":
        if not args.arg:
            _fail("nakk players import FILE.csv", 2)
        added, enc = P.import_file(conn, t, args.arg[0])
        print("%s: read as %s; %d %s added (numbers %d-%d)" % (
            args.arg[0], enc, len(added), "teams" if t["format"] != "stage" else "pairs",
            added[0]["no"], added[-1]["no"]))
        _say_barred(added)
        return 0
    if args.action == "add":
        if not args.arg and not args.player:
            _fail("nakk players add NAME [--player NAME --player NAME] [--club CLUB]", 2)
        name = " ".join(args.arg) if args.arg else " / ".join(args.player)
        e = P.add_many(conn, t, [{"name": name, "club": args.club or "", "players": args.player or []}])[0]
        print("added no %d: %s" % (e["no"], e["name"]))
        _say_barred([e])
        return 0
    if args.action == "withdraw":
        _need_who(args)
        if len(args.arg) != 1:
            _fail("nakk players withdraw NO --by NAME --why TEXT", 2)
        e = P.withdraw(conn, t, args.arg[0], args.by, args.why)
        print("no %d %s: withdrawn (left out of the next draws)" % (e["no"], e["name"]))
        return 0
    if args.action == "rename":
        _need_who(args)
        if len(args.arg) < 2:
            _fail("nakk players rename NO NEW NAME --by NAME --why TEXT", 2)
        e = P.rename(conn, t, args.arg[0], " ".join(args.arg[1:]), args.by, args.why, args.player)
        print("no %d is now %s" % (e["no"], e["name"]))
        return 0
    rows = [[e["no"], e["name"], e["club"], ", ".join(e["players"]), e["status"]] for e in P.entrants(conn, t)]
    _print_table("%s: %d entrants" % (t["name"], len(rows)), ["no", "name", "club", "players", "status"], rows)
    return 0


def _say_barred(added):
    """Registering a pair disqualified in the season's previous stage is allowed (the list is the
    club's), but never silently: it is barred from this stage."""
    barred = [e for e in added if e["status"] == "barred"]
    if barred:
        print("barred from this stage (disqualified in the season's previous stage): %s; left out of the "
              "draw and the standings" % ", ".join("no %d %s" % (e["no"], e["name"]) for e in barred))


# ---------------------------------------------------------------- round

def _print_round(conn, t, round_no):
    rt = S.round_tables(conn, t, round_no)
    n = 3 if t["format"] == "schmier" else 2
    rooms = t["format"] == "teams"
    rows = []
    for r in _draw_rows(t, rt):
        sides = r["sides"] + [""] * (n - len(r["sides"]))
        rows.append([r["table"]] + ([r["room"] or ""] if rooms else []) + sides + [r["state"]])
    cols = ["table"] + (["room"] if rooms else []) + ["A", "B", "C"][:n] + ["state"]
    _print_table("%s, round %d" % (t["name"], round_no), cols, rows)


@_guard
def cmd_round(args):
    from nakk_host import draw as D
    conn, t = _open(args)
    if args.html:
        from nakk_host import textfile
        textfile.output_file(args.html, force=args.force, option="--html")   # before a round is drawn
    if args.show is not None:
        last = S.current_round(conn, t)
        n = args.show or last
        if not last:
            _fail("no round drawn yet: nakk round")
        if not 1 <= n <= last:
            _fail("round %d is not drawn: %s has round%s 1%s" % (n, t["code"], "s" if last > 1 else "",
                                                               "-%d" % last if last > 1 else ""), 2)
        _print_round(conn, t, n)
        if args.html:
            from nakk_host import export as X
            X.write(args.html, round_html(conn, t, n), args.force)
            print("printable draw: %s" % args.html)
        return 0
    if args.seed is not None and not -2 ** 63 <= args.seed < 2 ** 63:
        _fail("--seed is a whole number of at most 19 digits (it is stored with the round)", 2)
    rn, method, seed, barred = D.draw_next(conn, t, args.seed)
    if barred:
        print("left out (disqualified in the previous stage): %s" % ", ".join(e["name"] for e in barred))
    print("round %d drawn (%s, seed %d; the same seed and results give the same draw)" % (rn, method, seed))
    _print_round(conn, t, rn)
    if args.html:
        from nakk_host import export as X
        X.write(args.html, round_html(conn, t, rn), args.force)
        print("printable draw: %s" % args.html)
    return 0


# ---------------------------------------------------------------- assign

def _check_image(image):
    """A flash image to write on: a Nakk flash image (or a new file in a folder that exists) that no
    running simulator holds; anything else is refused before a byte is written."""
    from nakk_host import flashimage
    from nakk_host import simulator as Sim
    try:
        flashimage.check(image)
    except flashimage.ImageError as e:
        # assign has no --format: it writes only onto a box's flash image
        _fail(str(e).replace("give another file name, or --format to overwrite it with an empty flash",
                             "name the flash image of the simulator that plays the table"), 2)
    held = Sim.image_in_use(image)
    if held is not None:
        _fail(str(Sim.in_use_error(image, held)))


@_guard
def cmd_assign(args):
    from nakk_host import assign as A
    conn, t = _open(args)
    rn = args.round or S.current_round(conn, t)
    if not rn:
        _fail("no round drawn yet: nakk round")
    todo = A.round_assignments(conn, t, rn, args.table)
    if args.print:
        for tb, room, rec in todo:
            print(json.dumps({"table": tb, "room": room, "assignment": rec}, ensure_ascii=False))
        return 0
    if args.all:
        done = A.push_all(conn, t, rn)
        if not done:
            _fail("no box is connected (USB or a running simulator)")
        _print_table("round %d: assignments" % rn, ["box", "port", "table", "what happened"],
                     [[dev or "?", url, "" if tb is None else "%d%s" % (tb, "/%d" % room if room else ""), what]
                      for url, dev, tb, room, what in done])
        return 0 if all(what.startswith("sent") for _, _, _, _, what in done) else 1
    if args.table is None:
        _fail("a box plays one table: give --table, or --all for every box named after its table "
              "(nakk assign --print shows every table's assignment)", 2)
    todo = [x for x in todo if args.room is None or x[1] == args.room]
    if not todo and conn.execute("SELECT 1 FROM draw WHERE tournament_id=? AND round_no=? AND table_no=? AND b IS NULL",
                                 (t["id"], rn, args.table)).fetchone():
        _fail("round %d table %d is a bye: no box plays it" % (rn, args.table))
    if len(todo) != 1:
        _fail("round %d table %d has %d boxes (rooms): give --room" % (rn, args.table, len(todo))
              if todo else "no box plays round %d table %d%s" % (rn, args.table,
                                                                 " room %d" % args.room if args.room else ""), 2)
    tb, room, rec = todo[0]
    where = "round %d table %d%s" % (rn, tb, " room %d" % room if room else "")
    if args.image:
        _check_image(args.image)
        A.write_to_image(args.image, rec)
        A.pushed(conn, t, rn, tb, room, rec, device_id="image:" + os.path.abspath(args.image))
        print("%s: assignment written to %s (the box offers it at its next start)" % (where, args.image))
        return 0
    device, url = A.push(conn, rec, args.port)
    A.pushed(conn, t, rn, tb, room, rec, device_id=device)
    print("%s: %s sent to box %s (%s); one OK on the box starts it" % (
        where, " vs ".join(s["name"] for s in rec["sides"]), device, url))
    return 0


# ---------------------------------------------------------------- enter and close

@_guard
def cmd_enter(args):
    from nakk_host import enter as E
    conn, t = _open(args, who=True)
    sheet = E.sheet_for(conn, t, args.round, args.table, args.room or (1 if t["format"] == "teams" else 0))
    setup = sheet.events[0]
    print("Paper sheet: %s round %d table %d%s, %s" % (
        t["code"], args.round, args.table, " room %d" % setup["room"] if "room" in setup else "",
        " vs ".join("%s %s" % (s["id"], s["name"]) for s in setup["sides"])))

    def ask(prompt):
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise E.Quit()
        if not sys.stdin.isatty():
            sys.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\n")

    try:
        E.run_sheet(sheet, ask, print)
    except E.Quit:
        _fail("left the sheet: nothing stored (%d entries typed)" % (len(sheet.events) - 1))
    rid, status, problems = E.store_sheet(conn, t, sheet, args.by, args.why)
    print("stored as %s (%s)%s" % (rid, status, ": " + "; ".join(problems) if problems else ""))
    return 0


@_guard
def cmd_close(args):
    from nakk_host import enter as E
    from nakk_host import textfile
    conn, t = _open(args, who=True)
    events = []
    if args.image:
        from nakk_host import simulator as Sim
        try:
            lines = Sim.dump_events(args.image)
        except Sim.SimulatorError as e:
            _fail(str(e))
        events = textfile.events(lines)
    elif args.events:
        _, events = textfile.read_events(args.events)     # the reader `nakk score` uses
    room = args.room or 0
    rid, status, problems = E.close(conn, t, args.round, args.table, args.by, args.why, events, room, args.forfeit)
    print("round %d table %d closed (%s, %d events kept): stored as %s (%s)" % (
        args.round, args.table, "forfeit by %s" % args.forfeit if args.forfeit else "the judge's close",
        len(events), rid, status))
    return 0


COMMANDS = (
    Command("tournament", cmd_tournament,
            "create a tournament (a stage, a team event), or list them",
            "Create a tournament: its name, date, place, ruleset and settings, format and "
                "rounds, optionally a stage of a season; or list the tournaments in the database.",
            arg("action", choices=("new", "list")),
            arg("name", nargs="?", help="the tournament's name (new)"),
            arg("--ruleset", choices=("saare-2020", "saare-classic", "sasku", "schmier")),
            arg("--format", choices=sorted(T.FORMATS), help="stage (Saare mäng), teams (Turniirisasku), "
                "schmier (default: from the ruleset)"),
            arg("--rounds", type=int, help="number of rounds"),
            arg("--boards", type=int, help="Turniirisasku: boards a match (each room plays them all)"),
            arg("--date", help="YYYY-MM-DD"),
            arg("--place"),
            arg("--season", help="the season this stage belongs to (created if new)"),
            arg("--code", help="the code the boxes carry (default: from date and name)"),
            arg("--draw", default="auto", choices=("auto", "round-robin", "swiss"), help="auto: round robin when everyone can meet within the rounds, else Swiss"),
            arg("--order", help="standings order, comma separated (stage default: wins,diff,nakks; "
                "also against, h2h)"),
            arg("--set", action="append", metavar="KEY=VALUE", help="a ruleset setting (nakk rules NAME)"),
            judged(creates=True)),

    Command("players", cmd_players,
            "import, list, add, withdraw or rename pairs and teams",
            "The tournament's pairs (teams): import a CSV (header: name/nimi, "
                "player/mängija columns, club/klubi; UTF-8 with or without a BOM, or Windows-1257 as "
                "Estonian Excel writes it; the encoding found is said), list, add one, withdraw, rename "
                "(a pair's number never changes).",
            arg("action", choices=("import", "list", "add", "withdraw", "rename")),
            arg("arg", nargs="*", help="FILE (import), NAME (add), NO (withdraw), NO NEW NAME (rename)"),
            arg("--player", action="append", help="a player's name (add, rename), once per player"),
            arg("--club"),
            who(required=False, which="withdraw and rename"),
            judged()),

    Command("round", cmd_round,
            "draw the next round and print it for the hall",
            "Draw the next round and number the tables: a round robin when the field can "
                "all meet within the rounds, Swiss by the standings otherwise (no repeat opponents while "
                "avoidable, a bye for an odd field); Turniirisasku: teams in two rooms; Schmier: three "
                "teams a table. Repeatable from --seed. --show N prints a drawn round with each table's state.",
            arg("--seed", type=int, help="the draw's seed (default: a fresh one, printed)"),
            arg("--show", type=int, nargs="?", const=0, metavar="N", help="print round N (default: the latest)"),
            arg("--html", metavar="FILE", help="also write the draw as a printable page"),
            arg("--force", action="store_true", help="overwrite --html's file"),
            judged()),

    Command("assign", cmd_assign,
            "push a table's match to its box (tournament, table, round, ruleset, sides, clock)",
            "Build a table's assignment from the round's draw (tournament, table, round, "
                "ruleset and settings, the sides with names, boards and room, the clock) and push it to its "
                "box over USB: --port URL, or the one box connected. The box offers it, one OK starts it, and "
                "its score screen names the pairs. --image writes it onto a simulator's flash image instead; --print shows "
                "every table's assignment as JSON lines.",
            arg("--round", type=int, help="round (default: the latest drawn)"),
            arg("--table", type=int),
            arg("--room", type=int, help="Turniirisasku: 1 or 2"),
            either(arg("--port", metavar="URL", help="the box's port (default: the one box connected)"),
                   arg("--image", metavar="FILE", help="a simulator's flash image to put the assignment on"),
                   arg("--print", action="store_true", help="print the assignments as JSON lines, push nothing"),
                   arg("--all", action="store_true", help="every connected box gets the match of the table its "
                    "name ends in (nakk pair --name 'laud 3'; Turniirisasku 'laud 3/2' for room 2)")),
            judged()),

    Command("enter", cmd_enter,
            "type in a paper scoresheet deal by deal, checked as the box checks it",
            "Type in a table's paper scoresheet, deal by deal: the questions come from the "
                "ruleset's own form (as on the box), every entry is checked by the same rules, a refused "
                "entry says why and loses nothing. Answers: the choice's number and the side it takes "
                "(e.g. `2 B`). Stored as a paper result when the match is over.",
            arg("--round", type=int, required=True),
            arg("--table", type=int, required=True),
            arg("--room", type=int, help="Turniirisasku: 1 or 2"),
            who(),
            judged()),

    Command("close", cmd_close,
            "close a match left unfinished on a dead box (forfeit or rescue), keeping its deals",
            "Close a table's unfinished match: its events so far (--image of the box's "
                "flash, or --events FILE of JSON lines) are kept, then the judge's close (no winner) or a "
                "forfeit (--forfeit SIDE).",
            arg("--round", type=int, required=True),
            arg("--table", type=int, required=True),
            arg("--room", type=int),
            arg("--forfeit", choices=("A", "B", "C"), help="the side that forfeits"),
            either(arg("--events", metavar="FILE", help="the match's events so far (JSON lines)"),
                   arg("--image", metavar="FILE", help="the box's flash image (read by the firmware's own reader)")),
            who(),
            judged()),
)
