"""The deal-form interpreter's small functions (nakk.ui.dealform, apart for its size): what a step's choices depend on, a tally's counts and what it offers, and the answers filled.

Each is called on a press; their frames stay within 11 words (tests/test_press_frames.py).
"""

from nakk.event import SIDES


_MIXED = object()   # _when_field: the choices depend on more than one earlier answer


def _when_field(choices):
    """The one earlier field the choices' `when` depend on: None (none), or _MIXED."""
    field = None
    for c in choices:
        w = c.get("when")
        if w is not None:
            if field is None:
                field = w[0]
            elif field != w[0]:
                return _MIXED
    return field


def _index(choices, v):
    """Where the choice of value v is among choices, or -1."""
    for j in range(len(choices)):
        if choices[j]["value"] == v:
            return j
    return -1


def _choice_of(s, v):
    """Step s's choice of value v, or its own OK answer of that value, or None."""
    j = _index(s["choices"], v)
    if j >= 0:
        return s["choices"][j]
    c = s.get("ok")
    if c is not None and c["value"] == v:
        return c
    return None


def _counted(got, sides):
    """The counts a tally's small int gives all sides (6 bits a side)."""
    n = 0
    for i in range(sides):
        n += (got >> 6 * i) & 63
    return n


def _fits(adds, left):
    """Whether a tally's choice that adds `adds` is offered with `left` still to give: a side's
    "+n" while n are left, the "one for nobody" while one is, "Salvesta" (adds 0) once none is."""
    return adds <= left if adds else left <= 0


def _unfits(choices, left):
    # how many of a tally's choices _fits leaves out (an index, not a for loop: its
    # iterator would take the frame past 11 words)
    k = 0
    i = len(choices)
    while i:
        i -= 1
        if not _fits(choices[i].get("adds", 1), left):
            k += 1
    return k


def _innocent(a, inn):
    # after a sohk the innocent pair wins: the fields inn[1] get the side not in field inn[0]
    who = SIDES[1 - SIDES.index(a[inn[0]])]
    _put_each(a, inn[1], who)


def _tally_list(v, sides):
    # (apart: a comprehension in _to_list would close over its locals, and closed-over locals
    # are boxed in cells at every call, a tally or not: 32 bytes a step of every deal)
    return [(v >> 6 * i) & 63 for i in range(sides)]


_NONE = []      # never changed: `x + _NONE` is a copy of list x made at its size (no slice object)


def _labels(offered):
    # the choices' labels in a list made at its size: one grown by appends past four items
    # is allocated again (a tally's first list is five)
    out = offered + _NONE
    i = len(out)
    while i:
        i -= 1
        out[i] = out[i]["label"]
    return out


def _put_each(a, keys, v):
    if keys is not None:
        for k in keys:
            a[k] = v


def _put_all(a, sets):
    if sets is not None:
        for k in sets:
            a[k] = sets[k]
