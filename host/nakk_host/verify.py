"""Recompute a match from its exact stored bytes with nakk.rules: what the judge trusts is what this folds.

The box's own totals are never taken on faith: every result that reaches the
judge (synced from a box or typed in from paper) is parsed event by event
with the same strict parser and folded with the same rules as on the box.
"""

import hashlib

from nakk.event import EventError, parse
from nakk.match import Match


def split(raw):
    """The event lines of a result's stored bytes (canonical lines joined by "\\n")."""
    return [line for line in bytes(raw).split(b"\n") if line.strip()]


def recompute(raw):
    """Fold the stored bytes again. Returns (events, summary, problems).

    events: the parsed event dicts in order; summary: Match.summary() of all
    of them (or of those before the first invalid one); problems: plain-words
    reasons the result cannot be trusted as it stands (empty when it folds
    cleanly and is over)."""
    problems = []
    events = []
    m = Match()
    n = 0
    for line in split(raw):
        n += 1
        try:
            ev = parse(line)
            m.apply(ev)
        except EventError as e:
            problems.append("event %d does not fold: %s%s" % (n, (e.field + ": ") if e.field else "", e.reason))
            break
        except UnicodeError:
            problems.append("event %d is not UTF-8 text" % n)
            break
        events.append(ev)
    if m.setup is None:
        if not problems:
            problems.append("no setup: a match starts with its setup")
        return events, {"seq": 0, "over": False}, problems
    summary = m.summary()
    if not summary.get("over"):
        problems.append("the match is not over")
    return events, summary, problems


def sha256_hex(raw):
    return hashlib.sha256(bytes(raw)).hexdigest()
