"""End to end: the real firmware in the simulator, its pty, pyserial, `nakk sync` and the judge's SQLite file.

Each result must reach the judge exactly once, whatever happens to the link,
the judge's process or the frames on the wire; nothing sent to a box may make
it drop a result the judge has not stored.
"""
import hashlib
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import boxes
from nakk.link import proto
from nakk.event import parse
from nakk.link.sign import hmac_sha256
from nakk_host import cli, store
from nakk_host import device as D
from nakk_host import sync as S
from nakk_host.simulator import Simulator, dump_events


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


def ready(url, timeout=3):
    with D.Box(url, timeout) as b:
        return b.list()[0]


def rows(db):
    conn = store.open_db(db)
    try:
        return store.results(conn), store.alarms(conn)
    finally:
        conn.close()


# ---------------------------------------------------------------- the plain path

def test_sync_stores_each_result_once_then_nothing_new(tmp_path, capsys):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "box1", db, count=3)
    with Simulator(image) as sim:                     # registered: nakk sync finds it
        assert cli.main(["sync", "--db", db, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["new"] == 3 and out["already"] == 0 and out["rejected"] == 0
        assert out["boxes"][0]["device"] == boxes.sim_device_id(image)
        assert ready(sim.tty) == []                    # acknowledged: the box dropped them
        assert cli.main(["sync", "--db", db]) == 0     # a second sync: nothing new, and it says so
        assert "Nothing new" in capsys.readouterr().out
    results, alarms = rows(db)
    assert sorted(r["result_id"] for r in results) == ["%s-%d" % (fs_id, n) for n in (1, 2, 3)]
    assert not alarms
    want = boxes.final_score()
    match_bytes = b"\n".join(b for _, b in boxes.finished_match(1))
    for r in results:
        assert r["status"] == "verified", r["problems"]
        assert r["summary"]["final"] == want and r["ruleset"] == "saare-2020" and r["table_no"] == 1
        ev = [parse(line) for line in r["events"].split(b"\n")]
        assert ev[0]["match"] == r["match_no"]         # the box's own number, in the stored bytes
        assert hashlib.sha256(r["events"]).hexdigest() == r["sha256"]
        assert len(r["events"]) == len(match_bytes) + len(b',"match":%d' % r["match_no"])
    assert cli.main(["results", "--db", db, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [x["totals"] for x in listed] == [want] * 3 and {x["status"] for x in listed} == {"verified"}


# ---------------------------------------------------------------- the link cut at every frame

class CutProxy:
    """socket://127.0.0.1:PORT in front of a box's pty that cuts the connection at host line `cut`:
    before forwarding it (odd phase: the request is lost) or just after (even: the answer is lost).
    After the cut it refuses every further connection (the port reopened once fails too)."""

    def __init__(self, tty, cut, answer_lost):
        self.tty = tty
        self.cut = cut
        self.answer_lost = answer_lost
        self.cut_done = False
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.url = "socket://127.0.0.1:%d" % self.srv.getsockname()[1]
        self.t = threading.Thread(target=self._serve, daemon=True)
        self.t.start()

    def _serve(self):
        try:
            conn, _ = self.srv.accept()
        except OSError:
            return
        fd = os.open(self.tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        lines = 0
        buf = b""
        try:
            while True:
                r, _, _ = select.select([conn, fd], [], [], 5)
                if not r:
                    return
                if fd in r:
                    try:
                        data = os.read(fd, 65536)
                    except BlockingIOError:
                        data = b""
                    if data:
                        conn.sendall(data)
                if conn in r:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                    while b"\n" in buf:
                        line, buf = buf.split(b"\n", 1)
                        if not line:              # the line break before each request: no frame
                            os.write(fd, b"\n")
                            continue
                        lines += 1
                        if lines == self.cut:
                            if self.answer_lost:
                                os.write(fd, line + b"\n")
                            self.cut_done = True
                            return
                        os.write(fd, line + b"\n")
        finally:
            conn.close()
            os.close(fd)
            self.srv.close()      # the port reopened once is refused too

    def close(self):
        try:
            self.srv.close()
        except OSError:
            pass


def test_link_cut_at_every_frame_leaves_each_result_stored_once(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "cut", db, count=3)
    with Simulator(image, register=False) as sim:
        cut = 1
        runs = 0
        while True:
            for answer_lost in (False, True):
                proxy = CutProxy(sim.tty, cut, answer_lost)
                rep = S.sync([D.Port(proxy.url)], db, timeout=1.0)[0]
                proxy.t.join(10)
                runs += 1
                if not proxy.cut_done:
                    break
                assert rep.error is not None, "a cut link was reported as synced"
                stored = [r["result_id"] for r in rows(db)[0]]
                assert len(stored) == len(set(stored))
            if not proxy.cut_done:
                break
            cut += 1
        assert rep.error is None and runs > 10, (runs, rep.to_json())
        # whatever the cuts left (stored but not acknowledged), a clean sync finishes
        S.sync([D.Port(sim.tty)], db, timeout=2.0)
        assert ready(sim.tty) == []
    results, alarms = rows(db)
    assert sorted(r["result_id"] for r in results) == ["%s-%d" % (fs_id, n) for n in (1, 2, 3)]
    assert all(r["status"] == "verified" for r in results) and not alarms


# ---------------------------------------------------------------- bad bytes on the wire

def _raw_lines(box, deadline_s=2.0, want=1):
    """Frames the box wrote (decoded), waiting until `want` have come."""
    out = []
    end = time.monotonic() + deadline_s
    while len(out) < want and box._read_lines(end):
        while box._lines:
            out.append(proto.decode_frame(box._lines.pop(0)))
    return out


def test_noise_bad_frames_control_bytes_and_replays_lose_nothing(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "noise", db, count=3)
    rng = random.Random(7)
    with Simulator(image, register=False) as sim, D.Box(sim.tty, timeout=2) as box:
        # random bytes, with newlines and Ctrl-C / Ctrl-D among them
        for _ in range(20):
            box.write(bytes(rng.randrange(256) for _ in range(1000)) + b"\x03\x04")
        box.write(b"\n")
        assert box.hello()["fs_id"] == fs_id
        _raw_lines(box, 0.3, want=10 ** 6)   # drop the box's answers to the noise
        good = proto.request(41, "list")
        # truncated, damaged, oversized: an error frame each, with id 0
        box.write(good[:20] + b"\n")
        box.write(good[:-3].replace(b"list", b"lost") + good[-3:])
        box.write(b"~N" + b"x" * (proto.MAX_LINE + 50) + b"\n")
        errs = _raw_lines(box, want=3)
        assert [e["error"] for e in errs] == ["damaged", "damaged", "too-long"], errs
        assert all(e["id"] == 0 and e["ok"] is False for e in errs)
        # a line that is no frame is ignored, and Ctrl-C, Ctrl-D; mpremote's raw-REPL request is refused
        # (a paired box: docs/security.md), with an error frame
        box.write(b">>> import os\r\n\x03\x03\x04\r\x03\r\x01\n")
        (e,) = _raw_lines(box, want=1)
        assert e["error"] == "bad-mac" and e["id"] == 0
        # a duplicated request is answered twice, the same
        box.write(good + good)
        a, b = _raw_lines(box, want=2)
        assert a == b and a["id"] == 41 and len(a["matches"]) == 3
        info = sim.info()
        assert sim.running() and info["serial_received"] > 20000
        # a forged ack (another key) and a replayed one (match 1's mac on match 2) drop nothing
        rid1, rid2 = "%s-1" % fs_id, "%s-2" % fs_id
        with open(image, "rb"):
            pass
        sha1 = hashlib.sha256(box.get(1)["raw"]).hexdigest()
        sha2 = hashlib.sha256(box.get(2)["raw"]).hexdigest()
        with pytest.raises(D.Refused) as e:
            box.ack(1, rid1, sha1, b"k" * 32)
        assert e.value.code == "bad-mac"
        forged = {"n": 2, "rid": rid2, "sha256": sha2, "mac": hmac_sha256(key, proto.ack_msg(rid1, sha1)).hex()}
        with pytest.raises(D.Refused) as e:
            box.request("ack", forged)
        assert e.value.code == "bad-mac"
        assert len(box.list()[0]) == 3
    # then the judge syncs: everything once
    with Simulator(image, register=False) as sim:
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert len(rep.new) == 3 and rep.ok()
        # a replayed (genuine) ack of a result already dropped changes nothing more
        with D.Box(sim.tty) as box:
            assert box.ack(1, rid1, sha1, key) is False
    assert len(rows(db)[0]) == 3


# ---------------------------------------------------------------- who may sync

def test_unknown_box_and_forged_ack_keep_the_results_on_the_box(tmp_path):
    db = str(tmp_path / "judge.db")
    image = str(tmp_path / "stranger.img")
    boxes.fill(image, 2, key=os.urandom(32))          # paired with some other laptop
    with Simulator(image, register=False) as sim:
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert rep.error and "unknown box" in rep.error and not rep.new
        assert len(ready(sim.tty)) == 2
    assert rows(db)[0] == []


def test_box_paired_with_another_key_is_an_alarm(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "rekeyed", db, count=1)
    conn = store.open_db(db)
    store.save_pairing(conn, boxes.sim_device_id(image), fs_id, os.urandom(32))   # the judge's key differs
    conn.close()
    with Simulator(image, register=False) as sim:
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert "did not prove" in rep.error and rep.alarms == 1
        assert len(ready(sim.tty)) == 1
    results, alarms = rows(db)
    assert results == [] and len(alarms) == 1


class EvilBox:
    """A box that lies, on a raw pty: it knows the judge's key (whoever holds a box can read it) or not."""

    def __init__(self, key, fs_id, device, raw, signed=None, final=None, rid=None):
        self.key, self.fs_id, self.device, self.raw = key, fs_id, device, raw
        self.signed = signed or raw     # the bytes its signature covers
        self.final = final
        self.rid = rid or "%s-1" % fs_id
        self.acks = 0
        import tty
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.url = os.ttyname(self.slave)
        self.stop = False
        self.t = threading.Thread(target=self._serve, daemon=True)
        self.t.start()

    def _answer(self, req):
        cmd = req["cmd"]
        sha = hashlib.sha256(self.raw).hexdigest()
        if cmd == "hello":
            return {"device": self.device, "fs_id": self.fs_id, "proto": proto.VERSION, "paired": True,
                    "mac": hmac_sha256(self.key, proto.hello_msg(req["nonce"], self.device, self.fs_id)).hex()}
        if cmd == "list":
            return {"matches": [] if self.acks else [[1, self.rid]], "more": False}
        if cmd == "get":
            data = self.raw[req["off"]:req["off"] + proto.CHUNK]
            out = {"n": 1, "rid": self.rid, "off": req["off"], "size": len(self.raw), "sha256": sha,
                   "data": data.decode(), "end": req["off"] + len(data) >= len(self.raw)}
            if req["off"] == 0:
                signed_sha = hashlib.sha256(self.signed).hexdigest()
                out["sig"] = hmac_sha256(self.key, proto.result_msg(self.rid, signed_sha)).hex()
                out["final"] = self.final
            return out
        if cmd == "ack":
            self.acks += 1
            return {"n": 1, "acked": True}
        return None

    def _serve(self):
        buf = b""
        while not self.stop:
            r, _, _ = select.select([self.master], [], [], 0.2)
            if not r:
                continue
            buf += os.read(self.master, 65536)
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not proto.is_frame(line):
                    continue                # not a frame (the judge ends any partial line first)
                req = proto.decode_frame(line)
                ans = self._answer(req)
                if ans is not None:
                    os.write(self.master, proto.reply(req["id"], ans))

    def close(self):
        self.stop = True
        self.t.join(2)
        os.close(self.master)
        os.close(self.slave)


def boxes_lines(fs_id):
    out = []
    for _, b in boxes.finished_match(1):
        ev = parse(b)
        if ev["type"] == "setup":
            ev["match"] = 1
        from nakk.event import encode
        out.append(encode(ev))
    return out


@pytest.mark.parametrize("lie", ["edited-bytes", "other-totals", "foreign-id"])
def test_lying_box(tmp_path, lie):
    db = str(tmp_path / "judge.db")
    key = os.urandom(32)
    fs_id, device = "00112233aabbccdd", "e6614103e7a2b3c4"
    conn = store.open_db(db)
    store.save_pairing(conn, device, fs_id, key)
    conn.close()
    raw = b"\n".join(boxes_lines(fs_id))
    want = boxes.final_score()
    if lie == "edited-bytes":     # a deal's winner changed after signing, the signature kept
        i = raw.index(b'"winner":"A"')
        evil = EvilBox(key, fs_id, device, raw[:i] + b'"winner":"B"' + raw[i + 12:], signed=raw, final=want)
    elif lie == "other-totals":   # signed (the key is on the box), but the box showed other totals
        evil = EvilBox(key, fs_id, device, raw, final=[want[0] + 5, want[1]])
    else:                         # a genuine-looking result under another box's id
        evil = EvilBox(key, fs_id, device, raw, final=want, rid="ffffffffffffffff-1")
    try:
        rep = S.sync([D.Port(evil.url)], db)[0]
    finally:
        evil.close()
    results, alarms = rows(db)
    if lie == "other-totals":
        assert [r["status"] for r in results] == ["flagged"] and evil.acks == 1
        assert "the box showed totals" in results[0]["problems"][0]
        assert rep.flagged == ["%s-1" % fs_id]
    else:
        assert results == [] and evil.acks == 0 and len(alarms) == 1
        assert ("bad signature" if lie == "edited-bytes" else "is not this box's") in rep.rejected[0][1]


# ---------------------------------------------------------------- the judge's process killed

def _nakk(args, env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "nakk_host.cli"] + args, capture_output=True, text=True,
                          env=env, timeout=60)


def test_judge_killed_before_and_after_its_commit(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "kill", db, count=1)
    with Simulator(image, register=False) as sim:
        args = ["sync", "--db", db, "--port", sim.tty, "--json"]
        r = _nakk(args, {"NAKK_CRASH_AT": "before-commit"})
        assert r.returncode == -signal.SIGKILL, r.stderr
        assert rows(db)[0] == [] and len(ready(sim.tty)) == 1     # nothing stored, the box keeps it
        r = _nakk(args, {"NAKK_CRASH_AT": "after-commit"})
        assert r.returncode == -signal.SIGKILL, r.stderr
        assert len(rows(db)[0]) == 1 and len(ready(sim.tty)) == 1  # stored, not yet acknowledged
        r = _nakk(args)
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out["new"] == 0 and out["already"] == 1             # found stored, acknowledged now
        assert ready(sim.tty) == []
    results, alarms = rows(db)
    assert [x["result_id"] for x in results] == ["%s-1" % fs_id] and not alarms


# ---------------------------------------------------------------- many boxes, one hung

def test_three_boxes_in_one_run_one_hung(tmp_path, capsys):
    db = str(tmp_path / "judge.db")
    images = [boxes.paired_box(tmp_path, "hall%d" % i, db, count=2, seed=i + 1) for i in range(3)]
    with boxes.one_hung(images, 1) as (sims, hung):   # the box's firmware hangs: its pty stays open
        t0 = time.monotonic()
        status = cli.main(["sync", "--db", db, "--timeout", "1", "--json"])
        took = time.monotonic() - t0
        out = json.loads(capsys.readouterr().out)
        assert status == 1 and out["new"] == 4 and out["failed"] == 1
        by_dev = {b["device"] or b["port"]: b for b in out["boxes"]}
        assert by_dev[hung.tty]["error"] and "does not answer" in by_dev[hung.tty]["error"]
        assert took < 8, took      # the hung box cost its timeouts, not the others' time
        os.kill(hung.proc.pid, signal.SIGCONT)
        assert cli.main(["sync", "--db", db, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["new"] == 2
    assert len(rows(db)[0]) == 6


# ---------------------------------------------------------------- the command line

def test_no_box_and_no_database_are_plain_errors(tmp_path, capsys):
    assert cli.main(["sync", "--db", str(tmp_path / "j.db")]) == 1
    assert "no such database" in capsys.readouterr().err and not (tmp_path / "j.db").exists()
    store.open_db(str(tmp_path / "j.db")).close()
    assert cli.main(["sync", "--db", str(tmp_path / "j.db")]) == 1
    assert "no box found" in capsys.readouterr().err
    assert cli.main(["results", "--db", str(tmp_path / "none.db")]) == 1
    assert "no such database" in capsys.readouterr().err
    bad = tmp_path / "notes.txt"
    bad.write_text("my notes")
    assert cli.main(["sync", "--db", str(bad), "--port", "loop://"]) == 1
    assert "not a Nakk database" in capsys.readouterr().err
    assert bad.read_text() == "my notes"


def test_a_full_box_syncs_whole(tmp_path):
    """A box with 100 finished matches boots under the simulator's heap cap (the journal's boot scan
    once scattered a list per match through its garbage, and the next import found no 1.3 KB in one
    piece) and hands every one over."""
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "full", db, count=100)
    with Simulator(image, register=False) as sim:
        rep = S.sync([D.Port(sim.tty)], db)[0]
        assert rep.ok() and len(rep.new) == 100 and rep.left == 0, rep.to_json()
    assert len(rows(db)[0]) == 100


def _up_box(fb):
    """Columns of the header's bottom pixel row (the glyphs leave it blank) lit from x=56 on: the
    inverse "↑n" box (0 when none)."""
    w = 0
    while 56 + w < 128 and fb[56 + w] & 0x80:
        w += 1
    return w


def test_a_box_with_a_full_flash_boots_plays_and_syncs_whole(tmp_path):
    """A flash full of unsynced matches (written until the journal's reserve, the last one still in
    play) boots to that match, shows every waiting result (↑ with three digits), takes a deal, hands
    every finished match to the judge, and takes a deal after that too."""
    db = str(tmp_path / "judge.db")
    image = str(tmp_path / "whole.img")
    key = os.urandom(32)
    fs_id, numbers = boxes.fill(image, "full", key, open_last=True)
    finished = len(numbers) - 1
    assert finished >= 100
    conn = store.open_db(db)
    try:
        store.save_pairing(conn, boxes.sim_device_id(image), fs_id, key, "whole")
    finally:
        conn.close()
    with Simulator(image, register=False) as sim:
        with D.Box(sim.tty, timeout=5) as box:
            h = box.hello()
            assert h["unsynced"] == finished and h["ready"] == finished and not h.get("damaged"), h
        assert _up_box(sim.framebuffer()) > 16          # "↑158": wider than the box of one digit
        sim.press("A")                                  # a deal in the match left in play (made and won by A)
        rep = S.sync([D.Port(sim.tty)], db)[0]
        if not rep.ok():
            print("\n".join(sim.console[-80:]))
        assert rep.ok() and len(rep.new) == finished and rep.left == 0, str({k: v for k, v in rep.to_json().items() if k != "new"})
        with D.Box(sim.tty, timeout=5) as box:
            assert box.hello()["unsynced"] == 0
        deadline = time.monotonic() + 5
        while _up_box(sim.framebuffer()):               # the ↑ goes once the table hears of the acks
            assert time.monotonic() < deadline, "the screen still shows results waiting"
            time.sleep(0.02)
        sim.press("A")                                  # and the next deal after the sync
        assert not any("MemoryError" in c or "Traceback" in c for c in sim.console), sim.console
    assert len(rows(db)[0]) == finished
    played = [fin for fin, _ in boxes.finished_match()].index(True)    # events of the match left in play
    events = [json.loads(x) for x in dump_events(image, numbers[-1])]
    assert len(events) == played + 2 and [e["type"] for e in events[-2:]] == ["deal", "deal"], events[-3:]


def test_random_sound_frames_change_nothing(tmp_path):
    """Frames with a good CRC but random commands and fields: every one is answered (an error or a
    harmless answer), the box keeps running, and its finished results are intact."""
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "fuzz", db, count=2)
    rng = random.Random(2026)
    values = [0, 1, -1, 2, 3, 2 ** 29, 2 ** 40, "", "x", "1", "%s-1" % fs_id, "00" * 32, True, None, [], [1, "a"],
              {"a": 1}, "\u00e4" * 50, "A", "saare-2020"]
    fields = ["n", "off", "rid", "sha256", "mac", "nonce", "key", "ruleset", "sides", "table", "round", "clock",
              "settings", "judge", "x"]
    with Simulator(image, register=False) as sim, D.Box(sim.tty, timeout=3) as box:
        before = [box.get(n)["sha256"] for n in (1, 2)]
        for i in range(300):
            cmd = rng.choice(list(proto.COMMANDS) + ["", "ack ", "HELLO", "get\u00e4"])
            if cmd in ("pair", "repl"):
                continue                        # pairing waits for the players; covered elsewhere
            req = {k: rng.choice(values) for k in rng.sample(fields, rng.randrange(0, 6))}
            try:
                box.request(cmd, req, retry=False)
            except D.Refused as e:
                assert e.code in proto.ERRORS
        assert sim.running() and box.hello()["ready"] == 2
        assert [box.get(n)["sha256"] for n in (1, 2)] == before
