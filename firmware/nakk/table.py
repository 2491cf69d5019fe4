"""The match in play at this table and where its events go: the journal on flash (or a list, in tests and benches).

The UI hands over what the players entered as event fields; the table numbers
it, checks and folds it with nakk.match (an invalid entry raises EventError
and changes nothing), and holds its bytes until `flush()` has put them on
flash. The app draws the new score with "saving" between the two calls: a
flash erase stalls the RP2040 for tens of ms (docs/latency.md).
"""

from nakk import rules as _rules
from nakk.event import FORMAT_VERSION, EventError, encode, parse
from nakk.journal import JournalError, JournalFull
from nakk.match import Match

_RECENT = 8     # entries kept in RAM (as bytes) so an undo can name its target without reading flash
# the journal's tag of a finished match (kept in its index: the boot reads no match to count them)
_PLAYED = 0
_WRONG_START = 1   # a setup closed at once: nothing in it to judge


def _setup_event(setup):
    ev = dict(setup)
    ev["type"] = "setup"
    ev["seq"] = 1
    try:
        ev["v"] = _rules.get(ev.get("ruleset")).format    # the format its deals need: Saare mäng stays 1
    except (KeyError, TypeError):
        ev["v"] = FORMAT_VERSION                           # Match says what is wrong with the setup
    return ev


class Table:
    def __init__(self, journal=None, keep=False, broken=None):
        """journal: a nakk.journal.Journal, or None to keep the events in `saved` (bytes);
        broken: why there is no usable journal (then every entry is refused with it)."""
        self.journal = journal
        self.broken = broken
        self.keep = keep or journal is None
        self.saved = []            # canonical bytes of every event saved (keep=True only)
        self.n = None              # match number in the journal
        self.match = None          # nakk.match.Match, or None before the first setup
        self.pending = None        # the event (dict) applied but not yet on flash
        self.error = None          # what went wrong with the last flush (text), or None
        self.full = False          # the last flush failed because the flash is full
        self.recent = []           # (seq, bytes) of the last entries saved: what an undo names
        self.damaged = None        # (match number, why) of the latest match when it cannot be folded back
        self._pending_seq = 0
        self._before = None        # (n, match, recent, saved) before a start not yet on flash
        self._folding = False      # _refold's pass holds the journal's own buffer

    # ------------------------------------------------------------ reading back
    def _history(self):
        if self.journal is not None:
            j, n = self.journal, self.n
            if self._folding:
                # inside _refold's pass, which holds the journal's buffer: a buffer of its own
                return (parse(r) for r in j.records(n))
            # an undo's refold: through the journal's buffer, no fresh 4 KiB in one piece
            # (a fragmented heap may have none: the undo would fail with MemoryError)
            return (parse(r) for r in j.own_records(n))
        return (parse(r) for r in self.saved)

    def resume(self):
        """Fold the latest match on flash back in; True if there was one. Never raises:
        a match that cannot be folded back (a record lost to a flipped bit, one of a newer
        format, a setup the rules refuse, an unknown ruleset) is left on flash as it is,
        named in `damaged`, and the box starts with no match in play."""
        if self.journal is None:
            return False
        try:
            ms = self.journal.matches()
            if not ms:
                return False
            self.n = ms[-1][0]
        except (OSError, JournalError) as e:
            self._lost(None, e)
            return False
        self._refold()
        if self.match is None or self.match.setup is None:
            return False
        self.match.keep_undo()       # the state at boot, for an undo of the next entry
        return True

    def _refold(self):
        """Fold the match in play again from what is saved (never raises: see resume)."""
        if self.journal is None:
            m = Match()
            for r in self.saved:
                m.apply(parse(r))
            self.match = m if m.setup is not None else None
            return
        try:
            m = Match(self._history)
            # through the journal's buffer: this runs mid-match (a chord takes back a pending
            # deal), when the heap may hold no fresh 4 KiB in one piece (a MemoryError here
            # would leave the match in play damaged)
            self._folding = True
            for r in self.journal.own_records(self.n):
                m.apply(parse(r))
        except Exception as e:   # whatever is on flash, the box must start: say what, keep the records
            self._lost(self.n, e)
            return
        finally:
            self._folding = False
        self.match = m if m.setup is not None else None

    def _lost(self, n, e):
        # The match cannot go on: no entry may follow a record that is not folded
        # (its seq would clash with what is on flash). Its records stay for the judge.
        self.damaged = (n, str(e) or type(e).__name__)
        self.match = None
        self.n = None
        self.pending = None
        self.recent = []

    def reload(self):
        """The journal changed under the table (the judge's ack compacted a finished match
        away). True when the match in play is gone: the table then holds the latest match
        left on flash, or none."""
        if self.journal is None:
            return False
        self.flush()
        j = self.journal
        if self.n is not None and j.has(self.n):
            return False              # still there: nothing changed for the players
        self.n = None
        self.match = None
        self.recent = []
        last = j.latest()
        if last is not None:
            self.n = last
            self._refold()
        return True

    def drop(self):
        """Forget the entry not yet flushed (two sides pressed together): back to what is saved."""
        ev = self.pending
        if ev is None:
            return
        self.pending = None
        if not self.match.take_back(ev["seq"]):
            self._refold()

    def waiting(self):
        """Results on flash that the judge has not acknowledged yet: finished matches (locked:
        every side answered, or closed), a start abandoned before anything was played excepted
        (there is nothing in it to judge; it stays on flash for the judge's tool all the same)."""
        if self.journal is None:
            return 0
        return self.journal.count_finished(self._wrong_start)

    def _wrong_start(self, n):
        """Whether finished match n is a setup closed at once (the menu's "wrong start"): its tag
        in the journal's index, given when the match finished (flush). A match finished without
        one (a journal written before there was an index) is read once, its first three records,
        and tagged: save_index() keeps the tag for the next boot."""
        j = self.journal
        tag = j.tag(n)
        if tag is not None:
            return tag == _WRONG_START
        try:
            rs = j.head(n, 3)
            wrong = len(rs) == 2 and parse(rs[1]).get("type") == "close"
        except Exception:       # unreadable: count it (the judge looks at it)
            wrong = False
        # asked of finished matches only: a finished match is locked, and its records
        # (append-only) no longer change until an ack compacts it away
        j.set_tag(n, _WRONG_START if wrong else _PLAYED)
        return wrong

    def save_index(self):
        """Keep what the boot learnt from flash (matches finished, tags) in the journal's index:
        the next boot reads neither (the app calls it once waiting() has counted at boot)."""
        if self.journal is not None:
            self.journal.save_index()

    def event(self, seq):
        """The event with this seq (from the recent entries, else read back from flash), or None."""
        for r in self.recent:
            if r[0] == seq:
                return parse(r[1])
        for ev in self._history():
            if ev["seq"] == seq:
                return ev
        return None

    # ------------------------------------------------------------ writing
    def start(self, setup, likely=None):
        """A new match from the setup fields: True, or False when the flash is too low for
        another match (error says so; sync first). EventError when the setup is invalid.
        likely: what likely() made for the start screen; taken (not folded again) when it
        is this very setup.

        Nothing is written here: the match's number is the one the journal will give, and
        flush() creates the match on flash with its setup (the app draws the new score,
        "saving", in between: the player does not wait for littlefs)."""
        if self.broken:
            raise EventError("", "the flash cannot be written: " + self.broken)
        self.flush()
        ev = _setup_event(setup)
        j = self.journal
        if j is not None and j.low():    # measured at idle (prepare()), not in this press
            self.error = "flash full: flash nearly full: sync finished matches with the judge first"
            return False
        if likely is not None and likely.seq == 1 and likely.setup == ev:
            # folded and checked on the start screen already (about 2.5 ms of a start on the Pico)
            m = likely
            ev = m.setup
            if j is not None:
                m.read_back(self._history)
        else:
            # without a journal the match keeps its own list for an undo; with one an undo
            # reads the match back from flash
            m = Match() if j is None else Match(self._history)
            m.apply(ev)                  # checks it: EventError leaves the table as it was
        self._before = (self.n, self.match, self.recent, self.saved)   # what a start that fails goes back to
        if j is not None:
            self.n = j.next_match()
            ev["match"] = self.n         # the setup is m.setup: it says its number too
        self.saved = []
        self.recent = []
        self.match = m
        self.pending = ev
        self._pending_seq = 1
        return True

    def likely(self, setup):
        """The match start(setup) would begin, folded but neither kept nor saved (the screen
        draws its words before the start press), or None if the setup is refused."""
        m = Match()
        try:
            m.apply(_setup_event(setup))
        except EventError:
            return None
        return m

    def prepare(self):
        """Idle-time work for the next start (the app calls it while the start screen waits):
        the free flash is measured now (a littlefs statvfs walks the whole filesystem)."""
        if self.journal is not None and self.pending is None:
            self.journal.low()

    def submit(self, fields):
        """Check and fold one entry (a fresh dict without seq, which becomes the event);
        EventError leaves everything as it was."""
        if self.pending is not None:
            self.flush()
        m = self.match
        if m is None:
            raise EventError("type", "no match in play")
        ev = fields
        ev["seq"] = m.seq + 1
        m.apply(ev)
        self.pending = ev             # encoded in flush(): after the screen shows it
        self._pending_seq = ev["seq"]
        return ev

    def flush(self):
        """Put the pending event on flash; returns only when it is there (or failed)."""
        ev = self.pending
        if ev is None:
            return True
        self.pending = None
        if self.journal is not None and ev["seq"] == 1:
            # a start: its match is made on flash now, after the screen shows it
            try:
                n = self.journal.new_match()
            except (OSError, JournalError, MemoryError) as e:
                self.error = "flash full: %s" % (e,) if isinstance(e, JournalFull) else "flash: %s" % (e,)
                self.full = isinstance(e, JournalFull)
                self.n, self.match, self.recent, self.saved = self._before
                return False
            if n != self.n:              # never expected: the number the journal gave is the one saved
                self.n = ev["match"] = n
            self._before = None          # the match before is no longer needed
        data = encode(ev)
        if self.keep:
            self.saved.append(data)
        if self.journal is None:
            self._remember(data)
            self.match.keep_undo()
            return True
        try:
            # finished on flash = a result waiting for the judge: locked (every side answered,
            # or closed), not merely over (the players still confirm or dispute it)
            locked = self.match.locked()
            self.journal.append(self.n, data, finished=locked,
                                tag=_WRONG_START if locked and ev["seq"] == 2 and ev.get("type") == "close"
                                else _PLAYED)
        except (OSError, JournalError, MemoryError) as e:
            # Not on flash (a full flash is JournalFull; MemoryError: no room on the heap for
            # the file's buffer, which the box must not show as saved either): the score must
            # not show it, and the next entry must take this one's seq. Fold again from what
            # is saved.
            self.error = "flash: %s" % (e,)
            self.full = isinstance(e, JournalFull)
            if self.keep:
                self.saved.pop()
            self._refold()
            return False
        self.error = None
        self._remember(data)
        # the state as saved, for an undo of the next entry (no refold from flash in its press)
        self.match.keep_undo()
        return True

    def _remember(self, data):
        recent = self.recent
        if len(recent) >= _RECENT:
            recent.pop(0)
        recent.append((self._pending_seq, data))
