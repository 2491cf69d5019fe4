"""The simulator's board: the real firmware on the MicroPython unix port, driven by `nakk sim` over stdin/stdout.

    MICROPYPATH=firmware:.frozen micropython -X heapsize=320K -m nakk.board.sim IMAGE [--lang et|en]

Buttons are SimPins, the display is a framebuf whose pages go to the host,
the rings are nakk.rings.Rings whose bytes go to the host, the flash is a
LittleFS image file (nakk.board.blockdev: killing the process is a power
cut), and the USB serial port is a byte buffer that the host relays to a
pseudo-terminal. The host (host/nakk_host/simulator.py) and this board talk
over ONE line-based control channel: stdin in, stdout out, both as binary
buffers, written only by this module. Every line is ASCII and ends in \\n;
numbers are decimal, data is lower-case hex. A line the other end does not
know is ignored by it (the app's own error reports go to the same stdout:
they are such lines, and the host shows them as console output).

Host -> board
    K <button> <ms>   press A B C PREV OK NEXT for ms of real time, then release
    U 0|1             the box sits on a computer's USB (the rings dim) or not
    S <hex>           bytes arriving on the USB serial port
    I                 ask for counters: answered with an I line
    Q                 quit: stop the app, unmount the image, exit 0
Board -> host
    R                 ready: the app has drawn its first frame
    P <mask> <hex>    display pages sent (mask in hex, bit p = page p), each
                      page's 128 bytes in page order
    L <hex> <n>       the rings' GRB bytes (all rings), when they changed; n =
                      rings in use (the sides of the match in play)
    S <hex>           bytes the firmware wrote to the USB serial port
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

try:
    from micropython import const
except ImportError:  # CPython (only for reading; the board runs on MicroPython)
    def const(x):
        return x

import sys

import asyncio
import framebuf
import select
import time

from nakk.board import pins as P
from nakk.board import simpins

BUTTONS = ("A", "B", "C", "PREV", "OK", "NEXT")
IMAGE = "nakk-flash.img"
MOUNT = "/flash"

_LINE_MAX = const(2100)    # longest control line accepted (1 KiB of serial bytes in hex)
_OUT_MAX = const(2100)     # longest line written: P ff + 1024 bytes in hex
_SER_RX = const(2048)      # USB serial receive buffer (bytes; more is dropped and counted)
_SER_CHUNK = const(512)    # serial bytes per S line written
_IDLE_MS = const(5)        # the control task's poll interval while stdin is quiet
_READ_MAX = const(4096)    # bytes taken from stdin per wake, so the app keeps running
_HOLD_MAX = const(60000)   # longest press a K line may ask for (ms)
_SETTLE_MS = const(3000)   # a tap that gives no event (a faulted button) is done after this
_HEX = b"0123456789abcdef"


class NoImage(BaseException):
    """The flash image cannot be opened (no such folder, no permission): run() says so in one
    line and exits 2. A BaseException, so that the app's own error handling does not take it."""


class Quit(BaseException):
    """Raised by the control task on Q (or end of input) to end asyncio.run: a
    BaseException passes through asyncio's task handlers and the app's own."""


def maintenance():
    """The simulator has no maintenance mode: the app always runs."""
    return False


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


try:
    from io import IOBase as _Stream   # a subclass is a stream that select.poll can watch
except ImportError:  # pragma: no cover
    _Stream = object

_POLL = const(3)        # MP_STREAM_POLL
_POLLIN = const(1)
_POLLOUT = const(4)


class SimSerial(_Stream):
    """The device end of the USB serial port: bytes from the host's S lines in,
    S lines out. read_into (0 when nothing waits), readinto (None when nothing
    waits, the stream convention), write, any(); select.poll and asyncio can
    watch it for POLLIN like the Pico's USB CDC stream."""

    def __init__(self, board, size=_SER_RX):
        self._board = board
        self._buf = bytearray(size)
        self._head = 0      # next byte to read
        self._n = 0         # bytes waiting
        self.received = 0   # bytes that arrived since boot
        self.dropped = 0    # bytes lost to a full buffer
        self.written = 0    # bytes the firmware wrote

    def any(self):
        return self._n

    def _put(self, c):
        size = len(self._buf)
        if self._n == size:
            self.dropped += 1
            return
        i = self._head + self._n
        if i >= size:
            i -= size
        self._buf[i] = c
        self._n += 1
        self.received += 1

    def read_into(self, buf, n=-1):
        """Copy up to len(buf) (or n) waiting bytes into buf; returns how many (0: none)."""
        want = len(buf) if n < 0 or n > len(buf) else n
        size = len(self._buf)
        k = 0
        src = self._buf
        h = self._head
        while k < want and self._n:
            buf[k] = src[h]
            k += 1
            h += 1
            if h == size:
                h = 0
            self._n -= 1
        self._head = h
        return k

    def readinto(self, buf, n=-1):
        k = self.read_into(buf, n)
        return k if k else None

    def ioctl(self, req, arg):
        if req == _POLL:
            r = 0
            if arg & _POLLIN and self._n:
                r |= _POLLIN
            if arg & _POLLOUT:
                r |= _POLLOUT
            return r
        return -1           # no file descriptor (poll uses ioctl), nothing else supported

    def write(self, data):
        """Send bytes to the host (the judge's end of the port); returns len(data)."""
        n = len(data)
        i = 0
        while i < n:
            j = i + _SER_CHUNK
            if j > n:
                j = n
            self._board._data_line(0x53, data, i, j)   # "S"
            i = j
        self.written += n
        return n


class SimBoard:
    """A Board (see nakk.board) for the unix port; build() makes one."""

    def __init__(self, image=IMAGE, lang=None, usb=False):
        from nakk.rings import Rings
        self.image = image
        self.lang = lang
        self.pins = simpins.make_pins(6)
        self.clock = None
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.rings = Rings(3, P.MAX_TOTAL_MA, P.LED_MA_PER_CHANNEL, dim_max_total_ma=P.USB_MAX_TOTAL_MA)
        self._last_rings = bytearray(len(self.rings.buf))
        self._rings_sent = False
        self._rings_used = 0
        self.settings = MOUNT + "/settings.json"
        self.serial = SimSerial(self)
        self.serial_in = self.serial    # as on the Pico (board/pico.py): the link reads one, writes the other
        self.serial_out = self.serial
        self.app = None
        self.bdev = None
        self._usb = usb
        self._out = bytearray(_OUT_MAX)
        self._stdout = sys.stdout.buffer
        self._stdin = sys.stdin.buffer
        self._tasks = False
        self._keys = []                 # (button, ms) waiting for the key task
        self._key_ev = asyncio.Event()
        self.k = 0                      # K commands done

    # ------------------------------------------------------------ Board
    def started(self, app):
        self.app = app

    def show(self, mask):
        out = self._out
        out[0] = 0x50   # "P"
        out[1] = 0x20
        out[2] = _HEX[mask >> 4 & 15]
        out[3] = _HEX[mask & 15]
        out[4] = 0x20
        j = 5
        buf = self.buf
        hx = _HEX
        sent = 0
        for p in range(8):
            if mask >> p & 1:
                for i in range(128 * p, 128 * p + 128):
                    b = buf[i]
                    out[j] = hx[b >> 4]
                    out[j + 1] = hx[b & 15]
                    j += 2
                sent += 128
        out[j] = 10
        self._write(j + 1)
        self._start_tasks()
        return sent

    def leds(self):
        r = self.rings
        r.ring(0)                      # commits what was painted (the current cap)
        used = 2
        app = self.app
        if app is not None:
            m = app.table.match
            if m is not None and m.rules is not None:
                used = m.rules.sides
        if self._rings_sent and used == self._rings_used and r.buf == self._last_rings:
            return
        self._last_rings[:] = r.buf
        self._rings_sent = True
        self._rings_used = used
        self._data_line(0x4C, r.buf, 0, len(r.buf), used)   # "L"

    def usb_host(self):
        return self._usb

    def mount(self):
        from nakk.board.blockdev import mount_image
        try:
            self.bdev = mount_image(self.image, MOUNT)
        except OSError as e:
            raise NoImage("nakk: cannot open the flash image %s: %s\n" % (self.image, e))
        if self.lang is not None:
            from nakk.journal import write_atomic
            write_atomic(self.settings, b'{"lang":"%s"}' % (b"en" if self.lang == "en" else b"et"))
        return MOUNT + "/journal"

    def unmount(self):
        if self.bdev is None:
            return
        import vfs
        try:
            vfs.umount(MOUNT)
        except OSError:
            pass
        self.bdev.close()
        self.bdev = None

    def device_id(self):
        return "sim"

    def buzz(self, ms):
        pass

    def feed(self):
        pass

    def maintenance(self):
        return False

    # ------------------------------------------------------------ output
    def _write(self, n):
        self._stdout.write(memoryview(self._out)[:n])

    def _text(self, s):
        self._stdout.write(s)

    def _data_line(self, tag, data, i, j, extra=-1):
        """Write `<tag> <hex of data[i:j]>[ <extra>]\\n`."""
        out = self._out
        out[0] = tag
        out[1] = 0x20
        k = 2
        hx = _HEX
        while i < j:
            b = data[i]
            out[k] = hx[b >> 4]
            out[k + 1] = hx[b & 15]
            k += 2
            i += 1
        if extra >= 0:
            out[k] = 0x20
            out[k + 1] = 48 + extra
            k += 2
        out[k] = 10
        self._write(k + 1)

    # ------------------------------------------------------------ control
    def _start_tasks(self):
        # The first frame is drawn inside App.run, so the loop is running here.
        if self._tasks:
            return
        self._tasks = True
        asyncio.create_task(self._control())
        asyncio.create_task(self._key_task())

    async def _control(self):
        stdin = self._stdin
        poll = select.poll()
        poll.register(stdin, select.POLLIN)
        line = bytearray(_LINE_MAX)
        one = bytearray(1)
        n = 0
        over = False
        self._text(b"R\n")
        while True:
            ready = False
            for _ in poll.ipoll(0):
                ready = True
            if not ready:
                await asyncio.sleep_ms(_IDLE_MS)
                continue
            taken = 0
            while ready and taken < _READ_MAX:
                if not stdin.readinto(one):
                    raise Quit()        # the host went away: stop as on Q
                taken += 1
                c = one[0]
                if c == 10:
                    if over:
                        self._text(b"E control line too long: dropped\n")
                    else:
                        try:
                            self._command(line, n)
                        except Exception as e:      # a bad line never kills the channel
                            self._text(b"E control line failed: %s\n" % repr(e).encode())
                    n = 0
                    over = False
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

    def _command(self, line, n):
        if n == 0:
            return
        c = line[0]
        if c == 0x53 and n >= 2:            # S <hex>
            ser = self.serial
            i = 2
            while i + 1 < n:
                hi = _nib(line[i])
                lo = _nib(line[i + 1])
                if hi < 0 or lo < 0:
                    break
                ser._put(hi << 4 | lo)
                i += 2
            return
        words = bytes(line[:n]).split()
        cmd = words[0]
        if cmd == b"K" and len(words) == 3:
            name = words[1].decode()
            ms = _int(words[2])
            if name in BUTTONS and 0 < ms <= _HOLD_MAX:
                self._keys.append((BUTTONS.index(name), ms))
                self._key_ev.set()
                return
        elif cmd == b"U" and len(words) == 2 and words[1] in (b"0", b"1"):
            self._usb = words[1] == b"1"
            return
        elif cmd == b"I" and len(words) == 1:
            app = self.app
            import gc
            gc.collect()          # live heap, not garbage
            self._text(b"I %d %d %d %d %d\n" % (self.serial.received, app.handled if app else 0,
                                                 app.sent if app else 0, gc.mem_alloc(), gc.mem_free()))
            return
        elif cmd == b"Q" and len(words) == 1:
            raise Quit()
        self._text(b"E bad control line: " + bytes(line[:min(n, 60)]) + b"\n")

    async def _key_task(self):
        ms = time.ticks_ms
        diff = time.ticks_diff
        while True:
            while not self._keys:
                self._key_ev.clear()
                await self._key_ev.wait()
            b, hold = self._keys.pop(0)
            app = self.app
            before = app.handled
            pin = self.pins[b]
            pin.press()
            await asyncio.sleep_ms(hold)
            pin.release()
            t0 = ms()
            # Done when the app has handled the tap's event, its entry is on
            # flash, and the driver sees the button released again (so the
            # next tap of the same button is a new press).
            while diff(ms(), t0) < _SETTLE_MS:
                if app.handled > before and app.table.pending is None and not app.buttons.is_down(b):
                    break
                await asyncio.sleep_ms(2)
            self.k += 1
            self._text(b"D %d %d\n" % (self.k, app.handled - before))


def build(image=IMAGE, lang=None, usb=False, **options):
    """The simulator's Board: flash in the LittleFS image file `image`."""
    return SimBoard(image, lang, usb)


def run(argv):
    """`micropython -m nakk.board.sim IMAGE [--lang et|en] [--usb]`: run the app until Q."""
    from nakk import app as A
    image = IMAGE
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
    me = sys.modules.get("nakk.board.sim") or sys.modules["__main__"]
    holder = []

    class Mod:
        # nakk.app.main takes a board module; this one remembers the board it builds
        @staticmethod
        def maintenance():
            return me.maintenance()

        @staticmethod
        def build(**opts):
            b = me.build(**opts)
            holder.append(b)
            return b

    try:
        A.main(Mod, image=image, lang=lang, usb=usb)
    except Quit:
        pass
    except NoImage as e:
        sys.stderr.write(e.args[0])
        return 2
    finally:
        for b in holder:
            b.unmount()
    return 0


if __name__ == "__main__":
    # `micropython -m nakk.board.sim IMAGE`: argv[0] is the module name
    sys.exit(run(sys.argv[1:]))
