"""A match is its ordered list of events; everything on the scoreboard is derived from them here.

Match.apply() checks one event against everything before it and folds it in.
It keeps only the derived state and a few small integers, so the device can
stream a long journal through it. Undo is a `cancel` event naming the latest
entry still in force; the state is then folded again from the events (the
caller says where to read them), so "cancel" gives exactly the earlier state,
or, when keep_undo() copied the state just before that entry, that copy is taken back.
"""

from nakk import rules as _rules
from nakk.event import EventError, FORMAT_VERSION, SIDES, check_envelope, parse

# events that change the score and can be undone
UNDOABLE = ("deal", "redeal", "penalty", "adjust", "forfeit")


def _too_new(fs, v):
    raise EventError(fs[0], "needs event format %d (this match is format %d)" % (fs[1], v))


class Match:
    def __init__(self, history=None):
        """history: a function returning a fresh iterator over the events
        applied so far (the device reads them back from flash). Without it the
        match keeps its own list of the undoable events it needs for a cancel."""
        self._history = history
        self._kept = [] if history is None else None
        self.seq = 0
        self.setup = None
        self.rules = None
        self.cfg = None
        self.st = None
        self.in_force = []        # seqs of undoable events not cancelled, in order
        self.cancelled = set()    # seqs undone by a cancel
        self.confirmed = []       # sides (index) that approved the result
        self.disputed = []        # sides that disputed it
        self.synced = False       # the judge acknowledged it
        self.closed = False       # the judge closed it unfinished
        self._snaps = []          # (seq, copy of st at that seq): keep_undo()'s latest two

    def read_back(self, history):
        """From now on an undo reads the events back through history (see __init__): for a
        match folded without one (only its setup so far), kept once its start is saved."""
        if self.seq > 1:
            raise ValueError("only a match with just its setup")
        self._history = history
        self._kept = None

    def keep_undo(self):
        """Copy the state as it is now; the latest two copies are kept. An undo of the entry
        that follows a copy then takes the copy back instead of folding the match again
        from its events (on the Pico, read back from flash and parsed: some 20 ms in the OK
        press on a long match). The table calls it once an entry is on flash, while the
        players look at the score: the copy before the latest entry is the one an undo needs."""
        st = self.st
        if st is None:
            return
        c = self.rules.start(self.setup, self.cfg)   # a State with the ruleset's own fields
        d = st.__dict__
        for k in d:
            v = d[k]
            # the rules change these lists and dicts in place; what they hold is immutable
            if isinstance(v, list):
                v = list(v)
            elif isinstance(v, dict):
                v = dict(v)
            setattr(c, k, v)
        snaps = self._snaps
        if len(snaps) >= 2:
            snaps.pop(0)
        snaps.append((self.seq, c))

    def take_back(self, seq):
        """Take back entry seq, the latest applied and not on flash (a chord, a held side
        button), from keep_undo()'s copy of the state just before it: no read-back from flash
        (~20 ms on the Pico). False, changing nothing, when there is no such copy."""
        if seq != self.seq or not self.in_force or self.in_force[-1] != seq or self.confirmed or self.disputed:
            return False
        st = self._copy_before(seq)
        if st is None:
            return False
        self.st = st
        self.in_force.pop()
        if self._kept is not None:
            self._kept.pop()
        self.seq -= 1
        return True

    def _copy_before(self, seq):
        """keep_undo()'s copy of the state just before entry seq, taken (it is the match's state
        from now on: no copy is kept), or None."""
        for s in self._snaps:
            if s[0] == seq - 1:
                self._snaps = []
                return s[1]
        return None

    # ------------------------------------------------------------ folding

    def apply(self, ev):
        """Check one event and fold it in. Raises EventError and changes nothing if it is invalid."""
        t = check_envelope(ev)
        if ev["seq"] != self.seq + 1:
            raise EventError("seq", "expected %d, got %d" % (self.seq + 1, ev["seq"]))
        if self.setup is None and t != "setup":
            raise EventError("type", "a match starts with its setup")
        if self.synced:
            raise EventError("type", "the judge has acknowledged this match; nothing follows")
        if t == "setup":
            self._setup(ev)
        elif t in UNDOABLE:
            self._undoable(t, ev)
        elif t == "cancel":
            self._cancel(ev)
        else:
            self._closing(t, ev)
        self.seq += 1

    def _setup(self, ev):
        if self.setup is not None:
            raise EventError("type", "the match already has its setup")
        if not 1 <= ev["v"] <= FORMAT_VERSION:
            raise EventError("v", "event format %d is not supported (this reads 1 to %d)" % (ev["v"], FORMAT_VERSION))
        try:
            rules = _rules.get(ev["ruleset"])
        except KeyError as e:
            raise EventError("ruleset", str(e.args[0]))
        cfg = rules.config(ev.get("settings"))
        sides = ev["sides"]
        if len(sides) != rules.sides:
            raise EventError("sides", "%s has %d sides" % (rules.name, rules.sides))
        for i in range(len(sides)):
            s = sides[i]
            if not isinstance(s, dict) or s.get("id") != SIDES[i] or not isinstance(s.get("name", ""), str):
                raise EventError("sides", "side %d must be an object with id %s and a name" % (i + 1, SIDES[i]))
            for key in s:
                if key not in ("id", "name", "team", "players"):
                    raise EventError("sides", "unknown field %r of side %s" % (key, SIDES[i]))
            if not isinstance(s.get("team", ""), str):
                raise EventError("sides", "team of side %s must be text" % SIDES[i])
            players = s.get("players", [])
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                raise EventError("sides", "players of side %s must be a list of names" % SIDES[i])
        seats = ev.get("seats")
        if seats is not None and (len(seats) != rules.seats or not all(isinstance(p, str) for p in seats)):
            raise EventError("seats", "%d player names in seat order" % rules.seats)
        for key in ("table", "round", "match"):
            if key in ev and ev[key] < 0:
                raise EventError(key, "must not be negative")
        st = rules.start(ev, cfg)
        self.setup, self.rules, self.cfg, self.st = ev, rules, cfg, st

    def _undoable(self, t, ev):
        if self.locked():
            raise EventError("type", "the result is locked: every side has confirmed or disputed it")
        rules = self.rules
        st = self.st
        cfg = self.cfg
        if t == "forfeit":
            if st.over:
                raise EventError("type", "the match is already over")
            by = rules.side(ev, "by")
        elif t == "adjust":
            side = rules.side(ev, "side")
            if st.over:
                raise EventError("type", "the match is over; the judge corrects a result on the judge's side")
        # The rules check everything before they change the state, so a
        # rejected event leaves it as it was (a property test holds them to it).
        if t == "deal":
            v = self.setup["v"]
            for fs in rules.newer_fields:       # the deal's fields are in the match's event format
                if v < fs[1] and fs[0] in ev:
                    _too_new(fs, v)
            rules.deal(st, ev, cfg)
        elif t == "redeal":
            rules.redeal(st, ev, cfg)
        elif t == "penalty":
            rules.penalty(st, ev, cfg)
        elif t == "adjust":
            rules.adjust(st, side, ev["points"], cfg)
        else:
            self._forfeit(by)
        self.in_force.append(ev["seq"])
        if self._kept is not None:
            self._kept.append(ev)
        # new lists only when there were answers (an empty list per deal is two allocations
        # in the press that makes the entry)
        if self.confirmed:
            self.confirmed = []
        if self.disputed:
            self.disputed = []

    def _forfeit(self, by):
        st = self.st
        st.over = True
        st.ended = "forfeit"
        st.forfeited = by
        others = [i for i in range(st.sides) if i != by]
        best = max(st.score[i] for i in others)
        leaders = [i for i in others if st.score[i] == best]
        st.winner = leaders[0] if len(leaders) == 1 else None
        self.rules.forfeited(st, self.cfg)

    def _cancel(self, ev):
        target = ev["target"]
        if self.locked():
            raise EventError("type", "the result is locked: every side has confirmed or disputed it")
        if not self.in_force:
            raise EventError("target", "there is no entry to undo")
        if target != self.in_force[-1]:
            raise EventError("target", "only the latest entry (seq %d) can be undone" % self.in_force[-1])
        self.in_force.pop()
        self.cancelled.add(target)
        if self._kept is not None:
            self._kept.pop()
        # the state just before the target: what the events still in force up to it fold to
        # (what follows the target, confirms and disputes, leaves it as it is)
        st = self._copy_before(target)
        self._snaps = []          # a copy taken back is the match's state from now on
        if st is not None:
            self.st = st
        else:
            self._refold(iter(self._kept) if self._kept is not None else self._history(), target)
        self.confirmed = []
        self.disputed = []

    def _refold(self, events, stop):
        """Fold the undoable events still in force again, from the setup."""
        st = self.rules.start(self.setup, self.cfg)
        self.st = st
        for ev in events:
            seq = ev["seq"]
            if seq >= stop:
                break
            t = ev["type"]
            if t not in UNDOABLE or seq in self.cancelled:
                continue
            if t == "deal":
                self.rules.deal(st, ev, self.cfg)
            elif t == "redeal":
                self.rules.redeal(st, ev, self.cfg)
            elif t == "penalty":
                self.rules.penalty(st, ev, self.cfg)
            elif t == "adjust":
                self.rules.adjust(st, SIDES.index(ev["side"]), ev["points"], self.cfg)
            else:
                self._forfeit(SIDES.index(ev["by"]))

    def _closing(self, t, ev):
        st = self.st
        if t == "close":
            if st.over:
                raise EventError("type", "the match is already over")
            st.over = True
            st.ended = "closed"
            st.winner = None
            self.closed = True
            return
        if t == "synced":
            if not st.over:
                raise EventError("type", "only a finished match is acknowledged")
            self.synced = True
            return
        side = self.rules.side(ev, "by")
        if not st.over:
            raise EventError("type", "a result is confirmed or disputed once the match is over")
        if side in self.confirmed or side in self.disputed:
            raise EventError("by", "side %s has already answered" % SIDES[side])
        (self.confirmed if t == "confirm" else self.disputed).append(side)

    # ------------------------------------------------------------ reading

    def locked(self):
        if self.st is None or not self.st.over:
            return False
        return self.synced or self.closed or len(self.confirmed) + len(self.disputed) >= self.st.sides

    def summary(self):
        """Everything the scoreboard and the judge read, as plain data (JSON-ready)."""
        st = self.st
        if st is None:
            return {"seq": self.seq, "over": False}
        target = self.cfg.get("target")
        out = {
            "ruleset": self.rules.name,
            "seq": self.seq,
            "sides": [s.get("name", s["id"]) for s in self.setup["sides"]],
            "score": list(st.score),
            "bonus": list(st.bonus),
            "final": st.final(),
            "marks": list(st.marks),
            "over": st.over,
            "ended": st.ended,
            "winner": None if st.winner is None else SIDES[st.winner],
            "deals": st.deals,
            "redeals": st.redeals,
            "shuffler": st.shuffler,
            "confirmed": [SIDES[i] for i in self.confirmed],
            "disputed": [SIDES[i] for i in self.disputed],
            "locked": self.locked(),
            "synced": self.synced,
            "deductions": list(st.deductions),
        }
        if target is not None:
            out["target"] = target
            out["capped"] = [min(s, target) for s in st.score]
        self.rules.summarize(st, out)
        return out


def fold(events):
    """Fold a list of event dicts into a Match; EventError (with .seq set) at the first invalid one."""
    m = Match()
    for ev in events:
        try:
            m.apply(ev)
        except EventError as e:
            e.seq = ev.get("seq") if isinstance(ev, dict) else None
            raise
    return m


def read_lines(lines):
    """Parse and fold JSON lines; returns (match, error) where error is (line number, EventError) or None.

    Lines may be bytes (a file opened "rb": text that is not UTF-8 is then
    reported by line and column) or str. Blank lines are skipped, and so is a
    UTF-8 byte-order mark at the start (Notepad writes one). Nothing after the
    first invalid line is applied."""
    m = Match()
    n = 0
    for line in lines:
        n += 1
        if n == 1:
            if isinstance(line, str):
                if line[:1] == "\ufeff":
                    line = line[1:]
            elif line[:3] == b"\xef\xbb\xbf":
                line = line[3:]
        if not line.strip():
            continue
        try:
            m.apply(parse(line.strip()))
        except EventError as e:
            return m, (n, e)
    return m, None
