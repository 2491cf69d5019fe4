"""The simulator's board: a driver for the MicroPython unix port, given to the app like the Pico's board.

Buttons are SimPins, the display is a framebuf whose pages go to the host,
the rings are nakk.drivers.rings.Rings whose bytes go to the host, the flash is a
LittleFS image file (nakk.offbox.blockdev: killing the process is a power
cut), and the USB serial port is a byte buffer that the host relays to a
pseudo-terminal. This module only writes: P, L and S lines on stdout (one
line per message, ASCII, data in lower-case hex). Whatever runs the app in
the simulator -- nakk.offbox.simmain, which owns the control channel and documents
every line of it -- reads stdin and tells this board what arrived.

Board -> host (written here)
    P <mask> <hex>    display pages sent (mask in hex, bit p = page p), each
                      page's 128 bytes in page order
    L <hex> <n>       the rings' GRB bytes (all rings), when they changed; n =
                      rings in use (the sides of the match in play)
    S <hex>           bytes the firmware wrote to the USB serial port
"""

from nakk.compat import const

import sys

import framebuf

from nakk.board import pins as P
from nakk.offbox import simpins

IMAGE = "nakk-flash.img"
MOUNT = "/flash"

_OUT_MAX = const(2100)     # longest line written: P ff + 1024 bytes in hex
_SER_RX = const(2048)      # USB serial receive buffer (bytes; more is dropped and counted)
_SER_CHUNK = const(512)    # serial bytes per S line written
_HEX = b"0123456789abcdef"


def maintenance():
    """The simulator has no maintenance mode: the app always runs."""
    return False


try:
    from io import IOBase as _Stream   # a subclass is a stream that select.poll can watch
except ImportError:  # pragma: no cover
    _Stream = object

_POLL = const(3)        # MP_STREAM_POLL
_POLLIN = const(1)
_POLLOUT = const(4)


class SimSerial(_Stream):
    """board.serial in the simulator: bytes from the host's S lines in (put()),
    S lines out. readinto and write as on the Pico (board/__init__.py), any();
    select.poll and asyncio can watch it for POLLIN like a stream."""

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

    def room(self):
        """Bytes the receive buffer can still take."""
        return len(self._buf) - self._n

    def put(self, c):
        """One byte arrived from the host (the control channel's S line)."""
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

    def readinto(self, buf, n=-1):
        """Copy up to len(buf) (or n) waiting bytes into buf: their count, or None when none wait."""
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
            self._board.data_line(0x53, data, i, j)   # "S"
            i = j
        self.written += n
        return n


class SimNet:
    """board.net in the simulator: the host's loopback, always up (the unix port's sockets are
    the network; a test's relay stands in for the hall's Wi-Fi and its faults). The same shape
    as the Pico W's (board/picow.py): join(ssid, password) starts joining, up() says it is on."""

    def __init__(self):
        self.joins = 0

    def join(self, ssid, password):
        self.joins += 1

    def up(self):
        return True


class SimBoard:
    """A Board (see nakk.board) for the unix port; build() makes one."""

    def __init__(self, image=IMAGE, usb=False):
        from nakk.drivers.rings import Rings
        self.image = image
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
        self.net = SimNet()
        self.bdev = None
        self.usb = usb                  # the box sits on a computer's USB (the host's U line sets it)
        self._out = bytearray(_OUT_MAX)
        self._stdout = sys.stdout.buffer

    # ------------------------------------------------------------ Board
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
        return sent

    def leds(self):
        r = self.rings
        r.ring(0)                      # commits what was painted (the current cap)
        used = r.used
        if self._rings_sent and used == self._rings_used and r.buf == self._last_rings:
            return
        self._last_rings[:] = r.buf
        self._rings_sent = True
        self._rings_used = used
        self.data_line(0x4C, r.buf, 0, len(r.buf), used)   # "L"

    def usb_host(self):
        return self.usb

    def mount(self):
        """Mount the image (once: a second call returns the same directory)."""
        if self.bdev is None:
            from nakk.offbox.blockdev import mount_image
            self.bdev = mount_image(self.image, MOUNT)
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
        """"sim-" and 12 hex digits of the image file's path: each simulated box is its own
        device (as a Pico's unique_id), and keeps its id when its image is formatted anew."""
        import hashlib
        h = hashlib.sha256(self.image.encode()).digest()
        return "sim-" + "".join(["%02x" % b for b in h[:6]])

    def buzz(self, ms):
        pass

    def feed(self):
        pass

    def maintenance(self):
        return False

    # ------------------------------------------------------------ output
    def _write(self, n):
        self._stdout.write(memoryview(self._out)[:n])

    def text(self, s):
        """Write a whole line (bytes ending in \\n) on the host's channel."""
        self._stdout.write(s)

    def data_line(self, tag, data, i, j, extra=-1):
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


def build(image=IMAGE, usb=False, **options):
    """The simulator's Board: flash in the LittleFS image file `image`."""
    return SimBoard(image, usb)
