"""The pairing question on the box's screen (Ui.ask): PREV and NEXT held together say yes, anything else no; loaded only when one is asked."""
from nakk.compat import const

from nakk.drivers import buttons as K
from nakk.ui import words as W

# as nakk/ui/flows.py names them
_START = const(0)
_ASK = const(7)
_PAIR_MS = const(600)     # PREV's and NEXT's long presses this close: held together


def ask(ui, words, on_answer, timeout_ms, detail):
    """Ui.ask: the question over the start screen only (else False, nothing shown)."""
    if ui.mode != _START:
        return False
    ui._asked = [ui._screen(), on_answer, ui._ms(), timeout_ms, None, -1]
    ui._chord = None
    ui._chord_kept = False
    ui._held_c = None
    ui.idle = False
    ui.mode = _ASK
    ui._list(words, (W.HOLD_PN,))
    ui.detail = detail
    ui.version += 1
    return True


def event(ui, k, b, t):
    """A press while the question is up (k None: nobody answered in time): half of PREV+NEXT
    waits for the other half; anything else only answers no."""
    a = ui._asked
    if k == K.LONG and (b == K.PREV or b == K.NEXT):
        if a[4] is None:
            a[4] = t
            a[5] = b
            return
        if a[5] != b and K.span(a[4], t) <= _PAIR_MS:
            _end(ui, True)
            return
    _end(ui, False)


def _end(ui, yes):
    # the screen under the question back (or the one that fits the match now), then the answer
    screen, on_answer = ui._asked[0], ui._asked[1]
    ui._asked = None
    m = ui.table.match
    if screen is None or ui.table.pending is not None or (m.seq if m is not None else 0) != screen[0]:
        ui.resync()
    else:
        ui._put_back(screen)
    on_answer(yes)
