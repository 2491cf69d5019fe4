"""Score a match from its events (JSON lines): totals, winner and bonuses, as a table or JSON.

The same code runs on the judge's laptop (`nakk score FILE`) and on the
MicroPython unix port (`micropython -m nakk.offbox.score FILE`).
Exit status: 0 scored, 2 an invalid event (its line, field and reason on stderr).
"""

import sys

from nakk import rules as _rules
from nakk.event import SIDES, encode
from nakk.match import read_lines


def ending(summary):
    """How a finished match ended, in the judge's words (its ruleset's)."""
    return _rules.get(summary["ruleset"]).ending(summary["ended"])


def no_winner(summary):
    """Why a finished match has no winner, when its ruleset says so for this ending (else None)."""
    for row in _rules.get(summary["ruleset"]).no_winner:
        if row[0] == summary["ended"]:
            return row[1]
    return None


def _pad(s, n):
    s = str(s)
    return s + " " * (n - len(s)) if len(s) < n else s


def _rpad(s, n):
    s = str(s)
    return " " * (n - len(s)) + s if len(s) < n else s


def table(summary):
    """A readable table of one match's result."""
    s = summary
    lines = []
    lines.append("%s, %d events, %d deals%s" % (
        s["ruleset"], s["seq"], s["deals"], (", %d redeals" % s["redeals"]) if s["redeals"] else ""))
    names = s["sides"]
    width = max(8, max(len(n) for n in names) + 2)
    head = _pad("side", 6) + _pad("name", width) + _rpad("score", 7) + _rpad("bonus", 7) + _rpad("final", 7)
    rules = _rules.get(s["ruleset"])
    if "marks" in s and any(s["marks"]):
        head += _rpad(rules.marks_word, 9)
    lines.append(head)
    for i in range(len(names)):
        row = _pad(SIDES[i], 6) + _pad(names[i], width) + _rpad(s["score"][i], 7) + \
            _rpad(s["bonus"][i], 7) + _rpad(s["final"][i], 7)
        if "marks" in s and any(s["marks"]):
            row += _rpad(s["marks"][i], 9)
        lines.append(row)
    if s["over"]:
        why = ending(s)
        if s["winner"] is not None:
            lines.append("over (%s): winner %s %s" % (why, s["winner"], names[SIDES.index(s["winner"])]))
        else:
            lines.append("over (%s): no winner in this box" % why)
    else:
        lines.append("not over: %s shuffles next (seat %d)" % (
            SIDES[s["shuffler"] % len(names)], s["shuffler"]))
    lines.extend(rules.notes(s))
    if any(s.get("deductions", ())):
        lines.append("deductions from the tournament result: " + ", ".join(
            "%s %d" % (SIDES[i], s["deductions"][i]) for i in range(len(names)) if s["deductions"][i]))
    if s.get("disputed"):
        lines.append("disputed by " + ", ".join(s["disputed"]))
    if s.get("confirmed"):
        lines.append("confirmed by " + ", ".join(s["confirmed"]))
    return "\n".join(lines)


def run(lines, as_json=False, out=None, err=None):
    """Score JSON lines; write the result; return the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    m, error = read_lines(lines)
    if error is not None:
        n, e = error
        err.write("nakk: line %d: %s%s\n" % (n, (e.field + ": ") if e.field else "", e.reason))
        return 2
    if m.setup is None:
        err.write("nakk: no events: a match starts with its setup\n")
        return 2
    s = m.summary()
    if as_json:
        out.write(encode(s).decode() + "\n")
    else:
        out.write(table(s) + "\n")
    return 0


def main(argv):
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if len(args) != 1:
        sys.stderr.write("usage: nakk score FILE|- [--json]\n")
        return 2
    # bytes, not text: a file that is not UTF-8 is then reported by line and column
    if args[0] == "-":
        return run(sys.stdin.buffer, as_json)
    try:
        f = open(args[0], "rb")
    except OSError as e:
        sys.stderr.write("nakk: cannot read %s: %s\n" % (args[0], e))
        return 2
    try:
        return run(f, as_json)
    finally:
        f.close()


if __name__ == "__main__":
    # `micropython -m nakk.offbox.score FILE` leaves the module name in argv[0]
    sys.exit(main(sys.argv[1:]))
