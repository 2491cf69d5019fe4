"""`nakk flash`: put the firmware onto a box (a Pico with MicroPython) over USB, copying only what changed.

Steps, each safe to interrupt and run again:
  1. find the one box (USB VID 2E8A, Raspberry Pi) or take --port (a device
     or a pyserial URL such as the emulator's socket://);
  2. reach the raw REPL with mpremote's own transport (mpremote.transport_serial).
     A fresh Pico, or a box in maintenance mode, answers at once. A box whose
     app runs owns the port (the link): an unpaired one takes mpremote's
     \r\x03\r\x01 or the link's `repl` request, a paired one only a `repl` signed
     with its key from the judge's database (--db), and writes the maintenance
     flag and resets (docs/security.md). A box whose
     REPL answers but whose watchdog runs (armed before a soft reset: it
     cannot be stopped) gets the flag and a reset from us. Either way we wait
     for the maintenance boot's REPL;
  3. read the MicroPython version and .mpy format, and refuse one the
     compiled firmware cannot run (saying which MicroPython to install);
  4. read the journal over the REPL and refuse while finished results wait
     for the judge (--force goes on), or when its format is newer than this
     firmware reads;
  5. copy what differs from the manifest the last flash left on the box
     (/nakk-manifest.json: sha256 of every file, the version), with a rich
     progress bar; remove files of ours that the new tree no longer has;
  6. main.py goes last: it is removed before the first copy and written
     after the last, so a box cut off mid-flash boots to the REPL (no app),
     never half-updated and running; the manifest is rewritten first without
     the files about to change, so a rerun copies them again;
  7. soft-reset: boot.py and main.py run, the app starts.

Modules frozen into the box's MicroPython image (firmware/manifest.py) are
not copied: a copy on flash would shadow the frozen one.
"""

import ast
import json
import os
import tempfile
import time

from nakk_host import build

PICO_VID = 0x2E8A            # Raspberry Pi (MicroPython's rp2 USB CDC)
# A Pico re-enumerates in about 2 s after a reset; $NAKK_FLASH_RESTART_S changes the wait
# (the emulated Pico logs a reset without doing it, so its tests wait less).
RESTART_WAIT_S = float(os.environ.get("NAKK_FLASH_RESTART_S", "20"))
UF2_HELP = ("install MicroPython %d.%d or newer for the Raspberry Pi Pico: unplug the box, hold its BOOTSEL "
            "button while plugging it in, copy the RPI_PICO .uf2 from https://micropython.org/download/RPI_PICO/ "
            "onto the RPI-RP2 drive that appears, then run nakk flash again" % build.MIN_MICROPYTHON)
HOLD_OK_HELP = ("switch the box off, hold OK while switching it on (maintenance mode: the screen stays dark), "
                "then run nakk flash again")

# Run on the box in the raw REPL. Returns one Python literal.
_PROBE = """
import sys, os
def _nakk_probe():
    v = sys.implementation.version
    fz = []
    keep = sys.path[:]
    sys.path[:] = ['.frozen']
    for n in ('nakk', 'ssd1306'):
        old = sys.modules.pop(n, None)
        try:
            __import__(n)
            fz.append(n)
        except ImportError:
            pass
        sys.modules.pop(n, None)
        if old is not None:
            sys.modules[n] = old
    sys.path[:] = keep
    pico = sys.modules.get('nakk.board.pico')
    app = 'nakk.app' in sys.modules and not (pico is not None and pico._decided)
    try:
        # the RP2040 watchdog's CTRL.ENABLE: armed earlier in this boot it survives a soft reset
        import machine
        app = app or bool((machine.mem32[0x40058000] >> 30) & 1)
    except Exception:
        pass
    st = os.statvfs('/')
    try:
        os.stat('/journal/id')
        j = True
    except OSError:
        j = False
    return (v[0], v[1], v[2], getattr(sys.implementation, '_mpy', 0), sys.platform, fz, app,
            st[0] * st[3], st[0] * st[2], j, getattr(sys.implementation, '_machine', ''))
print(repr(_nakk_probe()))
del _nakk_probe
"""

_WALK = """
import os
def _nakk_walk(d, out):
    try:
        it = os.ilistdir(d)
    except OSError:
        return out
    for e in it:
        p = d + '/' + e[0] if d != '/' else '/' + e[0]
        if e[1] & 0x4000:
            _nakk_walk(p, out)
        else:
            out.append(p)
    return out
print(repr(_nakk_walk(%r, [])))
del _nakk_walk
"""


# Drawn on the box's own OLED while files go in (when its current firmware can draw): the
# organiser sees that the box is being updated and must stay plugged in. ASCII only: the
# firmware's font may be the very file being replaced.
_BANNER = """
try:
    from nakk.board import pico as _pico
    _b = _pico.build(watchdog=False, buzzer=False)
    _b.fb.fill(0)
    _b.fb.rect(0, 0, 128, 64, 1)
    _b.fb.text('nakk flash', 24, 8, 1)
    _b.fb.text('uuendan...', 24, 24, 1)
    _b.fb.text('updating', 32, 40, 1)
    _b.show(0xFF)
    print(1)
except Exception as e:
    print(0)
"""


class FlashError(Exception):
    """A user-facing refusal or failure: printed as `nakk: message`."""


class Probe:
    def __init__(self, t):
        (self.major, self.minor, self.micro, self.mpy, self.platform, self.frozen, self.app_ran,
         self.free, self.size, self.journal, self.machine) = t

    @property
    def version(self):
        return "%d.%d.%d" % (self.major, self.minor, self.micro)

    @property
    def mpy_major(self):
        return self.mpy & 0xFF

    @property
    def arch(self):
        """mpy-cross's -march for this box's native code (armv6m on a Pico), or None."""
        from nakk_host.unixport import arch_of
        return arch_of(self.mpy)

    @property
    def mpy_sub(self):
        return (self.mpy >> 8) & 3

    def refusal(self, mpy_cross=None):
        """Why this box cannot take the firmware, or None."""
        if self.platform != "rp2":
            return "the board at this port runs MicroPython for %s, not for the Pico (rp2)" % self.platform
        if (self.major, self.minor) < build.MIN_MICROPYTHON or self.mpy_major != build.MPY_MAJOR:
            return ("the box runs MicroPython %s (.mpy format %d.%d); nakk needs %d.%d or newer (.mpy %d): %s"
                    % (self.version, self.mpy_major, self.mpy_sub, build.MIN_MICROPYTHON[0],
                       build.MIN_MICROPYTHON[1], build.MPY_MAJOR, UF2_HELP))
        if mpy_cross is not None and mpy_cross[0] != self.mpy_major:
            return "this mpy-cross writes .mpy %d, the box reads %d" % (mpy_cross[0], self.mpy_major)
        return None


# ---------------------------------------------------------------- finding the box

def find_ports():
    """USB serial ports of Picos running MicroPython."""
    from serial.tools import list_ports
    return sorted(p.device for p in list_ports.comports() if p.vid == PICO_VID)


def pick_port(port=None):
    if port:
        return port
    ports = find_ports()
    if not ports:
        raise FlashError("no box found: plug the box's USB (the Pico's own socket) into this computer, "
                         "or name its port with --port")
    if len(ports) > 1:
        raise FlashError("several boxes are connected (%s): name one with --port, or unplug the others"
                         % ", ".join(ports))
    return ports[0]


# ---------------------------------------------------------------- the REPL

class Box:
    """The raw REPL of one box through mpremote's serial transport."""

    def __init__(self, port):
        from mpremote.transport_serial import SerialTransport
        from mpremote.transport import TransportError
        self.port = port
        try:
            self.t = SerialTransport(port, baudrate=115200)
        except TransportError as e:
            raise FlashError("cannot open %s: %s" % (port, e))

    def raw_repl(self, timeout=10):
        from mpremote.transport import TransportError
        try:
            self.t.enter_raw_repl(soft_reset=False, timeout_overall=timeout)
            return True
        except TransportError:
            return False

    def run(self, code, timeout=30):
        """Run code; the last line it printed, as a Python literal."""
        out = self.t.exec(code) if timeout is None else self._exec(code, timeout)
        lines = [x for x in out.decode(errors="replace").splitlines() if x.strip()]
        return ast.literal_eval(lines[-1]) if lines else None

    def _exec(self, code, timeout):
        from mpremote.transport import TransportExecError
        ret, err = self.t.exec_raw(code, timeout=timeout)
        if err:
            raise TransportExecError(ret, err.decode(errors="replace"))
        return ret

    def close(self):
        try:
            self.t.close()
        except Exception:
            pass


def _connect(port, say, db=None):
    """The box's raw REPL with no app and no watchdog running: maintenance mode, or a fresh Pico."""
    box = Box(port)
    if box.raw_repl(timeout=3):
        probe = Probe(box.run(_PROBE))
        if not probe.app_ran:
            return box, probe
        # The app ran this boot (a firmware without the link, whose Ctrl-C ended it): its watchdog
        # would reset the box in the middle of the copy. The flag, then a reset.
        say("the box's app is running: restarting it into maintenance mode")
        box.t.exec_raw_no_follow("f = open('/maintenance', 'w'); f.write('1'); f.close()\n"
                                 "import machine; machine.reset()")
    else:
        # The app's link owns the port: mpremote's \r\x03\r\x01 that reached it just now asks it for
        # maintenance mode, and so does the link's `repl` request (docs/protocol.md, `repl`).
        say("the box's app is running: restarting it into maintenance mode")
        box.close()
        _link_repl(port, db)
    box.close()
    end = time.monotonic() + RESTART_WAIT_S
    while time.monotonic() < end:
        try:
            box = Box(port)
        except FlashError:
            time.sleep(0.5)      # the port is gone while the Pico restarts: look again
            continue
        if box.raw_repl(timeout=3):
            probe = Probe(box.run(_PROBE))
            if not probe.app_ran:
                return box, probe
        box.close()
    raise FlashError("the box did not come back in maintenance mode after its restart: %s" % HOLD_OK_HELP)


def app_hello(port, timeout=3):
    """The running app's hello over the link, or None when no app answers (a fresh Pico, maintenance mode)."""
    try:
        from nakk_host import device
        with device.Box(port, timeout=timeout) as b:
            return b.request("hello", {}, retry=False)   # once: a REPL that never answers costs one timeout
    except Exception:
        return None


def _waiting(count, numbers):
    """The refusal while finished results wait for the judge (the first few match numbers, when known)."""
    shown = ", ".join(str(n) for n in numbers[:5]) + (" and %d more" % (len(numbers) - 5) if len(numbers) > 5 else "")
    return ("the box holds %d finished result%s the judge has not synced%s: run nakk sync first, or nakk flash "
            "--force to go on (the results stay on the box)"
            % (count, "" if count == 1 else "s", (" (match%s %s)" % ("" if len(numbers) == 1 else "es", shown))
               if numbers else ""))


def _link_repl(port, db=None):
    """Ask the box's link for maintenance mode, signed with its key from the judge's database db when
    the box is paired; quietly nothing when it is already restarting. FlashError when it refuses."""
    try:
        from nakk_host import device
    except ImportError:
        return
    try:
        with device.Box(port, timeout=2) as b:
            h = b.hello()
            b.repl(_key_for(db, h), h)
    except device.Refused as e:
        raise FlashError("the box refused maintenance mode: %s (its judge's database: nakk flash --db FILE); or %s"
                         % (e.why, HOLD_OK_HELP)) from None
    except Exception:
        pass


def _key_for(db, hello):
    """The key the judge's database db holds for the paired box that said hello (None: unpaired, or unknown)."""
    if not hello.get("paired") or not db or not os.path.exists(db):
        return None
    from nakk_host import store
    try:
        conn = store.open_db(db, create=False)
    except store.StoreError:
        return None
    try:
        known = store.device(conn, str(hello.get("device")))
    finally:
        conn.close()
    if known is None or known["key"] is None or known["fs_id"] != hello.get("fs_id"):
        return None
    return bytes(known["key"])


# ---------------------------------------------------------------- results on the box

def journal_state(box):
    """(format version, [(match number, finished)]) of the journal on the box, read by this checkout's
    nakk.journal from a copy of its files (so a box whose firmware is broken is read too)."""
    from nakk import record
    from nakk.journal import Journal, JournalError
    files = box.run(_WALK % "/journal")
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "journal")
        for p in files:
            dst = os.path.join(tmp, p.lstrip("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(box.t.fs_readfile(p))
        with open(os.path.join(root, "id"), "rb") as f:
            raw = f.read()
        version = _journal_version(raw)
        if version is not None and version > record.VERSION:
            return version, None
        try:
            return version, Journal(root).matches()
        except JournalError as e:
            raise FlashError("cannot read the journal on the box: %s" % e)


def _journal_version(raw):
    from nakk import journal as J
    from nakk import record
    p = None
    with tempfile.NamedTemporaryFile() as f:
        f.write(raw)
        f.flush()
        p = J.read_meta(f.name, J._MAGIC)
    if p is None:
        return None
    try:
        return int(p.split(b" ")[0])
    except ValueError:
        return record.VERSION + 1   # unreadable: treat as a format we do not know


# ---------------------------------------------------------------- the copy

def plan(files, manifest, present):
    """(to copy, to remove): files whose hash differs from the manifest or that are missing on the box,
    and files of ours (nakk/, lib/ of our deps, .py twins of .mpy) that the tree no longer has."""
    have = manifest.get("files", {}) if manifest else {}
    present = set(present)
    copy = [p for p in sorted(files) if have.get(p) != build.digest(files[p]) or p not in present]
    ours = set(have) | {p for p in present if p.startswith("/nakk/")}
    for p in files:
        if p.endswith(".mpy"):
            ours.add(p[:-4] + ".py")   # a .py beside the .mpy would be imported instead of it
    remove = sorted(p for p in ours if p in present and p not in files)
    return copy, remove


def read_manifest(box):
    try:
        return json.loads(box.t.fs_readfile(build.MANIFEST).decode())
    except Exception:
        return None


def write_manifest(box, files, version, build_id, probe):
    box.t.fs_writefile(build.MANIFEST, build.manifest(
        files, version, build_id, probe.version, "%d.%d" % (probe.mpy_major, probe.mpy_sub)))


def _mkdirs(box, path, made):
    parts = path.split("/")[1:-1]
    d = ""
    for part in parts:
        d += "/" + part
        if d in made:
            continue
        if not box.t.fs_exists(d):
            box.t.fs_mkdir(d)
        made.add(d)


def _progress(total, enabled):
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                    disable=not enabled, transient=False)


def restart(box):
    """Soft reset from the friendly REPL: boot.py, then main.py, starts the app."""
    box.t.exit_raw_repl()
    box.t.read_until(1, b">>> ", timeout=5)
    box.t.serial.write(b"\x04")
    if not box.t.read_until(1, b"soft reboot\r\n", timeout=5).endswith(b"soft reboot\r\n"):
        raise FlashError("the box did not restart; switch it off and on again")


def flash(port=None, force=False, say=print, progress=True, cache=None, db=None):
    """Flash one box; returns a dict of what was done (copied, removed, bytes, version, seconds).
    db: the judge's database, whose key for a paired box signs the request for maintenance mode."""
    t0 = time.monotonic()
    port = pick_port(port)
    say("box: %s" % port)
    if not force:
        # a running app says at once how many results wait (reading the journal over the REPL took
        # a minute on a full box); a box in maintenance mode is asked through its journal below
        h = app_hello(port)
        if h is not None and h.get("unsynced"):
            raise FlashError(_waiting(h["unsynced"], []))
    box, probe = _connect(port, say, db)
    try:
        why = probe.refusal(build.mpy_header())
        if why:
            raise FlashError(why)
        say("MicroPython %s on %s (.mpy %d.%d), %d KB free%s" % (
            probe.version, probe.machine or "rp2", probe.mpy_major, probe.mpy_sub, probe.free // 1024,
            ("; frozen in the image: " + ", ".join(probe.frozen)) if probe.frozen else ""))
        if probe.journal:
            version, matches = journal_state(box)
            if matches is None:
                raise FlashError("the box's journal is format %d, newer than this firmware reads; "
                                 "flash it from a newer nakk" % version)
            waiting = [n for n, fin in matches if fin]
            if waiting and not force:
                raise FlashError(_waiting(len(waiting), waiting))
        fw_version, _deps = build.package()
        files = build.tree(frozen=probe.frozen, cache=cache, arch=probe.arch)
        bid = build.build_id(files)
        manifest = read_manifest(box)
        present = box.run(_WALK % "/")
        copy, remove = plan(files, manifest, present)
        if "/main.py" in present and "/main.py" not in copy and (copy or remove):
            copy.append("/main.py")   # main.py goes last, whenever anything else changes
        copy = [p for p in copy if p != "/main.py"] + (["/main.py"] if "/main.py" in copy else [])
        total = sum(len(files[p]) for p in copy)
        if copy or remove:
            if "/main.py" in present:
                box.t.fs_rmfile("/main.py")          # from here on a restart leaves the REPL free
            box.run(_BANNER)
            if manifest is not None:
                kept = {p: files[p] for p in files if p not in copy
                        and manifest.get("files", {}).get(p) == build.digest(files[p])}
                write_manifest(box, kept, manifest.get("version", "?"), "partial", probe)
            made = set()
            with _progress(total, progress) as bar:
                task = bar.add_task("copying %d file%s" % (len(copy), "" if len(copy) == 1 else "s"), total=total)
                for p in copy:
                    if p == "/main.py":
                        continue
                    _mkdirs(box, p, made)
                    done = bar.tasks[task].completed
                    box.t.fs_writefile(p, files[p], chunk_size=1024,
                                       progress_callback=lambda n, _t, d=done: bar.update(task, completed=d + n))
                    bar.update(task, completed=done + len(files[p]))
                for p in remove:
                    box.t.fs_rmfile(p)
                write_manifest(box, files, fw_version, bid, probe)
                if "/main.py" in copy:
                    box.t.fs_writefile("/main.py", files["/main.py"])
                    bar.update(task, completed=total)
        if box.t.fs_exists("/maintenance"):
            box.t.fs_rmfile("/maintenance")
        restart(box)
        return {"port": port, "copied": copy, "removed": remove, "bytes": total, "version": fw_version,
                "build": bid, "frozen": probe.frozen, "micropython": probe.version,
                "seconds": time.monotonic() - t0}
    except build.BuildError as e:
        raise FlashError(str(e))
    finally:
        box.close()
