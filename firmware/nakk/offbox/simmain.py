"""Runs the app in the simulator: the sim board, the app, and the host's control channel (MicroPython unix port).

    MICROPYPATH=firmware:.frozen micropython -X heapsize=320K -m nakk.offbox.simmain IMAGE [--lang et|en] [--usb]

This module sits above the app, as main.py does on the Pico: it builds the
board (nakk.offbox.sim, a driver), gives it to nakk.app.App, and runs two
tasks of its own beside the app's (App.spawn): the control channel and the
key presser. It reads the app only through App's public surface (handled,
sent, saving(), button_down()). The host (host/nakk_host/simulator.py) and
the simulator talk over ONE line-based channel: stdin in, stdout out, both
binary. Every line is ASCII and ends in \\n; numbers are decimal, data is
lower-case hex. A line the other end does not know is ignored by it (the
app's own error reports go to the same stdout: they are such lines, and the
host shows them as console output).

Host -> simulator
    K <button> <ms>   press A B C PREV OK NEXT for ms of real time, then release;
                      A+B (A+C, B+C, A+B+C): those side buttons at once, a chord;
                      PREV+NEXT: both at once (held: the pairing's yes)
    U 0|1             the box sits on a computer's USB (the rings dim) or not
    S <hex>           bytes arriving on the USB serial port
    I                 ask for counters: answered with an I line
    Q                 quit: stop the app, unmount the image, exit 0
Simulator -> host (P, L and S lines are the board's: nakk/offbox/sim.py)
    R                 ready: the app has drawn its first frame
    D <k> <events>    the k-th K command is done: the button is released and
                      back to idle, the event(s) it gave are handled and any
                      entry is on flash (synchronised on the app's own
                      counters, not a sleep); events = button events handled
    I <rx> <handled> <sent> <alloc> <free>  serial bytes received, button
                      events handled, bytes sent to the display since boot,
                      heap bytes allocated and free now
    E <text>          a control line that could not be understood

The control channel is read without blocking the event loop: the task polls
stdin and takes only the bytes that are there into a fixed line buffer with
a length cap (an overlong line is dropped whole).
"""

from nakk.compat import const

import sys

import asyncio
import select
import time

from nakk.offbox import sim
from nakk.drivers.buttons import NAMES

_LINE_MAX = const(2100)    # longest control line accepted (1 KiB of serial bytes in hex)
_IDLE_MS = const(5)        # the control task's poll interval while stdin is quiet
_READ_MAX = const(4096)    # bytes taken from stdin per wake, so the app keeps running
_HOLD_MAX = const(60000)   # longest press a K line may ask for (ms)
_SETTLE_MS = const(3000)   # a tap that gives no event (a faulted button) is done after this


class Quit(BaseException):
    """Raised by the control task on Q (or end of input) to end asyncio.run: a
    BaseException passes through asyncio's task handlers and the app's own."""


def _nib(c):
    if 48 <= c <= 57:
        return c - 48
    c |= 32
    if 97 <= c <= 102:
        return c - 87
    return -1


def _int(b):
    """A non-negative decimal int of at most 9 digits from bytes, or -1."""
    if not b or len(b) > 9:
        return -1
    v = 0
    for c in b:
        if not 48 <= c <= 57:
            return -1
        v = v * 10 + c - 48
    return v


class Control:
    """The host's control channel and the presses it asks for, on one board and one app."""

    def __init__(self, board, app):
        self.board = board
        self.app = app
        self._keys = []                 # (button, ms) waiting for the key task
        self._key_ev = asyncio.Event()
        self.k = 0                      # K commands done

    async def channel(self):
        stdin = sys.stdin.buffer
        poll = select.poll()
        poll.register(stdin, select.POLLIN)
        line = bytearray(_LINE_MAX)
        one = bytearray(1)
        n = 0
        over = False
        text = self.board.text
        serial = self.board.serial
        text(b"R\n")
        while True:
            ready = False
            for _ in poll.ipoll(0):
                ready = True
            if not ready:
                await asyncio.sleep_ms(_IDLE_MS)
                continue
            if serial.room() < _LINE_MAX // 2:
                # USB flow control: the host's writes wait while the box has not read its input
                await asyncio.sleep_ms(1)
                continue
            taken = 0
            while ready and taken < _READ_MAX:
                if not stdin.readinto(one):
                    raise Quit()        # the host went away: stop as on Q
                taken += 1
                c = one[0]
                if c == 10:
                    if over:
                        text(b"E control line too long: dropped\n")
                    else:
                        try:
                            self.command(line, n)
                        except Exception as e:      # a bad line never kills the channel
                            text(b"E control line failed: %s\n" % repr(e).encode())
                    n = 0
                    over = False
                    if serial.room() < _LINE_MAX // 2:
                        break
                elif n < _LINE_MAX:
                    if c != 13:
                        line[n] = c
                        n += 1
                else:
                    over = True
                ready = False
                for _ in poll.ipoll(0):
                    ready = True
            await asyncio.sleep_ms(0)

    def command(self, line, n):
        if n == 0:
            return
        board = self.board
        c = line[0]
        if c == 0x53 and n >= 2:            # S <hex>
            put = board.serial.put
            i = 2
            while i + 1 < n:
                hi = _nib(line[i])
                lo = _nib(line[i + 1])
                if hi < 0 or lo < 0:
                    break
                put(hi << 4 | lo)
                i += 2
            return
        words = bytes(line[:n]).split()
        cmd = words[0]
        if cmd == b"K" and len(words) == 3:
            mask = 0
            for name in words[1].decode().split("+"):
                if name not in NAMES or mask & (1 << NAMES.index(name)):
                    mask = -1
                    break
                mask |= 1 << NAMES.index(name)
            ms = _int(words[2])
            if mask > 0 and 0 < ms <= _HOLD_MAX and ((mask & (mask - 1)) == 0 or mask < 8 or mask == 40):
                # one button, side buttons together (a chord: what the box must survive), or
                # PREV+NEXT held together (the pairing's yes)
                self._keys.append((mask, ms))
                self._key_ev.set()
                return
        elif cmd == b"U" and len(words) == 2 and words[1] in (b"0", b"1"):
            board.usb = words[1] == b"1"
            return
        elif cmd == b"I" and len(words) == 1:
            app = self.app
            import gc
            gc.collect()          # live heap, not garbage
            board.text(b"I %d %d %d %d %d\n" % (board.serial.received, app.handled, app.sent,
                                                 gc.mem_alloc(), gc.mem_free()))
            return
        elif cmd == b"Q" and len(words) == 1:
            raise Quit()
        board.text(b"E bad control line: " + bytes(line[:min(n, 60)]) + b"\n")

    def _down(self, mask):
        for b in range(len(self.board.pins)):
            if mask & (1 << b) and self.app.button_down(b):
                return True
        return False

    async def presser(self):
        ms = time.ticks_ms
        diff = time.ticks_diff
        app = self.app
        while True:
            while not self._keys:
                self._key_ev.clear()
                await self._key_ev.wait()
            mask, hold = self._keys.pop(0)
            before = app.handled
            pins = self.board.pins
            n = 0
            for b in range(len(pins)):
                if mask & (1 << b):
                    pins[b].press()        # a chord: every button of it down in the same ms
                    n += 1
            await asyncio.sleep_ms(hold)
            for b in range(len(pins)):
                if mask & (1 << b):
                    pins[b].release()
            t0 = ms()
            # Done when the app has handled the press's events (one per button), its entry
            # is on flash, and the driver sees the buttons released again (so the next
            # tap of the same button is a new press).
            while diff(ms(), t0) < _SETTLE_MS:
                if app.handled >= before + n and not app.saving() and not self._down(mask):
                    break
                await asyncio.sleep_ms(2)
            self.k += 1
            self.board.text(b"D %d %d\n" % (self.k, app.handled - before))


def run(argv):
    """`micropython -m nakk.offbox.simmain IMAGE [--lang et|en] [--usb]`: run the app until Q."""
    from nakk.app import App
    from nakk.settings import EN, ET, Settings
    image = sim.IMAGE
    lang = None
    usb = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--lang" and i + 1 < len(argv):
            lang = argv[i + 1]
            i += 1
        elif a == "--usb":
            usb = True
        else:
            image = a
        i += 1
    board = sim.build(image=image, usb=usb)
    try:
        try:
            board.mount()
        except OSError as e:
            # no such folder, no permission: one line for the host, not a traceback
            sys.stderr.write("nakk: cannot open the flash image %s: %s\n" % (image, e))
            return 2
        if lang is not None:
            s = Settings(board.settings)
            s.lang = EN if lang == "en" else ET
            s.save()
        app = App(board)
        ctl = Control(board, app)
        app.spawn(ctl.channel())
        app.spawn(ctl.presser())
        try:
            asyncio.run(app.run())
        except Quit:
            pass
    finally:
        board.unmount()
    return 0


if __name__ == "__main__":
    # `micropython -m nakk.offbox.simmain IMAGE`: argv[0] is the module name
    sys.exit(run(sys.argv[1:]))
