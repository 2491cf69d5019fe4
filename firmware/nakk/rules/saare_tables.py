"""Saare mäng's settings table: the readings of the texts a club may choose, for the 2020 and the classic rules.

Data only. nakk.rules.saare reads it once, when it is imported, and lets it go (the
Setting objects stay; this module's code and names would cost the box's heap for
nothing). References ([SM-nn], [§3], [Lnn] ...) are explained in docs/rules.md.
"""

from nakk.rules.common import IntRange, Setting


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
