"""The deal-form interpreter: one deal entered step by step from its ruleset's form (nakk.rules.common, "deal forms").

The form is read-only here: the lists a step offers are kept in this
object's own cache, never written into the ruleset's dicts. The UI
(nakk.ui) shows `show()`'s step, moves its cursor over `choices`, and turns
the players' presses into answer(), rest() and back(); when show() says the
form is complete, `fields()` is the deal event the table checks.
"""

from nakk.event import SIDES


class DealEntry:
    def __init__(self):
        self.fixed = None          # fields the form fixes without asking (e.g. the board number)
        self.steps = ()            # the form's steps
        self.step = 0              # index of the step being answered
        self.answers = {}          # event fields answered so far
        self.choices = ()          # what the current step offers (its conditions applied)
        self.label = None          # the current step's label, and its choices' labels (show(), back())
        self.labels = ()
        self._form_match = None    # the match, form key and steps of the form in fixed/steps,
        self._form_key = None      # when it may be used again (separate fields: no tuple per deal)
        self._form_steps = None
        self._lists = {}           # step index -> (choices offered, their labels), for steps without conditions
        self._lists_of = None      # the steps those lists belong to

    def begin(self, m):
        """A new deal of match m: the ruleset's form for it (the last deal's again when
        its form_key says the form is the same), nothing answered."""
        key = m.rules.form_key(m.st)
        if key is None or self._form_match is not m or self._form_key != key or self._form_steps is not self.steps:
            # not the questions of the last deal (or a take-back put other steps
            # in place since): the ruleset's form for this one
            self.fixed, self.steps = m.rules.form(m.st, m.cfg)
            self._form_match = m if key is not None else None
            self._form_key = key
            self._form_steps = self.steps
        self.answers = {}
        self.step = 0

    def _offered(self, stp):
        out = []
        for c in stp["choices"]:
            w = c.get("when")
            if w is not None:
                v = self.answers.get(w[0], self.fixed.get(w[0]))
                if v not in w[1]:
                    continue
            out.append(c)
        return out

    def show(self):
        """Move to the step to answer, skipping steps that offer nothing: True with its label and
        its choices' labels in label and labels (no tuple made: a press allocates as little as it
        can); False when every step is answered (fields() is then the deal)."""
        if self._lists_of is not self.steps:
            self._lists.clear()           # the same dict again: one object less per new form
            self._lists_of = self.steps
        while self.step < len(self.steps):
            stp = self.steps[self.step]
            made = self._lists.get(self.step)     # a step without conditions: its lists, made once
            if made is None:
                offered = self._offered(stp)
                labels = [c["label"] for c in offered]
                for c in stp["choices"]:
                    if "when" in c:
                        break
                else:
                    self._lists[self.step] = (offered, labels)
            else:
                offered, labels = made
            if offered:
                self.choices = offered
                self.label = stp["label"]
                self.labels = labels
                return True
            self.step += 1
        return False

    def fields(self):
        """The deal event of the answers (a fresh dict: the table numbers it)."""
        ev = {"type": "deal"}
        for key in self.fixed:
            ev[key] = self.fixed[key]
        for key in self.answers:
            ev[key] = self.answers[key]
        return ev

    def answer(self, c, side):
        """Choice c of the current step, committed by side index `side` (None: by OK)."""
        stp = self.steps[self.step]
        self.answers[stp["key"]] = c["value"]
        if side is not None:
            self.answers[c["side"]] = SIDES[side]
        self.step += 1

    def rests(self):
        """Whether OK here may give this step and the following ones to a side already named."""
        return self.steps[self.step].get("rest") is not None

    def rest(self):
        """OK on a step that allows it: this step and every later one like it go to the side
        already named in its `rest` field (e.g. the rest of the points to the bidder).
        False (nothing changed) when that side is not named yet."""
        field = self.steps[self.step].get("rest")
        who = self.answers.get(field)
        if who is None:
            return False
        while self.step < len(self.steps) and self.steps[self.step].get("rest") == field:
            stp = self.steps[self.step]
            first = self._offered(stp)[0]
            self.answers[stp["key"]] = first["value"]
            self.answers[first["side"]] = who
            self.step += 1
        return True

    def back(self):
        """Take back the last answered step (a step skipped on the way forward is skipped back
        too): the cursor on the answer taken back, with label and labels set as by show();
        -1 when no step is answered."""
        while self.step > 0:
            self.step -= 1
            stp = self.steps[self.step]
            key = stp["key"]
            cur = 0
            offered = self._offered(stp)
            for i in range(len(offered)):
                c = offered[i]
                if c["value"] == self.answers.get(key) and (c.get("side") is None or c["side"] in self.answers):
                    cur = i
            for c in offered:
                if c.get("side") is not None:
                    self.answers.pop(c["side"], None)
            self.answers.pop(key, None)
            if offered:
                self.choices = offered
                self.label = stp["label"]
                self.labels = [c["label"] for c in offered]
                return cur
        return -1

    def put(self, step, answers, choices, fixed, steps):
        """Bring an entry back as it was (a take-back, a detour through a menu): the values of
        step, answers (a copy, or None for none), choices, fixed and steps then."""
        self.step = step
        self.answers = answers if answers is not None else {}
        self.choices = choices
        self.fixed = fixed
        self.steps = steps
