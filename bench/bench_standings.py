"""Benchmark of the judge's side: a season's standings recomputed from the stored events, the standings after one
more synced result, and a Swiss draw for 400 pairs (CPython, SQLite on a temporary file).

The season: 12 stages of 50 pairs (25 tables) and 6 rounds each, every round drawn by `draw.draw_next` (Swiss)
and every match stored through `intake.store_result` as its canonical event bytes (the last five are
synced one by one as sync stores them: signature, recount, insert, commit). Matches are drawn from
bench/deal-mix.json (deals, redeals, penalties, undos); the partii target is raised to 80 nakks so a match
has about 40 events, as the figure asks (a match to 16 has about 12).

Targets: the season in under 2 s, one more result in under 50 ms, the draw in under 1 s.
Run: .venv/bin/python bench/bench_standings.py [--quick]
"""

import os
import random
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from matchgen import draw_event, load_mix  # noqa: E402
from nakk.event import encode  # noqa: E402
from nakk.match import Match  # noqa: E402

from nakk_host import draw as D  # noqa: E402
from nakk_host import players as P  # noqa: E402
from nakk_host import standings as S  # noqa: E402
from nakk_host import tournament as T  # noqa: E402
from nakk_host.intake import store_result  # noqa: E402
from nakk_host.store import open_db  # noqa: E402

TARGET = 80
KEPT = 5        # results of the last round kept back, each then synced as "one more"


def finished_match(rng, mix, code, round_no, table_no, names):
    """A whole Saare mäng 2020 match (to TARGET nakks) from the deal mix, confirmed by both pairs: canonical bytes."""
    setup = {"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "settings": {"target": TARGET},
             "tournament": code, "round": round_no, "table": table_no,
             "sides": [{"id": "A", "name": names[0]}, {"id": "B", "name": names[1]}]}
    m = Match()
    m.apply(setup)
    events = [setup]
    while not m.st.over:
        ev = draw_event(rng, mix, m)
        ev["seq"] = len(events) + 1
        try:
            m.apply(ev)
        except Exception:
            continue
        events.append(ev)
    for side in "AB":
        ev = {"seq": len(events) + 1, "type": "confirm", "by": side}
        m.apply(ev)
        events.append(ev)
    return b"\n".join(encode(e) for e in events), len(events)


def build_season(conn, stages, pairs, rounds, rng, mix):
    names = ["Paar %03d" % i for i in range(pairs)]
    counts = []
    last = []
    for s in range(stages):
        t = T.create(conn, "Etapp %d" % (s + 1), "saare-2020", "stage", rounds, date="2026-%02d-01" % (s % 12 + 1),
                     season="bench", code="etapp%02d" % (s + 1), settings={"target": TARGET}, draw="swiss")
        P.add_many(conn, t, [{"name": n, "players": [n + " a", n + " b"]} for n in names])
        for r in range(1, rounds + 1):
            D.draw_next(conn, t, seed=r)
            for tb in S.round_tables(conn, t, r)["tables"]:
                if tb["bye"]:
                    continue
                sides = [x["name"] for x in tb["sides"]]
                if s == stages - 1 and r == rounds and tb["table"] <= KEPT:
                    last.append((t, r, tb["table"], sides))   # kept back: "one more synced result"
                    continue
                raw, n = finished_match(rng, mix, t["code"], r, tb["table"], sides)
                counts.append(n)
                store_result(conn, "%s-r%d-t%d" % (t["code"], r, tb["table"]), raw, "box")
    return counts, last


def store_as_sync(conn, raw, shown, n=1):
    """Store a result as `nakk sync` does once the box sent it: check its signature and fold it again
    (sync.check_result), insert it (store.insert_result) and commit. Only the pty is left out."""
    import hashlib
    import secrets
    from nakk.link import proto
    from nakk.link.sign import hmac_sha256
    from nakk_host import store
    from nakk_host.sync import check_result
    key = secrets.token_bytes(32)
    fs_id = "bench"
    rid = "%s-%d" % (fs_id, n)
    sha = hashlib.sha256(raw).hexdigest()
    got = {"n": n, "rid": rid, "raw": raw, "size": len(raw), "sha256": sha,
           "sig": hmac_sha256(key, proto.result_msg(rid, sha)).hex(), "final": shown, "events": None}
    status, problems, summary, setup = check_result(key, fs_id, got)
    with conn:
        store.insert_result(conn, rid, "sim-bench", fs_id, n, raw, sha, got["sig"], status, problems, summary, setup)
    return status


def swiss_400(rng):
    """A Swiss round for 400 pairs after three rounds: the pure pairing, timed alone."""
    ranked = list(range(400))
    met = set()
    for _ in range(3):
        rng.shuffle(ranked)
        for i in range(0, 400, 2):
            met.add(frozenset((ranked[i], ranked[i + 1])))
    rng.shuffle(ranked)
    t0 = time.perf_counter()
    pairs = D.swiss(ranked, met)
    dt = time.perf_counter() - t0
    repeats = sum(1 for a, b in pairs if frozenset((a, b)) in met)
    spread = statistics.mean(abs(ranked.index(a) - ranked.index(b)) for a, b in pairs)
    return dt, repeats, spread


def draw_400_db(conn, rng, mix):
    """draw_next for a 400-pair stage after one round in: standings read from SQLite, then the pairing."""
    t = T.create(conn, "Suur etapp", "saare-2020", "stage", 6, code="big", draw="swiss", settings={"target": 16})
    P.add_many(conn, t, [{"name": "Suur %03d" % i} for i in range(400)])
    D.draw_next(conn, t, seed=1)
    for tb in S.round_tables(conn, t, 1)["tables"]:
        raw, _ = _quick_match(rng, "big", tb)
        store_result(conn, "big-%d" % tb["table"], raw, "box")
    t0 = time.perf_counter()
    D.draw_next(conn, t, seed=2)
    return time.perf_counter() - t0


def _quick_match(rng, code, tb):
    sides = [x["name"] for x in tb["sides"]]
    w = rng.choice("AB")
    evs = [{"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "tournament": code, "round": 1,
            "table": tb["table"], "sides": [{"id": "A", "name": sides[0]}, {"id": "B", "name": sides[1]}]}]
    for _ in range(2):
        evs.append({"seq": len(evs) + 1, "type": "deal", "game": "pime-pits", "maker": w, "result": "win",
                    "winner": w})
    return b"\n".join(encode(e) for e in evs), len(evs)


def main():
    quick = "--quick" in sys.argv
    stages = 3 if quick else 12
    rng = random.Random(2026)
    mix = load_mix()["saare-2020"]
    d = tempfile.mkdtemp(prefix="nakk-bench-")
    try:
        conn = open_db(os.path.join(d, "season.db"))
        t0 = time.perf_counter()
        counts, last = build_season(conn, stages, 50, 6, rng, mix)
        built = time.perf_counter() - t0
        print("season: %d stages x 25 tables x 6 rounds = %d matches (%d stored, %d kept back to sync one by one), "
              "%d events stored (%.1f per match, min %d, max %d); built in %.1f s"
              % (stages, len(counts) + len(last), len(counts), len(last), sum(counts), statistics.mean(counts),
                 min(counts), max(counts), built))
        # cold: nothing folded in this process yet
        times = []
        for _ in range(3):
            S._FOLDS.clear()
            t0 = time.perf_counter()
            se = S.season(conn, "bench")
            times.append(time.perf_counter() - t0)
        print("season standings recomputed from every stored event (cold): %.2f s median of 3 (target < 2 s); "
              "%d pairs ranked" % (statistics.median(times), len(se["rows"])))
        t0 = time.perf_counter()
        S.season(conn, "bench")
        print("season standings again in the same process (folds kept by hash): %.3f s" % (time.perf_counter() - t0))
        # one more synced result: store it, then the stage's and the season's standings (5 times)
        from nakk_host.verify import recompute
        stored_t, stage_t, season_t = [], [], []
        for i, (t, r, table, sides) in enumerate(last):
            raw, _ = finished_match(rng, mix, t["code"], r, table, sides)
            S.standings(conn, t)          # the hall page has shown the standings before this result
            shown = recompute(raw)[1]["final"]      # the totals the box showed (the box's work, not timed)
            t0 = time.perf_counter()
            assert store_as_sync(conn, raw, shown, n=i + 1) == "verified"
            stored_t.append(time.perf_counter() - t0)
            S.standings(conn, t)
            stage_t.append(time.perf_counter() - t0)
            S.season(conn, "bench")
            season_t.append(time.perf_counter() - t0)
        assert not S.standings(conn, t)["pending"]
        ms = lambda xs: "%.1f ms median, %.1f worst" % (statistics.median(xs) * 1e3, max(xs) * 1e3)  # noqa: E731
        print("one more synced result (%d of them), from its arrival: checked and stored as sync does (signature, "
              "recount, insert, commit) %s; with the stage's standings recomputed %s (target < 50 ms); with the "
              "season's too %s" % (len(last), ms(stored_t), ms(stage_t), ms(season_t)))
        dt, repeats, spread = swiss_400(rng)
        print("Swiss draw for 400 pairs (networkx max weight matching, 3 rounds played): %.2f s (target < 1 s); "
              "%d repeat pairings; mean rank distance %.1f" % (dt, repeats, spread))
        dt = draw_400_db(conn, rng, mix)
        print("nakk round for a 400-pair stage (standings from SQLite + the draw + storing it): %.2f s" % dt)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
