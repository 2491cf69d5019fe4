"""The judge's assignment in the players' words, for the start screen: the game, the table, the sides, every setting that differs from the game's defaults.

Imported by nakk.ui.start when an assignment is offered and let go after it: the words
of every setting of every game are a few KB of heap where modules are not frozen.
"""


def lines(a, lang):
    """The judge's assignment as the start screen lists it, one line a row: the game; table,
    round (and room); each side's name (and team); each setting that differs from the game's
    default, in words; the boards of a Turniirisasku room. Made when it is offered, not per
    frame."""
    from nakk import rules
    try:
        r = rules.get(a.get("ruleset"))
    except KeyError:
        return [str(a.get("ruleset", "?"))]
    out = [r.title[lang]]
    where = (("Laud %d", "Table %d"), ("voor %d", "round %d"), ("tuba %d", "room %d"))
    parts = []
    for i, key in enumerate(("table", "round", "room")):
        if key in a:
            parts.append(where[i][lang] % a[key])
    if parts:
        out.append(" \u00b7 ".join(parts))
    for sd in a.get("sides", ()):
        line = "%s: %s" % (sd.get("id", "?"), sd.get("name", sd.get("id", "?")))
        if sd.get("team") and sd.get("team") != sd.get("name"):
            line += " (%s)" % sd["team"]
        out.append(line)
    settings = a.get("settings") or {}
    for s in r.settings:
        if s.key in settings and settings[s.key] != s.default:
            out.append(setting_words(s.key, settings[s.key], lang))
    b = a.get("boards")
    if b:
        out.append(("Jaotused %d\u2013%d", "Boards %d\u2013%d")[lang] % (b[0], b[1]))
    return out


def setting_words(key, value, lang):
    """A setting and its value in the players' words: "Sohk: kaotab partii"."""
    name = key
    for row in _SETTING_WORDS:
        if row[0] == key:
            name = row[1 + lang]
    if value is True or value is False:
        v = _YES_NO[0 if value else 1][lang]
    elif isinstance(value, int):
        v = str(value)
    else:
        v = value
        for row in _VALUE_WORDS:
            if row[0] == value:
                v = row[1 + lang]
    return "%s: %s" % (name, v)


_YES_NO = (("jah", "yes"), ("ei", "no"))
# (setting, Estonian, English): what the players read on the assignment (every setting a judge
# may change; one fixed by its ruleset is never shown)
_SETTING_WORDS = (
    ("target", "Mäng kuni", "Played to"),
    ("cap_deal_points_at_16", "Nakid kuni sihini", "Nakks capped"),
    ("pokk_replay_bonus", "Poki kordus", "Pokk replay"),
    ("pokk_replay_keeps_maker", "Kordus, sama tegija", "Replay, same maker"),
    ("pits_jann_bonus", "Jänn pitsis", "Jänn in pits"),
    ("pits_capture_is_karvane_win", "\u2666" + "6 püüab: võit", "\u2666" + "6 catch wins"),
    ("beaten_bonus_applies_to_pits_and_blind", "+2 pitsis, pimedas", "+2 in pits, blind"),
    ("karvane_bonus", "Karvase preemia", "Karvane bonus"),
    ("prillid_counts_penalty_nakks", "Prillid: karistused", "Prillid: penalties"),
    ("sohk_policy", "Sohk", "Sohk"),
    ("forfeit_end_bonuses", "Loobudes lisad", "Forfeit bonuses"),
    ("all_pass_policy", "Kõik pass", "All pass"),
    ("card_show_penalty", "Kaart näidatud", "Card shown"),
    ("multi_card_show_penalty", "Mitu kaarti", "Cards shown"),
    ("multi_card_incident_penalty", "Mitu kaarti korraga", "Cards at once"),
    ("shuffle_penalty", "Segamine", "Shuffling"),
    ("noise_deduction", "Lärm", "Noise"),
    ("redeal_passes_shuffle", "Uus töö, uus segaja", "Redeal, next shuffles"),
    ("misdeal_twice_penalty", "Kaks vale jagamist", "Misdealt twice"),
    ("boards", "Jaotusi", "Boards"),
    ("pokk_points_to_non_maker", "Pokk", "Pokk"),
    ("ulekula_points", "Üleküla", "All passed"),
    ("judge_min_points", "Rikkumine, vähemalt", "Offence, at least"),
    ("cancel_other_room_on_offence", "Rikkumine, teine tuba 0", "Offence, other room 0"),
    ("low_point_rule", "Low", "Low"),
    ("end_tie_without_bidder", "Viik lõpus", "End tie"),
)
_VALUE_WORDS = (
    ("flat", "+2", "+2"), ("per-pokk", "+2 iga pokk", "+2 each pokk"), ("none", "ei", "none"),
    ("per-mark", "iga märk", "per mark"), ("once", "üks kord", "once"),
    ("lose-deal", "kaotab mängu", "loses the deal"), ("forfeit-partii", "kaotab partii", "loses the partii"),
    ("all", "kõik", "all"), ("karvane", "karvane", "karvane"),
    ("void", "uus töö", "redeal"), ("ulekula-ruutu", "üleküla ruutu", "üleküla ruutu"),
    ("redeal-same-dealer", "sama jagaja", "same dealer"), ("stick-the-dealer", "jagaja pakub", "dealer bids"),
    ("per-incident", "korra eest", "per incident"), ("per-card", "kaardi eest", "per card"),
    ("played-by", "käija", "played by"), ("captured-by", "võtja", "taken by"),
    ("continue", "mäng jätkub", "play on"), ("higher-previous", "eelmine kõrgem", "higher before"),
    ("shared", "jagatud", "shared"),
)
