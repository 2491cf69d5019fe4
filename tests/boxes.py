"""Simulated boxes for the link and sync tests (and bench/bench_sync.py): finished matches, filled flash, pairing.

Matches are written into the flash image by the firmware's own journal on the
unix port (tests/mpy/fill_journal.py) before the simulator starts, so a test
gets 1 or 100 finished matches in a fraction of a second instead of playing
each one with button presses; playing at the table has its own tests.
"""
import contextlib
import os
import random
import secrets
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def finished_match(seed=1, tournament="t", table=1, round_=1, events=0):
    """A finished, confirmed Saare mäng 2020 match: [(finished, canonical bytes)] in order.
    events: make it about this long with thrown-in deals (redeals) between the scored ones."""
    from nakk.event import encode
    from nakk.match import Match
    rng = random.Random(seed)
    m = Match()
    out = []

    def add(ev):
        ev["seq"] = len(out) + 1
        m.apply(ev)
        out.append((bool(m.st.over), encode(ev)))

    add({"type": "setup", "v": 1, "ruleset": "saare-2020", "tournament": tournament, "table": table,
         "round": round_, "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]})
    while not m.st.over:
        if len(out) < events - 8 and rng.random() < 0.9:
            try:
                add({"type": "redeal", "reason": "other"})
                continue
            except Exception:
                pass
        maker = rng.choice("AB")
        if m.st.chain:
            maker = "AB"[m.st.pending[0]]
        winner = rng.choice("AB")
        game = m.st.pending[1] if m.st.chain else "suit"
        ev = {"type": "deal", "game": game, "maker": maker, "result": rng.choice(("win", "win", "jann")),
              "winner": winner}
        try:
            add(ev)
        except Exception:
            continue
    add({"type": "confirm", "by": "A"})
    add({"type": "confirm", "by": "B"})
    return out


def final_score(seed=1):
    """The final score of finished_match(seed), as the judge's side folds it."""
    from nakk.event import parse
    from nakk.match import Match
    m = Match()
    for _, b in finished_match(seed):
        m.apply(parse(b))
    return m.summary()["final"]


def fill(image, count=1, key=None, seed=1, match=None, events=0, open_last=False, live=None, blocks=None):
    """Write `count` copies of a finished match into the flash image (created if missing); with key
    (bytes), pair the box with it; count "full": as many as the journal takes (a full box). Returns (fs_id,
    [match numbers on the image]). open_last: the last match is left in play (its events before the final deal)."""
    from nakk_host.simulator import micropython_env, micropython_path
    match = match or finished_match(seed, events=events)
    lines = os.path.join(os.path.dirname(os.path.abspath(image)), ".fill-%d.txt" % os.getpid())
    with open(lines, "wb") as f:
        for fin, b in match:
            f.write((b"F " if fin else b"E ") + b + b"\n")
    args = [micropython_path(), "-X", "heapsize=320K", os.path.join(HERE, "mpy", "fill_journal.py"),
            os.path.abspath(image), lines, str(count)]
    if key is not None:
        args.append(key.hex())
    if open_last:
        args.append("open")
    if live:
        args.append("live=" + live)
    if blocks:
        args.append("blocks=%d" % blocks)
    try:
        r = subprocess.run(args, env=micropython_env(), capture_output=True, text=True, timeout=120)
    finally:
        os.remove(lines)
    if r.returncode != 0:
        raise RuntimeError("fill_journal failed: %s%s" % (r.stdout[-1000:], r.stderr[-2000:]))
    words = r.stdout.split()
    return words[0], [int(x) for x in words[1:]]


def sim_device_id(image):
    """The device id the simulator reports for an image path (nakk/offbox/sim.py)."""
    import hashlib
    return "sim-" + hashlib.sha256(os.path.abspath(image).encode()).hexdigest()[:12]


def paired_box(tmp, name, db, count=1, seed=1, events=0, open_last=False, live=None):
    """A flash image with `count` finished matches, paired with a fresh key that the judge's
    database `db` knows (live: the HOST:PORT of a live server the box reports to). Returns
    (image path, fs_id, key)."""
    from nakk_host import store
    image = os.path.join(str(tmp), name + ".img")
    key = secrets.token_bytes(32)
    fs_id, _ = fill(image, count, key, seed, events=events, open_last=open_last, live=live)
    conn = store.open_db(db)
    try:
        store.save_pairing(conn, sim_device_id(image), fs_id, key, name)
    finally:
        conn.close()
    return image, fs_id, key


@contextlib.contextmanager
def one_hung(images, hung=0):
    """Simulators of `images` (paired_box's), the one at index `hung` stopped (SIGSTOP: its firmware
    hangs, its pty stays open): yields (simulators, the hung one). On the way out every one is
    let go on (SIGCONT) and closed."""
    from nakk_host.simulator import Simulator
    sims = []
    try:
        for img in images:
            sims.append(Simulator(img[0] if isinstance(img, tuple) else img))
        os.kill(sims[hung].proc.pid, signal.SIGSTOP)
        yield sims, sims[hung]
    finally:
        for s in sims:
            try:
                os.kill(s.proc.pid, signal.SIGCONT)
            except OSError:
                pass
            s.close()
