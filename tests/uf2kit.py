"""The shipped UF2 for the tests: `nakk build` run once per session (cached in ~/.cache/nakk/uf2, $NAKK_CACHE),
or why it cannot be (the tests then say "UF2 NOT RUN").

The build needs the Arm toolchain and cmake (Debian: gcc-arm-none-eabi libnewlib-arm-none-eabi
libstdc++-arm-none-eabi-newlib cmake build-essential; .ci/run installs them where apt works) and the
MicroPython archives (../shared/mpbuild from the repo root, or $NAKK_MPBUILD). The tests never go to
the internet for the sources: without the archives they are not run. With both present a failed build
fails the tests.
"""
import os
import shutil

from nakk_host import uf2build

_BUILT = {}


def why_not():
    """None when a UF2 can be built here, else why not (the skip reason)."""
    missing = uf2build.tools_missing()
    if missing:
        return ("UF2 NOT RUN: the build tools are missing (%s): apt-get install gcc-arm-none-eabi "
                "libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib cmake build-essential" % ", ".join(missing))
    if uf2build.default_sources() is None:
        return ("UF2 NOT RUN: the MicroPython archives are not at ../shared/mpbuild (from the repo root); "
                "set NAKK_MPBUILD=/path/to/mpbuild to run these tests")
    return None


def built(out_dir, fw=None, cache=None, board=uf2build.BOARD):
    """The Result of nakk build for fw (default firmware/) and board, once per (fw, cache, board) in this session."""
    k = (fw, cache, board)
    if k not in _BUILT:
        _BUILT[k] = uf2build.build_uf2(out_dir, fw=fw, cache=cache, say=lambda s: None, board=board)
    r = _BUILT[k]
    if not os.path.isfile(r.path):
        os.makedirs(out_dir, exist_ok=True)
        shutil.copyfile(os.path.join(os.path.dirname(r.elf), os.path.basename(r.path)), r.path)
    return r


def firmware_copy(dst, version):
    """A copy of firmware/ whose nakk.VERSION is `version` (a second build: another UF2 to update to)."""
    from nakk_host import build
    src = build.firmware_dir()
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    p = os.path.join(dst, "nakk", "__init__.py")
    with open(p) as f:
        text = f.read()
    old = 'VERSION = "%s"' % uf2build.firmware_version(src)[0]
    assert old in text
    with open(p, "w") as f:
        f.write(text.replace(old, 'VERSION = "%s"' % version))
    return dst
