"""`nakk flash --uf2`: the UF2 read and refused when it is not the Pico's nakk firmware, the RPI-RP2 drive found by
its INFO_UF2.TXT in a folder that looks like one, the copy byte for byte, and every failure one `nakk: …` line.

The UF2s here are made by hand (the UF2 block format with nakk_build.INFO inside), so these run without the
toolchain; tests/test_uf2_build.py reads a real one and tests/hil/test_hil_uf2.py updates a box with two.
"""
import os
import struct
import subprocess
import sys

import pytest

from nakk_host import cli, uf2build, uf2flash

NAKK = os.path.join(os.path.dirname(sys.executable), "nakk")
INFO_RP2040 = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
INFO_RP2350 = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"


def make_uf2(path, payload, family=uf2flash.RP2040_FAMILY, base=0x10000000):
    """A UF2 file of payload in 256-byte blocks, as picotool writes them."""
    chunks = [payload[i:i + 256].ljust(256, b"\0") for i in range(0, len(payload), 256)]
    out = b""
    for n, c in enumerate(chunks):
        head = struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0x2000, base + 256 * n, 256, n, len(chunks), family)
        out += head + c + b"\0" * (476 - 256) + struct.pack("<I", 0x0AB16F30)
    with open(path, "wb") as f:
        f.write(out)
    return str(path)


def nakk_uf2(path, version="0.2.0", build="0123456789ab", journal=1, board="RPI_PICO", family=uf2flash.RP2040_FAMILY):
    """A UF2 holding nakk_build.INFO as nakk build freezes it, split across two blocks."""
    info = ("NAKK-UF2 board=%s version=%s build=%s journal=%d micropython=1.28.0" % (board, version, build, journal))
    payload = b"\x55" * 230 + info.encode() + b"\0" + b"\xaa" * 700
    return make_uf2(path, payload, family)


def drive(tmp_path, name="RPI-RP2", info=INFO_RP2040):
    d = tmp_path / "media" / name
    d.mkdir(parents=True)
    (d / "INFO_UF2.TXT").write_text(info)
    (d / "INDEX.HTM").write_text("<html></html>")
    return d


def run_nakk(*args, env=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run([NAKK, *args], capture_output=True, text=True, timeout=60, env=e)


def test_the_info_line_is_read_across_blocks(tmp_path):
    info = uf2flash.read_uf2(nakk_uf2(tmp_path / "a.uf2"))
    assert (info.board, info.version, info.build, info.journal, info.micropython) == (
        "RPI_PICO", "0.2.0", "0123456789ab", 1, "1.28.0")
    assert info.blocks == 4
    assert uf2build.info_line("0.2.0", "0123456789ab", 1) == (
        "NAKK-UF2 board=RPI_PICO version=0.2.0 build=0123456789ab journal=1 micropython=1.28.0")


@pytest.mark.parametrize("what,make,says", [
    ("text", lambda p: (p.write_text("hello\n"), str(p))[1], "is not a UF2 file"),
    ("torn", lambda p: (p.write_bytes(b"\0" * 512), str(p))[1], "has no UF2 magic"),
    ("rp2350", lambda p: nakk_uf2(p, family=0xE48BFF59), "a UF2 for RP2350 (Arm), not for the Pico's RP2040"),
    ("stock", lambda p: make_uf2(p, b"MicroPython" * 100), "holds no nakk firmware"),
    ("pico-2", lambda p: nakk_uf2(p, board="RPI_PICO2"), "nakk's firmware for RPI_PICO2, not for the Pico"),
])
def test_a_uf2_for_something_else_is_refused_in_one_line(what, make, says, tmp_path):
    path = make(tmp_path / ("%s.uf2" % what))
    with open(path, "rb") as f:
        before = f.read()
    d = drive(tmp_path)
    r = run_nakk("flash", "--uf2", path, env={"NAKK_UF2_DRIVES": str(d)})
    assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
    assert r.stderr.startswith("nakk: ") and says in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert sorted(os.listdir(d)) == ["INDEX.HTM", "INFO_UF2.TXT"]     # nothing copied
    with open(path, "rb") as f:
        assert f.read() == before


def test_a_uf2_older_than_the_box_journal_is_refused():
    class I:
        path, version, journal, board = "/x/nakk-0.0.9-rpi-pico.uf2", "0.0.9", 1, "RPI_PICO"
    assert uf2flash.refusal(I, {"journal": 1, "fw": "0.1.0"}) is None
    why = uf2flash.refusal(I, {"journal": 2, "fw": "0.3.0"})
    assert why == ("nakk-0.0.9-rpi-pico.uf2 (firmware 0.0.9) reads journal format 1, and the box keeps format 2 "
                   "(firmware 0.3.0): flash a newer firmware")


def test_drives_are_found_by_their_info_file(tmp_path, monkeypatch):
    pico = drive(tmp_path)
    (tmp_path / "media" / "USBSTICK").mkdir()
    monkeypatch.setenv("NAKK_UF2_DRIVES", str(tmp_path / "media"))
    assert uf2flash.find_drives() == [(str(pico), "RPI-RP2")]
    assert uf2flash.wait_drive(0) == str(pico)
    monkeypatch.setenv("NAKK_UF2_DRIVES", str(tmp_path / "nothing-here"))
    with pytest.raises(uf2flash.F.FlashError, match="no RPI-RP2 drive appeared within 0 s"):
        uf2flash.wait_drive(0)


def test_a_drive_of_another_board_is_refused(tmp_path, monkeypatch):
    d = drive(tmp_path, "RP2350", INFO_RP2350)
    monkeypatch.setenv("NAKK_UF2_DRIVES", str(d))
    with pytest.raises(uf2flash.F.FlashError, match="is a RP2350, not a Pico's RPI-RP2"):
        uf2flash.wait_drive(0)


def test_blank_pico_the_steps_then_the_copy(tmp_path):
    """No box on USB: the BOOTSEL steps, the copy onto the drive (byte for byte), then one line because no box
    answers after it (in this test nothing boots the UF2)."""
    path = nakk_uf2(tmp_path / "nakk-0.2.0-rpi-pico.uf2")
    d = drive(tmp_path)
    r = run_nakk("flash", "--uf2", path, "--port", str(tmp_path / "no-such-tty"),
                 env={"NAKK_UF2_DRIVES": str(d), "NAKK_FLASH_RESTART_S": "1"})
    assert "hold its BOOTSEL button" not in r.stdout     # the drive was there already: no steps needed
    assert "copying onto %s" % d in r.stdout
    with open(path, "rb") as a, open(d / "nakk-0.2.0-rpi-pico.uf2", "rb") as b:
        assert a.read() == b.read()
    assert r.returncode == 1 and r.stderr.startswith("nakk: the UF2 is on the Pico, but no box answered"), r.stderr
    assert r.stderr.count("\n") == 1


def test_no_box_and_no_drive_prints_the_bootsel_steps(tmp_path):
    path = nakk_uf2(tmp_path / "nakk-0.2.0-rpi-pico.uf2")
    r = run_nakk("flash", "--uf2", path, env={"NAKK_UF2_DRIVES": str(tmp_path / "empty"), "NAKK_UF2_DRIVE_S": "1"})
    assert "hold its BOOTSEL button" in r.stdout and "RPI-RP2" in r.stdout
    assert r.returncode == 1 and r.stderr.startswith("nakk: no RPI-RP2 drive appeared within 1 s"), r.stderr


def test_a_drive_that_fails_the_copy_is_one_line(tmp_path):
    """The drive refuses the write (here: the name is taken by a folder; on a Pico unplugged mid-copy, EIO)."""
    path = nakk_uf2(tmp_path / "nakk-0.2.0-rpi-pico.uf2")
    d = drive(tmp_path)
    (d / "nakk-0.2.0-rpi-pico.uf2").mkdir()
    r = run_nakk("flash", "--uf2", path, env={"NAKK_UF2_DRIVES": str(d)})
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("nakk: the copy onto %s stopped (Is a directory)" % d), r.stderr


def test_a_box_gone_mid_flash_is_one_line_not_a_traceback(monkeypatch, capsys):
    """Issue 24: the serial port vanishing in the middle of nakk flash (pyserial's SerialException)."""
    import serial
    from nakk_host import flash

    def vanish(*a, **kw):
        raise serial.SerialException("read failed: device reports readiness to read but returned no data")
    monkeypatch.setattr(flash, "flash", vanish)
    assert cli.main(["flash", "--port", "/dev/ttyACM0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nakk: the box went away during nakk flash (read failed") and err.count("\n") == 1


def test_a_uf2_for_the_other_board_is_refused_for_a_box_with_a_filesystem(tmp_path):
    """The Pico W's UF2 keeps its filesystem at 0x12C000, the Pico's at 0xA0000: a running box is given only
    its own board's (a hello without a board is a Pico's, from before the Pico W)."""
    w = uf2flash.read_uf2(nakk_uf2(tmp_path / "w.uf2", board="RPI_PICO_W"))
    p = uf2flash.read_uf2(nakk_uf2(tmp_path / "p.uf2"))
    hello = {"journal": 1, "fw": "0.1.0"}
    assert "runs the one for RPI_PICO" in uf2flash.refusal(w, hello)
    assert uf2flash.refusal(p, hello) is None
    assert uf2flash.refusal(w, dict(hello, board="RPI_PICO_W")) is None
    assert "runs the one for RPI_PICO_W" in uf2flash.refusal(p, dict(hello, board="RPI_PICO_W"))
