"""One match's deals as the box recorded them, folded again from the stored event bytes, in both languages.

The hall's match page is for a player who checks a disputed number: every
row comes from the result's exact stored events (verify.split + nakk.event
parse) folded one at a time with nakk.match, never from totals someone typed.
Words for games, results, offences and redeal reasons come from the ruleset
itself (its deal form and tables), so a new ruleset needs nothing here.
"""

import re

from nakk import rules as rules_pkg
from nakk.event import EventError, SIDES, parse
from nakk.match import Match

from nakk_host.verify import split

# Words for event fields that hold a side (the side buttons' meaning), (et, en).
_SIDE_FIELDS = {
    "maker": ("tegija", "maker"), "winner": ("võitja", "winner"), "capture": ("♦6 püüdis ♣K", "♦6 caught ♣K"),
    "sohk": ("sohk", "cheat"), "bidder": ("pakkuja", "bidder"), "offender": ("rikkuja", "offender"),
}
_KIND = {
    "setup": ("Algus", "Start"), "deal": ("Jagamine", "Deal"), "redeal": ("Ümberjagamine", "Redeal"),
    "penalty": ("Karistus", "Penalty"), "adjust": ("Parandus", "Adjustment"), "cancel": ("Tühistus", "Undo"),
    "forfeit": ("Loobumine", "Forfeit"), "close": ("Lõpetatud", "Closed"), "confirm": ("Kinnitan", "Confirmed"),
    "dispute": ("Vaidlustan", "Disputed"), "synced": ("Kohtunik sai", "Judge received"),
}
_ENDED = {
    "target": ("siht täis", "reached the target"), "penalty": ("karistusega siht täis", "reached the target by a penalty"),
    "boards": ("kõik jaotused mängitud", "all boards played"), "forfeit": ("loobumine", "forfeit"),
    "closed": ("kohtunik lõpetas", "closed by the judge"), "sohk": ("sohk", "cheating"),
    "disqualified": ("diskvalifitseeritud", "disqualified"), "shared": ("jagatud võit", "shared win"),
}


def _both(et, en=None):
    return (et, et if en is None else en)


_SIDE_WORD = re.compile(r"\b([ABC])\b")   # a side named by its letter alone


def _side_label(names, side):
    """'A Mets/Tamm' for side id 'A' (or the id alone when the side has no name)."""
    try:
        i = SIDES.index(side)
    except ValueError:
        return str(side)
    name = names[i] if i < len(names) else ""
    return side if not name or name == side else "%s %s" % (side, name)


def _lookup(table, ident):
    for row in table:
        if row[0] == ident:
            return (row[1], row[2])
    return _both(str(ident))


def _deal_words(rules, st, cfg, ev, names, fresh):
    """The deal in the players' words, as the ruleset says it (its describe hook: what the box's undo
    question names), both languages, each side named with its pair: "Trump, A Mets/Tamm tegi ja võitis".

    fresh: the form of a match at its start, whose steps name every game (a pokk replay's form
    fixes the game); the deal's number is the page's own column, so the ruleset's is left off."""
    try:
        steps = list(fresh) + list(rules.form(st, cfg)[1])
    except Exception:           # a form that cannot be built: the ruleset names the raw values
        steps = list(fresh)
    out = []
    for lang in (0, 1):
        try:
            text = rules.describe(ev, lang, steps, 0)
        except Exception:
            text = ", ".join("%s: %s" % (k, ev[k]) for k in sorted(ev) if k not in ("seq", "type"))
        else:
            text = text.split(": ", 1)[1] if ": " in text else text
        out.append(_SIDE_WORD.sub(lambda m: _side_label(names, m.group(1)), text))
    if getattr(st, "chain", 0):
        out = ["pokk'i kordus: " + out[0], "pokk replay: " + out[1]]
    return (out[0], out[1])


def _event_words(rules, st, cfg, ev, names, fresh):
    t = ev["type"]
    if t == "deal":
        return _deal_words(rules, st, cfg, ev, names, fresh)
    if t == "redeal":
        return _lookup(rules.redeal_reasons, ev["reason"])
    if t == "penalty":
        what = _lookup(rules.offences, ev["offence"])
        who = _side_label(names, ev["by"])
        extra = (", %d kaarti" % ev["cards"], ", %d cards" % ev["cards"]) if "cards" in ev else ("", "")
        return ("%s%s: %s" % (what[0], extra[0], who), "%s%s: %s" % (what[1], extra[1], who))
    if t == "adjust":
        who = _side_label(names, ev["side"])
        return ("%s %+d (%s)" % (who, ev["points"], ev["reason"]), "%s %+d (%s)" % (who, ev["points"], ev["reason"]))
    if t == "cancel":
        return ("võtab tagasi sündmuse %d" % ev["target"], "takes back event %d" % ev["target"])
    if t in ("forfeit", "confirm", "dispute"):
        who = _side_label(names, ev["by"])
        reason = (" (%s)" % ev["reason"]) if ev.get("reason") else ""
        return (who + reason, who + reason)
    if t == "close":
        return (ev["reason"], ev["reason"])
    return ("", "")


def describe(raw):
    """The match page's content, folded again from a result's stored bytes.

    Returns a dict: ruleset, title (et, en), unit (et, en), sides (names),
    setup (the setup event), rows (one per event after the setup: seq, kind
    (et, en), words (et, en), delta (points per side this event gave, or
    None), totals (per side after it), marks, pokk chain after it, deal
    number, cancelled: True when a later cancel took it back), summary
    (Match.summary() at the end: final, bonus, winner, ...), ended (et, en),
    problem (plain words when the bytes stop folding, else None)."""
    m = Match()
    rows = []
    by_seq = {}
    problem = None
    names = []
    fresh = []
    n = 0
    for line in split(raw):
        n += 1
        try:
            ev = parse(line)
        except (EventError, UnicodeError) as e:
            problem = "event %d cannot be read: %s" % (n, e)
            break
        before = list(m.st.score) if m.st is not None else None
        st, cfg, rules = m.st, m.cfg, m.rules
        words = ("", "")
        if m.setup is not None and ev.get("type") != "setup":
            try:
                words = _event_words(rules, st, cfg, ev, names, fresh)
            except (KeyError, TypeError, ValueError):
                words = _both(" ".join("%s=%s" % (k, ev[k]) for k in sorted(ev) if k not in ("seq", "type")))
        deals_before = st.deals if st is not None else 0
        try:
            m.apply(ev)
        except EventError as e:
            problem = "event %d does not fold: %s" % (n, e)
            break
        if ev["type"] == "setup":
            names = [s.get("name", s["id"]) for s in ev["sides"]]
            try:
                fresh = m.rules.form(m.rules.start(ev, m.cfg), m.cfg)[1]
            except Exception:
                fresh = []
            continue
        after = m.st
        delta = None
        if before is not None and ev["type"] != "cancel":
            d = [after.score[i] - before[i] for i in range(len(before))]
            if any(d):
                delta = d
        row = {
            "seq": ev["seq"], "type": ev["type"], "kind": _KIND.get(ev["type"], _both(ev["type"])),
            "words": words, "delta": delta, "totals": list(after.score), "marks": list(after.marks),
            "chain": getattr(after, "chain", 0), "cancelled": False,
            "deal": after.deals if ev["type"] == "deal" and after.deals != deals_before else None,
        }
        if ev["type"] == "cancel":
            target = by_seq.get(ev["target"])
            if target is not None:
                target["cancelled"] = True
        rows.append(row)
        by_seq[ev["seq"]] = row
    out = {"rows": rows, "problem": problem, "setup": m.setup, "summary": m.summary(), "sides": names}
    if m.rules is not None:
        out["ruleset"] = m.rules.name
        out["title"] = m.rules.title
        out["unit"] = m.rules.unit
        out["side_ids"] = SIDES[:m.rules.sides]
        out["marks_word"] = getattr(m.rules, "marks_word", "marks")
    else:
        out["ruleset"] = None
        out["title"] = _both("?")
        out["unit"] = _both("")
        out["side_ids"] = ()
        out["marks_word"] = "marks"
    out["bonus_parts"] = _bonus_parts(m)
    ended = out["summary"].get("ended")
    if ended and ended not in _ENDED and m.rules is not None:
        out["ended"] = _both(m.rules.ending(ended)) if hasattr(m.rules, "ending") else _both(str(ended))
    else:
        out["ended"] = _ENDED[ended] if ended else None
    return out


def _bonus_parts(m):
    """The end bonuses per side: [(words (et, en), points)] for a side with a bonus, [] for one without.

    The rules know what a bonus is made of; the page names the side's marks
    with the ruleset's own word for them (Saare mäng: karvane) beside the total."""
    st = m.st
    if st is None or not any(st.bonus):
        return []
    word = getattr(m.rules, "marks_word", "marks")
    out = []
    for i in range(st.sides):
        if not st.bonus[i]:
            out.append([])
            continue
        what = ("%s ×%d" % (word, st.marks[i])) if st.marks[i] else ""
        out.append([((what or "boonus", what or "bonus"), st.bonus[i])])
    return out


def titles():
    """Every ruleset's title (et, en) by id, for pages that list results."""
    return dict(zip(rules_pkg.NAMES, rules_pkg.TITLES))
