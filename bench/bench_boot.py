"""The box's heap at boot on the MicroPython unix port: prints figures (not a test).

    .venv/bin/python bench/bench_boot.py [--step 16]

For an empty flash, 100 and 150 finished matches and a full box (finished
matches written until the journal refuses another): the live heap after boot
(gc.collect(), then gc.mem_alloc(), as the simulator reports it), and the
smallest heap cap, in steps of --step KiB, under which the simulator (the
compiled firmware, as `nakk sim` runs it) boots, answers hello with every
result waiting, takes a press and answers hello again. The unix port is
64-bit: its objects are up to twice their size on the Pico (see
bench/README.md for the figures on the emulated Pico).
"""
import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="nakk-bench-xdg-"))

import boxes  # noqa: E402
from nakk_host import device as D  # noqa: E402
from nakk_host.simulator import HEAP, Simulator, SimulatorError  # noqa: E402


def boots(image, heap, waiting):
    """True if the simulator under this heap cap boots, shows `waiting` results to hello,
    takes OK and still answers."""
    try:
        with Simulator(image, heap=heap, register=False, timeout=10) as sim:
            with D.Box(sim.tty, timeout=5) as box:
                if box.hello()["unsynced"] != waiting:
                    return False
                sim.press("OK")
                return box.hello()["unsynced"] == waiting and sim.running()
    except (SimulatorError, D.DeviceError, OSError):
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--step", type=int, default=16, help="KiB between the heap caps tried")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nakk-bench-boot-")
    try:
        cases = [("empty flash", None), ("100 finished matches", 100), ("150 finished matches", 150),
                 ("full box", "full")]
        print("simulator heap cap now: %s" % HEAP)
        print("%-22s %8s %9s %14s" % ("flash", "matches", "live KB", "smallest cap"))
        for name, count in cases:
            image = os.path.join(tmp, "base.img")
            if os.path.exists(image):
                os.remove(image)
            waiting = 0
            if count is not None:
                _, numbers = boxes.fill(image, count)
                waiting = len(numbers)
            work = os.path.join(tmp, "work.img")
            if os.path.exists(image):
                shutil.copy(image, work)
            elif os.path.exists(work):
                os.remove(work)
            with Simulator(work, heap="4M", register=False) as sim:
                live = sim.info()["heap_alloc"]
            smallest = None
            k = 160
            while k <= 1024:
                if os.path.exists(image):
                    shutil.copy(image, work)
                elif os.path.exists(work):
                    os.remove(work)
                if boots(work, "%dK" % k, waiting):
                    smallest = k
                    break
                k += args.step
            print("%-22s %8d %9.1f %14s" % (name, waiting, live / 1024.0,
                                             "%dK" % smallest if smallest else "> 1024K"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
