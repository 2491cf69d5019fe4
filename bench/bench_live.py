"""A hall of simulated Pico W boxes reporting live scores over loopback through faulty relays: figures printed (not a test).

    .venv/bin/python bench/bench_live.py [--boxes 20] [--gap 0.5] [--drop 0.03] [--dup 0.03] [--delay 0.05]
        [--cut 0.02] [--seed 1] [--hall]

Starts the judge's live server (host/nakk_host/live.py) on a fresh database,
and --boxes simulated boxes (the firmware on the unix port, each paired with
the database and given the server's address through its own relay,
tests/tcprelay.py, that drops, duplicates, delays and cuts frames). Every box
plays the Saare mäng demo match (host/nakk_host/demo/saare-2020.keys) through
its buttons, all at once, a press every --gap seconds. Then it checks that
every event of every box arrived exactly once, in order (the live events are
the box's stored bytes), syncs every box over its serial port as `nakk sync`
does and checks that each synced result is the live events' bytes, and
prints the time from each press to its event stored by the live server
(median, 90th percentile, max), the faults the relays made and what the
server refused or took again. Which press saves which event is learnt first
on one simulator (nakk.dump after each press). With --hall it also runs `nakk serve`
and its tables page in headless Chromium and prints the time from each press to its score on
the page (the page itself updates from the server's change stream). Exits non-zero on a mismatch.
"""
import argparse
import os
import shutil
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "host"))

import boxes  # noqa: E402
from hallkit import free_port  # noqa: E402
from tcprelay import TcpRelay  # noqa: E402
from nakk_host import device as D  # noqa: E402
from nakk_host import live, livestore, store  # noqa: E402
from nakk_host import sync as S  # noqa: E402
from nakk_host.simulator import Simulator, dump_events, parse_keys  # noqa: E402

LIVE_HEAP = "448K"    # the unix port keeps nakk.net's code in its heap (frozen on the Pico W): tests/test_live.py
KEYS = os.path.join(ROOT, "host", "nakk_host", "demo", "saare-2020.keys")


def which_press_saves(keys, tmp):
    """[events on flash after press k] for the key script, on one simulator."""
    img = os.path.join(tmp, "dry.img")
    out = []
    with Simulator(img, register=False) as sim:
        for name, long in keys:
            sim.press(name, long)
            out.append(len(dump_events(img)))
    return out


class Hall:
    """`nakk serve` on the database and its /tables page in headless Chromium (driven from a process of its
    own: --watch URL), looked at every 50 ms: shown[(result id, seq)] = when the page first showed that
    match at that seq or later."""

    def __init__(self, db):
        import subprocess
        from hallkit import Served
        from test_hall_browser import WHY_NOT
        if WHY_NOT:
            sys.exit("bench_live --hall: " + WHY_NOT)
        self.served = Served(db)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--watch", self.served.url + "/tables"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "watching":
            sys.exit("bench_live --hall: the browser did not start")
        self.shown = {}

    def stop(self):
        out, _ = self.proc.communicate("stop\n", timeout=60)
        for line in out.splitlines():
            rid, seq, t = line.split()
            self.shown[(rid, int(seq))] = float(t)
        self.served.close()


def watch(url):
    """--watch URL: the page in headless Chromium, its live rows looked at every 50 ms until stdin says stop;
    prints `<result id> <seq> <time first shown>` for every seq seen."""
    from test_hall_browser import new_browser
    browser = new_browser()
    browser.get(url)
    js = ("return Array.prototype.map.call(document.querySelectorAll('tr.live-row'), "
          "function (r) { return [r.getAttribute('data-result'), Number(r.getAttribute('data-seq'))]; });")
    shown = {}
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), done.set()), daemon=True).start()
    print("watching", flush=True)
    while not done.is_set():
        now = time.time()
        for rid, seq in browser.execute_script(js):
            for s in range(1, seq + 1):
                shown.setdefault((rid, s), now)
        time.sleep(0.05)          # how often we look; the page's own updates are what is timed
    browser.quit()
    for (rid, s), t in sorted(shown.items()):
        print(rid, s, t)


def press_cost(alone, keys, gap):
    """The press itself (the K line sent to the box done: released, handled, its entry on flash), on
    one box alone, with its live link sending to the server and without one: the network task must
    not make a press slower."""
    out = []
    for name, image in zip(("with the live link", "without"), alone):
        took = []
        with Simulator(image, register=False, heap=LIVE_HEAP) as sim:
            for k, long in keys:
                t0 = time.perf_counter()
                sim.press(k, long)
                took.append(time.perf_counter() - t0)
                time.sleep(gap)
        took.sort()
        out.append("%s: median %.0f ms, max %.0f ms" % (name, 1000 * pct(took, 0.5), 1000 * took[-1]))
    print("a box's press, send to done (simulator, one box alone, %d presses): %s" % (len(keys), "; ".join(out)))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boxes", type=int, default=20)
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between a box's presses")
    ap.add_argument("--drop", type=float, default=0.03)
    ap.add_argument("--dup", type=float, default=0.03)
    ap.add_argument("--delay", type=float, default=0.05)
    ap.add_argument("--cut", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hall", action="store_true",
                    help="also `nakk serve` and its tables page in headless Chromium: press to the score on the page")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nakk-bench-live-")
    os.environ["XDG_RUNTIME_DIR"] = tmp            # the simulators' registry: ours alone
    with open(KEYS) as f:
        keys = parse_keys(f.read(), "saare-2020.keys")
    counts = which_press_saves(keys, tmp)
    db = os.path.join(tmp, "judge.db")
    store.open_db(db).close()
    port = free_port()
    relays, sims, infos = [], [], []
    srv = hall = None
    try:
        # the boxes are paired (store.open_db) before the server holds the database: open_db's first look
        # is an immutable read-only connection, whose close drops this process's other locks on the file
        for i in range(args.boxes):
            r = TcpRelay(("127.0.0.1", port), seed=args.seed + i, drop=args.drop, dup=args.dup, delay=args.delay,
                         cut=args.cut)
            relays.append(r)
            image, fs_id, key = boxes.paired_box(tmp, "laud%02d" % (i + 1), db, count=0, live=r.address)
            infos.append((image, fs_id))
        alone = [boxes.paired_box(tmp, "alone-%s" % k, db, count=0, live=a)[0]
                 for k, a in (("live", "127.0.0.1:%d" % port), ("plain", None))]
        srv, where = live.serve_in_thread(db, "127.0.0.1", port, log=lambda s: None)
        for image, _ in infos:
            sims.append(Simulator(image, register=False, heap=LIVE_HEAP))
        print("%d simulated Pico W boxes, live server %s, relays: drop %.2f dup %.2f delay %.2f cut %.2f a frame"
              % (args.boxes, where, args.drop, args.dup, args.delay, args.cut))
        pressed = [[] for _ in sims]             # per box: (seq saved, time the press began)
        errors = []

        def play(i):
            try:
                before = 0
                for k, (name, long) in enumerate(keys):
                    t0 = time.time()
                    sims[i].press(name, long)
                    for seq in range(before + 1, counts[k] + 1):
                        pressed[i].append((seq, t0))
                    before = counts[k]
                    time.sleep(args.gap)         # a player's pace, not a synchronisation
            except Exception as e:   # noqa: BLE001 (reported below)
                errors.append("box %d: %r" % (i + 1, e))

        hall = Hall(db) if args.hall else None
        t_start = time.time()
        threads = [threading.Thread(target=play, args=(i,)) for i in range(len(sims))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            sys.exit("bench_live: " + "; ".join(errors))
        total = args.boxes * counts[-1]
        end = time.time() + 120
        while srv.stored < total and time.time() < end:
            time.sleep(0.1)
        played = time.time() - t_start
        if hall is not None:
            time.sleep(2)            # the page's last updates (what is timed is when they came)
            hall.stop()
            shown, hall = hall.shown, None
        conn = store.open_db(db, create=False)
        got = {}
        at = {}
        for rid, seq, ev, t in conn.execute("SELECT result_id, seq, event, received_at FROM live_events "
                                            "ORDER BY result_id, seq"):
            got.setdefault(rid, []).append(bytes(ev))
            at[(rid, seq)] = t
        bad = 0
        lat = []
        for i, (image, fs_id) in enumerate(infos):
            rid = "%s-1" % fs_id
            mine = dump_events(image, 1)
            if got.get(rid) != mine:
                bad += 1
                print("box %d: live events differ from the box's (%d live, %d on the box)"
                      % (i + 1, len(got.get(rid, [])), len(mine)))
            for seq, t0 in pressed[i]:
                if (rid, seq) in at:
                    lat.append(at[(rid, seq)] - t0)
        print("events: %d on the boxes, %d stored live (%d taken again, not stored), %d boxes differ"
              % (total, srv.stored, srv.again, bad))
        c = {}
        for r in relays:
            for k, v in r.counts.items():
                c[k] = c.get(k, 0) + v
        print("relays: %d frames, %d dropped, %d duplicated, %d delayed, %d connections cut; %d connections made"
              % (c["frames"], c["dropped"], c["duplicated"], c["delayed"], c["cut"], c["connections"]))
        print("server: %d frames refused (counted: %s)" % (srv.refused, dict(livestore.refused(conn)) or "none"))
        print("press to live event stored: median %.0f ms, p90 %.0f ms, max %.0f ms (%d events; %.0f s of play)"
              % (1000 * pct(lat, 0.5), 1000 * pct(lat, 0.9), 1000 * max(lat), len(lat), played))
        if args.hall:
            hl = [shown[(rid, seq)] - t0 for i, (image, fs_id) in enumerate(infos)
                  for seq, t0 in pressed[i] for rid in ["%s-1" % fs_id] if (rid, seq) in shown]
            print("press to the live score on the hall's tables page (headless Chromium): median %.0f ms, "
                  "p90 %.0f ms, max %.0f ms (%d of %d events seen; the page polled every 50 ms)"
                  % (1000 * pct(hl, 0.5), 1000 * pct(hl, 0.9), 1000 * max(hl), len(hl), len(lat)))
        conn.close()
        # the final results, synced over the serial ports afterwards, are the live events
        reps = S.sync([D.Port(s.tty) for s in sims], db, timeout=10)
        conn = store.open_db(db, create=False)
        same = 0
        for image, fs_id in infos:
            rid = "%s-1" % fs_id
            row = store.result_by_id(conn, rid)
            if row is not None and bytes(row["events"]) == b"\n".join(got.get(rid, [])):
                same += 1
        conn.close()
        print("synced afterwards: %d of %d results, %d equal to their live events (%d sync reports ok)"
              % (sum(1 for _ in reps), args.boxes, same, sum(1 for r in reps if r.ok())))
        press_cost(alone, keys, args.gap)
        if bad or same != args.boxes:
            sys.exit(1)
    finally:
        for s in sims:
            s.close()
        for r in relays:
            r.close()
        if srv is not None:
            srv.stop()
        if hall is not None and hall.proc.poll() is None:
            hall.stop()               # (a bench that failed half-way leaves no nakk serve or browser behind)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--watch"]:
        watch(sys.argv[2])
    else:
        main()
