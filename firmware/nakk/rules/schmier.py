"""Schmier: six players in three teams of two, six points a hand (High, Low, Right, Left, Joker, Game), first to 21.

Teams are sides A, B, C; seat s belongs to team s % 3 (partners opposite).
References ([SC-nn], [§3], [Lnn] ...) are explained in docs/rules.md, with the
sentence of the Estonian text each rests on.
"""

from nakk.event import EventError, SIDES, check_pair
from nakk.rules.common import IntRange, Ruleset, Setting, cached_form, choice, keep_form, step, wrapped

POINTS = ("high", "low", "right", "left", "joker")
_LABELS = {
    "high": ("Kõrge", "High"), "low": ("Madal", "Low"), "right": ("Parem", "Right"),
    "left": ("Vasak", "Left"), "joker": ("Jokker", "Joker"), "game": ("Mängupunkt", "Game"),
}
_BID_LINES = {}    # bid, bidder and lang as one int -> the line banner() shows
_BID_HEADS = ("Pakkumine 3: ", "Pakkumine 4: ", "Pakkumine 5: ", "Pakkumine 6: ", "Bid 3: ", "Bid 4: ", "Bid 5: ",
              "Bid 6: ")
# its table made at import with room for one language's twelve lines (a dict keeps the size of
# the most it held): the press that shows a bid's first tally then allocates no table for it
for _i in range(12):
    _BID_LINES[_i] = None
for _i in range(12):
    del _BID_LINES[_i]
del _i

_DEAL_FIELDS = (("bidder", "side"), ("bid", "int"), ("high", "side"), ("low", "side"),
                ("right", "side"), ("left", "side"), ("joker", "side"), ("game", "any"),
                ("counts", "list"), ("tally", "list"), ("trump", "str"), ("note", "str"))
# (required, optional) in one pair made once: a deal entry checks its event without a tuple
_DEAL_CHECK = ((("bidder", "side"), ("bid", "int")), _DEAL_FIELDS)


class Schmier(Ruleset):
    name = "schmier"
    family = "schmier"
    deal_words = (("bid", "bidder"),)
    endings = (("shared", "shared win"),)
    draws = ("shared",)
    title = ("Schmier", "Schmier")
    format = 2                              # the tally came with event format 2 (docs/events.md)
    newer_fields = (("tally", 2),)
    sides = 3
    seats = 6
    unit = ("punkt", "point")
    offences = ()
    redeal_reasons = (("all-pass", "Kõik pass", "All passed"), ("misdeal", "Vale jagamine", "Misdeal"),
                      ("other", "Muu", "Other"))
    settings = (
        Setting("target", 21, IntRange(5, 99), "§3", "Points that end the game (first to reach it, after a hand)."),
        Setting("low_point_rule", "played-by", ("played-by", "captured-by"), "SC-02",
                "Low goes to the team that played the trump 2, or to the team that won its trick."),
        Setting("game_tie_policy", "no-point", ("no-point",), "SC-03",
                "A tie for the most game-count gives the Game point to nobody."),
        Setting("all_pass_policy", "redeal-same-dealer", ("redeal-same-dealer", "stick-the-dealer"), "SC-04",
                "All six pass: the same dealer redeals, or the dealer must bid."),
        Setting("bid_success", "won-at-least-bid", ("won-at-least-bid",), "SC-05",
                "The bidder's team makes its bid when it wins at least the bid."),
        Setting("end_tie_without_bidder", "continue", ("continue", "higher-previous", "shared"), "SC-06",
                "Teams tied at the top at or past the target, without the bidders: play on, "
                "the higher score before the hand wins, or the win is shared."),
        Setting("discards_count_for_game", False, (False,), "SC-07",
                "Discarded cards are dead: they count for nobody's game-count."),
    )

    def deal(self, st, ev, cfg):
        check_pair(ev, _DEAL_CHECK)
        if st.over:
            raise EventError("", "the game is over")
        bidder = self.side(ev, "bidder")
        bid = ev["bid"]
        if not 3 <= bid <= 6:
            raise EventError("bid", "must be 3..6")
        if "tally" in ev:
            won = self._tally(ev)
        else:
            won = [0, 0, 0]
            for p in POINTS:
                if p not in ev:
                    raise EventError(p, "missing: which team took the %s point" % p)
                won[self.side(ev, p)] += 1    # always in play, always awarded (docs/rules.md, Schmier §2)
            game = self._game_point(ev)
            if game is not None:
                won[game] += 1
        delta = list(won)
        if won[bidder] < bid:
            delta[bidder] = -bid          # set: the bid is subtracted (L35)
        before = list(st.score)
        for t in range(3):
            st.score[t] += delta[t]
        st.last = delta
        st.deals += 1
        st.shuffler = (st.shuffler + 1) % self.seats   # the deal passes to the left
        self._end(st, cfg, bidder, before)

    def _tally(self, ev):
        """The points each team took, from the tally (format 2): each point is worth one, so
        the counts are the score; which point went where is optional detail, checked against
        them when given (every one of High, Low, Right, Left and Joker, or none)."""
        # loops, not all() over a generator or a list of the points given: this runs in the
        # press that enters the deal, where each multi-block allocation costs (docs/latency.md)
        tally = ev["tally"]
        ok = isinstance(tally, (list, tuple)) and len(tally) == 3
        if ok:
            for x in tally:
                if not isinstance(x, int) or isinstance(x, bool) or x < 0:
                    ok = False
        if not ok:
            raise EventError("tally", "three whole numbers: the points A, B and C took")
        detail = 0
        first = None
        for p in POINTS:
            if p in ev:
                detail += 1
                if first is None:
                    first = p
        if detail and detail != len(POINTS):
            raise EventError(first, "give which team took every point (high, low, right, left, joker) or none")
        game = -1                      # -1: not given
        if "game" in ev or "counts" in ev:
            g = self._game_point(ev)
            game = -2 if g is None else g       # -2: tied, nobody
        if sum(tally) != (5 if game == -2 else 6):
            raise EventError("tally", "the six points add up to 6 (5 when the Game point is tied: give game null)"
                             if game != -2 else "a tied Game point leaves 5 points to count")
        if game >= 0 and tally[game] == 0:
            raise EventError("tally", "%s took the Game point, so it has at least one" % SIDES[game])
        if detail:
            won = [0, 0, 0]
            for p in POINTS:
                won[self.side(ev, p)] += 1
            if game >= 0:
                won[game] += 1
            rest = [tally[t] - won[t] for t in range(3)]
            if min(rest) < 0 or sum(rest) != (1 if game == -1 else 0):
                raise EventError("tally", "the points given one by one add up to %s, not %s" % (won, tally))
        return tally              # read only by deal(), which copies it

    def _game_point(self, ev):
        """The team with the strictly highest game-count, or None on a tie (SC-03)."""
        has_game = "game" in ev
        game = ev.get("game")
        if has_game and game is not None:
            game = self.side(ev, "game")
        if "counts" in ev:
            counts = ev["counts"]
            if len(counts) != 3 or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts) \
                    or sum(counts) > 81:
                raise EventError("counts", "three whole numbers (game-count of A, B, C), 81 at most in all")
            top = max(counts)
            leaders = [t for t in range(3) if counts[t] == top]
            derived = leaders[0] if len(leaders) == 1 else None
            if has_game and game != derived:
                raise EventError("game", "the game-counts give the Game point to %s" %
                                 ("nobody (a tie)" if derived is None else SIDES[derived]))
            return derived
        if not has_game:
            raise EventError("game", "missing: which team had the most game-count (null for a tie)")
        return game

    def _end(self, st, cfg, bidder, before):
        target = cfg["target"]
        for t in range(3):
            if st.score[t] >= target:
                break
        else:
            return            # nobody there (most deals): no list made in the press
        reached = [t for t in range(3) if st.score[t] >= target]
        best = max(st.score[t] for t in reached)
        top = [t for t in reached if st.score[t] == best]
        if len(top) == 1:
            winner = top[0]
        elif bidder in top:
            winner = bidder                                   # L38
        elif cfg["end_tie_without_bidder"] == "higher-previous":
            prev = max(before[t] for t in top)
            ahead = [t for t in top if before[t] == prev]
            if len(ahead) != 1:
                return
            winner = ahead[0]
        elif cfg["end_tie_without_bidder"] == "shared":
            st.over = True
            st.ended = "shared"
            st.winner = None
            st.shared = top
            return
        else:
            return                                            # play another hand (SC-06)
        st.over = True
        st.ended = "target"
        st.winner = winner

    def start(self, setup, cfg):
        st = Ruleset.start(self, setup, cfg)
        st.shared = None          # the teams that share the win (end_tie_without_bidder "shared")
        return st

    def summarize(self, st, out):
        if st.shared:
            out["shared"] = [SIDES[i] for i in st.shared]

    def end_check(self, st, cfg, side, why="target"):
        # after a manual adjustment: a single team at the top past the target wins
        self._end(st, cfg, -1, list(st.score))

    def redeal(self, st, ev, cfg):
        if st.over:
            raise EventError("", "the game is over")
        if self.check_reason(ev) == "all-pass" and cfg["all_pass_policy"] == "stick-the-dealer":
            raise EventError("reason", "the dealer must bid when all others pass (stick the dealer)")
        st.redeals += 1
        # the same dealer deals again (L24): the shuffler does not move

    def penalty(self, st, ev, cfg):
        raise EventError("offence", "Schmier defines no penalties; enter an adjustment with a reason")

    def banner(self, st, answers, lang):
        # the bid, once entered, stays in sight while its points are entered
        bid = answers.get("bid")
        if bid is None:
            return None
        bidder = answers.get("bidder")
        if not isinstance(bid, int) or bidder not in SIDES[:3]:
            return None
        # made once per bid, bidder and language: a step then allocates nothing
        i = ((bid % 8) * 3 + SIDES.index(bidder)) * 2 + lang
        line = _BID_LINES.get(i)
        if line is None:
            # one string joined, not %-formatted: no tuple made in the press (docs/latency.md)
            line = _BID_LINES[i] = _BID_HEADS[lang * 4 + bid - 3] + bidder
        return line

    def form(self, st, cfg):
        # it reads nothing of the match: the last one built is given again (common.cached_form)
        f = cached_form(self, 0)
        if f is not None:
            return f
        fixed, steps = self._build_form()
        return keep_form(self, 0, fixed, steps)

    def _build_form(self):
        bids = [choice(b, str(b), str(b), side="bidder", says=("pakub", "bids"),
                       name=("Pakkus %d" % b, "Bid %d" % b)) for b in (3, 4, 5, 6)]
        # the bidder's button held on a bid: one more (4 held on 3, 6 on 5): every bid within
        # two presses, the list still offering each one tapped
        steps = [step("bid", "Pakkumine", "Bid", wrapped(bids),
                      held={b: ({"bid": b + 1}, (str(b + 1), str(b + 1))) for b in (3, 4, 5)})]
        # Each point is worth one, so a tally is the score: a team's button adds the points
        # under the cursor to that team, and the cursor stays there (two teams with one each:
        # two presses); held, one more ("+2" on "+1"). OK gives the rest to the bidder's team
        # (which takes most of them: the screen shows "OK+n" under it). "+3" is one NEXT away,
        # "+5" one PREV, "Mängupunkt viik" two NEXTs: on it OK gives the bidder's team the
        # rest less the tied Game point, and a team's button gives that team the rest less it
        # (every hand within 4 presses of its tally, 6 with the bid). An amount is offered
        # while that many are left (held, while one more is). Which point went where is
        # optional detail in the event, not asked here. The step is labelled with the bid.
        steps.append(step("tally", "Punktid", "Points", wrapped([
            choice(1, "+1 punkt", "+1 point", side="tally", says=("+1", "+1")),
            choice(3, "+3 punkti", "+3 points", side="tally", says=("+3", "+3"), adds=3),
            choice(5, "+5 punkti", "+5 points", side="tally", says=("+5", "+5"), adds=5),
            choice(None, "Mängupunkt viik", "Game point tied", side="tally", ok=True, sets={"game": None},
                   says=("viik", "tied"), ok_says=("viik", "tied"), rests=True),
        ]) + [
            # the last point given with another team's button than the bidder's waits for OK
            # (dealform: a wrong button there shows on the tally before the hand is saved)
            choice(None, "Salvesta", "Save", ok=True, ok_says=("salvesta", "save"), adds=0),
        ], count=6, rest="bidder", named="bid", held={a: (a + 1, ("+%d" % (a + 1),) * 2) for a in (1, 3, 5)}))
        return {}, steps

    def describe(self, ev, lang, steps, number=None):
        """A hand as the players say it: "Jagu 4: 4 B, punktid A1 B4 C1"."""
        if ev["type"] != "deal" or "bid" not in ev:
            return Ruleset.describe(self, ev, lang, steps, number)
        t = ev.get("tally")
        if t is None:           # format 1: which team took each point, counted here
            t = [0, 0, 0]
            for p in POINTS + ("game",):
                if ev.get(p) in SIDES:
                    t[SIDES.index(ev[p])] += 1
        return "%s %d: %d %s, %s A%d B%d C%d%s" % (
            self.counter_word[lang], number if number is not None else ev["seq"], ev["bid"], ev["bidder"],
            ("punktid", "points")[lang], t[0], t[1], t[2],
            (", viik", ", tie")[lang] if "game" in ev and ev["game"] is None else "")


SCHMIER = Schmier()
