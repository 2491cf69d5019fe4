"""Wires the box together on asyncio: board -> buttons -> ui -> table (journal) -> render -> display and rings.

Boot: mount the flash, open the journal, fold the latest match back in (the
box resumes where it was: score, whose deal, an unfinished entry is simply
entered again), then run:
  (the driver's tasks) hand each button event to the UI at once (Buttons.sink:
          App._press in the task the ISR woke, no second task) and act on
          what the UI says happened (Ui.handle): an entry is drawn with
          "saving" first, then flushed to the journal (a flash erase may
          stall the chip), then drawn again; a refused press beeps;
  input   puts an entry held for the chord window (a side press) on flash
          once no second side button can take it back (and, where holding
          that button may still change it, once the button is up);
  frames  every FRAME_MS: message timeouts, idle, ring animations, watchdog.
Other tasks (the judge's link) are started with spawn(). A task that dies is
reported on screen and on the console by a global exception handler, never
silently.

What other tasks may use (the link, the simulator's control channel):
  spawn(coro)         run a task beside the app's, under the same handler
  journal_changed()   the journal changed under the table (a match compacted away)
  assignment_changed()  assignment.json was written or removed: offered at once
  ask(words, on_answer, timeout_ms, detail)  the pairing question (PREV+NEXT held: yes),
                      over the start screen only (else False)
  say(words, extra)   a message on the screen
  handled, sent       button events handled and display bytes sent since boot
  saving()            an entry is on screen but not yet on flash
  button_down(i)      the driver sees button i held
  settled()           no event queued or latched, no entry unsaved, no button held
"""

from nakk.compat import clock, const, micropython

_IMPORT_GC = const(16384)   # bytes allocated between two collections while the app's modules load

try:
    # The judge's link owns the USB port from the app's first instant, before the
    # imports below (seconds on a Pico): a Ctrl-C byte from the laptop is a byte, not
    # a KeyboardInterrupt that kills the app (nakk/link/task.py drains the port once it
    # runs). The REPL of maintenance mode still has Ctrl-C: MicroPython enables it
    # around every command it runs.
    import micropython
    micropython.kbd_intr(-1)
except (ImportError, AttributeError):  # CPython
    pass

import asyncio
import gc
import os

# Collect every 16 KB allocated while the modules below load: each import leaves garbage between
# the code it keeps, and collected at once that garbage is a hole the next import fills. Left to
# a full heap, the holes lie all over it (with the firmware as .mpy files, whose code is on the
# heap: 70 KB free after boot, but no 4 KB in one piece; collected so, 50 KB in one piece).
_threshold = getattr(gc, "threshold", None)   # MicroPython's (CPython has none)
if _threshold is not None:
    _threshold(_IMPORT_GC)

from nakk.drivers import font
from nakk.ui import flows as U
from nakk.ui import words as W
from nakk.drivers.buttons import PRESS, Buttons, at, kind, span
from nakk.event import EventError, parse
from nakk.journal import Journal
from nakk.match import Match
from nakk.ui.render import Screen
from nakk.settings import Settings
from nakk.table import Table

if _threshold is not None:
    _threshold(-1)    # then only when the heap is full, as by default

FRAME_MS = const(50)
_USB_FRAMES = const(20)   # frames between looks at the supply (1 s)
_BEEP_SAVED = const(25)   # ms: an entry is on flash
_BEEP_BAD = const(150)    # ms: a save failed, or an entry was refused
_WARM_MS = const(6)       # ms a frame may spend drawing words ahead on the start screen
_HOLD_POLL_MS = const(10)   # ms between looks at a held side button whose LONG may change its entry
_HOLD_SHOW_MS = const(250)  # a side button down this long over a step of the deal: "hoia: +2" in the head
_COLLECT_BELOW = const(24576)   # bytes free under which a start-screen press collects after its frame
_HEAP_PER_KEPT = const(880)     # heap free after boot per string the font keeps drawn (~110 B each: an eighth)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _link(app, board):
    """The judge's link (nakk/link/task.py), which owns the serial port from here on: its buffers
    are made at boot, before the heap fragments, and its task starts with the app's (spawn).
    A board without a port (a test bench) has none."""
    if getattr(board, "serial", None) is None:
        return None
    from nakk.link.task import Link
    link = Link(app, board)
    link.start()
    return link


def _net(app, board, link):
    """The live link to the judge's laptop (nakk/link/net.py): only on a board with a network (a Pico W,
    the simulator) whose judge gave it one at pairing; a plain Pico never loads it."""
    if getattr(board, "net", None) is None or link is None or _read(app.root + "/net") is None:
        return None           # (checked before the import: without a network its code takes no RAM)
    from nakk.link import net
    return net.start(app, board, link)


class App:
    def __init__(self, board):
        self.board = board
        self._clock = clock(board.clock)
        font.warm()
        root = board.mount()
        broken = None
        try:
            self.journal = Journal(root)
        except Exception as e:   # a journal of a newer format, unreadable flash: start, say so, write nothing
            self.journal = None
            broken = str(e) or type(e).__name__
        self.root = root
        self._tasks = []       # spawn()ed before run(): started by run()
        self._running = False
        self.table = Table(self.journal, broken=broken)
        self.assignment_path = root + "/assignment.json"
        # The link's code and buffers come before the journal is read: folding a box full of
        # matches leaves the heap fragmented, and the link's reads need whole blocks.
        self.link = _link(self, board)
        self.net = _net(self, board, self.link)
        self.table.resume()
        self.settings = Settings(board.settings)
        self.ui = U.Ui(self.table, clock=board.clock, lang=self.settings.lang, on_lang=self._save_settings,
                       assignment=self._assignment(), chord_ms=U.CHORD_MS,
                       sound=self.settings.sound, on_sound=self._save_settings,
                       max_sides=3 if board.pins[2] is not None else 2)
        reset = getattr(self.link, "reset_question", None)
        if reset is not None:
            self.ui.on_reset = reset       # PREV+NEXT held on the start screen: forget the judge?
        self.screen = Screen(board.fb, board.rings, getattr(board, "buf", None))
        # Side presses are reported at once; two sides together are caught by
        # the UI, which takes the first back while its entry is still held
        # (see on_event).
        self.buttons = Buttons(board.pins, clock=board.clock)
        self.buttons.sink = self._press
        self._held = asyncio.Event()   # set when a press leaves an entry held (the input task flushes it)
        self._hold_from = 0    # the time of the latest side press (buttons.at): its entry's chord window
        self.waiting = self.table.waiting()
        self.table.save_index()   # what this boot had to read from flash, the next reads from the index
        self.sent = 0          # bytes sent to the display since boot
        self.handled = 0       # button events handled since boot
        self.fault = None      # text of a task that died
        self._assigned = self.ui.assignment is not None
        self._say_bad_assignment()
        self._say_damage(broken)

    def _say_bad_assignment(self):
        if self.assignment_error is not None:
            self.ui.say(("Kohtuniku määrang vigane", "Judge's assignment invalid"), self.assignment_error)

    def _say_damage(self, broken):
        """At boot: which match on flash is damaged, in the players' words (they call the judge,
        whose tool reads what is left); the records stay as they are."""
        bad = self.table.damaged
        n = bad[0] if bad is not None else None
        if n is None and self.journal is not None and self.journal.damaged:
            n = min(self.journal.damaged)
        if n is not None:
            self.ui.say(("Mäng %d: kahjustatud, kutsu kohtunik" % n, "Match %d: damaged, call the judge" % n),
                        bad[1] if bad is not None else "")
        elif bad is not None or broken is not None:
            self.ui.say(("Mälu kahjustatud, kutsu kohtunik", "Flash damaged, call the judge"),
                        broken or bad[1])

    # ------------------------------------------------------------ settings
    def _save_settings(self, _value=None):
        ui = self.ui
        s = self.settings
        s.lang = ui.lang
        s.sound = ui.sound
        if not s.save():
            ui.say(W.SAVEFAIL)
            self.beep(_BEEP_BAD)

    def _assignment(self):
        """The judge's assignment beside the journal, if it would start a match; else None (a
        damaged or wrong file is left as it is: the judge's tool writes it again)."""
        self.assignment_error = None
        raw = _read(self.assignment_path)
        if not raw:
            return None
        try:
            a = parse(raw)
            ev = dict(a)
            ev["type"] = "setup"
            ev["seq"] = 1
            ev["v"] = 1
            Match().apply(ev)     # checked as Table.start will check it, so the screen can show it
        except EventError as e:
            self.assignment_error = str(e)
            return None
        return a

    # ------------------------------------------------------------ drawing
    def frame(self):
        ui = self.ui
        mask = self.screen.draw(ui, self._head_box(), self.waiting)
        if mask:
            self.sent += self.board.show(mask)
        # The rings come after the display's transfer; with an edge latched (before or
        # while they are painted: checked between two rings) they wait for the next frame
        # (that press's own, or the frames task's 50 ms later): the next press is not kept
        # waiting for the rings' colours and bitstream.
        btn = self.buttons
        if self.board.rings is not None and not btn.latched() and self.screen.leds(ui, btn):
            self.board.leds()

    def _head_box(self):
        """The head's box: 0 none, 1 "saving", 2 while a side button is down whose LONG may change
        what its press entered, what holding it enters ("hoia: jänn"): at once over an entry held
        off flash; over a step of the deal (Schmier's bid, a tally's amount) once the button has
        been down _HOLD_SHOW_MS (a tap never shows it, and the press's own frame draws no box)."""
        h = self.ui.holding()
        pending = self.table.pending is not None
        if h >= 0 and self.buttons.is_down(h) and (
                pending or span(self._hold_from, self.buttons.polled) >= _HOLD_SHOW_MS):
            return 2
        return 1 if pending else 0

    def on_event(self, ev):
        """One button event, all the way to the screen (and the flash, unless the entry is held)."""
        what = self.ui.handle(ev)[0]
        self.handled += 1
        if kind(ev) == PRESS:
            self._hold_from = at(ev)          # (a side press: its entry, or its step, may yet be held)
        if what == U.REFUSED:
            self.beep(_BEEP_BAD)          # the press entered nothing and the screen says why
        elif what == U.SUBMITTED:
            self.frame()                      # the new score first, with "saving"
            if kind(ev) != PRESS:
                self.flush()                  # only a side press can be half of a chord
            return                            # (a side press's entry waits in the input task)
        self.frame()
        if self.ui.mode == U.START and gc.mem_free() < _COLLECT_BELOW:
            # The start wizard's garbage, when it runs the heap low: collected after its
            # frame, while the players read the next question, not in the press that
            # starts the match (no entry is saved on the way, so flush() does not collect).
            # Not every time: a collection here holds up the words drawn ahead (_idle).
            gc.collect()

    def beep(self, ms):
        if self.ui.sound:
            buzz = getattr(self.board, "buzz", None)
            if buzz is not None:
                buzz(ms)

    def held(self):
        """ms the pending entry must still be held: until the driver has looked at the buttons
        CHORD_MS past the press that made it (a second side button may yet take it back), and
        while the button of a press whose LONG may change it is down (looked at again then)."""
        if self.table.pending is None:
            return 0
        b = self.ui.holding()
        if b >= 0 and self.buttons.is_down(b):
            return _HOLD_POLL_MS
        left = U.CHORD_MS - span(self._hold_from, self.buttons.polled)
        return left if left > 0 else 0

    def flush(self):
        """Put the pending entry on flash; the screen says "saving" until it is there."""
        ui = self.ui
        if self.table.pending is None:
            return
        saved = self.table.flush()
        if not saved:
            if self._assigned and ui.assignment is None:
                ui.assignment = ui.taken   # its start did not reach flash: offered again (no file read)
            ui.resync()
            # a full flash refuses the entry in words the players act on (sync with the judge)
            ui.say(W.FULL if self.table.full else W.SAVEFAIL, self.table.error or "")
            self.beep(_BEEP_BAD)
        else:
            self.beep(_BEEP_SAVED)
            if self.net is not None:
                self.net.saved()          # the live link sends it from flash, in its own task
        self.waiting = self.table.waiting()
        if saved and self._assigned and ui.assignment is None:
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
        # and name the entry an undo would take back, drawn ahead: long PREV then only shows it
        self.screen.keep_detail(ui.undo_words())

    # ------------------------------------------------------------ tasks
    # native: its exception handler makes a frame of 16 words, which bytecode puts on the heap,
    # and that frame lives through the whole press (as bytecode the .mpy path's cursor moves
    # took ~0.3 ms more at the median, docs/latency.md)
    @micropython.native
    def _press(self, ev):
        """The driver's sink (Buttons.sink): each event, handled in the driver's own task
        right after the poll that decided it (one task woken by the ISR, not two)."""
        try:
            self.on_event(ev)
        except Exception as e:   # report it and keep the box working (and the driver running)
            self._report("input", e)
        if self.table.pending is not None:
            self._held.set()     # the input task saves it once the chord window is past

    async def _input(self):
        """Puts a held entry on flash once no second side button can take it back."""
        held = self._held
        while True:
            try:
                if self.table.pending is None:
                    held.clear()
                    await held.wait()
                    continue
                wait = self.held()
                if wait:
                    # the driver's tasks poll meanwhile; 1 ms more and it is past the window
                    await asyncio.sleep_ms(wait + 1)
                else:
                    self.flush()
            except Exception as e:   # report it and keep the box working
                self._report("input", e)

    def _idle(self):
        """Between presses, work a press would otherwise wait for: the words of the match's
        screens (one a frame while a match is played, so a press waits for one at most); on
        the start screen, up to _WARM_MS a frame of the words of the match OK would start,
        then the free flash a start checks."""
        ui = self.ui
        screen = self.screen
        btn = self.buttons
        if ui.mode != U.START:
            screen.warm(ui)
            return
        c = self._clock
        t0 = c.ticks_ms()
        while screen.warm(ui):
            # a latched edge (the ISR's ring) ends it at once: the press goes first
            if btn.latched() or c.ticks_diff(c.ticks_ms(), t0) >= _WARM_MS:
                return
        if not btn.latched():
            self.table.prepare()

    def _check_usb(self):
        # on the judge's USB the rings dim; reading the supply (a pin and an ADC on
        # the Pico) belongs to the frames task, once a second, not to every frame
        rings = self.board.rings
        if rings is not None:
            rings.dim(self.board.usb_host())

    async def _frames(self):
        ui = self.ui
        btn = self.buttons
        feed = self.board.feed
        n = 0
        while True:
            await asyncio.sleep_ms(FRAME_MS)
            try:
                n += 1
                if n >= _USB_FRAMES:
                    n = 0
                    self._check_usb()
                # A press latched by the ISR goes first: this frame's work waits for the
                # next one (the press draws its own frame), and so do the words drawn ahead.
                if not btn.latched():
                    ui.tick()
                    self.frame()
                # (nothing waits in the driver's queue here: its sink empties it in the
                # pass that filled it; what may wait is an edge the ISR latched)
                if self.table.pending is None and not btn.latched():
                    self._idle()
            except Exception as e:
                self._report("frames", e)
            feed()

    def _report(self, where, e):
        self.fault = "%s: %r" % (where, e)
        print("nakk:", self.fault)
        try:
            import sys
            sys.print_exception(e)
            if isinstance(e, MemoryError):
                micropython.mem_info()    # on the console: the heap's totals and its largest free piece
        except (AttributeError, ImportError):
            pass
        try:
            self.ui.say(W.ERROR, self.fault)
            self.frame()
        except Exception:
            pass

    def _died(self, loop, context):
        # the global handler: any other task that dies is reported, never silent
        self._report(context.get("message", "task"), context.get("exception"))

    # ------------------------------------------------------------ for other tasks
    def spawn(self, coro):
        """Run another task (the judge's link) beside the app's, under the same exception handler."""
        if self._running:
            asyncio.create_task(coro)
        else:
            self._tasks.append(coro)

    def journal_changed(self):
        """The journal changed under the table (the link's ack compacted a match away):
        count the waiting results again and, if the match in play is gone, show what is left."""
        self.flush()                  # an entry held for the chord window goes to flash first
        if self.table.reload():
            self.ui.resync()
        self.waiting = self.table.waiting()
        self.frame()

    def assignment_changed(self):
        """assignment.json was written (or removed) beside the journal: offer it at once."""
        a = self._assignment()
        self._assigned = a is not None
        self.screen.forget_likely()   # the old assignment's match goes before the new one is folded
        self.ui.offer(a)
        self._say_bad_assignment()
        self.frame()

    def net_changed(self):
        """A pairing gave the box a network for the live scores, or took it away (nakk.pairing)."""
        if self.net is not None:
            self.net.reload()
        else:
            self.net = _net(self, self.board, self.link)

    def ask(self, words, on_answer, timeout_ms=U.ASK_MS, detail=""):
        """The pairing question (words: (et, en); detail: the judge's name): on_answer(True)
        when PREV and NEXT are held together, else False (any other press, or timeout_ms
        without one). Shown at once over the start screen; False (not shown) elsewhere."""
        if not self.ui.ask(words, on_answer, timeout_ms, detail):
            return False
        self.frame()
        return True

    def say(self, words, extra=""):
        """A message on the box's screen (words: (et, en)), drawn now."""
        self.ui.say(words, extra)
        self.frame()

    def saving(self):
        """An entry is on screen but not yet on flash."""
        return self.table.pending is not None

    def button_down(self, i):
        return self.buttons.is_down(i)

    def settled(self):
        """Nothing left to do for the presses so far: no event queued, no edge latched that
        the driver has not polled yet (with the sink that is where a press waits), no entry
        waiting for the flash, no button held."""
        b = self.buttons
        if b.pending() or b.latched() or self.table.pending is not None:
            return False
        for i in range(len(self.board.pins)):
            if b.is_down(i):
                return False
        return True

    async def run(self):
        asyncio.get_event_loop().set_exception_handler(self._died)
        self._running = True
        self.buttons.start()
        self._check_usb()
        self.frame()
        # the font keeps words drawn in an eighth of the heap left (~110 B each): 96 on the UF2, a few
        # dozen where .mpy code is on the heap (a full cache left a start no 1 KB: test_hil_flash.py)
        if hasattr(gc, "mem_free"):      # MicroPython's (CPython has none)
            font.keep_at_most(gc.mem_free() // _HEAP_PER_KEPT)
        for coro in self._tasks:
            asyncio.create_task(coro)
        self._tasks = []
        await asyncio.gather(self._input(), self._frames())


def main(board_module, **options):
    """What main.py runs: maintenance mode leaves the REPL free; otherwise build the board and run."""
    if board_module.maintenance():
        print("nakk: maintenance mode: no app, the REPL is free (mpremote works)")
        return None
    app = App(board_module.build(**options))
    asyncio.run(app.run())
    return app
