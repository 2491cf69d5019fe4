"""The box's screens and flows: button events in, entries for the table out (the Ui class).

The parts live in their own modules: the words and their languages
(nakk.ui.words), the start wizard (nakk.ui.start), the deal-form interpreter
(nakk.ui.dealform), the menus (nakk.ui.menus), and the screens beside the deal
entry (nakk.ui.modes: the Ui's base class; the deal entry, the press path, is here). Nothing here knows pins, files,
the display, journal types or a game: the app feeds button events
(nakk.drivers.buttons, each with its time), the rulesets say what a game asks, and
every entry goes through the table (nakk.table), which checks it with the
rules and journals it.

The buttons, everywhere:
  side (A, B, C)  answer for that side (maker, winner, offender, confirming): on press-down
  side held       enters the answer's held meaning ("Trump · võit": won with jänn; the
                  press-down's entry waits while the button is down: "hoia: jänn"; in
                  Schmier one more: the next bid, a tally's "+2" on "+1")
  PREV / NEXT     move the cursor (the likely answer is where it starts)
  OK              take the answer under the cursor when no side is asked
  long PREV       take back: the last step of an entry, or (confirmed with
                  OK) the last entry saved -- a cancel event
  long NEXT       a penalty: offence under the cursor, offender's side button
  long OK         the menu: redeal (with its reason), forfeit, language; on a
                  finished match, the next match
  PREV+NEXT held  together (their long presses within PAIR_MS of each other): yes
                  to the pairing question; on the start screen, the box's own reset
                  of its pairing (on_reset: the app asks first); nothing anywhere
                  else -- the one press no other screen uses, so no habit does it
Two side buttons together enter nothing and ask for one at a time: the driver reports a
side press at once (for latency); a different side button within CHORD_MS of it (the
events' times) makes the UI take back what the first did (the app holds a finished entry
CHORD_MS before flushing it), so a slap of both is harmless whichever lands first.

What render (and the app) read of a Ui -- its surface, nothing else:
  mode            START ENTRY MENU PENALTY UNDO END DONE ASK
  lang            0 Estonian, 1 English (nakk.ui.words)
  version         bumped whenever anything on screen may have changed
  idle            the idle screen (score only) is up
  faults          bitmask of buttons in fault
  msg, msg2       a message ((et, en) or text) and the text after it, or None
  title, detail, items, cursor   the list on screen (or the step being entered)
  table           the table: table.match, table.n (read only)
  deal.steps      the deal form in use (its labels are drawn once, early)
  banner          a line about the deal being entered (the ruleset's: a pokk replay, the bid), or None
  word(w), choice_text(), takes_side()
  says(), ok_says(), tally(side), rest_left(side, ok)   the deal entry: what the next press does
  holding(), held_says(), sound, assignment   a side button down whose LONG would change its
                  entry, its words; the beep setting, the judge's assignment (or None)
"""

from nakk.compat import const, micropython

from nakk.drivers import buttons as K
from nakk.ui import menus
from nakk.ui import words as W
from nakk.ui.dealform import DealEntry
from nakk.event import EventError, SIDES
from nakk.ui.start import StartWizard
from nakk.ui.modes import Modes, held_of as _held_of, NOTHING_ as _NOTHING, MOVED_ as _MOVED, SUBMITTED_ as _SUBMITTED

START = const(0)    # a new match: accept the judge's assignment, or choose ruleset, table, round, shuffler
ENTRY = const(1)    # the score, and the deal entry on the bottom line
MENU = const(2)     # redeal reasons, forfeit, language, back
PENALTY = const(3)  # offence under the cursor; the offender's side button commits
UNDO = const(4)     # confirm the cancel of the latest entry
END = const(5)      # the match is over: each side confirms or disputes with its own button
DONE = const(6)     # the result is locked and waits for the judge
ASK = const(7)      # the link's pairing question: PREV+NEXT held says yes, any other press no

# What a button event did: Ui.handle returns (one of these, reason); the app acts on it alone.
NOTHING = const(0)    # nothing the players see as an answer (it woke the screen; a button stuck or freed)
MOVED = const(1)      # the screen moved (cursor, step, menu); nothing to save
SUBMITTED = const(2)  # an entry is pending in the table: the app draws it, then saves it
REFUSED = const(3)    # the press entered nothing and the screen says why (reason: those words)

CHORD_MS = const(40)     # a second side button within this of the first: both were pressed together
IDLE_MS = const(120000)  # no press for this long: the idle screen (score only)
ASK_MS = const(30000)    # a question nobody answers is answered "no" after this
PAIR_MS = const(600)     # PREV's and NEXT's long presses this close: held together
MSG_MS = const(4000)     # how long a message stays up
_SCREEN = const(16)      # the fields of a _screen()


class Ui(Modes):
    def __init__(self, table, clock=None, lang=W.ET, on_lang=None, assignment=None, chord_ms=0,
                 sound=True, on_sound=None, max_sides=3):
        """table: nakk.table.Table; clock: ticks_ms/ticks_diff (default: nakk.compat's);
        on_lang(lang): called when the players switch the language (the app saves it);
        sound, on_sound(sound): the beep on a saved entry, and when it is switched;
        max_sides: side buttons the box has (a four-player box without C: no three-side game);
        assignment: the setup fields the judge pushed for the next match, or None;
        chord_ms: a different side button this soon after another takes both back
        (the app passes CHORD_MS and holds entries that long before flushing;
        0, the default for scripted use, turns it off)."""
        from nakk.compat import clock as ticks
        clock = ticks(clock)
        self.table = table
        self._ms = clock.ticks_ms
        self._diff = clock.ticks_diff
        self.lang = lang
        self.on_lang = on_lang
        self.sound = sound
        self.on_sound = on_sound
        self.assignment = assignment
        self.taken = None          # the assignment the latest match start took (offered again if it failed)
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
        self.deal = DealEntry()    # the deal being entered
        self.banner = None         # the ruleset's line about it (made when the entry moves a step)
        self.wizard = StartWizard(max_sides)
        self.on_assignment = True  # START: the judge's assignment is on screen (else the wizard)
        self.actions = None        # MENU: each item's (action, argument)
        self.offences = None       # PENALTY: each item's (offence, field, value)
        self._undo_target = None   # seq an undo would cancel
        self._undo_words = None    # (seq, lang, match's setup, words) of the latest undo_words()
        # The last side press, for a chord's take-back: its button (None: none; -1: the
        # window stays open, nothing left to take back), its time, and whether the screen
        # before it is kept in _chord_screen. Fields and a list made once, not a tuple per
        # press: a side press is a deal press (docs/latency.md: allocations).
        self._chord = None
        self._chord_t = 0
        self._chord_kept = False
        self._chord_screen = [None] * _SCREEN   # _screen(into) fills it in place
        self._chord_answers = {}           # its answers, copied into this dict (kept, never cleared with clear())
        # what holding that side press's button enters instead (modes.held_of), or None
        self._held_c = None
        self._detour = None        # the deal entry as it was when a menu or list opened over it
        self._asked = None         # [screen under the question or None, on_answer, asked at, timeout,
        #                            time of a lone long PREV/NEXT (half the yes) or None, its button]
        self.chord_ms = chord_ms
        self.on_reset = None       # PREV+NEXT held on the start screen: the app's (the link's reset question)
        self._long_t = 0           # the time of the latest long press
        self._half = None          # on the start screen: the button of a lone long PREV/NEXT, at _half_t
        self._half_t = 0
        self._likely = None        # likely_match(), made for ui.version _likely_v
        self._likely_v = -1
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
            self._list(W.JUDGE, (W.NEW,))
        elif m.st.over:
            self.mode = END
            self._list(W.OVER, (W.CONFIRM, W.DISPUTE))
        else:
            self.mode = ENTRY
            self.deal.begin(m)
            self._show_step(0)
        if self.mode != ENTRY:
            self.banner = None
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
        """The on-screen text of w in the players' language."""
        return W.text(w, self.lang)

    def takes_side(self):
        """Whether the item under the cursor of a list is answered with a side button (else OK)."""
        if self.mode == PENALTY:
            return True
        if self.mode == MENU and self.actions:
            return self.actions[self.cursor][0] == menus.FORFEIT
        return False

    def _set_banner(self):
        m = self.table.match
        b = None
        if self.mode == ENTRY and m is not None and m.st is not None:
            b = m.rules.banner(m.st, self.deal.answers, self.lang)
        self.banner = b

    def choice_text(self):
        """The answer under the cursor, as text."""
        if not self.items:
            return ""
        return W.text(self.items[self.cursor], self.lang)

    def says(self):
        """On the deal entry: what a side button does on the answer under the cursor, in the
        players' words ((et, en)), or None when a side button enters nothing there."""
        if self.mode != ENTRY or not self.items:
            return None
        c = self.deal.choices[self.cursor]
        if c.get("side") is None:
            return None
        return c.get("says")

    def ok_says(self):
        """On the deal entry: what OK does on the answer under the cursor ((et, en)), or None."""
        if self.mode != ENTRY or not self.items:
            return None
        oc = self.deal.ok_choice(self.deal.choices[self.cursor])
        return oc.get("ok_says") if oc is not None else None

    def tally(self, side):
        """On a tally step of the deal entry, the count given to side so far; else -1."""
        return self.deal.tally(side) if self.mode == ENTRY and self.items else -1

    def rest_left(self, side, ok=True):
        """On a tally step, for the side OK gives the rest to, how many OK would give it; with ok
        False, on "Mängupunkt viik", for another side how many its button would (as OK); else -1."""
        if self.mode != ENTRY or not self.items:
            return -1
        d = self.deal
        field = d.steps[d.step].get("rest")
        if field is None or "count" not in d.steps[d.step] or (d.answers.get(field) == SIDES[side]) != ok:
            return -1
        rests = "rests" in d.choices[self.cursor]   # "Mängupunkt viik" under the cursor: the rest less it
        if not (ok or rests):
            return -1                      # (before left(): drawn and signed for each side every frame)
        n = d.left() - (1 if rests else 0)
        return n if n > 0 else -1          # a tally given whole, held for OK: no "OK+0"

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
        if a is not None and (self._diff(now, a[2]) >= a[3]
                              or (a[4] is not None and K.span(a[4], now) > PAIR_MS)):
            self._ask_event(None, None, now)   # nobody answered (or one long press alone): no
            changed = True
        if changed:
            self.version += 1
        return changed


    # ------------------------------------------------------------ events
    def handle(self, ev):
        """One button event (nakk.drivers.buttons encoding, with its time).
        Returns (what, reason): NOTHING, MOVED, SUBMITTED, or REFUSED with the words on screen."""
        k = K.kind(ev)
        b = K.button(ev)
        if k == K.FAULT:
            self.faults |= 1 << b
            self.say(W.STUCK, K.NAMES[b])
            return _NOTHING
        if k == K.CLEAR:
            self.faults &= ~(1 << b)
            self.say(W.FREED)
            return _NOTHING
        if k == K.LONG and b < K.NSIDE:
            return self._side_long(b)
        self._last = self._ms()
        self.version += 1
        if self.msg is not None:
            self.msg = None
        if self._asked is not None:
            self._ask_event(k, b, K.at(ev))
            return _MOVED
        if self.idle:
            # the press that wakes the screen enters nothing (the players did not see what it
            # would act on), and the woken screen says so: one more press
            self.idle = False
            self.say(W.WOKE)
            return _NOTHING
        if k == K.PRESS:
            return self._side_press(b, K.at(ev))
        if k == K.LONG:
            self._long_t = K.at(ev)
        self._chord = None
        self._chord_kept = False
        self._held_c = None
        return self._dispatch(k, b)

    def _side_press(self, b, t):
        # (handle's own frame stays within 11 words: a bigger one is a heap allocation a call)
        c = self._chord
        if c is not None and c != b and K.span(self._chord_t, t) < self.chord_ms:
            # a second (or third) side within the window of the first: take the
            # first back once, and keep the window open so no later one counts
            if self._chord_kept:
                self._chord_kept = False
                self._take_back(self._chord_screen)
                self._chord = -1
            self._held_c = None
            return self._refuse(W.CHORD)
        s = self._screen(self._chord_screen)
        r = self._dispatch(K.PRESS, b)
        self._chord = b
        self._chord_t = t
        self._chord_kept = True
        self._held_c = _held_of(s, self.deal) if r[0] == SUBMITTED or r[0] == MOVED else None
        return r

    def _refuse(self, words, extra=""):
        """The press enters nothing: say why (the app beeps on REFUSED)."""
        self.say(words, extra)
        return (REFUSED, words)

    def _screen(self, into=None):
        """What is on screen, to put back after a take-back, a detour or a question: a new list
        of _SCREEN, or, into the side press's (made once), written in place with the answers
        copied into a dict kept for it (a side press allocates no list and no dict)."""
        d = self.deal
        a = d.answers
        if into is None:
            into = [None] * _SCREEN
            kept = dict(a) if a else None
        else:
            self._keep_answers(a)
            kept = self._chord_answers if a else None
        m = self.table.match
        into[0] = m.seq if m is not None else 0
        into[1] = self.mode
        into[2] = self.cursor
        into[3] = self.items
        into[4] = self.title
        into[5] = self.detail
        into[6] = self.actions
        into[7] = self._undo_target
        into[8] = d.step
        into[9] = kept
        into[10] = d.choices
        into[11] = d.fixed
        into[12] = d.steps
        into[13] = d.done
        into[14] = self.offences
        into[15] = self.on_assignment
        return into

    def _keep_answers(self, a):
        # a side press's copy of the answers, in the dict kept for it (_screen's frame stays small)
        kept = self._chord_answers
        while kept:
            kept.popitem()         # not clear(): that frees the table, and the copy would grow it again
        for key in a:
            kept[key] = a[key]

    def _take_back(self, s):
        m = self.table.match
        if self.table.pending is None and (m.seq if m is not None else 0) != s[0]:
            return                 # what the first press entered is already on flash: leave it
        self.table.drop()
        if s[9] is not None:
            s[9] = dict(s[9])      # the entry gets its own answers (the kept dict is the next press's)
        self._put_back(s)

    def _put_back(self, s):
        """The screen of a _screen() (only a side press, a menu or a question changed it since)."""
        (seq, self.mode, self.cursor, self.items, self.title, self.detail, self.actions,
         self._undo_target, step, answers, choices, fixed, steps, done, self.offences, self.on_assignment) = s
        self.deal.put(step, answers, choices, fixed, steps, done)
        self._set_banner()
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
        """Side index of side button b in this match, or None (the caller refuses NOSIDE)."""
        m = self.table.match
        n = m.rules.sides if m is not None and m.rules is not None else 2
        if b < n:
            return b
        return None

    # native: its exception handler makes a frame of 17 words, which bytecode puts on the heap
    @micropython.native
    def _submit(self, fields):
        try:
            self.table.submit(fields)
        except EventError as e:
            # a short sentence on the box; the rules' detailed reason is the judge's
            return self._refuse(W.refusal(e.field))
        self.resync()
        return _SUBMITTED

    # ------------------------------------------------------------ deal entry
    def _show_step(self, cursor, pressed=None):
        """Show the deal's next question; submit the deal when none is left. pressed: the
        choice a side press just took (the cursor then goes where deal.at() says)."""
        deal = self.deal
        if deal.show():
            self._list(deal.label, deal.labels, cursor if pressed is None else deal.at(pressed))
            self._set_banner()
            return _MOVED
        r = self._submit(self.deal.fields())
        if r[0] != SUBMITTED:
            # rejected: back to the last step, answers kept, so one field can be fixed
            self._step_back()
        return r

    def _step_back(self):
        deal = self.deal
        cur = deal.back()
        if cur >= 0:
            self._list(deal.label, deal.labels, cur)
            self._set_banner()

    def _deal_offence(self, offence, side, field):
        """An offence judged inside the deal (Modes'), then the step on screen asked again: with
        a sohk given the form asks its own results (each with the maker's button); the cursor
        stays where it was when the step is the same question."""
        r = Modes._deal_offence(self, offence, side, field)
        if self.mode == ENTRY and r == _MOVED:
            deal = self.deal
            key = deal.steps[deal.step]["key"]
            cur = self.cursor
            if not deal.show() or deal.steps[deal.step]["key"] != key or cur >= len(deal.labels):
                cur = 0
            r = self._show_step(cur)
        return r

    def _entry_event(self, k, b):
        if self._move(k, b):
            return _MOVED
        deal = self.deal
        c = deal.choices[self.cursor]
        if k == K.PRESS:
            side = self._side(b)
            if side is None:
                return self._refuse(W.NOSIDE)
            if c.get("side") is None:
                return self._refuse(W.PRESS_OK)
            deal.answer(c, side)
            return self._show_step(-1, c)
        if k == K.SHORT and b == K.OK:
            oc = deal.ok_choice(c)
            if oc is not None:
                deal.answer(oc, None)
                return self._show_step(0)
            if deal.rests() and deal.rest():
                return self._show_step(0)
            return self._refuse(W.SIDE)
        if k == K.LONG:
            if b == K.PREV:
                if deal.done:
                    self._step_back()
                else:
                    return self._enter_undo()
            elif b == K.NEXT:
                return self._enter_penalty()
            elif b == K.OK:
                self._enter_menu()
        return _MOVED
