"""`nakk build`: the UF2 is built with the alignment patch (a frozen native function 4-byte aligned in the ELF),
says what it is, is reproducible (a build in another cache gives the same bytes) and cached (a second build
copies it out in seconds). Needs the Arm toolchain and the MicroPython archives: "UF2 NOT RUN" without."""
import os
import re
import subprocess
import sys

import pytest

import uf2kit
from nakk import record
from nakk_host import uf2build, uf2flash

NAKK = os.path.join(os.path.dirname(sys.executable), "nakk")


@pytest.fixture(scope="module")
def uf2(tmp_path_factory):
    why = uf2kit.why_not()
    if why:
        pytest.skip(why)
    return uf2kit.built(str(tmp_path_factory.mktemp("uf2")))


def _native_symbols(frozen_c):
    """The C names of the frozen native (and viper) functions: mpy-tool's "frozen native code" comments."""
    with open(frozen_c) as f:
        return ["fun_data_" + s for s in re.findall(r"// frozen native code for file \S+, scope (\w+)", f.read())]


def test_frozen_native_code_is_4_byte_aligned_in_the_elf(uf2):
    """The patch is applied (mpy-tool.py puts ARMV6M in its four-byte group) and every frozen native function,
    font._run among them, starts on a 4-byte boundary: the Cortex-M0+ reads its first word with a 32-bit load."""
    tree = os.path.join(uf2build.uf2_dir(), "work", "micropython")
    with open(os.path.join(tree, "tools", "mpy-tool.py")) as f:
        tool = f.read()
    group = tool[tool.index("if config.native_arch in (\n            MP_NATIVE_ARCH_ARMV6,"):]
    assert "MP_NATIVE_ARCH_ARMV6M," in group[:group.index("):")]
    native = _native_symbols(os.path.join(os.path.dirname(uf2.elf), "frozen_content.c"))
    assert "fun_data_nakk_drivers_font__run" in native, native
    out = subprocess.run(["arm-none-eabi-nm", uf2.elf], capture_output=True, text=True, check=True).stdout
    addr = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            addr[parts[2]] = int(parts[0], 16)
    missing = [s for s in native if s not in addr]
    assert not missing, missing
    odd = {s: hex(addr[s]) for s in native if addr[s] % 4}
    assert not odd, "frozen native code not 4-byte aligned: %r" % odd
    assert all(0x10000000 <= addr[s] < 0x10200000 for s in native)   # in the Pico's flash (XIP)


def test_the_uf2_says_what_it_is(uf2):
    info = uf2flash.read_uf2(uf2.path)
    assert os.path.basename(uf2.path) == "nakk-%s-rpi-pico.uf2" % uf2.version
    assert (info.board, info.version, info.build, info.journal) == ("RPI_PICO", uf2.version, uf2.key[:12],
                                                                   record.VERSION)
    assert info.families == {uf2flash.RP2040_FAMILY}
    assert info.blocks * 256 <= 0xA0000   # the firmware ends before the filesystem (flash offset 0xA0000)


def test_a_second_build_is_a_cache_hit(uf2, tmp_path):
    with open(uf2.path, "rb") as f:
        first = f.read()
    r = subprocess.run([NAKK, "build", "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "from the cache" in r.stdout and uf2.build in r.stdout
    seconds = float(re.search(r"\(([\d.]+) s\)", r.stdout).group(1))
    assert seconds < 10, r.stdout
    with open(tmp_path / os.path.basename(uf2.path), "rb") as f:
        assert f.read() == first


def test_a_change_in_the_firmware_is_a_new_build_hash(uf2, tmp_path):
    """The cache key covers firmware/: a changed file gives another key (not a stale UF2 from the cache)."""
    fw = uf2kit.firmware_copy(str(tmp_path / "fw"), uf2.version)
    assert uf2build.inputs_key(fw) == uf2.key
    with open(os.path.join(fw, "nakk", "ui", "words.py"), "a") as f:
        f.write("\n# changed\n")
    assert uf2build.inputs_key(fw) != uf2.key


@pytest.mark.skipif(os.environ.get("NAKK_UF2_REPRO") == "0", reason="UF2 reproducibility NOT RUN: NAKK_UF2_REPRO=0")
def test_a_build_in_another_cache_gives_the_same_bytes(uf2, tmp_path):
    """Reproducible: the whole build again from the archives in another folder (another absolute path for the
    tree, the build and the stage) makes the same UF2, byte for byte."""
    other = uf2build.build_uf2(str(tmp_path / "out"), cache=str(tmp_path / "cache"), say=lambda s: None)
    assert not other.cached and other.build == uf2.build
    with open(uf2.path, "rb") as a, open(other.path, "rb") as b:
        assert a.read() == b.read()


def test_sources_that_are_not_there_are_one_line(tmp_path):
    """--sources naming a folder without the archives (and nothing cached yet): one line, nothing written."""
    if uf2build.tools_missing():
        pytest.skip(uf2kit.why_not())
    out = tmp_path / "out"
    r = subprocess.run([NAKK, "build", "--sources", str(tmp_path / "none"), "--out", str(out)],
                       capture_output=True, text=True, timeout=60, env=dict(os.environ, NAKK_CACHE=str(tmp_path / "c")))
    assert r.returncode == 1 and r.stdout == "", r.stdout
    assert r.stderr == "nakk: micropython-v1.28.0-rp2.tar.xz is not in %s\n" % (tmp_path / "none")
    assert not out.exists()
