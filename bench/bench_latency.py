"""Bench: figures for docs/latency.md -- the unix-port-to-RP2040 speed factor and the Python cost of board.show()/leds().

Run:  python bench/bench_latency.py     (re-runs itself on the unix port with
      firmware/ and tests/mpy/ on MICROPYPATH)

Figures printed:
1. the unix port's time for the "Integer addition 1000000 times" loop of
   shaoziyang/micropython_benchmarks, whose README gives 7984 ms for
   MicroPython 1.23.0 on an RP2040 at 125 MHz; their ratio is the factor
   docs/latency.md scales unix-port times by (an estimate: one loop, one
   board, and this machine's load);
2. nakk.board.pico's show(mask) and leds() per call on the unix port, with
   the fake machine/ssd1306/neopixel of tests/mpy/pico_fakes.py: Python
   overhead only (the fakes' bus writes are Python too, so this is an upper
   bound; the real bus time is computed in docs/latency.md).
"""
import sys

RP2040_ADD_1E6_MS = 7984  # shaoziyang/micropython_benchmarks README, RP2040 MicroPython v1.23.0 column


def _launch():
    import os
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(exe):
        import shutil
        exe = shutil.which("micropython")
    if not exe:
        sys.exit("bench_latency: the MicroPython unix port (micropython) is not installed")
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join((os.path.join(root, "firmware"), os.path.join(root, "tests", "mpy"),
                                   ".frozen"))
    sys.exit(subprocess.run([exe, "-X", "heapsize=320K", os.path.abspath(__file__)],
                            env=env, cwd=root).returncode)


def _add_test(p):
    for i in range(p[0]):
        C = p[1] + p[2]  # noqa: F841


def _best_us(f, arg, n):
    import time
    best = 1 << 30
    for _ in range(n):
        t0 = time.ticks_us()
        f(arg)
        best = min(best, time.ticks_diff(time.ticks_us(), t0))
    return best


def _bench():
    import gc
    import time

    gc.collect()
    add_ms = _best_us(_add_test, [1000000, 12345678, 56781234], 7) / 1000
    factor = RP2040_ADD_1E6_MS / add_ms

    import pico_fakes as F
    F.install()
    from nakk.board import pico
    b = pico.build(watchdog=False)
    F.RECORD[0] = False
    b.rings.nakks(0, 7)
    b.rings.nakks(1, 3)
    b.rings.nakks(2, 12)

    def shows(mask):
        for _ in range(100):
            b.show(mask)

    def leds(_):
        for _ in range(100):
            b.leds()

    full = _best_us(shows, 0xFF, 5) / 100
    two = _best_us(shows, 0b00000110, 5) / 100
    five = _best_us(shows, 0b01101101, 5) / 100  # 5 pages in 3 runs
    led = _best_us(leds, 0, 5) / 100

    v = sys.implementation.version
    print("bench_latency: MicroPython %d.%d.%d unix port, -X heapsize=320K" % (v[0], v[1], v[2]))
    print("int add loop 1e6 (best of 7): %.1f ms here, %d ms on an RP2040 at 125 MHz -> factor %.0f"
          % (add_ms, RP2040_ADD_1E6_MS, factor))
    print("board.show() per call with the fake bus (Python overhead, here): show(0xFF) %.1f us,"
          " show(0b00000110) %.1f us, show(0b01101101: 5 pages in 3 runs) %.1f us" % (full, two, five))
    print("  x factor -> on the RP2040 about %.0f us per run of pages, on top of the bus time (upper bound)"
          % (five / 3 * factor))
    print("board.leds() with fake NeoPixels (3 rings): %.1f us here -> about %.0f us x factor (upper bound)"
          % (led, led * factor))


if sys.implementation.name == "micropython":
    _bench()
elif __name__ == "__main__":
    _launch()
