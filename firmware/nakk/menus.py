"""The lists over the deal entry: the menu (long OK) and the penalty list (long NEXT), as items and what each does."""

from nakk.compat import const

from nakk import words as W

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
        for r in m.rules.redeal_reasons:
            items.append(W.REDEAL[lang] + r[1 + lang])
            actions.append((REDEAL, r[0]))
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


def position(actions, what):
    """Where the first item that does `what` is (the cursor stays on a switch)."""
    for i in range(len(actions)):
        if actions[i][0] == what:
            return i
    return 0


def penalties(m, items, ids):
    """The offences of match m's ruleset, into the lists items (their words) and ids; none
    when it has none."""
    for o in m.rules.offences:
        items.append((o[1], o[2]))
        ids.append(o[0])
