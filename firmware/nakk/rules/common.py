"""What every ruleset shares: the match state, named settings, deal-form data, and the base class with its hooks.

A ruleset is the only place that knows its game: the match, the UI, the
renderer, the rings and `nakk score` ask it through the hooks of Ruleset
(what a deal entry asks, how an entry reads in the players' words, what the
header counts, the score gauge and the LED rings show, the summary's own
fields, the words for how a match ended).
"""

import sys

from nakk.event import EventError, SIDES, check_fields

# a setting's words for the judge (`nakk rules`) are kept on the judge's side only: the box never
# shows them, and where its modules are not frozen they would hold a few KB of its heap
_JUDGE = sys.implementation.name != "micropython"


class State:
    """The derived state of one match. Rulesets read and update it; nothing else stores scores."""

    def __init__(self, sides, seats, first_shuffler):
        self.sides = sides                 # number of sides (2 or 3)
        self.seats = seats                 # number of players
        self.score = [0] * sides           # running total, as the rules add it (uncapped)
        self.marks = [0] * sides           # karvane marks earned
        self.received = [0] * sides        # penalty points received (after clipping)
        self.bonus = [0] * sides           # end-of-match bonuses, set when the match ends
        self.deductions = [0] * sides      # tournament-level deductions (noise); not part of the score
        self.over = False
        self.winner = None                 # side index, or None (no winner yet, a draw, or closed)
        self.ended = None                  # why it ended: target, penalty, boards, forfeit, closed, ...
        self.shuffler = first_shuffler     # seat that shuffles and deals next
        self.deals = 0                     # deals scored (pokks included)
        self.redeals = 0
        self.misdeals = 0                  # misdeals in the current dealing turn
        self.chain = 0                     # pokks in a row waiting for the replay
        self.pending = None                # (maker index, game) of the replay
        self.last = None                   # what the last deal gave: list of points per side
        self.boards = None                 # boards played: {board: (points tuple, offender index or -1)}, or None
        self.disqualified = None           # side index removed from the tournament
        self.forfeited = None              # side index that forfeited the match

    def final(self):
        return [self.score[i] + self.bonus[i] for i in range(self.sides)]


def side_index(value, n, field):
    for i in range(n):
        if SIDES[i] == value:
            return i
    _not_a_side(field, n)


def _not_a_side(field, n):
    # (apart, so that side_index's frame, which every deal's entry needs, stays within 11
    # words: a bigger one is a heap allocation at every call on the Pico)
    raise EventError(field, "must be one of " + ", ".join(SIDES[:n]))


def other(i):
    return 1 - i


def _pair(ev, field, total):
    v = ev[field]
    if len(v) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= total for x in v):
        raise EventError(field, "two whole numbers 0..%d, side A first" % total)
    if v[0] + v[1] != total:
        raise EventError(field, "must add up to %d" % total)
    return v


def pokk_or_winner(result, winner):
    """(result, winner) of a two-pair deal once its category is known: a pokk has no winner, anything else has one."""
    if result == "pokk":
        if winner is not None:
            raise EventError("winner", "a pokk (60:60) has no winner")
        return result, None
    if winner is None:
        raise EventError("winner", "missing")
    return result, winner


def eyes_and_tricks(ev):
    """The optional exact detail of a two-pair deal: (eyes, tricks), each [A, B] or None, checked."""
    tricks = _pair(ev, "tricks", 9) if "tricks" in ev else None
    if "eyes" not in ev:
        if tricks is not None:
            raise EventError("eyes", "give the eyes (card points) with the tricks")
        return None, None
    eyes = _pair(ev, "eyes", 120)
    if tricks is not None:
        for i in range(2):
            if tricks[i] == 0 and eyes[i] != 0:
                raise EventError("eyes", "a pair with no trick has no eyes")
    return eyes, tricks


# ---------------------------------------------------------------- settings

class IntRange:
    """The allowed values of a numeric setting: low..high inclusive."""

    def __init__(self, low, high):
        self.low = low
        self.high = high


class Setting:
    """One named reading of the rules, with its default and the alternatives a club may choose."""

    def __init__(self, key, default, choices, ref, text):
        self.key = key
        self.default = default
        self.choices = choices   # tuple of allowed values, or an IntRange
        self.ref = ref           # the reading's id in docs/rules.md (SM-nn ...) or the rules' section
        self.text = text if _JUDGE else ""   # what it decides, for the judge (not on the box)

    def check(self, value):
        if isinstance(self.choices, tuple):
            if value not in self.choices or isinstance(value, bool) != isinstance(self.default, bool):
                raise EventError("settings." + self.key,
                                 "must be one of " + ", ".join(_word(c) for c in self.choices))
        else:
            low, high = self.choices.low, self.choices.high
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise EventError("settings." + self.key, "must be a whole number %d..%d" % (low, high))

    def describe_choices(self):
        if isinstance(self.choices, tuple):
            return ", ".join(_word(c) for c in self.choices)
        return "%d..%d" % (self.choices.low, self.choices.high)


def _word(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    return str(v)


# ---------------------------------------------------------------- deal forms
#
# A deal form is data the device and the judge's tool turn into entry
# screens: a list of steps, each asking one question. A step is a dict:
#   key      the event field the step fills
#   label    (Estonian, English)
#   choices  list of choices, in the order the cursor meets them (wrapped() puts
#            a most-likely-first list in the order a wrapping cursor reaches
#            soonest); a choice is a dict:
#              value, label (et, en), and optionally
#              side: the field a side button press fills while committing
#                    this choice (e.g. the game step commits with the maker's
#                    button); without it, OK commits
#              also: more fields the same side fills (the maker who also won)
#              opp:  a field the other side fills (two sides only: the maker from the loser)
#              sets: fields set (value as given) when a side button commits it
#                    ("this pair made it and won": the result too); a later step
#                    whose field is set so is not asked
#              ok:   True when OK commits it (without sets; a choice may take
#                    both: OK then only answers this step)
#              says, ok_says: (et, en) what a side button / OK does on it, in the
#                    players' words (the screen shows them before the press)
#              name: (et, en) the choice's short name, for a later step `named` after it
#              when: (field, values): offered only when an earlier answer is one of values
#              omit: True when the step's own field is left out (the choice only names
#                    its side field: a sohk names the offender, and no result)
#              adds: on a tally step, how many a side press adds (default 1; offered while
#                    that many are left to give)
#              rests: on a tally step, an ok choice with `sets` that also gives what is
#                    left after it to the side in the step's `rest` (ends the tally); with
#                    a `side`, a side button gives that side the rest after it instead
#              innocent: (offender field, fields): when a side button commits it, those
#                    fields get the side that is not the one in the offender field, when it
#                    is given (after a sohk: the innocent pair wins, the button names the maker)
#   side     the default side field for the step's choices (a choice may override)
#   held     optional: {choice value: (sets, (et, en))}: a side button held long (0.8 s) on
#            that choice enters it with these sets over its own (a jänn win for "Trump ·
#            võit"); the header says "hoia: <words>" while that button is down (on the step,
#            not in each choice: the choices' dicts stay small on the box's heap); on a tally
#            step {choice value: (adds, (et, en))}: held, it adds that many (while left)
#   innocent optional: as a choice's, for every choice of the step a side button commits
#   rest     optional: a side field already answered (e.g. "bidder"); OK on this
#            step gives this step and every following step with the same
#            `rest` to that side (their first choice)
#   ok       optional: a choice OK commits on this step whatever is under the cursor
#            (a pokk among results taken with the winner's button)
#   named    optional: a field answered earlier; the step is labelled with that
#            answer's name ("Trump" over the results of a suit game)
#   only     optional: (field, values): the step is asked only when an earlier answer is one
#            of values (a sohk's own results, and the ordinary ones without one)
#   live     optional: True when the ruleset's offers(st, choice) decides, deal by deal, which
#            of its choices are offered too (the boards not yet stored); its lists are made
#            whenever it is shown
#   count    optional: a tally step. Its field becomes a list, one count per side;
#            a side button adds one to that side until `count` are given, OK gives
#            what is left to the side in `rest`; an ok choice with `sets` counts
#            one for nobody (once: it is not offered once its field is set). After a
#            side press the cursor stays on the choice pressed (the same amount for
#            the next side) while it fits, else goes to the first
# The UI shows the choices in order, moves with PREV/NEXT and commits with OK
# or the named side button. Nothing in the UI is written per game, and the
# UI never writes into a form: it is read-only data once built.

def choice(value, et, en, side=None, ok=False, when=None, also=None, opp=None, sets=None, says=None,
           ok_says=None, name=None, omit=False, adds=1, innocent=None, rests=False):
    """One answer. side: the field a side button fills while committing it;
    ok: committed with OK instead (or as well); when: (field, values) it is offered for;
    omit: the step's field is left out of the event (value is then None);
    adds: on a tally step, how many a side press adds; innocent: (offender field, fields)
    filled with the side that is not the offender's (when one is given); rests: a tally's ok
    choice that then gives the rest to the step's `rest` side;
    also, opp, sets, says, ok_says, name: see the deal-form notes above."""
    c = {"value": value, "label": (et, en)}
    if omit:
        c["omit"] = True
    if adds != 1:
        c["adds"] = adds
    if innocent is not None:
        c["innocent"] = innocent
    if rests:
        c["rests"] = True
    if side is not None:
        c["side"] = side
    if ok:
        c["ok"] = True
    if when is not None:
        c["when"] = when
    if also is not None:
        c["also"] = also
    if opp is not None:
        c["opp"] = opp
    if sets is not None:
        c["sets"] = sets
    if says is not None:
        c["says"] = says
    if ok_says is not None:
        c["ok_says"] = ok_says
    if name is not None:
        c["name"] = name
    return c


def step(key, et, en, choices, side=None, rest=None, count=None, named=None, ok=None, live=False, only=None,
         held=None, innocent=None):
    """One question of a deal form. side: the side field of every choice that names none
    (the choices given are not changed: those that need it are copied)."""
    if side is not None:
        out = []
        for c in choices:
            if "side" not in c and not c.get("ok"):
                c = dict(c)
                c["side"] = side
            out.append(c)
        choices = out
    s = {"key": key, "label": (et, en), "choices": choices}
    if rest is not None:
        s["rest"] = rest
    if count is not None:
        s["count"] = count
    if named is not None:
        s["named"] = named
    if ok is not None:
        s["ok"] = ok
    if live:
        s["live"] = True
    if only is not None:
        s["only"] = only
    if held is not None:
        s["held"] = held
    if innocent is not None:
        s["innocent"] = innocent
    return s


def wrapped(choices):
    """A most-likely-first list in the order a wrapping cursor reaches soonest from the first:
    the likeliest under the cursor, the 2nd one NEXT away, the 3rd one PREV away, the 4th two
    NEXTs away, and so on."""
    n = len(choices)
    out = [None] * n
    for r in range(n):
        out[(r + 1) // 2 if r % 2 else (n - r // 2) % n] = choices[r]
    return out


# ---------------------------------------------------------------- words

# how an event type reads on the box, (Estonian, English)
_TYPES = {"penalty": ("Karistus", "Penalty"), "adjust": ("Parandus", "Adjustment"),
          "forfeit": ("Loobumine", "Forfeit")}
# the fields that name an entry other than a deal, each with the side field that follows it
_OTHER_WORDS = (("offence", "by"), ("reason", None), ("by", None))
# how a match ended, in the judge's words: what every game shares (a ruleset adds its own)
_ENDINGS = (("target", "reached the target"), ("penalty", "a penalty reached the target"),
            ("forfeit", "forfeit"), ("closed", "closed by the judge"))


# ---------------------------------------------------------------- base class

# The last deal forms the rulesets built, shared by all of them: two slots (a game's ordinary
# form, and the form of a replay, which comes and goes), each (ruleset, key, fixed, steps) or
# None. A form is read-only data, so the next deal (or match) with the same key gets it again;
# two slots for all rulesets keep no form alive but those of the game in play.
_FORM = [None, None]


def cached_form(ruleset, key, slot=0):
    """(fixed, steps) of the form `ruleset` last kept under `key` in `slot`, or None."""
    f = _FORM[slot]
    if f is not None and f[0] is ruleset and f[1] == key:
        return f[2], f[3]
    return None


def keep_form(ruleset, key, fixed, steps, slot=0):
    _FORM[slot] = (ruleset, key, fixed, steps)
    return fixed, steps


class Ruleset:
    """A game's rules. Subclasses fill in the constants and the deal/penalty/redeal logic."""

    name = ""
    title = ("", "")        # (Estonian, English)
    family = ""
    sides = 2
    seats = 4
    unit = ("nakk", "nakk")
    settings = ()
    offences = ()           # (id, et, en), or (id, et, en, (field, low, high)): a number the offence takes
    redeal_reasons = ()     # (id, et, en)
    # offences judged inside a deal (id, et, en), or (id, et, en, side field): chosen from
    # the penalty list with the offender's button, they go into the deal being entered as its
    # `offence` and `offender` fields (or the offender alone in that side field: a sohk), and
    # the rules score the deal by them
    deal_offences = ()
    has_boards = False
    deal_words = ()         # (field, side field) pairs that name a deal in the players' words, in order
    counter_word = ("Jagu", "Deal")   # what the header counts (a deal), in the players' words
    redeal_word = ("Uuesti", "Redeal")   # a deal dealt again, in the players' words
    endings = ()            # (ended, the judge's words) of this game's own endings
    draws = ()              # `ended` values that are a draw (over, no winner, nobody lost)
    no_winner = ()          # (ended, the judge's words) for endings that have no winner by design
    marks_word = "marks"    # what the marks under a score are, in the judge's words
    format = 1              # the event format a new match of this game is written in (setup.v)
    newer_fields = ()       # (deal field, the format that brought it): refused in an older match

    def setting(self, key):
        for s in self.settings:
            if s.key == key:
                return s
        return None

    def config(self, overrides):
        """The settings in force: defaults with the setup's overrides, every value checked."""
        cfg = {}
        for s in self.settings:
            cfg[s.key] = s.default
        if overrides:
            for key in overrides:
                s = self.setting(key)
                if s is None:
                    raise EventError("settings." + key, "unknown setting for %s" % self.name)
                s.check(overrides[key])
                cfg[key] = overrides[key]
        return cfg

    def start(self, setup, cfg):
        first = setup.get("first_shuffler", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < self.seats:
            raise EventError("first_shuffler", "must be a seat number 0..%d" % (self.seats - 1))
        return State(self.sides, self.seats, first)

    def side(self, ev, field, required=True):
        if field not in ev:
            if required:
                raise EventError(field, "missing")
            return None
        return side_index(ev[field], self.sides, field)

    def check(self, ev, required, optional):
        check_fields(ev, required, optional)

    # Subclasses implement: deal(st, ev, cfg), redeal(st, ev, cfg),
    # penalty(st, ev, cfg), form(st, cfg), end_check(st, cfg, side)

    def adjust(self, st, side, points, cfg):
        """A manual adjustment (judge or table, with a reason): points to one side."""
        st.score[side] += points
        self.end_check(st, cfg, side)

    def forfeited(self, st, cfg):
        """A forfeit ended the match (st.over, st.winner are set): the game's end bonuses, if it
        pays any when a side gives up. None by default."""

    def check_reason(self, ev):
        reason = ev["reason"]
        for r in self.redeal_reasons:
            if r[0] == reason:
                return reason
        raise EventError("reason", "must be one of " + ", ".join(r[0] for r in self.redeal_reasons))

    # ------------------------------------------------------------ hooks
    # What the rest of the firmware asks a ruleset. Each has a default that
    # fits a game with a target and nothing else; a ruleset overrides what
    # its game does differently.

    def form_key(self, st):
        """An int that is the same whenever form(st, cfg) gives the same form in this match
        (the UI then reuses the one it has), or None: build it for every deal."""
        return 0

    def count(self, st):
        """The number beside counter_word in the header: the deal being played (the last, once over)."""
        return st.deals + (0 if st.over else 1)

    def number(self, st, ev):
        """The number the header showed while deal ev was entered, ev being the latest entry
        in force of state st (what the undo question names it by)."""
        return st.deals

    def banner(self, st, answers, lang):
        """A line about the deal being entered that the players must see (what a pokk
        replay keeps, the bid entered), or None. answers: the deal's fields answered so far.
        Called when the entry moves a step, not per frame."""
        return None

    def offers(self, st, c):
        """Whether choice c of a `live` step of the deal form is offered now (deal forms, above)."""
        return True

    def mark_bonus(self, st, cfg, i):
        """What the marks of side i bring at the end (shown beside its name while the match is
        played), 0 for none."""
        return 0

    def gauge(self, st, i):
        """How many of the four boxes beside side i's score to fill, or -1 for no gauge. Allocates nothing."""
        return -1

    def ring(self, rings, i, st, cfg):
        """Paint side i's LED ring (a nakk.drivers.rings.Rings) for a match in play. Allocates nothing."""
        target = cfg.get("target")
        if target:
            rings.progress(i, st.score[i] + (st.bonus[i] if st.over else 0), target)
        else:
            rings.off(i)

    def summarize(self, st, out):
        """Add this game's own fields to a match summary (out, a dict)."""

    def notes(self, summary):
        """Lines for the judge about this game's own state in a summary (`nakk score`)."""
        return ()

    def ending(self, ended):
        """How a match ended, in the judge's words."""
        for row in self.endings:
            if row[0] == ended:
                return row[1]
        for row in _ENDINGS:
            if row[0] == ended:
                return row[1]
        return ended

    def describe(self, ev, lang, steps, number=None):
        """An entry in the players' words, e.g. "Mäng 6: Ruutu B, Jänn A" (what an undo names):
        a deal by the number the header gave it (number), anything else by what it is.
        steps: the deal form's steps, whose labels name the values."""
        labels = {}
        for row in self.offences + self.redeal_reasons:
            labels[row[0]] = row[1 + lang]
        for stp in steps:
            for c in stp["choices"]:
                if isinstance(c["value"], str):
                    labels[c["value"]] = c["label"][lang]
        t = ev["type"]
        parts = []
        used = []          # a side field named after its value is not named again on its own
        for what, who in (self.deal_words if t == "deal" else _OTHER_WORDS):
            v = ev.get(what)
            if v is None or what in used:
                continue
            v = labels.get(v, v) if isinstance(v, str) else str(v)
            if who is not None and ev.get(who) is not None:
                used.append(who)
                v += " " + str(ev[who])
            parts.append(v)
        if t == "deal":
            head = "%s %d" % (self.counter_word[lang], number if number is not None else ev["seq"])
        elif t == "redeal":
            head = self.redeal_word[lang]
        else:
            words = _TYPES.get(t)
            head = words[lang] if words is not None else t
        return "%s: %s" % (head, ", ".join(parts))
