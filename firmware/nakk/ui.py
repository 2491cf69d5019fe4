"""Screens and flows: button events in, match events out. The deal entry is built from the ruleset's form().

Nothing here knows pins, files, the display or the clock's source: the app
feeds button events (nakk.buttons encoding) and the time, and render.py draws
what the fields of Ui say. Every entry goes through the Table (nakk.table),
which checks it with the rules and journals it.

The buttons, everywhere:
  side (A, B, C)  answer for that side: the maker, the winner, the offender,
                  the side confirming the result. Acts on press-down.
  PREV / NEXT     move the cursor (the likely answer is where it starts)
  OK              take the answer under the cursor when no side is asked
  long PREV       take back: the last step of an entry, or (confirmed with
                  OK) the last entry saved -- a cancel event
  long NEXT       a penalty: offence under the cursor, offender's side button
  long OK         the menu: redeal (with its reason), forfeit, language; on a
                  finished match, the next match
Two side buttons together enter nothing and ask for one at a time. The
driver reports a side press at once (for latency); when a different side
button follows within CHORD_MS, the UI takes back what the first press did
(the app holds a finished entry CHORD_MS before it flushes it) -- so a slap
of both buttons is harmless whichever lands first.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from nakk import buttons as K
from nakk import rules as _rules
from nakk.event import EventError, SIDES

START = const(0)    # a new match: accept the judge's assignment, or choose ruleset, table, round, shuffler
ENTRY = const(1)    # the score, and the deal entry on the bottom line
MENU = const(2)     # redeal reasons, forfeit, language, back
PENALTY = const(3)  # offence under the cursor; the offender's side button commits
UNDO = const(4)     # confirm the cancel of the latest entry
END = const(5)      # the match is over: each side confirms or disputes with its own button
DONE = const(6)     # the result is locked and waits for the judge
ASK = const(7)      # another task's question (the link's pairing): long OK says yes, anything else no

# What a button event did: Ui.handle returns (one of these, reason); the app acts on it alone.
NOTHING = const(0)    # nothing the players see as an answer (it woke the screen; a button stuck or freed)
MOVED = const(1)      # the screen moved (cursor, step, menu); nothing to save
SUBMITTED = const(2)  # an entry is pending in the table: the app draws it, then saves it
REFUSED = const(3)    # the press entered nothing and the screen says why (reason: those words)
_NOTHING = (NOTHING, None)
_MOVED = (MOVED, None)
_SUBMITTED = (SUBMITTED, None)

CHORD_MS = const(40)     # a second side button within this of the first: both were pressed together
IDLE_MS = const(120000)  # no press for this long: the idle screen (score only)
ASK_MS = const(30000)    # a question nobody answers is answered "no" after this
MSG_MS = const(4000)     # how long a message stays up

# Words on screen: (Estonian, English). Index with Ui.lang.
W_SAVING = ("salvestan", "saving")
W_SIDE = ("Vajuta poole nuppu", "Press a side button")
W_OK = ("Vajuta OK", "Press OK")
W_CHORD = ("Üks pool korraga", "One side at a time")
W_STUCK = ("Nupp kinni: ", "Button stuck: ")
BUTTON_NAMES = ("A", "B", "C", "PREV", "OK", "NEXT")   # by button index (nakk.buttons)
W_FREED = ("Nupp töötab", "Button works again")
W_NOSIDE = ("Sellist poolt pole", "No such side here")
W_UNDO = ("Tühistada?", "Undo?")
W_UNDONE = ("Tühistatud", "Undone")
W_NOTHING = ("Pole midagi tühistada", "Nothing to undo")
W_MENU = ("Menüü", "Menu")
W_PENALTY = ("Karistus", "Penalty")
W_NOPEN = ("Selles mängus trahve pole", "No penalties in this game")
W_REDEAL = ("Uus jagamine: ", "Redeal: ")
W_FORFEIT = ("Loobub (poole nupp)", "Forfeit (side button)")
W_LANG = ("Keel: eesti", "Language: English")
W_SOUND = (("Heli: sees", "Sound: on"), ("Heli: väljas", "Sound: off"))  # by Ui.sound: [1] on, [0] off
W_BACK = ("Tagasi", "Back")
W_OVER = ("Mäng läbi", "Match over")
W_CONFIRM = ("Kinnitan", "Confirm")
W_DISPUTE = ("Vaidlustan", "Dispute")
W_WINNER = ("Võitis ", "Won: ")
W_DRAW = ("Viik", "Draw")
W_JUDGE = ("Ootab kohtunikku", "Waits for the judge")
W_NEW = ("Pikk OK: uus mäng", "Long OK: new match")
W_FULL = ("Mälu täis: sünkrooni", "Flash full: sync first")
W_SAVEFAIL = ("Salvestus ebaõnnestus", "Could not save")
W_REFUSED = ("Reeglid ei luba:", "Not allowed:")
W_ABANDON = ("Katkesta: vale algus", "Abandon: wrong start")
W_NEWMATCH = ("Uus mäng", "New match")
W_ASSIGN = ("Kohtuniku määrang", "Judge's assignment")
W_RULES = ("Mäng", "Game")
W_TABLE = ("Laud", "Table")
W_ROUND = ("Voor", "Round")
W_ROOM = ("Ruum", "Room")
W_FIRST = ("Esimene segaja", "First to shuffle")
W_DEAL = ("Jagu", "Deal")
W_SHUFFLES = ("Segab ", "Shuffles ")
W_BOARD = ("Jagu ", "Board ")
W_HOLD_OK = ("Hoia OK", "Hold OK")

# Menu item kinds
_M_REDEAL = const(0)
_M_FORFEIT = const(1)
_M_LANG = const(2)
_M_SOUND = const(4)
_M_ABANDON = const(5)
_M_BACK = const(3)

# Start step kinds
_S_RULES = const(0)
_S_TABLE = const(1)
_S_ROUND = const(2)
_S_ROOM = const(3)
_S_FIRST = const(4)


class _CpythonClock:
    """time's ticks_ms/ticks_diff where CPython lacks them (tests and benches of the flows)."""

    def ticks_ms(self):
        import time
        return int(time.monotonic() * 1000)

    def ticks_diff(self, a, b):
        return a - b


def _clock():
    import time
    if hasattr(time, "ticks_ms"):
        return time
    return _CpythonClock()


_SEATS = {2: ("A1", "B1", "A2", "B2"), 3: ("A1", "B1", "C1", "A2", "B2", "C2")}


def seat_name(seat, sides):
    """Seat s belongs to side s % sides; A1 B1 A2 B2 (C1 C2 in Schmier).
    From a table for the boxes that exist: render draws it on every deal, so it must not allocate."""
    names = _SEATS.get(sides)
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return SIDES[seat % sides] + str(seat // sides + 1)


class Ui:
    def __init__(self, table, clock=None, lang=0, on_lang=None, assignment=None, chord_ms=0,
                 sound=True, on_sound=None, max_sides=3):
        """table: nakk.table.Table; clock: ticks_ms/ticks_diff (default time);
        on_lang(lang): called when the players switch the language (the app saves it);
        sound, on_sound(sound): the beep on a saved entry, and when it is switched;
        max_sides: side buttons the box has (a four-player box without C: no Schmier);
        assignment: the setup fields the judge pushed for the next match, or None;
        chord_ms: a different side button this soon after another takes both back
        (the app passes CHORD_MS and holds entries that long before flushing;
        0, the default for scripted use, turns it off)."""
        if clock is None:
            clock = _clock()
        self.table = table
        self._ms = clock.ticks_ms
        self._diff = clock.ticks_diff
        self.lang = lang
        self.on_lang = on_lang
        self.sound = sound
        self.on_sound = on_sound
        self.max_sides = max_sides
        self.assignment = assignment
        self.version = 0           # bumped whenever anything on screen may have changed
        self.msg = None            # (et, en) or str shown for MSG_MS; None
        self.msg2 = ""             # extra text after msg (a button name, an error)
        self._msg_at = 0
        self.faults = 0            # buttons in fault (bitmask)
        self.idle = False
        self._last = self._ms()
        # the list on screen: title, items (each (et, en) or str), cursor
        self.title = None
        self.detail = ""           # a line under the title (what an undo takes back, the assignment)
        self.items = ()
        self.cursor = 0
        # deal entry
        self.fixed = None
        self.steps = ()
        self.k = 0
        self.answers = {}
        self._choices = ()
        # start
        self._start = None
        self._sk = 0
        self._menu = ()
        self._undo_target = None
        self._chord = None         # (side button, time, snapshot) of the last side press
        self._detour = None        # the deal entry as it was when a menu or list opened over it
        self._form_of = None       # the match whose plain deal form is in fixed/steps
        self._asked = None         # [screen under the question or None, on_answer, asked at, timeout]
        self.chord_ms = chord_ms
        self.mode = START
        self.resync()

    # ------------------------------------------------------------ state
    def resync(self):
        """Pick the screen that fits the match in play (at boot, after an entry, after a failed save)."""
        if self._asked is not None:
            # a question is up: it stays; the screen under it is picked again when it is answered
            self._asked[0] = None
            self.version += 1
            return
        m = self.table.match
        if m is None or m.setup is None:
            self._enter_start()
        elif m.locked():
            self.mode = DONE
            self._list(W_JUDGE, (W_NEW,))
        elif m.st.over:
            self.mode = END
            self._list(W_OVER, (W_CONFIRM, W_DISPUTE))
        else:
            self._begin_entry()
        self.version += 1

    def _list(self, title, items, cursor=0):
        self.detail = ""
        self.title = title
        self.items = items
        self.cursor = cursor

    def say(self, msg, extra=""):
        self.msg = msg
        self.msg2 = extra
        self._msg_at = self._ms()
        self.version += 1

    def word(self, w):
        """The on-screen text of w: an (et, en) pair or plain text."""
        if isinstance(w, tuple):
            return w[self.lang]
        return w

    def tick(self):
        """Called by the app between events: times out messages and goes idle. True if the screen changed."""
        now = self._ms()
        changed = False
        if self.msg is not None and self._diff(now, self._msg_at) >= MSG_MS:
            self.msg = None
            changed = True
        if not self.idle and self._diff(now, self._last) >= IDLE_MS:
            self.idle = True
            changed = True
        a = self._asked
        if a is not None and self._diff(now, a[2]) >= a[3]:
            self._end_ask(False)           # nobody answered: no
            changed = True
        if changed:
            self.version += 1
        return changed

    # ------------------------------------------------------------ for other tasks
    def ask(self, words, on_answer, timeout_ms=ASK_MS):
        """Put a question (words: (et, en)) on the screen over whatever is there, at once.
        A long OK answers on_answer(True); any other press, timeout_ms without a press,
        or a newer question answers on_answer(False). Then the screen is as it was."""
        if self._asked is not None:
            self._end_ask(False)
        self._asked = [self._snapshot(), on_answer, self._ms(), timeout_ms]
        self._chord = None
        self.idle = False
        self.mode = ASK
        self._list(words, (W_HOLD_OK,))
        self.version += 1

    def _end_ask(self, yes):
        snap, on_answer = self._asked[0], self._asked[1]
        self._asked = None
        m = self.table.match
        if snap is None or self.table.pending is not None or (m.seq if m is not None else 0) != snap[0]:
            self.resync()
        else:
            self._put_back(snap)
        on_answer(yes)

    def offer(self, assignment):
        """The judge's assignment for the next match (setup fields; None withdraws it).
        The start screen shows it at once; elsewhere it waits for the next match."""
        self.assignment = assignment
        if self.mode == START:
            self._enter_start()
            self.version += 1

    # ------------------------------------------------------------ events
    def handle(self, ev):
        """One button event (nakk.buttons encoding, with its time).
        Returns (what, reason): NOTHING, MOVED, SUBMITTED, or REFUSED with the words on screen."""
        k = K.kind(ev)
        b = K.button(ev)
        if k == K.FAULT:
            self.faults |= 1 << b
            self.say(W_STUCK, K.NAMES[b])
            return _NOTHING
        if k == K.CLEAR:
            self.faults &= ~(1 << b)
            self.say(W_FREED)
            return _NOTHING
        self._last = self._ms()
        self.version += 1
        if self.msg is not None:
            self.msg = None
        if self._asked is not None:
            self._end_ask(k == K.LONG and b == K.OK)
            return _MOVED
        if self.idle:
            # the press that wakes the screen enters nothing
            self.idle = False
            return _NOTHING
        if k == K.PRESS:
            t = K.at(ev)
            c = self._chord
            if c is not None and c[0] != b and K.span(c[1], t) < self.chord_ms:
                # a second (or third) side within the window of the first: take the
                # first back once, and keep the window open so no later one counts
                if c[2] is not None:
                    self._restore(c[2])
                    self._chord = (-1, c[1], None)
                return self._refuse(W_CHORD)
            if not self.chord_ms:
                return self._dispatch(k, b)
            snap = self._snapshot()
            r = self._dispatch(k, b)
            self._chord = (b, t, snap)
            return r
        self._chord = None
        return self._dispatch(k, b)

    def _refuse(self, words, extra=""):
        """The press enters nothing: say why (the app beeps on REFUSED)."""
        self.say(words, extra)
        return (REFUSED, words)

    def _snapshot(self):
        a = self.answers
        m = self.table.match
        return (m.seq if m is not None else 0, self.mode, self.k, dict(a) if a else None, self.cursor, self.items,
                self.title, self.detail, self._choices, self.fixed, self.steps, self._menu, self._undo_target)

    def _restore(self, s):
        m = self.table.match
        if self.table.pending is None and (m.seq if m is not None else 0) != s[0]:
            return                 # what the first press entered is already on flash: leave it
        self.table.drop()
        self._put_back(s)

    def _put_back(self, s):
        """The screen state of a snapshot (only a side press or a menu changed it since)."""
        (seq, self.mode, self.k, a, self.cursor, self.items, self.title, self.detail,
         self._choices, self.fixed, self.steps, self._menu, self._undo_target) = s
        self.answers = a if a is not None else {}
        self.version += 1

    def _dispatch(self, k, b):
        mode = self.mode
        if mode == START:
            return self._start_event(k, b)
        if mode == ENTRY:
            return self._entry_event(k, b)
        if mode == MENU:
            return self._menu_event(k, b)
        if mode == PENALTY:
            return self._penalty_event(k, b)
        if mode == UNDO:
            return self._undo_event(k, b)
        if mode == END:
            return self._end_event(k, b)
        if mode == DONE:
            return self._done_event(k, b)
        return _NOTHING

    def _move(self, k, b):
        """PREV/NEXT short presses move the cursor round the list; True if it was one."""
        if k == K.SHORT and (b == K.NEXT or b == K.PREV):
            n = len(self.items)
            if n:
                self.cursor = (self.cursor + (1 if b == K.NEXT else n - 1)) % n
            return True
        return False

    def _side(self, b):
        """Side index of side button b in this match, or None (the caller refuses W_NOSIDE)."""
        m = self.table.match
        n = m.rules.sides if m is not None and m.rules is not None else 2
        if b < n:
            return b
        return None

    def _submit(self, fields):
        try:
            self.table.submit(fields)
        except EventError as e:
            return self._refuse(W_REFUSED, _error_text(e))
        self.resync()
        return _SUBMITTED

    # ------------------------------------------------------------ deal entry
    def _begin_entry(self):
        m = self.table.match
        self.mode = ENTRY
        st = m.st
        if st.chain == 0 and st.boards is None and self._form_of is m:
            # the same questions as last deal (no pokk replay, no board number): no new form
            pass
        else:
            self.fixed, self.steps = m.rules.form(st, m.cfg)
            self._form_of = m if st.chain == 0 and st.boards is None else None
        self.answers = {}
        self.k = 0
        self._enter_step(0)

    def _offered(self, st):
        out = []
        for c in st["choices"]:
            w = c.get("when")
            if w is not None:
                v = self.answers.get(w[0], self.fixed.get(w[0]))
                if v not in w[1]:
                    continue
            out.append(c)
        return out

    def _enter_step(self, cursor):
        """Show step k (skipping steps with nothing to offer); commit when past the last."""
        while self.k < len(self.steps):
            st = self.steps[self.k]
            offered = st.get("_offered")          # a step without conditions: its lists, made once
            if offered is None:
                offered = self._offered(st)
                labels = [c["label"] for c in offered]
                for c in st["choices"]:
                    if "when" in c:
                        break
                else:
                    st["_offered"] = offered
                    st["_labels"] = labels
            else:
                labels = st["_labels"]
            if offered:
                self._choices = offered
                self._list(st["label"], labels, cursor)
                return _MOVED
            self.k += 1
        ev = {"type": "deal"}
        for key in self.fixed:
            ev[key] = self.fixed[key]
        for key in self.answers:
            ev[key] = self.answers[key]
        r = self._submit(ev)
        if r[0] != SUBMITTED:
            # rejected: back to the last step, answers kept, so one field can be fixed
            self._back()
        return r

    def _back(self):
        """Take back the last answered step."""
        if self.k == 0:
            return
        self.k -= 1
        st = self.steps[self.k]
        key = st["key"]
        cur = 0
        offered = self._offered(st)
        for i in range(len(offered)):
            c = offered[i]
            if c["value"] == self.answers.get(key) and (c.get("side") is None or c["side"] in self.answers):
                cur = i
        for c in offered:
            if c.get("side") is not None:
                self.answers.pop(c["side"], None)
        self.answers.pop(key, None)
        # a step skipped on the way forward (nothing offered) is skipped back too
        if not offered:
            return self._back()
        self._choices = offered
        self._list(st["label"], [c["label"] for c in offered], cur)

    def _answer(self, c, side):
        st = self.steps[self.k]
        self.answers[st["key"]] = c["value"]
        if side is not None:
            self.answers[c["side"]] = SIDES[side]
        self.k += 1
        return self._enter_step(0)

    def _rest(self, c):
        """OK on a step that allows it: this step and every later one like it go to the side
        already named in the `rest` field (Schmier: the rest of the points to the bidder)."""
        field = self.steps[self.k].get("rest")
        who = self.answers.get(field)
        if who is None:
            return None
        while self.k < len(self.steps) and self.steps[self.k].get("rest") == field:
            st = self.steps[self.k]
            offered = self._offered(st)
            first = offered[0]
            self.answers[st["key"]] = first["value"]
            self.answers[first["side"]] = who
            self.k += 1
        return self._enter_step(0)

    def _entry_event(self, k, b):
        if self._move(k, b):
            return _MOVED
        c = self._choices[self.cursor]
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W_NOSIDE)
            if c.get("side") is None:
                return self._refuse(W_OK)
            return self._answer(c, side)
        if k == K.SHORT and b == K.OK:
            if c.get("ok"):
                return self._answer(c, None)
            if self.steps[self.k].get("rest") is not None:
                r = self._rest(c)
                if r is not None:
                    return r
            return self._refuse(W_SIDE)
        if k == K.LONG:
            if b == K.PREV:
                if self.k > 0:
                    self._back()
                else:
                    return self._enter_undo()
            elif b == K.NEXT:
                return self._enter_penalty()
            elif b == K.OK:
                self._enter_menu()
        return _MOVED

    # ------------------------------------------------------------ menu
    def _enter_menu(self):
        m = self.table.match
        items = []
        kinds = []
        if not m.st.over:
            for r in m.rules.redeal_reasons:
                items.append(W_REDEAL[self.lang] + r[1 + self.lang])
                kinds.append((_M_REDEAL, r[0]))
            items.append(W_FORFEIT)
            kinds.append((_M_FORFEIT, None))
            if not m.in_force:
                # nothing entered yet: a match started by mistake is closed, not forfeited
                items.append(W_ABANDON)
                kinds.append((_M_ABANDON, None))
        items.append(W_LANG)
        kinds.append((_M_LANG, None))
        items.append(W_SOUND[0] if self.sound else W_SOUND[1])
        kinds.append((_M_SOUND, None))
        items.append(W_BACK)
        kinds.append((_M_BACK, None))
        self._menu = kinds
        self._leave_entry()
        self.mode = MENU
        self._list(W_MENU, items)

    def _menu_event(self, k, b):
        if self._move(k, b):
            return _MOVED
        what, arg = self._menu[self.cursor]
        if k == K.LONG and b == K.PREV:
            self._back_to_entry()
            return _MOVED
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W_NOSIDE)
            if what == _M_FORFEIT:
                return self._submit({"type": "forfeit", "by": SIDES[side]})
            return self._refuse(W_OK)
        if k == K.SHORT and b == K.OK:
            if what == _M_REDEAL:
                return self._submit({"type": "redeal", "reason": arg})
            if what == _M_ABANDON:
                r = self._submit({"type": "close", "reason": "abandoned at the table: started by mistake"})
                if r[0] == SUBMITTED:
                    self._enter_start()
                return r
            if what == _M_FORFEIT:
                return self._refuse(W_SIDE)
            if what == _M_LANG:
                self.lang = 1 - self.lang
                if self.on_lang is not None:
                    self.on_lang(self.lang)
                self._enter_menu()
                self.cursor = len(self._menu) - 3
                return _MOVED
            if what == _M_SOUND:
                self.sound = not self.sound
                if self.on_sound is not None:
                    self.on_sound(self.sound)
                self._enter_menu()
                self.cursor = len(self._menu) - 2
                return _MOVED
            self._back_to_entry()
        return _MOVED

    def _leave_entry(self):
        """Going from the deal entry to a menu, the penalty list or the undo question:
        remember the half-entered deal, so coming back without an entry keeps it."""
        if self.mode == ENTRY:
            self._detour = self._snapshot()
        elif self.mode != MENU:
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
        m = self.table.match
        offences = m.rules.offences
        if not offences:
            return self._refuse(W_NOPEN)
        self._leave_entry()
        self.mode = PENALTY
        self._menu = [o[0] for o in offences]
        self._list(W_PENALTY, [(o[1], o[2]) for o in offences])
        return _MOVED

    def _penalty_event(self, k, b):
        if self._move(k, b):
            return _MOVED
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W_NOSIDE)
            return self._submit({"type": "penalty", "offence": self._menu[self.cursor], "by": SIDES[side]})
        if k == K.SHORT and b == K.OK:
            return self._refuse(W_SIDE)
        if k == K.LONG and b == K.PREV:
            self._back_to_entry()
        return _MOVED

    # ------------------------------------------------------------ undo
    def _enter_undo(self):
        m = self.table.match
        if m is None or m.locked() or not m.in_force:
            return self._refuse(W_NOTHING)
        self._undo_target = m.in_force[-1]
        ev = self.table.event(self._undo_target)
        self.mode = UNDO
        self._list(W_UNDO, (W_CONFIRM, W_BACK))
        self.detail = self._describe(ev) if ev is not None else "#%d" % self._undo_target
        return _MOVED

    def _undo_event(self, k, b):
        if k == K.SHORT and b == K.OK:
            if self.cursor != 0:
                self.resync()
                return _MOVED
            r = self._submit({"type": "cancel", "target": self._undo_target})
            if r[0] == SUBMITTED:
                self.say(W_UNDONE)
            return r
        if self._move(k, b):
            return _MOVED
        if k == K.LONG:
            self.resync()        # any long press backs out; the undo needs a deliberate OK
        return _MOVED

    # ------------------------------------------------------------ end of match
    def _end_event(self, k, b):
        if self._move(k, b):
            return _MOVED
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W_NOSIDE)
            m = self.table.match
            if side in m.confirmed or side in m.disputed:
                return _NOTHING
            return self._submit({"type": "dispute" if self.cursor == 1 else "confirm", "by": SIDES[side]})
        if k == K.SHORT and b == K.OK:
            return self._refuse(W_SIDE)
        if k == K.LONG and b == K.PREV:
            return self._enter_undo()
        if k == K.LONG and b == K.OK:
            self._enter_menu()
        return _MOVED

    def _done_event(self, k, b):
        if k == K.LONG and b == K.OK:
            self._enter_start()
        elif k == K.LONG and b == K.PREV:
            return self._enter_undo()     # says there is nothing to undo: the result is locked
        return _MOVED

    # ------------------------------------------------------------ a new match
    def _enter_start(self):
        self.mode = START
        a = self.assignment
        if a is not None:
            self._start = None
            self._list(W_ASSIGN, (W_CONFIRM, W_NEWMATCH))
            self.detail = _assignment_text(a)
            return
        prev = self.table.match
        games = self._games()
        last = prev.rules.name if prev is not None and prev.rules is not None else None
        self._start = {"ruleset": last if last in games else games[0],
                       "table": prev.setup.get("table", 1) if prev is not None and prev.setup is not None else 1,
                       "round": (prev.setup.get("round", 0) + 1) if prev is not None and prev.setup is not None else 1,
                       "room": 1, "first_shuffler": 0}
        self._sk = 0
        self._start_step()

    def _games(self):
        """The rulesets this box can play: Schmier needs the third side button."""
        return [_rules.NAMES[i] for i in range(len(_rules.NAMES)) if _rules.SIDES[i] <= self.max_sides]

    def _start_steps(self):
        r = _rules.get(self._start["ruleset"])
        steps = [_S_RULES, _S_TABLE, _S_ROUND]
        if r.has_boards:
            steps.append(_S_ROOM)
        steps.append(_S_FIRST)
        return r, steps

    def _start_step(self):
        r, steps = self._start_steps()
        s = steps[self._sk]
        v = self._start
        if s == _S_RULES:
            names = self._games()
            titles = [_rules.TITLES[_rules.NAMES.index(n)] for n in names]
            self._list(W_RULES, titles, names.index(v["ruleset"]) if v["ruleset"] in names else 0)
        elif s == _S_FIRST:
            self._list(W_FIRST, [seat_name(i, r.sides) for i in range(r.seats)], v["first_shuffler"])
        else:
            key, title, n = {_S_TABLE: ("table", W_TABLE, 99), _S_ROUND: ("round", W_ROUND, 99),
                             _S_ROOM: ("room", W_ROOM, 2)}[s]
            self._list(title, range(1, n + 1), min(v[key], n) - 1)   # the font draws ints

    def _start_event(self, k, b):
        if self._start is None:
            # the judge's assignment: OK on "confirm" starts it; "new match" sets one up by hand
            if self._move(k, b):
                return _MOVED
            if k == K.SHORT and b == K.OK:
                if self.cursor == 0:
                    return self._begin_match(self.assignment)
                if self.cursor == 1:
                    self.assignment = None
                    self._enter_start()
            return _MOVED
        if self._move(k, b):
            return _MOVED
        r, steps = self._start_steps()
        if k == K.LONG and b == K.PREV:
            if self._sk > 0:
                self._sk -= 1
                self._start_step()
            return _MOVED
        if not (k == K.SHORT and b == K.OK):
            if k == K.PRESS:
                return self._refuse(W_OK)
            return _MOVED
        s = steps[self._sk]
        v = self._start
        if s == _S_RULES:
            v["ruleset"] = self._games()[self.cursor]
            v["first_shuffler"] = 0
            r, steps = self._start_steps()
        elif s == _S_TABLE:
            v["table"] = self.cursor + 1
        elif s == _S_ROUND:
            v["round"] = self.cursor + 1
        elif s == _S_ROOM:
            v["room"] = self.cursor + 1
        else:
            v["first_shuffler"] = self.cursor
        self._sk += 1
        if self._sk < len(steps):
            self._start_step()
            return _MOVED
        setup = {"ruleset": v["ruleset"], "table": v["table"], "round": v["round"],
                 "first_shuffler": v["first_shuffler"],
                 "sides": [{"id": SIDES[i], "name": SIDES[i]} for i in range(r.sides)]}
        if r.has_boards:
            setup["room"] = v["room"]
        return self._begin_match(setup)

    def _begin_match(self, setup):
        try:
            if not self.table.start(setup):
                return self._refuse(W_FULL)      # the flash is low: sync first
        except EventError as e:
            return self._refuse(W_REFUSED, _error_text(e))
        self.assignment = None
        self.resync()
        return _SUBMITTED

    def _describe(self, ev):
        """An entry in the players' words, e.g. "#12 jagu: Ruutu B, Jänn A" (what the undo names)."""
        m = self.table.match
        lang = self.lang
        labels = {}
        steps = self.steps
        if m is not None and m.rules is not None:
            if not steps:
                steps = m.rules.form(m.st, m.cfg)[1]
            for row in m.rules.offences + m.rules.redeal_reasons:
                labels[row[0]] = row[1 + lang]
        for stp in steps or ():
            for c in stp["choices"]:
                if isinstance(c["value"], str):
                    labels[c["value"]] = c["label"][lang]
        return describe(ev, lang, labels)

    # ------------------------------------------------------------ for render
    def choice_text(self):
        """The answer under the cursor, as text."""
        if not self.items:
            return ""
        return self.word(self.items[self.cursor])


def _assignment_text(a):
    t = []
    if "table" in a:
        t.append("L%d" % a["table"])
    if "round" in a:
        t.append("V%d" % a["round"])
    t.append(a.get("ruleset", "?"))
    return " ".join(t)


def _error_text(e):
    """The rules' reason (English: the rules speak the judge's language), with the field."""
    return "%s: %s" % (e.field, e.reason) if e.field else e.reason


_TYPES = {"deal": ("jagu", "deal"), "redeal": ("uus jagamine", "redeal"), "penalty": ("karistus", "penalty"),
          "adjust": ("parandus", "adjustment"), "forfeit": ("loobumine", "forfeit")}


_PAIRS = (("game", "maker"), ("contract", "maker"), ("bid", "bidder"), ("result", "winner"),
          ("offence", "by"), ("reason", None), ("by", None))


def describe(ev, lang, labels=None):
    """A short line for an entry, e.g. "#12 jagu: Ruutu B, Jänn A"; labels: value -> words."""
    t = ev["type"]
    labels = labels or {}
    parts = []
    used = []
    for what, who in _PAIRS:
        if what in ev and what not in used and ev[what] is not None:
            used.append(what)
            v = ev[what]
            v = labels.get(v, str(v)) if isinstance(v, str) else str(v)
            if who is not None and who in ev and ev[who] is not None:
                used.append(who)
                v += " " + str(ev[who])
            parts.append(v)
    return "#%d %s: %s" % (ev["seq"], _TYPES.get(t, (t, t))[lang], ", ".join(parts))
