"""The `nakk` command: one small function and parser per subcommand; errors as `nakk: message`, non-zero exit."""

import argparse
import sys

from nakk import VERSION
from nakk import rules as rules_pkg
from nakk import score as score_mod


class CommandError(Exception):
    """A user-facing failure: printed as `nakk: message`, exit status 1 (or .status)."""

    def __init__(self, message, status=1):
        Exception.__init__(self, message)
        self.status = status


# ---------------------------------------------------------------- score

def cmd_score(args):
    if args.file == "-":
        return score_mod.run(sys.stdin, args.json)
    try:
        f = open(args.file, encoding="utf-8")
    except OSError as e:
        raise CommandError("cannot read %s: %s" % (args.file, e.strerror or e), 2)
    with f:
        return score_mod.run(f, args.json)


def add_score(sub):
    p = sub.add_parser("score", help="score a match from its events (JSON lines)",
                       description="Read a match as JSON lines of events and print totals, winner and bonuses.")
    p.add_argument("file", help="events file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=cmd_score)


# ---------------------------------------------------------------- rules

def describe_rules(name, lang="en"):
    r = rules_pkg.get(name)
    li = 0 if lang == "et" else 1
    out = ["%s: %s (%s, %d sides, %d players, scored in %s)" % (
        r.name, r.title[li], r.family, r.sides, r.seats, r.unit[li])]
    out.append("")
    out.append("Settings (a club that reads a sentence the other way changes one setting):")
    for s in r.settings:
        default = "true" if s.default is True else "false" if s.default is False else str(s.default)
        out.append("  %s = %s" % (s.key, default))
        out.append("      choices: %s   [%s]" % (s.describe_choices(), s.ref))
        out.append("      %s" % s.text)
    cfg = r.config(None)
    out.append("")
    out.append("What a deal needs (the entry steps, most likely answer first):")
    st = r.start({"sides": []}, cfg)
    fixed, steps = r.form(st, cfg)
    for stp in steps:
        labels = []
        for c in stp["choices"]:
            how = "OK" if c.get("ok") else "side button -> %s" % c.get("side")
            when = ""
            if "when" in c:
                when = " (only for %s)" % "/".join(str(v) for v in c["when"][1])
            labels.append("%s [%s]%s" % (c["label"][li], how, when))
        out.append("  %s: %s" % (stp["label"][li], "; ".join(labels)))
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


def add_rules(sub):
    p = sub.add_parser("rules", help="list the rulesets, or print one ruleset's settings and defaults",
                       description="Print a ruleset's settings, their defaults and alternatives, for a judge.")
    p.add_argument("name", nargs="?", help="ruleset id: " + ", ".join(rules_pkg.NAMES))
    p.add_argument("--lang", choices=("en", "et"), default="en", help="language of the labels")
    p.set_defaults(func=cmd_rules)


# ---------------------------------------------------------------- main

COMMANDS = (add_score, add_rules)


def parser():
    p = argparse.ArgumentParser(prog="nakk", description="Nakk scoreboards: score, simulate, sync and judge.")
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
