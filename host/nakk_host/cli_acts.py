"""The judge's numbers on the command line: standings, deduct, disqualify, correct, void, history, export.

One small function and parser per command, as in cli_judge.py (whose helpers
these share); the work is in standings.py, acts.py and export.py.
"""

import json
import os

from nakk_host import standings as S
from nakk_host.cli_judge import _db, _fail, _guard, _open, _print_table, _tour
from nakk_host.cmdtable import Command, arg, judged, who


# ---------------------------------------------------------------- standings

@_guard
def cmd_standings(args):
    conn = _db(args)
    if args.season is not None:
        name, st = _season(conn, args)
        if args.json:
            print(json.dumps(st, ensure_ascii=False, indent=1))
            return 0
        cols = st["columns"]
        _print_table("Season %s: %d stages" % (name, len(st["stages"])), cols,
                     [[r[c] for c in cols] for r in st["rows"]], caption="order: " + st["order_text"])
        return 0
    t = _tour(conn, args)
    if args.round is not None:
        last = S.current_round(conn, t)
        if not 1 <= args.round <= last:
            _fail("--round %d: %s" % (args.round, "no round is drawn yet" if not last else
                                      "the rounds drawn are 1%s" % ("-%d" % last if last > 1 else "")), 2)
    st = S.standings(conn, t, args.round)
    if args.json:
        print(json.dumps(st, ensure_ascii=False, indent=1))
        return 0
    print_standings(conn, t, st)
    return 0


def _season(conn, args):
    """The season --season names (or this tournament's) and its standings."""
    name = args.season or _tour(conn, args)["season"]
    if not name:
        _fail("this tournament is in no season: --season NAME")
    return name, S.season(conn, name)


def print_standings(conn, t, st=None):
    """The standings table as `nakk standings` prints it (nakk demo prints it too)."""
    if st is None:
        st = S.standings(conn, t)
    cols = st["columns"]
    rows = [[r[c] for c in cols] + ([r["status"]] if r["status"] != "active" else [""]) for r in st["rows"]]
    cap = "order: " + st["order_text"]
    if st.get("barred"):
        cap += "\nnot in this stage: " + ", ".join("no %d %s" % (b["no"], b["name"]) for b in st["barred"]) + \
            " (barred: disqualified in the season's previous stage)"
    if st["pending"]:
        cap += "\nnot counted yet: " + ", ".join(S.pending_text(p) for p in st["pending"])
    _print_table("%s after round %d" % (t["name"], st["round"]), cols + ["status"], rows, caption=cap)
    un = S.unplaced(conn, t) + S.unassigned_results(conn)
    if un:
        # a box that played a match nobody assigned (or at a table not drawn): the judge places it
        print("results to place (nakk correct RESULT --place ROUND TABLE [--swap]): " +
              ", ".join("%s (%s, round %s table %s)" % (
                  u["result_id"], (u["tournament"] or "no tournament") if "tournament" in u else t["code"],
                  u["round"], u["table"]) for u in un))


# ---------------------------------------------------------------- deduct, disqualify, correct, history

@_guard
def cmd_deduct(args):
    from nakk_host import acts as J
    conn, t = _open(args, who=True)
    e, pts = J.deduct(conn, t, args.no, args.by, args.why, args.points)
    print("no %d %s: %d deducted from the overall result (record %d; `nakk void %d` withdraws it)"
          % (e["no"], e["name"], pts, _last_record(conn), _last_record(conn)))
    return 0


def _last_record(conn):
    return conn.execute("SELECT max(id) FROM records").fetchone()[0]


@_guard
def cmd_disqualify(args):
    from nakk_host import acts as J
    conn, t = _open(args, who=True)
    e = J.disqualify(conn, t, args.no, args.by, args.why)
    print("no %d %s: disqualified (left out of later draws; barred from the season's next stage)"
          % (e["no"], e["name"]))
    return 0


@_guard
def cmd_correct(args):
    from nakk_host import acts as J
    conn, t = _open(args, who=True)
    if sum(bool(x) for x in (args.void, args.place, args.points is not None or args.winner is not None)) > 1:
        _fail("one change at a time: --void, --place, or --points/--winner", 2)
    if args.swap and not args.place:
        _fail("--swap goes with --place", 2)
    if args.void:
        J.void(conn, t, args.result, args.by, args.why)
        print("%s is left out of the standings (its events stay stored)" % args.result)
        return 0
    if args.place:
        J.place(conn, t, args.result, args.place[0], args.place[1], args.by, args.why, args.room or 0, args.swap)
        print("%s placed at round %d table %d" % (args.result, args.place[0], args.place[1]))
        return 0
    winner = J.winner_of(args.winner)
    data = J.correct(conn, t, args.result, args.by, args.why, args.points, winner)
    print("%s corrected: %s (record %d; `nakk void %d` withdraws it)" % (args.result, J._corr_text(data),
                                                                       _last_record(conn), _last_record(conn)))
    return 0


@_guard
def cmd_void(args):
    from nakk_host import acts as J
    conn, t = _open(args, who=True)
    old = J.void_any(conn, t, args.what, args.by, args.why)
    if old is not None:
        print("record %d (%s) voided by record %d: it no longer counts; nakk history shows both"
              % (old["id"], {"deduct": "a deduction of %s from no %s" % (
                  old["points"], _entrant_no(conn, old["entrant_id"])),
                  "correct": "a correction of %s" % old["result_id"]}[old["kind"]], _last_record(conn)))
        return 0
    print("%s is left out of the standings (its events stay stored)" % args.what)
    return 0


def _entrant_no(conn, eid):
    row = conn.execute("SELECT no FROM entrants WHERE id=?", (eid,)).fetchone()
    return row[0] if row else "?"


@_guard
def cmd_history(args):
    from nakk_host import acts as J
    conn, t = _open(args)
    lines = J.history(conn, t, args.no)
    if args.json:
        print(json.dumps(lines, ensure_ascii=False, indent=1))
        return 0
    rows = [[x.get("at", "") or "", x["text"], x["by"], x["why"]] for x in lines]
    title = "%s: history of no %s" % (t["name"], args.no) if args.no else "%s: the judge's records" % t["name"]
    _print_table(title, ["when", "what", "by", "why"], rows)
    return 0


# ---------------------------------------------------------------- export

@_guard
def cmd_export(args):
    from nakk_host import export as X
    from nakk_host import textfile
    conn = _db(args)
    textfile.output_dir(args.out)
    if args.season is not None:
        name, st = _season(conn, args)
        os.makedirs(args.out, exist_ok=True)
        for fn in ("season.csv", "season.html"):
            if os.path.exists(os.path.join(args.out, fn)) and not args.force:
                _fail("%s exists; give another --out or --force" % os.path.join(args.out, fn))
        a = X.write(os.path.join(args.out, "season.csv"), X.standings_csv(st), True, bom=True)
        b = X.write(os.path.join(args.out, "season.html"), X.standings_html(st, name), True)
        print("\n".join((a, b)))
        return 0
    t = _tour(conn, args)
    for path in X.export_all(conn, t, args.out, args.force):
        print(path)
    return 0


COMMANDS = (
    Command("standings", cmd_standings,
            "the standings, recomputed from every stored match's events",
            "Print the standings recomputed from the stored events, the judge's corrections "
                "and deductions; the order of criteria is printed with the table.",
            arg("--round", type=int, help="after round N"),
            arg("--season", nargs="?", const="", metavar="NAME", help="the season's standings (default: this "
                "tournament's season)"),
            arg("--json", action="store_true", help="one JSON object (the API the hall page reads)"),
            judged()),

    Command("deduct", cmd_deduct,
            "deduct points from a pair's overall result (noise: 4 at the second warning)",
            "Deduct points from a pair's (team's) overall result, from the current round on: "
                "the ruleset's noise_deduction (4, at the second warning) unless --points says otherwise. "
                "A new record with who and why; `nakk void RECORD` withdraws it.",
            arg("no", help="the pair's (team's) number"),
            arg("--points", type=int, help="points to deduct (default: the ruleset's noise_deduction, 4)"),
            who(),
            judged()),

    Command("disqualify", cmd_disqualify,
            "remove a pair: out of the later draws and the season's next stage",
            "Disqualify a pair (team): its matches played stay, it is left out of this "
                "tournament's later draws and ranked after the field, and barred from the season's next "
                "stage. A new record with who and why.",
            arg("no", help="the pair's (team's) number"),
            who(),
            judged()),

    Command("correct", cmd_correct,
            "correct a result with who and why (a new record, never an edit)",
            "Correct a stored result without touching its events: --points per side, "
                "--winner, --void (leave it out), or --place ROUND TABLE (a box's match nobody assigned).",
            arg("result", help="result id (nakk history or nakk standings --json show them)"),
            arg("--points", type=int, nargs="+", metavar="N", help="points to add per side, e.g. 0 -2"),
            arg("--winner", help="A, B, C or none"),
            arg("--void", action="store_true"),
            arg("--place", type=int, nargs=2, metavar=("ROUND", "TABLE")),
            arg("--room", type=int),
            arg("--swap", action="store_true", help="with --place: the box's side A is the draw's second pair"),
            who(),
            judged()),

    Command("void", cmd_void,
            "withdraw a deduction or a correction (a new record; history shows both), or a result",
            "Withdraw one of the judge's deductions or corrections, by its record number "
                "(`nakk history` shows them; deduct and correct print it): a new record with who and why "
                "voids the earlier one, which stays in the history beside it, and every view of the "
                "standings counts without it. Given a result id instead, leaves that result out (as "
                "`nakk correct RESULT --void`).",
            arg("what", metavar="RECORD|RESULT", help="a record number, or a result id"),
            who(),
            judged()),

    Command("history", cmd_history,
            "why every number is what it is: matches, corrections, deductions, who and why",
            "Why every number is what it is. For a pair (team): each match with what it "
                "counts for and its result id, the corrections of it, deductions, status changes and "
                "renames with who and why, then its line of the standings. Without a number: every record "
                "of the judge in order.",
            arg("no", nargs="?", help="a pair's (team's) number; without it: every record of the judge"),
            arg("--json", action="store_true"),
            judged()),

    Command("export", cmd_export,
            "CSV for spreadsheets (standings, matches, deals) and a printable standings page",
            "Write standings.csv, matches.csv and deals.csv (UTF-8 with a BOM, `;` "
                "separated) and standings.html (print CSS, A4) into --out; --season: the season's.",
            arg("--out", default=".", help="directory (default: the current one)"),
            arg("--season", nargs="?", const="", metavar="NAME"),
            arg("--force", action="store_true", help="overwrite existing files"),
            judged()),
)
