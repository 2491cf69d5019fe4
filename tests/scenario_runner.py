"""Run the worked-example scenarios (tests/scenarios/*/*.json) on this interpreter: CPython or MicroPython.

Each scenario holds the events of a match and what the rules reference says
must come out. Every event goes through the real path: canonical bytes
(nakk.event.encode), strict parsing (nakk.event.parse), then the fold.
As a script it prints one line per scenario: "PASS id" or "FAIL id: why".
"""

import json
import os
import sys

from nakk.event import EventError, encode, parse
from nakk.match import Match
from nakk.teams import team_match


def _roundtrip(ev):
    return parse(encode(ev))


def check(scenario):
    """None when the scenario holds, else a message saying what differs."""
    expect = scenario["expect"]
    if "rooms" in scenario:
        rooms = [[_roundtrip(e) for e in r] for r in scenario["rooms"]]
        res = team_match(rooms[0], rooms[1])
        got = {"teams": res["teams"], "totals": res["totals"], "winner": res["winner"],
               "lines": [b["points"] for b in res["boards"]],
               "cancelled": [b["cancelled"] for b in res["boards"]]}
        return _compare(expect, got)
    m = Match()
    for ev in scenario["events"]:
        try:
            m.apply(_roundtrip(ev))
        except EventError as e:
            want = expect.get("error")
            if want is None:
                return "event %s rejected: %s" % (ev.get("seq"), e)
            if want.get("seq") != ev.get("seq") or want.get("field") != e.field:
                return "rejected at seq %s field %r, expected seq %s field %r" % (
                    ev.get("seq"), e.field, want.get("seq"), want.get("field"))
            return None
    if "error" in expect:
        return "expected a rejection at seq %s, all events were accepted" % expect["error"]["seq"]
    return _compare(expect, m.summary())


def _compare(expect, got):
    for key in sorted(expect):
        if key not in got:
            return "%s: missing from the result" % key
        if got[key] != expect[key]:
            return "%s: got %r, expected %r" % (key, got[key], expect[key])
    return None


def load(path):
    with open(path) as f:
        return json.load(f)


def files(root):
    out = []
    for d in sorted(os.listdir(root)):
        sub = root + "/" + d
        try:
            names = sorted(os.listdir(sub))
        except OSError:
            continue
        for n in names:
            if n.endswith(".json"):
                out.append(sub + "/" + n)
    return out


def main(root):
    failed = 0
    for path in files(root):
        sc = load(path)
        try:
            why = check(sc)
        except Exception as e:  # a crash is a failure of that scenario, not of the run
            why = "crashed: %s: %s" % (type(e).__name__, e)
        if why is None:
            print("PASS " + sc["id"])
        else:
            failed += 1
            print("FAIL %s: %s" % (sc["id"], why))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tests/scenarios"))
