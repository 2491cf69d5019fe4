"""Sync throughput and the link's heap: prints figures (not a test).

    .venv/bin/python bench/bench_sync.py [--matches 200] [--boxes 25]

1. matches synced per second from one simulated box over its pty (the real
   firmware on the unix port, pyserial, SQLite): pull, verify, store, ack;
2. results verified and stored per second on the judge's side alone
   (signature, recompute with nakk.rules, insert, commit in batches);
3. N simulated boxes with 2 matches each synced in one run (wall time);
4. the heap the link costs on the box (unix port, 64-bit: Pico objects are
   about half): per idle poll, per frame, at rest.
Targets (issue 10): >= 50 matches/s from one box, >= 2000 results/s verified
and stored, 25 boxes in under 10 s, 0 B per idle poll.
"""
import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="nakk-bench-xdg-"))

import boxes  # noqa: E402
from nakk import proto  # noqa: E402
from nakk.sign import hmac_sha256  # noqa: E402
from nakk_host import device as D  # noqa: E402
from nakk_host import store  # noqa: E402
from nakk_host import sync as S  # noqa: E402
from nakk_host.simulator import Simulator  # noqa: E402


def one_box(tmp, n, events=0):
    db = os.path.join(tmp, "one%d.db" % events)
    image, fs_id, key = boxes.paired_box(tmp, "one%d" % events, db, count=n, events=events)
    with Simulator(image, register=False) as sim:
        t0 = time.perf_counter()
        rep = S.sync([D.Port(sim.tty)], db)[0]
        dt = time.perf_counter() - t0
    assert len(rep.new) == n and rep.ok(), rep.to_json()
    m = boxes.finished_match(1, events=events)
    size = sum(len(b) + 1 for _, b in m) + 10
    print("one box over its pty: %d matches (%d events, ~%d B each) synced in %.2f s: %.0f matches/s"
          % (n, len(m), size, dt, n / dt))


def store_only(tmp, n):
    db = os.path.join(tmp, "store.db")
    key = os.urandom(32)
    fs_id = "00112233aabbccdd"
    match = boxes.finished_match(1)
    got = []
    from nakk.event import encode, parse
    for i in range(1, n + 1):
        lines = []
        for _, b in match:
            ev = parse(b)
            if ev["type"] == "setup":
                ev["match"] = i
            lines.append(encode(ev))
        raw = b"\n".join(lines)
        rid = "%s-%d" % (fs_id, i)
        sha = hashlib.sha256(raw).hexdigest()
        got.append({"n": i, "rid": rid, "raw": raw, "size": len(raw), "sha256": sha,
                    "sig": hmac_sha256(key, proto.result_msg(rid, sha)).hex(), "final": None, "events": None})
    from nakk_host.verify import recompute
    final = recompute(got[0]["raw"])[1]["final"]
    for g in got:
        g["final"] = final
    conn = store.open_db(db)
    t0 = time.perf_counter()
    for i in range(0, n, S.BATCH):
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            for g in got[i:i + S.BATCH]:
                status, problems, summary, setup = S.check_result(key, fs_id, g)
                store.insert_result(conn, g["rid"], "dev", fs_id, g["n"], g["raw"], g["sha256"], g["sig"],
                                    status, problems, summary, setup)
    dt = time.perf_counter() - t0
    conn.close()
    print("judge's side alone: %d results verified (signature, recompute) and stored (commit per %d) in %.2f s: "
          "%.0f results/s" % (n, S.BATCH, dt, n / dt))


def many_boxes(tmp, k):
    db = os.path.join(tmp, "hall.db")
    images = [boxes.paired_box(tmp, "hall%02d" % i, db, count=2, seed=i + 1)[0] for i in range(k)]
    sims = []
    try:
        t0 = time.perf_counter()
        for img in images:
            sims.append(Simulator(img, register=True))
        boot = time.perf_counter() - t0
        t0 = time.perf_counter()
        reps = S.sync(D.discover(), db)
        dt = time.perf_counter() - t0
    finally:
        for s in sims:
            s.close()
    new = sum(len(r.new) for r in reps)
    assert new == 2 * k and all(r.ok() for r in reps), [r.to_json() for r in reps if not r.ok()]
    print("%d simulated boxes (2 matches each) synced in one run: %.2f s (%d results; ports reopened after a "
          "timeout: %d; the simulators took %.1f s to start)" % (k, dt, new, sum(r.reopened for r in reps), boot))


def link_heap(tmp):
    import subprocess
    from nakk_host.simulator import micropython_env, micropython_path
    image = os.path.join(tmp, "heap.img")
    boxes.fill(image, 2, key=os.urandom(32))
    r = subprocess.run([micropython_path(), "-X", "heapsize=320K", os.path.join(ROOT, "tests", "mpy", "link_heap.py"),
                        image], env=micropython_env(), capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise SystemExit(r.stderr)
    f = {k: int(v) for k, v in (line.split() for line in r.stdout.splitlines())}
    print("link heap on the box (unix port, 64-bit): %d B over 1000 idle polls; the Link object %d B; per frame "
          "(garbage included): hello %d, list %d, get (first chunk: folds and hashes the match) %d, get (next "
          "chunk) %d, a noise line %d, a damaged frame %d"
          % (f["idle_poll_total_1000"], f["link_object"], f["frame_hello"], f["frame_list"], f["frame_get_first"],
             f["frame_get_next"], f["frame_noise_line"], f["frame_damaged"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=120)
    ap.add_argument("--stored", type=int, default=4000)
    ap.add_argument("--boxes", type=int, default=25)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nakk-bench-sync-")
    try:
        one_box(tmp, a.matches)
        one_box(tmp, a.matches // 2, events=40)
        store_only(tmp, a.stored)
        many_boxes(tmp, a.boxes)
        link_heap(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
