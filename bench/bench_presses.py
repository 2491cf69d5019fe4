"""Bench: button presses per deal over the deal mix (bench/deal-mix.json), through the real UI.

Run:  .venv/bin/python bench/bench_presses.py [--seed N] [--matches N] [--mpy] [--before REV]
      --mpy also runs the same player on the MicroPython unix port
      (-X heapsize as the simulator's, nakk_host.unixport.HEAP, firmware/ on MICROPYPATH), checks that the same seed
      gives the same counts there, and prints the bytes sent to the display
      per press (nakk.ui.render.Screen on a real framebuf).
      --before REV also runs this bench as it was at git revision REV (its
      firmware/ and bench/, taken with git archive into a temporary folder;
      the repository is not touched) with the same seed and matches, and
      prints the two side by side: presses, and each slip's silent share, with
      whether any kind of slip is worse now. The two-step entry before issue
      14 is d472de4^ (its bench already counts the slips the same way).

A "player" knows what it wants to enter, as the deal event's fields (drawn
from the mix with a seeded xorshift32 of its own, integers only, so that
CPython and MicroPython draw the same deals; a jänn in pits is a win, as the
rules score it), and presses what a person would, reading only the screen
state of nakk.ui.flows.Ui: the mode, the step, the choices on the list and the
cursor (the list wraps, so it moves the shorter way round). Of the answers
that fit what it wants it takes the one that fills the most fields (a side
button on "Trump · võit": the whole deal in one press), then the nearest.
On a tally step (Schmier) it takes the fewest presses the list on screen allows (a
team's button adds the amount under the cursor, which stays there; OK gives the rest
to the bidder's team, on "Mängupunkt viik" less the tied Game point), found by a
search over the tally's screens (_tally_search).

Slips (issue 14): before each deal is entered for the count, the player
tries it four more times, each with one slip it does not notice and plays
on from: a different side button at one of the entry's side commits, one
cursor step too far at one of its answers, a commit without moving at one of
its answers that needs a move, a tap where it meant to hold a side button (or
a hold where it meant to tap) on an answer that means more when held. Each
try ends refused (the box said no), saved visibly wrong (the pair that scores
differs, or what the screen says at the commit -- the step, the answer under
the cursor, what each side's button does, a tally, and for a side button
that may be held, whether the header still says "hoia: ..." when the entry is
decided, at the release or the LONG -- is not what it says in the right entry), saved silently
wrong (the saved event differs and nothing on screen showed it), saved right
anyway, or unfinished. Tries are never flushed: Table.drop() forgets them,
as a chord's take-back does, and they draw from their own random numbers,
so the deals and presses counted are those of a run without them.

Counting (bench/README.md): every button event handed to Ui.handle is
one press, a long press too (a side button held: its PRESS and its LONG, one press). A deal's presses are its entry; a redeal counts as
a deal (long OK, the reason, OK); a penalty (long NEXT, the offence, the
offender's side button) and an undo (one wrong answer in an entry, then long
PREV + OK, then the entry again, right) are counted apart; the undo's cost is
the wrong entry and the two presses of the undo itself (a wrong entry the box
refuses needs no undo: it is counted apart). The presses that start
a match (a long OK on the finished result, then the start screen) and confirm
its end (each side its own button) are reported per match.

The table has no journal (the events are kept as bytes in Table.saved): the
flows are pure Python and the same on both interpreters.
"""

import sys

MPY = sys.implementation.name == "micropython"

SEED = 2026
MATCHES = 300
RULESETS = ("saare-2020", "saare-classic", "sasku", "schmier")

if not MPY:
    import os as _os
    _FW = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), "firmware")
    if _FW not in sys.path:
        sys.path.insert(0, _FW)

from nakk.drivers import buttons as K  # noqa: E402
from nakk.ui import menus  # noqa: E402
from nakk import rules as _rules  # noqa: E402
from nakk.ui import flows as U  # noqa: E402
from nakk.event import SIDES  # noqa: E402
from nakk.table import Table  # noqa: E402

PREV_S = K.event(K.SHORT, K.PREV)
NEXT_S = K.event(K.SHORT, K.NEXT)
OK_S = K.event(K.SHORT, K.OK)
PREV_L = K.event(K.LONG, K.PREV)
NEXT_L = K.event(K.LONG, K.NEXT)
OK_L = K.event(K.LONG, K.OK)



class FixedClock:
    """A clock that never moves: no message times out and the screen never idles (deterministic)."""

    def ticks_ms(self):
        return 0

    def ticks_diff(self, a, b):
        return a - b


class Rng:
    """xorshift32, integers only: the same draws on CPython and MicroPython."""

    def __init__(self, seed):
        self.s = (seed * 2654435761 + 12345) & 0xFFFFFFFF or 1

    def next(self):
        x = self.s
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.s = x
        return x

    def below(self, n):
        return self.next() % n

    def chance(self, p):
        return self.below(1000000) < int(p * 1000000 + 0.5)

    def pick(self, weights):
        keys = sorted(weights)
        ws = [int(weights[k] * 1000000 + 0.5) for k in keys]
        r = self.below(sum(ws))
        for i in range(len(keys)):
            r -= ws[i]
            if r < 0:
                return keys[i]
        return keys[-1]


# ---------------------------------------------------------------- the mixes

def mixes(raw):
    """The mix per ruleset: Saare mäng 2020 and Schmier from deal-mix.json; classic and Sasku reuse Saare's weights."""
    s = raw["saare-2020"]
    g = s["game"]
    out = {}
    out["saare-2020"] = {"game": g, "maker": s["maker"], "outcome": s["outcome"],
                         "capture": s["pits_capture_share"], "penalty": s["penalty_per_deal"],
                         "offence": s["penalty_offence"], "undo": s["undo_per_deal"]}
    # classic: only suit and ruutu exist; the blind and pits weights drop out (renormalised by pick)
    off = {}
    for k in s["penalty_offence"]:
        if k != "misdeal-twice":
            off[k] = s["penalty_offence"][k]
    out["saare-classic"] = {"game": {"suit": g["suit"], "ruutu": g["ruutu"], "redeal": g["redeal"]},
                            "maker": s["maker"], "outcome": s["outcome"], "capture": 0,
                            "penalty": s["penalty_per_deal"], "offence": off, "undo": s["undo_per_deal"]}
    # Sasku: suit and ruutu as in Saare; all four passing is played (üleküla) at the weight Saare gives
    # blind ruutu; Saare's jänn (loser <= 30 eyes, winner >= 90) splits into jänn 91+ (9/10) and
    # seajänn, exactly 90 (1/10); no per-deal penalties (the only Sasku penalty removes the team)
    o = s["outcome"]
    outcome = {}
    for k in o:
        if k.endswith("-jann"):
            outcome[k] = o[k] * 0.9
            outcome[k[:-5] + "-seajann"] = o[k] * 0.1
        else:
            outcome[k] = o[k]
    out["sasku"] = {"game": {"suit": g["suit"], "ruutu": g["ruutu"], "ulekula": g["pime-ruutu"],
                             "redeal": g["redeal"]},
                    "maker": s["maker"], "outcome": outcome, "capture": 0, "penalty": 0, "offence": {},
                    "undo": s["undo_per_deal"]}
    sc = raw["schmier"]
    out["schmier"] = {"all_pass": sc["all_pass"], "bid": sc["bid"], "take": sc["bidder_takes_each_point"],
                      "tied": sc["game_point_tied"], "penalty": 0, "undo": s["undo_per_deal"]}
    return out


def describe_mix(name, mix):
    """One or two lines stating the mix (printed with the figures)."""
    def w(d):
        return ", ".join("%s %.3g" % (k, d[k]) for k in sorted(d))
    if name == "schmier":
        return ["all pass (menu redeal) %.3g; bid %s; the bidder any of the three teams, equally; the bidder's"
                " team takes each point %.3g, else one of the other two at random; game point tied %.3g; undo %.3g"
                " per deal (Saare's); no penalties"
                % (mix["all_pass"], w(mix["bid"]), mix["take"], mix["tied"], mix["undo"])]
    lines = ["game %s (weights renormalised over what exists; a redeal's reason drawn evenly from the"
             " ruleset's reasons, which the mix does not weigh)" % w(mix["game"]),
             "outcome (relative to the maker) %s" % w(mix["outcome"])]
    extra = "undo %.3g per deal (one wrong answer in the first two steps)" % mix["undo"]
    if mix["capture"]:
        extra += "; pits capture share %.3g" % mix["capture"]
    if mix["penalty"]:
        extra += "; penalty %.3g per deal, offence %s" % (mix["penalty"], w(mix["offence"]))
    else:
        extra += "; no per-deal penalties"
    lines.append(extra)
    return lines


_OUTCOME = {"won": ("win", True), "won-jann": ("jann", True), "won-seajann": ("seajann", True),
            "won-karvane": ("karvane", True), "lost": ("win", False), "lost-jann": ("jann", False),
            "lost-seajann": ("seajann", False), "lost-karvane": ("karvane", False), "pokk": ("pokk", None)}


def draw_deal(rng, name, mix, m):
    """What happens at the table next: ("redeal", reason) or ("deal", the deal's event fields as the
    players mean them)."""
    st = m.st
    rules = m.rules
    if name == "schmier":
        if rng.chance(mix["all_pass"]):
            return "redeal", "all-pass"
        bid = int(rng.pick(mix["bid"]))
        b = rng.below(3)
        bidder = SIDES[b]
        want = {"bid": bid, "bidder": bidder}
        for p in ("high", "low", "right", "left", "joker", "game"):
            if p == "game" and rng.chance(mix["tied"]):
                want[p] = None
            elif rng.chance(mix["take"]):
                want[p] = bidder
            else:
                want[p] = SIDES[(b + 1 + rng.below(2)) % 3]
        return "deal", want
    game = rng.pick(mix["game"])
    if game == "redeal":
        reasons = [r[0] for r in rules.redeal_reasons if not (r[0] == "no-picture" and st.chain)]
        return "redeal", reasons[rng.below(len(reasons))]
    maker = rng.pick(mix["maker"])
    if st.chain:                         # a pokk replay: same game, same maker
        maker = SIDES[st.pending[0]]
        game = st.pending[1]
    pits = game in ("valge-pits", "pime-pits")
    if pits and rng.chance(mix["capture"]):
        result, winner = "capture", SIDES[rng.below(2)]
    else:
        result, makers = _OUTCOME[rng.pick(mix["outcome"])]
        if makers is None:
            winner = None
        elif game == "ulekula":
            winner = SIDES[rng.below(2)]
            result = "win"               # all passed: the pair with more eyes, no bonuses
        else:
            winner = maker if makers else SIDES[1 - SIDES.index(maker)]
        if pits and result == "jann":
            result = "win"               # no jänn in pits: the rules score it as a win
    want = {"contract" if name == "sasku" else "game": game, "result": result}
    if game != "ulekula":
        want["maker"] = maker
    if result == "capture":
        want["capture"] = winner
    elif winner is not None:
        want["winner"] = winner
    return "deal", want


def draw_penalty(rng, mix, m):
    offence = rng.pick(mix["offence"])
    if offence == "misdeal-twice":
        by = SIDES[m.st.shuffler % 2]    # the dealer's pair misdeals
    else:
        by = SIDES[rng.below(2)]
    return offence, by


# ---------------------------------------------------------------- the player

def cursor_to(player, i):
    """The cursor to item i, the shorter way round (NEXT on a tie), pressed through
    player.press: this bench's Player (its move) and bench_latency's timed match."""
    ui = player.ui
    n = len(ui.items)
    d = (i - ui.cursor) % n
    if d <= n - d:
        for _ in range(d):
            player.press(NEXT_S)
    else:
        for _ in range(n - d):
            player.press(PREV_S)
    assert ui.cursor == i


class Player:
    def __init__(self, ui, after=None):
        self.ui = ui
        self.presses = 0
        self.moves = 0          # cursor moves (short PREV/NEXT) among the presses
        self.after = after      # called after every press (render, flush)
        self.hold = False       # trying the slips: nothing flushed or drawn
        self.refused = False    # the last press was refused
        self.last_ev = None     # the event the last committing press entered
        self.commit_screen = None   # the header's hint when a held-or-tapped entry was decided
    def press(self, ev, then=None):
        """One press: ev, and for a side button held, its LONG (then) after it."""
        self.presses += 1
        if ev == PREV_S or ev == NEXT_S:
            self.moves += 1
        r = self.ui.handle(ev)[0]
        if self.ui.holding() >= 0:
            # the entry waits for the button's release (or its LONG): the screen then is
            # what the players see when it is decided: the header's "hoia: jänn"
            self.commit_screen = self.ui.held_says()
        if then is not None:
            r2 = self.ui.handle(then)[0]
            if r2 != U.NOTHING:
                r = r2
                self.commit_screen = self.ui.held_says()
        self.refused = r == U.REFUSED
        done = r == U.SUBMITTED
        if done:
            self.last_ev = self.ui.table.pending
        if self.hold:
            return done                # a slip's try: never flushed, dropped after (Table.drop)
        if self.after is not None:
            self.after()
        else:
            self.ui.table.flush()
        return done

    def side(self, letter):
        return self.press(K.event(K.PRESS, SIDES.index(letter)))

    def press_side(self, side, held=False):
        """Side button `side` pressed, or held (one press: down, its LONG, up)."""
        return self.press(K.event(K.PRESS, side), K.event(K.LONG, side) if held else None)

    move = cursor_to

    # ------------------------------------------------------------ entering a deal

    def _plan(self, want):
        return plan(self.ui, want)

    def _screen_text(self):
        """What the screen says about the entry just before a commit: the step, the answer under
        the cursor, the line under them, and what each side's button says (or its tally)."""
        ui = self.ui
        out = "%s|%s|%s|%s" % (ui.word(ui.title), ui.choice_text(), ui.detail, ui.says())
        for i in range(ui.table.match.rules.sides):
            out += "|%d %d" % (ui.tally(i), ui.rest_left(i))
        return out

    def enter(self, want, rng=None, slip=-1):
        """Enter one deal from the ENTRY screen; with slip >= 0, answer number `slip` is given wrongly
        (a wrong side, or a wrong answer). Returns the presses it took, and whether it was saved."""
        p0 = self.presses
        status = self.trial(want, WRONG if slip >= 0 else None, slip, rng)[0]
        if slip < 0 and status != "saved":
            raise AssertionError("the player could not enter %r: %s" % (want, status))
        return self.presses - p0, status == "saved"

    def trial(self, want, kind=None, at=-1, rng=None):
        """Enter `want` from the ENTRY screen, with one slip when kind is given: at the at-th
        side commit a different side (SIDE), at the at-th answer one cursor step too far (FAR),
        at the at-th answer that needs a cursor move none (STILL), at the at-th side commit on
        an answer with a held meaning the other length of press (HOLD: a tap where holding
        was meant, or held where a tap was), at the at-th answer a wrong one (WRONG: the undo
        model); the player then plays on as if nothing happened, reading
        each new step from the screen. Returns (status, event, screen, scored, counts): status
        "saved", "refused" or "stuck"; the event saved (or None); the screen at the commit; the
        sides whose score rose; counts [side commits, answers, answers that move the cursor,
        side commits on an answer with a held meaning] (what the slips can hit)."""
        ui = self.ui
        p0 = self.presses
        counts = [0, 0, 0, 0]
        screen = None
        nsides = ui.table.match.rules.sides
        self._deal_offence(want)
        while True:
            if ui.mode != U.ENTRY or self.presses - p0 > 30:
                return "stuck", None, screen, None, counts
            i, side = self._plan(want)
            n = len(ui.items)
            answer = counts[1]
            counts[1] += 1
            held = side is not None and side >= HELD
            if held:
                side -= HELD
            if kind == WRONG and at == answer:
                c = ui.deal.choices[i]
                if side is not None and (n == 1 or rng.below(2) == 0):
                    side = (side + 1 + rng.below(nsides - 1)) % nsides
                elif n > 1:
                    i = (i + 1 + rng.below(n - 1)) % n
                    c = ui.deal.choices[i]
                    if c.get("side") is None:
                        side = None
                    elif side is None:
                        side = rng.below(nsides)
            d = (i - ui.cursor) % n
            if d:
                moved = counts[2]
                counts[2] += 1
                if not (kind == STILL and at == moved):
                    self.move(i)
            if kind == FAR and at == answer:
                self.press(PREV_S if d and d > n - d else NEXT_S)
            screen = self._screen_text()
            if side is not None:
                sided = counts[0]
                counts[0] += 1
                if kind == SIDE and at == sided:
                    side = (side + 1 + rng.below(nsides - 1)) % nsides
                heldable = _heldable(ui.deal.choices[ui.cursor], ui.deal.steps[ui.deal.step], ui.deal)
                if heldable:
                    h = counts[3]
                    counts[3] += 1
                    if kind == HOLD and at == h:
                        held = not held
                done = self.press_side(side, held)
                if heldable and done:
                    # decided at the release (or the LONG), not at press-down: what the screen
                    # says then too (a tap: the header still says "hoia: jänn"; held: not)
                    screen += "|%s" % (self.commit_screen,)
            else:
                done = self.press(OK_S)
            if self.refused:
                return "refused", None, screen, None, counts
            if done:
                return self._saved(screen, counts)

    def _deal_offence(self, want):
        """An offence judged inside the deal (a sohk) first, as the players say it: long NEXT,
        its row of the penalty list, the offender's button (the second row: the offender's
        button held on the first); then the deal is entered as it went."""
        ui = self.ui
        ids = []
        menus.penalties(ui.table.match, [], ids)
        for i in range(len(ids)):
            offence, field, value = ids[i]
            if field == menus.DEAL and value is not None and value in want and value not in ui.deal.answers:
                self.press(NEXT_L)
                if i == 1 and ids[0][1] != menus.DEAL:
                    self.press_side(SIDES.index(want[value]), True)
                else:
                    self.move(i)
                    self.side(want[value])

    def _saved(self, screen, counts):
        st = self.ui.table.match.st
        scored = [i for i in range(st.sides) if st.last is not None and st.last[i] > 0]
        ev = dict(self.last_ev)
        ev.pop("seq", None)
        return "saved", ev, screen, scored, counts

    def slips(self, want, rng, s):
        """The three slips on one deal, each played on and taken back, then nothing changed:
        a right entry first (the reference), then each kind. Nothing is flushed or drawn, and
        the presses are not counted: the deal is then entered as in a run without slips."""
        ui = self.ui
        keep = (self.presses, self.moves)
        self.hold = True
        status, ref, rscreen, rscored, counts = self.trial(want)
        if status != "saved":
            raise AssertionError("the right entry was not saved: %r" % (want,))
        self._take_back()
        for kind in range(NSLIPS):
            n = counts[kind]
            if not n:
                s.slip(kind, "n/a")
                continue
            status, ev, screen, scored, _ = self.trial(want, kind, rng.below(n), rng)
            if status == "saved":
                if ev == ref:
                    s.slip(kind, "right")
                elif scored != rscored or screen != rscreen:
                    s.slip(kind, "visible")
                else:
                    s.slip(kind, "silent")
                self._take_back()
            else:
                s.slip(kind, status)
                ui.resync()           # the harness, not a player: back to the deal's first step
        self.presses, self.moves = keep
        self.hold = False
        ui.msg = None                 # the undos' "Tühistatud": the screen as it was before the tries

    def _take_back(self):
        """Forget the try just entered (never flushed: Table.drop, as a chord's take-back does)
        and put the entry screen back at the deal's first step."""
        self.ui.table.drop()
        self.ui.resync()
        assert self.ui.mode == U.ENTRY

    def redeal(self, reason):
        ui = self.ui
        p0 = self.presses
        self.press(OK_L)
        assert ui.mode == U.MENU
        rules = ui.table.match.rules
        text = None
        for r in rules.redeal_reasons:
            if r[0] == reason:
                text = rules.redeal_word[ui.lang] + ": " + r[1 + ui.lang]
        self.move(list(ui.items).index(text))
        assert self.press(OK_S)
        return self.presses - p0

    def penalty(self, offence, by):
        ui = self.ui
        p0 = self.presses
        self.press(NEXT_L)
        assert ui.mode == U.PENALTY
        # the offence's first row (cards shown: 2 cards, the event's default)
        self.move([c[0] for c in ui.offences].index(offence))
        assert self.side(by)
        return self.presses - p0

    def undo(self):
        ui = self.ui
        p0 = self.presses
        self.press(PREV_L)
        assert ui.mode == U.UNDO and ui.cursor == 0
        assert self.press(OK_S)
        return self.presses - p0

    def start(self, name):
        """From the finished match (or a fresh box) to the entry screen of a new match of `name`."""
        ui = self.ui
        p0 = self.presses
        if ui.mode == U.DONE:
            self.press(OK_L)
        assert ui.mode == U.START
        title = _rules.get(name).title
        self.move(list(ui.items).index(title))
        while ui.mode == U.START:
            self.press(OK_S)
        assert ui.mode == U.ENTRY
        return self.presses - p0

    def confirm(self):
        ui = self.ui
        p0 = self.presses
        assert ui.mode == U.END and ui.cursor == 0
        for i in range(ui.table.match.rules.sides):
            self.press(K.event(K.PRESS, i))
        assert ui.mode == U.DONE
        return self.presses - p0


# ---------------------------------------------------------------- what a player presses

def _options(c, stp, nsides, answers=None, held=True):
    """What committing choice c can enter: (side index or None for OK, the fields it fills),
    as nakk.ui.dealform fills them (answers: the entry's so far, for a choice that names the
    side other than an offender's)."""
    out = []
    oc = c if c.get("ok") else stp.get("ok")
    if oc is not None:
        out.append((None, {} if oc.get("omit") else {stp["key"]: oc["value"]}))
    if c.get("side") is not None:
        for i in range(nsides):
            f = {} if c.get("omit") else {stp["key"]: c["value"]}   # a sohk: its offender, no result
            f[c["side"]] = SIDES[i]
            for k in c.get("also", ()):
                f[k] = SIDES[i]
            if c.get("opp") is not None:
                f[c["opp"]] = SIDES[1 - i]
            sets = c.get("sets")
            if sets is not None:
                for k in sets:
                    f[k] = sets[k]
            inn = c.get("innocent") or stp.get("innocent")     # as nakk.ui.dealform: the step's for each
            if inn is not None and answers is not None and answers.get(inn[0]) in SIDES:
                for k in inn[1]:
                    f[k] = SIDES[1 - SIDES.index(answers[inn[0]])]
            out.append((i, f))
            if held and _heldable(c, stp):
                h = dict(f)                  # the same button held: its held sets over the others
                sets = stp["held"][c["value"]][0]
                for k in sets:
                    h[k] = sets[k]
                out.append((i + HELD, h))
    return out


def _heldable(c, stp, deal=None):
    """Whether holding a side button on choice c of step stp enters a held answer (nakk.ui.modes.held_of;
    on a tally, deal: the entry, while the held amount is left)."""
    h = stp.get("held")
    if h is None or c.get("side") is None or c["value"] not in h:
        return False
    return "count" not in stp or deal is not None and h[c["value"]][0] <= deal.left()

def plan(ui, want, held=True):
    """The answer a player who wants the deal event fields `want` gives on the step on screen
    of Ui ui (also bench_latency's player): (choice index, side index or None for OK).
    The answer the player gives on the step on screen: (choice index, side index or None).
    Among the answers that fit what it wants, the one that fills the most fields (one press
    for the whole deal when there is one), then the fewest cursor moves. A side button held
    is side index + HELD (held=False: never planned, bench_latency times taps only)."""
    deal = ui.deal
    stp = deal.steps[deal.step]
    nsides = ui.table.match.rules.sides
    if "count" in stp:
        return _plan_tally(ui, want, stp, nsides, held)
    best = None
    n = len(deal.choices)
    for i in range(n):
        d = (i - ui.cursor) % n
        moves = min(d, n - d)
        c = deal.choices[i]
        for side, f in _options(c, stp, nsides, deal.answers, held):
            fits = True
            for k in f:
                if k not in want or want[k] != f[k]:
                    fits = False
                    break
            if fits and (best is None or len(f) > best[0] or len(f) == best[0] and moves < best[1]):
                best = (len(f), moves, i, side)
    if best is None:
        return 0, None               # played on after a slip: a step it did not expect
    return best[2], best[3]

def _plan_tally(ui, want, stp, nsides, held=True):
    """A tally step: the fewest presses that give each team other than the bidder's its
    points, as the list on screen shows them (a team's button adds the amount under the
    cursor, which stays there, held one more; an amount is on the list while that many are
    left; OK gives the rest to the bidder's team, and on "Mängupunkt viik" the rest less the
    tied Game point, a team's button there the same to that team; a last point given with
    another team's tapped button waits for "Salvesta"). Returns the first answer of the
    cheapest way (each answer costs its cursor moves and its press). held False: no button
    held (bench_latency times taps)."""
    deal = ui.deal
    want_t = [0] * nsides
    for p in ("high", "low", "right", "left", "joker", "game"):
        if want.get(p) is not None:
            want_t[SIDES.index(want[p])] += 1
    tie = want.get("game", 0) is None
    got = tuple(deal.tally(i) for i in range(nsides))
    rest = SIDES.index(deal.answers[stp["rest"]])
    tied = "game" in deal.answers
    cur = deal.choices[ui.cursor]
    # played on after a slip: a team given too many keeps them, the others still get theirs
    goal = [max(got[i], want_t[i]) for i in range(nsides)]
    choices = stp["choices"]
    key = (id(choices), got, tied, choices.index(cur), tuple(goal), tie, rest, held)
    if key not in _TALLY_PLANS or _TALLY_PLANS[key][0] is not choices:
        if len(_TALLY_PLANS) >= (0 if MPY else 100000):
            _TALLY_PLANS.clear()     # a speed cache only (the unix port's heap is the box's)
        _TALLY_PLANS[key] = (choices, _tally_search(choices, stp["count"], got, tied, cur, goal, tie, rest,
                                                    nsides, stp.get("held") if held else None))
    first = _TALLY_PLANS[key][1]
    if first is None:
        return 0, None               # nothing on screen gets there: OK
    c, side = first
    for i in range(len(deal.choices)):
        if deal.choices[i] is c:
            return i, side
    return 0, None


_TALLY_PLANS = {}      # the searches made, by the screen and the goal (the form's list kept with each)


def _tally_offered(choices, left, tied):
    """The tally's choices on the list with `left` still to give (as the screen shows them)."""
    out = []
    for c in choices:
        adds = c.get("adds", 1)
        if "sets" in c:
            if not tied and left >= 1:
                out.append(c)
        elif adds == 0:
            if left <= 0:
                out.append(c)
        elif adds <= left:
            out.append(c)
    return out


# The tally search's states, one byte each in arrays made once (on the unix port the heap is the
# box's, and a dict of states grown search after search fragments it): the search that last
# reached a state (a number 1..255 that each search moves on) and at what cost. A state is the
# three teams' counts (their sum at most 6: one of 84, numbered by _GIDX, counts back in _GOF),
# the Game point tied and the cursor (< 8); a tally held for OK is one with nothing left.
_GIDX = bytearray(7 * 7 * 7)
_GOF = bytearray(3 * 84)
_k = 0
for _a in range(7):
    for _b in range(7 - _a):
        for _c in range(7 - _a - _b):
            _GIDX[(_a * 7 + _b) * 7 + _c] = _k
            _GOF[3 * _k], _GOF[3 * _k + 1], _GOF[3 * _k + 2] = _a, _b, _c
            _k += 1
_STATES = 84 * 16
_SEEN = bytearray(_STATES)
_COST = bytearray(_STATES)
_SEARCH = [0]


def _state(g, td, ci):
    return (_GIDX[(g[0] * 7 + g[1]) * 7 + g[2]] * 2 + (1 if td else 0)) * 8 + ci


def _tally_search(choices, count, got, tied, cur, goal, tie, rest, nsides, held=None):
    """The cheapest way (Dijkstra, its costs small numbers: a list of states per cost, first in
    first out) over the tally's screens to a saved tally whose teams other than `rest` have
    `goal`: its first answer (the choice to commit, side (+ HELD: held) or None), or None.
    held: the step's (a button held there adds that many)."""
    assert nsides == 3 and len(choices) <= 8
    n = _SEARCH[0] % 255 + 1
    _SEARCH[0] = n
    if n == 1:
        for i in range(_STATES):       # the numbers come round again: every state unseen
            _SEEN[i] = 0
    mine = count - (1 if tie else 0) - sum(goal[i] for i in range(nsides) if i != rest)   # the bidder's at most
    start = _state(got, tied, choices.index(cur))
    _SEEN[start] = n
    _COST[start] = 0
    levels = [[start, -1]]             # per cost: state, first answer (choice * 8 + code), ...
    cost = 0
    while cost < len(levels):
        level = levels[cost]
        k = 0
        while k < len(level):
            st, first = level[k], level[k + 1]
            k += 2
            if st < 0:
                c = choices[first // 8]
                code = first % 8           # the cheapest saved tally's first press
                return c, (None if not code else code - 1 if code < 4 else code - 4 + HELD)
            if _SEEN[st] != n or _COST[st] < cost:
                continue               # reached more cheaply since
            ci = st % 8
            td = bool(st // 8 % 2)
            gi = 3 * (st // 16)
            g = [_GOF[gi], _GOF[gi + 1], _GOF[gi + 2]]
            left = count - sum(g) - (1 if td else 0)
            offered = _tally_offered(choices, left, td)
            pos = offered.index(choices[ci]) if choices[ci] in offered else 0
            m = len(offered)
            for j in range(m):
                c = offered[j]
                d = (j - pos) % m
                step = min(d, m - d) + 1
                hd = held.get(c["value"]) if held is not None and c.get("side") is not None else None
                presses = []           # (code, side or None): code 0 OK, 1-3 a tap, 4-6 held (side + 1 + 3)
                if c.get("ok") or c.get("side") is not None:
                    presses.append((0, None))
                if c.get("side") is not None:
                    for i in range(nsides):
                        presses.append((i + 1, i))
                        if hd is not None and hd[0] <= left:
                            presses.append((i + 4, i))
                for code, side in presses:
                    f = first if first >= 0 else choices.index(c) * 8 + code
                    done = None
                    nxt = -1
                    if side is not None and "rests" in c:
                        g2 = list(g)               # "Mängupunkt viik": the rest less it to this team
                        g2[side] += left - 1
                        done = (g2, True)
                    elif side is not None:
                        g2 = list(g)
                        g2[side] += hd[0] if code >= 4 else c.get("adds", 1)
                        l2 = count - sum(g2) - (1 if td else 0)
                        if l2 < 0 or g2[side] > (goal[side] if side != rest else mine):
                            continue           # no press takes points back: past the goal is a dead end
                        if l2 == 0 and side == rest:
                            done = (g2, td)
                        else:
                            at = _tally_at(choices, _tally_offered(choices, l2, td), c)
                            nxt = _state(g2, td, at)
                    elif c.get("adds", 1) == 0:
                        done = (g, td)
                    elif "sets" in c:
                        g2 = list(g)
                        g2[rest] += left - 1
                        done = (g2, True)
                    elif left > 0:
                        g2 = list(g)
                        g2[rest] += left
                        done = (g2, td)
                    if done is not None:
                        if done[1] == tie and all(done[0][i] == goal[i] for i in range(nsides) if i != rest):
                            _push(levels, cost + step, -1, f)
                        continue
                    if nxt >= 0 and not (_SEEN[nxt] == n and _COST[nxt] <= cost + step):
                        _SEEN[nxt] = n
                        _COST[nxt] = cost + step
                        _push(levels, cost + step, nxt, f)
        cost += 1
    return None


def _push(levels, cost, st, first):
    while len(levels) <= cost:
        levels.append([])
    levels[cost].append(st)
    levels[cost].append(first)


def _tally_at(choices, offered, c):
    """Where the cursor goes after a side press on c (nakk.ui.dealform.DealEntry.at): c while it
    is on the list, else the first; as an index into the step's choices."""
    return choices.index(c if c in offered else offered[0])


SIDE, FAR, STILL, HOLD = 0, 1, 2, 3   # the slips: a wrong side button, a cursor step too far, a commit
#                                       without moving, a tap for a hold (or a hold for a tap)
NSLIPS = 4
WRONG = 4                       # the undo model's wrong answer (a wrong side or a wrong choice)
HELD = 8                        # plan(): a side index + HELD is that side button held
SLIP_NAMES = ("one wrong side press", "one cursor step too far", "one commit without moving",
              "one tap/hold mixed up")
OUTCOMES = ("refused", "visible", "silent", "right", "stuck", "n/a")


# ---------------------------------------------------------------- the run

class Stats:
    def __init__(self):
        self.deals = 0
        self.redeals = 0
        self.deal_presses = 0
        self.deal_moves = 0
        self.max = 0
        self.hist = {}
        self.penalties = 0
        self.penalty_presses = 0
        self.undos = 0
        self.undo_wrong = 0       # presses of the wrong entries
        self.undo_presses = 0     # long PREV + OK
        self.undo_refused = 0     # wrong entries the box refused (nothing to undo)
        self.matches = 0
        self.start_presses = 0
        self.start_max = 0
        self.start_first = 0      # the first match on a fresh box (no finished result to leave)
        self.end_presses = 0
        self.digest = 0
        self.bytes = 0            # to the display (unix port only)
        self.presses = 0          # all presses
        self.deal_bytes = 0
        self.slips = [[0] * len(OUTCOMES) for _ in range(NSLIPS)]   # per kind: count per outcome

    def slip(self, kind, outcome):
        self.slips[kind][OUTCOMES.index(outcome)] += 1

    def deal(self, n, moves):
        self.deals += 1
        self.deal_presses += n
        self.deal_moves += moves
        if n > self.max:
            self.max = n
        self.hist[n] = self.hist.get(n, 0) + 1
        self.digest = (self.digest * 31 + n) & 0xFFFFFFF

    def counts(self):
        """Everything both interpreters must agree on, as (key, int) pairs."""
        out = [("deals", self.deals), ("redeals", self.redeals), ("deal_presses", self.deal_presses),
               ("deal_moves", self.deal_moves), ("max", self.max), ("penalties", self.penalties),
               ("penalty_presses", self.penalty_presses), ("undos", self.undos), ("undo_wrong", self.undo_wrong),
               ("undo_presses", self.undo_presses), ("undo_refused", self.undo_refused), ("matches", self.matches),
               ("start_presses", self.start_presses), ("start_max", self.start_max), ("start_first", self.start_first),
               ("end_presses", self.end_presses), ("presses", self.presses), ("digest", self.digest)]
        for n in sorted(self.hist):
            out.append(("hist%d" % n, self.hist[n]))
        for k in range(NSLIPS):
            for j in range(len(OUTCOMES)):
                out.append(("slip%d_%s" % (k, OUTCOMES[j]), self.slips[k][j]))
        return out


def kinds(name):
    """Every kind of deal the players of ruleset name may enter (each game and result, with
    each pair as maker; a sohk by either pair with each result of the other pair, which the
    rules pay by -- not played out, it is the other pair's plain win; a pokk's replay with
    each of them), as (what comes before it, the deal's event fields)."""
    if name == "schmier":
        out = []
        for bid in (3, 4, 5, 6):
            for b in range(3):
                for n in range(3 ** 6):
                    want = {"bid": bid, "bidder": SIDES[b]}
                    for p in ("high", "low", "right", "left", "joker", "game"):
                        want[p] = SIDES[n % 3]
                        n //= 3
                    out.append(((), want))
                    if want["game"] == SIDES[b]:
                        tied = dict(want)
                        tied["game"] = None
                        out.append(((), tied))
        return out
    rules = _rules.get(name)
    field = "contract" if name == "sasku" else "game"
    games = ("suit", "ruutu", "ulekula") if name == "sasku" else rules.games
    results = ("win", "jann", "seajann", "karvane") if name == "sasku" else ("win", "jann", "karvane")
    pits = ("valge-pits", "pime-pits")
    out = []
    for game in games:
        for maker in ("A", "B"):
            other = "B" if maker == "A" else "A"
            if game == "ulekula":
                out.append(((), {field: game, "result": "win", "winner": maker}))
                out.append(((), {field: game, "result": "pokk"}))
                break
            for before in ((), (("pokk", game, maker),)) if name != "sasku" else ((),):
                base = {field: game, "maker": maker}
                got = [dict(base, result="pokk")]
                for w in (maker, other):
                    for r in results:
                        if r == "jann" and game in pits:
                            continue
                        got.append(dict(base, result=r, winner=w))
                    if game in pits:
                        got.append(dict(base, result="capture", capture=w))
                if name != "sasku":
                    for cheat in (maker, other):
                        innocent = other if cheat == maker else maker
                        for r in results:
                            if not (r == "jann" and game in pits):
                                got.append(dict(base, sohk=cheat, result=r, winner=innocent))
                        if game in pits:
                            got.append(dict(base, sohk=cheat, result="capture", capture=innocent))
                for want in got:
                    out.append((before, want))
    return out


def every_kind(name, every):
    """Presses of every kind of deal in `every` (kinds()), each on a fresh box: (most, its kind,
    mean, count)."""
    most, worst, total, n = 0, None, 0, 0
    for before, want in every:
        ui = U.Ui(Table(), clock=FixedClock())
        p = Player(ui)
        p.start(name)
        for _, game, maker in before:
            pre = {"game": game, "maker": maker, "result": "pokk"}
            p.enter(pre)
        k, saved = p.enter(want)
        ev = dict(p.last_ev)
        for f in ("seq", "type", "board"):
            ev.pop(f, None)
        if name == "schmier":            # the points as the tally the box saves
            tally = [0, 0, 0]
            for f in ("high", "low", "right", "left", "joker", "game"):
                if want[f] is not None:
                    tally[SIDES.index(want[f])] += 1
            want = {"bid": want["bid"], "bidder": want["bidder"], "tally": tally}
            if "game" in ev:
                want["game"] = None
        if ev != want:
            raise AssertionError("%s: wanted %r, saved %r" % (name, want, ev))
        total += k
        n += 1
        if k > most:
            most, worst = k, (before, want)
    return most, worst, total / n, n


def report_kinds(name):
    """Lines on every kind of deal (kinds()): the most presses any needs, with and without a sohk."""
    every = kinds(name)
    most, worst, mean, n = every_kind(name, every)
    out = ["  every kind of deal (%d kinds, each entered once on a fresh box, its saved event checked): "
           "mean %.2f, max %d (%s%s)" % (n, mean, most, "after a pokk: " if worst[0] else "",
                                         " ".join("%s=%s" % (k, worst[1][k]) for k in sorted(worst[1])))]
    plain = [w for w in every if "sohk" not in w[1]]
    if len(plain) != n:
        most, worst, mean, n = every_kind(name, plain)
        out.append("  every kind without a sohk (%d kinds): mean %.2f, max %d" % (n, mean, most))
    return out


def play(name, mix, seed, matches, render=None, slips=True):
    """Play `matches` matches of ruleset `name`; returns Stats. render: a Render (unix port) or None.
    slips: before each deal is entered, try the three slips on it (their own random draws, so the
    deals and presses are those of a run without them)."""
    rng = Rng(seed)
    srng = Rng(seed + 7919)
    table = Table()
    ui = U.Ui(table, clock=FixedClock())
    s = Stats()
    after = None
    if render is not None:
        render.reset(ui)
        after = render.after
    p = Player(ui, after)
    for _ in range(matches):
        n = p.start(name)
        s.start_presses += n
        if not s.matches:
            s.start_first = n
        if n > s.start_max:
            s.start_max = n
        s.matches += 1
        while ui.mode == U.ENTRY:
            m = table.match
            if mix["penalty"] and rng.chance(mix["penalty"]):
                offence, by = draw_penalty(rng, mix, m)
                s.penalty_presses += p.penalty(offence, by)
                s.penalties += 1
                if ui.mode != U.ENTRY:
                    break
            kind, what = draw_deal(rng, name, mix, m)
            if render is not None:
                b0 = render.bytes
            if kind == "redeal":
                m0 = p.moves
                s.deal(p.redeal(what), p.moves - m0)
                s.redeals += 1
            else:
                if rng.chance(mix["undo"]):
                    slip = rng.below(2)
                    n, saved = p.enter(what, rng, slip)
                    s.undo_wrong += n
                    if saved:
                        s.undo_presses += p.undo()
                        s.undos += 1
                    else:
                        ui.resync()      # refused: nothing to undo (the player starts again)
                        s.undo_refused += 1
                    if render is not None:
                        b0 = render.bytes
                if slips:
                    p.slips(what, srng, s)
                m0 = p.moves
                s.deal(p.enter(what)[0], p.moves - m0)
            if render is not None:
                s.deal_bytes += render.bytes - b0
        s.end_presses += p.confirm()
    s.presses = p.presses
    if render is not None:
        s.bytes = render.bytes
    return s


class Render:
    """The app's drawing around a press (unix port): draw with "saving" before the flush, again after."""

    def __init__(self):
        import framebuf
        from nakk.drivers import font
        from nakk.ui.render import Screen
        font.warm()
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.Screen = Screen
        self.bytes = 0
        self.screen = None
        self.ui = None

    def reset(self, ui):
        self.ui = ui
        self.screen = self.Screen(self.fb)
        self.screen.draw(ui)

    def _sent(self, mask):
        n = 0
        while mask:
            n += mask & 1
            mask >>= 1
        self.bytes += 128 * n

    def after(self):
        ui = self.ui
        table = ui.table
        if table.pending is not None:
            self._sent(self.screen.draw(ui, True))
            table.flush()
        self._sent(self.screen.draw(ui, False))


def load_mix(path):
    import json
    with open(path) as f:
        return json.load(f)


def child(argv):
    """The unix-port run: counts and display bytes as lines for the CPython side."""
    seed, matches, path = int(argv[0]), int(argv[1]), argv[2]
    allm = mixes(load_mix(path))
    v = sys.implementation.version
    print("V %d.%d.%d" % (v[0], v[1], v[2]))
    for name in (argv[3:] or RULESETS):
        s = play(name, allm[name], seed, matches, Render())
        for k, val in s.counts():
            print("R %s %s %d" % (name, k, val))
        print("R %s bytes %d" % (name, s.bytes))
        print("R %s deal_bytes %d" % (name, s.deal_bytes))


# ---------------------------------------------------------------- CPython: report

def report(name, mix, s, mp=None):
    out = []
    title = _rules.get(name).title[1]
    out.append("%s (%s): %d matches, %d deals (%d redeals)" % (title, name, s.matches, s.deals, s.redeals))
    for line in describe_mix(name, mix):
        out.append("  mix: " + line)
    mean = s.deal_presses / s.deals
    out.append("  presses per deal (deal entry, redeals included): mean %.2f, max %d; cursor moves %.2f of them"
               % (mean, s.max, s.deal_moves / s.deals))
    hist = "  distribution:"
    for n in range(1, 9):
        hist += "  %d: %.1f%%" % (n, 100.0 * s.hist.get(n, 0) / s.deals)
    over = 0
    for n in s.hist:
        if n > 8:
            over += s.hist[n]
    hist += "  >8: %.1f%%" % (100.0 * over / s.deals)
    out.append(hist)
    allin = s.deal_presses + s.penalty_presses + s.undo_wrong + s.undo_presses
    out.append("  all-in per deal (entry + penalties + undos incl. the wrong entry): %.2f" % (allin / s.deals))
    if s.penalties:
        out.append("  penalties: %d (%.3f per deal), %.2f presses each" % (
            s.penalties, s.penalties / s.deals, s.penalty_presses / s.penalties))
    if s.undos:
        wrong = s.undos + s.undo_refused
        out.append("  undos: %d (%.3f per deal), each costs %.2f presses with the wrong entry (%.2f of it the wrong"
                   " entry, %.2f long PREV + OK), the right entry counted as the deal; %d more wrong entries"
                   " refused by the box (nothing to undo)"
                   % (s.undos, s.undos / s.deals, (s.undo_wrong + s.undo_presses) / wrong,
                      s.undo_wrong / wrong, s.undo_presses / s.undos, s.undo_refused))
    later = (s.start_presses - s.start_first) / (s.matches - 1) if s.matches > 1 else 0
    out.append("  per match: start %.2f presses (the first match on a fresh box %d: the game chosen on the start"
               " screen, then OK through it; every later one %.2f: long OK on the finished result, then OK through"
               " the start screen, which remembers the game), end %.2f (each side confirms with its own button)"
               % (s.start_presses / s.matches, s.start_first, later, s.end_presses / s.matches))
    if name == "saare-2020":
        ok = mean <= 2.5 and s.max <= 6
        out.append("  target (issue 14): mean <= 2.5 and no deal over 6 -> %s (mean %.2f, max %d)"
                   % ("MET" if ok else "MISSED", mean, s.max))
    elif name == "schmier":
        out.append("  target (issue 14): mean <= 6 per hand -> %s (mean %.2f)" % ("MET" if mean <= 6 else "MISSED", mean))
    out.append("  slips (each deal tried once with each, played on as if unnoticed, then taken back):")
    for k in range(NSLIPS):
        row = s.slips[k]
        n = sum(row) - row[OUTCOMES.index("n/a")]
        line = "    %-26s" % (SLIP_NAMES[k] + ":")
        if not n:
            out.append(line + " never possible")
            continue
        for j in range(len(OUTCOMES)):
            if OUTCOMES[j] != "n/a" and (row[j] or j < 3):
                line += " %s %.1f%%" % ({"visible": "saved visibly wrong", "silent": "saved SILENTLY wrong",
                                         "right": "saved right anyway", "stuck": "left unfinished"}.get(
                                             OUTCOMES[j], OUTCOMES[j]), 100.0 * row[j] / n)
        na = row[OUTCOMES.index("n/a")]
        line += " (of %d deals%s)" % (n, "; %d %s" % (na, ("with no side press", "", "with no cursor move",
                                                                  "with no answer to hold")[k])
                                      if na else "")
        out.append(line)
    row = s.slips[SIDE]
    n = sum(row) - row[OUTCOMES.index("n/a")]
    if name == "saare-2020" and n:
        silent = 100.0 * row[OUTCOMES.index("silent")] / n
        out.append("  target (issue 14): silent wrong entries <= 10%% of single wrong-side slips -> %s (%.1f%%)"
                   % ("MET" if silent <= 10 else "MISSED", silent))
    if mp is not None:
        b = mp.get("bytes")
        if b is not None:
            out.append("  bytes sent to the display (unix port, 128 per SSD1306 page in draw()'s mask, drawn with"
                       " \"saving\" before the flush and again after): %.0f per press, %.0f per deal entry"
                       % (b / s.presses, mp["deal_bytes"] / s.deals))
    return out


def _heap():
    """The simulator's heap (nakk_host.unixport.HEAP): the box the unix port stands in for."""
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "host"))
    from nakk_host.unixport import HEAP
    return HEAP


def _launch_mpy(seed, matches, path):
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    sys.path.insert(0, here)
    import mpyenv
    exe = mpyenv.micropython("bench_presses")
    # this module as .mpy (imported by a one-line runner, not compiled in the capped heap), and
    # one process per ruleset: each plays its 300 matches on the heap a box has after boot
    bench = mpyenv.bench_path()
    env = dict(os.environ, MICROPYPATH=((bench + ":") if bench else "") + mpyenv.firmware_path() + ":" + here +
               ":.frozen")
    res = {}
    version = "?"
    for name in RULESETS:
        code = "import bench_presses; bench_presses.child([%d, %d, %r, %r])" % (seed, matches, path, name)
        r = subprocess.run([exe, "-X", "heapsize=" + _heap(), "-c", code], capture_output=True, text=True, env=env,
                           cwd=root)
        if r.returncode != 0:
            raise SystemExit("bench_presses: MicroPython failed (%s):\n" % name + r.stdout[-2000:] + r.stderr[-4000:])
        for line in r.stdout.splitlines():
            parts = line.split()
            if parts[0] == "V":
                version = parts[1]
            elif parts[0] == "R":
                res.setdefault(parts[1], {})[parts[2]] = int(parts[3])
    if bench:
        import shutil
        shutil.rmtree(bench, ignore_errors=True)
    return version, res


def _run_before(rev, seed, matches):
    """This bench as it was at git revision rev, run on CPython with the same seed and matches:
    {ruleset: {"mean": presses per deal, "max": ..., "slips": [(refused, visible, silent) %
    per slip kind]}}, read from its printout."""
    import os
    import re
    import shutil
    import subprocess
    import tempfile
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tmp = tempfile.mkdtemp(prefix="bench-before-")
    try:
        arc = subprocess.run(["git", "-C", root, "archive", rev, "firmware", "bench"], capture_output=True)
        if arc.returncode != 0:
            raise SystemExit("bench_presses: git archive %s failed: %s" % (rev, arc.stderr.decode(errors="replace")))
        with open(os.path.join(tmp, "src.tar"), "wb") as f:
            f.write(arc.stdout)
        subprocess.run(["tar", "-xf", "src.tar"], cwd=tmp, check=True)
        r = subprocess.run([sys.executable, os.path.join(tmp, "bench", "bench_presses.py"), "--seed", str(seed),
                            "--matches", str(matches)], capture_output=True, text=True, cwd=tmp)
        if r.returncode != 0:
            raise SystemExit("bench_presses: the bench at %s failed:\n%s" % (rev, (r.stdout + r.stderr)[-3000:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = {}
    cur = None
    pct = r"([0-9.]+)%"
    for line in r.stdout.splitlines():
        m = re.match(r"\S.* \(([a-z0-9-]+)\): \d+ matches", line)
        if m:
            cur = out.setdefault(m.group(1), {"slips": [None] * NSLIPS})
            continue
        if cur is None:
            continue
        m = re.match(r"\s+presses per deal .*mean ([0-9.]+), max (\d+)", line)
        if m:
            cur["mean"], cur["max"] = float(m.group(1)), int(m.group(2))
        for k in range(NSLIPS):
            if line.strip().startswith(SLIP_NAMES[k] + ":"):
                got = []
                for word in ("refused ", "saved visibly wrong ", "saved SILENTLY wrong "):
                    m = re.search(word + pct, line)
                    got.append(float(m.group(1)) if m else 0.0)
                cur["slips"][k] = tuple(got)
    return out


def compare(rev, before, results):
    """Lines: the entry at rev against this one, ruleset by ruleset; and whether a slip is worse."""
    out = ["before (the bench at %s, the same seed and matches) -> now:" % rev]
    worse = []
    for name in RULESETS:
        b = before.get(name)
        s = results[name]
        if b is None or "mean" not in b:
            out.append("  %s: not in the bench at %s" % (name, rev))
            continue
        out.append("  %s: presses per deal %.2f (max %d) -> %.2f (max %d)"
                   % (name, b["mean"], b["max"], s.deal_presses / s.deals, s.max))
        for k in range(NSLIPS):
            row = s.slips[k]
            n = sum(row) - row[OUTCOMES.index("n/a")]
            if not n:
                continue
            if b["slips"][k] is None:        # a kind of slip the entry at rev did not have
                now = tuple(100.0 * row[OUTCOMES.index(o)] / n for o in ("refused", "visible", "silent"))
                out.append("    %-26s refused / visible / SILENT (new) %.1f / %.1f / %.1f%%"
                           % ((SLIP_NAMES[k] + ":",) + now))
                continue
            now = tuple(100.0 * row[OUTCOMES.index(o)] / n for o in ("refused", "visible", "silent"))
            was = b["slips"][k]
            bad = now[2] > was[2] + 0.05          # printed to one decimal
            if bad:
                worse.append("%s: %s" % (name, SLIP_NAMES[k]))
            out.append("    %-26s refused / visible / SILENT %.1f / %.1f / %.1f%% -> %.1f / %.1f / %.1f%%%s"
                       % (SLIP_NAMES[k] + ":", was[0], was[1], was[2], now[0], now[1], now[2],
                          "  WORSE" if bad else ""))
    out.append("target (issue 14): no kind of slip worse than before (its silent share) -> %s"
               % ("MISSED: " + "; ".join(worse) if worse else "MET"))
    return out


def main(argv):
    import os
    import time
    seed, matches, use_mpy = SEED, MATCHES, False
    before = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--seed":
            seed = int(argv[i + 1])
            i += 1
        elif a == "--matches":
            matches = int(argv[i + 1])
            i += 1
        elif a == "--mpy":
            use_mpy = True
        elif a == "--before":
            before = argv[i + 1]
            i += 1
        else:
            raise SystemExit(__doc__)
        i += 1
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "deal-mix.json")
    if not os.path.exists(path):
        raise SystemExit("bench_presses: %s not found" % path)
    allm = mixes(load_mix(path))
    t0 = time.time()
    results = {}
    for name in RULESETS:
        results[name] = play(name, allm[name], seed, matches)
    t1 = time.time()
    mp = {}
    version = None
    if use_mpy:
        version, mp = _launch_mpy(seed, matches, path)
    was = _run_before(before, seed, matches) if before is not None else None
    print("bench_presses: seed %d, %d matches per ruleset, each played to its end, through nakk.ui.flows.Ui +"
          " nakk.table.Table (CPython %.1f s)" % (seed, matches, t1 - t0))
    print("mix: %s" % path)
    for name in RULESETS:
        print()
        for line in report(name, allm[name], results[name], mp.get(name)):
            print(line)
        for line in report_kinds(name):
            print(line)
    print()
    if use_mpy:
        same = True
        diffs = []
        for name in RULESETS:
            theirs = mp.get(name, {})
            for k, v in results[name].counts():
                if theirs.get(k) != v:
                    same = False
                    diffs.append("%s %s: CPython %d, MicroPython %s" % (name, k, v, theirs.get(k)))
        print("unix port (MicroPython %s, -X heapsize=%s), same seed: %s" % (
            version, _heap(), "the same counts for every ruleset (digests %s)" % ", ".join(
                "%07x" % results[n].digest for n in RULESETS) if same else "DIFFERENT COUNTS"))
        for d in diffs[:20]:
            print("  " + d)
        if not same:
            return 1
        tp = tb = 0
        for name in RULESETS:
            tp += results[name].presses
            tb += mp[name]["bytes"]
        print("bytes sent to the display per press, all rulesets: %.0f (a full frame is 1024)" % (tb / tp))
    else:
        print("(--mpy: check the same counts on the MicroPython unix port and print bytes sent to the display)")
    if was is not None:
        print()
        for line in compare(before, was, results):
            print(line)
    return 0


if MPY:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
elif __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
