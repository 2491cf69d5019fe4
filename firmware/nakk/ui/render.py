"""Screen state -> the 128x64 framebuf and the LED rings. Redraws only the regions whose content changed.

The screen has regions of whole SSD1306 pages, so the display is sent only
the pages a change touched, and only they are drawn again (drawing text in
Python is the slow part on the Pico, see docs/latency.md):
  head   page 0     deal number and who shuffles; "saving"; results waiting (↑n)
  names  page 1     the side names (and end bonuses)             } or one list / question
  score  pages 2-6  32 px digits (2x text for a score too wide    } over pages 1-6
                    for its column), dividers, marks (the ruleset's: karvane)
  foot   page 7     the step being entered with its answer under the cursor, or a message;
                    while a button is stuck (and no message is up), which one
Each region has a signature: a small integer built from the values it shows
(no allocation); a region is drawn again only when its signature changes.
Text comes from tables that already exist (rules, ui) and numbers are drawn
straight from ints (nakk.drivers.font), so a frame allocates nothing once fonts are warm.

Drawing text is what a press waits for (bench/bench_latency.py), so nothing is
drawn twice or drawn to be covered: the "saving" box is drawn once per
language at start-up and blitted, what it hides is not drawn under it, and a
cursor move in the deal entry redraws the answer box only, not the step's
name beside it. Each of these leaves the same pixels as drawing in full.
"""

from nakk.compat import const

try:
    import framebuf as _fbuf
except ImportError:  # CPython: the "saving" box is drawn in place
    _fbuf = None

from nakk.drivers import font
from nakk.drivers.buttons import NAMES as _BUTTONS
from nakk.ui import flows as U
from nakk.ui import words as W

_W = const(128)
_HEAD = const(0x01)
_NAMES = const(0x02)
_SCORE = const(0x7C)
_BODY = const(0x7E)
_FOOT = const(0x80)
# Signatures stay small ints on the Pico (31 bits): with s < 2**22, s * 31 + v stays under
# 2**30, so _mix allocates nothing. A wider mask made s * 31 a big int on every mix: about
# 1 KB of garbage per frame, 20 frames a second, and a collection (~27 ms) inside a press.
_MASK = const(0x3FFFFF)
_ROWS = const(4)             # list lines in the body
_SAVE_X = const(60)          # the "saving" box: x 60-127 of the head
_SAVE_W = const(68)
_DIGITS_Y = const(18)        # the score's 32 px digits
_KEPT = const(8)             # pages kept drawn per region (names line, foot): 1 KB each


# what the score screen may show besides the match's own names and labels
_WORDS = (W.SHUFFLES, W.WINNER, W.OVER, W.DRAW, W.JUDGE,
          W.CONFIRM, W.DISPUTE, W.SAVING)
_MARKS = ("+", "\u2191", "\u2190", "\u2192", "\u2713", "!", "?", "A", "B", "C", "OK:", ":", "OK+")


def _keep(scratch, s):
    """Draw word s once so the font keeps it; False if it was kept already."""
    if font.kept(s):
        return False
    font.text(scratch, s, 0, 0)
    return True


def _mix(s, v):
    return (s * 31 + v + 7) & _MASK


_ZERO = bytes(_W)             # a cleared page row
_LIT = b"\xff" * _W           # a lit one


def wrap(s):
    """Where to break s (the index of a space) so that its first line fits the screen; -1: nowhere."""
    i = len(s)
    while True:
        i = s.rfind(" ", 0, i)
        if i <= 0:
            return -1
        if font.width(s[:i]) <= _W:
            return i


class Screen:
    def __init__(self, fb, rings=None, buf=None):
        """fb: a 128x64 FrameBuffer (the board's); rings: nakk.drivers.rings.Rings or None;
        buf: fb's own bytes (MONO_VLSB), when the board gives them: whole page rows are then
        cleared, and text and score digits on the page grid copied, straight into them (on
        the RP2040 framebuf's fill_rect and blit cost 0.1 and 1 µs a pixel: most of a frame)."""
        self.fb = fb
        self.rings = rings
        self.buf = buf
        if buf is not None:
            font.target(fb, buf)
            font.warm_digits(_DIGITS_Y)
        self._sig = [-1, -1, -1, -1, -1]    # head, names, score, foot, list
        self._ring_sig = -1
        self._warm_match = None     # the match (and language) whose words are drawn once
        self._warm_lang = -1
        self._warming = None        # the generator drawing them, a few words per warm()
        self._common_lang = -1      # the language whose common words the start screen drew
        self._likely = None         # the likely match (ui.likely_match()) whose words were drawn
        # words are drawn here once to keep them (font caches them); 1x8 px is enough
        self._scratch = _fbuf.FrameBuffer(bytearray(1), 1, 8, _fbuf.MONO_VLSB) if _fbuf is not None else None
        self.frame = 0
        self._foot_word = None   # the deal-entry step name on the foot now (None: something else)
        self._says = None        # what the side buttons say on the names line, last drawn, and
        self._says_gen = 0       # a count bumped whenever that changes (it signs the names line)
        self._ok = None          # the same for what OK does, when the header says it
        self._ok_gen = 0
        self._foot_x = 0         # where its answer box starts
        # "Segab " / "Shuffles " widths: is the shuffler hidden under the "saving" box?
        self._shuf_w = (font.width(W.SHUFFLES[0]), font.width(W.SHUFFLES[1]))
        self._saving_bytes = [None, None]
        # the undo question's line, drawn ahead (keep_detail) while the players look at the score
        self._detail = None
        self._detail_fb = _fbuf.FrameBuffer(bytearray(_W), _W, 8, _fbuf.MONO_VLSB) if _fbuf is not None else None
        self._detail_fb2 = _fbuf.FrameBuffer(bytearray(_W), _W, 8, _fbuf.MONO_VLSB) if _fbuf is not None else None
        self._detail_two = False
        self._saving = (self._saving_box(0), self._saving_box(1))
        # The names line and the foot of the deal entry, kept drawn by what they show (the form
        # comes back to the same steps every deal): a page seen before is copied, not drawn.
        # [kept?, key (4 values), its 128 bytes, the foot's answer x, last use] slots, names line
        # then foot, the least recently used given way;
        # emptied when the match or the language changes (_forget_pages).
        self._pages = [None] * (2 * _KEPT)
        mv = memoryview(buf) if buf is not None else None
        # each page row of the frame as a view, made once (a slice made per copy allocates)
        self._pv = [mv[p * _W:(p + 1) * _W] for p in range(8)] if mv is not None else None
        self._used = 0              # a count bumped at each use of a kept page (its age)
        self._k = [None, None, None, None]   # the key of the page looked up or kept (_key)
        self._unmade = 2 * _KEPT    # slots warm() has still to make (from the last down)

    def _saving_box(self, lang):
        """The "saving" box of the head, drawn once (a 68x8 framebuf), or None: drawn in place."""
        w = W.SAVING[lang]
        if _fbuf is None or font.width(w) > _SAVE_W:
            return None
        b = bytearray(_SAVE_W)
        box = _fbuf.FrameBuffer(b, _SAVE_W, 8, _fbuf.MONO_VLSB)
        box.fill(1)
        font.text(box, w, 94 - _SAVE_X, 0, 0, align=font.CENTER)
        self._saving_bytes[lang] = b
        return box

    def _clear(self, page, n, color):
        """Pages page..page+n-1 all dark (color 0) or all lit: copies into buf when there is one."""
        pv = self._pv
        if pv is None:
            return self._fill(page, n, color)
        row = _LIT if color else _ZERO
        n += page               # n: the page after the last (no other local: the frame stays 11 words)
        while page < n:
            pv[page][:] = row
            page += 1

    def _fill(self, page, n, color):
        self.fb.fill_rect(0, page << 3, _W, n << 3, color)

    def keep_detail(self, text):
        """Draw text (the line a list shows under its title: what an undo would take back)
        ahead of time, so that the list that shows it only copies it."""
        f = self._detail_fb
        if f is None or text is None or text is self._detail:
            return
        f.fill(0)
        self._detail_fb2.fill(0)
        self._detail_two = self._detail_lines(None, text, 0, 0)[0] > 0    # y moved: a second line
        self._detail = text

    def _detail_lines(self, fb, d, y, rows):
        """Draw the list's detail line at y (into fb, or ahead into the kept buffers when fb is
        None): two lines when the words are wider than the screen (the undo question names a
        whole deal in the players' words). Returns (y, rows) for what follows it."""
        cut = wrap(d) if font.width(d) > _W else -1
        if cut > 0:
            font.text(fb if fb is not None else self._detail_fb, d[:cut], 0, y if fb is not None else 0,
                      max_w=_W, keep=False)
            y += 10
            rows -= 1
            d = d[cut + 1:]
            if fb is None:
                font.text(self._detail_fb2, d, 0, 0, max_w=_W, keep=False)
                return y, rows
        font.text(fb if fb is not None else self._detail_fb, d, 0, y if fb is not None else 0,
                  max_w=_W, keep=False)
        return y, rows

    def _forget_pages(self):
        for i in range(2 * _KEPT):
            e = self._pages[i]
            if e is not None:
                e[0] = False

    # A kept page's key is four values (k0..k3), put by _key into a list made once (a tuple
    # made for it would be a multi-block allocation in every press), so that _kept_page and
    # _keep_page take few arguments: a frame of more than 11 words is allocated on the heap
    # at every call (docs/latency.md).
    def _key(self, k0, k1, k2, k3):
        k = self._k
        k[0] = k0
        k[1] = k1
        k[2] = k2
        k[3] = k3

    def _kept_page(self, r, page):
        """Copy region r's page (0: names line, 1: foot) kept for the key (_key) into the
        frame; its slot ([kept?, k0, k1, k2, k3, bytes, x, last use]), or None when there is
        none (or no frame bytes to copy into)."""
        if self.buf is None:
            return None
        pages = self._pages
        k = self._k
        i = r * _KEPT
        while i < r * _KEPT + _KEPT:
            e = pages[i]
            if e is not None and e[0] and e[1] == k[0] and e[2] == k[1] and e[3] == k[2] and e[4] == k[3]:
                self._pv[page][:] = e[5]
                return self._use(e)
            i += 1
        return None

    def _use(self, e):
        self._used = u = (self._used + 1) & _MASK
        e[7] = u
        return e

    def _keep_page(self, r, page, x=0):
        """Keep region r's page as just drawn, for the key (_key) (r's least recently used slot gives way)."""
        if self.buf is None:
            return
        i = self._oldest(r)
        e = self._pages[i]
        if e is None:
            e = self._pages[i] = self._slot()   # made once per slot
        k = self._k
        e[1] = k[0]
        e[2] = k[1]
        e[3] = k[2]
        e[4] = k[3]
        e[5][:] = self._pv[page]
        e[6] = x
        e[0] = True
        self._use(e)

    def _oldest(self, r):
        """Region r's slot to fill: an unmade or emptied one, else the one least recently drawn
        or copied (a step's page that comes back every deal stays while the cursor's pages of
        the games list come and go)."""
        best = -1
        age = -1
        j = r * _KEPT
        while j < r * _KEPT + _KEPT:
            e = self._pages[j]
            if e is None or not e[0]:
                return j
            a = (self._used - e[7]) & _MASK
            if a > age:
                best = j
                age = a
            j += 1
        return best

    def _slot(self):
        return [False, None, None, None, None, bytearray(_W), 0, 0]

    # ------------------------------------------------------------ signatures
    def _score_sig(self, s, m):
        st = m.st
        for i in range(st.sides):
            s = _mix(s, st.score[i] & 0xFFFF)
            s = _mix(s, st.bonus[i] & 0xFF)
            s = _mix(s, st.marks[i])
        return _mix(s, 1 if st.over else 0)

    def _prewarm(self, ui, m, steps):
        """Draw once every word the score screen of match m can show, with its deal form's
        steps (font keeps them), so no later frame allocates; m None: the words of every
        match. A generator, one word drawn per step (a word already kept costs nothing):
        warm() runs it between presses (all at once it took ~190 ms on the Pico, inside
        the press that starts a match)."""
        lang = ui.lang
        scratch = self._scratch
        for w in _WORDS:
            if _keep(scratch, w[lang]):
                yield
        for w in _MARKS:
            if _keep(scratch, w):
                yield
        if m is None:
            for sides in (2, 3):
                for i in range(2 * sides):
                    if _keep(scratch, W.seat_name(i, sides)):
                        yield
            return
        st = m.st
        _keep(scratch, m.rules.counter_word[lang])
        for i in range(st.seats):
            if _keep(scratch, W.seat_name(i, st.sides)):
                yield
        for sd in m.setup["sides"]:
            if _keep(scratch, sd.get("name", sd["id"])):
                yield
        if steps is None:
            steps = m.rules.form(st, m.cfg)[1]   # a likely match's first deal
        for stp in steps:
            if _keep(scratch, stp["label"][lang]):
                yield
            for c in stp["choices"]:
                if _keep(scratch, c["label"][lang]):
                    yield
                for k in ("says", "ok_says", "name"):
                    if k in c:
                        if _keep(scratch, c[k][lang]):
                            yield

    def warm(self, ui):
        """Draw one more of the words the screens will need (see _prewarm: 2-7 ms on the
        Pico); True while some are left. The app calls it between presses, never inside
        one. On the start
        screen: the words of the match the next OK would start before anything else, and
        the words of every match."""
        if ui.mode == U.START:
            m = ui.likely_match()
            if m is not None and m is not self._likely:
                self._likely = m
                self._warming = self._prewarm(ui, m, None)
            elif self._warming is None and self._common_lang != ui.lang:
                self._common_lang = ui.lang
                self._warming = self._prewarm(ui, None, None)
        g = self._warming
        if g is not None:
            try:
                next(g)
                return True
            except StopIteration:
                self._warming = None
        if ui.mode != U.START and self._unmade and self.buf is not None:
            # then the kept pages' slots, one a call while a match is played (not on the
            # start screen, whose heap a ruleset's import needs): a press only fills them.
            # In the order _keep_page looks for a free one (each region's from its first up,
            # the two regions in turn), so a press finds a slot made rather than makes one
            k = 2 * _KEPT - self._unmade
            self._unmade -= 1
            i = (k >> 1) + (_KEPT if k & 1 else 0)
            if self._pages[i] is None:
                self._pages[i] = self._slot()
            return True
        return False

    def draw(self, ui, saving=False, waiting=0):
        """Draw what changed; returns the mask of pages to send (bit p = page p)."""
        m = ui.table.match
        mode = ui.mode
        if m is not None and m.st is not None:
            if m is not self._warm_match or ui.lang != self._warm_lang:
                self._warm_match = m
                self._warm_lang = ui.lang
                # not now: this frame answers a press; warm() draws them after it
                self._warming = self._prewarm(ui, m, ui.deal.steps or ())
                self._likely = None
                self._forget_pages()
        sig = self._sig
        listed = mode != U.ENTRY and mode != U.END and mode != U.DONE
        base = _mix(_mix(mode, ui.lang), 1 if ui.idle else 0)
        head = _mix(_mix(_mix(base, 1 if saving else 0), waiting), ui.version if listed else 0)
        foot = _mix(_mix(_mix(base, ui.version), ui.faults), 1 if ui.msg is not None else 0)
        names = _mix(base, ui.table.n or 0)
        if mode == U.ENTRY and not ui.idle:
            # the names line says what each side's button does on the answer under the
            # cursor (or a tally's counts): signed by those words and counts alone, so a
            # cursor move that does not change them sends nothing more
            says = ui.says()
            if says is not self._says:
                self._says = says         # another form's words: a new generation (no id(), no allocation)
                self._says_gen = (self._says_gen + 1) & 0xFF
            ok = self._ok_head(ui)
            if ok is not self._ok:
                self._ok = ok             # the header's "OK: ..." changed: a new generation
                self._ok_gen = (self._ok_gen + 1) & 0xFF
            head = _mix(head, self._ok_gen)
            for i in range(m.st.sides if m is not None and m.st is not None else 0):
                names = _mix(_mix(names, ui.tally(i) + 1), ui.rest_left(i) + 1)
        score = base
        if m is not None and m.st is not None:
            st = m.st
            head = _mix(_mix(_mix(head, st.deals), st.shuffler), m.rules.count(st))
            head = _mix(head, 1 if st.over else 0)
            score = self._score_sig(score, m)
            names = _mix(names, 1 if st.over else 0)
            for i in range(st.sides):
                names = _mix(_mix(names, st.bonus[i] & 0xFF), st.marks[i])
            if mode == U.ENTRY and ui.banner is not None:
                names = _mix(names, hash(ui.banner) & 0xFFFF)
        names_kept = names            # what the names line shows but the button's words (the key)
        if mode == U.ENTRY and not ui.idle:
            names = _mix(names, self._says_gen)
        mask = 0
        if head != sig[0]:
            sig[0] = head
            self._head(ui, m, saving, waiting, listed)
            mask |= _HEAD
        if listed:
            body = _mix(_mix(base, ui.version), ui.cursor)
            if body != sig[4]:
                sig[4] = body
                sig[1] = sig[2] = -1
                self._clear(1, 6, 0)
                self._list(ui)
                mask |= _BODY
        else:
            sig[4] = -1
            if names != sig[1]:
                sig[1] = names
                says = self._says if mode == U.ENTRY and not ui.idle else None
                keep = m is not None and m.st is not None
                if keep:
                    # the key: the signature, the button's words, the banner
                    self._key(names_kept, says[ui.lang] if says is not None else None,
                              ui.banner if mode == U.ENTRY else None, None)
                if not keep or self._kept_page(0, 1) is None:
                    self._clear(1, 1, 0)
                    self._names(ui, m)
                    if keep:
                        self._keep_page(0, 1)
                mask |= _NAMES
            if score != sig[2]:
                sig[2] = score
                self._clear(2, 5, 0)
                self._score(ui, m)
                mask |= _SCORE
        if foot != sig[3]:
            sig[3] = foot
            self._foot(ui, m)
            mask |= _FOOT
        return mask

    # ------------------------------------------------------------ regions
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
        if saving:
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
        if ui.mode != U.ENTRY or ui.idle or not ui.items:
            return None
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
        if ui.mode == U.ENTRY and ui.banner is not None and ui.tally(0) < 0:
            # the ruleset's line about this deal (a pokk replay, the bid) over the names:
            # the columns still say whose score is whose (a tally's counts go before it)
            font.text(fb, ui.banner, 64, 8, align=font.CENTER, max_w=_W)   # a few a match: kept
            return
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
                # side OK gives the rest to, how many that is ("B 1 OK+3")
                r = ui.rest_left(i)
                w = font.width(name) + 4 + font.width(t)
                if r >= 0:
                    w += 3 + font.width("OK+") + font.width(r)
                x = cx - w // 2
                x += font.text(fb, name, x, 8, max_w=col - 12) + 4
                x += font.text(fb, t, x, 8)
                if r >= 0:
                    x += 3
                    x += font.text(fb, "OK+", x, 8)
                    font.text(fb, r, x, 8)
            elif says is not None:
                # what this side's button does now: "A: tegi, võitis"
                if colon_w < 0:
                    colon_w = font.width(":")
                w = (name_w if name_w >= 0 else font.width(name)) + 1 + colon_w + 4 + says_w
                x = cx - w // 2 if cx + (w + 1) // 2 <= end else col * i + 1
                x += font.text(fb, name, x, 8, max_w=col // 2) + 1
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

    # ------------------------------------------------------------ rings
    def leds(self, ui, buttons=None):
        """Paint the rings when what they show changed, or every frame while they animate.

        Returns True when they were painted (the board then writes the LEDs). buttons: the
        driver, whose latched() (a press on its way) stops the painting between two rings;
        they are then painted again in full on the next call, and this returns False."""
        r = self.rings
        if r is None:
            return False
        self.frame += 1
        m = ui.table.match
        n = r.rings
        sig = _mix(_mix(ui.faults, 1 if r.dimmed else 0), ui.table.n or 0)
        animate = ui.faults != 0
        if m is not None and m.st is not None:
            st = m.st
            sig = self._score_sig(sig, m)
            if st.over and st.winner is not None:
                animate = True
        if sig == self._ring_sig and not animate:
            return False
        self._ring_sig = sig
        r.used = m.rules.sides if m is not None and m.rules is not None else 2
        if m is None or m.st is None:
            for i in range(n):
                r.off(i)
            return True
        st = m.st
        rules = m.rules
        for i in range(n):
            if buttons is not None and buttons.latched():
                self._ring_sig = -1    # not all painted: the next frame paints them again
                return False
            if ui.faults & (1 << i):
                r.fault(i, self.frame)
            elif i >= st.sides:
                r.off(i)
            elif st.over and st.winner == i:
                r.celebrate(i, self.frame)
            else:
                rules.ring(r, i, st, m.cfg)      # what the game shows on it is the ruleset's
        return True
