"""The new-match screen's header on CPython (nakk.ui.render with a stand-in framebuffer): the previous match's final score, bonuses included."""
import sys

from conftest import FIRMWARE, TESTS

sys.path.insert(0, FIRMWARE)
sys.path.insert(0, TESTS)
from nakk.drivers import font  # noqa: E402
from nakk.ui import render  # noqa: E402
from nakk.ui import flows as U  # noqa: E402
from test_font import StandInFB  # noqa: E402
from test_ui import play, started  # noqa: E402


class FB(StandInFB):
    def vline(self, x, y, h, c):
        self.fill_rect(x, y, 1, h, c)

    def rect(self, x, y, w, h, c):
        self.fill_rect(x, y, w, 1, c)
        self.fill_rect(x, y + h - 1, w, 1, c)
        self.fill_rect(x, y, 1, h, c)
        self.fill_rect(x + w - 1, y, 1, h, c)


def _small(a, b):
    """The header's right end as the renderer lays out "a:b" (nakk.ui.render Screen._small_score)."""
    fb = FB()
    x = 127 - font.width(b)
    font.text(fb, b, x, 0)
    x -= font.width(":") + 2
    font.text(fb, ":", x + 1, 0)
    x -= font.width(a)
    font.text(fb, a, x, 0)
    return [[fb.pixel(x, y) for x in range(86, 128)] for y in range(8)]


def test_the_new_match_header_shows_the_last_final_with_its_bonus():
    ui = started("saare-2020")
    # karvane to A twice (2 marks), then A reaches 16: the final has A's karvane bonus
    play(ui, "NEXT A NEXT NEXT A NEXT A NEXT NEXT A NEXT A NEXT A NEXT A A B")
    m = ui.table.match
    assert m.locked() and m.st.bonus[0] > 0, (m.st.score, m.st.bonus)
    final = [m.st.score[i] + m.st.bonus[i] for i in range(2)]
    play(ui, "LOK")
    assert ui.mode == U.START
    fb = FB()
    render.Screen(fb).draw(ui)
    got = [[fb.pixel(x, y) for x in range(86, 128)] for y in range(8)]
    assert got == _small(final[0], final[1])
    assert got != _small(m.st.score[0], m.st.score[1])       # not the score without the bonus
