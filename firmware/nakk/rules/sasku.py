"""Turniirisasku: the team-of-four tournament over two rooms, scored in P per deal (board).

One box scores one room: side A sits NS, side B sits EW. The team match is
joined on the judge's side by nakk.offbox.teams.team_match(), a pure function of both rooms'
event lists. References ([TS-nn], [T-P1], [Lnn] ...) are explained in
docs/rules.md, with the sentence of the Estonian text each rests on.
"""

from nakk.event import EventError, SIDES, check_pair
from nakk.rules.common import IntRange, Ruleset, Setting, choice, eyes_and_tricks, pokk_or_winner, step, other, \
    wrapped

SUIT, RUUTU, ULEKULA = "suit", "ruutu", "ulekula"
CONTRACTS = (SUIT, RUUTU, ULEKULA)
WIN, SEAJANN, JANN, KARVANE, POKK = "win", "seajann", "jann", "karvane", "pokk"
RESULTS = (WIN, SEAJANN, JANN, KARVANE, POKK)
OFFENCES = ("comment", "revoke", "overbid", "other")

_DEAL_FIELDS = (("board", "int"), ("contract", "str"), ("maker", "side"), ("result", "str"),
                ("winner", "side"), ("eyes", "list"), ("tricks", "list"), ("offence", "str"),
                ("offender", "side"), ("award", "list"), ("trump", "str"), ("note", "str"))
# (required, optional) in one pair made once: a deal entry checks its event without a tuple
_DEAL_CHECK = ((("board", "int"),), _DEAL_FIELDS)


class Sasku(Ruleset):
    name = "sasku"
    family = "sasku"
    deal_words = (("contract", "maker"), ("result", "winner"))
    counter_word = ("Jaotus", "Board")    # "jaotused mängitakse mõlemas toas": a board is a jaotus
    redeal_word = ("Uus jaotus", "Redeal")  # the board dealt again
    endings = (("boards", "all boards played"), ("disqualified", "a side was disqualified"))
    no_winner = (("boards", "No winner in this box: a Turniirisasku match is decided when the judge"
                              " joins both rooms' boards."),)
    title = ("Turniirisasku", "Tournament Sasku")
    sides = 2
    seats = 4
    unit = ("P", "P")
    has_boards = True
    offences = (("illegal-info", "Illegaalne info", "Illegal information"),)
    # "Reegliterikkumise eest (kommentaarid, mastisalgamine, lubatust kõrgem pakkumine jms)
    # määrab kohtunik jaotusest 4P mitteeksinud poolele" (T-P1): in the board's own entry
    deal_offences = (("comment", "Kommentaarid", "Comments"), ("revoke", "Mastisalgamine", "Revoke"),
                     ("overbid", "Kõrgem pakkumine", "Overbid"), ("other", "Muu rikkumine", "Other offence"))
    redeal_reasons = (("misdeal", "Vale jagamine", "Misdeal"), ("other", "Muu", "Other"))
    settings = (
        Setting("boards", 8, IntRange(1, 64), "§3 [I]",
                "Deals (boards) in a match when the setup does not list them."),
        Setting("jann_threshold_winner_points", 91, IntRange(91, 91), "TS-02",
                "The winner's card points from which a win is jänn (+2 P)."),
        Setting("seajann_points", 90, IntRange(90, 90), "TS-02",
                "The winner's card points that make seajänn (+1 P)."),
        Setting("karvane_points", 12, IntRange(12, 12), "TS-03",
                "P for a karvane, in total, whatever the trump and maker."),
        Setting("pokk_points_to_non_maker", 2, IntRange(0, 12), "L30",
                "P to the pair that did not make trump at 60:60."),
        Setting("ulekula_points", 2, IntRange(0, 12), "TS-01",
                "P to the pair with more card points when all four passed (no bonuses; 60:60 scores 0)."),
        Setting("judge_min_points", 4, IntRange(0, 12), "TS-04",
                "A rule violation gives the non-offending side max(this, its actual result); the offender 0."),
        Setting("cancel_other_room_on_offence", True, (True, False), "TS-05",
                "A judged deal cancels that deal in the other room (unless both rooms were judged)."),
        Setting("team_tie", "draw", ("draw",), "TS-06",
                "Equal team totals: a draw."),
    )

    def start(self, setup, cfg):
        st = Ruleset.start(self, setup, cfg)
        boards = setup.get("boards", [1, cfg["boards"]])
        if (len(boards) != 2 or not all(isinstance(b, int) and not isinstance(b, bool) for b in boards)
                or not 1 <= boards[0] <= boards[1] <= boards[0] + 63):
            raise EventError("boards", "must be [first, last] board numbers, at most 64 boards")
        room = setup.get("room", 1)
        if room not in (1, 2):
            raise EventError("room", "must be 1 or 2")
        st.boards = {}
        st.board_range = (boards[0], boards[1])
        return st

    def form_key(self, st):
        return self.next_board(st) or 0    # the form fixes the board number

    def number(self, st, ev):
        return ev.get("board", st.deals)

    def banner(self, st, answers, lang):
        o = answers.get("offence")
        if o is None:
            b = answers.get("board")
            # another board chosen: the number it is stored under, in sight till the saving press
            return None if b is None else ("Salvestub jaotus %d", "Stored as board %d")[lang] % b
        for row in self.deal_offences:
            if row[0] == o:
                return ("Rikkus %s: %s", "%s offended: %s")[lang] % (answers.get("offender", "?"), row[1 + lang])
        return None

    def count(self, st):
        return self.next_board(st) if not st.over else len(st.boards)

    def ring(self, rings, i, st, cfg):
        lo, hi = st.board_range
        rings.progress(i, len(st.boards), hi - lo + 1)

    def summarize(self, st, out):
        out["boards"] = [[b, st.boards[b][0], st.boards[b][1]] for b in sorted(st.boards)]
        out["next_board"] = self.next_board(st)
        if st.disqualified is not None:
            out["disqualified"] = SIDES[st.disqualified]

    def next_board(self, st):
        """The board the next entry stores: the first not stored after the highest stored (a
        board skipped in this room is not asked again at once), else the first not stored;
        None once all are (a room that leaves a board out for good is closed by the judge,
        whose team match lists the board as unplayed)."""
        first, last = st.board_range
        after = first
        for b in st.boards:
            if b >= after:
                after = b + 1
        for b in range(after, last + 1):
            if b not in st.boards:
                return b
        for b in range(first, after):
            if b not in st.boards:
                return b
        return None

    def deal(self, st, ev, cfg):
        check_pair(ev, _DEAL_CHECK)
        if st.over:
            raise EventError("", "all boards of this match are played")
        board = ev["board"]
        first, last = st.board_range
        if not first <= board <= last:
            raise EventError("board", "must be %d..%d" % (first, last))
        if board in st.boards:
            raise EventError("board", "board %d is already scored in this room" % board)
        points = self._table(ev, cfg)
        offender = -1
        if "offence" in ev or "offender" in ev:
            if ev.get("offence") not in OFFENCES:
                raise EventError("offence", "must be one of " + ", ".join(OFFENCES))
            offender = self.side(ev, "offender")
            points = self._judged(ev, points, offender, cfg)
        elif "award" in ev:
            raise EventError("award", "the judge awards a result only for a rule violation")
        st.boards[board] = (points[0], points[1], offender)
        st.score[0] += points[0]
        st.score[1] += points[1]
        st.last = [points[0], points[1]]
        st.deals += 1
        st.shuffler = (st.shuffler + 1) % self.seats
        if self.next_board(st) is None:
            st.over = True
            st.ended = "boards"
            st.winner = None  # the team match is decided over both rooms (team_match)

    def _table(self, ev, cfg):
        """P per side for the deal as played (docs/rules.md, Turniirisasku §4.2)."""
        contract = ev.get("contract")
        if contract not in CONTRACTS:
            raise EventError("contract", "must be one of " + ", ".join(CONTRACTS))
        if "trump" in ev and ev["trump"] not in ("hearts", "spades", "clubs", "diamonds"):
            raise EventError("trump", "must be hearts, spades, clubs or diamonds")
        maker = None
        if contract == ULEKULA:
            if "maker" in ev:
                raise EventError("maker", "nobody makes trump when all four passed")
        else:
            maker = self.side(ev, "maker")
        result, winner = self._result(ev, cfg)
        pts = [0, 0]
        if contract == ULEKULA:
            if result != POKK:
                pts[winner] = cfg["ulekula_points"]  # no jänn, no karvane (L31)
            return pts
        if result == POKK:
            pts[other(maker)] = cfg["pokk_points_to_non_maker"]
            return pts
        if result == KARVANE:
            pts[winner] = cfg["karvane_points"]
            return pts
        base = (2 if contract == SUIT else 4) + (2 if winner != maker else 0)
        pts[winner] = base + (2 if result == JANN else 1 if result == SEAJANN else 0)
        return pts

    def _result(self, ev, cfg):
        result = ev.get("result")
        if result is not None and result not in RESULTS:
            raise EventError("result", "must be one of " + ", ".join(RESULTS))
        winner = self.side(ev, "winner", False)
        derived = _derive(ev, cfg)
        if derived is not None:
            dres, dwin = derived
            if result is not None and result != dres:
                raise EventError("result", "the card points and tricks say %s, not %s" % (dres, result))
            if winner is not None and winner != dwin:
                raise EventError("winner", "the card points say %s" % ("nobody won" if dwin is None else SIDES[dwin] + " won"))
            result, winner = dres, dwin
        if result is None:
            raise EventError("result", "missing (or give eyes and tricks)")
        return pokk_or_winner(result, winner)

    def _judged(self, ev, points, offender, cfg):
        """A rule violation (T-P1, TS-04): max(4, actual) to the non-offending side, 0 to the offender."""
        innocent = other(offender)
        if "award" in ev:  # the judge's own decision, within the rule's floor
            award = ev["award"]
            if len(award) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 24 for x in award):
                raise EventError("award", "two whole numbers 0..24, side A first")
            if award[offender] != 0 or award[innocent] < cfg["judge_min_points"]:
                raise EventError("award", "the offender gets 0 and the other side at least %d" % cfg["judge_min_points"])
            return [award[0], award[1]]
        out = [0, 0]
        out[innocent] = max(cfg["judge_min_points"], points[innocent])
        return out

    def redeal(self, st, ev, cfg):
        if st.over:
            raise EventError("", "all boards of this match are played")
        self.check_reason(ev)
        st.redeals += 1

    def penalty(self, st, ev, cfg):
        by = self.side(ev, "by")
        if ev["offence"] != "illegal-info":
            raise EventError("offence", "rule violations are entered with the deal (offence, offender); "
                             "the only penalty event is illegal-info")
        if st.over:
            raise EventError("", "the match is already over")
        # T-P2: the team is removed from the tournament; its remaining boards are forfeited
        st.disqualified = by
        st.over = True
        st.winner = other(by)
        st.ended = "disqualified"

    def end_check(self, st, cfg, side, why="target"):
        pass  # no target: the match ends when its boards are played

    def form(self, st, cfg):
        """The board's steps, as Saare mäng's: the cursor starts on "Trump · võit" and the
        maker's button says "this pair made it and won" (one press); OK opens the other results
        of that game, each taken with the WINNER's button ("Kaotas": the maker lost); OK there
        is a pokk, then the maker's button. The last choice of the first step, "Muu jaotus",
        stores the board under another number (a board not played in this room is left out).
        fixed: the board the header shows. The steps are made once a board range and shared
        (read-only, as nakk.ui.dealform reads them): the press that enters a board does not build
        the next one's (docs/latency.md); the boards on offer are offers()'."""
        n = self.next_board(st)
        fixed = {"board": n}
        lo, hi = st.board_range
        forms = getattr(self, "_forms", None)
        if forms is None or forms[0] != lo or forms[1] != hi:
            forms = self._forms = (lo, hi) + self._form_steps(lo, hi)
        for b in range(lo, hi + 1):
            if b != n and b not in st.boards:
                return fixed, forms[3]         # another board may be chosen
        return fixed, forms[2]                 # the last board: no other to choose

    def offers(self, st, c):
        # the board step: the boards not stored yet, but the one the header shows
        b = c["value"]
        return b != self.next_board(st) and b not in st.boards

    def _form_steps(self, lo, hi):
        games = [self._game(SUIT, "Trump", "Suit"), self._game(RUUTU, "Ruutu", "Ruutu"),
                 choice(ULEKULA, "Üleküla", "All passed", ok=True, ok_says=("edasi", "next"), name=_ULEKULA)]
        first = wrapped(games)
        # the board under another number: the last of the list, two presses away
        other_board = first[:2] + [choice(None, "Muu jaotus", "Other board", ok=True, omit=True,
                                          ok_says=("vali", "choose"))] + first[2:]
        played = (SUIT, RUUTU)
        when = ("contract", played)
        # most likely first (wrapped: the cursor meets them so): "made it and won" is the first
        # step's one press, so the makers' loss leads here
        ranked = [choice(WIN, "Kaotas", "Lost", side="winner", opp="maker", says=_WON, when=when),
                  choice(JANN, "Jänn 91+", "Jänn 91+", side="winner", also=("maker",), says=_MADE_WON, when=when),
                  choice(JANN, "Jänn (kaotas)", "Jänn (lost)", side="winner", opp="maker", says=_WON, when=when),
                  choice(KARVANE, "Karvane", "Karvane", side="winner", also=("maker",), says=_MADE_WON, when=when),
                  choice(KARVANE, "Karvane (kaotas)", "Karvane (lost)", side="winner", opp="maker", says=_WON,
                         when=when),
                  choice(SEAJANN, "Seajänn 90", "Seajänn 90", side="winner", also=("maker",), says=_MADE_WON,
                         when=when),
                  choice(SEAJANN, "Seajänn (kaotas)", "Seajänn (lost)", side="winner", opp="maker", says=_WON,
                         when=when)]
        results = wrapped(ranked)
        # all passed: no maker; the pair with more card points (OK: 60:60, nobody scores)
        results.append(choice(WIN, "Rohkem silmi", "More points", side="winner", says=_WON,
                              when=("contract", (ULEKULA,))))
        rest = [step("result", "Tulemus", "Result", results, named="contract", ok=_POKK),
                step("maker", "Tegija", "Maker", [choice("maker", "Pokk 60:60", "Pokk 60:60", side="maker",
                                                         says=_MADE, when=("contract", played))],
                     named="contract")]   # named by the game: one not moved to shows at the maker's press
        boards = [choice(b, "Jaotus %d" % b, "Board %d" % b, ok=True, ok_says=("see", "this"),
                         when=("contract", (None,))) for b in range(lo, hi + 1)]
        # (the last board's steps, and the others': "Muu jaotus", then the board and the game
        # again, skipped when the game is answered)
        return ([step("contract", "Mäng", "Game", first, held=_HELD)] + rest,
                [step("contract", "Mäng", "Game", other_board, held=_HELD),
                 step("board", "Jaotus", "Board", boards, live=True),
                 step("contract", "Mäng", "Game", first, held=_HELD)] + rest)

    def _game(self, g, et, en):
        return choice(g, et + " \u00b7 võit", en + " \u00b7 won", side="maker", also=("winner",),
                      sets={"result": WIN}, ok=True, says=_MADE_WON, ok_says=("muu", "other"), name=(et, en))

    def describe(self, ev, lang, steps, number=None):
        """A board as the players say it: "Jaotus 3: Trump, A tegi, B võitis jänniga",
        "Jaotus 4: Üleküla, A võitis", "Jaotus 5: Ruutu, B tegi, pokk" (what the undo names)."""
        c, r = ev.get("contract"), ev.get("result")
        if ev["type"] != "deal" or c not in _CONTRACT_WORDS or r not in _HOW or "offence" in ev:
            return Ruleset.describe(self, ev, lang, steps, number)
        maker, winner = ev.get("maker"), ev.get("winner")
        text = _CONTRACT_WORDS[c][lang]
        if maker is not None:
            text += (", %s tegi" if lang == 0 else ", %s made it") % maker
        if r == POKK:
            text += ", pokk"
        elif winner is not None:
            text += (", %s võitis" if lang == 0 else ", %s won") % winner
            text += _HOW[r][lang]
        return "%s %d: %s" % (self.counter_word[lang], number if number is not None else ev.get("board", ev["seq"]), text)


# what a side press does, in the players' words (the screen shows it before the press)
_MADE = ("tegi", "made it")
_MADE_WON = ("tegi, võitis", "made, won")
_ULEKULA = ("Üleküla", "All passed")
_POKK = choice(POKK, "Pokk 60:60", "Pokk 60:60", ok=True, ok_says=("pokk", "pokk"))
_WON = ("võitis", "won")
_HELD_JANN = ({"result": JANN}, ("jänn", "jänn"))
_HELD = {SUIT: _HELD_JANN, RUUTU: _HELD_JANN}   # a game's button held: that side made it and won with jänn
_CONTRACT_WORDS = {SUIT: ("Trump", "Suit"), RUUTU: ("Ruutu", "Ruutu"), ULEKULA: ("Üleküla", "All passed")}
_HOW = {WIN: ("", ""), POKK: ("", ""), JANN: (" jänniga", " with jänn"), SEAJANN: (" seajänniga", " with seajänn"),
        KARVANE: (" karvaselt", ", karvane")}

def _derive(ev, cfg):
    eyes, tricks = eyes_and_tricks(ev)
    if eyes is None:
        return None
    if eyes[0] == 60:
        return POKK, None
    winner = 0 if eyes[0] > 60 else 1
    w = eyes[winner]
    if tricks is not None and tricks[other(winner)] == 0 and ev.get("contract") != ULEKULA:
        return KARVANE, winner        # by tricks, regardless of trump (L29)
    if ev.get("contract") == ULEKULA:
        return WIN, winner
    if w >= cfg["jann_threshold_winner_points"]:
        return JANN, winner
    if w == cfg["seajann_points"]:
        return SEAJANN, winner
    return WIN, winner


SASKU = Sasku()
