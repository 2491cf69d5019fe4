"""`nakk build`: the firmware frozen into one UF2 for the Raspberry Pi Pico, from a pinned MicroPython, reproducible and cached.

What goes in: MicroPython v1.28.0 (the rp2 port, board RPI_PICO) with the
project's patches (firmware/patches/*.patch, applied with `patch -p1`), and
frozen into it firmware/manifest.py (nakk, ssd1306) plus what this module
writes into a stage folder: boot.py and main.py (each runs a /boot.py or
/main.py on the filesystem when there is one, a development or bench one,
else the firmware's own, frozen as nakk_boot and nakk_main) and nakk_build.py
(the build hash, and INFO: the line `nakk flash` reads back from the UF2).

Where the sources come from: a folder holding the archives of
micropython-v1.28.0-rp2.tar.xz and picotool-2.2.0.tar.xz (--sources, else
$NAKK_MPBUILD, else ../shared/mpbuild from the root of the clone), checked
against their pinned sha256; without them, git (the tag, `make submodules`;
picotool by its tag). Either way the tree is unpacked once into the cache
without .git, so both give the same bytes.

Reproducible: the same inputs give the same UF2 bytes, wherever the cache
is. The build runs in a fixed folder of the cache (cache/uf2/work), with
SOURCE_DATE_EPOCH fixed (MicroPython's build date, __DATE__ in pico-sdk's
binary info), MicroPython's version string given (no `git describe`), and
the work folder mapped to /nakk-build in every path the compiler writes
(-ffile-prefix-map).

Cached: the cache key is a hash of every input (MicroPython and picotool
pins, the patches, the stage with firmware/'s files, this module, the board,
the compiler's and cmake's versions). A finished build is kept under
cache/uf2/out/KEY/ and a second build with nothing changed copies it out.
The first 12 hex digits of the key are the build hash the firmware reports
in hello ("build").
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time

from nakk_host import build
from nakk_host.cmdtable import Command, arg

MICROPYTHON_TAG = "v1.28.0"
MICROPYTHON_COMMIT = "e0e9fbb17ed6fd06bb76e266ae554784c9c80804"
MICROPYTHON_GIT = "https://github.com/micropython/micropython"
PICOTOOL_TAG = "2.2.0"
PICOTOOL_COMMIT = "a7eb3988f0645239185fadb4e25d8279478c2dbb"
PICOTOOL_GIT = "https://github.com/raspberrypi/picotool"
ARCHIVES = {   # name: sha256 (the offline copies of the two trees above)
    "micropython-v1.28.0-rp2.tar.xz": "43b1c0066adc78896fe271bd0a77124ec4a3e0f8fe3ddf04828bb8b447c61d82",
    "picotool-2.2.0.tar.xz": "d44f48801df80d2bc86d3106a7bc71b5eed65a26bca4bb349c28f50110a44b0e",
}
BOARD = "RPI_PICO"
BOARD_FILE = "rpi-pico"              # in the UF2's name: nakk-<version>-rpi-pico.uf2
BOARDS = {"rpi-pico": "RPI_PICO", "rpi-pico-w": "RPI_PICO_W"}   # the Pico W's: nakk-<version>-rpi-pico-w.uf2
SOURCE_DATE_EPOCH = "1767225600"     # 2026-01-01 00:00 UTC: the date any build says it was made
PREFIX = "/nakk-build"               # the work folder, as every compiled path names it
INFO_MARK = b"NAKK-UF2 "             # nakk_build.INFO starts with this (found in the UF2 by uf2file.py)
JOBS = os.environ.get("NAKK_BUILD_JOBS", "2")

_BOOT = '''# boot.py frozen into the UF2 by nakk build: a /boot.py on the filesystem runs instead (development),
# else the firmware's own (firmware/boot.py, frozen as nakk_boot).
import os
try:
    os.stat("/boot.py")
    _fs = True
except OSError:
    _fs = False
if _fs:
    exec(open("/boot.py").read())
else:
    import nakk_boot
del _fs
'''
_MAIN = _BOOT.replace("boot", "main")
_MANIFEST = '''# The UF2's manifest, written by nakk build: firmware/manifest.py and the stage's own files.
include("firmware/manifest.py")
module("boot.py")
module("main.py")
module("nakk_boot.py")
module("nakk_main.py")
module("nakk_build.py")
'''


class Uf2BuildError(Exception):
    """A user-facing failure: printed as `nakk: message`."""


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def uf2_dir(cache=None):
    return os.path.join(cache or build.cache_dir(), "uf2")


def default_sources():
    """The archives' folder: $NAKK_MPBUILD, else ../shared/mpbuild from the root of the clone; or None."""
    root = os.path.dirname(build.firmware_dir())
    for d in (os.environ.get("NAKK_MPBUILD"), os.path.join(os.path.dirname(root), "shared", "mpbuild")):
        if d and all(os.path.isfile(os.path.join(d, a)) for a in ARCHIVES):
            return os.path.abspath(d)
    return None


def _run(cmd, log, cwd=None, env=None, what=None):
    with open(log, "ab") as f:
        f.write(("$ %s\n" % " ".join(cmd)).encode())
        f.flush()
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        with open(log, "rb") as f:
            tail = f.read()[-2500:].decode(errors="replace")
        raise Uf2BuildError("%s failed (the whole log: %s):\n%s" % (what or cmd[0], log, tail))


def tools_missing():
    """The build tools not on PATH (what apt-get installs: gcc-arm-none-eabi, cmake, make, patch, ...)."""
    return [t for t in ("arm-none-eabi-gcc", "cmake", "make", "cc", "c++", "patch") if shutil.which(t) is None]


def _tool_versions():
    out = []
    for t in ("arm-none-eabi-gcc", "cmake"):
        r = subprocess.run([t, "--version"], capture_output=True, text=True)
        out.append(r.stdout.splitlines()[0] if r.stdout else t)
    return out


# ---------------------------------------------------------------- the sources

def _unpack(archive, dest):
    """Unpack one archive into dest (its top folder's contents), atomically."""
    tmp = tempfile.mkdtemp(dir=os.path.dirname(dest), prefix=".unpack-")
    try:
        with tarfile.open(archive) as t:
            if hasattr(tarfile, "data_filter"):      # Python 3.11.4+: no links or paths out of tmp
                t.extractall(tmp, filter="tar")
            else:
                t.extractall(tmp)
        [top] = os.listdir(tmp)
        os.rename(os.path.join(tmp, top), dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _git_tree(url, tag, commit, dest, log, submodules=False):
    """Clone url at tag (and the rp2 port's submodules), check the commit, keep the tree without .git."""
    if shutil.which("git") is None:
        raise Uf2BuildError("no MicroPython sources: the archives are not found (--sources DIR, $NAKK_MPBUILD) "
                            "and git is not installed to fetch %s %s" % (url, tag))
    tmp = tempfile.mkdtemp(dir=os.path.dirname(dest), prefix=".git-")
    try:
        work = os.path.join(tmp, "tree")
        _run(["git", "clone", "--depth", "1", "--branch", tag, url, work], log, what="git clone " + url)
        head = subprocess.run(["git", "-C", work, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        if head != commit:
            raise Uf2BuildError("%s tag %s is commit %s, not the pinned %s" % (url, tag, head, commit))
        if submodules:
            for b in BOARDS.values():      # the Pico W's adds cyw43-driver, lwip and btstack
                _run(["make", "-C", os.path.join(work, "ports", "rp2"), "BOARD=" + b, "submodules"], log,
                     what="make submodules")
        for d, dirs, files in os.walk(work):        # .git folders, and the submodules' .git files
            if ".git" in dirs:
                dirs.remove(".git")
                shutil.rmtree(os.path.join(d, ".git"))
            if ".git" in files:
                os.remove(os.path.join(d, ".git"))
        os.rename(work, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def sources(cache=None, src=None, log=None, say=print):
    """(micropython tree, picotool tree, where they came from), unpacked once into the cache."""
    root = os.path.join(uf2_dir(cache), "src")
    os.makedirs(root, exist_ok=True)
    mp = os.path.join(root, "micropython-" + MICROPYTHON_COMMIT[:12])
    pt = os.path.join(root, "picotool-" + PICOTOOL_COMMIT[:12])
    if os.path.isdir(mp) and os.path.isdir(pt):
        return mp, pt
    src = src or default_sources()
    if src:
        for name, sha in ARCHIVES.items():
            p = os.path.join(src, name)
            if not os.path.isfile(p):
                raise Uf2BuildError("%s is not in %s" % (name, src))
            if _sha256(p) != sha:
                raise Uf2BuildError("%s is not the pinned archive (sha256 %s expected)" % (p, sha))
        say("unpacking MicroPython %s and picotool %s from %s" % (MICROPYTHON_TAG, PICOTOOL_TAG, src))
        if not os.path.isdir(mp):
            _unpack(os.path.join(src, "micropython-v1.28.0-rp2.tar.xz"), mp)
        if not os.path.isdir(pt):
            _unpack(os.path.join(src, "picotool-2.2.0.tar.xz"), pt)
    else:
        say("fetching MicroPython %s and picotool %s with git" % (MICROPYTHON_TAG, PICOTOOL_TAG))
        if not os.path.isdir(mp):
            _git_tree(MICROPYTHON_GIT, MICROPYTHON_TAG, MICROPYTHON_COMMIT, mp, log, submodules=True)
        if not os.path.isdir(pt):
            _git_tree(PICOTOOL_GIT, PICOTOOL_TAG, PICOTOOL_COMMIT, pt, log)
    return mp, pt


def _picotool(mp, pt, log, say):
    """picotool built once (pico-sdk 2.x makes the UF2 with it); its cmake package folder."""
    inst = pt + "-install"
    pkg = os.path.join(inst, "picotool")
    if os.path.isfile(os.path.join(pkg, "picotool")):
        return pkg
    say("building picotool %s" % PICOTOOL_TAG)
    bld = pt + "-build"
    shutil.rmtree(bld, ignore_errors=True)
    _run(["cmake", "-S", pt, "-B", bld, "-DPICO_SDK_PATH=" + os.path.join(mp, "lib", "pico-sdk"),
          "-DPICOTOOL_NO_LIBUSB=1", "-DPICOTOOL_FLAT_INSTALL=1", "-DCMAKE_INSTALL_PREFIX=" + inst], log,
         what="cmake (picotool)")
    _run(["make", "-C", bld, "-j" + JOBS, "install"], log, what="make (picotool)")
    return pkg


# ---------------------------------------------------------------- the inputs

def patches(fw):
    d = os.path.join(fw, "patches")
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".patch")) if os.path.isdir(d) else []


def _read_const(path, name):
    with open(path, encoding="utf-8") as f:
        m = re.search(r'^%s = (?:"([^"]*)"|(\d+))' % name, f.read(), re.M)
    if m is None:
        raise Uf2BuildError("%s has no %s" % (path, name))
    return m.group(1) if m.group(1) is not None else int(m.group(2))


def firmware_version(fw=None):
    """(firmware version, journal format it reads) from firmware/nakk/__init__.py and record.py."""
    fw = fw or build.firmware_dir()
    return (_read_const(os.path.join(fw, "nakk", "__init__.py"), "VERSION"),
            _read_const(os.path.join(fw, "nakk", "record.py"), "VERSION"))


def _firmware_files(fw):
    """{path relative to firmware/: bytes} of everything the manifest may read."""
    out = {}
    for top in ("boot.py", "main.py", "manifest.py", "package.json"):
        with open(os.path.join(fw, top), "rb") as f:
            out[top] = f.read()
    for d, dirs, files in os.walk(os.path.join(fw, "nakk")):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for n in sorted(files):
            if n.endswith(".py"):
                p = os.path.join(d, n)
                with open(p, "rb") as f:
                    out[os.path.relpath(p, fw).replace(os.sep, "/")] = f.read()
    return out


def inputs_key(fw, extra=(), board=BOARD):
    """sha256 of every input of the build (see the module's docstring)."""
    h = hashlib.sha256()

    def add(label, data):
        h.update(label.encode() + b"\0" + (data if isinstance(data, bytes) else data.encode()) + b"\0")
    add("micropython", MICROPYTHON_COMMIT)
    add("picotool", PICOTOOL_COMMIT)
    add("board", board)
    add("epoch", SOURCE_DATE_EPOCH)
    for p in patches(fw):
        with open(p, "rb") as f:
            add("patch " + os.path.basename(p), f.read())
    for rel, data in sorted(_firmware_files(fw).items()):
        add("fw " + rel, data)
    with open(os.path.abspath(__file__).replace(".pyc", ".py"), "rb") as f:
        add("uf2build.py", f.read())
    for v in _tool_versions():
        add("tool", v)
    for e in extra:
        add("extra", e)
    return h.hexdigest()


def info_line(version, bid, journal, board=BOARD):
    return "NAKK-UF2 board=%s version=%s build=%s journal=%d micropython=%s" % (
        board, version, bid, journal, MICROPYTHON_TAG[1:])


def _stage(work, fw, version, bid, journal, board=BOARD):
    """Write the stage folder (the firmware's files, the wrappers, nakk_build.py, the manifest)."""
    stage = os.path.join(work, "stage")
    shutil.rmtree(stage, ignore_errors=True)
    for rel, data in _firmware_files(fw).items():
        p = os.path.join(stage, "firmware", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    files = {"boot.py": _BOOT, "main.py": _MAIN, "manifest.py": _MANIFEST,
             "nakk_build.py": ('# nakk_build.py: written by nakk build (host/nakk_host/uf2build.py), frozen into '
                               'the UF2: which build this is.\nBUILD = "%s"\nBOARD = "%s"\nINFO = "%s"\n'
                               % (bid, board, info_line(version, bid, journal, board)))}
    for name, text in files.items():
        with open(os.path.join(stage, name), "w") as f:
            f.write(text)
    for own in ("boot", "main"):
        shutil.copyfile(os.path.join(stage, "firmware", own + ".py"), os.path.join(stage, "nakk_%s.py" % own))
    return os.path.join(stage, "manifest.py")


def _tree(work, mp, fw, log, say):
    """work/micropython: a copy of the pristine tree with the patches applied (made again when they change)."""
    tree = os.path.join(work, "micropython")
    stamp = os.path.join(work, "tree.json")
    want = {"micropython": MICROPYTHON_COMMIT,
            "patches": {os.path.basename(p): _sha256(p) for p in patches(fw)}}
    try:
        with open(stamp) as f:
            have = json.load(f)
    except (OSError, ValueError):
        have = None
    if have == want and os.path.isdir(tree):
        return tree
    say("preparing the MicroPython tree (%d patch%s)" % (len(want["patches"]), "" if len(want["patches"]) == 1 else "es"))
    if os.path.exists(stamp):
        os.remove(stamp)
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(mp, tree, symlinks=True)
    for p in patches(fw):
        _run(["patch", "-p1", "--forward", "--batch", "-i", p], log, cwd=tree, what="patch " + os.path.basename(p))
    with open(stamp, "w") as f:
        json.dump(want, f)
    return tree


def _env(work, picotool_pkg):
    env = dict(os.environ)
    flags = "-ffile-prefix-map=%s=%s" % (work, PREFIX)
    env.update({
        "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
        "MICROPY_GIT_TAG": MICROPYTHON_TAG,
        "MICROPY_GIT_HASH": MICROPYTHON_COMMIT[:9],
        "CFLAGS": flags, "CXXFLAGS": flags, "ASMFLAGS": flags,
        # CMAKE_ARGS in the environment (on make's command line it would replace the Makefile's own)
        "CMAKE_ARGS": "-Dpicotool_DIR=%s" % picotool_pkg,
        "GIT_CEILING_DIRECTORIES": os.path.dirname(work),
        "TZ": "UTC", "LC_ALL": "C",
    })
    return env


# ---------------------------------------------------------------- the build

class Result:
    def __init__(self, path, elf, version, bid, journal, cached, seconds, key):
        self.path, self.elf, self.version, self.build, self.journal = path, elf, version, bid, journal
        self.cached, self.seconds, self.key = cached, seconds, key

    @property
    def size(self):
        return os.path.getsize(self.path)


def uf2_name(version, board=BOARD):
    return "nakk-%s-%s.uf2" % (version, {v: k for k, v in BOARDS.items()}[board])


def build_uf2(out_dir=".", fw=None, cache=None, src=None, say=print, board=BOARD):
    """Build (or take from the cache) the UF2 of fw (default firmware/) for board (BOARDS' values) into
    out_dir; a Result. The boards share the tree and mpy-cross; each has its own build folder."""
    t0 = time.monotonic()
    fw = os.path.abspath(fw or build.firmware_dir())
    missing = tools_missing()
    if missing:
        raise Uf2BuildError("the build needs %s on PATH (Debian: apt-get install gcc-arm-none-eabi "
                            "libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake build-essential)"
                            % ", ".join(missing))
    version, journal = firmware_version(fw)
    key = inputs_key(fw, board=board)
    bid = key[:12]
    top = uf2_dir(cache)
    done = os.path.join(top, "out", key)
    name = uf2_name(version, board)
    cached = os.path.isfile(os.path.join(done, ".complete"))
    if not cached:
        os.makedirs(top, exist_ok=True)
        log = os.path.join(top, "build.log")
        with open(log, "w") as f:
            f.write("nakk build %s (key %s)\n" % (version, key))
        mp, pt = sources(cache, src, log, say)
        pkg = _picotool(mp, pt, log, say)
        work = os.path.join(top, "work")
        os.makedirs(work, exist_ok=True)
        tree = _tree(work, mp, fw, log, say)
        manifest = _stage(work, fw, version, bid, journal, board)
        env = _env(work, pkg)
        say("building MicroPython %s for %s with the firmware frozen in (a few minutes the first time; log: %s)"
            % (MICROPYTHON_TAG, board, log))
        _run(["make", "-C", os.path.join(tree, "mpy-cross"), "-j" + JOBS], log, env=env, what="make (mpy-cross)")
        _run(["make", "-C", os.path.join(tree, "ports", "rp2"), "BOARD=" + board, "FROZEN_MANIFEST=" + manifest,
              "-j" + JOBS], log, env=env, what="make (MicroPython rp2 with the firmware frozen)")
        bdir = os.path.join(tree, "ports", "rp2", "build-" + board)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(_mkdirs(done)), prefix=".out-")
        shutil.copyfile(os.path.join(bdir, "firmware.uf2"), os.path.join(tmp, name))
        shutil.copyfile(os.path.join(bdir, "firmware.elf"), os.path.join(tmp, "firmware.elf"))
        shutil.copyfile(os.path.join(bdir, "frozen_content.c"), os.path.join(tmp, "frozen_content.c"))
        with open(os.path.join(tmp, "info.json"), "w") as f:
            json.dump({"version": version, "build": bid, "journal": journal, "key": key, "board": board,
                       "micropython": MICROPYTHON_TAG}, f, sort_keys=True)
        with open(os.path.join(tmp, ".complete"), "w") as f:
            f.write("ok\n")
        if os.path.isdir(done):
            shutil.rmtree(done)
        os.rename(tmp, done)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    shutil.copyfile(os.path.join(done, name), path + ".part")
    os.replace(path + ".part", path)
    return Result(path, os.path.join(done, "firmware.elf"), version, bid, journal, cached,
                  time.monotonic() - t0, key)


def _mkdirs(d):
    os.makedirs(os.path.dirname(d), exist_ok=True)
    return d


# ---------------------------------------------------------------- the command

def cmd_build(args):
    from nakk_host.errors import CommandError
    boards = list(BOARDS) if args.board == "all" else [args.board]
    for b in boards:
        try:
            r = build_uf2(args.out, src=args.sources, board=BOARDS[b])
        except (Uf2BuildError, build.BuildError) as e:
            raise CommandError(str(e))
        print("%s: %d bytes, firmware %s, build %s, MicroPython %s for %s%s (%.1f s)"
              % (r.path, r.size, r.version, r.build, MICROPYTHON_TAG, BOARDS[b],
                 ", from the cache" if r.cached else "", r.seconds))
    print("to install it: nakk flash --uf2 %s (or hold BOOTSEL while plugging the Pico in, "
          "then copy it onto the RPI-RP2 drive)" % r.path)
    return 0


COMMANDS = (
    Command("build", cmd_build,
            "build the UF2 to put on a Pico: MicroPython with the firmware frozen in",
            "Make nakk-VERSION-rpi-pico.uf2 (--board rpi-pico-w: nakk-VERSION-rpi-pico-w.uf2, the Pico W's, "
                "with its Wi-Fi for the live scores): MicroPython %s for the Raspberry Pi Pico "
                "with the project's patches and firmware/ frozen in. Reproducible (the same inputs give the "
                "same bytes) and cached (~/.cache/nakk/uf2; $NAKK_CACHE moves it): a second build with "
                "nothing changed takes seconds. Needs the Arm toolchain and cmake." % MICROPYTHON_TAG,
            arg("--out", default=".", metavar="DIR", help="folder to write the UF2 into (default: the current one)"),
            arg("--sources", metavar="DIR", help="folder with the MicroPython and picotool archives (default: $NAKK_MPBUILD, else "
                "../shared/mpbuild from the clone's root, else git from the internet)"),
            arg("--board", choices=sorted(BOARDS) + ["all"], default="rpi-pico",
                help="the Pico (default), the Pico W, or all: each its own UF2, side by side")),
)
