"""A result carries its assignment: moved to another table, round or tournament, the judge refuses it.

The issue's attack: whoever holds a box can read its key and sign any bytes with it, so a result of
table 1 was re-signed as table 2 and stored as verified, after which the genuine one could never be
stored (its result id was taken). The judge's assignment id is in the match's setup event (the box copies
it from the signed assignment), and `nakk sync` checks the result against what it assigned to that box
(nakk_host.sync.check_assigned): the moved copy is refused with an alarm naming the box, nothing is stored
or acknowledged, and the genuine result is stored afterwards. The real firmware plays the match on the
simulator; the attacker's copy is served by a fake box that holds the box's key (tests/test_sync.py).
"""

import json
import os
import secrets

import pytest

import boxes
from nakk.event import encode, parse
from nakk_host import assign as A
from nakk_host import device as D
from nakk_host import simulator as Sim
from nakk_host import store
from nakk_host import sync as S
from nakk_host import tournament as T
from nakk_host.verify import recompute
from test_sync import EvilBox

# the judge's evening of test_judge_e2e: its environment, its command runner and its winning match
from test_judge_e2e import A_WINS, env, nakk  # noqa: F401,E402  (env is a fixture)


class SecondMatch(EvilBox):
    """The fake box, offering its result as match 2."""

    def _answer(self, req):
        out = EvilBox._answer(self, req)
        if req["cmd"] == "list" and out["matches"]:
            out["matches"] = [[2, self.rid]]
        if req["cmd"] == "get":
            out["n"] = 2
        return out


def moved(raw, **change):
    lines = raw.split(b"\n")
    setup = parse(lines[0])
    for k, v in change.items():
        if v is None:
            setup.pop(k, None)
        else:
            setup[k] = v
    return b"\n".join([encode(setup)] + lines[1:])


def test_a_result_moved_to_another_table_is_refused_and_the_genuine_one_is_stored(env, capsys):
    db = os.environ["NAKK_DB"]
    nakk(capsys, "tournament", "new", "Etapp", "--ruleset", "saare-2020", "--rounds", "1", "--code", "mv")
    for n in ("Mets/Tamm", "Saar/Kask", "Õun/Pirn", "Kuusk/Vaher"):
        nakk(capsys, "players", "add", n)
    nakk(capsys, "round", "--seed", "2")
    image = str(env / "laud1.img")
    key = secrets.token_bytes(32)
    fs_id, _ = boxes.fill(image, 0, key)
    device = boxes.sim_device_id(image)
    conn = store.open_db(db)
    store.save_pairing(conn, device, fs_id, key, "laud 1")
    t = T.get(conn, "mv")
    A.pushed(conn, t, 1, 2, 0, A.assignment(conn, t, 1, 2), device_id="sim-laud2")   # table 2: another box's
    conn.close()
    with Sim.Simulator(image, register=False) as sim:
        nakk(capsys, "assign", "--port", sim.tty, "--round", "1", "--table", "1")
        Sim.play(sim, Sim.parse_keys("OK " + A_WINS))
        with D.Box(sim.tty) as box:
            genuine = box.get(1)
        raw = genuine["raw"]
        setup = parse(raw.split(b"\n")[0])
        assert setup["table"] == 1 and len(setup["assignment"]) == 16

        # the attacker's copies, each signed with the box's own key: moved to table 2 (assignment id kept),
        # to table 2 with the id taken out (table 2 was assigned to another box), to another round, and
        # under an assignment id this judge never made
        for copy, why in ((moved(raw, table=2), "the result says table 2, its assignment"),
                          (moved(raw, table=2, assignment=None), "which this judge assigned to box sim-laud2"),
                          (moved(raw, round=2), "the result says round 2"),
                          (moved(raw, assignment="ffffffffffffffff"), "which this judge never made")):
            final = recompute(copy)[1]["final"]
            evil = EvilBox(key, fs_id, device, copy, final=final)
            try:
                rep = S.sync([D.Port(evil.url)], db)[0]
            finally:
                evil.close()
            assert evil.acks == 0 and rep.new == [] and len(rep.rejected) == 1, rep.to_json()
            assert why in rep.rejected[0][1] and device in rep.rejected[0][1], rep.rejected
        conn = store.open_db(db)
        alarms = store.alarms(conn)
        assert store.results(conn) == [] and len(alarms) == 4
        assert all(device in a["what"] and a["device_id"] == device for a in alarms)
        conn.close()

        # the genuine result is stored afterwards, verified, under the same id
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert rep.new == [genuine["rid"]] and rep.ok() and rep.flagged == []
        # and a second result under the same assignment (another match number), signed with the box's key
        copy = moved(raw, match=2)
        evil = SecondMatch(key, fs_id, device, copy, final=recompute(copy)[1]["final"], rid="%s-2" % fs_id)
        try:
            rep = S.sync([D.Port(evil.url)], db)[0]
        finally:
            evil.close()
        assert evil.acks == 0 and rep.new == [] and "already has its result %s" % genuine["rid"] in rep.rejected[0][1]
    conn = store.open_db(db)
    (r,) = store.results(conn)
    assert r["status"] == "verified" and r["table_no"] == 1 and bytes(r["events"]) == raw
    row = conn.execute("SELECT aid, device_id FROM assignments WHERE table_no=1").fetchone()
    assert (row["aid"], row["device_id"]) == (setup["assignment"], device)
    conn.close()
    st = json.loads(nakk(capsys, "results", "--db", db, "--json"))
    assert [x["table"] for x in st] == [1]
