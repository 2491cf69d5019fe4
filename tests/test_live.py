"""Live scores over the hall's network (docs/live.md): the box's network task on the unix port against the
judge's real live server over loopback, through a relay that drops, delays, duplicates and cuts frames."""
import asyncio
import os
import secrets
import socket
import threading
import time

import pytest

import boxes
from nakk.link import proto
from nakk.event import parse
from nakk.match import Match
from nakk.link.sign import hmac_sha256
from nakk_host import cli, live, livestore, store
from nakk_host.simulator import Simulator, dump_events, parse_keys, play
from tcprelay import TcpRelay

# The unix port keeps the firmware's code in its heap, nakk.link.net's too (~10 KB more than a box without a
# network); the Pico W runs it frozen in flash with 136 KB free after boot (docs/live.md): a box with a
# network runs here on a heap that much larger than the simulator's default 352K, which it fragments
# past a press's 1.2 KB block over a match of reconnections (seen: a MemoryError in a press).
LIVE_HEAP = "448K"

# a Saare mäng match played through the buttons: OK x4 starts it, then deals by side buttons
DEALS = "OK OK OK OK  A B A B A  B"
MORE = "A PREV A  B A"


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


@pytest.fixture
def server(tmp_path):
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    srv, where = live.serve_in_thread(db, "127.0.0.1", 0, log=lambda s: None)
    yield db, srv, where
    srv.stop()


def wait_for(pred, what, timeout=60):
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out waiting for " + what
        time.sleep(0.05)


def one_result(tmp_path, db, name):
    """A box paired with the judge of db, holding one finished match, and what its live link would
    send first: (key, device, fs_id, result id, the match's first event's bytes)."""
    image, fs_id, key = boxes.paired_box(tmp_path, name, db, count=1)
    return key, boxes.sim_device_id(image), fs_id, "%s-1" % fs_id, dump_events(image, 1)[0]


def live_rows(db):
    conn = store.open_db(db, create=False)
    try:
        return [(r[0], r[1], bytes(r[2])) for r in
                conn.execute("SELECT result_id, seq, event FROM live_events ORDER BY rowid")]
    finally:
        conn.close()


def test_every_entry_arrives_once_in_order_through_a_faulty_network(server, tmp_path):
    db, srv, where = server
    host, port = where.rsplit(":", 1)
    relay = TcpRelay((host, int(port)), seed=7,
                     drop=0.05, dup=0.05, delay=0.05, cut=0.03, delay_ms=200)
    try:
        image, fs_id, key = boxes.paired_box(tmp_path, "laud1", db, count=2, live=relay.address)
        with Simulator(image, register=False, heap=LIVE_HEAP) as sim:
            sim.press("OK", long=True)            # the finished matches answered: the start screen
            play(sim, parse_keys(DEALS))
            relay.down()                          # the Wi-Fi goes: the players play on
            play(sim, parse_keys(MORE))
            relay.up()
            mine = {}
            for n in (1, 2, 3):
                mine["%s-%d" % (fs_id, n)] = dump_events(image, n)
            total = sum(len(v) for v in mine.values())
            wait_for(lambda: srv.stored >= total, "every event stored (%d of %d; relay %r)"
                     % (srv.stored, total, relay.counts), timeout=120)
            rows = live_rows(db)
    finally:
        relay.close()
    # every event of every match on flash, once, in order: the rows are stored in seq order per match
    got = {}
    for rid, seq, ev in rows:
        got.setdefault(rid, []).append(ev)
        assert seq == len(got[rid])
    assert got == {rid: [bytes(e) for e in evs] for rid, evs in mine.items()}
    # the matches went oldest first: match 1's last event before match 3's first
    order = [rid for rid, _, _ in rows]
    assert order.index("%s-1" % fs_id) < order.index("%s-3" % fs_id)
    # the faults were there, and sent again without storing twice
    c = relay.counts
    assert c["dropped"] and c["duplicated"] and c["delayed"] and c["connections"] >= 2, c
    assert srv.again > 0 and srv.stored == total
    # the live score is the box's score
    m = Match()
    for e in mine["%s-3" % fs_id]:
        m.apply(parse(e))
    conn = store.open_db(db, create=False)
    t = [x for x in livestore.tables(conn) if x["result_id"] == "%s-3" % fs_id][0]
    conn.close()
    assert t["score"] == m.summary()["score"] and t["deals"] == m.summary()["deals"] > 0
    assert t["current"] and not t["synced"]


class _Conn:
    def __init__(self, where):
        host, port = where.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=10)
        self.f = self.s.makefile("rb")

    def ask(self, frame):
        self.s.sendall(frame)
        return proto.decode_frame(self.f.readline())

    def close(self):
        self.f.close()
        self.s.close()


def test_forged_replayed_and_unknown_frames_are_refused_and_counted(server, tmp_path):
    db, srv, where = server
    key, dev, fs_id, rid, ev = one_result(tmp_path, db, "laud2")

    def event(c, fid, k, challenge):
        mac = hmac_sha256(k, proto.live_msg(challenge, fid, dev, rid, 1, ev))
        return c.ask(proto.request(fid, "event", {"rid": rid, "seq": 1, "ev": ev.decode(), "mac": mac.hex()}))

    c = _Conn(where)
    h = c.ask(proto.request(1, "hello", {"device": dev, "fs_id": fs_id, "nonce": "abcdefgh12"}))
    assert h["ok"] and bytes.fromhex(h["mac"]) == hmac_sha256(
        key, proto.live_hello_msg("abcdefgh12", h["challenge"], dev, fs_id))   # the box knows its judge
    r = event(c, 2, secrets.token_bytes(32), h["challenge"])                   # another key: forged
    assert r["ok"] is False and r["error"] == proto.E_BAD_MAC
    good = proto.request(3, "event", {"rid": rid, "seq": 1, "ev": ev.decode(),
                                      "mac": hmac_sha256(key, proto.live_msg(h["challenge"], 3, dev, rid, 1, ev)).hex()})
    r = c.ask(good)
    assert r["ok"] and r["next"] == 2
    r = c.ask(good)                                                            # replayed on the connection
    assert r["ok"] is False and r["error"] == proto.E_BAD_MAC
    c.close()
    c = _Conn(where)
    c.ask(proto.request(1, "hello", {"device": dev, "fs_id": fs_id, "nonce": "abcdefgh13"}))
    r = c.ask(good)                                                            # replayed on another connection
    assert r["ok"] is False and r["error"] == proto.E_BAD_MAC
    r = c.ask(proto.request(4, "hello", {"device": "sim-000000000000", "fs_id": fs_id, "nonce": "abcdefgh14"}))
    assert r["ok"] is False and r["error"] == proto.E_NOT_PAIRED              # a box this judge never paired
    c.close()
    assert live_rows(db) == [(rid, 1, bytes(ev))]                              # stored once
    conn = store.open_db(db, create=False)
    counts = livestore.refused(conn)
    conn.close()
    assert counts[(dev, "forged")] == 2 and counts[(dev, "replayed")] == 1 and counts[(dev, "unknown-box")] == 1
    assert srv.refused == 4


def test_a_laptop_that_is_not_the_judge_gets_nothing(tmp_path):
    """The box sends to the address its judge gave, and only once the server proved it holds the key."""
    db = str(tmp_path / "judge.db")
    store.open_db(db).close()
    got = []
    ready = threading.Event()
    loop = asyncio.new_event_loop()

    async def impostor(reader, writer):
        while True:
            line = await reader.readline()
            if not line:
                break
            obj = proto.decode_frame(line)
            got.append(obj["cmd"])
            writer.write(proto.reply(obj["id"], {"challenge": "0" * 16, "mac": "00" * 32, "next": 99}))

    def run():
        srv = loop.run_until_complete(asyncio.start_server(impostor, "127.0.0.1", 0))
        box_port.append(srv.sockets[0].getsockname()[1])
        ready.set()
        loop.run_forever()
        srv.close()

    box_port = []
    t = threading.Thread(target=run, daemon=True)
    t.start()
    ready.wait(10)
    image, fs_id, key = boxes.paired_box(tmp_path, "laud3", db, count=1, live="127.0.0.1:%d" % box_port[0])
    with Simulator(image, register=False, heap=LIVE_HEAP) as sim:
        wait_for(lambda: len(got) >= 2, "the box to try twice", timeout=30)
        play(sim, parse_keys("OK"))
    assert got and set(got) == {"hello"}          # a hello, again later; never an event
    loop.call_soon_threadsafe(loop.stop)


def test_pairing_gives_the_network_and_never_shows_the_password(server, tmp_path, capsys):
    db, srv, where = server
    image = str(tmp_path / "laud4.img")
    boxes.fill(image, 0)
    pw = "Salajane-Õhtu-42"
    with Simulator(image, register=False, heap=LIVE_HEAP) as sim:
        t = threading.Thread(target=lambda: cli.main(["pair", "--db", db, "--port", sim.tty, "--name", "laud 4",
                                                      "--wifi", "Saal", "--password", pw, "--live", where]))
        before = sim.sent
        t.start()
        wait_for(lambda: sim.sent > before, "the pairing question")
        sim.press("PREV+NEXT", long=True)
        t.join(30)
        out = capsys.readouterr()
        assert "Paired box" in out.out and pw not in out.out + out.err and "Saal" in out.out
        play(sim, parse_keys("OK OK OK OK A B"))
        n = len(dump_events(image, 1))
        wait_for(lambda: srv.stored >= n, "the paired box's events, live")
        assert cli.main(["doctor", "--db", db, "--port", sim.tty]) in (0, 1)
        out = capsys.readouterr()
        assert pw not in out.out + out.err
        console = "\n".join(sim.console)
    assert pw not in console
    conn = store.open_db(db, create=False)
    dev = boxes.sim_device_id(image)
    assert livestore.wifi_of(conn, dev) == {"ssid": "Saal", "password": pw, "live": where}
    hello = conn.execute("SELECT last_hello FROM devices WHERE device_id=?", (dev,)).fetchone()[0] or ""
    conn.close()
    assert pw not in hello and "Saal" not in hello


def test_pair_refuses_half_a_network(tmp_path, capsys):
    db = str(tmp_path / "judge.db")
    assert cli.main(["pair", "--db", db, "--port", "/dev/null", "--wifi", "Saal", "--password", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nakk: ") and "--live" in err and not os.path.exists(db)


def test_a_hello_the_network_duplicated_keeps_the_session(server, tmp_path):
    db, srv, where = server
    key, dev, fs_id, rid, ev = one_result(tmp_path, db, "laud5")
    c = _Conn(where)
    hello = proto.request(1, "hello", {"device": dev, "fs_id": fs_id, "nonce": "abcdefgh15"})
    h1 = c.ask(hello)
    h2 = c.ask(hello)
    assert h1 == h2 and h1["ok"]
    mac = hmac_sha256(key, proto.live_msg(h1["challenge"], 2, dev, rid, 1, ev))
    r = c.ask(proto.request(2, "event", {"rid": rid, "seq": 1, "ev": ev.decode(), "mac": mac.hex()}))
    c.close()
    assert r["ok"] and r["next"] == 2 and srv.refused == 0
