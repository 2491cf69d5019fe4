"""The rulesets, by id. One game family is one module of this package; adding one is one new file and one line here."""

# ruleset id -> (module, attribute). Modules are imported on first use, so the
# device only pays for the game it plays.
_TABLE = (
    ("saare-2020", "saare", "SAARE_2020"),
    ("saare-classic", "saare", "SAARE_CLASSIC"),
    ("sasku", "sasku", "SASKU"),
    ("schmier", "schmier", "SCHMIER"),
)

NAMES = tuple(row[0] for row in _TABLE)


def get(name):
    """The ruleset object for an id; KeyError (with the known ids) if there is none."""
    for rid, mod, attr in _TABLE:
        if rid == name:
            module = __import__("nakk.rules." + mod, None, None, (attr,))
            return getattr(module, attr)
    raise KeyError("unknown ruleset %r (known: %s)" % (name, ", ".join(NAMES)))
