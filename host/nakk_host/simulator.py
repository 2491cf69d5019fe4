"""Runs the real firmware on the MicroPython unix port with the `sim` board (CPython side).

    with Simulator("nakk-flash.img") as sim:
        sim.press("OK")                 # a 60 ms tap; returns when the firmware has handled it
        sim.press("OK", long=True)      # held 1000 ms
        print(sim.text())               # the OLED and the rings as terminal text
        sim.screenshot("screen.png")
        sim.tty                         # the USB serial port: a raw-mode pseudo-terminal

The firmware runs in its own process (`micropython -m nakk.offbox.simmain IMAGE`,
heap capped at 320K: the whole app with its link, see HEAP) from .mpy files that mpy-cross
compiles once into a cache, as they would be on the Pico. Its flash is the
LittleFS image file, so killing the process is a power cut. The control
channel (its stdin/stdout, one line per message) is described in
firmware/nakk/offbox/simmain.py.

The USB serial port is a pseudo-terminal pair in raw mode (no echo, no
\\r\\n translation, no signals). The simulator keeps both ends open, so a
client that opens the tty path and closes it again is no error for the
device, and relays bytes between the master end and the firmware. A running
simulator registers itself in $XDG_RUNTIME_DIR/nakk/sim-<pid>.json (or
<tmp>/nakk-<uid>/ without XDG_RUNTIME_DIR) with the tty path, so that
`nakk sync` finds it: see simregistry.py. Where micropython is and the compiled .mpy
files: unixport.py; key scripts: keyscript.py (all three re-exported here).
"""

import json
import os
import select
import signal
import subprocess
import tempfile
import termios
import threading
import time
import tty

from nakk_host import flashimage, screenshot
from nakk_host.keyscript import (BUTTONS, CLUSTER, LONG_MS, SHORT_MS,  # noqa: F401  (the simulator's API)
                                 KeyScriptError, _chord, parse_keys, play)
from nakk_host.simregistry import (claim_image, image_in_use, in_use_error,  # noqa: F401
                                   registered_simulators, registry_dir, release_image)
from nakk_host.unixport import (HEAP, SimulatorError, arch_of, bytecode_of,  # noqa: F401
                                compiled_firmware, dump_events, firmware_cwd, micropython_env,
                                micropython_path, needs_arch, needs_native)

RING_BYTES = 48    # 16 LEDs x GRB


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
        args = [micropython_path(), "-X", "heapsize=" + heap, "-m", "nakk.offbox.simmain", self.image]
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


# ---------------------------------------------------------------- terminal check (tests use it)

def tty_flags(path):
    """(iflag, oflag, cflag, lflag) of a tty path."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        a = termios.tcgetattr(fd)
    finally:
        os.close(fd)
    return a[0], a[1], a[2], a[3]
