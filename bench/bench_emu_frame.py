"""What a bytecode frame on the heap costs a press on the emulated Pico, measured inside the presses of a match.

    NAKK_PICOEMU=../shared/emu .venv/bin/python bench/bench_emu_frame.py [--box N] [--uf2 FILE] [SCRIPT ...]

MicroPython allocates a bytecode function's frame on the heap at each call when it is more
than 11 words (VM_MAX_STATE_ON_STACK), and frees it on return (docs/latency.md, "Frames on the
heap"). A bench main.py builds the app as main.py does and wraps its button sink: just
before and just after each press the app takes, it times one call each of three functions
that differ only in their frame: 4, 14 and 20 words (the 4-word one on the C stack). The heap
is the app's own, at that moment of the match: what a press's heap frame meets. Per press the
box records the µs of each call into arrays made before the match, and prints them when the
bench pulls GPIO 10 low at the end (no host on the USB port while it plays). Prints, per
function, min / median / max over every press, before the press and after it, and the extra
a heap frame costs over the 4-word one (per call; p90: the 90th percentile). SCRIPT: demo matches as bench_emu_timeline.py
(default saare-2020 and extra); --box N and --uf2 FILE as bench_emu.py (a box holding N
finished results; the firmware frozen in that UF2).
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_emu as E  # noqa: E402
import bench_pico_boot as B  # noqa: E402
from nakk_host.simulator import LONG_MS, SHORT_MS, parse_keys  # noqa: E402

DUMP_PIN = 10          # free on the reference build (hardware/pins)

FRAME_MAIN = b"""# bench main.py: the app as main.py builds it; each press times a small and two heap frames
import gc, time, array
import asyncio
from machine import Pin
from nakk.board import pico
from nakk.link import task  # as main.py: the link's buffers first
from nakk import app as A
a = A.App(pico.build())
gc.collect()
print("nakk-bench heap free %%d alloc %%d" %% (gc.mem_free(), gc.mem_alloc()))
us = time.ticks_us
dt = time.ticks_diff
N = 200
R = array.array("H", [0] * (N * 6))
st = array.array("i", [0])
def f4(x):
    a = x
    b = a
    return b
def f14(x):
    a = b = c = d = e = f = g = h = i = j = k = x
    return a
def f20(x):
    a = b = c = d = e = f = g = h = i = j = k = l = m = n = o = p = q = x
    return a
def probe(o):
    t = us()
    f4(1)
    t1 = us()
    f14(1)
    t2 = us()
    f20(1)
    t3 = us()
    R[o] = dt(t1, t)
    R[o + 1] = dt(t2, t1)
    R[o + 2] = dt(t3, t2)
p0 = a._press
def press(ev):
    k = st[0]
    if k >= N:
        return p0(ev)
    probe(k * 6)
    p0(ev)
    probe(k * 6 + 3)
    st[0] = k + 1
a.buttons.sink = press
%s    for k in range(st[0]):
        print("R", " ".join(str(R[k * 6 + i]) for i in range(6)))
    print("END")
a.spawn(dump())
asyncio.run(a.run())
""" % (E.DUMP_ON_PIN % DUMP_PIN)


def play(picoemu, img, uf2, keys, boxed):
    """Play keys on img; the R rows the box recorded."""
    ks = parse_keys(("OK:long\n" if boxed else "") + keys[1], keys[0])
    with picoemu.PicoEmu(image=img, pins=E.PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8),
                         firmware=uf2) as emu:
        f = emu.wait_frame(0)
        emu.wait_frame(f["frame"], timeout_s=120)
        released = None
        for name, long in ks:
            if released is not None:
                emu.wait_until_us(released + E.GAP_US)
            r = emu.press(name, LONG_MS if long else SHORT_MS)
            released = r["release_us"]
            emu.wait_until_us(released + E.SETTLE_US)
        lines = E.dumped(emu, DUMP_PIN, "bench_emu_frame")
    return [[int(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("R ")]


def p90(v):
    return sorted(v)[(len(v) * 9) // 10]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--box", type=int, default=0, help="a box already holding this many finished results")
    ap.add_argument("--uf2", metavar="FILE", help="run this UF2 (the firmware frozen) instead of .mpy")
    ap.add_argument("scripts", nargs="*", default=["saare-2020", "extra"])
    a = ap.parse_args()
    picoemu = E.kit()
    tmp = tempfile.mkdtemp(prefix="bench-emu-frame-")
    uf2 = os.path.abspath(a.uf2) if a.uf2 else None
    B.MAIN = FRAME_MAIN
    img, n = B.make_box(picoemu, tmp, "box", a.box, frozen=uf2 is not None)
    print("bench_emu_frame: %s in rp2040js %s, a box holding %d finished results; µs a call, emulated"
          % ("the UF2 %s (frozen)" % os.path.basename(uf2) if uf2 else "MicroPython v1.28.0 RPI_PICO, .mpy",
             picoemu.RP2040JS_VERSION, n))
    rows = []
    run = img + ".run"
    for script in a.scripts:
        if script == "extra":
            keys = ("extra", E.EXTRA)
        else:
            with open(os.path.join(E.DEMO, script + ".keys")) as f:
                keys = (script, f.read())
        shutil.copyfile(img, run)
        rows += play(picoemu, run, uf2, keys, n)
    print("%d presses (%s)" % (len(rows), ", ".join(a.scripts)))
    print("  %-35s %6s %6s %6s %6s" % ("µs a call", "min", "median", "p90", "max"))
    for j, when in ((0, "before the press"), (3, "after it")):
        for i, words in enumerate((4, 14, 20)):
            v = [r[j + i] for r in rows]
            print("  %2d-word frame, %-20s %6d %6d %6d %6d" % (words, when, min(v), statistics.median(v), p90(v), max(v)))
        for i, words in ((1, 14), (2, 20)):
            v = [r[j + i] - r[j] for r in rows]
            print("  heap frame of %2d words, %-11s %6d %6d %6d %6d" % (words, when, min(v), statistics.median(v), p90(v), max(v)))


if __name__ == "__main__":
    main()
