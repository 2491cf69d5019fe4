"""A toy fifth game, kept here alone: tests/test_toy_game.py registers it and plays it through the UI,
the renderer (on MicroPython) and `nakk score`, with no line of it anywhere else in the repository.

"Tikk" is made up: two sides; each deal one side takes 1, 2 or 3 tikks, or
the deal is void (OK); first to the target (7) wins; a side that takes 3 in
one deal after taking 3 the deal before wins at once ("knockout"). Its
header counts rounds, its gauge fills a box per 2 tikks, its LED ring shows
the tikks in groups of 2, and its summary adds the last deal's taker.
"""

from nakk.event import EventError, SIDES
from nakk.rules.common import IntRange, Ruleset, Setting, choice, step

_DEAL_FIELDS = (("tikks", "any"), ("taker", "side"))


class Tikk(Ruleset):
    name = "tikk"
    family = "tikk"
    title = ("Tikk (mänguasi)", "Tikk (a toy)")
    sides = 2
    seats = 2
    unit = ("tikk", "tikk")
    settings = (Setting("target", 7, IntRange(2, 50), "toy", "Tikks that win."),)
    offences = (("peek", "Piilumine", "Peeking"),)
    redeal_reasons = (("dropped", "Kukkus maha", "Dropped"),)
    deal_words = (("tikks", "taker"),)
    counter_word = ("Voor", "Round")
    endings = (("knockout", "three and three: a knockout"),)

    def start(self, setup, cfg):
        st = Ruleset.start(self, setup, cfg)
        st.last_taker = None      # this game's own state, declared where the game is
        st.last_tikks = 0
        return st

    def deal(self, st, ev, cfg):
        if st.over:
            raise EventError("", "the game is over")
        self.check(ev, (), _DEAL_FIELDS)
        if ev.get("tikks") is None:
            if "taker" in ev:
                raise EventError("taker", "a void deal has no taker")
            st.deals += 1               # a void deal
            st.last_taker = None
            st.last_tikks = 0
            return
        n = ev["tikks"]
        if n not in (1, 2, 3):
            raise EventError("tikks", "must be 1, 2 or 3")
        taker = self.side(ev, "taker")
        knockout = n == 3 and st.last_tikks == 3 and st.last_taker == taker
        st.score[taker] += n
        st.deals += 1
        st.shuffler = (st.shuffler + 1) % self.seats
        st.last_taker = taker
        st.last_tikks = n
        if knockout:
            st.over, st.ended, st.winner = True, "knockout", taker
        else:
            self.end_check(st, cfg, taker)

    def end_check(self, st, cfg, side, why="target"):
        if st.score[side] >= cfg["target"]:
            st.over, st.ended, st.winner = True, why, side

    def redeal(self, st, ev, cfg):
        self.check_reason(ev)
        st.redeals += 1

    def penalty(self, st, ev, cfg):
        if ev["offence"] != "peek":
            raise EventError("offence", "must be peek")
        by = self.side(ev, "by")
        st.score[1 - by] += 1
        self.end_check(st, cfg, 1 - by, "penalty")

    def form(self, st, cfg):
        return {}, [step("tikks", "Tikke", "Tikks", [
            choice(2, "2", "2", side="taker"),
            choice(1, "1", "1", side="taker"),
            choice(3, "3", "3", side="taker"),
            choice(None, "Tühi", "Void", ok=True),
        ])]

    def gauge(self, st, i):
        return st.score[i] // 2

    def ring(self, rings, i, st, cfg):
        rings.units(i, st.score[i], 2)

    def summarize(self, st, out):
        out["last_taker"] = SIDES[st.last_taker] if st.last_taker is not None else None


TIKK = Tikk()
