"""On the emulated Pico: a whole match played with the buttons, paired (long OK on the box's question) and synced
with `nakk sync` over the real USB CDC stack (socket://).

The match is played on the Pico's buttons (every frame checked), `nakk pair` is confirmed by a long OK on
the Pico, `nakk sync` stores it verified (A 17, B 10), a second sync stores nothing, no watchdog reset.
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
    before = emu.frame()
    got = {}

    def pair():
        got["h"] = judge.pair_box(db, url, "pico", say=lambda s: None)
    t = threading.Thread(target=pair)
    t.start()
    t0 = emu.now_us()
    while emu.frame() == before:
        emu.wait_us(20000)
        assert emu.now_us() - t0 < 10000000, "the box never asked"
    emu.wait_us(GAP_US)
    emu.press("OK", 1000)
    while t.is_alive():
        emu.wait_us(20000)
    assert got["h"]["fs_id"] == h["fs_id"]
    assert emu.frame() == before
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
