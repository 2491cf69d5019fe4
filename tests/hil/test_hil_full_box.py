"""On the emulated Pico: a box with 100 finished, unsynced matches on its flash boots to the start screen,
answers hello with every one waiting, keeps heap to spare, and plays a whole match on top of them.

It runs on the `picoemu` fixture of tests/hil/conftest.py (skipped, "HIL NOT RUN", without the kit), on the
shipped UF2 and on stock MicroPython with .mpy (`uf2_firmware`).
The image is bench/bench_pico_boot.py's: the firmware as .mpy (as nakk flash builds it for the Pico),
main.py as firmware/main.py runs the app plus one print of the heap, and the journal written by the
firmware's own journal on the unix port. With main's journal before branch mem (a small list per
match) this box died at boot: MemoryError in the link's 4 KB buffer.

What the spare heap is for is shown, not assumed: the second test plays a whole Saare mäng match
through the buttons on the full box, and then the box holds 101 results and still has heap free.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import bench_pico_boot as B  # noqa: E402
from nakk_host import device as D  # noqa: E402
from nakk_host.simulator import LONG_MS, SHORT_MS, parse_keys  # noqa: E402

MATCHES = 100
# Heap a full box must have after boot: what a match played on it takes (~20 KB, measured by the
# second test: free after boot less free once the match is over and collected) on top of what must
# be left once that match is over (a sync's frames and more). The second test plays the match and
# checks the second figure itself; this one says early, at boot, that the first one fits.
AFTER_MATCH = 16 * 1024   # heap left once that match is over: a sync's frames and more
MATCH_NEEDS = 20 * 1024
SPARE = AFTER_MATCH + MATCH_NEEDS
DUMP_PIN = 10             # free on the reference build (hardware/pins)
GAP_US = 150000           # a release to the next press
SETTLE_US = 400000        # a press's frames (and an entry's save) are done by then

assert b"    asyncio.run(a.run())" in B.MAIN      # where PLAY_MAIN adds its heap report
PLAY_MAIN = B.MAIN.replace(b"    asyncio.run(a.run())", b"""    from machine import Pin
    flag = asyncio.ThreadSafeFlag()
    pin = Pin(%d, Pin.IN, Pin.PULL_UP)
    pin.irq(lambda p: flag.set(), Pin.IRQ_FALLING)
    async def report():
        while True:
            await flag.wait()
            gc.collect()
            print("nakk-heap free %%d fault %%r" %% (gc.mem_free(), a.fault))
    a.spawn(report())
    asyncio.run(a.run())""" % DUMP_PIN)


def test_a_box_with_100_matches_boots_on_the_pico(picoemu, uf2_firmware, tmp_path):
    img = B.make_image(picoemu, str(tmp_path), "full", MATCHES, frozen=uf2_firmware is not None)
    (free, alloc), ms, hello, wdt = B.boot(picoemu, img, MATCHES, uf2_firmware)   # NotBooted fails with why
    assert hello["unsynced"] == MATCHES and hello["ready"] == MATCHES
    assert wdt == 0, "the watchdog reset the box while it read its journal"
    assert free >= SPARE, "only %d bytes of heap free after boot (%d in use)" % (free, alloc)


def test_a_box_with_100_matches_plays_a_whole_match(picoemu, uf2_firmware, tmp_path, monkeypatch):
    monkeypatch.setattr(B, "MAIN", PLAY_MAIN)
    img = B.make_image(picoemu, str(tmp_path), "full", MATCHES, frozen=uf2_firmware is not None)
    with open(os.path.join(ROOT, "host", "nakk_host", "demo", "saare-2020.keys")) as f:
        # a long OK on the last result shown opens the start screen; then the demo match
        keyseq = parse_keys("OK:long\n" + f.read(), "saare-2020.keys")
    with picoemu.PicoEmu(image=img, pins=B.PINS, oled_spi=B.OLED_SPI, rings=B.RINGS, firmware=uf2_firmware) as emu:
        f = emu.wait_frame(0)
        emu.wait_frame(f["frame"], timeout_s=120)        # the app's first screen
        released = emu.now_us()
        for name, long in keyseq:
            emu.wait_until_us(released + GAP_US)
            released = emu.press(name, LONG_MS if long else SHORT_MS)["release_us"]
            emu.wait_until_us(released + SETTLE_US)
        with emu.serial_socket(timeout=5) as s:
            emu.wait_until_us(emu.now_us() + 500000)
            emu.press(DUMP_PIN, 50)
            line = s.read_until(b"\n", timeout=10)
            while line and b"nakk-heap" not in line:
                line = s.read_until(b"\n", timeout=10)
        assert b"nakk-heap" in line, "the box printed no heap line after the match"
        w = line.decode(errors="replace").split()
        free, fault = int(w[2]), " ".join(w[4:])
        with D.Box(emu.serial_url, timeout=30) as box:
            hello = box.hello()
        wdt = emu.flash_stats()["wdt_triggers"]
    assert fault == "None", "a task died during the match: " + fault
    assert wdt == 0, "the watchdog reset the box during the match"
    # the match just played is the 101st result waiting for the judge, locked by both pairs
    assert hello["unsynced"] == MATCHES + 1 and hello["ready"] == MATCHES + 1, hello
    print("100 results and a match played: %d bytes of heap free" % free)   # shown with -s
    assert free >= AFTER_MATCH, "only %d bytes of heap free after the match" % free
