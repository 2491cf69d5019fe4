"""The start wizard: a new match set up by hand (game, table, round, room and boards, first to shuffle), each with PREV/NEXT and OK.

The UI (nakk.ui.flows) shows `show()`'s list and hands each OK to choose(); the
last answer gives the setup event's fields. The judge's assignment, when
there is one, is offered before this (by the UI), and one OK takes it.
"""

from nakk.compat import const, let_go

from nakk import rules as _rules
from nakk.ui import words as W
from nakk.event import SIDES

_GAME = const(0)
_TABLE = const(1)
_ROUND = const(2)
_ROOM = const(3)
_FIRST = const(4)
_BOARDS = const(5)
# the numbered steps: (setup field, title, how many numbers)
_NUMBERS = {_TABLE: ("table", W.TABLE, 99), _ROUND: ("round", W.ROUND, 99), _ROOM: ("room", W.ROOM, 2),
            _BOARDS: ("boards", W.BOARDS, 64)}


class StartWizard:
    def __init__(self, max_sides):
        """max_sides: side buttons the box has (a game needing more is not offered)."""
        self.max_sides = max_sides
        self.values = None         # the setup chosen so far: ruleset, table, round, room, first_shuffler
        self.step = 0              # index into steps()

    def games(self):
        """The rulesets this box can play: a three-side game needs the third side button."""
        return [_rules.NAMES[i] for i in range(len(_rules.NAMES)) if _rules.SIDES[i] <= self.max_sides]

    def begin(self, prev):
        """From the first step; prev: the match before (its game, its table and the next round
        are the likely answers), or None."""
        games = self.games()
        last = prev.rules.name if prev is not None and prev.rules is not None else None
        setup = prev.setup if prev is not None else None
        self.values = {"ruleset": last if last in games else games[0],
                       "table": setup.get("table", 1) if setup is not None else 1,
                       "round": (setup.get("round", 0) + 1) if setup is not None else 1,
                       "room": 1, "boards": 0, "first_shuffler": 0}
        self.step = 0

    def _steps(self):
        # from the rulesets' table: the ruleset itself is not loaded until a match needs it
        r = _rules.NAMES.index(self.values["ruleset"])
        steps = [_GAME, _TABLE, _ROUND]
        if _rules.BOARDS[r]:
            # a match over boards: which room, and how many boards (the ruleset's default first)
            steps.append(_ROOM)
            steps.append(_BOARDS)
        steps.append(_FIRST)
        return r, steps

    def show(self):
        """The current step: (title, items, cursor on the likely answer)."""
        r, steps = self._steps()
        s = steps[self.step]
        v = self.values
        if s == _GAME:
            names = self.games()
            titles = [_rules.TITLES[_rules.NAMES.index(n)] for n in names]
            return W.RULES, titles, names.index(v["ruleset"]) if v["ruleset"] in names else 0
        if s == _FIRST:
            return W.FIRST, [W.seat_name(i, _rules.SIDES[r]) for i in range(_rules.SEATS[r])], v["first_shuffler"]
        key, title, n = _NUMBERS[s]
        if s == _BOARDS and not v["boards"]:
            v["boards"] = _rules.BOARDS[r]     # the ruleset's default, from the table: not imported here
        return title, range(1, n + 1), min(v[key], n) - 1   # the font draws ints

    def choose(self, cursor):
        """OK on the item at cursor: None while steps remain, else the setup fields."""
        r, steps = self._steps()
        s = steps[self.step]
        v = self.values
        if s == _GAME:
            v["ruleset"] = self.games()[cursor]
            v["first_shuffler"] = 0
            v["boards"] = 0
            r, steps = self._steps()
        elif s == _FIRST:
            v["first_shuffler"] = cursor
        else:
            v[_NUMBERS[s][0]] = cursor + 1
        self.step += 1
        if self.step < len(steps):
            return None
        setup = {"ruleset": v["ruleset"], "table": v["table"], "round": v["round"],
                 "first_shuffler": v["first_shuffler"],
                 "sides": [{"id": SIDES[i], "name": SIDES[i]} for i in range(_rules.SIDES[r])]}
        if _rules.BOARDS[r]:
            setup["room"] = v["room"]
            setup["boards"] = [1, v["boards"]]
        return setup

    def likely(self, cursor):
        """The setup OK on cursor would give (choose() without choosing), or None when
        OK would not end the wizard."""
        r, steps = self._steps()
        if self.step != len(steps) - 1:
            return None
        v, step = self.values, self.step
        self.values = dict(v)
        try:
            return self.choose(cursor)
        finally:
            self.values, self.step = v, step

    def back(self):
        """One step back; False at the first."""
        if self.step == 0:
            return False
        self.step -= 1
        return True


def assignment_lines(a, lang):
    """The judge's assignment as the start screen lists it, a line a row (nakk.ui.setwords,
    imported for it and let go after: its words are a few KB of heap where modules are not
    frozen, and the box needs them once an assignment)."""
    from nakk.ui import setwords
    try:
        return setwords.lines(a, lang)
    finally:
        let_go("nakk.ui.setwords")
