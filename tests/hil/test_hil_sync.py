"""On the emulated Pico: a whole match played with the buttons, paired (PREV+NEXT held at the box's question)
and synced with `nakk sync` over the real USB CDC stack (socket://).

The match is played on the Pico's buttons (every frame checked), the players' long OK goes on to the start
screen, `nakk pair` is confirmed by PREV and NEXT held together on the Pico, `nakk sync` stores it verified
(A 17, B 10), a second sync stores nothing, no watchdog reset.
"""
import json
import os
import threading

from .playback import GAP_US, keys, play, reference, wait_frame_equal
from nakk_host import judge, store
from nakk_host import device as D
from nakk_host import sync as S

DTR_US = 1700000


def run_while(emu, f, limit_us=60000000):
    """Run f() in a thread while the emulator's time goes on; its result."""
    out = {}

    def go():
        try:
            out["r"] = f()
        except BaseException as e:
            out["e"] = e
    t = threading.Thread(target=go)
    t.start()
    t0 = emu.now_us()
    while t.is_alive():
        emu.wait_us(20000)
        assert emu.now_us() - t0 < limit_us, "no end in emulated time"
    if "e" in out:
        raise out["e"]
    return out["r"]


def settle(emu, quiet_us=300000, limit_us=10000000):
    """Wait until the box draws no new frame for quiet_us of emulated time (after a press)."""
    t0 = emu.now_us()
    n, since = emu.frame_count(), emu.now_us()
    while emu.now_us() - since < quiet_us:
        assert emu.now_us() - t0 < limit_us, "the screen never settled"
        emu.wait_us(20000)
        m = emu.frame_count()
        if m != n:
            n, since = m, emu.now_us()


def pair_at_box(emu, db, name="pico", judge_name="HIL judge"):
    """`nakk pair` over the emulated USB, confirmed at the box as a judge does it: PREV and NEXT held
    together for a second while it asks. Returns (pair_box's hello, the frame before the question)."""
    settle(emu)
    before = emu.frame()
    got = {}

    def pair():
        try:
            got["h"] = judge.pair_box(db, emu.serial_url, name, say=lambda s: None, judge_name=judge_name)
        except BaseException as e:
            got["e"] = e
    t = threading.Thread(target=pair)
    t.start()
    t0 = emu.now_us()
    while emu.frame() == before and t.is_alive():
        emu.wait_us(20000)
        assert emu.now_us() - t0 < 10000000, "the box never asked"
    emu.wait_us(GAP_US)
    emu.hold("PREV")
    emu.hold("NEXT")
    emu.wait_us(1000000)
    emu.release("PREV")
    emu.release("NEXT")
    while t.is_alive():
        emu.wait_us(20000)
    if "e" in got:
        raise got["e"]
    return got["h"], before


def test_play_pair_sync_on_the_pico(boot, fw_image, picoemu, tmp_path):
    ks = keys("saare-2020")
    frames = reference(ks, str(tmp_path / "sim.img"))
    emu = boot(image=fw_image)
    wait_frame_equal(emu, frames[0], 0, picoemu, "start screen")
    emu.wait_until_us(DTR_US)
    play(emu, ks, frames, picoemu)
    db = str(tmp_path / "judge.db")
    url = emu.serial_url
    def hello():
        with D.Box(url) as box:
            return box.hello()
    h = run_while(emu, hello)
    assert h["ready"] == 1 and h["paired"] is False and h["unsynced"] == 1
    emu.wait_us(GAP_US)
    emu.press("OK", 1000)                 # the finished match answered: the start screen (pairing is asked there)
    got, before = pair_at_box(emu, db)
    assert got["fs_id"] == h["fs_id"]
    settle(emu)
    assert emu.frame() == before          # the start screen is back
    rep = run_while(emu, lambda: S.sync([D.Port(url)], db)[0])
    assert rep.ok() and len(rep.new) == 1, json.dumps(rep.to_json())   # the whole report
    rep2 = run_while(emu, lambda: S.sync([D.Port(url)], db)[0])
    assert rep2.ok() and rep2.new == [] and rep2.left == 0
    conn = store.open_db(db)
    r = store.results(conn)
    conn.close()
    assert len(r) == 1 and r[0]["status"] == "verified" and r[0]["summary"]["final"] == [17, 10]
    assert emu.flash_stats()["wdt_triggers"] == 0
    print("HIL sync: device", h["device"], "fw", h["fw"], "free", h["free"])
