"""The deal-form interpreter: one deal entered step by step from its ruleset's form (nakk.rules.common, "deal forms").

The form is read-only here: the lists a step offers are kept in this object's own cache,
never written into the ruleset's dicts. The UI (nakk.ui.flows) shows `show()`'s step, moves
its cursor over `choices`, and turns the players' presses into answer(), rest() and back();
when show() says the form is complete, `fields()` is the deal event the table checks.

A side press may answer more than its step: a choice's `also`, `opp` and
`sets` fill other fields, and a later step whose field is filled so is not
asked (one press for "this pair made it and won"). A tally step (`count`)
stays on screen until its count is given. `done` remembers, as bits, the steps
the players answered themselves, so a take-back goes to the last of them.
"""

from nakk.event import SIDES


def _room(n):
    """{"type": "deal"} with room for n fields (its table keeps the size of the most it held)."""
    d = {"type": "deal"}
    for i in range(n):
        d[i] = None
    for i in range(n):
        del d[i]
    return d


_EVENT = _room(8)       # a deal event: type, seq and up to 8 more without growing


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
    return c if c is not None and c["value"] == v else None


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
    o = a.get(inn[0])
    if o is not None:
        _put_each(a, inn[1], SIDES[1 - SIDES.index(o)])


def _tally_list(v, sides):
    # (apart: a comprehension in _to_list would close over its locals, and closed-over locals
    # are boxed in cells at every call, a tally or not: 32 bytes a step of every deal)
    return [(v >> 6 * i) & 63 for i in range(sides)]


def _put_each(a, keys, v):
    if keys is not None:
        for k in keys:
            a[k] = v


def _put_all(a, sets):
    if sets is not None:
        for k in sets:
            a[k] = sets[k]


class DealEntry:
    def __init__(self):
        self.fixed = None          # fields the form fixes without asking (e.g. the board number)
        self.steps = ()            # the form's steps
        self.step = 0              # index of the step being answered
        self.answers = {}          # event fields answered so far
        self.done = 0              # bit i: step i was answered by a press (not skipped, not set by another)
        self.sides = 2             # sides of the match (a tally counts for each)
        self._counting = False     # _offered's step is a tally
        self._living = False       # _offered's step is `live`
        self.choices = ()          # what the current step offers (its conditions applied)
        self.label = None          # the current step's label, and its choices' labels (show(), back())
        self.labels = ()
        self._form_match = None    # the match, form key and steps of the form in fixed/steps,
        self._form_key = None      # when it may be used again (separate fields: no tuple per deal)
        self._form_steps = None
        self._lists = {}           # step index -> (choices offered, their labels), for steps without conditions
        self._lists_of = None      # the steps those lists belong to
        self._m = None             # the match (a `live` step asks its ruleset what it offers)

    def begin(self, m):
        """A new deal of match m: the ruleset's form for it (the last deal's again when
        its form_key says the form is the same), nothing answered."""
        key = m.rules.form_key(m.st)
        self.sides = m.rules.sides
        self._m = m
        if key is None or self._form_match is not m or self._form_key != key or self._form_steps is not self.steps:
            # not the questions of the last deal (or a take-back put other steps
            # in place since): the ruleset's form for this one
            self.fixed, self.steps = m.rules.form(m.st, m.cfg)
            self._form_match = m if key is not None else None
            self._form_key = key
            self._form_steps = self.steps
        a = self.answers
        while a:
            a.popitem()   # the same dict, emptied, keeps its room: a deal's answers then allocate nothing
        self.step = 0
        self.done = 0

    # The form's functions a press calls keep their frames within 11 words (a bigger one is
    # allocated on the heap at every call: ~0.1 ms on the Pico's app heap), hence the helpers.
    def _offered(self, stp):
        out = []
        self._counting = "count" in stp
        self._living = "live" in stp
        for c in stp["choices"]:
            if self._offers(c):
                out.append(c)
        return out

    def _offers(self, c):
        if self._living and not self._m.rules.offers(self._m.st, c):
            return False
        w = c.get("when")
        if w is not None and self._given(w[0]) not in w[1]:
            return False
        if self._counting and not _fits(c.get("adds", 1), self.left()):
            return False                  # a tally's "+3" while fewer are left, its "Salvesta" before
        # a tally's "one for nobody" is given once
        return not (self._counting and "sets" in c and self._taken(c))

    def _on(self, stp):
        """Whether step stp is asked with the answers so far (its `only`: e.g. a sohk's own steps)."""
        o = stp.get("only")
        return o is None or self._given(o[0]) in o[1]

    def _given(self, field):
        """The answer to field so far (or the form's fixed value), or None."""
        return self.answers.get(field, self.fixed.get(field))

    def _taken(self, c):
        for k in c["sets"]:
            if k in self.answers:
                return True
        return False

    def _key(self, stp):
        """Where show() keeps the current step's lists (see there), or None: made every time."""
        if "count" in stp:
            return -1 - 64 * self.step - (32 if self._nobodies(stp) else 0) - _unfits(stp["choices"], self.left())
        if stp.get("live"):
            return None                   # what the match allows now: made every time
        field = _when_field(stp["choices"])
        if field is _MIXED:
            return None
        if field is None:
            return self.step
        return self._value_key(field, self._given(field))

    def _value_key(self, field, v):
        # a small int, not a (step, value) tuple (an allocation per press): the step, and
        # where the value is among the choices of the step that asks for the field
        s = self._asks(field)
        if s is not None:
            j = _index(s["choices"], v)
            if j >= 0:
                return 1000 + self.step * 100 + j
            c = s.get("ok")
            if c is not None and c["value"] == v:
                return 1000 + self.step * 100 + 99
        return (self.step, v)

    def _asks(self, field):
        """The first step that asks for field, or None."""
        for s in self.steps:
            if s["key"] == field:
                return s
        return None

    # A tally is kept in the answers as one small int, 6 bits a side (side i's count is
    # (v >> 6 * i) & 63): a press then makes no list, and a screen kept for a take-back holds
    # the count it had. fields() turns it into the event's list.

    def left(self):
        """How many of the current tally step's count are still to give (0 on other steps)."""
        stp = self.steps[self.step]
        n = stp.get("count")
        if n is None:
            return 0
        return n - _counted(self.answers.get(stp["key"], 0), self.sides) - self._nobodies(stp)

    def _nobodies(self, stp):
        """How many of a tally step's "one for nobody" answers are given."""
        k = 0
        for c in stp["choices"]:
            if "sets" in c and self._taken(c):
                k += 1
        return k

    def tally(self, side):
        """The count given to side so far on the current tally step, or -1 on another step."""
        stp = self.steps[self.step]
        if "count" not in stp:
            return -1
        return (self.answers.get(stp["key"], 0) >> 6 * side) & 63

    def show(self):
        """Move to the step to answer, skipping steps that offer nothing or whose field an
        earlier answer filled: True with its label and its choices' labels in label and labels
        (no tuple made: a press allocates as little as it can); False when every step is
        answered (fields() is then the deal)."""
        if self._lists_of is not self.steps:
            self._lists.clear()           # the same dict again: one object less per new form
            self._lists_of = self.steps
        while self.step < len(self.steps):
            stp = self.steps[self.step]
            if stp["key"] in self.answers and ("count" not in stp or self.left() <= 0 and not self._held(stp)) \
                    or not self._on(stp):
                self.step += 1            # answered by an earlier press (or a tally complete), or not asked
                continue
            # its lists, made once: a step without conditions under its index; a step whose
            # conditions all read one field once per value of that field (the results of
            # each game); a tally step once with its "one for nobody" on offer, once without,
            # each with and without its choices that add more than is left
            at = self._key(stp)
            made = self._lists.get(at) if at is not None else None
            if made is None:
                offered = self._offered(stp)
                labels = [c["label"] for c in offered]
                if at is not None:
                    self._lists[at] = (offered, labels)
            else:
                offered, labels = made
            if offered:
                self.choices = offered
                self.label = self._label(stp)
                self.labels = labels
                return True
            self.step += 1
        return False

    def _label(self, stp):
        """The step's label, or (`named`: a field) the name of the answer to that field, so the
        screen keeps saying which game a result is for."""
        field = stp.get("named")
        if field is not None:
            c = self._named(field, self._given(field))
            if c is not None:
                return c.get("name", c["label"])
        return stp["label"]

    def _named(self, field, v):
        # the choice answering field with v (or the step's own OK answer: a pokk), or None
        # (_choice_of asked again when found, not kept: a local more makes the frame 12 words)
        for s in self.steps:
            if s["key"] == field and _choice_of(s, v) is not None:
                return _choice_of(s, v)
        return None

    def fields(self):
        """The deal event of the answers (a fresh dict: the table numbers it)."""
        # a copy of a dict with room for the whole event: one table allocated, never
        # grown (a literal grows it two or three times on the way, each a multi-block
        # allocation: ~0.5 ms apiece on the Pico's fragmented heap, docs/latency.md)
        ev = _EVENT.copy()
        _put_all(ev, self.fixed)
        _put_all(ev, self.answers)
        for stp in self.steps:
            self._to_list(ev, stp)
        return ev

    def _to_list(self, ev, stp):
        # a tally's small int (6 bits a side) as the event's list
        if "count" in stp and stp["key"] in ev:
            ev[stp["key"]] = _tally_list(ev[stp["key"]], self.sides)

    def answer(self, c, side, held=None):
        """Choice c of the current step, by side index `side` (None: OK); held: the step's (sets, words) for c."""
        stp = self.steps[self.step]
        a = self.answers
        self.done |= 1 << self.step
        if "count" in stp:
            self._count(c, side, held)
            return
        if not c.get("omit"):              # a sohk names its offender and no result
            a[stp["key"]] = c["value"]
        if side is not None:
            self._by_side(c, side, stp)
            if held is not None:
                _put_all(a, held[0])
        self.step += 1

    def _count(self, c, side, held):
        # (self.answers each time, not a local: the frame stays within 11 words)
        stp = self.steps[self.step]
        got = self.answers.get(stp["key"], 0)
        if side is None or "rests" in c:
            _put_all(self.answers, c.get("sets"))
        elif held is None:
            got += c.get("adds", 1) << 6 * side
        else:
            got += held[0] << 6 * side     # held: the step's amount for c (one more)
        self.answers[stp["key"]] = got
        if "rests" in c:
            self.rest(side)               # "Mängupunkt viik": the rest to the bidder's team (or the button's)
        elif self.left() <= 0:
            self._complete(stp, side)

    def _complete(self, stp, side):
        # a tally given whole: saved at once when the last press is OK or the button of the
        # side OK gives the rest to; another side's last press is held for OK ("Salvesta"),
        # so a wrong button on the last point shows on the tally before anything is saved
        field = stp.get("rest")
        if side is not None and field is not None and self.answers.get(field) != SIDES[side]:
            self.answers[stp["key"]] |= 1 << 6 * self.sides
        else:
            self.answers[stp["key"]] &= (1 << 6 * self.sides) - 1
            self.step += 1

    def at(self, c):
        """Where the cursor goes after a side press on choice c: on a tally still being given,
        on c again while it fits (the same amount for the next side); else on the first."""
        i = len(self.choices)
        if "count" in self.steps[self.step]:
            while i:
                i -= 1
                if self.choices[i] is c:
                    return i
        return 0

    def _held(self, stp):
        """Whether a tally given whole waits for OK (see _complete)."""
        return (self.answers.get(stp["key"], 0) >> 6 * self.sides) & 1

    def _by_side(self, c, side, stp):
        a = self.answers
        a[c["side"]] = SIDES[side]
        _put_each(a, c.get("also"), SIDES[side])
        if "opp" in c:
            a[c["opp"]] = SIDES[1 - side]
        _put_all(a, c.get("sets"))
        stp = c.get("innocent") or stp.get("innocent")   # (the step's: for each of its choices)
        if stp is not None:
            _innocent(a, stp)

    def ok_choice(self, c):
        """The choice OK commits when c is under the cursor: c itself when OK takes it, else the
        step's own OK answer (a pokk), else None."""
        if c.get("ok"):
            return c
        return self.steps[self.step].get("ok")

    def rests(self):
        """Whether OK here may give this step and the following ones to a side already named."""
        return self.steps[self.step].get("rest") is not None

    def rest(self, side=None):
        """OK on a step that allows it: this step and every later one like it go to the side
        already named in its `rest` field (e.g. the rest of the points to the bidder; on a
        tally step, what is left of its count, or with side given, to that side: a button on
        "Mängupunkt viik"). False (nothing changed) when that side is not named yet."""
        field = self.steps[self.step].get("rest")
        who = self.answers.get(field) if side is None else SIDES[side]
        if who is None:
            return False
        self.done |= 1 << self.step
        stp = self.steps[self.step]
        if "count" in stp:
            n = self.left()
            self.answers[stp["key"]] = self.answers.get(stp["key"], 0) + (n << 6 * SIDES.index(who))
            self.step += 1
            return True
        while self.step < len(self.steps) and self.steps[self.step].get("rest") == field:
            stp = self.steps[self.step]
            first = self._offered(stp)[0]
            self.answers[stp["key"]] = first["value"]
            self.answers[first["side"]] = who
            self.step += 1
        return True

    def back(self):
        """Take back the last step the players answered (with all it filled, and anything
        after it): the cursor on the answer taken back, with label and labels set as by show();
        -1 when no step is answered."""
        j = len(self.steps) - 1
        while j >= 0 and not self.done & (1 << j):
            j -= 1
        if j < 0:
            return -1
        self.done &= ~(1 << j)
        stp = self.steps[j]
        a = self.answers
        offered = self._offered(stp)
        cur = 0
        if "count" not in stp:
            for i in range(len(offered)):
                if self._was(offered[i], stp):
                    cur = i
                    break
        for k in range(j, len(self.steps)):
            for c in self.steps[k]["choices"]:
                for f in ("side", "opp"):
                    if c.get(f) is not None:
                        a.pop(c[f], None)
                for f in ("also", "sets"):
                    if c.get(f) is not None:
                        for x in c[f]:
                            a.pop(x, None)
                if c.get("innocent") is not None:
                    for x in c["innocent"][1]:
                        a.pop(x, None)
            a.pop(self.steps[k]["key"], None)
        self.step = j
        if "count" in stp:
            offered = self._offered(stp)  # the whole tally is to give again
        self.choices = offered
        self.label = self._label(stp)
        self.labels = [c["label"] for c in offered]
        return cur

    def _was(self, c, stp):
        """Whether choice c of step stp is the answer given (the same value, and its sides as
        the answers have them: "won" and "lost" share a value)."""
        a = self.answers
        if a.get(stp["key"]) != c["value"]:
            return False
        f = c.get("side")
        if f is None:
            return True
        who = a.get(f)
        if who is None:
            return bool(c.get("ok"))      # committed with OK: no side was given
        also = c.get("also")
        if also is not None:
            for k in also:
                if a.get(k) != who:
                    return False
        opp = c.get("opp")
        if opp is not None and a.get(opp) == who:
            return False
        sets = c.get("sets")
        if sets is not None:
            for k in sets:
                if k not in a or a[k] != sets[k]:
                    return False
        return True

    def put(self, step, answers, choices, fixed, steps, done):
        """An entry back as it was (a take-back, a detour): step, answers (a copy or None), choices, fixed, steps, done."""
        self.step = step
        self.answers = answers if answers is not None else {}
        self.choices = choices
        self.fixed = fixed
        self.steps = steps
        self.done = done
        self._form_match = None    # the next deal's form is looked up again (its fixed may differ)
