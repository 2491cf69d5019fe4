"""The `nakk` command: score, rules, flash and serve here; the others from their modules' COMMANDS tables
(cmdtable.py says how an entry reads). Errors are one `nakk: message` line and a non-zero exit."""

import argparse
import sys

from nakk import VERSION
from nakk import rules as rules_pkg
from nakk.offbox import score as score_mod
from nakk_host import cli_acts, cli_judge, cli_sim, judge, uf2build
from nakk_host.console import server as judge_console
from nakk_host.cmdtable import Command, arg, db, live_scores
from nakk_host.errors import CommandError


# ---------------------------------------------------------------- score

def cmd_score(args):
    from nakk_host import textfile
    lines, _ = textfile.read_events(args.file)     # a bad line is refused as `nakk close --events` refuses it
    return score_mod.run(lines, args.json)


# ---------------------------------------------------------------- rules

def describe_rules(name, lang="en"):
    r = rules_pkg.get(name)
    li = 0 if lang == "et" else 1
    out = ["%s: %s (%s, %d sides, %d players, scored in %s)" % (
        r.name, r.title[li], r.family, r.sides, r.seats, r.unit[li])]
    out.append("")
    out.append("Settings (a club that reads a sentence the other way changes one setting;")
    out.append("the [references] are explained in docs/rules.md of the Nakk repository):")
    for s in r.settings:
        default = "true" if s.default is True else "false" if s.default is False else str(s.default)
        out.append("  %s = %s" % (s.key, default))
        out.append("      choices: %s   [%s]" % (s.describe_choices(), s.ref))
        out.append("      %s" % s.text)
    cfg = r.config(None)
    out.append("")
    out.append("What a deal needs (the entry steps; each list as the cursor meets it: the likeliest under it, the next likeliest one NEXT or PREV away):")
    st = r.start({"sides": []}, cfg)
    fixed, steps = r.form(st, cfg)
    for stp in steps:
        labels = []
        for c in stp["choices"]:
            hows = []
            if c.get("side") is not None:
                fills = [c["side"]] + list(c.get("also", ()))
                how = "side button -> %s" % "+".join(fills)
                if c.get("opp"):
                    how += ", the other side -> %s" % c["opp"]
                for k in sorted(c.get("sets", {})):
                    how += ", %s = %s" % (k, c["sets"][k])
                hows.append(how)
            if c.get("ok"):
                hows.append("OK" + (", the rest to %s" % stp["rest"] if c.get("rests") else ""))
            when = ""
            if "when" in c:
                when = " (only for %s)" % "/".join(str(v) for v in c["when"][1])
            labels.append("%s [%s]%s" % (c["label"][li], " or ".join(hows), when))
        head = stp["label"][li]
        if "count" in stp:
            head += (" (a tally of %d: a side button adds the amount chosen, the cursor stays on it; OK gives the"
                     " rest to %s)" % (stp["count"], stp["rest"]))
        if "ok" in stp:
            labels.append("OK on any: %s" % stp["ok"]["label"][li])
        out.append("  %s: %s" % (head, "; ".join(labels)))
    if r.offences:
        out.append("")
        out.append("Penalties: " + ", ".join("%s (%s)" % (o[0], o[2 - (li == 0)]) for o in r.offences))
    if r.redeal_reasons:
        out.append("Redeal reasons: " + ", ".join(o[0] for o in r.redeal_reasons))
    return "\n".join(out)


def cmd_rules(args):
    if args.name is None:
        for name in rules_pkg.NAMES:
            r = rules_pkg.get(name)
            print("%-14s %s" % (name, r.title[1]))
        return 0
    try:
        print(describe_rules(args.name, args.lang))
    except KeyError as e:
        raise CommandError(str(e.args[0]), 2)
    return 0


# ---------------------------------------------------------------- flash

def cmd_flash(args):
    from mpremote.transport import TransportError
    try:
        return _flash(args)
    except (OSError, TransportError) as e:     # pyserial's SerialException is an OSError
        raise CommandError("the box went away during nakk flash (%s): plug it in again and run nakk flash again "
                           "(a box cut off mid-copy boots to the REPL, not half-updated)" % (str(e).strip() or type(e).__name__))


def _flash(args):
    from nakk_host import flash
    if args.uf2:
        from nakk_host import uf2flash
        try:
            r = uf2flash.install(args.uf2, args.port, say=print, db=args.db)
        except flash.FlashError as e:
            raise CommandError(str(e))
        print("the box runs firmware %s (build %s); %d result%s waiting for the judge"
              % (r["after"]["fw"], r["after"]["build"], r["after"].get("unsynced", 0),
                 "" if r["after"].get("unsynced", 0) == 1 else "s"))
        return 0
    try:
        r = flash.flash(args.port, force=args.force, say=print, progress=sys.stdout.isatty(), db=args.db)
    except flash.FlashError as e:
        raise CommandError(str(e))
    if r["copied"] or r["removed"]:
        print("copied %d file%s (%d bytes)%s; firmware %s (build %s) on MicroPython %s; the app restarts"
              % (len(r["copied"]), "" if len(r["copied"]) == 1 else "s", r["bytes"],
                 (", removed %d" % len(r["removed"])) if r["removed"] else "",
                 r["version"], r["build"], r["micropython"]))
    else:
        print("nothing to copy: the box has firmware %s (build %s); the app restarts" % (r["version"], r["build"]))
    return 0


# ---------------------------------------------------------------- serve

def cmd_serve(args):
    from nakk_host import store
    from nakk_host.hall import server
    if args.page_seconds < 1:
        raise CommandError("--page-seconds is at least 1 (got %d)" % args.page_seconds, 2)
    try:
        store.open_db(args.db, create=False).close()   # a Nakk database, migrated by the judge's own tool
    except store.StoreError as e:
        raise CommandError(str(e))
    if args.quiet_minutes <= 0:
        raise CommandError("--quiet-minutes is more than 0 (got %g)" % args.quiet_minutes, 2)
    if args.live:
        from nakk_host import live
        try:
            _srv, line = live.listen(args.db, args.live)
        except live.LiveError as e:
            raise CommandError(str(e))
        print(line, flush=True)
    try:
        return server.serve(args.db, args.host, args.port, page_seconds=args.page_seconds,
                            quiet_s=args.quiet_minutes * 60)
    except server.ServeError as e:
        raise CommandError(str(e))


# ---------------------------------------------------------------- main

_HERE = (
    Command("score", cmd_score,
            "score a match from its events (JSON lines)",
            "Read a match as JSON lines of events and print totals, winner and bonuses.",
            arg("file", help="events file, or - for standard input"),
            arg("--json", action="store_true", help="print the result as one JSON object")),

    Command("rules", cmd_rules,
            "list the rulesets, or print one ruleset's settings and defaults",
            "Print a ruleset's settings, their defaults and alternatives, for a judge.",
            arg("name", nargs="?", help="ruleset id: " + ", ".join(rules_pkg.NAMES)),
            arg("--lang", choices=("en", "et"), default="en", help="language of the labels")),
)

_DEVICE = (
    Command("flash", cmd_flash,
            "install or update the firmware on a box (a Pico with MicroPython) over USB",
            "Put the firmware and its dependencies onto the one connected box, copying only "
                "what changed, then restart its app. Refuses while finished results wait for "
                "the judge.",
            arg("--port", help="the box's serial port or a pyserial URL (default: the one Pico on USB)"),
            arg("--force", action="store_true", help="flash even though results wait for the judge (they stay on the box)"),
            db(after=": a paired box enters maintenance mode only on a request signed with the key kept there"),
            arg("--uf2", metavar="FILE", help="install this UF2 (nakk build's) through the Pico's BOOTSEL drive "
                "instead of copying .mpy files; the box's results stay on it")),

    Command("serve", cmd_serve,
            "the hall's live standings pages in a browser (read-only web server)",
            "Serve the hall's pages from the judge's database: standings, the round's draw, "
                "each table's state and every match's deals, in Estonian (English by a link), with a "
                "projector view. Pages update themselves within 2 s of a store. Read-only: nothing a visitor "
                "sends changes the database. Listens on the loopback address unless --host says otherwise.",
            db(),
            arg("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this laptop only; 0.0.0.0 serves the hall's network)"),
            arg("--port", type=int, default=8080, help="port (default: %(default)s)"),
            arg("--page-seconds", type=int, default=10, metavar="N", help="the projector shows each page of standings for N seconds (default: %(default)s)"),
            live_scores("the hall")),
)

# every command in the order `nakk --help` lists them: the simulator (cli_sim.py), flash and serve, the
# judge's console (console/server.py: judge), the boxes (judge.py: sync, results, pair, doctor), the judge's
# day (cli_judge.py: tournament, players, round, assign, enter, close), its numbers (cli_acts.py: standings,
# deduct, disqualify, correct, void, history, export), the UF2
COMMANDS = (_HERE + cli_sim.COMMANDS + _DEVICE + judge_console.COMMANDS + judge.COMMANDS + cli_judge.COMMANDS
            + cli_acts.COMMANDS + uf2build.COMMANDS)


class _Parser(argparse.ArgumentParser):
    """argparse, but a wrong command line is one `nakk: …` line like every other refusal (exit 2)."""

    def error(self, message):
        sub = self.prog[len("nakk"):].strip()
        self.exit(2, "nakk: %s%s (`%s --help` shows the options)\n" % (sub + ": " if sub else "", message, self.prog))


def parser():
    p = _Parser(prog="nakk", description="Nakk scoreboards: score a match from its events, print a ruleset's "
                                "settings, run the box on the simulator, put the firmware on a box; the judge's day: "
                                "tournaments, players, the draw, assignments, sync with the boxes, paper sheets, "
                                "standings, corrections and the history, exports, the hall's pages and the judge's console in "
                                "a browser. `nakk COMMAND --help` says more.")
    p.add_argument("--version", action="version", version="nakk " + VERSION)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in COMMANDS:
        add(sub)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except CommandError as e:
        sys.stderr.write("nakk: %s\n" % e)
        return e.status
    except KeyboardInterrupt:
        sys.stderr.write("nakk: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
