"""Where a press's time goes on the emulated Pico: ui.handle, screen.draw, board.show, the rings, gc.

    NAKK_PICOEMU=../shared/emu .venv/bin/python bench/bench_emu_profile.py [RULESET ...]

The firmware runs unchanged: a bench main.py wraps the app's pieces with
time.ticks_us() once the app is built (so the wrapping costs a few tens of µs
per call on top, nothing in the firmware) and prints one line per button event
over the emulated USB serial port. Prints, per kind of press (as
bench_emu.py names them), the median and max of each part in emulated ms, and
how many presses a garbage collection fell into (detected by the allocated
heap shrinking across the press) with what those presses cost.
Default: the Saare mäng 2020 demo match plus bench_emu's undo/penalty extra.
"""
import os
import statistics
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_emu as E  # noqa: E402
from nakk_host.simulator import LONG_MS, SHORT_MS, parse_keys  # noqa: E402

PROFILE_MAIN = b"""# bench main.py: the app as main.py builds it, its pieces wrapped with ticks_us
import gc
import time
import asyncio
from nakk.board import pico
from nakk.link import task  # as main.py: the link's buffers first
from nakk import app as A
b = pico.build()
a = A.App(b)
gc.collect()
us = time.ticks_us
d = time.ticks_diff
acc = {}
def wrap(obj, name, key):
    f = getattr(obj, name)
    def w(*args, **kw):
        t = us()
        r = f(*args, **kw)
        acc[key] = acc.get(key, 0) + d(us(), t)
        return r
    setattr(obj, name, w)
wrap(a.ui, "handle", "handle")
wrap(a.screen, "draw", "draw")
wrap(a.board, "show", "show")
wrap(a.screen, "leds", "rleds")
wrap(a.board, "leds", "bleds")
wrap(a.table, "flush", "tflush")
for n in ("_head", "_names", "_score", "_foot", "_list", "_choice"):
    wrap(a.screen, n, n)
from nakk.drivers import font as F
for n in ("text", "width", "digits", "digits_width"):
    wrap(F, n, "font")
def cwrap(obj, name, key):
    f = getattr(obj, name)
    def w(*args):
        acc[key] = acc.get(key, 0) + 1
        return f(*args)
    setattr(obj, name, w)
cwrap(F, "_run", "nrun")
class G:
    def collect(self):
        t = us()
        gc.collect()
        acc["gc"] = acc.get("gc", 0) + d(us(), t)
A.gc = G()
ev0 = a.on_event
fl0 = a.flush
inpress = [False]
def on_event(ev):
    acc.clear()
    m0 = gc.mem_alloc()
    c0 = len(F._cache)
    inpress[0] = True
    t = us()
    ev0(ev)
    t = d(us(), t)
    inpress[0] = False
    m1 = gc.mem_alloc()
    print("PROF E %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d" % (t, acc.get("handle", 0), acc.get("draw", 0), acc.get("show", 0),
          acc.get("rleds", 0) + acc.get("bleds", 0), acc.get("tflush", 0), acc.get("gc", 0), m0, m1,
          acc.get("_head", 0), acc.get("_names", 0), acc.get("_score", 0), acc.get("_foot", 0), acc.get("_list", 0),
          acc.get("_choice", 0), len(F._cache) - c0, acc.get("font", 0), acc.get("nrun", 0)))
def flush():
    acc.clear()
    m0 = gc.mem_alloc()
    inpress[0] = True
    t = us()
    fl0()
    t = d(us(), t)
    inpress[0] = False
    print("PROF F %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d 0 %d %d" % (t, acc.get("handle", 0), acc.get("draw", 0), acc.get("show", 0),
          acc.get("rleds", 0) + acc.get("bleds", 0), acc.get("tflush", 0), acc.get("gc", 0), m0, gc.mem_alloc(),
          acc.get("_head", 0), acc.get("_names", 0), acc.get("_score", 0), acc.get("_foot", 0), acc.get("_list", 0),
          acc.get("_choice", 0), 0, 0))
a.on_event = on_event
a.flush = flush
# allocation between presses: who allocates while the box waits
alloc = {}
def awrap(obj, name, key):
    f = getattr(obj, name)
    def w(*args):
        if inpress[0]:
            # gc.mem_alloc() walks the whole allocation table (~5.5 ms on the Pico):
            # never inside a press, whose time this bench reports
            return f(*args)
        m = gc.mem_alloc()
        r = f(*args)
        m = gc.mem_alloc() - m
        if m > 0:
            alloc[key] = alloc.get(key, 0) + m
        return r
    setattr(obj, name, w)
awrap(a, "frame", "frame")
awrap(a.ui, "tick", "tick")
if a.link is not None:
    awrap(a.link, "poll", "link")
awrap(a.buttons, "poll", "bpoll")
async def idle():
    while True:
        m = gc.mem_alloc()
        await asyncio.sleep_ms(1000)
        print("PROF I %d %d %d %d %d" % (gc.mem_alloc() - m, alloc.get("frame", 0), alloc.get("tick", 0),
              alloc.get("link", 0), alloc.get("bpoll", 0)))
        alloc.clear()
a.spawn(idle())
print("nakk-bench heap free %d alloc %d" % (gc.mem_free(), gc.mem_alloc()))
asyncio.run(a.run())
"""

FIELDS = ("total", "handle", "draw", "show", "rings", "tflush", "gc")
PARTS = ("head", "names", "score", "foot", "list", "choice")   # inside draw


class Reader(threading.Thread):
    """Reads the PROF lines the bench main.py prints, in order."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock = sock
        self.lines = []
        self.stop = False

    def run(self):
        while not self.stop:
            line = self.sock.read_until(b"\n", timeout=0.5)
            if line.endswith(b"\n"):
                self.lines.append(line.decode(errors="replace").strip())
            elif line:
                self.sock.buf = line + self.sock.buf


def main():
    picoemu = E.kit()
    scripts = sys.argv[1:] or ["saare-2020"]
    tmp = tempfile.mkdtemp(prefix="bench-emu-prof-")
    files = E.box_files(picoemu, tmp)
    files["/main.py"] = PROFILE_MAIN
    img = E.image(picoemu, files, tmp, "prof")
    rows = {}
    idle_lines = []
    for rs in scripts + ["extra"]:
        if rs == "extra":
            ks = parse_keys(E.EXTRA, "extra")
        else:
            with open(os.path.join(E.DEMO, rs + ".keys")) as f:
                ks = parse_keys(f.read(), rs)
        with picoemu.PicoEmu(image=img, pins=E.PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8)) as emu:
            f = emu.wait_frame(0)
            emu.wait_frame(f["frame"])
            emu.wait_until_us(E.DTR_US)
            sock = emu.serial_socket(timeout=5)
            rd = Reader(sock)
            rd.start()
            first = True
            released = None
            for name, long in ks:
                if released is not None:
                    emu.wait_until_us(released + E.GAP_US)
                before = emu.flash_stats()["programs"]
                n_lines = len(rd.lines)
                r = emu.press(name, LONG_MS if long else SHORT_MS)
                released = r["release_us"]
                emu.wait_until_us(released + E.SETTLE_US)
                wrote = emu.flash_stats()["programs"] > before
                k = E.kind_of(name, long, wrote, first)
                if wrote:
                    first = False
                # the lines of this press arrive a little after it (wall time)
                for _ in range(40):
                    if any(x.startswith("PROF E") for x in rd.lines[n_lines:]):
                        break
                    emu.wait_us(1000)
                for x in rd.lines[n_lines:]:
                    if x.startswith("PROF ") and not x.startswith("PROF I"):
                        w = x.split()
                        v = [int(y) for y in w[2:]]
                        rows.setdefault((k, w[1]), []).append(v)
            emu.wait_us(3000000)
            rd.stop = True
            rd.join()
            idle_lines.extend(x[7:] for x in rd.lines if x.startswith("PROF I"))
            sock.close()
    print("Where the time goes on the emulated Pico, emulated ms, median / max (E: on_event, to the first "
          "frame and, for a non-side entry, its flush; F: the held entry's flush after the chord window):")
    print("  %-58s %1s %3s " % ("kind", "", "n") + " ".join("%13s" % f for f in FIELDS) + "  gc-hit")
    for (k, w), vs in sorted(rows.items()):
        cells = []
        for i in range(len(FIELDS)):
            col = [v[i] / 1000.0 for v in vs]
            cells.append("%6.1f/%6.1f" % (statistics.median(col), max(col)))
        hit = [v[0] / 1000.0 for v in vs if v[8] < v[7] and v[6] == 0]
        print("  %-58s %1s %3d " % (k, w, len(vs)) + " ".join("%13s" % c for c in cells)
              + "  %d%s" % (len(hit), (" (%.1f max)" % max(hit)) if hit else ""))
        cells = []
        for i in range(len(PARTS)):
            col = [v[9 + i] / 1000.0 for v in vs]
            cells.append("%s %.1f/%.1f" % (PARTS[i], statistics.median(col), max(col)))
        print("  %-58s     draw: %s; font cache misses %d, clears %d; in font.* %.1f/%.1f, glyph runs %d/%d" % (
              "", ", ".join(cells), sum(v[15] for v in vs if v[15] > 0), sum(1 for v in vs if v[15] < 0),
              statistics.median(v[16] for v in vs) / 1000.0, max(v[16] for v in vs) / 1000.0,
              statistics.median(v[17] for v in vs), max(v[17] for v in vs)))
    print("  idle, bytes allocated per second (total, frame, tick, link, buttons): %s" % idle_lines[-3:])
    if os.environ.get("PROF_RAW"):
        for (k, w), vs in sorted(rows.items()):
            for v in vs:
                print(k[:20], w, v)


if __name__ == "__main__":
    main()
