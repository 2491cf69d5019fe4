"""The Pico W's UF2 (nakk build --board rpi-pico-w) on the emulated Pico, its network off (the emulator has no
CYW43): it says what it is, boots to the same start screen as the Pico, plays a whole match frame for frame,
and answers the judge's hello (not configured for live scores: the radio is never switched on). Without the
toolchain or the MicroPython archives: "UF2 NOT RUN"."""
import pytest

import uf2kit
from nakk import record
from nakk_host import uf2build, uf2flash
from nakk_host import device as D
from nakk_host.simulator import dump_events
from .conftest import OLED_SPI, PINS, RINGS
from .playback import keys, play, reference, wait_frame_equal
from .test_hil_sync import run_while

DTR_US = 1700000
PICO_W_FS = 0x12C000      # MicroPython RPI_PICO_W: 848 KiB of LittleFS at the end of the 2 MiB flash
KIT_FS = 0xA0000          # where the kit's saved filesystem starts (the Pico's: 1408 KiB)


@pytest.fixture(scope="module")
def picow_uf2(picoemu, tmp_path_factory):
    why = uf2kit.why_not()
    if why:
        pytest.skip(why)
    return uf2kit.built(str(tmp_path_factory.mktemp("uf2w")), board="RPI_PICO_W")


def test_the_pico_w_uf2_says_what_it_is(picow_uf2):
    info = uf2flash.read_uf2(picow_uf2.path)
    assert picow_uf2.path.endswith("nakk-%s-rpi-pico-w.uf2" % picow_uf2.version)
    assert (info.board, info.version, info.build, info.journal) == ("RPI_PICO_W", picow_uf2.version,
                                                                    picow_uf2.key[:12], record.VERSION)
    assert info.blocks * 256 <= PICO_W_FS   # the firmware ends before the Pico W's filesystem
    assert picow_uf2.key != uf2build.inputs_key(uf2build.build.firmware_dir())   # not the Pico's build


def test_the_pico_w_uf2_boots_and_plays_a_match_with_its_network_off(picoemu, picow_uf2, tmp_path):
    ks = keys("saare-2020")
    frames = reference(ks, str(tmp_path / "sim.img"))
    events = dump_events(str(tmp_path / "sim.img"))
    saved = str(tmp_path / "after.img")
    # a blank flash: MicroPython makes the Pico W's filesystem where it keeps it
    emu = picoemu.PicoEmu(firmware=picow_uf2.path, pins=PINS, oled_spi=OLED_SPI, rings=RINGS, save_fs=saved,
                          log_path=str(tmp_path / "runner.log"))
    emu.start()
    try:
        _play(emu, picoemu, ks, frames, picow_uf2)
    finally:
        emu.stop()
    # the kit saves the Pico's 1408 KiB from 0xA0000: the Pico W's own 848 KiB are its tail
    with open(saved, "rb") as f:
        data = f.read()
    assert len(data) - (PICO_W_FS - KIT_FS) == 848 * 1024
    mine = str(tmp_path / "picow.img")
    with open(mine, "wb") as f:
        f.write(_as_pico_image(data[PICO_W_FS - KIT_FS:]))
    assert dump_events(mine) == events


def _as_pico_image(data):
    """The Pico W's 212-block filesystem's files, byte for byte, on a filesystem of the Pico's geometry (the
    simulator's image, which nakk.dump reads)."""
    from littlefs import LittleFS
    src = LittleFS(block_size=4096, block_count=len(data) // 4096, prog_size=256, read_size=32,
                   lookahead_size=32, mount=False)
    src.context.buffer = bytearray(data)
    src.mount()
    dst = LittleFS(block_size=4096, block_count=352, prog_size=256, read_size=32, lookahead_size=32)
    for root, dirs, files in src.walk("/"):
        for d in dirs:
            dst.makedirs(root.rstrip("/") + "/" + d, exist_ok=True)
        for name in files:
            p = root.rstrip("/") + "/" + name
            with src.open(p, "rb") as a, dst.open(p, "wb") as b:
                b.write(a.read())
    return bytes(dst.context.buffer)


def _play(emu, picoemu, ks, frames, picow_uf2):
    wait_frame_equal(emu, frames[0], 0, picoemu, "start screen")
    play(emu, ks, frames, picoemu, label="Pico W ")
    emu.wait_until_us(max(DTR_US, emu.now_us()))

    def hello():
        with D.Box(emu.serial_url, timeout=30) as b:
            return b.hello()
    h = run_while(emu, hello)
    assert h["build"] == picow_uf2.build and h["board"] == "RPI_PICO_W" and h["unsynced"] == 1 and "live" not in h
    assert emu.flash_stats()["wdt_triggers"] == 0
