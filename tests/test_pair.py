"""Pairing through the box's own question (long OK), and a sync while the players are entering a deal."""
import json
import os
import threading
import time

import pytest

import boxes
from nakk_host import judge, store
from nakk_host import device as D
from nakk_host import sync as S
from nakk_host.cli import CommandError
from nakk_host.simulator import Simulator, dump_events


@pytest.fixture(autouse=True)
def own_registry(tmp_path, monkeypatch):
    d = tmp_path / "xdg"
    d.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(d))


def pair_while(sim, db, answer, name=None):
    """Run `nakk pair` against the box, answer its question with the button `answer` once the
    box shows it; returns what pair_box returned or raised."""
    got = {}

    def run():
        try:
            got["hello"] = judge.pair_box(db, sim.tty, name, say=lambda s: None)
        except CommandError as e:
            got["error"] = str(e)

    before = sim.sent
    t = threading.Thread(target=run)
    t.start()
    end = time.monotonic() + 10
    while sim.sent == before:                  # the question is drawn: display bytes go out
        assert time.monotonic() < end, "the box never asked"
        time.sleep(0.01)
    screen = sim.text()
    sim.press(answer, long=answer == "OK")
    t.join(20)
    got["screen"] = screen
    return got


def test_pairing_is_confirmed_on_the_box(tmp_path):
    db = str(tmp_path / "judge.db")
    image = str(tmp_path / "box.img")
    fs_id, _ = boxes.fill(image, 1)
    with Simulator(image, register=False) as sim:
        waiting = sim.framebuffer()
        got = pair_while(sim, db, "A")                  # a side button: no
        assert "did not confirm" in got["error"]
        assert sim.framebuffer() == waiting             # the screen is put back
        assert S.sync([D.Port(sim.tty)], db)[0].error.startswith("unknown box")
        got = pair_while(sim, db, "OK", name="laud 3")   # held OK: yes
        assert got["hello"]["fs_id"] == fs_id and "error" not in got
        conn = store.open_db(db)
        dev = store.device(conn, boxes.sim_device_id(image))
        conn.close()
        assert dev["fs_id"] == fs_id and len(dev["key"]) == 32 and dev["name"] == "laud 3"
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert rep.new == ["%s-1" % fs_id] and rep.ok()
    # the key survives a restart (it is on the box's flash)
    boxes.fill(image, 1)
    with Simulator(image, register=False) as sim:
        assert S.sync([D.Port(sim.tty)], db)[0].new == ["%s-2" % fs_id]


def test_reformatted_box_paired_again_on_the_box(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "reform", db, count=1)
    with Simulator(image, register=False) as sim:
        assert len(S.sync([D.Port(sim.tty)], db)[0].new) == 1
    os.remove(image)                                   # reformatted: a new filesystem, the same board
    fs2, _ = boxes.fill(image, 1)
    with Simulator(image, register=False) as sim:
        assert "reformatted" in S.sync([D.Port(sim.tty)], db)[0].error
        with D.Box(sim.tty) as box:
            assert len(box.list()[0]) == 1            # the box keeps its result meanwhile
        assert pair_while(sim, db, "OK")["hello"]["fs_id"] == fs2
        assert S.sync([D.Port(sim.tty)], db)[0].new == ["%s-1" % fs2]
    results = store.results(store.open_db(db))
    assert sorted(r["result_id"] for r in results) == sorted(["%s-1" % fs_id, "%s-1" % fs2])


def test_sync_while_the_players_enter_a_deal(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "busy", db, count=1)
    with Simulator(image, register=False) as sim:
        for k in ("OK:long", "OK", "OK", "OK", "OK"):  # the next match: saare-2020, table 1, round 1, A1
            sim.press(k.split(":")[0], long=k.endswith("long"))
        sim.press("OK")                                 # a deal half entered: the trump's other results open
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert rep.new == ["%s-1" % fs_id] and rep.left == 0
        assert sim.press("B") == 1                      # the players go on: "Kaotas", B won it (A made it)
        with D.Box(sim.tty) as box:
            h = box.hello()
        assert h["unsynced"] == 0
    events = [json.loads(x) for x in dump_events(image)]
    assert [e["type"] for e in events] == ["setup", "deal"]
    assert events[0]["match"] == 2
    assert (events[1]["maker"], events[1]["winner"]) == ("A", "B")
