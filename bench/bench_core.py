"""Benchmark of the scoring core: heap per deal event and peak heap folding a 100-event match on MicroPython
(unix port, heap capped at 320K), and time per event on MicroPython relative to CPython.

Targets (issue: scoring core): at most 1 KB allocated per deal event; at most 32 KB peak for a 100-event match.
Run: .venv/bin/python bench/bench_core.py
"""
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "firmware"))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from matchgen import saare_match  # noqa: E402
from nakk.event import encode, parse  # noqa: E402
from nakk.match import Match  # noqa: E402

HEAP = "320K"


def micropython():
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    return exe if os.path.exists(exe) else "micropython"


def run_mpy(path):
    env = dict(os.environ, MICROPYPATH=os.path.join(ROOT, "firmware") + ":.frozen")
    r = subprocess.run([micropython(), "-X", "heapsize=" + HEAP, os.path.join(ROOT, "bench", "fold_mpy.py"), path],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit("nakk bench: MicroPython failed:\n" + r.stderr)
    return dict(line.split("=", 1) for line in r.stdout.split())


def min_free_heap(path):
    """The least heap above what is in use before the fold in which MicroPython folds the whole match.

    Bisects -X heapsize (to 256 bytes); returns heap size minus the bytes in use
    before the fold (interpreter, modules, the match's lines), or None."""
    env = dict(os.environ, MICROPYPATH=os.path.join(ROOT, "firmware") + ":.frozen")

    def run(n):
        r = subprocess.run([micropython(), "-X", "heapsize=%d" % n, os.path.join(ROOT, "bench", "fold_mpy.py"),
                            path, "fit"], capture_output=True, text=True, env=env)
        out = dict(line.split("=", 1) for line in r.stdout.split() if "=" in line)
        return out.get("fits") == "1", int(out.get("base", 0))

    lo, hi = 16 * 1024, 320 * 1024
    ok, base = run(hi)
    if not ok:
        return None
    while hi - lo > 256:
        mid = (lo + hi) // 2
        ok, b = run(mid)
        if ok:
            hi, base = mid, b
        else:
            lo = mid
    return hi - base


def cpython_us_per_event(lines, rounds=20):
    t0 = time.perf_counter()
    for _ in range(rounds):
        m = Match(lambda: (parse(x) for x in lines))
        for line in lines:
            m.apply(parse(line))
    return (time.perf_counter() - t0) * 1e6 / (rounds * len(lines))


def main():
    events = saare_match(100)
    lines = [encode(e) for e in events]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for line in lines:
            f.write(line.decode() + "\n")
        path = f.name
    try:
        mp = run_mpy(path)
        need = min_free_heap(path)
    finally:
        os.unlink(path)
    cp = cpython_us_per_event(lines)
    counts = {k[6:]: int(v) for k, v in mp.items() if k.startswith("count_")}
    print("Scoring core on MicroPython %s heap, a %d-event Saare mäng 2020 match drawn from bench/deal-mix.json"
          % (HEAP, len(lines)))
    print("  events: " + ", ".join("%s %d" % (k, counts[k]) for k in sorted(counts)))
    print("  heap allocated per event (parse + fold, gc off), mean / worst:")
    for t in sorted(counts):
        print("    %-8s %5d / %5d bytes" % (t, int(mp["alloc_%s_mean" % t]), int(mp["alloc_%s_max" % t])))
    deal_mean = int(mp["alloc_deal_mean"])
    print("  deal event: %d bytes mean (target <= 1024): %s" % (deal_mean, "OK" if deal_mean <= 1024 else "OVER"))
    live = int(mp["fold_live_peak"])
    print("  peak heap folding the whole match (gc every 512 bytes, heap in use sampled after every parse and"
          " fold step, undo re-reads included): %d bytes (target <= 32768): %s"
          % (live, "OK" if live <= 32768 else "OVER"))
    print("  conservative: least -X heapsize in which the fold completes, minus the heap in use before it"
          " (includes the GC's tables and fragmentation of a nearly full heap): %s bytes" % need)
    print("  state kept after the fold: %d bytes" % int(mp["fold_state_after_gc"]))
    mpu = int(mp["us_per_event"])
    print("  time per event: MicroPython unix port %d us, CPython %.1f us (x%.1f)" % (mpu, cp, mpu / cp))
    print("  (the Pico runs MicroPython roughly 20-50x slower than this x86 unix port)")


if __name__ == "__main__":
    main()
