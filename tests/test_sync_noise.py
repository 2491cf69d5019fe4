"""The sync on a bad cable, end to end: the firmware in the simulator, a relay (tests/relay.py) between its pty
and the judge's that drops, flips and inserts bytes or pulls the cable, pyserial, `nakk sync`, SQLite.

Every result reaches the judge once and verified; a lost or garbled frame is sent again (not the whole
sync failed); a cut in mid-frame costs the next sync nothing; results stored before the cable went are
reported stored."""
import json
import time

import pytest

import boxes
import relay as R
from nakk_host import cli, store
from nakk_host import device as D
from nakk_host import sync as S
from nakk_host.simulator import Simulator


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


@pytest.fixture
def relay():
    r = R.Relay(seed=21)
    yield r
    r.close()


def stored(db):
    conn = store.open_db(db)
    try:
        return [(r["result_id"], r["status"]) for r in store.results(conn)], store.alarms(conn)
    finally:
        conn.close()


def on_box(url):
    with D.Box(url, 3) as b:
        return b.list()[0]


@pytest.mark.parametrize("rate", [5e-4, 1e-3])
def test_a_noisy_cable_stores_every_result_once_and_verified(tmp_path, relay, rate):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "noisy", db, count=12)
    with Simulator(image, register=False) as sim:
        link = relay.add(sim.tty, rate)
        t0 = time.monotonic()
        rep = S.sync([D.Port(link.url)], db)[0]
        took = time.monotonic() - t0
        assert rep.ok() and len(rep.new) == 12 and rep.left == 0, rep.to_json()
        assert link.faults > 5 and rep.resent > 0, (link.faults, rep.resent)    # the noise did hit frames
        assert on_box(sim.tty) == []
    rows, alarms = stored(db)
    assert sorted(rows) == sorted(("%s-%d" % (fs_id, n), "verified") for n in range(1, 13)) and not alarms
    assert took < 30, took


def test_a_cut_in_mid_frame_costs_the_next_sync_nothing(tmp_path, relay):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "cut", db, count=2)
    with Simulator(image, register=False) as sim:
        link = relay.add(sim.tty)
        link.cut_after(20)                      # inside the first request: the box keeps half a line
        rep = S.sync([D.Port(link.url)], db, timeout=1.0)[0]
        assert rep.error and not rep.new
        # the cable in again (the box's own pty): the first request is answered at once
        t0 = time.monotonic()
        rep = S.sync([D.Port(sim.tty)], db, timeout=3.0)[0]
        took = time.monotonic() - t0
        assert rep.ok() and len(rep.new) == 2, rep.to_json()
        assert rep.resent == 0 and rep.reopened == 0 and took < 2.0, (rep.resent, rep.reopened, took)


def test_results_stored_before_the_cable_went_are_reported_stored(tmp_path, relay, capsys):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "pulled", db, count=3)
    ids = ["%s-%d" % (fs_id, n) for n in (1, 2, 3)]
    with Simulator(image, register=False) as sim:
        link = relay.add(sim.tty)
        link.cut_on(b'"cmd":"ack"')             # after the commit, before the box hears of it
        assert cli.main(["sync", "--db", db, "--port", link.url, "--timeout", "1"]) == 1
        out = " ".join(capsys.readouterr().out.split())    # rich wraps its lines
        assert "3 result(s) stored, then the sync broke off" in out and "not synced" not in out, out
        assert "3 of them stay on the box until the next sync" in out, out
        assert sorted(r for r, _ in stored(db)[0]) == ids
        link2 = relay.add(sim.tty)
        link2.cut_on(b'"cmd":"ack"')
        assert cli.main(["sync", "--db", db, "--port", link2.url, "--timeout", "1", "--json"]) == 1
        rep = json.loads(capsys.readouterr().out)["boxes"][0]
        assert rep["new"] == [] and sorted(rep["already"]) == ids and sorted(rep["unacked"]) == ids, rep
        assert len(on_box(sim.tty)) == 3         # the box still has them: it never heard an ack
        rep = S.sync([D.Port(sim.tty)], db)[0]   # the cable in again: found stored, acknowledged
        assert rep.ok() and rep.new == [] and sorted(rep.already) == ids and rep.unacked == []
        assert on_box(sim.tty) == []
    rows, alarms = stored(db)
    assert sorted(rows) == [(i, "verified") for i in ids] and not alarms


def test_an_answer_that_comes_after_its_request_was_given_up_for_lost_keeps_the_port_read():
    """A garbled line is blamed on the oldest request, whose answer then comes after all (to its first id):
    the judge must go on reading the port for the next answer (it once spun without reading until its
    budget ran out, and the noisy hall's syncs failed that way)."""
    import os
    import select
    import threading
    import tty
    from nakk.link import proto
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    got = []

    def fake_box():
        buf = b""
        while len(got) < 2:
            if select.select([master], [], [], 5)[0]:
                buf += os.read(master, 4096)
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if proto.is_frame(line):
                    got.append(proto.decode_frame(line)["id"])
        first, second = got[:2]
        # a garbled line, then the first request's answer, in one write; the second's half a second later
        os.write(master, b"~Nxx~00000000\n" + proto.reply(first, {"matches": [], "more": False}))
        time.sleep(0.5)
        os.write(master, proto.reply(second, {"matches": [], "more": False}))

    t = threading.Thread(target=fake_box, daemon=True)
    t.start()
    try:
        with D.Box(os.ttyname(slave), timeout=1.0) as box:
            h1 = box.send("list")
            h2 = box.send("list")
            t0 = time.monotonic()
            assert box.wait(h2)["ok"] is True and box.wait(h1)["ok"] is True
            assert time.monotonic() - t0 < 2.0
    finally:
        t.join(5)
        os.close(master)
        os.close(slave)
