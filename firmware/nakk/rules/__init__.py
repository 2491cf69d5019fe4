"""The rulesets, by id. One game family is one module of this package; adding one is one new file and one line here
(or, for a game kept elsewhere, one register() call)."""

# ruleset id -> (module, attribute, title (et, en), sides, seats, boards: how many a match over
# boards has when its setup does not say, 0 for a match not over boards). Modules
# are imported on first use, so the device only pays for the game it plays (all
# four loaded cost ~50 KB of heap on the 64-bit unix port; Saare mäng alone ~34 KB);
# the start wizard asks its questions from here, so a box on its start screen has
# none loaded. A test checks each entry equals its ruleset's own.
_TABLE = (
    ("saare-2020", "saare", "SAARE_2020", ("Saare mäng 2020", "Saare mäng 2020"), 2, 4, 0),
    ("saare-classic", "saare", "SAARE_CLASSIC", ("Saare mäng (vana)", "Saare mäng classic"), 2, 4, 0),
    ("sasku", "sasku", "SASKU", ("Turniirisasku", "Tournament Sasku"), 2, 4, 8),
    ("schmier", "schmier", "SCHMIER", ("Schmier", "Schmier"), 3, 6, 0),
)

NAMES = [row[0] for row in _TABLE]
TITLES = [row[3] for row in _TABLE]
SIDES = [row[4] for row in _TABLE]   # sides (side buttons) each ruleset needs
SEATS = [row[5] for row in _TABLE]   # players at the table
BOARDS = [row[6] for row in _TABLE]  # boards by default (its "boards" setting), 0: not over boards

_REGISTERED = {}   # id -> ruleset object added by register()


def register(ruleset):
    """Add a ruleset object (a nakk.rules.common.Ruleset) defined outside this package,
    e.g. a test's toy game: from now on get(), NAMES, TITLES and SIDES know it."""
    if ruleset.name in NAMES:
        raise ValueError("ruleset %r is already known" % ruleset.name)
    _REGISTERED[ruleset.name] = ruleset
    NAMES.append(ruleset.name)
    TITLES.append(ruleset.title)
    SIDES.append(ruleset.sides)
    SEATS.append(ruleset.seats)
    BOARDS.append(ruleset.config(None).get("boards", 1) if ruleset.has_boards else 0)


def unregister(name):
    """Forget a ruleset added by register() (a test cleaning up after itself)."""
    if _REGISTERED.pop(name, None) is not None:
        i = NAMES.index(name)
        del NAMES[i]
        del TITLES[i]
        del SIDES[i]
        del SEATS[i]
        del BOARDS[i]


def get(name):
    """The ruleset object for an id; KeyError (with the known ids) if there is none."""
    r = _REGISTERED.get(name)
    if r is not None:
        return r
    for rid, mod, attr, _, _, _, _ in _TABLE:
        if rid == name:
            module = __import__("nakk.rules." + mod, None, None, (attr,))
            return getattr(module, attr)
    raise KeyError("unknown ruleset %r (known: %s)" % (name, ", ".join(NAMES)))
