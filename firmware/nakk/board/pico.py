"""The real board: a Raspberry Pi Pico wired as in board/pins.py (hardware/README.md).

build(**options) builds every piece of hardware once and returns a Board
(the interface is in board/__init__.py). maintenance() is a module function
too, so that boot can ask it before anything is built.

Decisions worth knowing
-----------------------
* Display: micropython-lib's `ssd1306` (installed with mip, see
  firmware/package.json) on SPI(pins.SPI_ID). The driver object is the
  FrameBuffer (`fb`) and its own 1 KiB buffer is the frame (`buf`): no second
  copy. Upstream `SSD1306_SPI.write_cmd` allocates `bytearray([cmd])` for
  every command byte and every write re-inits the bus at its own rate,
  10 * 1024 * 1024 Hz, which the RP2040 rounds to 10.4 MHz, over the
  SSD1306's 10 MHz. The subclass below keeps the driver's API and init
  sequence but writes from preallocated buffers on the bus as built here,
  at pins.SPI_BAUD (the OLED is the only device on SPI0). On an RP2040 at
  125 MHz the SDK's divider turns the 10 MHz asked for into 8.93 MHz.
* show(mask) sends only the dirty pages: one column/page window (6 command
  bytes) and one data write per run of consecutive set bits. The data is a
  memoryview made once at build for each of the 36 possible runs, so show()
  allocates nothing (slicing a memoryview would allocate a new one).
* LED rings: one `neopixel.NeoPixel` (built into MicroPython) per ring pin. Its `buf`
  IS the ring's view of the Rings buffer (rings.ring(i)), so leds() copies
  nothing and allocates nothing on any MicroPython version (a slice copy
  `np.buf[:] = view` heap-allocates its slice object before 1.26).
  bitstream() runs with interrupts off: 0.48 ms per 16-LED ring; button
  edges are latched by the hardware meanwhile.
* usb_host() follows hardware/power.md: true while VBUS is present AND a
  battery is fitted. The Pico's own USB socket is the judge's: on a LiPo
  box the charger goes into the PowerBoost's socket, so VBUS there means a
  computer (or someone's charger in the wrong socket: dimming is still the
  safe answer). A USB-only box always sees VBUS, also on a wall charger at
  the table, so for it usb_host() stays false and the app dims when the
  judge's link talks to it (power.md); vbus() and battery_mv() give the raw
  readings. On a Pico W, GP24 is not VBUS (it reads WL_GPIO2 via the radio).
* serial: UsbSerial over the USB CDC port (sys.stdin.buffer and
  sys.stdout.buffer): readinto(buf) takes only the bytes that are there
  (select.poll with a 0 timeout, byte by byte into the caller's buffer: no
  allocation, never a blocking read), write(data) writes them. The same
  shape as the simulator's serial (board/__init__.py).
* Clock: 200 MHz (fast_clock(), from boot.py and again in build()), with
  the core voltage raised to 1.15 V first. Raspberry Pi certified the
  RP2040 for 200 MHz at 1.15 V with Pico SDK 2.1.1 (February 2025; it had
  been 133 MHz, and MicroPython still starts at 125 MHz): the same steps
  as the SDK's SYS_CLK_MHZ=200 (the regulator's VSEL, 1 ms for it to
  settle, then the PLL). Every press answers in 5/8 of the time (Python
  runs cycle for cycle); SPI, PIO and the neopixel bitstream are set up
  after it, so their rates are computed from the new clock; USB runs
  from its own PLL and the watchdog from the crystal. Only on an RP2040
  (SYSINFO.CHIP_ID): another chip keeps the clock MicroPython set.
* Watchdog: build() starts machine.WDT(timeout=8000) unless watchdog=False
  (main.py builds with no options, so the app always runs under it).
* Maintenance mode: requested by the flag file MAINTENANCE_FLAG (written by
  request_maintenance(), e.g. for the link's `repl` command) or by holding
  OK at power-on. maintenance() decides once per boot: its first call
  (boot.py) removes the flag so the next boot is normal, and every later
  call in the same boot (app.main via main.py) gets the same answer.
"""

import os
import sys
import time

import machine
from nakk.compat import const

from nakk.board import pins as P

MAINTENANCE_FLAG = "/maintenance"
JOURNAL_DIR = "/journal"  # the flash is mounted at "/" by MicroPython itself
SETTINGS = "/settings.json"

BUZZ_HZ = const(4000)  # the piezo's resonance (hardware/README.md: ~4 kHz)
WDT_MS = const(8000)  # the RP2040's watchdog allows up to 8388 ms

_SET_COL_ADDR = const(0x21)
_SET_PAGE_ADDR = const(0x22)
_PAGES = const(8)  # P.OLED_HEIGHT // 8

_decided = None  # maintenance(): None until the first call of this boot

CPU_HZ = const(200000000)    # the RP2040's certified top clock at 1.15 V (Pico SDK 2.1.1)
_SAFE_HZ = const(133000000)  # the top clock at the default 1.10 V
_VREG = const(0x40064000)    # VREG_AND_CHIP_RESET.VREG
_VREG_1V15 = const(0xC1)     # VSEL = 1.15 V, regulator enabled, not high-impedance
_CHIP_ID = const(0x40000000)  # SYSINFO.CHIP_ID, at this address on the RP2040 and the RP2350
_RP2040 = const(2)           # its PART field (bits 12-27) on an RP2040
cpu_hz = CPU_HZ              # what fast_clock() sets; a bench may set MicroPython's 125 MHz first


# ---------------------------------------------------------------- clock

def fast_clock():
    """Run an RP2040 at cpu_hz (200 MHz): above 133 MHz the core voltage goes to 1.15 V first.
    Another chip keeps the clock it booted with."""
    hz = cpu_hz
    if machine.freq() == hz:
        return
    if (machine.mem32[_CHIP_ID] >> 12) & 0xFFFF != _RP2040:
        # another chip (a Pico 2's RP2350, which runs this firmware unchanged: hardware/README.md): _VREG
        # is not its regulator, and 200 MHz is the RP2040's certification: its clock stays
        return
    if hz > _SAFE_HZ:
        machine.mem32[_VREG] = _VREG_1V15
        time.sleep_ms(1)     # the SDK's wait for the regulator before a faster clock
    machine.freq(hz)


# ---------------------------------------------------------------- maintenance

def maintenance():
    """True when this boot is maintenance mode: no app, no watchdog, REPL free.

    Asked by the flag file (removed here, so the next boot is normal) or by
    OK held low at power-on. Decided by the first call of the boot; later
    calls return the same answer. Usable before build()."""
    global _decided
    if _decided is None:
        _decided = _take_flag() or _ok_held()
    return _decided


def _take_flag():
    try:
        os.stat(MAINTENANCE_FLAG)
    except OSError:
        return False
    try:
        os.remove(MAINTENANCE_FLAG)
    except OSError:
        pass  # a read-only or damaged filesystem: honour the flag anyway
    return True


def _ok_held():
    Pin = machine.Pin
    ok = Pin(P.BTN_OK, Pin.IN, Pin.PULL_UP)
    time.sleep_ms(2)  # let the pull-up charge the wire
    if ok.value() != P.BTN_PRESSED:
        return False
    time.sleep_ms(20)  # still down after 20 ms: held, not a glitch
    return ok.value() == P.BTN_PRESSED


def request_maintenance(reset=True):
    """Write the maintenance flag and (by default) reset into maintenance mode.

    For the link's `repl` request: the watchdog cannot be stopped, so the
    way to a free REPL is a reset into a boot that starts neither."""
    with open(MAINTENANCE_FLAG, "w") as f:
        f.write("1")
    if reset:
        machine.reset()


# ---------------------------------------------------------------- display

def _oled_class():
    try:
        import ssd1306
    except ImportError:
        raise ImportError("ssd1306 missing: mpremote mip install ssd1306 (firmware/package.json)")

    class Oled(ssd1306.SSD1306_SPI):
        """micropython-lib's SSD1306_SPI writing from preallocated buffers at the bus rate set by build()."""

        def __init__(self, spi, dc, res, cs):
            self._c1 = bytearray(1)
            super().__init__(P.OLED_WIDTH, P.OLED_HEIGHT, spi, dc, res, cs)

        def write_cmd(self, cmd):
            self._c1[0] = cmd
            self.write_cmds(self._c1)

        def write_cmds(self, buf):
            """Several command bytes in one chip-select window."""
            cs = self.cs
            cs(1)
            self.dc(0)
            cs(0)
            self.spi.write(buf)
            cs(1)

        def write_data(self, buf):
            cs = self.cs
            cs(1)
            self.dc(1)
            cs(0)
            self.spi.write(buf)
            cs(1)

    return Oled


# ---------------------------------------------------------------- the serial link

class UsbSerial:
    """board.serial on the Pico: the USB CDC port, read without ever blocking."""

    def __init__(self, stdin=None, stdout=None):
        import select
        self._in = stdin if stdin is not None else sys.stdin.buffer
        self._out = stdout if stdout is not None else sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(self._in, select.POLLIN)
        self._one = bytearray(1)

    def _ready(self):
        for _ in self._poll.ipoll(0):   # ipoll: no list allocated
            return True
        return False

    def readinto(self, buf):
        """Copy the bytes waiting (up to len(buf)) into buf: their count, or None when none wait."""
        n = 0
        k = len(buf)
        one = self._one
        while n < k and self._ready():
            if not self._in.readinto(one):
                break                     # end of input (never on USB CDC; a pipe in tests)
            buf[n] = one[0]
            n += 1
        return n if n else None

    def write(self, data):
        """Send bytes to the judge's end; returns how many."""
        return self._out.write(data)


# ---------------------------------------------------------------- the board

class Board:
    """The reference build's hardware; see board/__init__.py for the members."""

    def __init__(self, watchdog=True, sides=3, buzzer=True, vbus=None):
        """vbus: what reads VBUS (an object with value()); default GP24's pin (a Pico W's board
        gives its own: GP24 is the radio's data line there, picow.py)."""
        from nakk.drivers.rings import Rings
        from neopixel import NeoPixel

        if sides not in (2, 3):
            raise ValueError("sides")
        fast_clock()             # before SPI and the rings: their rates follow the clock
        Pin = machine.Pin
        self.clock = None
        self.settings = SETTINGS

        # Buttons, in nakk.drivers.buttons order (A, B, C, PREV, OK, NEXT).
        self.pins = tuple(
            None if name == "C" and sides < 3 else Pin(gpio, Pin.IN, Pin.PULL_UP)
            for name, gpio in P.BUTTONS)

        # Display. SPI(0) also claims its MISO pin: named here so that it
        # shows in the pin map and stays unconnected.
        self.spi = machine.SPI(P.SPI_ID, baudrate=P.SPI_BAUD, polarity=0, phase=0,
                               sck=Pin(P.SPI_SCK), mosi=Pin(P.SPI_MOSI), miso=Pin(P.SPI_MISO))
        self.oled = _oled_class()(self.spi, Pin(P.OLED_DC), Pin(P.OLED_RST), Pin(P.OLED_CS))
        self.fb = self.oled
        self.buf = self.oled.buffer
        w = P.OLED_WIDTH
        self._cmd = bytearray((_SET_COL_ADDR, 0, w - 1, _SET_PAGE_ADDR, 0, _PAGES - 1))
        mv = memoryview(self.buf)
        self._runs = tuple(mv[w * a:w * (b + 1)] if b >= a else None
                           for a in range(_PAGES) for b in range(_PAGES))

        # LED rings: one ring and one NeoPixel per side.
        self.rings = Rings(sides, P.MAX_TOTAL_MA, P.LED_MA_PER_CHANNEL, leds=P.LEDS_PER_RING,
                           dim_max_total_ma=P.USB_MAX_TOTAL_MA)
        nps = []
        for i in range(sides):
            np = NeoPixel(Pin(P.RINGS[i], Pin.OUT), P.LEDS_PER_RING)
            np.buf = self.rings.ring(i)  # shared, not copied
            nps.append(np)
        self._np = tuple(nps)

        # Supply sensing.
        self._vbus = vbus if vbus is not None else Pin(P.VBUS_SENSE, Pin.IN)
        self._bat = machine.ADC(Pin(P.BAT_ADC))

        # Serial link: the USB CDC port (the REPL's).
        self.serial = UsbSerial()

        # Buzzer: PWM stays built; buzz() sets the duty, a one-shot timer clears it.
        self._pwm = None
        if buzzer:
            self._pwm = machine.PWM(Pin(P.BUZZER))
            self._pwm.freq(BUZZ_HZ)
            self._pwm.duty_u16(0)
            self._timer = machine.Timer()
            self._quiet_cb = self._quiet  # bound once: the timer allocates nothing

        # Watchdog last, once everything above has come up.
        self._wdt = machine.WDT(timeout=WDT_MS) if watchdog else None

    # -- display
    def show(self, mask=0xFF):
        """Send the pages of buf whose bit is set in mask; returns the data bytes sent."""
        cmd = self._cmd
        oled = self.oled
        runs = self._runs
        sent = 0
        p = 0
        while p < _PAGES:
            if not (mask >> p) & 1:
                p += 1
                continue
            q = p
            while q < _PAGES - 1 and (mask >> (q + 1)) & 1:
                q += 1
            cmd[4] = p
            cmd[5] = q
            oled.write_cmds(cmd)
            v = runs[p * _PAGES + q]
            oled.write_data(v)
            sent += len(v)
            p = q + 1
        return sent

    # -- LED rings
    def leds(self):
        """Write every ring's committed colours (rings.ring(i) commits pending paint)."""
        rings = self.rings
        nps = self._np
        for i in range(len(nps)):
            rings.ring(i)
            nps[i].write()

    # -- power
    def vbus(self):
        """True while USB power is on the Pico's own socket."""
        return self._vbus.value() == 1

    def battery_mv(self):
        """The LiPo's voltage in mV (0 when no battery is fitted). Small ints only."""
        return self._bat.read_u16() * P.ADC_VREF_MV * P.BAT_DIV // 65535

    def usb_host(self):
        """True on a computer's USB: VBUS present and a battery fitted (see the module notes)."""
        return self._vbus.value() == 1 and self.battery_mv() >= P.BAT_PRESENT_MV

    # -- storage
    def mount(self):
        """MicroPython mounts the flash at "/" before boot.py: just the journal's directory."""
        return JOURNAL_DIR

    def device_id(self):
        import binascii
        return binascii.hexlify(machine.unique_id()).decode()

    # -- feedback
    def buzz(self, ms):
        """Beep for ms milliseconds without blocking (ms <= 0: stop)."""
        pwm = self._pwm
        if pwm is None:
            return
        if ms <= 0:
            pwm.duty_u16(0)
            return
        pwm.duty_u16(32768)
        self._timer.init(mode=machine.Timer.ONE_SHOT, period=ms, callback=self._quiet_cb)

    def _quiet(self, _t):
        self._pwm.duty_u16(0)

    # -- watchdog
    def feed(self):
        if self._wdt is not None:
            self._wdt.feed()

    def maintenance(self):
        return maintenance()

    def request_maintenance(self):
        """Write the maintenance flag and reset into maintenance mode (the link's `repl`,
        or mpremote's raw-REPL request arriving while the app runs)."""
        request_maintenance()


def build(watchdog=True, sides=3, buzzer=True, **_options):
    """The Board of the reference build.

    watchdog: start machine.WDT(timeout=8000), on by default so that the
      app always has it (main.py builds with no options). It cannot be
      stopped and survives a soft reset: the app must call feed() more often
      than that, and at the REPL (maintenance mode) build(watchdog=False).
    sides: 3 (default; A, B, C rings and buttons) or 2 (a four-player box
      without C: pins[2] is None and there are two rings).
    buzzer: False leaves the piezo pin alone and buzz() silent.
    Other options (those of other boards) are ignored."""
    return Board(watchdog=watchdog, sides=sides, buzzer=buzzer)
