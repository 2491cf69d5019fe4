"""Wires the box together on asyncio: board -> buttons -> ui -> table (journal) -> render -> display and rings.

Boot: mount the flash, open the journal, fold the latest match back in (the
box resumes where it was: score, whose deal, an unfinished entry is simply
entered again), then run two tasks:
  input   waits for a button event, hands it to the UI, and when the UI made
          an entry draws the new score with "saving" first, then flushes the
          journal (a flash erase may stall the chip), then draws again;
  frames  every FRAME_MS: message timeouts, idle, ring animations, watchdog.
A task that dies is reported on screen and on the console by a global
exception handler, never silently.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

import asyncio
import gc
import json
import os

from nakk import font
from nakk import ui as U
from nakk.buttons import PRESS, Buttons, kind
from nakk.event import EventError, parse
from nakk.journal import Journal, write_atomic
from nakk.render import Screen
from nakk.table import Table

FRAME_MS = const(50)
_USB_FRAMES = const(20)   # frames between looks at the supply (1 s)
_BEEP_SAVED = const(25)   # ms: an entry is on flash
_BEEP_BAD = const(150)    # ms: a save failed, or an entry was refused


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


class App:
    def __init__(self, board):
        self.board = board
        font.warm()
        root = board.mount()
        self.journal = Journal(root)
        self.table = Table(self.journal)
        self.assignment_path = root + "/assignment.json"
        resumed = self.table.resume()
        lang, sound = 0, True
        raw = _read(board.settings)
        if raw:
            try:
                saved = json.loads(raw)
                lang = 1 if saved.get("lang") == "en" else 0
                sound = saved.get("sound", True) is not False
            except (ValueError, AttributeError):
                pass
        self.ui = U.Ui(self.table, clock=board.clock, lang=lang, on_lang=self._save_settings,
                       assignment=self._assignment(), chord_ms=U.CHORD_MS,
                       sound=sound, on_sound=self._save_settings,
                       max_sides=3 if board.pins[2] is not None else 2)
        self.screen = Screen(board.fb, board.rings)
        # Side presses are reported at once (chord_ms=0: no wait in the driver);
        # two sides together are caught by the UI, which takes the first back
        # while its entry is still held (see on_event).
        self.buttons = Buttons(board.pins, clock=board.clock, chord_ms=0)
        clock = board.clock
        if clock is None:
            import time as clock
        self._ms = clock.ticks_ms
        self._diff = clock.ticks_diff
        self._hold_from = 0
        self.waiting = self.table.waiting()
        self.sent = 0          # bytes sent to the display since boot
        self.handled = 0       # button events handled since boot
        self.resumed = resumed
        self.fault = None      # text of a task that died
        self._assigned = self.ui.assignment is not None
        if self.journal.damaged:
            self.ui.say(U.W_SAVEFAIL, "journal")
        started = getattr(board, "started", None)
        if started is not None:
            started(self)

    # ------------------------------------------------------------ settings
    def _save_settings(self, _value=None):
        ui = self.ui
        try:
            write_atomic(self.board.settings, b'{"lang":"%s","sound":%s}' % (
                b"en" if ui.lang else b"et", b"true" if ui.sound else b"false"))
        except OSError:
            ui.say(U.W_SAVEFAIL)

    def _assignment(self):
        raw = _read(self.assignment_path)
        if not raw:
            return None
        try:
            a = parse(raw)
        except EventError:
            return None
        return a

    # ------------------------------------------------------------ drawing
    def frame(self):
        ui = self.ui
        mask = self.screen.draw(ui, self.table.pending is not None, self.waiting)
        if mask:
            self.sent += self.board.show(mask)
        if self.board.rings is not None and self.screen.leds(ui):
            self.board.leds()

    def on_event(self, ev):
        """One button event, all the way to the screen (and the flash, unless the entry is held)."""
        ui = self.ui
        pending = self.table.pending
        t = self.buttons.time
        ui.handle(ev, t)
        self.handled += 1
        if ui.msg is not None and self.table.pending is None:
            self.beep(_BEEP_BAD)          # the press entered nothing and says why
        if self.table.pending is not None and self.table.pending is not pending:
            self._hold_from = t
            self.frame()                      # the new score first, with "saving"
            if kind(ev) != PRESS:
                self.flush()                  # only a side press can be half of a chord
                return
        self.frame()

    def beep(self, ms):
        if self.ui.sound:
            buzz = getattr(self.board, "buzz", None)
            if buzz is not None:
                buzz(ms)

    def held(self):
        """ms the pending entry must still be held: until the driver has looked at the buttons
        CHORD_MS past the press that made it (a second side button may yet take it back)."""
        if self.table.pending is None:
            return 0
        left = U.CHORD_MS - self._diff(self.buttons.polled, self._hold_from)
        return left if left > 0 else 0

    def flush(self):
        """Put the pending entry on flash; the screen says "saving" until it is there."""
        ui = self.ui
        if self.table.pending is None:
            return
        if not self.table.flush():
            ui.resync()
            ui.say(U.W_SAVEFAIL, self.table.error or "")
            self.beep(_BEEP_BAD)
        else:
            self.beep(_BEEP_SAVED)
        self.waiting = self.table.waiting()
        if self._assigned and ui.assignment is None:
            # the judge's assignment became this match: it is used once
            self._assigned = False
            try:
                os.remove(self.assignment_path)
            except OSError:
                pass
        self.frame()
        # Collect now, while the players look at the new score, rather than
        # in the middle of the next press (~27 ms on the Pico, docs/latency.md).
        gc.collect()

    # ------------------------------------------------------------ tasks
    async def _input(self):
        get = self.buttons.get
        btn = self.buttons
        while True:
            try:
                if self.table.pending is not None and not btn.pending():
                    wait = self.held()
                    if wait:
                        # the driver's task polls meanwhile; 1 ms more and it is past the window
                        await asyncio.sleep_ms(wait + 1)
                    elif not btn.pending():
                        self.flush()
                    continue
                ev = await get()
                self.on_event(ev)
            except Exception as e:   # report it and keep the box working
                self._report("input", e)

    def _check_usb(self):
        # on the judge's USB the rings dim; reading the supply (a pin and an ADC on
        # the Pico) belongs to the frames task, once a second, not to every frame
        rings = self.board.rings
        if rings is not None:
            rings.dim(self.board.usb_host())

    async def _frames(self):
        ui = self.ui
        feed = self.board.feed
        n = 0
        while True:
            await asyncio.sleep_ms(FRAME_MS)
            try:
                n += 1
                if n >= _USB_FRAMES:
                    n = 0
                    self._check_usb()
                ui.tick()
                self.frame()
            except Exception as e:
                self._report("frames", e)
            feed()

    def _report(self, where, e):
        self.fault = "%s: %r" % (where, e)
        print("nakk:", self.fault)
        try:
            import sys
            sys.print_exception(e)
        except (AttributeError, ImportError):
            pass
        try:
            self.ui.say(("Viga", "Error"), self.fault)
            self.frame()
        except Exception:
            pass

    def _died(self, loop, context):
        # the global handler: any other task that dies is reported, never silent
        self._report(context.get("message", "task"), context.get("exception"))

    # ------------------------------------------------------------ the judge's link (nakk/link.py)
    def journal_changed(self):
        """The link changed the journal under the table (an ack compacted a match away)."""
        self.waiting = self.table.waiting()
        self.frame()

    async def run(self):
        asyncio.get_event_loop().set_exception_handler(self._died)
        from nakk.link import Link
        self.link = Link(self, self.board)
        self.link.start()
        self.buttons.start()
        self._check_usb()
        self.frame()
        await asyncio.gather(self._input(), self._frames())


def main(board_module, **options):
    """What main.py runs: maintenance mode leaves the REPL free; otherwise build the board and run."""
    if board_module.maintenance():
        print("nakk: maintenance mode: no app, the REPL is free (mpremote works)")
        return None
    board = board_module.build(**options)
    app = App(board)
    asyncio.run(app.run())
    return app
