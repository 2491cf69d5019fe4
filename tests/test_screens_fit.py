"""Words that fit (issue 26, point 3): every screen of the deal entry that tests/test_entries.py's walk reaches,
drawn by nakk.render on CPython (a stand-in framebuffer), with every string whole in its place and
nothing drawn touching anything beside it; what each button does in sight on pokk replays and judged
offences too; a message on the entry (an undo's "Tühistatud", the wake-up) leaves the answer box be."""
import sys

from conftest import FIRMWARE, TESTS

sys.path.insert(0, FIRMWARE)
sys.path.insert(0, TESTS)
from nakk.drivers import font  # noqa: E402
from nakk.ui import render  # noqa: E402
from nakk.ui import flows as U  # noqa: E402
from nakk.ui import words as W  # noqa: E402
import test_entries as E  # noqa: E402
from test_render_words import FB  # noqa: E402
from test_ui import play, started  # noqa: E402


class Drawn:
    """font.text calls of one frame: (string, left x, ink width, y, max_w)."""

    def __init__(self):
        self.calls = []
        self._text = font.text

    def __enter__(self):
        def text(fb, s, x, y, color=1, align=font.LEFT, max_w=0, scale=1, keep=True):
            w = font.width(s, scale) if not isinstance(s, (bytes, bytearray)) else font.width(s)
            left = x - w // 2 if align == font.CENTER else x - w if align == font.RIGHT else x
            self.calls.append((s, left, w, y, max_w))
            return self._text(fb, s, x, y, color, align, max_w, scale, keep)
        font.text = text
        return self

    def __exit__(self, *a):
        font.text = self._text


def draw(ui, saving=0):
    with Drawn() as d:
        render.Screen(FB()).draw(ui, saving)
    return d.calls


def problems(ui, calls=None):
    """What is wrong with the screen of ui (drawn as `calls`, or now): strings cut short, text
    touching text beside it."""
    out = []
    if calls is None:
        calls = draw(ui)
    for s, left, w, y, max_w in calls:
        if max_w and isinstance(s, str) and w > max_w:
            out.append("cut: %r in %d px (needs %d)" % (s, max_w, w))
    rows = {}
    for s, left, w, y, max_w in calls:
        if not (max_w and w > max_w):
            rows.setdefault(y, []).append((left, left + w, s))
    for y in rows:
        r = sorted(rows[y])
        for a, b in zip(r, r[1:]):
            if b[0] <= a[1]:       # no blank column between a's last ink and b's first
                out.append("touching at y %d: %r and %r" % (y, a[2], b[2]))
    return out


def test_every_screen_of_every_form_fits_uncut_and_untouched():
    seen = {}
    bad = []

    def each(ui):
        key = (ui.table.match.rules.name, ui.lang, ui.word(ui.title), ui.choice_text(), ui.says(), ui.ok_says(),
               ui.banner, tuple(ui.tally(i) for i in range(ui.table.match.rules.sides)),
               tuple(ui.rest_left(i) for i in range(ui.table.match.rules.sides)), len(ui.items))
        if key in seen:
            return
        seen[key] = 1
        calls = draw(ui)
        for p in problems(ui, calls):
            bad.append((key[0], key[2], key[3], p))
        if ui.says() is not None and ui.tally(0) < 0:
            # what a side button does is in sight, banner or not (a pokk replay, an offence;
            # a tally shows each team's count instead, and "OK+n")
            said = [c for c in calls if c[0] == ui.word(ui.says()) and c[3] == 8]
            assert said, key

    for lang in (W.ET, W.EN):
        for name, start in E.FORMS:
            def started_(start=start):
                ui = start()
                ui.lang = lang
                return ui
            E._walk(name, started_, [], [], each)
            E._offences_in(name, started_)
    E._EACH[0] = None
    assert len(seen) > 200, len(seen)
    assert not bad, bad[:20]
    # the walk went through pokk replays and judged offences with their banner up
    assert [k for k in seen if k[6] and k[6].startswith("Pokk")] and [k for k in seen if k[6] and "Rikkus" in k[6]]


def test_schmier_tallies_fit_with_long_team_names():
    """A tally's names line (each team's count, "OK+n", on "Mängupunkt viik" "+n" for each team)
    with names too long to share a column: the counts alone, nothing touching; a button held
    ("hoia: +2") with the bid's line up."""
    from nakk.drivers import buttons as K
    from test_ui import box
    sides = [{"id": "A", "name": "Šokk/Žukov"}, {"id": "B", "name": "Öö/Ärni"}, {"id": "C", "name": "Mäe"}]
    bad = []
    seen = 0
    for lang in (W.ET, W.EN):
        for keys in ("", "B", "LB", "B C", "LB LC", "NEXT B", "PREV C", "B NEXT C", "LC LC"):
            ui = box()
            ui.offer({"ruleset": "schmier", "table": 1, "round": 1, "first_shuffler": 0, "sides": sides})
            ui.lang = lang
            play(ui, "OK A " + keys)                 # the assignment taken, A bids 3, the points so far
            assert ui.mode == U.ENTRY and ui.deal.step == 1, keys
            for _ in range(len(ui.items)):
                bad.extend((keys, ui.choice_text(), p) for p in problems(ui))
                seen += 1
                play(ui, "NEXT")
            ui.handle(K.event(K.PRESS, K.B, ui.test_clock.ticks_ms() + 1000))
            if ui.holding() == K.B:                  # "hoia: +2" while B's button is down
                calls = draw(ui, 2)
                assert [c for c in calls if c[0] == ui.word(ui.held_says()) and c[3] == 0], keys
                bad.extend((keys, "held", p) for p in problems(ui, calls))
    assert seen > 40 and not bad, bad[:10]


def test_a_message_on_the_entry_leaves_the_answer_box_and_the_buttons_words():
    ui = started("saare-2020")
    play(ui, "A LPREV OK")                           # a deal, undone: "Tühistatud"
    assert ui.msg == W.UNDONE and ui.mode == U.ENTRY
    calls = draw(ui)
    assert [c for c in calls if c[0] == "Tühistatud" and c[3] == 0]           # in the header
    assert [c for c in calls if c[0] == ui.choice_text() and c[3] == 56]      # the answer, as without it
    assert [c for c in calls if c[0] == ui.word(ui.says()) and c[3] == 8]     # what A and B do
    ui.test_clock.advance(U.IDLE_MS)
    assert ui.tick() and ui.idle
    play(ui, "OK")                                   # wakes the box: says one more press is needed
    assert not ui.idle and ui.msg == W.WOKE and ui.deal.step == 0
    calls = draw(ui)
    assert [c for c in calls if c[0] == W.WOKE[0] and c[3] == 0]
    assert [c for c in calls if c[0] == ui.choice_text() and c[3] == 56]
    assert play(ui, "A") == 1                        # the next press does what the screen says
