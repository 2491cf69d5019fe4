"""Play key scripts on the emulated Pico and check every frame against the simulator's.

The simulator (firmware on the unix port, nakk.offbox.sim) and the Pico run
the same ui/render code, so after each press the Pico's display RAM must
become byte for byte what the simulator drew after that press. The emulator
is waited on by that condition (the frame equal, within a bound of emulated
time), not by a sleep.
"""
import os
import re

from nakk_host.simulator import LONG_MS, SHORT_MS, Simulator, parse_keys

DEMO = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "host", "nakk_host", "demo")
SETTLE_US = 1500000   # emulated time a press may take to reach its finished frame before we call it wrong
GAP_US = 120000       # a person lifts a finger and presses again no sooner than this after a release
                      # (a press a few ms after a release is contact bounce to the driver, rightly)


def keys(ruleset):
    with open(os.path.join(DEMO, ruleset + ".keys")) as f:
        return parse_keys(f.read(), ruleset + ".keys")


def reference(keyseq, image):
    """[start frame, frame after key 1, ...] as the simulator draws them (1024 bytes each)."""
    with Simulator(image=image, register=False) as sim:
        frames = [sim.framebuffer()]
        for name, long in keyseq:
            sim.press(name, long)
            frames.append(sim.framebuffer())
    return frames


def diff_text(picoemu, want, got):
    """The two frames side by side in ASCII, for an assertion message."""
    a = picoemu.ascii_art(want).split("\n")
    b = picoemu.ascii_art(got).split("\n")
    return "\n".join("%s | %s" % (x, y) for x, y in zip(a, b))


def wait_frame_equal(emu, want, since_us, picoemu, what):
    """Wait (in emulated time, bounded) until the Pico's display RAM equals want."""
    deadline = since_us + SETTLE_US
    while True:
        fb = emu.frame()
        if fb == want:
            return emu.now_us()
        now = emu.now_us()
        if now > deadline:
            raise AssertionError("%s: the Pico's frame is not the simulator's %.0f ms after the press "
                                 "(left: simulator, right: Pico)\n%s"
                                 % (what, (now - since_us) / 1000, diff_text(picoemu, want, fb)))
        # let the firmware run a little: a bounded wait for the condition, checked again above
        emu.wait_us(20000)


def wait_reset(emu, since_us, within_us, what):
    """Wait for the box's first reset (a watchdog trigger: machine.reset() or a WDT not fed) at or after
    since_us and check it came within within_us; its emulated time (us). The runner logs each trigger with
    its emulated time, and it is that time that is checked, not the clock when the test sees the log line:
    once the watchdog has fired, the core (hung where a Pico would have reset) can keep the runner from
    answering for seconds, and emulated time runs on meanwhile."""
    give_up = since_us + within_us + 30000000
    while True:
        seen = [float(t) * 1000 for t in re.findall(r"WATCHDOG TRIGGERED #\d+ at ([\d.]+) ms", emu.log_text())]
        seen = [t for t in seen if t >= since_us]
        if seen:
            break
        assert emu.now_us() < give_up, "%s: no reset at all (%.0f s of emulated time)" % (
            what, (emu.now_us() - since_us) / 1e6)
        emu.wait_us(50000)
    assert seen[0] - since_us < within_us, "%s: the reset came %.0f ms after, not within %.0f" % (
        what, (seen[0] - since_us) / 1000, within_us / 1000)
    return seen[0]


def play(emu, keyseq, frames, picoemu, start=0, label=""):
    """Press keyseq[start:] on the Pico, checking the frame after each against frames[i + 1]."""
    released = 0
    for i in range(start, len(keyseq)):
        name, long = keyseq[i]
        if released:
            emu.wait_until_us(released + GAP_US)
        r = emu.press(name, LONG_MS if long else SHORT_MS)
        released = r["release_us"]
        wait_frame_equal(emu, frames[i + 1], r["t_us"], picoemu,
                         "%spress %d (%s%s)" % (label, i + 1, name, " long" if long else ""))
