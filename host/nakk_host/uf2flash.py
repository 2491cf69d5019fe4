"""`nakk flash --uf2 FILE`: put a UF2 (nakk build's) on a box through the Pico's BOOTSEL drive, and check what came back.

The UF2 is read first: UF2 blocks for the RP2040 (family 0xe48bff56), and
nakk_build.INFO inside (board, firmware version, build hash, the journal
format it reads). Anything else is refused in one line.

From a running box (found on USB, or --port): its hello over the link says
which firmware it runs and which journal format it keeps; a UF2 reading an
older format is refused. Then the link's maintenance mode (flash._connect),
files an earlier `nakk flash` of .mpy put on the filesystem are removed (they
would shadow the frozen modules; the journal is never touched), and
machine.bootloader(): the Pico shows up as the RPI-RP2 drive. From a blank
Pico (no box on USB): the BOOTSEL steps are printed and the drive awaited.

The drive is a folder holding INFO_UF2.TXT (Board-ID: RPI-RP2 for the
RP2040), looked for where Linux, macOS and Windows mount it, and in
$NAKK_UF2_DRIVES (folders separated by os.pathsep: drives, or folders of
drives). The UF2 is copied onto it; the Pico writes it to flash and reboots
into the new firmware, whose hello must then name the UF2's version and build.
"""

import os
import shutil
import string
import struct
import sys
import time

from nakk_host import flash as F
from nakk_host.uf2build import BOARD, BOARDS, INFO_MARK

UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
FAMILY_ID_PRESENT = 0x00002000
RP2040_FAMILY = 0xE48BFF56
FAMILIES = {0xE48BFF56: "RP2040", 0xE48BFF57: "RP2350 (absolute)", 0xE48BFF58: "RP2350 (data)",
            0xE48BFF59: "RP2350 (Arm)", 0xE48BFF5A: "RP2350 (RISC-V)", 0xE48BFF5B: "RP2350 (Arm, non-secure)",
            0x68ED2B88: "SAMD21", 0x55114460: "SAMD51", 0xADA52840: "nRF52840", 0x1C5F21B0: "ESP32",
            0xBFDD4EEE: "ESP32-S2", 0xC47E5767: "ESP32-S3"}
DRIVE_BOARD = "RPI-RP2"               # INFO_UF2.TXT's Board-ID on the RP2040's bootrom
DRIVE_WAIT_S = float(os.environ.get("NAKK_UF2_DRIVE_S", "60"))
BOOTSEL_STEPS = ("no box on USB. To install the firmware on a Pico: 1. unplug it; 2. hold its BOOTSEL button "
                 "(the white button on the board) while plugging its USB into this computer; 3. let go: a drive "
                 "called RPI-RP2 appears. Waiting for it ...")


class Uf2Info:
    def __init__(self, path, blocks, families, fields):
        self.path, self.blocks, self.families = path, blocks, families
        self.board = fields.get("board")
        self.version = fields.get("version")
        self.build = fields.get("build")
        self.journal = int(fields.get("journal", "0"))
        self.micropython = fields.get("micropython")


def read_uf2(path):
    """The UF2's blocks checked and its nakk_build.INFO read; FlashError for anything else."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise F.FlashError("cannot read %s: %s" % (path, e.strerror or e))
    if not data or len(data) % 512:
        raise F.FlashError("%s is not a UF2 file (its size is not a whole number of 512-byte blocks)" % path)
    image, families = {}, set()
    for off in range(0, len(data), 512):
        m0, m1, flags, addr, size, _n, _total, fam = struct.unpack_from("<8I", data, off)
        end, = struct.unpack_from("<I", data, off + 508)
        if (m0, m1, end) != UF2_MAGIC or size > 476:
            raise F.FlashError("%s is not a UF2 file (block %d has no UF2 magic)" % (path, off // 512))
        families.add(fam if flags & FAMILY_ID_PRESENT else None)
        image[addr] = data[off + 32:off + 32 + size]
    if families != {RP2040_FAMILY}:
        names = ", ".join(sorted(FAMILIES.get(x, "family 0x%08x" % x) if x is not None else "no family"
                                 for x in families))
        raise F.FlashError("%s is a UF2 for %s, not for the Pico's RP2040: build the Pico's with nakk build"
                           % (path, names))
    flat = b"".join(image[a] for a in sorted(image))
    i = flat.find(INFO_MARK)
    if i < 0:
        raise F.FlashError("%s holds no nakk firmware (a UF2 for the RP2040, but not one nakk build made)" % path)
    end = flat.find(b"\0", i, i + 400)
    line = flat[i:end if end > 0 else i + 400].decode("ascii", "replace")
    fields = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
    info = Uf2Info(path, len(data) // 512, families, fields)
    if info.board not in BOARDS.values():       # the Pico's, or the Pico W's (the same RP2040, with Wi-Fi)
        raise F.FlashError("%s is nakk's firmware for %s, not for the Pico (%s)" % (path, info.board, BOARD))
    return info


def refusal(info, hello):
    """Why the box answering hello cannot take this UF2, or None."""
    have = hello.get("board") or BOARD          # a box before the Pico W's UF2 said no board: a Pico's
    if info.board != have:
        # the Pico's filesystem starts at 0xA0000, the Pico W's at 0x12C000 (its firmware is larger):
        # the other board's UF2 would write over the results on flash, or leave them where it never looks
        return ("%s is the firmware for %s, and this box runs the one for %s: their filesystems lie in "
                "different places and its results would be lost (a box changes boards only when it is "
                "empty: by hand, through its BOOTSEL drive)" % (os.path.basename(info.path), info.board, have))
    need = hello.get("journal", 0)
    if info.journal < need:
        return ("%s (firmware %s) reads journal format %d, and the box keeps format %d (firmware %s): "
                "flash a newer firmware" % (os.path.basename(info.path), info.version, info.journal, need,
                                            hello.get("fw", "?")))
    return None


# ---------------------------------------------------------------- the drive

def _candidates():
    extra = [d for d in os.environ.get("NAKK_UF2_DRIVES", "").split(os.pathsep) if d]
    for d in extra:
        yield d
        if os.path.isdir(d):
            for n in sorted(os.listdir(d)):
                yield os.path.join(d, n)
    if extra:
        return       # told where to look: look nowhere else (the tests; a machine with odd mounts)
    if sys.platform == "win32":
        for letter in string.ascii_uppercase:
            yield letter + ":\\"
        return
    if sys.platform == "darwin":
        roots = ["/Volumes"]
    else:
        user = os.environ.get("USER") or os.environ.get("LOGNAME") or ""
        roots = ["/media/" + user, "/run/media/" + user, "/media", "/mnt"]
        try:
            with open("/proc/mounts") as f:       # wherever the desktop mounted it
                for line in f:
                    parts = line.split()
                    if len(parts) > 2 and parts[2] in ("vfat", "msdos", "fuseblk"):
                        yield parts[1].replace("\\040", " ")
        except OSError:
            pass
    for r in roots:
        yield os.path.join(r, DRIVE_BOARD)
        if os.path.isdir(r):
            for n in sorted(os.listdir(r)):
                yield os.path.join(r, n)


def drive_board(d):
    """The Board-ID in d/INFO_UF2.TXT, or None when d is not a UF2 drive."""
    try:
        with open(os.path.join(d, "INFO_UF2.TXT"), encoding="ascii", errors="replace") as f:
            for line in f:
                if line.lower().startswith("board-id:"):
                    return line.split(":", 1)[1].strip()
        return ""
    except OSError:
        return None


def find_drives():
    """[(folder, Board-ID)] of the UF2 drives mounted now."""
    seen, out = set(), []
    for d in _candidates():
        if d in seen:
            continue
        seen.add(d)
        b = drive_board(d)
        if b is not None:
            out.append((d, b))
    return out


def wait_drive(timeout_s, say=None):
    """The one Pico drive (Board-ID RPI-RP2...) once there is one; FlashError on timeout or a wrong board."""
    end = time.monotonic() + timeout_s
    while True:
        drives = find_drives()
        picos = [d for d, b in drives if b.startswith(DRIVE_BOARD)]
        if len(picos) > 1:
            raise F.FlashError("several RPI-RP2 drives are mounted (%s): unplug all boxes but one" % ", ".join(picos))
        if picos:
            return picos[0]
        if drives and not picos:
            raise F.FlashError("the UF2 drive at %s is a %s, not a Pico's RPI-RP2: nakk's UF2 is for the "
                               "Raspberry Pi Pico (RP2040)" % (drives[0][0], drives[0][1] or "board it does not name"))
        if time.monotonic() >= end:
            raise F.FlashError("no RPI-RP2 drive appeared within %d s: hold the Pico's BOOTSEL button while "
                               "plugging it in, then run nakk flash --uf2 again (where USB drives are not mounted "
                               "by themselves, mount it and name its folder in NAKK_UF2_DRIVES)" % timeout_s)
        time.sleep(0.5)


def copy_to_drive(info, drive):
    """Copy the UF2 onto the drive (the Pico writes it to flash and reboots when the last block is in)."""
    dst = os.path.join(drive, os.path.basename(info.path))
    try:
        with open(info.path, "rb") as src, open(dst, "wb") as out:
            shutil.copyfileobj(src, out, 64 * 1024)
            out.flush()
            os.fsync(out.fileno())
    except OSError as e:
        raise F.FlashError("the copy onto %s stopped (%s): the Pico left the drive half-written and stays in "
                           "its bootloader; unplug it, hold BOOTSEL while plugging it in, run nakk flash --uf2 "
                           "again" % (drive, e.strerror or e))
    return dst


# ---------------------------------------------------------------- the box

def hello(port, timeout=5):
    """The box's hello over the link, or None when no app answers (a blank Pico, maintenance mode)."""
    return F.app_hello(port, timeout)


def to_bootloader(port, say, db=None):
    """Maintenance mode through the link, the .mpy files of an earlier nakk flash removed, machine.bootloader()."""
    box, _probe = F._connect(port, say, db)   # a paired box: the repl signed with its key from db
    try:
        man = F.read_manifest(box)
        gone = 0
        present = set(box.run(F._WALK % "/"))
        dirs = set()
        for p in sorted((man or {}).get("files", {})) + [F.build.MANIFEST]:
            if p in present and not p.startswith("/journal"):
                box.t.fs_rmfile(p)
                gone += 1
                d = p.rsplit("/", 1)[0]
                while d:
                    dirs.add(d)
                    d = d.rsplit("/", 1)[0]
        # the folders they leave empty too: an empty /nakk is a namespace package shadowing the frozen nakk
        box.run("import os\nfor d in %r:\n    try:\n        os.rmdir(d)\n    except OSError:\n        pass\n"
                "print(1)" % sorted(dirs, key=lambda d: -d.count("/")))
        if gone:
            say("removed the %d files of an earlier nakk flash (the UF2 holds them frozen)" % gone)
        say("restarting the box into its USB bootloader")
        box.t.exec_raw_no_follow("import machine; machine.bootloader()")
    finally:
        box.close()


def verify(port, info, timeout_s):
    """Wait for the box's app and check that it runs the UF2's firmware: its hello."""
    end = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < end:
        try:
            p = F.pick_port(port)
        except F.FlashError:
            p = None
        if p:
            last = hello(p)
            if last is not None:
                break
        time.sleep(0.5)
    if last is None:
        raise F.FlashError("the UF2 is on the Pico, but no box answered on USB within %d s: it should show "
                           "its start screen; check with nakk doctor" % timeout_s)
    if last.get("fw") != info.version or last.get("build") != info.build:
        raise F.FlashError("the box came back with firmware %s (build %s), not %s (build %s): copy the UF2 again"
                           % (last.get("fw"), last.get("build"), info.version, info.build))
    return last


def install(path, port=None, say=print, drive_wait_s=None, restart_s=None, db=None):
    """The whole of `nakk flash --uf2`: a dict of what was done. db: the judge's database, whose key
    signs a paired box's maintenance request."""
    t0 = time.monotonic()
    info = read_uf2(path)
    drive_wait_s = DRIVE_WAIT_S if drive_wait_s is None else drive_wait_s
    restart_s = F.RESTART_WAIT_S if restart_s is None else restart_s
    say("%s: firmware %s, build %s, for %s (MicroPython %s)" % (os.path.basename(path), info.version, info.build,
                                                               info.board, info.micropython))
    before = None
    picos = [d for d, b in find_drives() if b.startswith(DRIVE_BOARD)]
    if not picos:
        try:
            p = F.pick_port(port)
        except F.FlashError:
            p = None
        if p is None:
            say(BOOTSEL_STEPS)
        else:
            say("box: %s" % p)
            before = hello(p)
            if before is not None:
                why = refusal(info, before)
                if why:
                    raise F.FlashError(why)
                say("the box runs firmware %s (build %s); %d result%s waiting for the judge stay on it"
                    % (before.get("fw"), before.get("build"), before.get("unsynced", 0),
                       "" if before.get("unsynced", 0) == 1 else "s"))
            to_bootloader(p, say, db)
    drive = wait_drive(drive_wait_s)
    say("copying onto %s" % drive)
    copy_to_drive(info, drive)
    after = verify(port, info, restart_s)
    return {"version": info.version, "build": info.build, "drive": drive, "before": before, "after": after,
            "seconds": time.monotonic() - t0}
