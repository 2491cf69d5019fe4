"""The Ui's screens beside the deal entry: the judge's pairing question and assignment, the menu,
the penalty list, the undo question, the end of a match and its locked result, and the start
screen. A base class of nakk.ui.flows' Ui only: its attributes and its helpers (_move, _side,
_submit, _screen, resync...) are the Ui's (flows.py); the deal entry, the press path, stays
there. Touches the table only through the Ui's."""
from nakk.compat import const, let_go

from nakk.drivers import buttons as K
from nakk.event import EventError, SIDES
from nakk.ui import menus
from nakk.ui import words as W
from nakk.ui.start import assignment_lines

# the Ui's modes and what a press did, as nakk/ui/flows.py names them for the app and render
_START = const(0)
_ENTRY = const(1)
_MENU = const(2)
_PENALTY = const(3)
_UNDO = const(4)
_ASK = const(7)
_NOTHING = const(0)
_MOVED = const(1)
_SUBMITTED = const(2)
# what handle() returns, made once (flows.py returns the same tuples)
NOTHING_ = (_NOTHING, None)
MOVED_ = (_MOVED, None)
SUBMITTED_ = (_SUBMITTED, None)

_ASK_MS = const(30000)    # as flows.ASK_MS: a question nobody answers is answered "no" after this
_PAIR_MS = const(600)     # as flows.PAIR_MS: PREV's and NEXT's long presses this close are held together


# The penalty list's first row, when an offence judged inside the deal (a sohk) is the second:
# the offender's button held gives that one instead (two presses for a sohk, the commonest
# offence's tap unchanged)
_PEN_HELD = (None, None)


def held_of(s, deal):
    """What holding the button of a side press on screen s (a _screen()) would enter instead:
    the deal entry step's held (sets, words) for the choice under the cursor, _PEN_HELD on the
    penalty list's first row when the second is judged inside the deal; else None. deal: the
    entry after the press (a tally's held adds one more than the tap: only while one more is
    left, on the same step)."""
    if s[1] == _PENALTY:
        o = s[14]
        if s[2] == 0 and len(o) > 1 and o[0][1] != menus.DEAL and o[1][1] == menus.DEAL:
            return _PEN_HELD
        return None
    if s[1] != _ENTRY or not s[10]:
        return None
    h = s[12][s[8]].get("held")
    if h is not None and "count" in s[12][s[8]] and (deal.step != s[8] or deal.left() < 1):
        return None
    return None if h is None else h.get(s[10][s[2]]["value"])


class Modes:
    # ------------------------------------------------------------ for other tasks
    def ask(self, words, on_answer, timeout_ms=_ASK_MS, detail=""):
        """Put the pairing question (words: (et, en); detail: the line under it, the judge's
        name) on the screen, at once -- only over the start screen, where no long press
        starts or ends anything; returns False (nothing shown, on_answer never called)
        anywhere else, and while a question is up (a second one never replaces it). PREV
        and NEXT held together answer on_answer(True); any other press (it does nothing
        more) or timeout_ms without a press answer on_answer(False). Then the screen is
        as it was. (nakk.ui.question: its code is loaded only while a question is asked.)"""
        from nakk.ui import question
        try:
            return question.ask(self, words, on_answer, timeout_ms, detail)
        finally:
            let_go("nakk.ui.question")

    def _ask_event(self, k, b, t):
        # a press while the question is up, or (k None) its time out
        from nakk.ui import question
        try:
            question.event(self, k, b, t)
        finally:
            let_go("nakk.ui.question")

    def offer(self, assignment):
        """The judge's assignment for the next match (setup fields; None withdraws it).
        The start screen shows it at once; elsewhere it waits for the next match."""
        self.assignment = assignment
        if self.mode == _START:
            self._enter_start()
            self.version += 1

    # ------------------------------------------------------------ menu
    def _enter_menu(self):
        items = []
        actions = []
        menus.menu(self.table.match, self.lang, self.sound, items, actions)
        self._leave_entry()
        self.mode = _MENU
        self.actions = actions
        self._list(W.MENU, items)

    def _menu_event(self, k, b):
        if self._move(k, b):
            return MOVED_
        what, arg = self.actions[self.cursor]
        if k == K.LONG and b == K.PREV:
            self._back_to_entry()
            return MOVED_
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W.NOSIDE)
            if what == menus.FORFEIT:
                return self._submit({"type": "forfeit", "by": SIDES[side]})
            return self._refuse(W.PRESS_OK)
        if k == K.SHORT and b == K.OK:
            if what == menus.REDEAL:
                return self._submit({"type": "redeal", "reason": arg})
            if what == menus.ABANDON:
                r = self._submit({"type": "close", "reason": "abandoned at the table: started by mistake"})
                if r[0] == _SUBMITTED:
                    self._enter_start()
                return r
            if what == menus.FORFEIT:
                return self._refuse(W.SIDE)
            if what == menus.LANG:
                self.lang = 1 - self.lang
                if self.on_lang is not None:
                    self.on_lang(self.lang)
                self._enter_menu()
                self.cursor = menus.position(self.actions, menus.LANG)
                return MOVED_
            if what == menus.SOUND:
                self.sound = not self.sound
                if self.on_sound is not None:
                    self.on_sound(self.sound)
                self._enter_menu()
                self.cursor = menus.position(self.actions, menus.SOUND)
                return MOVED_
            self._back_to_entry()
        return MOVED_

    def _leave_entry(self):
        """Going from the deal entry to a menu, the penalty list or the undo question:
        remember the half-entered deal, so coming back without an entry keeps it."""
        if self.mode == _ENTRY:
            self._detour = self._screen()
        elif self.mode != _MENU:
            self._detour = None

    def _back_to_entry(self):
        d = self._detour
        self._detour = None
        m = self.table.match
        if d is None or m is None or self.table.pending is not None or m.seq != d[0] or m.st.over:
            self.resync()
            return
        self._put_back(d)

    # ------------------------------------------------------------ penalty
    def _enter_penalty(self):
        items = []
        ids = []
        menus.penalties(self.table.match, items, ids)
        if not ids:
            return self._refuse(W.NOPEN)
        self._leave_entry()
        self.mode = _PENALTY
        self.offences = ids
        self._list(W.PENALTY, items)
        return MOVED_

    def _penalty_event(self, k, b):
        if k == K.LONG and b == K.PREV:
            self._back_to_entry()
            return MOVED_
        return self._side_list(k, b, self._penalty_by)

    def _penalty_by(self, side):
        offence, field, value = self.offences[self.cursor]
        if field == menus.DEAL:
            return self._deal_offence(offence, side, value)
        ev = {"type": "penalty", "offence": offence, "by": SIDES[side]}
        if field is not None:
            ev[field] = value
        return self._submit(ev)

    def _side_list(self, k, b, by):
        """A press on a list a side button answers (the penalty list: who took it; the end of a
        match: who confirms or disputes): PREV/NEXT move the cursor, a side button gives by(side)
        the answer, OK asks for a side button instead."""
        if self._move(k, b):
            return MOVED_
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W.NOSIDE)
            return by(side)
        if k == K.SHORT and b == K.OK:
            return self._refuse(W.SIDE)
        return MOVED_

    def _deal_offence(self, offence, side, field):
        """An offence judged inside the deal being entered (the ruleset's deal_offences): back
        to the entry, the offence and its offender in the deal's answers (or, field given, the
        offender alone in that field: a sohk), and on the banner; the deal is saved with them
        when its result is entered."""
        self._back_to_entry()
        if self.mode != _ENTRY:
            return self._refuse(W.REFUSED)
        if field is not None:
            self.deal.answers[field] = SIDES[side]
        else:
            self.deal.answers["offence"] = offence
            self.deal.answers["offender"] = SIDES[side]
        self._set_banner()
        return MOVED_

    # ------------------------------------------------------------ undo
    def _enter_undo(self):
        m = self.table.match
        if m is None or m.locked() or not m.in_force:
            return self._refuse(W.NOTHING)
        detail = self.undo_words()
        self._undo_target = m.in_force[-1]
        self.mode = _UNDO
        self._list(W.UNDO, (W.CONFIRM, W.BACK))
        self.detail = detail
        return MOVED_

    def undo_words(self):
        """What the undo question would name now (the latest entry in force, in the players'
        words), or None. Kept for that entry and language: the app asks for it after each
        save, while the players look at the score, so that long PREV does not wait for it."""
        m = self.table.match
        if m is None or m.st is None or not m.in_force:
            return None
        target = m.in_force[-1]
        u = self._undo_words
        if u is not None and u[0] == target and u[1] == self.lang and u[2] is m.setup:
            return u[3]
        ev = self.table.event(target)
        if ev is None:
            words = "#%d" % target
        else:
            # the entry in the players' words (the ruleset's), labelled from the deal form
            words = m.rules.describe(ev, self.lang, self.deal.steps or m.rules.form(m.st, m.cfg)[1],
                                     m.rules.number(m.st, ev))
        self._undo_words = (target, self.lang, m.setup, words)   # the setup: this match, not its events
        return words

    def _undo_event(self, k, b):
        if k == K.SHORT and b == K.OK:
            if self.cursor != 0:
                self.resync()
                return MOVED_
            r = self._submit({"type": "cancel", "target": self._undo_target})
            if r[0] == _SUBMITTED:
                self.say(W.UNDONE)
            return r
        if self._move(k, b):
            return MOVED_
        if k == K.LONG:
            self.resync()        # any long press backs out; the undo needs a deliberate OK
        return MOVED_

    # ------------------------------------------------------------ end of match
    def _end_event(self, k, b):
        if k == K.LONG and b == K.PREV:
            return self._enter_undo()
        if k == K.LONG and b == K.OK:
            self._enter_menu()
            return MOVED_
        return self._side_list(k, b, self._end_by)

    def _end_by(self, side):
        m = self.table.match
        if side in m.confirmed or side in m.disputed:
            return NOTHING_
        return self._submit({"type": "dispute" if self.cursor == 1 else "confirm", "by": SIDES[side]})

    def _done_event(self, k, b):
        if k == K.LONG and b == K.OK:
            self._enter_start()
        elif k == K.LONG and b == K.PREV:
            return self._enter_undo()     # says there is nothing to undo: the result is locked
        return MOVED_

    # ------------------------------------------------------------ a new match
    def _enter_start(self):
        self.mode = _START
        a = self.assignment
        if a is not None:
            # what the judge assigned, a line a row under "Kinnitan" (OK on any of them takes
            # it, as on "Kinnitan"; NEXT reads on); "Uus mäng", last, sets one up by hand
            self.on_assignment = True
            self._list(W.ASSIGN, [W.CONFIRM] + assignment_lines(a, self.lang) + [W.NEWMATCH])
            return
        self.on_assignment = False
        self.wizard.begin(self.table.match)
        self._show_start()

    def likely_match(self):
        """On the start screen: the match the next OK would start (folded, not saved: the
        screen draws its words while the players look), or None. Made once per press."""
        if self.mode != _START:
            return None
        if self._likely_v != self.version:
            self._likely_v = self.version
            self._likely = None
            setup = self.assignment if self.on_assignment else self.wizard.likely(self.cursor)
            if setup is not None:
                self._likely = self.table.likely(setup)
        return self._likely

    def _show_start(self):
        title, items, cursor = self.wizard.show()
        self._list(title, items, cursor)

    def _held_together(self, b):
        """PREV and NEXT held together on the start screen (the second half of it now): True.
        The first half does what it does alone (a long PREV steps the wizard back)."""
        h = self._half
        self._half = b
        if h is not None and h != b and K.span(self._half_t, self._long_t) <= _PAIR_MS:
            self._half = None
            return True
        self._half_t = self._long_t
        return False

    def _start_event(self, k, b):
        if self._move(k, b):
            return MOVED_
        if k == K.LONG and (b == K.PREV or b == K.NEXT) and self.on_reset is not None and self._held_together(b):
            self.on_reset()
            return MOVED_
        if self.on_assignment:
            # the judge's assignment: OK on "confirm" starts it; "new match" sets one up by hand
            if k == K.SHORT and b == K.OK:
                if self.cursor < len(self.items) - 1:
                    return self._begin_match(self.assignment)
                self.assignment = None
                self._enter_start()
            return MOVED_
        if k == K.LONG and b == K.PREV:
            if self.wizard.back():
                self._show_start()
            return MOVED_
        if not (k == K.SHORT and b == K.OK):
            if k == K.PRESS:
                return self._refuse(W.PRESS_OK)
            return MOVED_
        setup = self.wizard.choose(self.cursor)
        if setup is None:
            self._show_start()
            return MOVED_
        return self._begin_match(setup)

    def _begin_match(self, setup):
        try:
            # the match the start screen folded for its words: taken if it is this setup
            if not self.table.start(setup, self._likely):
                return self._refuse(W.FULL)      # the flash is low: sync first
        except EventError as e:
            return self._refuse(W.refusal(e.field))
        self.taken = self.assignment
        self.assignment = None
        self._likely = None
        self.resync()
        return SUBMITTED_

    # ------------------------------------------------------------ a side button held
    def _side_long(self, b):
        """A side button held (its LONG): where its press-down entered an answer with a held
        meaning and that entry is not on flash yet, it is taken back and the held one entered
        (as a chord takes back); anything else held long does nothing."""
        h = self._held_c
        if h is None or self._chord != b or self.holding() < 0:
            return NOTHING_
        self._held_c = None
        self._chord_kept = False
        self._chord = None
        self._last = self._ms()
        self.version += 1
        self.msg = None
        self._take_back(self._chord_screen)
        if h is _PEN_HELD:
            self.cursor = 1              # the offence judged inside the deal, by the same side
            return self._penalty_by(self._side(b))
        c = self.deal.choices[self.cursor]
        self.deal.answer(c, self._side(b), h)
        return self._show_step(-1, c)    # a tally's cursor stays on the amount, as after a tap

    def holding(self):
        """The side button whose press its LONG may still change, or -1: an entry not on flash
        yet (the app keeps it off flash while the button is down), or a step of the deal
        answered (nothing saved: the bid, a tally's amount)."""
        if self._held_c is None or not self._chord_kept or self.table.pending is None and (
                self.mode != _ENTRY or self.table.match.seq != self._chord_screen[0]):
            return -1                    # (no entry pending, and the match moved on: it is on flash)
        return self._chord

    def held_says(self):
        """What holding that button enters instead ((et, en)), or None."""
        if self.holding() < 0:
            return None
        h = self._held_c
        return self._chord_screen[3][1] if h is _PEN_HELD else h[1]   # the list's row 2, or the held words
