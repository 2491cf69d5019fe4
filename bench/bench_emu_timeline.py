"""Where each press's time goes on the emulated Pico, press by press, with no host on the USB port while it plays.

    NAKK_PICOEMU=../shared/emu .venv/bin/python bench/bench_emu_timeline.py [--slow MS] [--box N] [--uf2 FILE] [SCRIPT ...]

SCRIPT: a demo match (saare-2020, saare-classic, sasku, schmier) or "extra"
(bench_emu's undo and penalty presses); default all five. The firmware runs
unchanged, built as `nakk flash` builds it (--uf2 FILE: frozen in nakk build's UF2;
--box N: on a box holding N finished, unsynced results, as bench_emu.py plays them); a bench main.py wraps the app's
pieces once it is built and records `ticks_us` at each step of a press into
arrays made before the match (~3 KB: the app's heap is tight; no
gc.mem_alloc(), which walks the whole allocation table: ~5.5 ms a call on
the Pico). Its wrappers take *args, a small tuple a call: they, and the
arrays, move the app's objects on the heap, and with them the figures
(docs/latency.md: the same firmware is faster here than in bench_emu.py). Nothing is printed while the
match is played (no host on the USB port until the end); then the bench
pulls GPIO 10 low and the box prints what it recorded. Per press, emulated ms:
  tot      the edge to the end of the first display transfer after it (as bench_emu.py)
  poll     the edge to the button driver's poll that sees it (interrupt, wake, asyncio)
  app      the edge to App._press (the driver's poll and its timers)
  handle   ui.handle (apply: the match checks and folds an entry; form: the next deal's form, ui.resync)
  draw     Screen.draw (head, names, score, foot: its regions; the rest is signatures and kept pages)
  show     the SPI transfer of the pages that changed
  alloc    µs to make two 40-byte bytearrays just before the press: how far the allocator
           scans the heap's allocation table at that moment (65 µs on a freshly collected heap)
  busy     the frames task's work (F: a frame, I: words drawn ahead) under way when the edge came
--slow MS lists only the presses whose tot is at least MS; the medians per kind of
press (bench_emu.py's kinds) are printed for all. The timestamps' own cost is a few
µs a step; the alloc probe's ~0.1-0.5 ms comes before the press is taken, not in it.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_emu as E  # noqa: E402
from nakk_host.simulator import LONG_MS, SHORT_MS, parse_keys  # noqa: E402

DUMP_PIN = 10          # free on the reference build (hardware/pins)
SLOTS = 13             # values recorded per press (TIMELINE_MAIN's layout below)

TIMELINE_MAIN = b"""# bench main.py: the app as main.py builds it, each press's steps timed into arrays
import gc, time, array
import asyncio
from machine import Pin
from nakk.board import pico
from nakk.link import task  # as main.py: the link's buffers first
from nakk import app as A
b = pico.build()
a = A.App(b)
gc.collect()
us = time.ticks_us
dt = time.ticks_diff
N = 60
# per press: 0 press, 1 handled, 2 draw start, 3 draw end, 4 show end, 5-8 head names score
# foot (us), 9 poll start, 10 apply (us), 11 form (us), 12 alloc probe (us)
P = array.array("i", [0] * (N * 13))
W = array.array("i", [0] * 300)      # the frames task's busy stretches: start,
WD = array.array("H", [0] * 300)     # and length (even: a word drawn ahead; odd: a frame)
st = array.array("i", [0, 0, -1, 0])   # presses, stretches, the press being timed, last poll
reg = array.array("i", [0] * 8)
def timed(obj, name, slot):
    f = getattr(obj, name)
    def w(*args):
        t = us()
        r = f(*args)
        reg[slot] += dt(us(), t)
        return r
    setattr(obj, name, w)
for i, n in enumerate(("_head", "_names", "_score", "_foot")):
    timed(a.screen, n, i)
timed(a.ui, "resync", 5)
from nakk import match as M
apply0 = M.Match.apply
def apply(self, ev):
    t = us()
    apply0(self, ev)
    reg[4] += dt(us(), t)
M.Match.apply = apply
def mark(obj, name, slot):
    f = getattr(obj, name)
    def w(*args):
        r = f(*args)
        c = st[2]
        if c >= 0 and P[c * 13 + slot] == 0:
            P[c * 13 + slot] = us()
        return r
    setattr(obj, name, w)
mark(a.ui, "handle", 1)
mark(a.screen, "draw", 3)
mark(a.board, "show", 4)
d0 = a.screen.draw
def draw(*args):
    c = st[2]
    if c >= 0 and P[c * 13 + 2] == 0:
        P[c * 13 + 2] = us()
    return d0(*args)
a.screen.draw = draw
po0 = a.buttons.poll
def poll(now=None):
    st[3] = us()
    return po0(now)
a.buttons.poll = poll
p0 = a._press
def press(ev):
    k = st[0]
    if k >= N:
        return p0(ev)
    for i in range(8):
        reg[i] = 0
    t = us()
    x = bytearray(40)
    y = bytearray(40)
    probe = dt(us(), t)
    x = y = None
    st[2] = k
    o = k * 13
    P[o] = us()
    P[o + 9] = st[3]
    p0(ev)
    for i in range(4):
        P[o + 5 + i] = reg[i]
    P[o + 10] = reg[4]
    P[o + 11] = reg[5]
    P[o + 12] = probe
    st[0] = k + 1
    st[2] = -1
a.buttons.sink = press
def busy(f, odd):
    def w():
        t = us()
        f()
        d = dt(us(), t)
        k = st[1]
        if st[2] < 0 and k < 300 and d > 300:
            W[k] = t
            WD[k] = (d if d < 65534 else 65534) // 2 * 2 + odd
            st[1] = k + 1
    return w
a.frame = busy(a.frame, 1)
a._idle = busy(a._idle, 0)
%s    for k in range(st[0]):
        print("P", " ".join(str(P[k * 13 + i]) for i in range(13)))
    for k in range(st[1]):
        print("W", W[k], WD[k])
    print("END")
a.spawn(dump())
asyncio.run(a.run())
""" % (E.DUMP_ON_PIN % DUMP_PIN)


def play(picoemu, img, script, uf2=None, results=False):
    """Play one script (results: on a box showing its last result, which a long OK leaves first);
    returns [(press index, name, long, kind, edge_us, first frame end_us)], the P rows and the
    busy stretches the box recorded."""
    if script == "extra":
        keys = E.EXTRA
    else:
        with open(os.path.join(E.DEMO, script + ".keys")) as f:
            keys = f.read()
    ks = parse_keys(("OK:long\n" if results else "") + keys, script)
    rows = []
    with picoemu.PicoEmu(image=img, pins=E.PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8),
                         firmware=uf2) as emu:
        f = emu.wait_frame(0)
        emu.wait_frame(f["frame"], timeout_s=120)
        released = None
        first = True
        prev = None
        for i, (name, long) in enumerate(ks):
            if released is not None:
                emu.wait_until_us(released + E.GAP_US)
            n0 = emu.display_updates()[-1]["n"] if emu.display_updates() else -1
            before = emu.flash_stats()["programs"]
            r = emu.press(name, LONG_MS if long else SHORT_MS)
            released = r["release_us"]
            emu.wait_until_us(released + E.SETTLE_US)
            wrote = emu.flash_stats()["programs"] > before
            edge = r["t_us"] + E.LONG_AT_MS * 1000 if long else (r["t_us"] if name in E.SIDES else released)
            b = E.bursts(emu.display_updates(n0), edge)
            kind = E.kind_of(name, long, wrote, first, prev) if b else None
            prev = (name, long)
            if wrote:
                first = False
            rows.append((i, name, long, kind, edge, b[0][1] if b else None))
        lines = E.dumped(emu, DUMP_PIN, "bench_emu_timeline")
    P = [[int(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("P ")]
    busy = [[int(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("W ")]
    return rows, P, busy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slow", type=float, default=0, help="list only presses at least this slow (ms)")
    ap.add_argument("--box", type=int, default=0,
                    help="play on a box already holding this many finished, unsynced matches")
    ap.add_argument("--uf2", metavar="FILE", help="run this UF2 (nakk build's, the firmware frozen)")
    ap.add_argument("scripts", nargs="*", default=["saare-2020", "saare-classic", "sasku", "schmier", "extra"])
    a = ap.parse_args()
    picoemu = E.kit()
    tmp = tempfile.mkdtemp(prefix="bench-emu-timeline-")
    uf2 = os.path.abspath(a.uf2) if a.uf2 else None
    n = 0
    if a.box or uf2:
        import shutil
        import bench_pico_boot as B
        img, n = B.make_box(picoemu, tmp, "box", a.box, frozen=uf2 is not None, main_py=TIMELINE_MAIN)
    else:
        files = E.box_files(picoemu, tmp)
        files["/main.py"] = TIMELINE_MAIN
        img = E.image(picoemu, files, tmp, "timeline")
    print("bench_emu_timeline: emulated ms per press (%s in rp2040js %s, 200 MHz)%s"
          % ("the UF2 %s, frozen" % os.path.basename(uf2) if uf2 else "MicroPython v1.28.0 RPI_PICO",
             picoemu.RP2040JS_VERSION, ", a box holding %d results" % n if n else ""))
    kinds = {}
    for script in a.scripts:
        run = img
        if n or uf2:
            run = img + ".run"        # each script on the box as it was made
            shutil.copyfile(img, run)
        rows, P, busy = play(picoemu, run, script, uf2, results=n > 0)
        print("\n%s" % script)
        print("  %2s %-9s %5s | %4s %4s | %6s %5s %4s | %5s %4s %4s %4s %4s | %4s | %5s | %-6s %s" % (
            "#", "press", "tot", "poll", "app", "handle", "apply", "form", "draw", "head", "name", "scor",
            "foot", "show", "alloc", "busy", "kind"))
        j = 0
        for i, name, long, kind, edge, fend in rows:
            while j < len(P) and P[j][0] < edge:
                j += 1
            if j >= len(P) or fend is None or kind is None:
                continue
            p = P[j]
            tot = (fend - edge) / 1000.0
            kinds.setdefault(kind, []).append(tot)
            if tot < a.slow:
                continue
            during = [w for w in busy if w[0] <= edge < w[0] + w[1] or edge <= w[0] < p[0]]
            print("  %2d %-9s %5.1f | %4.1f %4.1f | %6.1f %5.1f %4.1f | %5.1f %4.1f %4.1f %4.1f %4.1f | %4.1f | %5d | %-6s %s" % (
                i, name + (":long" if long else ""), tot, (p[9] - edge) / 1000.0, (p[0] - edge) / 1000.0,
                (p[1] - p[0]) / 1000.0, p[10] / 1000.0, p[11] / 1000.0, (p[3] - p[2]) / 1000.0,
                p[5] / 1000.0, p[6] / 1000.0, p[7] / 1000.0, p[8] / 1000.0, (p[4] - p[3]) / 1000.0, p[12],
                " ".join("%s%.1f" % ("F" if w[1] & 1 else "I", w[1] / 1000.0) for w in during) or "-", kind))
    print("\nPress to finished frame, per kind (min / median / max, emulated ms, with the timestamps' cost):")
    for k in sorted(kinds):
        v = kinds[k]
        print("  %-58s %3d %6.1f %6.1f %6.1f" % (k, len(v), min(v), statistics.median(v), max(v)))


if __name__ == "__main__":
    main()
