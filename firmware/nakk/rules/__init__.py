"""The rulesets, by id. One game family is one module of this package; adding one is one new file and one line here."""

# ruleset id -> (module, attribute, title (et, en)). Modules are imported on
# first use, so the device only pays for the game it plays (all four loaded
# cost ~50 KB of heap on the 64-bit unix port); the start screen lists the
# titles from here. A test checks each title and side count equals its ruleset's own.
_TABLE = (
    ("saare-2020", "saare", "SAARE_2020", ("Saare mäng 2020", "Saare mäng 2020"), 2),
    ("saare-classic", "saare", "SAARE_CLASSIC", ("Saare mäng (vana)", "Saare mäng classic"), 2),
    ("sasku", "sasku", "SASKU", ("Turniirisasku", "Tournament Sasku"), 2),
    ("schmier", "schmier", "SCHMIER", ("Schmier", "Schmier"), 3),
)

NAMES = tuple(row[0] for row in _TABLE)
TITLES = tuple(row[3] for row in _TABLE)
SIDES = tuple(row[4] for row in _TABLE)   # sides (side buttons) each ruleset needs


def get(name):
    """The ruleset object for an id; KeyError (with the known ids) if there is none."""
    for rid, mod, attr, _, _ in _TABLE:
        if rid == name:
            module = __import__("nakk.rules." + mod, None, None, (attr,))
            return getattr(module, attr)
    raise KeyError("unknown ruleset %r (known: %s)" % (name, ", ".join(NAMES)))
