"""Every worked example of the rules (tests/scenarios/*/*.json) as a test of its own, on both interpreters.

Each scenario holds the events of a match and what the rules reference says
must come out. Every event goes through the real path: canonical bytes
(nakk.event.encode), strict parsing (nakk.event.parse), then the fold (or,
for a team match over two rooms, nakk.offbox.teams). The test functions are made
here, one per file, named test_<scenario id>.
"""

import json
import os

from nakk import rules
from nakk.event import EventError, encode, parse
from nakk.match import Match
from nakk.offbox.teams import team_match

# every ruleset loaded now, on a heap that holds nothing else yet: MicroPython compiles a
# module from source in one piece, and a capped heap cut up by the scenarios may have no
# block big enough left for it later (on the box the firmware is bytecode, never compiled)
for _name_ in rules.NAMES:
    rules.get(_name_)

# tests/scenarios, from this file's path (MicroPython's os has no os.path)
SCENARIOS = "/".join(__file__.replace("\\", "/").split("/")[:-2] or ["."]) + "/scenarios"


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


def files(root=SCENARIOS):
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


def _name(ident):
    return "test_" + "".join(c if c.isalpha() or c.isdigit() else "_" for c in ident)


def _test(path):
    def test():
        with open(path) as f:
            why = check(json.load(f))
        assert why is None, why
    return test


def _make():
    made = {}
    for path in files():
        with open(path) as f:
            ident = json.load(f)["id"]
        name = _name(ident)
        assert name not in made, "two scenarios named %s" % ident
        made[name] = _test(path)
    return made


_MADE = _make()
globals().update(_MADE)


def test_every_worked_example_is_a_test():
    assert len(_MADE) >= 85      # every worked example in the rules reference, with their variants
