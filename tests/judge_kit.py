"""Helpers for the judge's-side tests: a fresh database, Saare mäng matches as events, stored the way results are."""

import os

from nakk.event import encode

from nakk_host import players as P
from nakk_host import tournament as T
from nakk_host.intake import store_result
from nakk_host.store import open_db

VALUE = {"suit": 2, "ruutu": 4, "pime-ruutu": 6, "valge-pits": 6, "pime-pits": 8}


def db(tmp_path):
    return open_db(os.path.join(str(tmp_path), "judge.db"))


def saare_events(code, round_no, table_no, names, deals, tail=(("confirm", "A"), ("confirm", "B"))):
    """A Saare mäng 2020 match as event dicts: deals are (game, maker, winner) won plainly."""
    evs = [{"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "tournament": code, "round": round_no,
            "table": table_no, "sides": [{"id": "A", "name": names[0]}, {"id": "B", "name": names[1]}]}]
    if code is None:
        del evs[0]["tournament"]          # a box set up by hand
    for game, maker, winner in deals:
        evs.append({"seq": len(evs) + 1, "type": "deal", "game": game, "maker": maker, "result": "win",
                    "winner": winner})
    for kind, side in tail:
        evs.append({"seq": len(evs) + 1, "type": kind, "by": side})
    return evs


def raw_of(events):
    return b"\n".join(encode(e) for e in events)


def store(conn, result_id, events, source="box"):
    return store_result(conn, result_id, raw_of(events), source)


def stage(conn, names, rounds=3, season=None, date="2026-12-01", name="Etapp", **kw):
    t = T.create(conn, name, "saare-2020", "stage", rounds, date=date, season=season, **kw)
    P.add_many(conn, t, [{"name": n, "players": [n + " 1", n + " 2"]} for n in names])
    return T.get(conn, t["code"])
