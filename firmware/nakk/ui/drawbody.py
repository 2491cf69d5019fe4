"""The body's other screens and the foot, as nakk.ui.render's Screen draws them: a list or a
question over pages 1-6, and page 7 (the step being entered with its answer under the cursor, a
message, a stuck button). A base class of Screen only: its attributes are Screen's. Touches the
frame Screen is given, through nakk.drivers.font."""
from nakk.compat import const

from nakk.drivers import font
from nakk.drivers.buttons import NAMES as _BUTTONS
from nakk.ui import flows as U
from nakk.ui import words as W

# the screen's geometry, as in nakk/ui/render.py
_W = const(128)
_ROWS = const(4)             # list lines in the body


class _Body:
    def _list(self, ui):
        fb = self.fb
        y = 9
        rows = _ROWS
        if ui.detail:
            rows -= 1
            if ui.detail is self._detail:
                # drawn ahead (keep_detail): the same ink, one or two lines
                fb.blit(self._detail_fb, 0, y, 0)
                if self._detail_two:
                    y += 10
                    rows -= 1
                    fb.blit(self._detail_fb2, 0, y, 0)
            else:
                y, rows = self._detail_lines(fb, ui.detail, y, rows)
            y += 10
        items = ui.items
        n = len(items)
        top = 0
        if n > rows:
            top = ui.cursor - rows // 2
            if top < 0:
                top = 0
            if top > n - rows:
                top = n - rows
        for r in range(rows):
            i = top + r
            if i >= n:
                break
            if i == ui.cursor:
                fb.fill_rect(0, y - 1, _W, 10, 1)
                font.text(fb, ui.word(items[i]), 4, y, 0, max_w=_W - 8)
            else:
                font.text(fb, ui.word(items[i]), 4, y, max_w=_W - 8)
            y += 10
        if n > rows:
            # scroll marks
            if top > 0:
                font.text(fb, "\u2191", 127, 9, align=font.RIGHT)
            if top + rows < n:
                font.text(fb, "\u2193", 127, 47, align=font.RIGHT)

    def _foot(self, ui, m):
        fb = self.fb
        mode = ui.mode
        if ui.faults and ui.msg is None:
            # a button held down too long: said until it is released (a cluster
            # button has no ring to show it), over anything else on this line
            self._foot_word = None
            self._stuck(ui)
            return
        if mode == U.ENTRY and ui.msg is None and not ui.idle:
            # left of the answer: what OK does on it ("OK: muu"), else the step's name (a step
            # named after an earlier answer keeps it: "Ruutu" over its results; its OK goes up)
            ok = ui.ok_says() if self._ok_head(ui) is None else None
            word = ui.word(ok) if ok is not None else ui.word(ui.title)
            # the key: the step's word, OK's or not, the answer, arrows or not
            k1 = ok is not None
            k2 = ui.choice_text()
            k3 = len(ui.items) > 1
            self._key(word, k1, k2, k3)
            e = self._kept_page(1, 7)
            if e is not None:
                # this step with this answer was drawn before: its page as it was
                self._foot_word = word
                self._foot_x = e[6]
                return
            if word == self._foot_word:
                # the same step: its name stays, the answer box is drawn over in full
                self._choice(ui, self._foot_x)
                self._keep_page(1, 7, self._foot_x)
                return
            self._clear(7, 1, 0)
            x = 0
            if ok is not None:
                x = font.text(fb, "OK:", 0, 56) + 2
            x += font.text(fb, word, x, 56, max_w=(62 if ok is not None else 44) - x) + 3
            self._foot_word = word
            self._foot_x = x
            self._choice(ui, x)
            self._keep_page(1, 7, x)
            return
        self._foot_word = None
        self._clear(7, 1, 0)
        lang = ui.lang
        if ui.msg is not None:
            self._clear(7, 1, 1)
            x = font.text(fb, ui.word(ui.msg), 1, 56, 0, max_w=_W - 2)
            if ui.msg2:
                font.text(fb, ui.msg2, x + 2, 56, 0, max_w=_W - x - 3, keep=False)
            return
        if ui.idle:
            return
        if mode == U.END:
            self._answers(ui, m)
        elif mode == U.DONE:
            font.text(fb, W.JUDGE[lang], 64, 56, align=font.CENTER)
        elif mode == U.START:
            font.text(fb, "OK \u2192", 127, 56, align=font.RIGHT)
        elif mode == U.PENALTY or mode == U.MENU:
            # the hint says what takes the item under the cursor: a side button, or OK
            font.text(fb, "\u2190 \u2192  A/B" if ui.takes_side() else "\u2190 \u2192  OK", 127, 56,
                      align=font.RIGHT)
        elif mode == U.UNDO:
            font.text(fb, "OK", 127, 56, align=font.RIGHT)

    def _stuck(self, ui):
        """Inverse: "Button stuck: " and the name of each button in fault, one by one (no join)."""
        fb = self.fb
        self._clear(7, 1, 1)
        # laid out as the message "Button stuck: OK" was, so one stuck button reads the same after it
        x = font.text(fb, W.STUCK[ui.lang], 1, 56, 0, max_w=_W - 2, keep=False) + 2
        faults = ui.faults
        names = _BUTTONS
        for b in range(len(names)):
            if faults & (1 << b):
                if x > _W - 8:
                    break
                x += font.text(fb, names[b], x, 56, 0, max_w=_W - 1 - x, keep=False) + 4

    def _choice(self, ui, x):
        """The answer under the cursor, inverse, with arrows when there are others."""
        fb = self.fb
        n = len(ui.items)
        fb.fill_rect(x, 56, _W - x, 8, 1)
        if n > 1:
            font.text(fb, "\u2190", x + 1, 56, 0)
            font.text(fb, "\u2192", 127, 56, 0, align=font.RIGHT)
        font.text(fb, ui.choice_text(), (x + 128) // 2, 56, 0, align=font.CENTER, max_w=_W - x - 16)

    def _answers(self, ui, m):
        """End of match: confirm or dispute under the cursor, and who has answered."""
        fb = self.fb
        x = 0
        st = m.st
        for i in range(st.sides):
            x += font.text(fb, "ABC"[i], x, 56)
            if i in m.confirmed:
                x += font.text(fb, "\u2713", x + 1, 56) + 1
            elif i in m.disputed:
                x += font.text(fb, "!", x + 1, 56) + 1
            else:
                x += font.text(fb, "?", x + 1, 56) + 1
            x += 4
        self._choice(ui, x + 2)
