"""`nakk flash --port socket://...` onto the emulated Pico: a fresh box, a rerun, an interrupted flash,
results waiting for the judge, and a box whose app is running.

The emulator has no network, so mip's download is replaced by the cache: the
hil_cache fixture seeds ~/.cache/nakk's stand-in with the kit's copy of
micropython-lib's ssd1306 driver (SSD1306_PY), as `nakk flash` would have
cached it from micropython.org.
"""
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from .playback import GAP_US, keys, play, reference, wait_frame_equal
from .test_hil_sync import pair_at_box, run_while, settle
from nakk_host.simulator import dump_events

NAKK = os.path.join(os.path.dirname(sys.executable), "nakk")
MPREMOTE = os.path.join(os.path.dirname(sys.executable), "mpremote")
DTR_US = 1700000
ASSIGNMENT = {"tournament": "hil-2026", "table": 3, "round": 2, "ruleset": "saare-2020",
              "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]}


def nakk_flash(emu, cache, *args, restart_s=None, timeout=180):
    env = dict(os.environ, NAKK_CACHE=cache)
    if restart_s is not None:
        env["NAKK_FLASH_RESTART_S"] = str(restart_s)
    return subprocess.run([NAKK, "flash", "--port", emu.serial_url, *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


@pytest.fixture(scope="session")
def fw_kind():
    """nakk flash's .mpy path is about stock MicroPython: these run on it only (the UF2's own install:
    test_hil_uf2.py)."""
    return "mpy"


@pytest.fixture(scope="module")
def ref(tmp_path_factory, picoemu):
    ks = keys("saare-2020")
    return ks, reference(ks, str(tmp_path_factory.mktemp("sim") / "sim.img"))


def _pair_and_sync(emu, db):
    """The players' long OK (the start screen), `nakk pair` (PREV and NEXT held at the box) and `nakk sync`
    over the emulated USB: the report."""
    from nakk_host import device as D
    from nakk_host import sync as S
    emu.wait_us(GAP_US)
    emu.press("OK", 1000)
    pair_at_box(emu, db)
    return run_while(emu, lambda: S.sync([D.Port(emu.serial_url)], db)[0])


def _key(db, emu):
    from nakk_host import store
    conn = store.open_db(db)
    try:
        return bytes(store.devices(conn)[0]["key"])
    finally:
        conn.close()


def test_fresh_box_flash_play_sync_rerun_copies_nothing(boot, hil_cache, fw_tree, ref, picoemu, tmp_path):
    """The issue's "done when": nakk flash onto a box with nothing but MicroPython, a match on it, nakk
    sync takes the result, a second nakk flash copies nothing; and before the sync, a flash is refused."""
    ks, frames = ref
    played = str(tmp_path / "played.img")
    emu = boot(save_fs=played)                  # nothing but MicroPython on it
    emu.wait_until_us(DTR_US)
    r = nakk_flash(emu, hil_cache)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "copied %d files" % len(fw_tree) in r.stdout and "MicroPython 1.28.0" in r.stdout
    # the app restarted: the start screen, then a whole match through the buttons, every frame checked
    f = emu.wait_frame(0)
    wait_frame_equal(emu, frames[0], f["t_us"], picoemu, "start screen after the flash")
    play(emu, ks, frames, picoemu, label="after nakk flash: ")
    emu.stop()

    # before the judge has the result: refused (OK held at power-on, released once boot has seen it)
    emu = boot(image=played, hold=("OK",))
    emu.wait_until_us(DTR_US)
    emu.release("OK")
    r = nakk_flash(emu, hil_cache)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "nakk: the box holds 1 finished result the judge has not synced (match 1)" in r.stderr
    assert "Traceback" not in r.stderr
    assert emu.frame_count() == 0               # refused: the app was not started either
    r = nakk_flash(emu, hil_cache, "--force")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing to copy" in r.stdout
    f = emu.wait_frame(0)                       # the app is back, the result still waiting for the judge
    wait_frame_equal(emu, frames[-1], f["t_us"], picoemu, "the finished match after a forced rerun")
    emu.stop()

    # the judge takes it over the USB; then a flash has nothing to refuse and nothing to copy
    synced = str(tmp_path / "synced.img")
    emu = boot(image=played, save_fs=synced)
    wait_frame_equal(emu, frames[-1], 0, picoemu, "the finished match")
    emu.wait_until_us(DTR_US)
    db = str(tmp_path / "judge.db")
    rep = _pair_and_sync(emu, db)
    assert rep.ok() and len(rep.new) == 1, rep.to_json()
    # and pushes the next match's assignment, signed with the box's key, which one OK on the box takes
    from nakk_host import device as D
    assert run_while(emu, lambda: D.assign(emu.serial_url, ASSIGNMENT, _key(db, emu)))["assigned"] is True
    settle(emu)
    emu.wait_us(GAP_US)
    p0 = emu.flash_stats()["programs"]
    r = emu.press("OK", 60)                     # one OK takes the judge's assignment
    # its setup is written: flash programs start, then stay quiet for half a second of emulated time
    quiet_since, last = None, p0
    while quiet_since is None or emu.now_us() - quiet_since < 500000:
        assert emu.now_us() < r["release_us"] + 5000000, "the assignment was not taken (flash programs %d -> %d; " \
            "the box said: %s)" % (p0, last, emu.log_text()[-2000:])
        emu.wait_us(50000)
        n = emu.flash_stats()["programs"]
        if n != last:
            quiet_since, last = emu.now_us(), n
    emu.stop()
    setup = json.loads(dump_events(synced)[0])
    assert setup["match"] == 2 and all(setup[k] == v for k, v in ASSIGNMENT.items()), setup
    emu = boot(image=synced, hold=("OK",))      # paired now: OK held at power-on still gives maintenance
    emu.wait_until_us(DTR_US)
    emu.release("OK")
    r = nakk_flash(emu, hil_cache)
    assert r.returncode == 0 and "nothing to copy" in r.stdout, r.stdout + r.stderr
    assert emu.wait_frame(0)["frame"] > 0       # the app restarted


def test_a_paired_box_restarts_into_maintenance_only_for_its_judge(boot, fw_image, hil_cache, ref, picoemu, tmp_path):
    """A paired box whose app runs: nakk flash without the judge's database is refused at once (mpremote's
    bytes and an unsigned repl change nothing: no reset); with it (--db), the signed repl writes the flag
    and resets, and the saved flash boots into maintenance mode, where the flash goes through."""
    img = str(tmp_path / "paired.img")
    db = str(tmp_path / "judge.db")
    emu = boot(image=fw_image, save_fs=img)
    wait_frame_equal(emu, ref[1][0], 0, picoemu, "start screen")
    emu.wait_until_us(DTR_US)
    pair_at_box(emu, db)
    r = nakk_flash(emu, hil_cache, "--db", str(tmp_path / "another.db"), restart_s=4)
    assert r.returncode == 1 and "the box refused maintenance mode" in r.stderr, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert emu.flash_stats()["wdt_triggers"] == 0    # no reset: the app plays on
    r = nakk_flash(emu, hil_cache, "--db", db, restart_s=4)
    assert "restarting it into maintenance mode" in r.stdout
    assert r.returncode == 1 and "hold OK while switching it on" in r.stderr, r.stdout + r.stderr
    assert emu.flash_stats()["wdt_triggers"] == 1    # the signed request: the reset was asked for
    emu.stop()
    emu = boot(image=img)
    emu.wait_until_us(DTR_US)
    assert emu.frame_count() == 0                    # the flag: maintenance mode, no app
    r = nakk_flash(emu, hil_cache, "--db", db)
    assert r.returncode == 0 and "nothing to copy" in r.stdout, r.stdout + r.stderr


def test_interrupted_flash_leaves_the_box_in_maintenance(boot, hil_cache, fw_tree, ref, picoemu, tmp_path):
    img = str(tmp_path / "cut.img")
    emu = boot(save_fs=img)
    emu.wait_until_us(DTR_US)
    env = dict(os.environ, NAKK_CACHE=hil_cache)
    p = subprocess.Popen([NAKK, "flash", "--port", emu.serial_url], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    try:
        # cut it off in the middle of the copy: once a good part of the files is on flash
        while emu.flash_stats()["program_bytes"] < 40000:
            assert p.poll() is None, p.communicate()
            emu.wait_us(100000)
    finally:
        p.send_signal(signal.SIGKILL)
        p.communicate()
    emu.stop()
    emu = boot(image=img)                       # power on again, nobody touching a button
    emu.wait_until_us(DTR_US + 1000000)
    assert emu.frame_count() == 0, "a half-flashed box started its app"
    r = subprocess.run([MPREMOTE, "connect", emu.serial_url, "exec", "print(6 * 7)"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "42" in r.stdout, r.stderr
    r = nakk_flash(emu, hil_cache)
    assert r.returncode == 0, r.stdout + r.stderr
    f = emu.wait_frame(0)
    wait_frame_equal(emu, ref[1][0], f["t_us"], picoemu, "start screen after the rerun")


def test_box_with_its_app_running_restarts_into_maintenance(boot, fw_image, hil_cache, ref, picoemu, tmp_path):
    """The app owns the port (its link) and the box is not paired: mpremote's sequence and the link's unsigned
    `repl` request make it write the maintenance flag and reset (its watchdog cannot be stopped). The emulator logs the reset without doing
    it (nakk flash then gives up, saying what to do); booting the saved flash is the restart."""
    img = str(tmp_path / "flagged.img")
    emu = boot(image=fw_image, save_fs=img)
    wait_frame_equal(emu, ref[1][0], 0, picoemu, "start screen")
    emu.wait_until_us(DTR_US)
    r = nakk_flash(emu, hil_cache, restart_s=4)
    assert "restarting it into maintenance mode" in r.stdout
    assert r.returncode == 1 and "hold OK while switching it on" in r.stderr, r.stdout + r.stderr
    assert emu.flash_stats()["wdt_triggers"] == 1   # the reset was asked for
    emu.stop()
    emu = boot(image=img)
    emu.wait_until_us(DTR_US)
    assert emu.frame_count() == 0                   # the flag: maintenance mode, no app
    r = nakk_flash(emu, hil_cache)
    assert r.returncode == 0 and "nothing to copy" in r.stdout, r.stdout + r.stderr
    f = emu.wait_frame(0)
    wait_frame_equal(emu, ref[1][0], f["t_us"], picoemu, "start screen after the flash")


def test_the_box_shows_that_it_is_being_updated(boot, fw_image, hil_cache, ref, picoemu):
    """A one-file update of a box in maintenance mode: its OLED says "nakk flash / uuendan... / updating"
    while the files go in, then the app's start screen comes back."""
    emu = boot(image=fw_image, hold=("OK",))
    emu.wait_until_us(DTR_US)
    emu.release("OK")
    # one file changed, as nakk flash sees it: the box's manifest holds another hash for nakk/ui/flows.mpy
    code = ("import json; m = json.load(open('/nakk-manifest.json')); m['files']['/nakk/ui/flows.mpy'] = '0' * 16; "
            "f = open('/nakk-manifest.json', 'w'); f.write(json.dumps(m)); f.close()")
    r = subprocess.run([MPREMOTE, "connect", emu.serial_url, "exec", code], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert emu.frame_count() == 0
    r = nakk_flash(emu, hil_cache)
    assert r.returncode == 0 and "copied 2 files" in r.stdout, r.stdout + r.stderr   # ui.mpy, then main.py
    # frame 1 is the driver's init clearing the panel; the banner is the next
    rows = picoemu.ascii_art(emu.frame_info(2)["fb"]).split("\n")
    assert rows[0] == "#" * 128 and rows[63] == "#" * 128            # the border
    assert all("#" in row[20:110] for row in rows[8:15] + rows[24:31] + rows[40:47])  # three lines of text
    f = emu.wait_frame(2)
    wait_frame_equal(emu, ref[1][0], f["t_us"], picoemu, "start screen after the update")


def test_a_watchdog_armed_before_a_soft_reset_is_seen(boot, fw_image, hil_cache, tmp_path):
    """The RP2040's watchdog survives a soft reset and cannot be stopped: a box whose REPL answers but
    whose watchdog runs would reset half-way through the copy. nakk flash reads the watchdog's enable
    bit, writes the maintenance flag and resets instead (logged by the emulator, not done)."""
    img = str(tmp_path / "wdt.img")
    emu = boot(image=fw_image, hold=("OK",), save_fs=img)
    emu.wait_until_us(DTR_US)
    emu.release("OK")
    r = subprocess.run([MPREMOTE, "connect", emu.serial_url, "exec", "import machine; machine.WDT(timeout=8000)"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = nakk_flash(emu, hil_cache, restart_s=3)
    assert "restarting it into maintenance mode" in r.stdout, r.stdout + r.stderr
    assert r.returncode == 1 and "hold OK while switching it on" in r.stderr
    assert emu.flash_stats()["wdt_triggers"] >= 1
    emu.stop()
    emu = boot(image=img)                       # the restart: the flag gives maintenance mode
    emu.wait_until_us(DTR_US)
    assert emu.frame_count() == 0
