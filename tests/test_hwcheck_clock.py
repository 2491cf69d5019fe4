"""nakk doctor --hardware's clock line: a box not at the firmware's 200 MHz is flagged with what to do."""
from nakk_host import hwcheck


class _Box:
    """What the box's REPL answers to the clock check (machine.freq(), localtime, ticks_ms)."""

    def __init__(self, hz, board="Raspberry Pi Pico with RP2040"):
        self.hz = hz
        self.board = board

    def run(self, code):
        assert "machine.freq()" in code and "_machine" in code
        return (self.hz, (2026, 12, 1, 10, 0, 0), 4000, self.board)


def test_a_box_at_200_mhz_passes():
    ok, detail = hwcheck.clock(_Box(200000000))
    assert ok and detail.startswith("CPU 200 MHz; clock 2026-12-01 10:00:00"), detail


def test_a_box_left_at_micropythons_125_mhz_is_flagged():
    ok, detail = hwcheck.clock(_Box(125000000))
    assert not ok
    assert "CPU 125 MHz (the firmware sets 200 MHz at boot: flash the box again)" in detail


def test_a_pico_2_at_its_own_clock_passes():
    # fast_clock() leaves an RP2350 at MicroPython's clock: nothing to flash again
    ok, detail = hwcheck.clock(_Box(150000000, "Raspberry Pi Pico2 with RP2350"))
    assert ok and detail.startswith("CPU 150 MHz; clock"), detail
