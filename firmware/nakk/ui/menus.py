"""The lists over the deal entry: the menu (long OK) and the penalty list (long NEXT), as items and what each does."""

from nakk.compat import const

from nakk.ui import words as W

# what a menu item does
REDEAL = const(0)     # a redeal, with the reason in the action's argument
FORFEIT = const(1)    # a side forfeits (its side button)
ABANDON = const(2)    # close a match started by mistake (nothing entered yet)
LANG = const(3)       # switch the language
SOUND = const(4)      # switch the beep
BACK = const(5)       # back to the deal entry


def menu(m, lang, sound, items, actions):
    """The menu over match m, into the lists items and actions: actions[i] = (what, argument)
    of items[i]."""
    if not m.st.over:
        rows = _redeal_rows(m.rules, lang)
        reasons = m.rules.redeal_reasons
        for i in range(len(reasons)):
            items.append(rows[i])
            actions.append((REDEAL, reasons[i][0]))
        items.append(W.FORFEIT)
        actions.append((FORFEIT, None))
        if not m.in_force:
            # nothing entered yet: a match started by mistake is closed, not forfeited
            items.append(W.ABANDON)
            actions.append((ABANDON, None))
    items.append(W.LANG)
    actions.append((LANG, None))
    items.append(W.SOUND_ON if sound else W.SOUND_OFF)
    actions.append((SOUND, None))
    items.append(W.BACK)
    actions.append((BACK, None))


DEAL = "deal"   # a penalty row's field for an offence that goes into the deal being entered

_ROWS = {}    # (ruleset name, lang or -1) -> rows made once: opening a list then makes no new strings


def _redeal_rows(rules, lang):
    key = (rules.name, lang)
    rows = _ROWS.get(key)
    if rows is None:
        rows = _ROWS[key] = [rules.redeal_word[lang] + ": " + r[1 + lang] for r in rules.redeal_reasons]
    return rows


def position(actions, what):
    """Where the first item that does `what` is (the cursor stays on a switch)."""
    for i in range(len(actions)):
        if actions[i][0] == what:
            return i
    return 0


def penalties(m, items, ids):
    """The offences of match m's ruleset, into the lists items (their words) and ids (each
    (offence id, field, value): the number an offence takes, one item per number, or None, None;
    field DEAL: an offence judged inside the deal being entered); none when it has none."""
    key = (m.rules.name, -1)
    rows = _ROWS.get(key)
    if rows is None:
        rows = _ROWS[key] = ([], [])
        for o in m.rules.offences:
            if len(o) > 3:
                field, low, high = o[3]
                for v in range(low, high + 1):
                    rows[0].append(("%s: %d" % (o[1], v), "%s: %d" % (o[2], v)))
                    rows[1].append((o[0], field, v))
            else:
                rows[0].append((o[1], o[2]))
                rows[1].append((o[0], None, None))
        for o in m.rules.deal_offences:
            rows[0].append((o[1], o[2]))
            rows[1].append((o[0], DEAL, None))
    for i in range(len(rows[0])):
        items.append(rows[0][i])
        ids.append(rows[1][i])
