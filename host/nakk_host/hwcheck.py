"""A flashed box's hardware, checked over its REPL: display and rings answering, each button read once, RAM, flash, clock.

For `nakk doctor` (its box listing comes from the link's hello; these are
the checks that need the board itself). Every check runs on the box in
maintenance mode (no app, no watchdog), builds the board with the firmware's
own board/pico.py (so a wiring or pin-map fault shows as it would in the
app) and returns (ok, detail). The display and the rings cannot be read back
(the SSD1306 and WS2812 are write-only): "answering" is the driver built and
a test pattern sent, which the organiser sees; a person confirms it.
check() runs them all and asks the organiser to press each button in turn.
"""

from nakk_host import flash

BUTTONS = ("A", "B", "C", "PREV", "OK", "NEXT")

_BOARD = """
try:
    _hw
except NameError:
    from nakk.board import pico as _pico
    _hw = _pico.build(watchdog=False, buzzer=False)
"""

_DISPLAY = _BOARD + """
_fb = _hw.fb
_fb.fill(0)
_fb.rect(0, 0, 128, 64, 1)
_fb.text('nakk doctor', 20, 20, 1)
_fb.text('display OK', 24, 36, 1)
print(repr(_hw.show(0xFF)))
"""

_RINGS = _BOARD + """
_n = 0
for _np in _hw._np:
    for _j in range(_np.n):
        _np[_j] = (0, 24, 0) if _j % 4 == 0 else (0, 0, 0)
    _np.write()
    _n += 1
print(repr(_n))
"""

# Waits for the first button to go down (after all are up), then for its release: (name, ms held).
_BUTTON = _BOARD + """
import time
from nakk.board import pins as _P
def _nakk_button(timeout_ms):
    pins = [(n, p) for (n, g), p in zip(_P.BUTTONS, _hw.pins) if p is not None]
    t0 = time.ticks_ms()
    while any(p.value() == _P.BTN_PRESSED for n, p in pins):
        if time.ticks_diff(time.ticks_ms(), t0) > timeout_ms:
            return ('stuck', [n for n, p in pins if p.value() == _P.BTN_PRESSED])
        time.sleep_ms(5)
    while time.ticks_diff(time.ticks_ms(), t0) < timeout_ms:
        for n, p in pins:
            if p.value() == _P.BTN_PRESSED:
                t1 = time.ticks_ms()
                while p.value() == _P.BTN_PRESSED and time.ticks_diff(time.ticks_ms(), t1) < 10000:
                    time.sleep_ms(2)
                return (n, time.ticks_diff(time.ticks_ms(), t1))
        time.sleep_ms(2)
    return None
print(repr(_nakk_button(%d)))
"""

_MEMORY = """
import gc, os
gc.collect()
_s = os.statvfs('/')
print(repr((gc.mem_free(), gc.mem_alloc(), _s[0] * _s[3], _s[0] * _s[2])))
"""

_CLOCK = """
import machine, sys, time
print(repr((machine.freq(), time.localtime()[:6], time.ticks_ms(), getattr(sys.implementation, '_machine', ''))))
"""


def display(box):
    """Draw a test pattern (a border and two lines of text): ok when the whole frame went out."""
    sent = box.run(_DISPLAY)
    return sent == 1024, "test pattern sent (%s bytes): a border and \"nakk doctor / display OK\"" % sent


def rings(box):
    """Light every fourth LED of each ring green (dim): ok when every ring's data was written."""
    n = box.run(_RINGS)
    return n >= 2, "%d ring%s lit: every fourth LED green" % (n, "" if n == 1 else "s")


def button(box, name, timeout_s=20):
    """Wait for one button press; ok when it is the button asked for."""
    got = box.run(_BUTTON % int(timeout_s * 1000), timeout=timeout_s + 15)
    if got is None:
        return False, "no button pressed in %d s" % timeout_s
    if got[0] == "stuck":
        return False, "held down before the check: %s (stuck, or pressed too early)" % ", ".join(got[1])
    if got[0] != name:
        return False, "%s was asked for, %s answered (wiring or pin map?)" % (name, got[0])
    return True, "%s read (%d ms)" % (name, got[1])


def memory(box):
    free, used, ffree, fsize = box.run(_MEMORY)
    return free >= 60000, "RAM %d KB free of %d KB; flash %d KB free of %d KB" % (
        free // 1024, (free + used) // 1024, ffree // 1024, fsize // 1024)


CPU_MHZ = 200   # what the firmware's boot.py sets on an RP2040 (firmware/nakk/board/pico.py, CPU_HZ)


def clock(box):
    hz, now, ticks, board = box.run(_CLOCK)
    mhz = hz // 1000000
    # another chip (a Pico 2's RP2350) keeps MicroPython's clock: fast_clock() is for the RP2040
    low = mhz < CPU_MHZ and "RP2040" in board
    why = " (the firmware sets %d MHz at boot: flash the box again)" % CPU_MHZ if low else ""
    return not why, "CPU %d MHz%s; clock %04d-%02d-%02d %02d:%02d:%02d (set by the judge's assignment); up %d s" % (
        mhz, why, now[0], now[1], now[2], now[3], now[4], now[5], ticks // 1000)


def check(port=None, say=print, ask=None, buttons=BUTTONS, timeout_s=20, db=None):
    """Every check on the one box (or port): [(name, ok, detail)]. ask(question) -> bool confirms what
    a person must see (the display, the rings); None takes the pattern being sent as enough. db: the
    judge's database, whose key for a paired box signs the request for maintenance mode."""
    port = flash.pick_port(port)
    box, probe = flash._connect(port, say, db)
    out = []
    try:
        for name, fn in (("display", display), ("rings", rings)):
            ok, detail = fn(box)
            if ok and ask is not None:
                ok = ask("Does the box show it? %s" % detail)
            out.append((name, ok, detail))
            say("%-8s %s  %s" % (name, "ok " if ok else "BAD", detail))
        for b in buttons:
            say("press %s on the box (once)" % b)
            ok, detail = button(box, b, timeout_s)
            out.append(("button " + b, ok, detail))
            say("%-8s %s  %s" % (b, "ok " if ok else "BAD", detail))
        for name, fn in (("memory", memory), ("clock", clock)):
            ok, detail = fn(box)
            out.append((name, ok, detail))
            say("%-8s %s  %s" % (name, "ok " if ok else "BAD", detail))
        flash.restart(box)
    finally:
        box.close()
    return out


def cmd(args, error):
    """`nakk doctor --hardware [--port URL]`: the checks on one box; exit status 1 when one fails."""
    import sys
    ports = args.port or []
    if len(ports) > 1:
        raise error("--hardware checks one box at a time: name one --port")
    ask = None
    if sys.stdin.isatty():
        def ask(question):
            return input(question + " [Y/n] ").strip().lower() in ("", "y", "yes", "j", "jah")
    try:
        results = check(ports[0] if ports else None, say=print, ask=ask, db=getattr(args, "db", None))
    except flash.FlashError as e:
        raise error(str(e))
    bad = [name for name, ok, _detail in results if not ok]
    print("all hardware checks passed" if not bad else "not right: " + ", ".join(bad))
    return 1 if bad else 0
