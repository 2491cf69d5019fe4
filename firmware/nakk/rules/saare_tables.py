"""Saare mäng's tables: its settings (the readings of the texts a club may choose) and its deal forms.

Data only. nakk.rules.saare reads it when it is imported (the settings) and when a match
starts (both forms, a deal's and a pokk replay's), and lets it go each time: what it made
stays, its code and names would cost the box's heap for nothing. References ([SM-nn],
[§3], [Lnn] ...) are explained in docs/rules.md.
"""

from nakk.rules.common import IntRange, Setting, choice, step, wrapped


def settings(year2020):
    return _settings(year2020) + ((
        # Only the 2020 text penalises a second misdeal (L9: "Kui eksib kaks korda
        # kaartide jagamisel, karistatakse kahe nakiga"). The classic text leaves a
        # misdeal to the forehand, who chooses a new deal or dealing on (classic L4), with
        # no penalty: classic has neither the offence nor the setting.
        Setting("misdeal_twice_penalty", 2, IntRange(0, 16), "SM-13",
                "A dealer's second misdeal in one turn (0: not a penalty); the next player shuffles."),
    ) if year2020 else ())


def _settings(year2020):
    return (
        Setting("target", 16, IntRange(4, 200), "§3",
                "Nakks that end the partii (16 = 4 rings)."),
        Setting("cap_deal_points_at_16", False, (False, True), "SM-03",
                "Cap the official total at the target when a deal overshoots it (the uncapped total is always kept)."),
        Setting("penalty_clip_at_target", True, (True,), "SM-03",
                "A penalty lifts its recipient to the target at most (\"Karistuspunkte ei lisata üle 16 punkti\")."),
        Setting("pokk_replay_bonus", "flat" if year2020 else "none", ("flat", "per-pokk", "none"), "SM-02",
                "Bonus of 2 to the winners of a pokk replay: once (flat), 2 for every pokk in the chain, or none."),
        Setting("pokk_replay_keeps_maker", True, (True, False), "SM-18",
                "A pokk replay keeps the maker pair as well as the game; false: only the game (the trump) is kept."),
        Setting("pits_jann_bonus", False, (False, True), "SM-05",
                "Score jänn +2 (and karvane's +2) in pits games (\"Jänni ei märgita\": no)."),
        Setting("pits_capture_is_karvane_win", True, (True, False), "SM-06",
                "The ♦6 catching the opponents' ♣K wins the deal as karvane for its pair; false: a karvane mark only."),
        Setting("beaten_bonus_applies_to_pits_and_blind", True, (True, False), "SM-17",
                "Defenders who beat a pits or blind game get +2, as in ordinary games."),
        Setting("karvane_bonus", "per-mark", ("per-mark", "once"), "SM-10",
                "End bonus for karvane marks: +1 per mark, or +1 once per pair that has any."),
        Setting("prillid_counts_penalty_nakks", True, (True, False), "SM-11",
                "Penalty nakks received count as nakks when deciding prillid (the loser has 0)."),
        Setting("sohk_policy", "lose-deal", ("lose-deal", "forfeit-partii"), "SM-04",
                "Sohk costs the offending pair the deal, or the whole partii."),
        Setting("forfeit_end_bonuses", "all", ("all", "karvane", "none"), "SM-10 [I]",
                "End bonuses when the partii ends by a forfeit, or by a sohk under forfeit-partii: all "
                "(karvane +1 and prillid, as at any end: the texts add them \"partii lõppedes\" with no "
                "exception), karvane (the marks only), or none."),
        Setting("all_pass_policy", "void", ("void", "ulekula-ruutu"), "SM-16",
                "All four pass: a redeal, or üleküla ruutu (2 nakks to the pair with more eyes)."),
        Setting("card_show_penalty", 2, IntRange(0, 16), "P3-P5",
                "Nakks to the opponents for a card shown, dropped face up or led out of turn."),
        Setting("multi_card_show_penalty", "per-incident" if year2020 else "per-card",
                ("per-incident", "per-card"), "SM-14",
                "Two or more cards shown at once: a fixed penalty per incident, or the single-card penalty per card."),
        Setting("multi_card_incident_penalty", 4 if year2020 else 2, IntRange(0, 16), "SM-14",
                "The fixed penalty for two or more cards shown at once, per incident (2020: 4, L53)."),
        Setting("shuffle_penalty", 4 if year2020 else 2, IntRange(0, 16), "SM-22",
                "Shuffling after the delivery was chosen (classic: intentional shuffling only)."),
        Setting("noise_deduction", 4, IntRange(0, 16), "SM-15",
                "Deducted from the pair's overall tournament result at the judge's second warning."),
        Setting("redeal_passes_shuffle", False, (False, True), "§3 [I]",
                "After a redeal the next player shuffles (default: the same shuffler deals again)."),
    )


def shared(settings, like):
    """settings, each one that equals a setting of `like` replaced by that one: the two
    rulesets share most of their settings (~3 KB of heap for each set on the unix port)."""
    same = {}
    for o in like:
        same[o.key] = o
    out = []
    for s in settings:
        o = same.get(s.key)
        if o is not None and o.ref == s.ref and o.text == s.text and o.default == s.default \
                and type(o.default) is type(s.default) and _same_choices(o.choices, s.choices):
            s = o
        out.append(s)
    return tuple(out)


def _same_choices(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        return a == b
    return a.low == b.low and a.high == b.high


# ------------------------------------------------------------ the deal forms

def forms(rules, cfg):
    """(a deal's steps, a pokk replay's steps) of ruleset `rules` (a nakk.rules.saare.Saare) under
    settings cfg. A replay's form fixes the game (and, by pokk_replay_keeps_maker, the maker):
    the same steps for every game, each choice offered for its own game."""
    from nakk.rules import saare as S
    # a game's button held: that pair made it and won with jänn (a pits game without jänn:
    # with karvane); after a sohk, tapped or held, the innocent pair won so
    jann = tuple(g for g in rules.games if g not in S._PITS or cfg["pits_jann_bonus"])
    games = [_game(S, g) for g in rules.games]
    held = {}
    for g in rules.games:
        held[g] = _HELD_JANN if g in jann else _HELD_KARVANE
    if cfg["all_pass_policy"] == "ulekula-ruutu":
        games.append(choice(S.ULEKULA, "Üleküla", "All passed", ok=True, name=S._GAME_LABELS[S.ULEKULA],
                            ok_says=("edasi", "next")))
    # OK on any result: a pokk (nobody won), then the maker's button (the step is labelled
    # with the result)
    result = step("result", "Tulemus", "Result", _results(S, rules, cfg), named="game", ok=_pokk(S),
                  only=_NO_SOHK)
    # the maker of a pokk (not of üleküla, which has none); the step is named by the game, so
    # a game not moved to before the pokk shows at the maker's press
    maker = step("maker", "Tegija", "Maker", [
        choice("maker", "Pokk 60:60", "Pokk 60:60", side="maker", says=_MADE, when=("result", (S.POKK,)))],
        named="game", only=("game", tuple(rules.games)))
    # After a sohk (SM-04) the other pair wins: the game's button as ever ("tegi, võitis": the
    # deal not played out is the innocent pair's plain win, the offenders' win pays the same),
    # and OK on it the innocent pair's results that the rules pay by (jänn, karvane, the ♦6's
    # catch), each with the MAKER's button; a sohk entered on the results goes to these
    # (a step after the ordinary ones: the steps a deal without a sohk asks come first)
    sohk = step("result", "Sohk", "Cheat", _sohk_results(S, rules, cfg), named="game", only=_SOHK)
    deal = [step("game", "Mäng", "Game", wrapped(games), held=held, innocent=_SOHK_WON), result, maker, sohk]
    if cfg["pokk_replay_keeps_maker"]:
        # the replay: game and maker as before, only the result is asked
        replay = [step("result", "Kordus", "Replay", _replay_results(S, rules, cfg), ok=_pokk(S))]
    else:
        replay = [step("game", "Mäng", "Game", [_game(S, g, ("game", (g,))) for g in rules.games], held=held,
                       innocent=_SOHK_WON), result,
                  maker, sohk]
    return deal, replay


_NO_SOHK = ("sohk", (None,))
_SOHK = ("sohk", ("A", "B"))


def _sohk_results(S, rules, cfg):
    """The innocent pair's results the rules pay by after a sohk, each with the maker's button.
    The game's button already enters the plain win (tapped) and the jänn (held; in a pits game
    without one, karvane), so under the cursor is the one left: karvane (a pits game: the
    ♦6's catch, karvane one NEXT away); "Pooleli / võit" one NEXT away (a pits game: one PREV),
    jänn one PREV away. Few and shared: less of the box's heap."""
    jann = tuple(g for g in rules.games if g not in S._PITS or cfg["pits_jann_bonus"])
    nojann = tuple(g for g in rules.games if g not in jann)
    capture = nojann and cfg["pits_capture_is_karvane_win"]
    won = ("sohk", ("winner",))
    every = ("game", tuple(rules.games))      # (not üleküla: it has no maker)
    out = []
    if capture:
        out.append(choice(S.CAPTURE, "♦6 püüdis ♣K", "♦6 caught ♣K", side="maker", innocent=("sohk", ("capture",)),
                          says=_MADE, when=("game", nojann)))
    out.append(choice(S.KARVANE, "Karvane", "Karvane", side="maker", innocent=won, says=_MADE, when=every))
    out.append(choice(S.WIN, "Pooleli / võit", "Halted / won", side="maker", innocent=won, says=_MADE, when=every))
    out.append(choice(S.JANN, "Jänn", "Jänn", side="maker", innocent=won, says=_MADE, when=("game", jann)))
    return out


def _pokk(S):
    return choice(S.POKK, "Pokk 60:60", "Pokk 60:60", ok=True, ok_says=("pokk", "pokk"))


def _game(S, g, when=None):
    et, en = S._GAME_LABELS[g]
    return choice(g, et + " \u00b7 võit", en + " \u00b7 won", side="maker", also=("winner",),
                  sets=_WIN_SETS, ok=True, says=_MADE_WON, ok_says=_OTHER, name=S._GAME_LABELS[g], when=when)


def _results(S, rules, cfg):
    """The other results of a game, each with the winner's button (a pokk: the maker's).
    "Made it and won" is not among them: the first step's side button says it in one press.
    Games with jänn and pits games without it each get their list in their own order of
    likelihood (the cursor meets only the one of the game chosen); a choice both lists
    have in the same place is one choice for both (less of the box's heap)."""
    jann = tuple(g for g in rules.games if g not in S._PITS or cfg["pits_jann_bonus"])
    nojann = tuple(g for g in rules.games if g not in jann)
    capture = cfg["pits_capture_is_karvane_win"]
    lists = []
    for games in (jann, nojann):
        if not games:
            continue
        ranked = [choice(S.WIN, "Kaotas", "Lost", side="winner", opp="maker", says=_WON)]
        if capture and games is nojann:
            ranked.append(choice(S.CAPTURE, "♦6 püüdis ♣K", "♦6 caught ♣K", side="capture", also=("maker",),
                                 says=_MADE_CAUGHT))
            ranked.append(choice(S.CAPTURE, "♦6 püüdis (kaotas)", "♦6 caught (lost)", side="capture",
                                 opp="maker", says=_CAUGHT))
        if games is jann:
            ranked.append(choice(S.JANN, "Jänn", "Jänn", side="winner", also=("maker",), says=_MADE_WON))
            ranked.append(choice(S.JANN, "Jänn (kaotas)", "Jänn (lost)", side="winner", opp="maker", says=_WON))
        ranked.append(choice(S.KARVANE, "Karvane", "Karvane", side="winner", also=("maker",), says=_MADE_WON))
        ranked.append(choice(S.KARVANE, "Karvane (kaotas)", "Karvane (lost)", side="winner", opp="maker",
                             says=_WON))
        lists.append((("game", games), wrapped(ranked)))
    out = []
    if len(lists) == 2 and len(lists[0][1]) == len(lists[1][1]):
        for a, b in zip(lists[0][1], lists[1][1]):
            if a["label"] == b["label"]:
                a["when"] = ("game", tuple(rules.games))
                out.append(a)
            else:
                a["when"] = lists[0][0]
                b["when"] = lists[1][0]
                out += [a, b]
    else:
        for when, ranked in lists:
            for c in ranked:
                c["when"] = when
            out.extend(ranked)
    if cfg["all_pass_policy"] == "ulekula-ruutu":
        # all passed: no maker; the pair with more eyes, or a pokk
        out.append(choice(S.WIN, "Rohkem silmi", "More eyes", side="winner", says=_WON,
                          when=("game", (S.ULEKULA,))))
    return out


def _replay_results(S, rules, cfg):
    ranked = [choice(S.WIN, "Võit", "Won", side="winner", says=_WON),
              choice(S.JANN, "Jänn", "Jänn", side="winner", says=_WON,
                     when=("game", tuple(g for g in rules.games if g not in S._PITS or cfg["pits_jann_bonus"]))),
              choice(S.KARVANE, "Karvane", "Karvane", side="winner", says=_WON)]
    if cfg["pits_capture_is_karvane_win"] and S.VALGE_PITS in rules.games:
        ranked.append(choice(S.CAPTURE, "♦6 püüdis ♣K", "♦6 caught ♣K", side="capture", says=_CAUGHT,
                             when=("game", S._PITS)))
    return wrapped(ranked)


# what a side press or OK does, in the players' words (the screen shows it before the press,
# under the pair's name: at most 51 px each, tests/test_words.py)
_MADE_WON = ("tegi, võitis", "made, won")
_WON = ("võitis", "won")
_MADE = ("tegi", "made it")
_CAUGHT = ("püüdis", "caught it")
_MADE_CAUGHT = ("tegi, püüdis", "made it, ♦6")
_OTHER = ("muu", "other")
_WIN_SETS = {"result": "win"}  # what "X · võit" sets, one dict for every game (read only)
# the same, its button held: won with jänn (or karvane); after a sohk the innocent pair won
_HELD_JANN = ({"result": "jann"}, ("jänn", "jänn"))
_HELD_KARVANE = ({"result": "karvane"}, ("karvane", "karvane"))
_SOHK_WON = ("sohk", ("winner",))   # after a sohk the innocent pair won (the button names the maker)
