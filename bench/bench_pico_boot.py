"""A box full of matches boots on the real rp2 interpreter: the emulated Pico kit, figures printed (not a test).

    NAKK_PICOEMU=../shared/emu .venv/bin/python bench/bench_pico_boot.py [--matches 100,full] [--runs 3]
        [--uf2 [FILE]] [--no-index]

For an empty flash and for each count of --matches finished, unsynced
matches (`full`: as many as the journal takes before it refuses another
match): builds the Pico's filesystem (the firmware as .mpy, as on a box;
boot.py; micropython-lib's ssd1306 from the kit; then the journal written by
the firmware's own journal on the unix port, tests/mpy/fill_journal.py, on an
image of the Pico's geometry), boots it on stock MicroPython for the Pico
in rp2040js, waits for the start screen, and asks hello over the emulated
USB serial port (every match must be waiting). Prints the heap after boot
(the app and its link built, gc.collect(), as a main.py that is the real
one plus one print reports it) and power-on to the start screen in emulated
time, min/median/max over --runs boots of the same image (each boot is the
box's first after the matches were written, from a copy of the image).
With --uf2 the box runs the UF2 that `nakk build` makes (FILE, or built
now: cached, seconds when nothing changed) instead of stock MicroPython:
the filesystem then holds only the bench main.py (the UF2's frozen main.py
runs a /main.py when there is one) and the journal, and the .mpy files'
130 KB of flash are free for matches. With --no-index the journal's index is
removed from each image (a journal as a firmware before the index left it):
each run is then that box's first boot, which reads every match and writes
the index, and the boot after it on the flash it left. A third row boots the UF2 alone on a
blank flash (its own main.py: power-on to the start screen, no heap line).
A Pico W's UF2 (--uf2 nakk-...-rpi-pico-w.uf2) runs the Pico W's board with its network off (the
emulator has no CYW43) on its own filesystem: 848 KiB at flash offset 0x12C000.
Exits non-zero when a box does not boot or does not answer.

The kit is in ../shared/emu from the root of the clone, or $NAKK_PICOEMU;
rp2040js is installed with its install.sh (into ~/.cache/picoemu).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "host"))

import boxes  # noqa: E402
from nakk_host import device as D  # noqa: E402
from nakk_host.build import PICO_ARCH  # noqa: E402
from nakk_host.simulator import compiled_firmware, micropython_env, micropython_path  # noqa: E402

PINS = {"A": 2, "B": 3, "C": 4, "PREV": 13, "OK": 14, "NEXT": 15}   # firmware/nakk/board/pins.py
OLED_SPI = (18, 19, 17, 20, 21)                                      # SCK, MOSI, CS, DC, RES
RINGS = (6, 7, 8)
DTR_US = 1700000       # the emulated host opens the serial port after this (kit default 1.5 s + enumeration)
MARK = b"nakk-boot heap"
PICO_W = [False, None]  # --uf2 names a Pico W's UF2 (its filesystem: 212 blocks at 0x12C000), and its path
PICO_W_BLOCKS = 212

# main.py as firmware/main.py runs the app (nakk.app.main), with the heap printed once the app is built
MAIN = b"""# bench_pico_boot main.py: app.main(pico) (picow on a Pico W), and the live heap once the app is built
import gc
import asyncio
try:
    import network
    from nakk.board import picow as B
except ImportError:
    from nakk.board import pico as B
from nakk.link import task  # as main.py: the link's buffers first
from nakk import app as A
if B.maintenance():
    print("nakk: maintenance mode")
else:
    a = A.App(B.build())
    gc.collect()
    print("nakk-boot heap free %d alloc %d" % (gc.mem_free(), gc.mem_alloc()))
    asyncio.run(a.run())
"""

# copies host files into the image, on the unix port (MicroPython's own littlefs, as the Pico mounts it)
PUT = """import sys, os, vfs
from nakk.offbox.blockdev import mount_image
bdev = mount_image(sys.argv[1], "/flash", int(sys.argv[3]))
for line in open(sys.argv[2]).read().split("\\n"):
    if not line:
        continue
    src, dst = line.split("\\t")
    parts = dst.strip("/").split("/")
    for i in range(1, len(parts)):
        try:
            os.mkdir("/flash/" + "/".join(parts[:i]))
        except OSError:
            pass
    with open(src, "rb") as f:
        data = f.read()
    with open("/flash/" + "/".join(parts), "wb") as f:
        f.write(data)
vfs.umount("/flash")
bdev.close()
"""

# removes the journal's index from an image (a journal as a firmware before the index left it)
NO_INDEX = """import sys, os, vfs
from nakk.offbox.blockdev import mount_image
bdev = mount_image(sys.argv[1], "/flash")
os.remove("/flash/journal/index")
vfs.umount("/flash")
bdev.close()
"""


class NotBooted(Exception):
    """The emulated box did not boot to its start screen and answer hello as it should."""


def kit():
    d = os.environ.get("NAKK_PICOEMU") or os.path.join(os.path.dirname(ROOT), "shared", "emu")
    if not os.path.isfile(os.path.join(d, "picoemu.py")):
        sys.exit("bench_pico_boot: the emulated Pico kit is not at %s: set NAKK_PICOEMU=/path/to/shared/emu" % d)
    sys.path.insert(0, os.path.abspath(d))
    import picoemu
    if picoemu.find_node_modules() is None:
        sys.exit("bench_pico_boot: rp2040js is missing: run %s/install.sh" % d)
    return picoemu


def firmware_files(picoemu, tmp, frozen=False, main_py=None):
    """[(host path, path on the Pico)]: the compiled package (its native code for the Pico's
    Cortex-M0+, as nakk flash builds it), boot.py, the bench main.py (main_py: another one's
    bytes), ssd1306; frozen (a UF2 holding them all): the bench main.py only."""
    main = os.path.join(tmp, "main.py")
    with open(main, "wb") as f:
        f.write(main_py or MAIN)
    if frozen:
        return [(main, "/main.py")]
    mpy = compiled_firmware(PICO_ARCH)
    out = []
    for d, dirs, files in os.walk(os.path.join(mpy, "nakk")):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".mpy"):
                p = os.path.join(d, f)
                out.append((p, "/" + os.path.relpath(p, mpy)))
    out.append((main, "/main.py"))
    out.append((os.path.join(ROOT, "firmware", "boot.py"), "/boot.py"))
    out.append((picoemu.SSD1306_PY, "/lib/ssd1306.py"))
    return out


def make_image(picoemu, tmp, name, matches, frozen=False):
    """The Pico's filesystem with the firmware and then `matches` finished matches in /journal; its path."""
    return make_box(picoemu, tmp, name, matches, frozen)[0]


def make_box(picoemu, tmp, name, matches, frozen=False, main_py=None, key=None, live=None):
    """make_image's image, `matches` also "full" (until the journal refuses another match):
    (its path, the number of matches written). main_py: another bench main.py; key: the box paired
    with it; live: HOST:PORT, the box given a network for the live scores (as nakk pair --wifi)."""
    img = os.path.join(tmp, name + ".img")
    lst = os.path.join(tmp, name + ".files")
    with open(lst, "w") as f:
        for src, dst in firmware_files(picoemu, tmp, frozen, main_py):
            f.write("%s\t%s\n" % (src, dst))
    put = os.path.join(tmp, "put.py")
    with open(put, "w") as f:
        f.write(PUT)
    blocks = PICO_W_BLOCKS if PICO_W[0] else 352
    r = subprocess.run([micropython_path(), "-X", "heapsize=1M", put, img, lst, str(blocks)], env=micropython_env(),
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise NotBooted("could not write the image: " + (r.stdout + r.stderr)[-1500:])
    if matches or key:
        # played after the firmware was copied, as on a box (the .mpy files take ~130 KB of flash)
        matches = len(boxes.fill(img, matches, key=key, live=live, blocks=blocks)[1])
    if PICO_W[0]:
        # the kit writes its image at the Pico's 0xA0000, over what a Pico W's larger firmware keeps
        # there; a Pico W mounts its 848 KiB at 0x12C000: the image is the firmware's bytes, then its own
        with open(img, "rb") as f:
            data = f.read()
        with open(img, "wb") as f:
            f.write(uf2_bytes(PICO_W[1], 0xA0000, 0x12C000) + data)
    return img, matches


def uf2_bytes(path, start, end):
    """The flash bytes a UF2 writes from offset start to end (0xFF where it writes none)."""
    import struct
    out = bytearray(b"\xff" * (end - start))
    with open(path, "rb") as f:
        data = f.read()
    for off in range(0, len(data), 512):
        addr, size = struct.unpack_from("<II", data, off + 12)
        a = addr - 0x10000000
        chunk = data[off + 32:off + 32 + size]
        for i in range(max(a, start), min(a + size, end)):
            out[i - start] = chunk[i - a]
    return bytes(out)


def drop_index(tmp, img):
    """Remove the journal's index from the image."""
    path = os.path.join(tmp, "no_index.py")
    with open(path, "w") as f:
        f.write(NO_INDEX)
    r = subprocess.run([micropython_path(), "-X", "heapsize=1M", path, img], env=micropython_env(),
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise NotBooted("could not remove the index: " + (r.stdout + r.stderr)[-1500:])


def boot(picoemu, img, matches, uf2=None, save_fs=None):
    """((free, alloc) heap bytes after boot, ms to the start screen, hello's fields, watchdog resets);
    NotBooted when the box shows no start screen, prints no heap or answers hello wrong.
    save_fs: where the emulator writes the filesystem it leaves."""
    with picoemu.PicoEmu(image=img, pins=PINS, oled_spi=OLED_SPI, rings=RINGS, firmware=uf2,
                         save_fs=save_fs) as emu:
        try:
            f = emu.wait_frame(0)                              # ssd1306's init clears the panel
            f2 = emu.wait_frame(f["frame"], timeout_s=120)    # then the app's start screen
        except picoemu.PicoEmuError as e:
            with emu.serial_socket(timeout=5) as s:
                said = s.read_until(b"\x00never", timeout=3).decode(errors="replace")
            raise NotBooted("no start screen with %d matches (%s); the box said:\n%s" % (matches, e, said[-1500:]))
        emu.wait_until_us(max(DTR_US, emu.now_us()))
        with emu.serial_socket(timeout=5) as s:
            line = s.read_until(b"\n", timeout=10)
            while line and MARK not in line:
                line = s.read_until(b"\n", timeout=10)
        if MARK not in line:
            raise NotBooted("the box printed no heap line with %d matches" % matches)
        w = line.decode(errors="replace").split()
        heap = (int(w[3]), int(w[5]))
        with D.Box(emu.serial_url, timeout=30) as box:
            h = box.hello()
        if h.get("unsynced") != matches or h.get("ready") != matches or h.get("damaged"):
            raise NotBooted("hello with %d matches on flash: %r" % (matches, h))
        stats = emu.flash_stats()
        return heap, f2["t_us"] / 1000.0, h, stats["wdt_triggers"]


def counts(text):
    out = []
    for w in text.split(","):
        out.append(w if w == "full" else int(w))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=counts, default=[100],
                    help="finished matches on the full box's flash: numbers or `full`, comma-separated")
    ap.add_argument("--runs", type=int, default=1, help="boots of each image (min/median/max)")
    ap.add_argument("--uf2", nargs="?", const="", metavar="FILE",
                    help="run the UF2 nakk build makes (FILE, or built now) instead of stock MicroPython + .mpy")
    ap.add_argument("--no-index", action="store_true",
                    help="the journal without its index: each run a first boot, then the boot after it")
    args = ap.parse_args()
    picoemu = kit()
    tmp = tempfile.mkdtemp(prefix="nakk-bench-pico-")
    uf2 = None
    if args.uf2 is not None:
        uf2 = os.path.abspath(args.uf2) if args.uf2 else None
        if not uf2:
            from nakk_host import uf2build
            try:
                r = uf2build.build_uf2(tmp, say=lambda s: None)
            except uf2build.Uf2BuildError as e:
                sys.exit("bench_pico_boot: %s" % e)
            uf2 = r.path
    if uf2:
        from nakk_host import uf2flash
        PICO_W[:] = [uf2flash.read_uf2(uf2).board == "RPI_PICO_W", uf2]
    try:
        if uf2:
            print("emulated Pico (rp2040js), the UF2 %s (%d bytes): firmware frozen" % (os.path.basename(uf2),
                                                                                      os.path.getsize(uf2)))
        else:
            print("emulated Pico (stock MicroPython v1.28.0 RPI_PICO in rp2040js), firmware as .mpy")
        print("%-6s %8s %10s %10s %10s %26s %5s %4s" % ("flash", "matches", "heap free", "in use", "of",
                                                        "boot ms min/median/max", "runs", "wdt"))
        for name, n in [("empty", 0)] + [("full%d" % i, c) for i, c in enumerate(args.matches)]:
            try:
                img, n = make_box(picoemu, tmp, name, n, frozen=uf2 is not None)
                if n and args.no_index:
                    drop_index(tmp, img)
                heaps, times, wdt, after = [], [], 0, []
                for r in range(args.runs):
                    run = img + ".run"
                    shutil.copyfile(img, run)      # every run is the first boot after the fill
                    (free, alloc), ms, h, w = boot(picoemu, run, n, uf2, save_fs=run + ".left")
                    heaps.append((free, alloc))
                    times.append(ms)
                    wdt += w
                    if n and args.no_index:
                        after.append(boot(picoemu, run + ".left", n, uf2)[1])
            except NotBooted as e:
                sys.exit("bench_pico_boot: %s" % e)
            times.sort()
            free = min(f for f, a in heaps)
            alloc = max(a for f, a in heaps)
            print("%-6s %8d %10d %10d %10d %26s %5d %4d" % (
                "empty" if not n else "full", n, free, alloc, free + alloc,
                "%.0f / %.0f / %.0f" % (times[0], times[len(times) // 2], times[-1]), args.runs, wdt))
            print("       hello: unsynced %s, ready %s, free flash %s" % (h["unsynced"], h["ready"], h.get("free")))
            if after:
                after.sort()
                print("       without the index: that was the first boot; the next one took %.0f / %.0f / %.0f ms"
                      % (after[0], after[len(after) // 2], after[-1]))
        if uf2:
            # the UF2 alone: a blank flash, no bench main.py to compile (no heap line either)
            with picoemu.PicoEmu(pins=PINS, oled_spi=OLED_SPI, rings=RINGS, firmware=uf2) as emu:
                f = emu.wait_frame(0)
                f2 = emu.wait_frame(f["frame"], timeout_s=120)
            print("%-6s %8d %10s %10s %10s %26.0f %5d %4s" % ("blank", 0, "-", "-", "-", f2["t_us"] / 1000.0, 1, "-"))
            print("       the UF2 alone on a blank flash (MicroPython formats it): its own boot.py and main.py")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
