"""`nakk flash --uf2` on the emulated Pico: a full box updated from one UF2 to the next keeps and syncs every result,
and a box that nakk flash once filled with .mpy goes to its bootloader with those files gone and its journal kept.

The emulated Pico has no BOOTSEL drive and does not reset: machine.bootloader() shows as the watchdog reset it
is (logged by the emulator, not done), the drive is a folder holding INFO_UF2.TXT as the RP2040's bootrom
writes it, and the Pico writing the copied UF2 to flash and rebooting is the emulator started again with that
file on the same saved flash image. The two UF2s are nakk build's: firmware/ (v1) and a copy of it with
another version (v2). Without the toolchain or the MicroPython archives: "UF2 NOT RUN".
"""
import json
import os
import secrets

import pytest

import boxes
import uf2kit
from nakk_host import store, uf2flash
from nakk_host import device as D
from nakk_host import sync as S
from .conftest import OLED_SPI, PINS, RINGS
from .playback import wait_reset
from .test_hil_sync import run_while

FULL = 100           # finished, unsynced matches on the full box (test_hil_full_box.py's)
DTR_US = 1700000
INFO_UF2 = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"   # the RP2040 bootrom's


@pytest.fixture(scope="session")
def fw_kind():
    return "uf2"


@pytest.fixture(scope="module")
def uf2_v2(shipped_uf2, tmp_path_factory):
    """The next UF2: firmware/ with another version, built after the shipped one (only the frozen part again)."""
    fw = uf2kit.firmware_copy(str(tmp_path_factory.mktemp("fw-v2") / "firmware"), shipped_uf2.version + "-next")
    return uf2kit.built(str(tmp_path_factory.mktemp("uf2-v2")), fw=fw)


def _drive(tmp_path, monkeypatch):
    d = tmp_path / "media" / "RPI-RP2"
    d.mkdir(parents=True)
    (d / "INFO_UF2.TXT").write_text(INFO_UF2)
    monkeypatch.setenv("NAKK_UF2_DRIVES", str(tmp_path / "media"))
    return str(d)


def _start(picoemu, firmware, image, **kw):
    emu = picoemu.PicoEmu(firmware=firmware, image=image, pins=PINS, oled_spi=OLED_SPI, rings=RINGS, **kw)
    emu.start()
    return emu


def _hello(emu):
    emu.wait_until_us(max(DTR_US, emu.now_us()))

    def ask():
        with D.Box(emu.serial_url, timeout=30) as b:
            return b.hello()
    return run_while(emu, ask)


def _files(image):
    """Every path on a LittleFS image of the Pico's geometry (folders end in /)."""
    from littlefs import LittleFS
    with open(image, "rb") as f:
        data = f.read()
    fs = LittleFS(block_size=4096, block_count=len(data) // 4096, mount=False)
    fs.context.buffer = bytearray(data)
    fs.mount()
    out = []
    for root, dirs, files in fs.walk("/"):
        out += [(root.rstrip("/") + "/" + f) for f in files + [d + "/" for d in dirs]]
    return sorted(out)


def test_a_full_box_updated_from_uf2_v1_to_v2_keeps_and_syncs_every_result(picoemu, shipped_uf2, uf2_v2, tmp_path,
                                                                          monkeypatch):
    v1, v2 = uf2flash.read_uf2(shipped_uf2.path), uf2flash.read_uf2(uf2_v2.path)
    assert (v1.version, v2.version) == (shipped_uf2.version, shipped_uf2.version + "-next") and v1.build != v2.build
    img = str(tmp_path / "box.img")
    key = secrets.token_bytes(32)
    fs_id, numbers = boxes.fill(img, FULL, key)
    assert len(numbers) == FULL
    saved = str(tmp_path / "after-v1.img")
    emu = _start(picoemu, v1.path, img, save_fs=saved)
    try:
        h1 = _hello(emu)
    finally:
        emu.stop()
    assert (h1["fw"], h1["build"], h1["fs_id"], h1["unsynced"]) == (v1.version, v1.build, fs_id, FULL), h1
    assert uf2flash.refusal(v2, h1) is None
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    store.save_pairing(conn, h1["device"], fs_id, key, "pico")
    conn.close()

    # the box in its bootloader: the drive appears, nakk flash copies the UF2 onto it
    drive = _drive(tmp_path, monkeypatch)
    assert uf2flash.wait_drive(0) == drive
    dst = uf2flash.copy_to_drive(v2, drive)
    with open(dst, "rb") as a, open(v2.path, "rb") as b:
        assert a.read() == b.read()

    # the Pico writes it to flash and reboots into it: v2 on the same flash image
    emu = _start(picoemu, dst, saved)
    try:
        f = emu.wait_frame(0)
        emu.wait_frame(f["frame"], timeout_s=120)             # the app's first screen
        emu.wait_until_us(DTR_US)
        h2 = run_while(emu, lambda: uf2flash.verify(emu.serial_url, v2, 60))
        assert (h2["fw"], h2["build"], h2["fs_id"], h2["unsynced"]) == (v2.version, v2.build, fs_id, FULL), h2
        # the answer deadline of an emulator at 0.25-0.4x a Pico's speed on a busy host, not a Pico's 3 s
        rep = run_while(emu, lambda: S.sync([D.Port(emu.serial_url)], db, timeout=10)[0], limit_us=600000000)
        assert emu.flash_stats()["wdt_triggers"] == 0
    finally:
        emu.stop()
    assert rep.ok() and len(rep.new) == FULL, json.dumps(rep.to_json())
    conn = store.open_db(db)
    got = store.results(conn)
    conn.close()
    assert len(got) == FULL and all(r["status"] == "verified" for r in got)


def test_an_mpy_box_goes_to_its_bootloader_with_its_files_gone_and_its_journal_kept(picoemu, mpy_image,
                                                                                   shipped_uf2, tmp_path):
    """A box nakk flash filled with .mpy (stock MicroPython), holding results, in maintenance mode: nakk flash
    --uf2's step removes the files of that flash (they would shadow the UF2's frozen modules), keeps the journal,
    and calls machine.bootloader(), the watchdog reset into the USB bootloader. Then the UF2 on that flash runs
    its own frozen firmware with every result there."""
    import shutil
    img = str(tmp_path / "mpy-box.img")
    shutil.copyfile(mpy_image, img)
    fs_id, numbers = boxes.fill(img, 3)
    before = _files(img)
    assert "/nakk/app.mpy" in before and "/main.py" in before and "/nakk-manifest.json" in before
    journal = [p for p in before if p.startswith("/journal")]
    assert journal
    saved = str(tmp_path / "to-bootloader.img")
    emu = _start(picoemu, None, img, save_fs=saved, hold=(PINS["OK"],))
    try:
        emu.wait_until_us(DTR_US)
        emu.release(PINS["OK"])
        said = []
        t = emu.now_us()
        uf2flash.to_bootloader(emu.serial_url, said.append)
        wait_reset(emu, t, emu.now_us() - t + 3000000, "the reset into the bootloader")
    finally:
        emu.stop()
    assert any("removed the" in s for s in said), said
    after = _files(saved)
    assert [p for p in after if not p.startswith("/journal")] == [], after   # no empty /nakk/ either
    assert [p for p in after if p.startswith("/journal")] == journal
    emu = _start(picoemu, shipped_uf2.path, saved)
    try:
        h = _hello(emu)
    finally:
        emu.stop()
    assert (h["fw"], h["build"], h["fs_id"], h["unsynced"]) == (shipped_uf2.version, shipped_uf2.build, fs_id, 3), h
