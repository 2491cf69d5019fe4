"""nakk.drivers.font's text on the emulated Pico: the viper loop (nakk.drivers.glyphs) against the Python loop, µs per call.

    NAKK_PICOEMU=../shared/emu .venv/bin/python bench/bench_emu_font.py

Builds the firmware as `nakk flash` does (.mpy, nakk/drivers/glyphs.mpy for armv6m),
boots it on stock MicroPython v1.28.0 for the Pico in rp2040js with a bench
main.py instead of the app, and prints, in emulated µs (at the clock the box
runs: boot.py's 200 MHz; the header says what machine.freq() reported), what
font.text costs onto the display's frame for a few texts that are not kept
(bytes: drawn letter by letter every time), the same through the Python
loop (font._py_run), measuring a text (font.width of bytes), and a str
drawn the first time (kept afterwards: measured, drawn into its own buffer,
copied), and a score of 57 in 32 px digits, centred (font.digits against the
Python loop; font.digits_width in the width column), and Schmier's wide scores
-12 and 104 as 2x text centred at y 27 as render draws them (font.width(v, 2)
then font.text at scale 2, viper against the Python loop's same steps; colour
0 too). Also the heap the glyphs
module takes once imported. One emulator
at a time (it keeps a CPU core busy).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_emu as E  # noqa: E402

FONT_MAIN = b"""# bench main.py: nakk.drivers.font timed with ticks_us on the Pico
import gc
import time
import framebuf
import machine
print("nakk-font mhz %d" % (machine.freq() // 1000000))
gc.collect()
m0 = gc.mem_alloc()
from nakk.drivers import glyphs
gc.collect()
print("nakk-font glyphs-heap %d" % (gc.mem_alloc() - m0))
from nakk.drivers import font
buf = bytearray(1024)
fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
font.target(fb, buf)
us = time.ticks_us
d = time.ticks_diff
TEXTS = ((b"Saare m\\xc3\\xa4ng", "word"), (b"J\\xc3\\xa4nn Karvane \\xe2\\x99\\xa5 V\\xc3\\xb5itja", "line"),
         (b"0123456789", "digits"), (b"\\xc3\\x95un & \\xc5\\xa0\\xc5\\xbd \\xc3\\xbc", "accents"))
R = 20
def per(f):
    gc.collect()
    t = us()
    for _ in range(R):
        f()
    return d(us(), t) // R
for s, name in TEXTS:
    n = len(s)
    v = per(lambda: font.text(fb, s, 0, 20))
    p = per(lambda: font._py_run(fb, s, n, 0, 20, 1, 1, 0))
    w = per(lambda: font.width(s))
    v3 = per(lambda: font.text(fb, s, 3, 21, 0))
    p3 = per(lambda: font._py_run(fb, s, n, 3, 21, 0, 1, 0))
    print("nakk-font %s %d %d %d %d %d %d" % (name, n, v, p, w, v3, p3))
# a score of 57 centred at x 32, row 18 (as render draws a side's score): measured, then copied
font._py_big_run(fb, b"57", 2, 9, 18, 1)      # the Python path's shifted rows, made once
font._int_to_num(57)
v = per(lambda: font.digits(fb, 57, 32, 18, align=font.CENTER))
p = per(lambda: (font._py_big_run(None, font._NUM, 2, 0, 0, 1), font._py_big_run(fb, font._NUM, 2, 9, 18, 1)))
w = per(lambda: font.digits_width(57))
print("nakk-font score-57 2 %d %d %d 0 0" % (v, p, w))
# Schmier's wide scores (render.Screen._score, six players: a third of the screen is too
# narrow for -12 in 32 px digits): 2x text centred at y 27, as render asks for it (font.width
# for the room, then font.text), against the same through the Python loop (the path before)
def py2(v, cx, c):
    n = font._int_to_num(v)
    font._py_run(None, font._NUM, n, 0, 0, 1, 2, 0)                  # font.width(v, 2)
    n = font._int_to_num(v)
    w = font._py_run(None, font._NUM, n, 0, 0, 1, 2, 0)              # text()'s centring
    return font._py_run(fb, font._NUM, n, cx - w // 2, 27, c, 2, 0)
for v, cx in ((-12, 21), (104, 64)):
    n = font._int_to_num(v)
    a = per(lambda: (font.width(v, 2), font.text(fb, v, cx, 27, align=font.CENTER, scale=2)))
    p = per(lambda: py2(v, cx, 1))
    w = per(lambda: font.width(v, 2))
    a0 = per(lambda: (font.width(v, 2), font.text(fb, v, cx, 27, 0, font.CENTER, 0, 2)))
    p0 = per(lambda: py2(v, cx, 0))
    print("nakk-font 2x%d %d %d %d %d %d %d" % (v, n, a, p, w, a0, p0))
k = [0]
def first():
    k[0] += 1
    font.text(fb, "Segab %d J\\u00e4nn" % k[0], 0, 8)
t = per(first)
print("nakk-font kept-first 0 %d 0 0 0 0" % t)
print("nakk-font done")
while True:
    time.sleep_ms(1000)
"""


def main():
    picoemu = E.kit()
    tmp = tempfile.mkdtemp(prefix="bench-emu-font-")
    files = E.box_files(picoemu, tmp)
    files["/main.py"] = FONT_MAIN
    img = E.image(picoemu, files, tmp, "font")
    lines = []
    with picoemu.PicoEmu(image=img, pins=E.PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8)) as emu:
        emu.wait_until_us(E.DTR_US)
        with emu.serial_socket(timeout=5) as s:
            while True:
                line = s.read_until(b"\n", timeout=60)
                if not line:
                    sys.exit("bench_emu_font: no output from the box; last: %r" % lines[-3:])
                line = line.decode(errors="replace").strip()
                if line.startswith("Traceback") or "Error" in line:
                    sys.exit("bench_emu_font: the box says: %s" % line)
                if line.startswith("nakk-font"):
                    lines.append(line.split())
                    if line.endswith("done"):
                        break
    # boot.py (from the firmware, as nakk flash copies it) sets the clock before main.py
    mhz = lines.pop(0)[2]
    print("bench_emu_font: MicroPython v1.28.0 RPI_PICO in rp2040js %s, emulated µs at %s MHz"
          % (picoemu.RP2040JS_VERSION, mhz))
    print("\nheap taken by importing nakk.drivers.glyphs: %s bytes" % lines[0][2])
    print("\n%-10s %5s %20s %20s %12s %26s" % ("text", "bytes", "font.text (viper)", "Python loop",
                                             "font.width", "colour 0, y 21: viper / Py"))
    twice = []
    for w in lines[1:]:
        if w[1] in ("done",):
            continue
        if w[1] == "kept-first":
            print("\na new str drawn the first time (measured, drawn into its own buffer, kept, copied): %s µs"
                  % w[3])
            continue
        if w[1].startswith("2x"):
            if not twice:
                twice.append(1)
                print("\nSchmier's wide score as 2x text centred at y 27 (font.width(v, 2), then font.text;"
                      " the Python loop: the same before this change)")
            name = "score " + w[1][2:]
        else:
            name = w[1]
        print("%-10s %5s %20s %20s %12s %26s" % (name, w[2], w[3], w[4], w[5], "%s / %s" % (w[6], w[7])))


if __name__ == "__main__":
    main()
