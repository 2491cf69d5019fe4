"""Bench: painting the LED rings after a press (nakk.drivers.rings through each ruleset's ring()), on the MicroPython unix port.

Run:  .venv/bin/python bench/bench_rings.py

The rings come after the frame's last SPI transfer, so they are not in press
to frame; but a press that comes while they are painted waits for them (the
app stops between two rings when the ISR has latched an edge, not inside
one), and an entry's flush waits for them too. Prints, per way a ruleset
paints (Saare mäng's units, the others' progress towards a target), the
µs of painting three rings and commit() (the current budget), best of 5
runs of 300 frames, on this machine's unix port. The emulated Pico's figure
for the same work is in docs/latency.md (i11e): the unix port is about 150
times faster than an RP2040 at 125 MHz on such code (bench_latency.py).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpyenv  # noqa: E402

PROGRAM = r"""
import time
from nakk.drivers.rings import Rings
r = Rings(3, 350, 20)

def frames(paint, n):
    t = time.ticks_us()
    for k in range(n):
        for i in range(3):
            paint(i, k)
        r.commit()
    return time.ticks_diff(time.ticks_us(), t) / n

def units(i, k):
    r.units(i, 5 + (k + i) % 11, 4)       # Saare mang: one LED a nakk, 4 a ring

def progress(i, k):
    r.progress(i, 10 + (k + i) % 30, 51)  # a target game: a share of 51 points

for name, paint in (("units (Saare mang)", units), ("progress (a target)", progress)):
    frames(paint, 30)
    best = min(frames(paint, 300) for _ in range(5))
    print("%-22s %6.1f us for 3 rings + commit" % (name, best))
"""


def main():
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    env = dict(os.environ, MICROPYPATH=mpyenv.firmware_path())
    r = subprocess.run([exe, "-X", "heapsize=320K", "-c", PROGRAM], env=env, capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        sys.exit("bench_rings: the unix port failed")


if __name__ == "__main__":
    main()
