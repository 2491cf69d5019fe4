"""Fake `machine`, `neopixel` and `ssd1306` modules for testing nakk.board.pico on the unix port.

install() puts them into sys.modules; do it BEFORE importing nakk.board.pico
(the unix port has a `machine` module of its own). The fakes record what the
board does to them:

    PINS / BY_ID   every Pin built, in order / the latest Pin per GPIO
    COUNTS         instances built per class name
    LEVELS         GPIO -> level an input reads (default: 1 with a pull-up, else 0)
    ADC_LEVELS     GPIO -> read_u16() of an ADC on that pin (default 0)
    LOG            SPI writes while RECORD[0]: (dc level, cs level, bytes)
    DC_CS          [dc gpio, cs gpio] whose levels LOG records

Moving pins and writing to the SPI allocate nothing while RECORD[0] is
False, so a test can measure the board's own allocations.

The ssd1306 fake has the shape of micropython-lib's driver: SSD1306 is a
framebuf.FrameBuffer over its own `buffer`, init_display() writes command
bytes and show()s the blank frame; SSD1306_SPI's write_cmd/write_data
re-init the bus at the driver's `rate` and write_cmd allocates a one-byte
buffer per command, as upstream does. The board is expected to replace
both with allocation-free writes at its own bus rate.
"""
import sys

import framebuf

PINS = []
BY_ID = {}
COUNTS = {}
LEVELS = {}
ADC_LEVELS = {}
LOG = []
RECORD = [True]
DC_CS = [-1, -1]
FAIL = [False]  # Pin() raises OSError while True (boot.py must survive it)
SPIS = []
WDTS = []
PWMS = []
TIMERS = []
NEOPIXELS = []
OLEDS = []
RESETS = [0]
UID = b"\xe6\x61\x38\x52\x83\x4b\x2c\x21"


def reset():
    """Forget everything built so far (levels stay unless cleared by the test)."""
    for lst in (PINS, LOG, SPIS, WDTS, PWMS, TIMERS, NEOPIXELS, OLEDS, CLOCK):
        del lst[:]
    FREQ[0] = 125000000
    CHIP_ID[0] = 0x10002927
    BY_ID.clear()
    COUNTS.clear()
    RECORD[0] = True
    FAIL[0] = False
    RESETS[0] = 0


def _count(name):
    COUNTS[name] = COUNTS.get(name, 0) + 1


def _level(gpio):
    p = BY_ID.get(gpio)
    return -1 if p is None else p._v


# ---------------------------------------------------------------- machine

class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if FAIL[0]:
            raise OSError(19)
        _count("Pin")
        self.id = id
        self.mode = mode
        self.pull = pull
        self._v = 0 if value is None else value
        self.handler = None
        PINS.append(self)
        BY_ID[id] = self

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self._v = value

    def _read(self):
        if self.mode == 1:
            return self._v
        return LEVELS.get(self.id, 1 if self.pull == 1 else 0)

    def value(self, v=None):
        if v is None:
            return self._read()
        self._v = v

    def __call__(self, v=None):
        if v is None:
            return self._read()
        self._v = v

    def irq(self, handler=None, trigger=12, hard=False):
        self.handler = handler


class SPI:
    def __init__(self, id, baudrate=1000000, polarity=0, phase=0, bits=8, firstbit=0,
                 sck=None, mosi=None, miso=None):
        _count("SPI")
        self.cpu_hz = FREQ[0]     # its divider comes from the clock at construction
        self.id = id
        self.baudrate = baudrate
        self.polarity = polarity
        self.phase = phase
        self.sck = sck
        self.mosi = mosi
        self.miso = miso
        self.inits = 0
        self.writes = 0
        self.nbytes = 0
        SPIS.append(self)

    def init(self, baudrate=None, polarity=0, phase=0, **kw):
        self.inits += 1
        if baudrate is not None:
            self.baudrate = baudrate

    def write(self, buf):
        self.writes += 1
        self.nbytes += len(buf)
        if RECORD[0]:
            LOG.append((_level(DC_CS[0]), _level(DC_CS[1]), bytes(buf)))


class WDT:
    def __init__(self, id=0, timeout=5000):
        _count("WDT")
        self.timeout = timeout
        self.feeds = 0
        WDTS.append(self)

    def feed(self):
        self.feeds += 1


class PWM:
    def __init__(self, dest, **kw):
        _count("PWM")
        self.pin = dest
        self._freq = kw.get("freq", 0)
        self._duty = kw.get("duty_u16", 0)
        PWMS.append(self)

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d

    def deinit(self):
        self._duty = 0


class Timer:
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kw):
        _count("Timer")
        self.mode = None
        self.period = None
        self.callback = None
        TIMERS.append(self)

    def init(self, mode=1, period=-1, callback=None, **kw):
        self.mode = mode
        self.period = period
        self.callback = callback

    def deinit(self):
        self.callback = None

    def fire(self):
        """The test's stand-in for the period running out."""
        cb = self.callback
        if self.mode == Timer.ONE_SHOT:
            self.callback = None
        if cb is not None:
            cb(self)


class ADC:
    def __init__(self, src):
        _count("ADC")
        self.pin = src

    def read_u16(self):
        return ADC_LEVELS.get(getattr(self.pin, "id", self.pin), 0)


def unique_id():
    return UID


def machine_reset():
    RESETS[0] += 1


# the clock and the core voltage: [("mem32", address, value) | ("freq", hz)] in the order done
CLOCK = []
FREQ = [125000000]            # MicroPython's clock at power-on
CHIP_ID = [0x10002927]        # SYSINFO.CHIP_ID: an RP2040 B1 (PART 2); an RP2350's PART is 4


def freq(f=None):
    if f is None:
        return FREQ[0]
    CLOCK.append(("freq", f))
    FREQ[0] = f


class _Mem32:
    def __getitem__(self, addr):
        if addr == 0x40000000:
            return CHIP_ID[0]
        return 0x10B1 if addr == 0x40064000 else 0   # VREG at reset: 1.10 V, in regulation

    def __setitem__(self, addr, value):
        CLOCK.append(("mem32", addr, value))


# ---------------------------------------------------------------- neopixel

class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        _count("NeoPixel")
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.timing = timing
        pin.init(pin.OUT)
        self.nwrites = 0
        self.written = []
        NEOPIXELS.append(self)

    def write(self):
        self.nwrites += 1
        if RECORD[0]:
            self.written.append(bytes(self.buf))


# ---------------------------------------------------------------- ssd1306

_INIT = (0xAE, 0x20, 0x00, 0x40, 0xA1, 0xA8, 63, 0xC8, 0xD3, 0x00, 0xDA, 0x12,
         0xD5, 0x80, 0xD9, 0xF1, 0xDB, 0x30, 0x81, 0xFF, 0xA4, 0xA6, 0x8D, 0x14, 0xAF)


class SSD1306(framebuf.FrameBuffer):
    def __init__(self, width, height, external_vcc):
        self.width = width
        self.height = height
        self.external_vcc = external_vcc
        self.pages = height // 8
        self.buffer = bytearray(self.pages * width)
        super().__init__(self.buffer, width, height, framebuf.MONO_VLSB)
        self.init_display()

    def init_display(self):
        for c in _INIT:  # display off, horizontal addressing (0x20 0x00), ..., display on
            self.write_cmd(c)
        self.fill(0)
        self.show()

    def poweroff(self):
        self.write_cmd(0xAE)

    def poweron(self):
        self.write_cmd(0xAF)

    def contrast(self, c):
        self.write_cmd(0x81)
        self.write_cmd(c)

    def show(self):
        for c in (0x21, 0, self.width - 1, 0x22, 0, self.pages - 1):
            self.write_cmd(c)
        self.write_data(self.buffer)


class SSD1306_SPI(SSD1306):
    def __init__(self, width, height, spi, dc, res, cs, external_vcc=False):
        _count("SSD1306_SPI")
        self.rate = 10 * 1024 * 1024
        dc.init(dc.OUT, value=0)
        res.init(res.OUT, value=0)
        cs.init(cs.OUT, value=1)
        self.spi = spi
        self.dc = dc
        self.res = res
        self.cs = cs
        res(1)
        res(0)
        res(1)
        OLEDS.append(self)
        super().__init__(width, height, external_vcc)

    def write_cmd(self, cmd):
        self.spi.init(baudrate=self.rate, polarity=0, phase=0)
        self.cs(1)
        self.dc(0)
        self.cs(0)
        self.spi.write(bytearray([cmd]))
        self.cs(1)

    def write_data(self, buf):
        self.spi.init(baudrate=self.rate, polarity=0, phase=0)
        self.cs(1)
        self.dc(1)
        self.cs(0)
        self.spi.write(buf)
        self.cs(1)


# ---------------------------------------------------------------- install

class _Module:
    def __init__(self, name, **attrs):
        self.__name__ = name
        for k in attrs:
            setattr(self, k, attrs[k])


machine = _Module("machine", Pin=Pin, SPI=SPI, WDT=WDT, PWM=PWM, Timer=Timer, ADC=ADC,
                  unique_id=unique_id, reset=machine_reset, freq=freq, mem32=_Mem32())
neopixel = _Module("neopixel", NeoPixel=NeoPixel)
ssd1306 = _Module("ssd1306", SSD1306=SSD1306, SSD1306_SPI=SSD1306_SPI)


def install(with_ssd1306=True):
    sys.modules["machine"] = machine
    sys.modules["neopixel"] = neopixel
    if with_ssd1306:
        sys.modules["ssd1306"] = ssd1306
    elif "ssd1306" in sys.modules:
        del sys.modules["ssd1306"]
