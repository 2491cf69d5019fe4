"""Saare mäng (Saare Mäng club's Sasku): the 2020 rules and the classic rules, scored in nakks to 16.

References ([SM-nn], [§3], [Lnn] ...) are explained in docs/rules.md, with the
sentence of the Estonian texts (the primary source) that each rests on.
"""

from nakk.compat import let_go
from nakk.event import EventError, SIDES, check_pair
from nakk.rules.common import Ruleset, cached_form, eyes_and_tricks, keep_form, other, pokk_or_winner

SUIT, RUUTU, PIME_RUUTU, VALGE_PITS, PIME_PITS, ULEKULA = (
    "suit", "ruutu", "pime-ruutu", "valge-pits", "pime-pits", "ulekula")
_BASE = {SUIT: 2, RUUTU: 4, PIME_RUUTU: 6, VALGE_PITS: 6, PIME_PITS: 8, ULEKULA: 2}
_PITS = (VALGE_PITS, PIME_PITS)
_BLIND_OR_PITS = (PIME_RUUTU, VALGE_PITS, PIME_PITS)
_GAME_LABELS = {
    SUIT: ("Trump", "Suit"), RUUTU: ("Ruutu", "Ruutu"), PIME_RUUTU: ("Pime ruutu", "Blind ruutu"),
    VALGE_PITS: ("Valge pits", "White pits"), PIME_PITS: ("Pime pits", "Blind pits"),
    ULEKULA: ("Üleküla", "All passed"),
}
WIN, JANN, KARVANE, POKK, CAPTURE = "win", "jann", "karvane", "pokk", "capture"
RESULTS = (WIN, JANN, KARVANE, POKK, CAPTURE)


TRUMPS = ("hearts", "spades", "clubs", "diamonds")
NAKKS_PER_RING = 4     # 4 nakks make a ring; 4 rings (16) win: the gauge and the LED ring count them

_DEAL_FIELDS = (("game", "str"), ("maker", "side"), ("result", "str"), ("winner", "side"),
                ("capture", "side"), ("sohk", "side"), ("eyes", "list"), ("tricks", "list"),
                ("trump", "str"), ("note", "str"))
# (required, optional) in one pair made once: a deal entry checks its event without a tuple
_DEAL_CHECK = ((), _DEAL_FIELDS)


def _mark_bonuses(st, per_mark, counted):
    """Karvane +1 per mark, or +1 for any (SM-10); none for a partii given up without them."""
    for i in range(2):
        _mark_bonus(st, i, per_mark, counted)


def _mark_bonus(st, i, per_mark, counted):
    marks = st.marks[i] if counted else 0
    st.bonus[i] = marks if per_mark else (1 if marks else 0)


def _prillid(st, cfg):
    """Prillid +2 to the winner when the loser has no nakk (L48, SM-11)."""
    loser = other(st.winner)
    held = st.score[loser]
    if not cfg["prillid_counts_penalty_nakks"]:
        held -= st.received[loser]
    if held <= 0:
        st.bonus[st.winner] += 2


class Saare(Ruleset):
    family = "saare"
    sides = 2
    seats = 4
    unit = ("nakk", "nakk")
    deal_words = (("game", "maker"), ("result", "winner"))
    endings = (("sohk", "sohk (partii forfeited)"),)
    marks_word = "karvane"
    counter_word = ("Mäng", "Deal")          # "mäng on pooleli ja trump tehtud" (L21): a deal is a mäng
    redeal_word = ("Uus töö", "Redeal")      # "tuleb uus töö" (L8, L21; classic L4, L11)

    def __init__(self, name, title, games, year2020, settings):
        self.name = name
        self.title = title
        self.games = games
        self.year2020 = year2020
        self.settings = settings
        offences = [
            ("card-shown", "Kaart näidatud", "Card shown"),
            # the count changes the penalty under per-card (SM-14): the box asks it
            ("cards-shown", "Mitu kaarti näidatud", "Cards shown", ("cards", 2, 9)),
            ("shuffle", "Segamine", "Shuffling"),
        ]
        if year2020:
            offences.append(("misdeal-twice", "Kaks vale jagamist", "Misdealt twice"))
        offences.append(("noise", "Lärm", "Noise"))
        self.offences = tuple(offences)
        # a sohk (SM-04) is judged inside the deal: chosen from the penalty list with the
        # offender's button, it goes into the deal being entered as its `sohk` field; the deal
        # is then entered as it went (not played out: the other pair's win), the rules pay by it
        self.deal_offences = (("sohk", "Sohk", "Sohk", "sohk"),)
        reasons = [
            ("misdeal", "Vale jagamine", "Misdeal"),
            ("no-picture", "Pildita", "No picture"),
            ("all-pass", "Kõik pass", "All passed"),
        ]
        if year2020:
            reasons.append(("face-up", "Pits/♣K näha", "♦6/♣K face up"))
        reasons.append(("other", "Muu", "Other"))
        self.redeal_reasons = tuple(reasons)

    # ------------------------------------------------------------ deals

    def deal(self, st, ev, cfg):
        check_pair(ev, _DEAL_CHECK)
        if st.over:
            raise EventError("", "the partii is over")
        game = ev.get("game")
        if game not in self.games and (game != ULEKULA or cfg["all_pass_policy"] != "ulekula-ruutu"):
            allowed = self.games + ((ULEKULA,) if cfg["all_pass_policy"] == "ulekula-ruutu" else ())
            raise EventError("game", "must be one of " + ", ".join(allowed) + " in " + self.name)
        if "trump" in ev and ev["trump"] not in TRUMPS:
            raise EventError("trump", "must be one of " + ", ".join(TRUMPS))
        if game == ULEKULA:
            return self._ulekula(st, ev, cfg)
        maker = self.side(ev, "maker")
        if st.chain and (st.pending[1] != game or cfg["pokk_replay_keeps_maker"] and st.pending[0] != maker):
            m, g = st.pending
            raise EventError("game" if g != game else "maker",
                             "a pokk is replayed with the same trump: maker %s, %s" % (SIDES[m], g))
        pits = game in _PITS
        if "capture" in ev and not pits:
            raise EventError("capture", "the ♦6 catches the ♣K only in pits games")
        sohk = self.side(ev, "sohk", False)
        result, winner = self._result(ev, maker, pits, cfg, sohk is not None)
        value = _BASE[game]
        if sohk is not None:
            points, winner, mark = self._sohk(sohk, game, maker, winner, result, cfg)
            if points is None:  # forfeit-partii: the other pair wins the partii
                self._finish(st, other(sohk), "sohk", cfg)
                return
        elif result == POKK:
            st.chain += 1
            st.pending = (maker, game)
            st.deals += 1
            st.last = [0, 0]
            self._next_shuffler(st)
            return
        else:
            points, mark = self._points(game, maker, winner, result, value, cfg)
        if "capture" in ev and not cfg["pits_capture_is_karvane_win"] and sohk is None:
            st.marks[self.side(ev, "capture")] += 1
        if mark:
            st.marks[winner] += 1
        if st.chain:
            points += 2 if cfg["pokk_replay_bonus"] == "flat" else \
                2 * st.chain if cfg["pokk_replay_bonus"] == "per-pokk" else 0
        st.chain = 0
        st.pending = None
        self._score(st, winner, points, cfg)

    def _points(self, game, maker, winner, result, value, cfg):
        """Nakks to the winner of a completed deal, and whether it earns a karvane mark."""
        points = value
        if winner != maker and (cfg["beaten_bonus_applies_to_pits_and_blind"] or game not in _BLIND_OR_PITS):
            points += 2                                   # the trump was beaten (L44)
        no_jann = game in _PITS and not cfg["pits_jann_bonus"]   # "Jänni ei märgita" (L38, SM-05)
        if result == CAPTURE:
            return points, True                           # automatic karvane, no jänn (SM-06)
        if result == KARVANE:
            return points + (0 if no_jann else 2), True   # value + 2 "for jänn", a mark (L46, SM-09)
        if result == JANN and not no_jann:
            points += 2
        return points, False

    def _sohk(self, sohk, game, maker, winner, result, cfg):
        """Sohk (SM-04): the offending pair loses the deal (or, by setting, the partii)."""
        if cfg["sohk_policy"] == "forfeit-partii":
            return None, None, False
        innocent = other(sohk)
        if result is not None and result != POKK and winner == innocent:
            points, mark = self._points(game, maker, winner, result, _BASE[game], cfg)
            return points, winner, mark
        # not completed, or won by the offenders: the base win, no jänn, no karvane
        return _BASE[game] + (2 if sohk == maker else 0), innocent, False

    def _result(self, ev, maker, pits, cfg, sohk):
        """The category (result, winner index) from what was entered, cross-checked with eyes and tricks."""
        result = ev.get("result")
        if result is not None and result not in RESULTS:
            raise EventError("result", "must be one of " + ", ".join(RESULTS))
        winner = self.side(ev, "winner", False)
        capture = self.side(ev, "capture", False)
        if result == CAPTURE or (capture is not None and cfg["pits_capture_is_karvane_win"]):
            if not pits:
                raise EventError("result", "a capture happens only in pits games")
            if capture is None:
                raise EventError("capture", "missing: which pair's ♦6 caught the ♣K")
            if not cfg["pits_capture_is_karvane_win"]:
                raise EventError("result", "capture is a mark only under this ruleset's settings")
            if winner is not None and winner != capture:
                raise EventError("winner", "the pair whose ♦6 caught the ♣K wins the deal")
            if result not in (None, CAPTURE):
                raise EventError("result", "a capture is scored as an automatic karvane")
            return CAPTURE, capture
        derived = _derive(ev, maker)
        if pits and not cfg["pits_jann_bonus"]:
            # no jänn in pits: a jänn margin is an ordinary win there
            if derived is not None and derived[0] == JANN:
                derived = (WIN, derived[1])
            if result == JANN:
                result = WIN
        if result is None:
            if derived is None:
                if sohk:
                    return None, None
                raise EventError("result", "missing (or give eyes and tricks)")
            result, w = derived
            if winner is not None and winner != w:
                raise EventError("winner", _eyes_say(w))
            winner = w
        elif derived is not None:
            dres, dwin = derived
            # eyes alone cannot show karvane (a zero-eye trick exists), so a karvane
            # entered with eyes but no tricks only needs the loser to hold no eyes
            eyes_only_karvane = result == KARVANE and "tricks" not in ev and dwin is not None and \
                ev["eyes"][other(dwin)] == 0
            if dres != result and not eyes_only_karvane:
                raise EventError("result", "the eyes and tricks say %s, not %s" % (dres, result))
            if winner is not None and winner != dwin:
                raise EventError("winner", _eyes_say(dwin))
            winner = dwin
        return pokk_or_winner(result, winner)

    def _ulekula(self, st, ev, cfg):
        """All four passed under the üleküla ruutu policy (SM-16): 2 to the pair with more eyes."""
        if "maker" in ev or "sohk" in ev or "capture" in ev:
            raise EventError("maker", "üleküla ruutu has no maker")
        if st.chain:
            raise EventError("game", "a pokk is being replayed")
        result = ev.get("result")
        winner = self.side(ev, "winner", False)
        if "eyes" in ev:
            eyes = eyes_and_tricks(ev)[0]
            if eyes[0] == 60:
                derived = None
            else:
                derived = 0 if eyes[0] > 60 else 1
            if result == POKK and derived is not None or result not in (None, POKK) and derived is None:
                raise EventError("result", "the eyes say otherwise")
            if derived is not None and winner is not None and winner != derived:
                raise EventError("winner", "the eyes say %s won" % SIDES[derived])
            winner = derived
            result = POKK if derived is None else WIN
        if result == POKK:
            st.deals += 1
            st.last = [0, 0]
            self._next_shuffler(st)
            return
        if result not in (WIN, JANN, KARVANE) or winner is None:
            raise EventError("winner", "missing: the pair with more eyes")
        self._score(st, winner, _BASE[ULEKULA], cfg)

    def _score(self, st, winner, points, cfg):
        st.score[winner] += points
        if cfg["cap_deal_points_at_16"] and st.score[winner] > cfg["target"]:
            st.score[winner] = cfg["target"]
        st.last = [0, 0]
        st.last[winner] = points
        st.deals += 1
        st.misdeals = 0
        self._next_shuffler(st)
        self.end_check(st, cfg, winner)

    def _next_shuffler(self, st):
        st.shuffler = (st.shuffler + 1) % self.seats
        st.misdeals = 0

    # ------------------------------------------------------------ the rest

    def redeal(self, st, ev, cfg):
        if st.over:
            raise EventError("", "the partii is over")
        reason = self.check_reason(ev)
        if reason == "no-picture" and st.chain:
            raise EventError("reason", "no redeal for want of a picture while a pokk is replayed (L21)")
        if reason == "all-pass" and cfg["all_pass_policy"] != "void":
            raise EventError("reason", "all passed is played as üleküla ruutu under these settings")
        st.redeals += 1
        if reason == "misdeal":
            st.misdeals += 1
        if cfg["redeal_passes_shuffle"]:
            self._next_shuffler(st)

    def penalty(self, st, ev, cfg):
        by = self.side(ev, "by")
        offence = ev["offence"]
        if not _known(self.offences, offence):
            raise EventError("offence", "must be one of " + ", ".join([o[0] for o in self.offences]))
        if offence == "noise":
            st.deductions[by] += cfg["noise_deduction"]
            return
        if st.over:
            raise EventError("", "the partii is over")
        if "cards" in ev and offence != "cards-shown":
            raise EventError("cards", "only for cards-shown")
        if offence == "card-shown":
            points = cfg["card_show_penalty"]
        elif offence == "cards-shown":
            cards = ev.get("cards", 2)
            if cards < 2 or cards > 9:
                raise EventError("cards", "two to nine cards")
            if cfg["multi_card_show_penalty"] == "per-incident":
                points = cfg["multi_card_incident_penalty"]
            else:
                points = cards * cfg["card_show_penalty"]
        elif offence == "shuffle":
            points = cfg["shuffle_penalty"]
        else:  # misdeal-twice
            points = cfg["misdeal_twice_penalty"]
            if points == 0:
                raise EventError("offence", "a second misdeal is not penalised under these settings")
            if by != st.shuffler % 2:
                raise EventError("by", "the dealer's pair is %s" % SIDES[st.shuffler % 2])
            self._next_shuffler(st)
        to = other(by)
        points = min(points, cfg["target"] - st.score[to])  # clipped at the target (L50)
        st.score[to] += points
        st.received[to] += points
        self.end_check(st, cfg, to, "penalty")

    def end_check(self, st, cfg, side, why="target"):
        if not st.over and st.score[side] >= cfg["target"]:
            self._finish(st, side, why, cfg)

    def _finish(self, st, winner, why, cfg):
        """The partii ends: the winner is fixed now; the bonuses only add (SM-26)."""
        st.over = True
        st.winner = winner
        st.ended = why
        self._end_bonuses(st, cfg, "all" if why != "sohk" else cfg["forfeit_end_bonuses"])

    def forfeited(self, st, cfg):
        """A forfeit ended the partii (the match set the winner): the same end bonuses as a
        sohk that forfeits it, by one setting, so the two ways of giving up agree."""
        self._end_bonuses(st, cfg, cfg["forfeit_end_bonuses"])

    def _end_bonuses(self, st, cfg, which):
        """Karvane +1 (SM-10) and prillid +2 (SM-11), added at the end of the partii; which:
        all, karvane or none (forfeit_end_bonuses, for a partii given up)."""
        # (in steps whose frames stay within 11 words: a bigger one is a heap allocation at
        # every call on the Pico, and this runs in the press that ends the partii)
        _mark_bonuses(st, cfg["karvane_bonus"] == "per-mark", which != "none")
        if which == "all":
            _prillid(st, cfg)

    # ------------------------------------------------------------ what the box shows

    def form_key(self, st):
        return None if st.chain else 0     # a pokk replay fixes its game (and maker): its own form

    def banner(self, st, answers, lang):
        cheat = answers.get("sohk")
        if cheat is not None:
            # what to enter after a sohk: the deal as it went; not played out, the other pair's win
            return ("Sohk %s; pooleli: %s võitis", "Sohk %s; unfinished: %s won")[lang] % (
                cheat, SIDES[1 - SIDES.index(cheat)])
        if not st.chain:
            return None
        maker, game = st.pending
        # "sama trump uuesti" does not fit 128 px with the game: the game named says it is the same
        return ("Pokk: uuesti (%s %s)", "Pokk: again (%s %s)")[lang] % (
            _GAME_LABELS[game][lang], SIDES[maker])

    def mark_bonus(self, st, cfg, i):
        # the karvane end bonus the marks bring this pair (SM-10): what the mark means to the players
        marks = st.marks[i]
        return marks if cfg["karvane_bonus"] == "per-mark" else (1 if marks else 0)

    def gauge(self, st, i):
        return st.score[i] // NAKKS_PER_RING

    def ring(self, rings, i, st, cfg):
        rings.units(i, st.score[i], NAKKS_PER_RING)

    def notes(self, s):
        if s.get("pokk"):
            return ("pokk: %d waiting for the replay (%s, maker %s)" % (
                s["pokk"], s["replay"]["game"], s["replay"]["maker"]),)
        return ()

    def summarize(self, st, out):
        out["rings"] = [s // NAKKS_PER_RING for s in st.score]
        out["pokk"] = st.chain
        if st.pending is not None:
            out["replay"] = {"maker": SIDES[st.pending[0]], "game": st.pending[1]}

    # ------------------------------------------------------------ entry form

    def form(self, st, cfg):
        """The deal-entry steps for the current state, and the fields it fixes. The cursor starts
        on "Trump · võit": a side button says "this pair made it and won" (one press); OK opens
        the game's other results, each with the WINNER's button ("Kaotas": the maker lost); OK
        there is a pokk, then the maker's button. Lists run most likely first for a wrapping
        cursor. Read-only data, kept (common.cached_form) while the settings it reads are the same."""
        key = (cfg["pits_jann_bonus"], cfg["pits_capture_is_karvane_win"], cfg["all_pass_policy"],
               cfg["pokk_replay_keeps_maker"])
        f = cached_form(self, key, 1 if st.chain else 0)
        if f is None:
            f = self._forms(key, cfg, 1 if st.chain else 0)
        if not st.chain:
            return f
        # a pokk replay: its form is the same for every game and maker, which it fixes
        maker, game = st.pending
        fixed = {"game": game}
        if cfg["pokk_replay_keeps_maker"]:
            fixed["maker"] = SIDES[maker]
        return fixed, f[1]

    def _forms(self, key, cfg, slot):
        """Both forms, a deal's and a pokk replay's, made by nakk.rules.saare_tables (let go
        after: made once a match, at its start, they need not stay in the box's heap)."""
        deal, replay = _tables().forms(self, cfg)
        _let_go()
        keep_form(self, key, None, replay, 1)
        keep_form(self, key, {}, deal, 0)
        return cached_form(self, key, slot)

    def describe(self, ev, lang, steps, number=None):
        """A deal as the players say it, by the number the header gave it: "Mäng 5: Trump, A tegi
        ja võitis", "Mäng 6: Ruutu, B tegi, A võitis jänniga", "Mäng 7: Trump, pokk: A tegi"
        (what the undo question names)."""
        if ev["type"] != "deal" or ev.get("game") not in _GAME_LABELS or \
                ev.get("result") is None and "sohk" not in ev:
            return Ruleset.describe(self, ev, lang, steps, number)
        game = _GAME_LABELS[ev["game"]][lang]
        maker, winner, result = ev.get("maker"), ev.get("winner", ev.get("capture")), ev.get("result")
        if "sohk" in ev:
            text = game + ((", %s tegi, %s tegi sohku", ", %s made it, %s cheated")[lang] % (maker, ev["sohk"]))
            if result is not None and winner is not None:
                text += (", %s võitis" if lang == 0 else ", %s won") % winner + _HOW[result][lang]
        elif result == POKK:
            text = game + (", pokk: %s tegi" if lang == 0 else ", pokk: %s made it") % maker \
                if maker else game + ", pokk"
        elif maker is None:
            text = game + (", %s võitis" if lang == 0 else ", %s won") % winner
        elif winner == maker:
            text = game + (", %s tegi ja võitis" if lang == 0 else ", %s made it and won") % maker
        else:
            text = game + (", %s tegi, %s võitis" if lang == 0 else ", %s made it, %s won") % (maker, winner)
        if "sohk" not in ev:
            text += _HOW[result][lang]
        return "%s %d: %s" % (self.counter_word[lang], number if number is not None else ev["seq"], text)


_HOW = {WIN: ("", ""), POKK: ("", ""), JANN: (" jänniga", " with jänn"), KARVANE: (" karvaselt", ", karvane"),
        CAPTURE: (", ♦6 püüdis ♣K", ", ♦6 caught ♣K")}


def _eyes_say(winner):
    return "the eyes say %s" % ("nobody won (pokk)" if winner is None else SIDES[winner] + " won")


def _known(table, ident):
    for row in table:
        if row[0] == ident:
            return True
    return False


def _derive(ev, maker):
    """(result, winner) from exact eyes and tricks, or None when eyes were not given."""
    eyes, tricks = eyes_and_tricks(ev)
    if eyes is None:
        return None
    if eyes[maker] == 60:
        return POKK, None
    winner = maker if eyes[maker] >= 61 else other(maker)
    loser = other(winner)
    if tricks is not None and tricks[loser] == 0:
        return KARVANE, winner        # karvane is decided by tricks, never by eyes (L46)
    if eyes[loser] <= 30:
        return JANN, winner
    return WIN, winner


def _tables():
    import nakk.rules.saare_tables
    return nakk.rules.saare_tables


def _let_go():
    """Forget nakk.rules.saare_tables: what it made stays, its code and names leave the heap."""
    let_go("nakk.rules.saare_tables")


def _rulesets():
    """The two rulesets, with their settings read from nakk.rules.saare_tables, let go after."""
    t = _tables()
    y2020 = Saare("saare-2020", ("Saare mäng 2020", "Saare mäng 2020"),
                  (SUIT, RUUTU, PIME_RUUTU, VALGE_PITS, PIME_PITS), True, t.settings(True))
    # the classic rules share most of 2020's settings (one object each: heap on the box)
    classic = Saare("saare-classic", ("Saare mäng (vana)", "Saare mäng classic"), (SUIT, RUUTU), False,
                    t.shared(t.settings(False), y2020.settings))
    _let_go()
    return y2020, classic


SAARE_2020, SAARE_CLASSIC = _rulesets()
