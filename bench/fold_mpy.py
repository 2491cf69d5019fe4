"""Runs on MicroPython (unix port, capped heap): heap per deal event and peak heap while folding a match.

Usage: micropython -X heapsize=320K bench/fold_mpy.py FILE.jsonl
Prints key=value lines for bench_core.py to report.
"""
import gc
import sys
import time

import micropython

from nakk.event import parse
from nakk.match import Match
from nakk import rules

rules.get("saare-2020")  # import the ruleset now: on the Pico it is precompiled, not compiled during the fold

path = sys.argv[1]
with open(path) as f:
    lines = [l.strip().encode() for l in f if l.strip()]   # raw bytes, as read from flash


if len(sys.argv) > 2 and sys.argv[2] == "fit":
    # run in a heap of -X heapsize=N: report what was in use before the fold,
    # then whether the whole fold (gc on) completes in what is left
    def history():
        for line in lines:
            yield parse(line)
    gc.collect()
    print("base=%d" % gc.mem_alloc())
    try:
        m = Match(history)
        for line in lines:
            m.apply(parse(line))
        print("fits=1")
    except MemoryError:
        print("fits=0")
    sys.exit(0)


# As on the device: the match does not keep events; a cancel re-reads them
# (here from the list of raw lines, on the device from the journal on flash).
def history():
    for line in lines:
        yield parse(line)


# 1. allocation per event, gc off: bytes allocated by parse + apply of one line
m = Match(history)
m.apply(parse(lines[0]))
per_type = {}
for line in lines[1:]:
    gc.collect()
    gc.disable()
    a0 = gc.mem_alloc()
    ev = parse(line)
    m.apply(ev)
    used = gc.mem_alloc() - a0
    gc.enable()
    t = ev["type"]
    tot, n, worst = per_type.get(t, (0, 0, 0))
    per_type[t] = (tot + used, n + 1, max(worst, used))
    ev = None
for t in sorted(per_type):
    tot, n, worst = per_type[t]
    print("alloc_%s_mean=%d" % (t, tot // n))
    print("alloc_%s_max=%d" % (t, worst))
    print("count_%s=%d" % (t, n))

# 2. peak live heap while folding the whole match from its lines: gc runs
# after every 512 bytes allocated (gc.threshold), and the heap in use is
# sampled after every parse and every fold step, including the re-read of the
# events that a cancel does; the sample misses at most 512 bytes of garbage.
peak = 0


def sample():
    global peak
    a = gc.mem_alloc()
    if a > peak:
        peak = a


def history_sampled():
    for line in lines:
        ev = parse(line)
        sample()
        yield ev


m = None
ev = None
gc.collect()
base = gc.mem_alloc()
peak = base
gc.threshold(512)
m = Match(history_sampled)
for line in lines:
    m.apply(parse(line))
    sample()
gc.threshold(-1)
gc.collect()
print("fold_events=%d" % len(lines))
print("fold_live_peak=%d" % (peak - base))
print("fold_state_after_gc=%d" % (gc.mem_alloc() - base))

# 3. time per event
t0 = time.ticks_us()
rounds = 20
for _ in range(rounds):
    m = Match(history)
    for line in lines:
        m.apply(parse(line))
dt = time.ticks_diff(time.ticks_us(), t0)
print("us_per_event=%d" % (dt // (rounds * len(lines))))
