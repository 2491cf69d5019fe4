"""Deterministic long matches drawn from the deal mix in bench/deal-mix.json (CPython; for benchmarks)."""
import json
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIX_PATH = os.path.join(ROOT, "bench", "deal-mix.json")   # the one copy (bench/README.md says why these weights)


def load_mix():
    try:
        with open(MIX_PATH, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise SystemExit("nakk bench: cannot read %s: %s" % (MIX_PATH, e.strerror or e))


def _pick(rng, weights):
    r = rng.random() * sum(weights.values())
    for k in sorted(weights):
        r -= weights[k]
        if r <= 0:
            return k
    return sorted(weights)[-1]


OUTCOME = {"won": ("win", True), "won-jann": ("jann", True), "won-karvane": ("karvane", True),
           "lost": ("win", False), "lost-jann": ("jann", False), "lost-karvane": ("karvane", False),
           "pokk": ("pokk", None)}


def draw_event(rng, mix, m):
    """The next entry at a Saare mäng table (no seq yet), drawn from the mix given the match m so far:
    a penalty, an undo, a redeal or a deal (a pokk's replay keeps its game and maker)."""
    r = rng.random()
    if r < mix["penalty_per_deal"]:
        return {"type": "penalty", "offence": _pick(rng, mix["penalty_offence"]), "by": rng.choice("AB")}
    if r < mix["penalty_per_deal"] + mix["undo_per_deal"] and m.in_force:
        return {"type": "cancel", "target": m.in_force[-1]}
    game = _pick(rng, mix["game"])
    if game == "redeal":
        return {"type": "redeal", "reason": "misdeal"}
    maker = _pick(rng, mix["maker"])
    if m.st.chain:
        maker = "AB"[m.st.pending[0]]
        game = m.st.pending[1]
    ev = {"type": "deal", "game": game, "maker": maker}
    if game in ("valge-pits", "pime-pits") and rng.random() < mix["pits_capture_share"]:
        ev.update(result="capture", capture=rng.choice("AB"))
    else:
        result, makers_won = OUTCOME[_pick(rng, mix["outcome"])]
        ev["result"] = result
        if makers_won is not None:
            ev["winner"] = maker if makers_won else ("B" if maker == "A" else "A")
    return ev


def saare_match(n_events, seed=1):
    """A Saare mäng 2020 match of n_events events (target raised so it does not end), from the mix."""
    from nakk.match import Match
    mix = load_mix()["saare-2020"]
    rng = random.Random(seed)
    m = Match()
    events = [{"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "settings": {"target": 200},
               "tournament": "bench", "table": 1, "round": 1,
               "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]}]
    m.apply(events[0])
    while len(events) < n_events:
        seq = len(events) + 1
        ev = draw_event(rng, mix, m)
        ev["seq"] = seq
        try:
            m.apply(ev)
        except Exception:
            continue  # e.g. misdeal-twice by the wrong pair: draw again
        events.append(ev)
    return events
