"""Figures from the emulated Pico (stock MicroPython v1.28.0 for the Pico in rp2040js, the kit in ../shared/emu).

    NAKK_PICOEMU=../shared/emu .venv/bin/python bench/bench_emu.py [--quick] [--box N] [--uf2 FILE] [--net]

Prints, in emulated time (what a Pico at the firmware's 200 MHz would take; the emulator
counts Cortex-M0+ cycles but models no flash timing: erases and programs are
instant, no XIP cache misses, so a save's real stall is not in these figures):
  * press to finished frame for each kind of press over whole matches (min /
    median / max): from the edge the firmware acts on (a side button's press,
    a cluster button's release, 800 ms into a long press) to the end of the
    last display transfer of the frame that answers it; for a press that
    makes an entry, also to the frame after the entry is on flash;
  * the heap after boot (the app built, before its first frame);
  * power-on to the first frame, with the firmware as .mpy (as nakk flash
    copies it) and as .py source;
  * bytes of .mpy and of source;
  * `nakk flash` onto a fresh box, for a one-file change, and with nothing
    changed (emulated and wall seconds).
With --box N the matches are played on a box that already holds N finished,
unsynced results (bench_pico_boot.py's image: its long OK on the last result
shown opens the start screen first), and with --uf2 FILE on that UF2 (nakk
build's, the firmware frozen; the filesystem holds the journal and the bench
main.py only): then only the presses (and the heap and boot as the box
reports them) are measured.
With --net (on --uf2 FILE, the Pico W's UF2 or the Pico's) the presses are played twice on the
same build, box, key and main.py: without a network given (the live link not started), then with
one, the live link (nakk/link/net.py) sending every entry as it does to the judge's server, here to
a peer inside the box (board.net.open_connection; the emulator has no Wi-Fi chip) that answers as
the live server does after a 5 ms round trip (bench/emu_live_main.py, the box's main.py in both
runs); the peer's count of stored events and the longest steps of the link and the peer (and how many
were over 5 ms) are printed.
Presses are grouped by kind: the start wizard's (before the match is set up)
apart from the presses of a deal, and the OK that confirms an undo apart from
cursor moves. BENCH_EMU_SLOW=MS also lists every press slower than MS.
One emulator at a time (each keeps a CPU core busy).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))
sys.path.insert(0, os.path.join(ROOT, "firmware"))

from nakk_host import build  # noqa: E402
from nakk_host.simulator import LONG_MS, SHORT_MS, parse_keys  # noqa: E402

PINS = {"A": 2, "B": 3, "C": 4, "PREV": 13, "OK": 14, "NEXT": 15}
SIDES = ("A", "B", "C")
LONG_AT_MS = 800        # the firmware's long-press threshold
GAP_US = 150000         # between a release and the next press
SETTLE_US = 400000      # a press's frames are all out by then (the entry hold is 40 ms)
BURST_GAP_US = 3000     # display transfers closer than this belong to one frame
DTR_US = 1700000
DEMO = os.path.join(ROOT, "host", "nakk_host", "demo")
# Undo and penalty on top of a Saare mäng match (checked on the simulator: the same presses give
# the undo question, the cancel entry, the penalty list and a penalty entry).
EXTRA = """OK OK OK OK  A A  A B  PREV:long OK  NEXT:long A  NEXT B NEXT B  PREV:long OK"""

BENCH_MAIN = b"""# bench main.py: the app as main.py builds it, with the heap printed once it is built
import gc
import asyncio
from nakk.board import pico
from nakk.link import task  # as main.py: the link's buffers first
from nakk import app as A
b = pico.build()
a = A.App(b)
gc.collect()
print("nakk-bench heap free %d alloc %d" % (gc.mem_free(), gc.mem_alloc()))
asyncio.run(a.run())
"""

# bench_emu --net's main.py for the box: bench/emu_live_main.py (read as bytes, written as /main.py)
NET_MAIN = os.path.join(ROOT, "bench", "emu_live_main.py")


def kit():
    d = os.environ.get("NAKK_PICOEMU") or os.path.join(os.path.dirname(ROOT), "shared", "emu")
    if not os.path.isfile(os.path.join(d, "picoemu.py")):
        sys.exit("bench_emu: the emulated Pico kit is not at %s: set NAKK_PICOEMU=/path/to/shared/emu" % d)
    sys.path.insert(0, d)
    import picoemu
    if picoemu.find_node_modules() is None:
        sys.exit("bench_emu: rp2040js missing: run %s/install.sh" % d)
    return picoemu


def box_files(picoemu, tmp):
    """{device path: bytes} as nakk flash puts them on a fresh box (its ssd1306 dependency
    from the kit, cached under tmp: no network): the benches' firmware."""
    cache = os.path.join(tmp, "cache")
    for name, version in build.package()[1]:
        build.seed_dep(name, version, {"ssd1306.py": picoemu.SSD1306_PY}, cache)
    return dict(build.tree(cache=cache))


def image(picoemu, files, tmp, name):
    d = os.path.join(tmp, name)
    build.write_tree(files, d)
    img = d + ".img"
    picoemu.mkimage(d, img)
    return img


def kind_of(name, long, wrote, first_entry, prev=None):
    if prev == ("PREV", True) and name == "OK" and not long:
        # the undo's cancel: the match is folded again from flash before its frame
        return "OK confirming the undo"
    if first_entry and not wrote:
        # before the match is set up: the start wizard, no press of a deal (issue 11's 10 ms
        # target is for the presses a deal needs; the first draws of the start screens are here)
        return "start wizard (before the match)"
    if long and name in SIDES:
        # 800 ms into the press its LONG takes back what the press-down entered and enters the
        # held answer (a jänn win), saved at once
        return "side button held (the held answer, from its LONG)"
    if long:
        return {"PREV": "undo question (long PREV)", "NEXT": "penalty list (long NEXT)",
                "OK": "menu (long OK)"}[name]
    if wrote:
        return "match start (setup saved)" if first_entry else "press that makes an entry (deal, undo, penalty, confirm)"
    if name in SIDES:
        return "side press to the next step"
    return "cursor move / OK step in a deal (on release)"


def bursts(updates, after_us):
    out = []
    for u in updates:
        if u["start_us"] < after_us:
            continue
        if out and u["start_us"] - out[-1][1] < BURST_GAP_US:
            out[-1][1] = u["end_us"]
        else:
            out.append([u["start_us"], u["end_us"]])
    return out


def play(emu, keyseq, results):
    first_entry = True
    released = None
    prev = None
    for i, (name, long) in enumerate(keyseq):
        if released is not None:
            emu.wait_until_us(released + GAP_US)
        before = emu.flash_stats()["programs"]
        n0 = emu.display_updates()[-1]["n"] if emu.display_updates() else -1
        r = emu.press(name, LONG_MS if long else SHORT_MS)
        released = r["release_us"]
        emu.wait_until_us(released + SETTLE_US)
        wrote = emu.flash_stats()["programs"] > before
        edge = r["t_us"] + LONG_AT_MS * 1000 if long else (r["t_us"] if name in SIDES else released)
        b = bursts(emu.display_updates(n0), edge)
        before_this, prev = prev, (name, long)
        if not b:
            continue   # nothing on screen changed (e.g. a press the UI ignores)
        k = kind_of(name, long, wrote, first_entry, before_this)
        if wrote:
            first_entry = False
        results.setdefault(k, []).append(((b[0][1] - edge) / 1000.0, (b[-1][1] - edge) / 1000.0 if wrote else None))
        if os.environ.get("BENCH_EMU_SLOW") and (b[0][1] - edge) / 1000.0 > float(os.environ["BENCH_EMU_SLOW"]):
            print("  slow: press %d (%s%s) %s: %.1f ms" % (i, name, ":long" if long else "", k, (b[0][1] - edge) / 1000.0))


def show_presses(results):
    print("\nPress to finished frame, emulated ms (from the edge the firmware acts on):")
    print("  %-58s %4s %8s %8s %8s   %s" % ("kind", "n", "min", "median", "max", "entry on flash: median / max"))
    for k in sorted(results):
        v = [x[0] for x in results[k]]
        s = [x[1] for x in results[k] if x[1] is not None]
        extra = "%.1f / %.1f" % (statistics.median(s), max(s)) if s else ""
        print("  %-58s %4d %8.1f %8.1f %8.1f   %s" % (k, len(v), min(v), statistics.median(v), max(v), extra))


def first_frame(picoemu, img, reads_heap=False):
    with picoemu.PicoEmu(image=img, pins=PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8)) as emu:
        try:
            f = emu.wait_frame(0)
            # the app's start screen is the frame after the driver's init clear
            f2 = emu.wait_frame(f["frame"], timeout_s=60)
        except picoemu.PicoEmuError:
            # no start screen: say what the box printed instead
            with emu.serial_socket(timeout=5) as s:
                said = s.read_until(b"\x00never", timeout=3).decode(errors="replace").strip().splitlines()
            return None, [x for x in said if x.strip() and not x.startswith((">>>", "Type "))][-2:]
        heap = None
        if reads_heap:
            emu.wait_until_us(DTR_US)
            with emu.serial_socket(timeout=5) as s:
                line = s.read_until(b"\n", timeout=10)
                while line and b"nakk-bench" not in line:
                    line = s.read_until(b"\n", timeout=10)
            w = line.decode(errors="replace").split()
            heap = (int(w[3]), int(w[5]))
        return f2["t_us"] / 1000.0, heap


def flash_runs(picoemu, tmp, cache):
    nakk = os.path.join(os.path.dirname(sys.executable), "nakk")
    env = dict(os.environ, NAKK_CACHE=cache)
    img = os.path.join(tmp, "flashed.img")
    out = {}

    def run(emu, label):
        e0, w0 = emu.now_us(), time.monotonic()
        r = subprocess.run([nakk, "flash", "--port", emu.serial_url], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            sys.exit("bench_emu: nakk flash failed: " + r.stdout + r.stderr)
        out[label] = ((emu.now_us() - e0) / 1e6, time.monotonic() - w0, r.stdout.strip().splitlines()[-1])

    with picoemu.PicoEmu(pins=PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8), save_fs=img) as emu:
        emu.wait_until_us(DTR_US)
        run(emu, "fresh box")
    img2 = os.path.join(tmp, "flashed2.img")
    with picoemu.PicoEmu(image=img, pins=PINS, hold=(14,), oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8),
                         save_fs=img2) as emu:
        emu.wait_until_us(DTR_US)
        emu.release(14)     # OK held at power-on: maintenance mode
        run(emu, "nothing changed")
    with picoemu.PicoEmu(image=img2, pins=PINS, hold=(14,), oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8)) as emu:
        emu.wait_until_us(DTR_US)
        emu.release(14)
        # one file changed, as nakk flash sees it: the box's manifest holds another hash for nakk/ui/flows.mpy
        mp = os.path.join(os.path.dirname(sys.executable), "mpremote")
        code = ("import json; m = json.load(open('%s')); m['files']['/nakk/ui/flows.mpy'] = '0' * 16; "
                "f = open('%s', 'w'); f.write(json.dumps(m)); f.close()" % (build.MANIFEST, build.MANIFEST))
        subprocess.run([mp, "connect", emu.serial_url, "exec", code], check=True, capture_output=True)
        run(emu, "one file changed (nakk/ui/flows.mpy)")
    return out


def play_on_box(picoemu, a, tmp):
    """The presses of every script (of saare-2020 and the extra with --quick) on a box holding a.box
    finished matches, on a.uf2 or stock MicroPython + .mpy; with a.net twice, without and with the
    live link sending (NET_MAIN's peer inside the box)."""
    import bench_pico_boot as B
    uf2 = os.path.abspath(a.uf2) if a.uf2 else None
    if uf2:
        from nakk_host import uf2flash
        B.PICO_W[:] = [uf2flash.read_uf2(uf2).board == "RPI_PICO_W", uf2]   # its own filesystem's place
    print("bench_emu: %s in rp2040js %s (emulated time; no flash erase/program time), a box holding %s "
          "finished, unsynced matches" % ("the UF2 %s (frozen)" % os.path.basename(uf2) if uf2 else
                                          "MicroPython v1.28.0 RPI_PICO, firmware as .mpy", picoemu.RP2040JS_VERSION,
                                          a.box))
    if not a.net:
        img, n = B.make_box(picoemu, tmp, "box", a.box, frozen=uf2 is not None)
        return show_presses(presses_on(picoemu, a, B, img, n, uf2))
    import secrets
    key = secrets.token_bytes(32)
    print("--net: the same main.py, box and key twice: without a network given (the live link not started), then "
          "with one (the live link sending every entry to a peer inside the box, %s)" % "a 5 ms round trip")
    for label, live in (("without the live link", None), ("with the live link sending", "192.168.8.10:7373")):
        d = os.path.join(tmp, "net" if live else "plain")
        os.mkdir(d)
        with open(NET_MAIN, "rb") as f:
            main_py = f.read()
        img, n = B.make_box(picoemu, d, "box", a.box, frozen=uf2 is not None, main_py=main_py, key=key, live=live)
        print("\n== %s ==" % label)
        said = []
        show_presses(presses_on(picoemu, a, B, img, n, uf2, said))
        task = [x for x in said if x.startswith("nakk-net task")]
        print("  %s (the peer's count per script above)" % (task[-1] if task else "nakk-net task: not said"))


def presses_on(picoemu, a, B, img, n, uf2, said=None):
    """{kind: [(ms to the frame, ms to the frame after the entry on flash)]} of every script played on a copy
    of img; the heap after boot printed first. said: the lines the box printed on its serial port."""
    import shutil
    run = img + ".run"
    shutil.copyfile(img, run)
    (free, alloc), ms, h, wdt = B.boot(picoemu, run, n, uf2)
    print("\nHeap after boot (app built): %d bytes free, %d allocated (of %d); start screen at %.0f ms; "
          "hello: %d waiting" % (free, alloc, free + alloc, ms, h["unsynced"]))
    results = {}
    scripts = ["saare-2020"] if a.quick else ["saare-2020", "saare-classic", "sasku", "schmier"]
    for rs in scripts + ["extra"]:
        if rs == "extra":
            keys = EXTRA
        else:
            with open(os.path.join(DEMO, rs + ".keys")) as f:
                keys = f.read()
        # a box holding results shows its last one: a long OK opens the start screen
        ks = parse_keys(("OK:long\n" if n else "") + keys, rs)
        shutil.copyfile(img, run)
        with picoemu.PicoEmu(image=run, pins=PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8),
                             firmware=uf2) as emu:
            f = emu.wait_frame(0)
            emu.wait_frame(f["frame"], timeout_s=120)
            play(emu, ks, results)
            if emu.flash_stats()["wdt_triggers"]:
                print("  (watchdog fired during %s!)" % rs)
            if said is not None:
                # the first client of the serial bridge gets what the box printed since power-on
                emu.wait_until_us(emu.now_us() + 2000000)      # the peer's last count (said once a second)
                with emu.serial_socket(timeout=5) as sock:
                    text = sock.read_until(b"\x00never", timeout=3).decode(errors="replace")
                lines = [x.strip() for x in text.splitlines() if x.startswith("nakk-net")]
                said.extend(lines)
                print("  %s: %s" % (rs, lines[-1] if lines else "(the box said nothing of its live link)"))
    return results




# The box's side of dumped(): a bench main.py's `async def dump()` whose body prints its records
# and END, run once the pin is pulled low (the MicroPython text, given the pin)
DUMP_ON_PIN = b"""flag = asyncio.ThreadSafeFlag()
pin = Pin(%d, Pin.IN, Pin.PULL_UP)
pin.irq(lambda p: flag.set(), Pin.IRQ_FALLING)
async def dump():
    await flag.wait()
"""

def dumped(emu, pin, who):
    """The lines a bench main.py prints when `pin` is pulsed (after 1.5 s of quiet), up to its END."""
    with emu.serial_socket(timeout=0.5) as s:
        emu.wait_until_us(emu.now_us() + 1500000)
        emu.press(pin, 50)
        out = b""
        t0 = time.monotonic()
        while b"END" not in out:
            if time.monotonic() - t0 > 60:
                sys.exit("%s: no record from the box; it said: %r" % (who, out[-300:]))
            out += s.read_until(b"END", timeout=2)
            emu.wait_us(20000)
    return out.decode(errors="replace").splitlines()

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one match (saare-2020 + undo/penalty), no .py boot")
    ap.add_argument("--box", type=int, default=0,
                    help="play on a box already holding this many finished, unsynced matches (presses only)")
    ap.add_argument("--uf2", metavar="FILE",
                    help="run this UF2 (nakk build's, the firmware frozen) instead of stock MicroPython + .mpy "
                         "(presses only)")
    ap.add_argument("--mhz", type=int, default=0,
                    help="run the firmware at this clock (nakk.board.pico.cpu_hz, set in main.py) instead of the "
                         "shipped 200 MHz: e.g. 125, MicroPython's default")
    ap.add_argument("--net", action="store_true",
                    help="the presses twice on the same build and box (with --uf2 FILE: the Pico W's or the Pico's): "
                         "without and with the live link sending every entry (to a peer inside the box: the "
                         "emulator has no Wi-Fi chip; docs/live.md)")
    a = ap.parse_args()
    picoemu = kit()
    tmp = tempfile.mkdtemp(prefix="bench-emu-")
    if a.box or a.uf2 or a.net:
        return play_on_box(picoemu, a, tmp)
    files = box_files(picoemu, tmp)
    cache = os.path.join(tmp, "cache")      # box_files' cached dependency, for nakk flash below
    if a.mhz:
        # the board's clock, as build() will set it (boot.py has already set the firmware's)
        clock = b"from nakk.board import pico\npico.cpu_hz = %d\npico.fast_clock()\n" % (a.mhz * 1000000)
        files = dict(files)
        files["/main.py"] = clock + files["/main.py"]
        BENCH = clock + BENCH_MAIN
    else:
        BENCH = BENCH_MAIN
    mpy = sum(len(v) for p, v in files.items() if p.endswith(".mpy"))
    nakk_mpy = sum(len(v) for p, v in files.items() if p.startswith("/nakk/"))
    fw = build.firmware_dir()
    src = 0
    py_files = {p: v for p, v in files.items() if not p.startswith("/nakk/")}
    for p in files:
        if p.startswith("/nakk/"):
            with open(os.path.join(fw, p[1:-4] + ".py"), "rb") as f:
                py_files[p[:-4] + ".py"] = f.read()
                src += len(py_files[p[:-4] + ".py"])
    print("bench_emu: MicroPython v1.28.0 RPI_PICO in rp2040js %s (emulated time; the emulator models "
          "no flash erase/program time)%s" % (picoemu.RP2040JS_VERSION,
                                             "; the firmware at %d MHz" % a.mhz if a.mhz else ""))
    print("\n.mpy bytes copied to a box: %d (nakk %d in %d files, deps %d); nakk as source: %d bytes"
          % (mpy, nakk_mpy, sum(1 for p in files if p.startswith("/nakk/")), mpy - nakk_mpy, src))

    bench_files = dict(files)
    bench_files["/main.py"] = BENCH
    t_mpy, heap = first_frame(picoemu, image(picoemu, bench_files, tmp, "mpy-bench"), reads_heap=True)
    print("\nHeap after boot (app built, .mpy): %d bytes free, %d allocated (of %d)"
          % (heap[0], heap[1], heap[0] + heap[1]))
    t_mpy2, _ = first_frame(picoemu, image(picoemu, files, tmp, "mpy"))
    print("Power-on to the start screen: %.0f ms as .mpy" % t_mpy2, end="")
    if not a.quick:
        t_py, said = first_frame(picoemu, image(picoemu, py_files, tmp, "py"))
        if t_py is None:
            print("; as .py source it does not start (%s)" % " / ".join(said))
        else:
            print(", %.0f ms as .py source" % t_py)
    else:
        print()

    results = {}
    scripts = ["saare-2020"] if a.quick else ["saare-2020", "saare-classic", "sasku", "schmier"]
    img = image(picoemu, files, tmp, "play")
    for rs in scripts + ["extra"]:
        if rs == "extra":
            ks = parse_keys(EXTRA, "extra")
        else:
            with open(os.path.join(DEMO, rs + ".keys")) as f:
                ks = parse_keys(f.read(), rs)
        with picoemu.PicoEmu(image=img, pins=PINS, oled_spi=(18, 19, 17, 20, 21), rings=(6, 7, 8)) as emu:
            f = emu.wait_frame(0)
            emu.wait_frame(f["frame"])
            play(emu, ks, results)
            if emu.flash_stats()["wdt_triggers"]:
                print("  (watchdog fired during %s!)" % rs)
    show_presses(results)

    print("\nnakk flash (emulated s / wall s on this machine):")
    for label, (emu_s, wall_s, last) in flash_runs(picoemu, tmp, cache).items():
        print("  %-34s %6.1f / %6.1f   %s" % (label, emu_s, wall_s, last))


if __name__ == "__main__":
    main()
