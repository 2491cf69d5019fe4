"""Pairing through the box's own question (PREV+NEXT held, on the start screen only), a laptop at the table
that tries to take a box over, and a sync while the players are entering a deal."""
import json
import os
import secrets
import threading
import time

import pytest

import boxes
from nakk.link.sign import hmac_sha256
from nakk_host import cli, judge, store
from nakk_host import device as D
from nakk_host import sync as S
from nakk_host.cli import CommandError
from nakk_host.simulator import Simulator, dump_events


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


def pair_while(sim, db, answer, name=None, judge_name="Kohtunik Kalju"):
    """Run `nakk pair` against the box, answer its question with `answer` once the box shows it
    (PREV+NEXT and OK held 1 s, others tapped); returns what pair_box returned or raised."""
    got = {}

    def run():
        try:
            got["hello"] = judge.pair_box(db, sim.tty, name, say=lambda s: None, judge_name=judge_name)
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
    sim.press(answer, long=answer in ("OK", "PREV+NEXT"))
    t.join(20)
    got["screen"] = screen
    return got


def test_pairing_is_confirmed_at_the_box(tmp_path):
    db = str(tmp_path / "judge.db")
    image = str(tmp_path / "box.img")
    fs_id, _ = boxes.fill(image, 1)
    with Simulator(image, register=False) as sim:
        sim.press("OK", long=True)                      # the finished match answered: the start screen
        waiting = sim.framebuffer()
        got = pair_while(sim, db, "A")                  # a side button: no
        assert "nobody at the box held PREV and NEXT" in got["error"]
        assert sim.framebuffer() == waiting             # the screen is put back
        other = pair_while(sim, db, "OK", judge_name="Kohtunik Mari")   # the old answer (a long OK): no as well
        assert "nobody at the box held PREV and NEXT" in other["error"]
        assert sim.framebuffer() == waiting
        assert other["screen"] != got["screen"] != sim.text()   # the question, naming the judge who asks
        assert S.sync([D.Port(sim.tty)], db)[0].error.startswith("unknown box")
        got = pair_while(sim, db, "PREV+NEXT", name="laud 3")   # held together: yes
        assert got["hello"]["fs_id"] == fs_id and "error" not in got
        conn = store.open_db(db)
        dev = store.device(conn, boxes.sim_device_id(image))
        conn.close()
        assert dev["fs_id"] == fs_id and len(dev["key"]) == 32 and dev["name"] == "laud 3"
        with D.Box(sim.tty) as box:
            assert box.hello()["judge"] == "Kohtunik Kalju"     # the box keeps who paired it
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert rep.new == ["%s-1" % fs_id] and rep.ok()
    # the key survives a restart (it is on the box's flash)
    boxes.fill(image, 1)
    with Simulator(image, register=False) as sim:
        assert S.sync([D.Port(sim.tty)], db)[0].new == ["%s-2" % fs_id]


def test_a_laptop_at_the_table_cannot_take_the_box_over(tmp_path, capsys):
    """The issue's attack: a laptop sends pair while the box shows a finished match waiting for the judge,
    and the players long-OK for the next match. The box was paired with the real judge: the request is
    refused at once (no consent from that judge), the long OK starts the next match as always, the laptop's
    ack of match 1 drops nothing, and the real judge's sync takes the result."""
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud1", db, count=1)
    evil = secrets.token_bytes(32)
    with Simulator(image, register=False) as sim:
        waiting = sim.framebuffer()
        with D.Box(sim.tty) as box:
            with pytest.raises(D.Refused) as e:
                box.pair(evil, secrets.token_hex(8), "Kohtunik")
            assert e.value.code == "bad-mac" and "paired with judge" in e.value.why
        assert sim.framebuffer() == waiting             # nothing was asked on the box
        sim.press("OK", long=True)                      # the players' habit: the next match
        assert sim.framebuffer() != waiting
        with D.Box(sim.tty) as box:
            with pytest.raises(D.Refused) as e:         # a consent signed with a key the box does not hold
                box.pair(evil, secrets.token_hex(8), "Kohtunik", consent=hmac_sha256(evil, b"x"))
            assert e.value.code == "bad-mac"
            with pytest.raises(D.Refused) as e:         # the laptop's ack of match 1, signed with its own key
                box.ack(1, "%s-1" % fs_id, "0" * 64, evil)
            assert e.value.code == "bad-mac"
            h = box.hello()
            assert h["unsynced"] == 1 and h["rejected"] == 3
        assert cli.main(["doctor", "--db", db, "--port", sim.tty, "--json"]) == 1
        doc = json.loads(capsys.readouterr().out)[0]
        assert doc["rejected"] == 3 and any("refused 3 request(s) since it started that were not signed by its judge"
                                            in p for p in doc["problems"]), doc
        rep = S.sync([D.Port(sim.tty)], db)[0]          # the real judge: the result is there, and kept
        assert rep.new == ["%s-1" % fs_id] and rep.ok() and rep.alarms == 0


def test_an_unpaired_box_is_not_paired_by_a_habit(tmp_path):
    """The same attack on a box nobody paired yet: over the finished match the question is not even shown
    (busy); on the start screen the players' long OK only dismisses it."""
    db = str(tmp_path / "evil.db")
    image = str(tmp_path / "fresh.img")
    fs_id, _ = boxes.fill(image, 1)
    with Simulator(image, register=False) as sim:
        waiting = sim.framebuffer()
        with pytest.raises(CommandError) as e:
            judge.pair_box(db, sim.tty, say=lambda s: None)
        assert "start screen" in str(e.value) and sim.framebuffer() == waiting
        sim.press("OK", long=True)                      # the next match
        got = pair_while(sim, db, "OK")                 # asked over the start screen: the habit says no
        assert "nobody at the box held PREV and NEXT" in got["error"]
        with D.Box(sim.tty) as box:
            assert box.hello()["paired"] is False


def test_the_judge_re_pairs_its_own_box_with_the_old_keys_consent(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud2", db, count=1)
    with Simulator(image, register=False) as sim:
        sim.press("OK", long=True)
        got = pair_while(sim, db, "PREV+NEXT", name="laud 2", judge_name="Kohtunik Kalju")
        assert "error" not in got, got
        conn = store.open_db(db)
        new = bytes(store.device(conn, boxes.sim_device_id(image))["key"])
        conn.close()
        assert new != key
        with D.Box(sim.tty) as box:                     # the old key no longer signs for it
            with pytest.raises(D.Refused) as e:
                box.ack(1, "%s-1" % fs_id, "0" * 64, key)
            assert e.value.code == "bad-mac"
        assert S.sync([D.Port(sim.tty)], db)[0].new == ["%s-1" % fs_id]


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
        sim.press("OK", long=True)                    # to the start screen
        assert pair_while(sim, db, "PREV+NEXT")["hello"]["fs_id"] == fs2
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


def test_the_box_s_own_reset_forgets_its_judge_only_once_its_results_are_synced(tmp_path):
    """A judge whose laptop is gone: PREV and NEXT held on the box's start screen ask "Forget the judge?"
    (naming it), held again the key is forgotten and another judge may pair it at the box. While a result
    waits for the judge the box says "sync first" and keeps its key, so a reset cannot hand unsynced
    results to another laptop."""
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud4", db, count=1)
    with Simulator(image, register=False) as sim:
        sim.press("OK", long=True)                       # the start screen
        start = sim.framebuffer()
        sim.press("PREV+NEXT", long=True)                # a result waits: "sync first"
        assert sim.framebuffer() != start
        with D.Box(sim.tty) as box:
            assert box.hello()["paired"] is True
        assert S.sync([D.Port(sim.tty)], db)[0].new == ["%s-1" % fs_id]
        sim.press("PREV+NEXT", long=True)                # synced: the question
        sim.press("OK", long=True)                       # a long OK: no, the key is kept
        with D.Box(sim.tty) as box:
            assert box.hello()["paired"] is True
        sim.press("PREV+NEXT", long=True)
        sim.press("PREV+NEXT", long=True)                # held again: forgotten
        with D.Box(sim.tty) as box:
            h = box.hello()
            assert h["paired"] is False and "judge" not in h
        other = str(tmp_path / "other.db")               # another judge pairs it, at the box
        got = pair_while(sim, other, "PREV+NEXT", judge_name="Kohtunik Mari")
        assert "error" not in got, got
        with D.Box(sim.tty) as box:
            assert box.hello()["judge"] == "Kohtunik Mari"
