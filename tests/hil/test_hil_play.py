"""On the emulated Pico (stock MicroPython v1.28.0 for the Pico): boot, whole matches through the GPIO
buttons with every frame checked, the watchdog fed, a power cut and resume."""
import os

import pytest

from nakk_host.simulator import dump_events
from .playback import keys, play, reference, wait_frame_equal

RULESETS = ("saare-2020", "saare-classic", "sasku", "schmier")
WDT_US = 8388000   # the longest RP2040 watchdog timeout: a box that ran longer than this unfed would reset


@pytest.fixture(scope="module")
def refs(tmp_path_factory, picoemu):
    """The simulator's frames for each demo script, and the events it saved (computed once)."""
    out = {}
    for rs in RULESETS:
        img = str(tmp_path_factory.mktemp("sim") / "sim.img")
        ks = keys(rs)
        out[rs] = (ks, reference(ks, img), dump_events(img))
    return out


def test_boot_to_first_frame(boot, fw_image, refs, picoemu):
    emu = boot(image=fw_image)
    f = emu.wait_frame(0)
    # the app's start screen, exactly as the simulator draws it
    t = wait_frame_equal(emu, refs["saare-2020"][1][0], 0, picoemu, "start screen")
    assert f["t_us"] < t < 2000000, "first frame at %d us, start screen at %d us" % (f["t_us"], t)
    # the rings are dark and nothing else has run into trouble
    assert emu.flash_stats()["wdt_triggers"] == 0


@pytest.mark.parametrize("ruleset", RULESETS)
def test_whole_match(ruleset, boot, fw_image, refs, picoemu, tmp_path):
    ks, frames, events = refs[ruleset]
    saved = str(tmp_path / "after.img")
    emu = boot(image=fw_image, save_fs=saved)
    wait_frame_equal(emu, frames[0], 0, picoemu, "start screen")
    play(emu, ks, frames, picoemu, label=ruleset + " ")
    # the winner's ring lights (celebration) on the Pico as well
    assert any(any(c) for p in (6, 7, 8) for c in emu.leds(p))
    # the watchdog was fed: long enough for an unfed one to fire, and none did
    if emu.now_us() < WDT_US + 500000:
        emu.wait_until_us(WDT_US + 500000)
    assert emu.flash_stats()["wdt_triggers"] == 0, emu.log_text()[-1500:]
    emu.stop()
    # what the Pico wrote to its flash is the simulator's match, event for event
    assert dump_events(saved) == events


def test_power_cut_and_resume(boot, fw_image, refs, picoemu, tmp_path):
    ks, frames, events = refs["saare-2020"]
    # after the third deal: 4 setup presses, then 1 + 2 + 2 for the deals (A; NEXT B:long, B's
    # button held; OK B). A cut in the middle of a deal (after 10 presses: the fourth deal's OK)
    # rightly resumes on a fresh entry, as a half-entered deal is never saved; the simulator's
    # frame 10 is that half.
    cut = 9
    img = str(tmp_path / "cut.img")
    emu = boot(image=fw_image, save_fs=img)
    wait_frame_equal(emu, frames[0], 0, picoemu, "start screen")
    play(emu, ks[:cut], frames, picoemu, label="before the cut: ")
    emu.stop()   # power off between two flash operations; the filesystem as it was
    assert len(dump_events(img)) == 4   # setup + three deals
    again = str(tmp_path / "again.img")
    emu = boot(image=img, save_fs=again)
    # back where it was: the same score screen as before the cut
    wait_frame_equal(emu, frames[cut], 0, picoemu, "after the power cut")
    play(emu, ks, frames, picoemu, start=cut, label="after the cut: ")
    emu.stop()
    assert dump_events(again) == events
