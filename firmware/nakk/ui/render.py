"""Screen state -> the 128x64 framebuf and the LED rings. Redraws only the regions whose content changed.

The screen has regions of whole SSD1306 pages, so the display is sent only the pages a change
touched, and only they are drawn again (drawing text in Python is the slow part, docs/latency.md):
  head   page 0     deal number and who shuffles; "saving"; results waiting (↑n)
  names  page 1     the side names (and end bonuses)             } or one list / question
  score  pages 2-6  32 px digits (2x text for a score too wide    } over pages 1-6
                    for its column), dividers, marks (the ruleset's: karvane)
  foot   page 7     the step being entered with its answer under the cursor, or a message;
                    while a button is stuck (and no message is up), which one
Each region has a signature: a small integer built from the values it shows (no allocation); a
region is drawn again only when its signature changes. Text comes from tables that already exist
(rules, ui) and numbers are drawn straight from ints (nakk.drivers.font), so a frame allocates
nothing once fonts are warm.

Drawing text is what a press waits for (bench/bench_latency.py), so nothing is drawn twice or
drawn to be covered: the "saving" box is drawn once per language at start-up and blitted, what it
hides is not drawn under it, and a cursor move in the deal entry redraws the answer box only, not
the step's name beside it. Each of these leaves the same pixels as drawing in full.
"""

from nakk.compat import const

try:
    import framebuf as _fbuf
except ImportError:  # CPython: the "saving" box is drawn in place
    _fbuf = None

from nakk.drivers import font
from nakk.ui import flows as U
from nakk.ui import words as W
from nakk.ui.regions import Regions

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


class Screen(Regions):
    """The frame and the rings from the UI's state: which regions changed (their signatures),
    the pages kept drawn, the words drawn ahead; the regions themselves are drawn by Regions
    (nakk/ui/regions.py)."""

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
            h = stp.get("held")
            if h is not None:      # "hoia: jänn", drawn while that button is down
                _keep(scratch, W.HOLD[lang])
                for v in h:
                    if _keep(scratch, h[v][1][lang]):
                        yield
            o = stp.get("only")
            if o is not None and None not in o[1] and o[0] not in [t["key"] for t in steps]:
                continue           # asked after an offence only (a sohk's step): drawn when shown
            if _keep(scratch, stp["label"][lang]):
                yield
            if "live" in stp:
                continue           # offered now and then (another board): drawn when shown
            for c in stp["choices"]:
                if _keep(scratch, c["label"][lang]):
                    yield
                for k in ("says", "ok_says", "name"):
                    if k in c and _keep(scratch, c[k][lang]):
                        yield

    def forget_likely(self):
        self._likely = self._warming = None   # another assignment came: its old match let go

    def warm(self, ui):
        """Draw one more of the words the screens will need (see _prewarm: 2-7 ms on the Pico);
        True while some are left. The app calls it between presses, never inside one. On the
        start screen: the words of the match the next OK would start first, then every match's."""
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
        head = _mix(_mix(_mix(base, int(saving)), waiting), ui.version if listed else 0)
        if mode == U.ENTRY and ui.msg is not None and not ui.faults:
            head = _mix(head, ui.version)      # a message on the entry is in the header
        # (a message on the deal entry is in the header: the bottom line stays, but a stuck
        # button's line, which waits for no message)
        foot = _mix(_mix(_mix(base, ui.version), ui.faults),
                    1 if ui.msg is not None and (mode != U.ENTRY or ui.faults) else 0)
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
                names = _mix(_mix(_mix(names, ui.tally(i) + 1), ui.rest_left(i) + 1), ui.rest_left(i, False) + 1)
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
                head = _mix(head, hash(ui.banner) & 0xFFFF)
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
                    self._key(names_kept, says[ui.lang] if says is not None else None, None, None)
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
