"""Plug in, and it is synced: the box watcher (nakk_host.watch) against the real firmware in simulators that
appear in the registry (their ptys, pyserial, the judge's SQLite file).

A box is plugged in by starting its simulator (it registers its pty) and pulled out by killing it. The
tests wait on the watcher's own condition (Watcher.wait) and the simulator's, never on a sleep.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import boxes
import judge_kit
from nakk_host import device as D
from nakk_host import draw, store
from nakk_host import sync as S
from nakk_host.simulator import Simulator
from nakk_host.watch import Watcher, WatchError


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


@pytest.fixture
def watching():
    started = []

    def start(db, **kw):
        w = Watcher(db, **kw)
        w.start()
        started.append(w)
        return w

    yield start
    for w in started:
        assert w.stop() == []
        assert not [e for e in w.events() if e["kind"] == "crash"], [e["words"] for e in w.events()]


def until(w, pred, timeout=60, what="the watcher's events"):
    """The watcher's events once pred(events) holds, waiting on the watcher's condition."""
    end = time.monotonic() + timeout
    while True:
        ev = w.events()
        if pred(ev):
            return ev
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError("timed out waiting for %s; events:\n  %s"
                                 % (what, "\n  ".join(e["words"] for e in ev)))
        w.wait(ev[-1]["n"] if ev else 0, timeout=left)


def kinds(ev, port=None):
    return [e["kind"] for e in ev if port is None or e["port"] == port]


def stored(db):
    conn = store.open_db(db)
    try:
        return [r["result_id"] for r in store.results(conn)], store.alarms(conn)
    finally:
        conn.close()


def ready(url):
    with D.Box(url) as b:
        return b.list()[0]


def test_a_paired_box_plugged_in_is_synced_at_once_and_said_in_words(tmp_path, watching):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud 3", db, count=2)
    w = watching(db)
    with Simulator(image) as sim:
        ev = until(w, lambda ev: kinds(ev).count("result") == 2)
        words = [e["words"] for e in ev if e["kind"] == "result"]
        score = tuple(boxes.final_score())
        assert words == ["Laud 1: %d : %d vastu võetud, kontrollitud" % score] * 2   # the table the result names
        res = [e for e in ev if e["kind"] == "result"]
        assert res[0]["en"] == "Table 1: %d : %d received, verified" % score
        assert [e["result_id"] for e in res] == ["%s-1" % fs_id, "%s-2" % fs_id] and res[0]["port"] == sim.tty
        assert res[0]["box"] == boxes.sim_device_id(image) and res[0]["name"] == "laud 3"
        assert [n for n in (e["n"] for e in ev)] == list(range(1, len(ev) + 1))
        (b,) = w.boxes()
        assert (b["port"], b["kind"], b["state"], b["table"], b["stored"]) == (sim.tty, "sim", "synced", 3, 2)
        assert ready(sim.tty) == []                     # acknowledged: the box dropped them
        n = w.last_event()
        w.sync(sim.tty)                                 # again: nothing new, said so
        ev = until(w, lambda ev: "nothing" in kinds(ev[n:]))
        assert [e["words"] for e in ev[n:] if e["kind"] == "nothing"] == ["Laud 3: uusi tulemusi pole"]
    until(w, lambda ev: "gone" in kinds(ev))
    assert w.boxes() == []
    assert w.events(since=len(ev))[-1]["words"] == "Laud 3: kast eemaldati"
    ids, alarms = stored(db)
    assert ids == ["%s-1" % fs_id, "%s-2" % fs_id] and alarms == []


@pytest.mark.parametrize("pulled", ["after-commit", "mid-get"])
def test_pulled_out_mid_sync_and_plugged_in_again_stores_nothing_twice(tmp_path, watching, monkeypatch, pulled):
    """50 matches go in two commits (sync.BATCH 40): the box is pulled out (its simulator killed) just
    after the first commit, before the box heard the acks; or while the second batch is read."""
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud 4", db, count=50)
    sims = []
    if pulled == "after-commit":
        real = S._crash_point

        def crash_point(name):
            if name == "after-commit" and len(sims) == 1 and sims[0].running():
                sims[0].kill()                          # the cable out, the results committed, no ack heard
            real(name)
        monkeypatch.setattr(S, "_crash_point", crash_point)
    else:
        real = D.Box.get_many
        calls = []

        def get_many(box, ns, window=8):
            calls.append(len(ns))
            if len(calls) == 2 and len(sims) == 1:
                sims[0].kill()                          # the cable out while the second batch is read
            return real(box, ns, window)
        monkeypatch.setattr(D.Box, "get_many", get_many)
    w = watching(db, lang="en")
    sims.append(Simulator(image))
    try:
        ev = until(w, lambda ev: "gone" in kinds(ev) and kinds(ev)[-1] != "plugged"
                   and any(k in kinds(ev) for k in ("stored-then-failed", "failed", "no-answer")))
        ids, _ = stored(db)
        assert len(ids) == 40 == len(set(ids))
        broke = [e for e in ev if e["kind"] in ("stored-then-failed", "failed", "no-answer")]
        if pulled == "after-commit":     # stored, not acknowledged: said as stored, the rest to come
            assert broke[0]["words"].startswith("Table 4: 40 results stored, then the link broke")
        until(w, lambda ev: w.boxes() == [])            # the old box's thread has ended
        n = w.last_event()
        sims.append(Simulator(image))                   # plugged in again
        ev = until(w, lambda ev: [b["state"] for b in w.boxes()] == ["synced"])[n:]
        assert ready(sims[1].tty) == []
    finally:
        for s in sims:
            if s.running():
                s.close()                               # the one pulled out was cleaned up by its kill
    ids, alarms = stored(db)
    assert sorted(ids) == sorted("%s-%d" % (fs_id, i) for i in range(1, 51)) and alarms == []
    again = [e["result_id"] for e in ev if e["kind"] == "already"]
    new = [e["result_id"] for e in ev if e["kind"] == "result"]
    assert len(new) == 10 and len(again) == (40 if pulled == "after-commit" else 0)
    assert not set(new) & set(again)
    assert all(e["words"].startswith("Table 1: ") for e in ev if e["kind"] in ("result", "already"))


def test_an_unpaired_box_is_offered_for_pairing_and_paired_at_the_box(tmp_path, watching):
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    image = str(tmp_path / "new.img")
    fs_id, _ = boxes.fill(image, 1)                     # one finished match, never paired
    w = watching(db)
    with Simulator(image) as sim:
        ev = until(w, lambda ev: "pair-offer" in kinds(ev))
        offer = [e for e in ev if e["kind"] == "pair-offer"][0]
        assert offer["words"] == "Uus kast %s (%s) pole selle kohtunikuga paaritud: paarida?" % (
            boxes.sim_device_id(image), sim.tty)
        assert offer["offer"] == {"kind": "pair"} and offer["port"] == sim.tty
        (b,) = w.boxes()
        assert b["state"] == "unpaired" and b["offer"] == {"kind": "pair"}
        with pytest.raises(WatchError):
            w.assign(sim.tty)                           # no assignment is offered to it
        with pytest.raises(WatchError):
            w.sync(sim.tty)
        assert stored(db)[0] == []                      # nothing taken from a box not paired
        sim.press("OK", long=True)                      # the finished match answered: the start screen
        before = sim.sent
        w.pair(sim.tty, name="laud 2")
        with pytest.raises(WatchError):
            w.pair(sim.tty)                             # busy pairing
        sim._wait(lambda: sim.sent > before, "the box to ask")
        ev = until(w, lambda ev: "pairing" in kinds(ev))
        assert ev[-1]["words"] == "Kast %s: kast küsib mängijatelt: hoidke PREV ja NEXT koos" % boxes.sim_device_id(image)
        sim.press("PREV+NEXT", long=True)               # held together: yes
        ev = until(w, lambda ev: "result" in kinds(ev))
        assert kinds(ev)[-3:] == ["pairing", "paired", "result"]
        assert ev[-2]["words"] == "Laud 2: paaritud selle kohtunikuga"
        assert w.boxes()[0]["state"] == "synced" and w.boxes()[0]["offer"] is None
    conn = store.open_db(db)
    dev = store.device(conn, boxes.sim_device_id(image))
    conn.close()
    assert dev["name"] == "laud 2" and dev["fs_id"] == fs_id
    assert stored(db)[0] == ["%s-1" % fs_id]


def test_a_box_without_its_round_is_offered_the_assignment_and_given_it(tmp_path, watching):
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    t = judge_kit.stage(conn, ["Mets/Tamm", "Saar/Kask", "Õun/Pirn", "Kuusk/Vaher"], rounds=2)
    conn.close()
    image, fs_id, key = boxes.paired_box(tmp_path, "laud 2", db, count=0)
    w = watching(db)
    with Simulator(image) as sim:
        ev = until(w, lambda ev: "nothing" in kinds(ev))
        assert "assign-offer" not in kinds(ev)          # no round drawn yet: nothing to offer
        conn = store.open_db(db)
        draw.draw_next(conn, t, seed=5)                 # the judge draws round 1 while the box is plugged in
        row = conn.execute("SELECT a, b FROM draw WHERE tournament_id=? AND round_no=1 AND table_no=2",
                           (t["id"],)).fetchone()
        names = [conn.execute("SELECT name FROM entrants WHERE id=?", (i,)).fetchone()[0] for i in row]
        conn.close()
        ev = until(w, lambda ev: "assign-offer" in kinds(ev))
        offer = ev[-1]
        assert offer["words"] == "Laud 2: voor 1 on loositud (%s – %s), kastil seda veel pole: saata?" % tuple(names)
        assert offer["offer"] == {"kind": "assign", "tournament": t["code"], "round": 1, "table": 2, "room": 0,
                                  "sides": "%s – %s" % tuple(names)}
        assert w.boxes()[0]["offer"] == offer["offer"]
        w.assign(sim.tty)
        ev = until(w, lambda ev: "assigned" in kinds(ev))
        assert ev[-1]["words"] == "Laud 2: voor 1 saadetud kastile (%s – %s); OK kastil alustab" % tuple(names)
        assert w.boxes()[0]["offer"] is None
        n = w.last_event()
        w.sync(sim.tty)                                 # synced again: the box has its round, nothing offered
        ev = until(w, lambda ev: "nothing" in kinds(ev[n:]))
        assert "assign-offer" not in kinds(ev[n:])
        sim.press("OK")                                 # the box offers the assignment: one OK starts it
        with D.Box(sim.tty) as box:
            assert box.hello()["unsynced"] == 0
    conn = store.open_db(db)
    rows = conn.execute("SELECT round_no, table_no, device_id FROM assignments").fetchall()
    conn.close()
    assert [tuple(r) for r in rows] == [(1, 2, boxes.sim_device_id(image))]


def test_a_hung_box_holds_up_none_of_the_others(tmp_path, watching):
    """One place to sync in (workers=1), the hung box first in line: after its deadline the others
    take the place, long before the hung box's own timeouts end its thread."""
    db = str(tmp_path / "judge.db")
    images = [boxes.paired_box(tmp_path, "laud %d" % (i + 1), db, count=1, seed=i + 1) for i in range(3)]
    with boxes.one_hung(images, 0) as (sims, hung):    # its firmware hangs; its pty stays
        w = watching(db, workers=1, deadline=1.0, timeout=2.0)
        ev = until(w, lambda ev: kinds(ev).count("result") == 2)
        assert "hung" in kinds(ev, hung.tty) and "no-answer" not in kinds(ev, hung.tty)
        assert [e["words"] for e in ev if e["kind"] == "hung"] == [
            "Kast %s: pole 1 s jooksul lõpetanud; teised kastid jätkavad" % hung.tty]     # it never said who it is
        assert sorted(e["port"] for e in ev if e["kind"] == "result") == sorted(s.tty for s in sims[1:])
        os.kill(hung.proc.pid, signal.SIGCONT)
        w.sync(hung.tty)                                # once it answers, it is synced too
        until(w, lambda ev: "result" in kinds(ev, hung.tty))
    assert len(stored(db)[0]) == 3


def test_a_dead_thread_is_an_event(tmp_path, watching):
    """Whatever a box's thread or the scanner meets becomes a crash event in words, not a silent death."""
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()

    def discover():
        raise RuntimeError("the port list broke")
    w = Watcher(db, discover=discover)
    w.start()
    try:
        ev = until(w, lambda ev: "crash" in kinds(ev))
        assert ev[0]["words"] == "Jälgija viga (jälgija): RuntimeError: the port list broke" and ev[0]["alarm"]
    finally:
        assert w.stop() == []
    assert kinds(w.events()) == ["crash"]               # said once, not at every look


def test_nakk_sync_watch_prints_the_events(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud 5", db, count=1)
    # Ctrl-C as at the judge's terminal: a run started in the background of a shell (a CI script's
    # `&`) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "nakk_host.cli", "sync", "--watch", "--db", db, "--lang", "en"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    guard = threading.Timer(120, proc.kill)
    guard.start()
    lines = []
    t = [time.monotonic()]                              # when each phase ended: said if one stalls
    try:
        lines.append(proc.stdout.readline())
        assert lines[0].startswith("Watching the USB ports"), lines
        with Simulator(image):
            t.append(time.monotonic())
            while "received, verified" not in lines[-1]:
                lines.append(proc.stdout.readline())
                assert lines[-1], (lines, proc.stderr.read())
            t.append(time.monotonic())
        t.append(time.monotonic())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(30)
        t.append(time.monotonic())
    finally:
        guard.cancel()
    phases = "boot %.1f s, sync %.1f s, unplug %.1f s, Ctrl-C %.1f s" % tuple(b - a for a, b in zip(t, t[1:]))
    assert proc.returncode == 0, (phases, err)
    assert "Table 1: %d : %d received, verified" % tuple(boxes.final_score()) in lines[-1]
    assert stored(db)[0] == ["%s-1" % fs_id]


def test_a_registry_entry_is_never_seen_half_written(tmp_path, monkeypatch):
    """The watcher reads the registry five times a second while boxes appear: a reader that came while
    an entry was being written took it for a stale one and removed it (the box never appeared)."""
    from nakk_host import simulator as Sim
    real = Sim.json.dump
    seen = []

    def dump(obj, f):
        f.write('{"path": ')                            # half written, and a reader looks right then
        f.flush()
        seen.append(Sim.registered_simulators())
        f.seek(0)
        f.truncate()
        real(obj, f)
    monkeypatch.setattr(Sim.json, "dump", dump)
    image = str(tmp_path / "box.img")
    boxes.fill(image, 0)
    with Simulator(image) as sim:
        monkeypatch.setattr(Sim.json, "dump", real)
        assert seen and [e["path"] for e in Sim.registered_simulators()] == [sim.tty]


@pytest.mark.parametrize("lie", ["edited-bytes", "other-totals", "damaged"])
def test_alarms_in_words(tmp_path, watching, lie):
    """A box that lies (test_sync's fake box on a raw pty, holding the judge's key): a bad signature,
    totals the judge's recount does not give, a damaged match on its flash: each an alarm in words."""
    from test_sync import EvilBox as Lying, boxes_lines

    class EvilBox(Lying):
        def _answer(self, req):          # the watcher's first hello asks no proof (no nonce)
            return Lying._answer(self, dict(req, nonce=req.get("nonce", "-" * 8)))

    class DamagedBox(EvilBox):
        def _answer(self, req):
            out = EvilBox._answer(self, req)
            if req["cmd"] == "hello":
                out.update(damaged=1, damaged_matches=[4])
            return out

    db = str(tmp_path / "judge.db")
    key, fs_id, device = os.urandom(32), "00112233aabbccdd", "e6614103e7a2b3c4"
    conn = store.open_db(db)
    store.save_pairing(conn, device, fs_id, key, "laud 7")
    conn.close()
    raw = b"\n".join(boxes_lines(fs_id))
    want = boxes.final_score()
    if lie == "edited-bytes":
        i = raw.index(b'"winner":"A"')
        evil = EvilBox(key, fs_id, device, raw[:i] + b'"winner":"B"' + raw[i + 12:], signed=raw, final=want)
    elif lie == "other-totals":
        evil = EvilBox(key, fs_id, device, raw, final=[want[0] + 5, want[1]])
    else:
        evil = DamagedBox(key, fs_id, device, raw, final=want)
    try:
        w = watching(db, discover=lambda: [D.Port(evil.url)])
        ev = until(w, lambda ev: [b["state"] for b in w.boxes()] in (["synced"], ["failed"]))
    finally:
        evil.close()
    alarms = [e["words"] for e in ev if e["alarm"]]
    if lie == "edited-bytes":
        assert alarms == ["Laud 7: HÄIRE: tulemuse %s-1 allkiri ei klapi; seda ei salvestatud" % fs_id]
        assert stored(db)[0] == []
    elif lie == "other-totals":
        # the score the judge's rules give (what the standings count), the box's beside it
        assert alarms == ["Laud 1: %d : %d vastu võetud, AGA kohtuniku ülelugemine ei klapi kastiga: vaata üle "
                          "(kast näitas summasid [%d, %d], kohtuniku reeglid annavad [%d, %d])"
                          % (want[0], want[1], want[0] + 5, want[1], want[0], want[1])]
        assert [e["en"] for e in ev if e["alarm"]] == [
            "Table 1: %d : %d received, BUT the judge's recount does not agree with the box: check it "
            "(the box showed totals [%d, %d], the judge's rules give [%d, %d])"
            % (want[0], want[1], want[0] + 5, want[1], want[0], want[1])]
    else:
        assert alarms == ["Laud 7: HÄIRE: kastis on kahjustatud mäng (nr 4); selle järelejäänu on kastis alles"]
        assert "result" in kinds(ev)


def test_nakk_sync_watch_refusals(tmp_path, capsys):
    from nakk_host import cli
    db = str(tmp_path / "judge.db")
    assert cli.main(["sync", "--watch", "--db", db]) == 1
    assert capsys.readouterr().err.startswith("nakk: %s: no such database" % db) and not os.path.exists(db)
    store.open_db(db).close()
    assert cli.main(["sync", "--watch", "--json", "--db", db]) == 2
    assert capsys.readouterr().err == "nakk: --watch watches every port and prints words: not with --port or --json\n"
