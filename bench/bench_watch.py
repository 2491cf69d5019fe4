"""Plug in, and it is synced: from a box appearing to its result stored, through the box watcher (prints figures; not a test).

    .venv/bin/python bench/bench_watch.py [--boxes 20] [--trials 5] [--workers 8] [--matches 1]

Each box is the real firmware in a simulator on the unix port with one finished match (--matches: a
box not synced for that many rounds; its time is to its last result), paired with
the judge's database. The simulators boot first, unregistered; a box "appears" when its registry
entry is written (the moment its port shows up, as a USB port does when the box is plugged in), and
its result is "stored" when the watcher says so (the result's event: committed to SQLite and
acknowledged by the box). The watcher runs as the console runs it (nakk_host.watch.Watcher, its
defaults: a look at the ports every 0.2 s, 8 boxes synced at once).

1. one box plugged in, `--trials` times: min / median / max;
2. a hub: `--boxes` boxes appearing together: each box's time, min / median / max, and the last.
Targets (issue 25): one box within 2 s, all 20 within 10 s.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="nakk-bench-xdg-")   # our own registry

import boxes  # noqa: E402
from nakk_host.simulator import Simulator  # noqa: E402
from nakk_host.watch import WORKERS, Watcher  # noqa: E402


def plug_in(tmp, db, names, workers, matches=1):
    """Boot a simulator per name (paired, one finished match), then register them all at once;
    returns [seconds from its registration to its result's event] in box order."""
    images = [boxes.paired_box(tmp, name, db, count=matches, seed=i + 1)[0] for i, name in enumerate(names)]
    sims = [Simulator(img, register=False) for img in images]
    w = Watcher(db, workers=workers)
    w.start()
    try:
        appeared = {}
        for s in sims:
            s._register()                 # the port shows up
            appeared[s.tty] = time.time()
        done = {}
        got = {}
        seen = 0
        end = time.monotonic() + 120
        while len(done) < len(sims) and time.monotonic() < end:
            for e in w.wait(seen, timeout=1.0):
                seen = e["n"]
                if e["kind"] == "result":
                    got[e["port"]] = got.get(e["port"], 0) + 1
                    if got[e["port"]] == matches:
                        done[e["port"]] = e["at"]
                elif e["kind"] in ("failed", "no-answer", "crash", "hung"):
                    print("  %s" % e["words"])
        if len(done) < len(sims):
            for s in sims:
                if s.tty not in done:
                    print("  %s: %s; %s" % (s.tty, "; ".join(e["words"] for e in w.events() if e["port"] == s.tty),
                                            [b for b in w.boxes() if b["port"] == s.tty]))
            raise SystemExit("only %d of %d boxes were synced in 120 s" % (len(done), len(sims)))
        return [done[s.tty] - appeared[s.tty] for s in sims]
    finally:
        w.stop()
        for s in sims:
            s.close()


def spread(xs):
    return "min %.2f s, median %.2f s, max %.2f s" % (min(xs), statistics.median(xs), max(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boxes", type=int, default=20)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--workers", type=int, default=WORKERS)
    ap.add_argument("--matches", type=int, default=1, help="finished matches on each box")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nakk-bench-watch-")
    try:
        one = []
        for i in range(a.trials):
            one += plug_in(tmp, os.path.join(tmp, "one%d.db" % i), ["one%d" % i], a.workers, a.matches)
        print("one box plugged in -> its %d result(s) stored (%d trials): %s (target <= 2 s)"
              % (a.matches, a.trials, spread(one)))
        hub = plug_in(tmp, os.path.join(tmp, "hub.db"), ["laud %d" % (i + 1) for i in range(a.boxes)], a.workers,
                      a.matches)
        print("a hub of %d boxes (%d result(s) each) appearing together, %d synced at once: each box %s; all %d "
              "stored %.2f s after they appeared (target <= 10 s)"
              % (a.boxes, a.matches, a.workers, spread(hub), a.boxes, max(hub)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(os.environ["XDG_RUNTIME_DIR"], ignore_errors=True)


if __name__ == "__main__":
    main()
