"""The score screen's regions, drawn: the head (deal number, who shuffles, "saving", results
waiting), the names line (side names, what each side button says), the score (32 px digits,
dividers, marks), a list or a question over the body, and the foot (the step being entered and
its answer, a message, a stuck button). A base class of nakk.ui.render's Screen only: its
attributes, kept pages and signatures are Screen's (render.py), which decides what is drawn
again. Touches only the frame Screen is given, through nakk.drivers.font."""
from nakk.compat import const

from nakk.drivers import font
from nakk.drivers.buttons import NAMES as _BUTTONS
from nakk.ui import flows as U
from nakk.ui import words as W

# the screen's geometry, as in nakk/ui/render.py
_W = const(128)
_ROWS = const(4)             # list lines in the body
_SAVE_X = const(60)          # the "saving" box: x 60-127 of the head
_SAVE_W = const(68)
_DIGITS_Y = const(18)        # the score's 32 px digits
_FOOT_WORD = const(60)       # the step's word (or OK's) left of the answer box: up to x 60


class Regions:
    def _head(self, ui, m, saving, waiting, listed):
        fb = self.fb
        self._clear(0, 1, 0)
        lang = ui.lang
        if listed:
            font.text(fb, ui.word(ui.title), 0, 0, max_w=84)
            if m is not None and m.st is not None:
                self._small_score(m, 127)
        elif m is not None and m.st is not None and m.st.over:
            # the match is over: who won, in the header
            st = m.st
            if st.winner is not None:
                x = font.text(fb, W.WINNER[lang], 0, 0)
                sd = m.setup["sides"][st.winner]
                font.text(fb, sd.get("name", sd["id"]), x, 0, max_w=56 - x)
            else:
                font.text(fb, W.DRAW[lang] if st.ended in m.rules.draws else W.OVER[lang], 0, 0, max_w=56)
        elif ui.mode == U.ENTRY and ui.msg is not None and not ui.faults:
            # a message on the deal entry goes here, inverse: the answer box and what each
            # button does (the lines the next press acts on) stay in sight (a stuck button's
            # message stays on the bottom line, where its line follows it)
            self._clear(0, 1, 1)
            x = font.text(fb, ui.word(ui.msg), 1, 0, 0, max_w=_W - 2)
            if ui.msg2:
                font.text(fb, ui.msg2, x + 3, 0, 0, max_w=_W - x - 4, keep=False)
        elif ui.mode == U.ENTRY and ui.banner is not None and not ui.idle and not saving:
            # the ruleset's line about this deal (a pokk replay, a sohk, a judged offence, the
            # bid, another board) in place of the deal's number: the names line keeps saying
            # what each button does (under the "saving" or "hoia" box, the deal's number)
            font.text(fb, ui.banner, 64, 0, align=font.CENTER, max_w=_W)   # a few a match: kept
        elif m is not None and m.st is not None:
            st = m.st
            x = font.text(fb, m.rules.counter_word[lang], 0, 0) + 4
            left = x + font.text(fb, m.rules.count(st), x, 0) + 6
            if not st.over:
                seat = W.seat_name(st.shuffler, st.sides)
                x = 127 - font.width(seat)
                if not saving or x - 2 - self._shuf_w[lang] < _SAVE_X:   # else all under the box
                    font.text(fb, seat, x, 0)
                    font.text(fb, W.SHUFFLES[lang], x - 2, 0, align=font.RIGHT)
                ok = self._ok_head(ui)
                if ok is not None and not saving and not waiting:
                    # a step named after an earlier answer (the game over its results) keeps
                    # its name on the bottom line: what OK does goes here, between the
                    # deal's number and the shuffler, when it fits
                    word = ok[lang]
                    right = x - 2 - self._shuf_w[lang] - 6
                    w = font.width("OK:") + 1 + font.width(word)
                    if w <= right - left:
                        x = (left + right - w) // 2
                        x += font.text(fb, "OK:", x, 0) + 1
                        font.text(fb, word, x, 0)
        if waiting:
            # results on flash waiting for the judge: an inverse "↑n" in the middle
            # (the box grows to the right past 9: a full box holds 160 of them, and dark ink
            # past its edge would not show)
            aw = font.width("\u2191")
            fb.fill_rect(56, 0, max(16, aw + font.width(waiting) + 3), 8, 1)
            font.text(fb, "\u2191", 57, 0, 0)
            font.text(fb, waiting, 57 + aw + 1, 0, 0)
        if saving == 2 and ui.held_says() is not None:
            # a side button down whose LONG would enter its held answer: say what holding it
            # does, in the saving box's place (drawn in place: a rare frame, no box kept)
            fb.fill_rect(_SAVE_X, 0, _SAVE_W, 8, 1)
            word = ui.word(ui.held_says())
            x = 94 - (font.width(W.HOLD[lang]) + 3 + font.width(word)) // 2   # centred as "salvestan"
            x += font.text(fb, W.HOLD[lang], x, 0, 0) + 3
            font.text(fb, word, x, 0, 0, max_w=_W - 1 - x)
        elif saving:
            box = self._saving[lang]
            if box is not None and self.buf is not None:
                self.buf[_SAVE_X:_W] = self._saving_bytes[lang]   # the box covers x 60-127: a copy is a blit
            elif box is not None:
                fb.blit(box, _SAVE_X, 0)
            else:
                fb.fill_rect(_SAVE_X, 0, _SAVE_W, 8, 1)
                font.text(fb, W.SAVING[lang], 94, 0, 0, align=font.CENTER)

    def _ok_head(self, ui):
        """What OK does on a deal-entry step labelled with an earlier answer (its name stays on
        the bottom line, so this goes in the header), or None."""
        if ui.mode != U.ENTRY or ui.idle or not ui.items or ui.banner is not None:
            return None          # (a banner has the header: OK's words go on the bottom line)
        d = ui.deal
        if d.steps[d.step].get("named") is None:
            return None
        return ui.ok_says()

    def _small_score(self, m, right):
        fb = self.fb
        st = m.st
        x = right
        for i in range(st.sides - 1, -1, -1):
            # a finished match: its final score, end bonuses included (as its score screen said)
            v = st.score[i] + st.bonus[i] if st.over else st.score[i]
            x -= font.width(v)
            font.text(fb, v, x, 0)
            if i:
                x -= font.width(":") + 2
                font.text(fb, ":", x + 1, 0)

    def _names(self, ui, m):
        fb = self.fb
        if m is None or m.st is None:
            return
        st = m.st
        n = st.sides
        sides = m.setup["sides"]
        col = _W // n
        says = None
        entry = ui.mode == U.ENTRY and not ui.idle
        if entry:
            says = ui.says()
            if says is not None:
                says = says[ui.lang]
                says_w = font.width(says)
        # each width measured once a frame, and only when drawn: a call costs ~65 µs on the
        # Pico (an int's ~150)
        plus_w = -1
        colon_w = -1
        for i in range(n):
            cx = col * i + col // 2
            name = sides[i].get("name", sides[i]["id"])
            name_w = -1
            # what the side's marks bring it at the end (Saare mäng: karvane +1 each) while
            # the match is played; the end bonuses it got, once it is over
            bonus = st.bonus[i] if st.over else m.rules.mark_bonus(st, m.cfg, i)
            end = col * (i + 1) - 1            # the column's right edge
            t = ui.tally(i) if entry else -1
            if bonus and (says is not None or t >= 0):
                bonus_w = font.width(bonus)
                if plus_w < 0:
                    plus_w = font.width("+")
                if says is not None:
                    name_w = font.width(name)
                    if name_w + says_w + bonus_w + plus_w + 10 > col:
                        # the button's words and the mark do not both fit: the words win (they
                        # say what the next press does); the mark is back on the idle screen
                        bonus = 0
                if bonus:
                    # beside what the button says: "+n" at the column's edge, the words before it
                    end -= bonus_w
                    font.text(fb, bonus, end, 8)
                    end -= plus_w + 1
                    font.text(fb, "+", end, 8)
                    end -= 3
            if t >= 0:
                # a tally: each team's count beside its name ("A 2"), and beside the
                # side OK gives the rest to, how many that is ("B 1 OK+3"); on "Mängupunkt
                # viik", beside each other team what its button gives ("C 0 +3")
                r = ui.rest_left(i)
                ok = "OK+" if r >= 0 else "+"
                if r < 0:
                    r = ui.rest_left(i, False)
                w = font.width(t)
                if r >= 0:
                    w += 3 + font.width(ok) + 1 + font.width(r)
                name_w = font.width(name) + 4
                if name_w + w > col - 2:
                    name_w = 0         # no room for the name as well: the counts alone (the column is the team)
                x = cx - (name_w + w) // 2
                if name_w:
                    x += font.text(fb, name, x, 8) + 4
                x += font.text(fb, t, x, 8)
                if r >= 0:
                    x += 3
                    x += font.text(fb, ok, x, 8) + 1     # its ink ends at the +: a column clear
                    font.text(fb, r, x, 8)
            elif says is not None:
                # what this side's button does now: "A: tegi, võitis"
                if colon_w < 0:
                    colon_w = font.width(":")
                w = (name_w if name_w >= 0 else font.width(name)) + 1 + colon_w + 4 + says_w
                if w > end - col * i:
                    # no room for the name as well: the words alone, whole, in the side's own
                    # column (the column is the side; the names are back on the other steps)
                    font.text(fb, says, col * i + (end - col * i + 1) // 2, 8, align=font.CENTER,
                              max_w=end - col * i)
                    continue
                x = cx - w // 2 if cx + (w + 1) // 2 <= end else col * i + 1
                x += font.text(fb, name, x, 8) + 1
                x += font.text(fb, ":", x, 8) + 4
                font.text(fb, says, x, 8, max_w=end - x)
            else:
                font.text(fb, name, cx, 8, align=font.CENTER, max_w=col - 2 if not bonus else col - 14)
                if bonus:
                    font.text(fb, "+", cx + 20, 8)
                    font.text(fb, bonus, cx + 26, 8)

    def _score(self, ui, m):
        fb = self.fb
        if m is None or m.st is None:
            font.text(fb, W.NEWMATCH[ui.lang], 64, 28, align=font.CENTER)
            return
        st = m.st
        n = st.sides
        col = _W // n
        room = col - 8           # a score keeps 4 px clear of its column's edges (and the dividers)
        final = st.over
        for i in range(n):
            cx = col * i + col // 2
            v = st.score[i] + st.bonus[i] if final else st.score[i]
            if font.digits_width(v) <= room:
                font.digits(fb, v, cx, _DIGITS_Y, align=font.CENTER)
            elif font.width(v, 2) <= room:
                # too wide for the 32 px digits (Schmier's "-12" in a third of the screen):
                # 2x text, its 14 px of ink centred in the digits' 32 px
                font.text(fb, v, cx, 27, align=font.CENTER, scale=2)
            else:
                font.text(fb, v, cx, 30, align=font.CENTER)
        # dividers between the sides' columns
        for i in range(1, n):
            fb.vline(col * i, 17, 34, 1)
        if n == 2:
            # the ruleset's gauge of four boxes on each outer edge, filling from the
            # bottom (Saare mäng: its rings, 4 nakks each), beside the score
            for i in range(2):
                rings = m.rules.gauge(st, i)
                if rings < 0:
                    continue
                x = 2 if i == 0 else _W - 7
                for k in range(4):
                    y = 43 - 8 * k
                    if k < rings:
                        fb.fill_rect(x, y, 5, 5, 1)
                    else:
                        fb.rect(x, y, 5, 5, 1)

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
        if mode == U.ENTRY and not ui.idle and (ui.msg is None or not ui.faults):
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
            x += font.text(fb, word, x, 56, max_w=_FOOT_WORD - x) + 3
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
        t = ui.choice_text()
        room = _W - x
        if n > 1 and font.width(t) <= room - 16:
            # the arrows when the answer leaves room for them (the list wraps either way)
            font.text(fb, "\u2190", x + 1, 56, 0)
            font.text(fb, "\u2192", 127, 56, 0, align=font.RIGHT)
        font.text(fb, t, (x + 128) // 2, 56, 0, align=font.CENTER, max_w=room)

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
