"""nakk doctor's hardware checks (nakk_host.hwcheck) on the emulated Pico in maintenance mode:
the test pattern reaches the OLED, the rings light, each button is read (and a wrong one is named),
RAM, flash and the clock are reported."""
import threading

from nakk_host import flash, hwcheck

DTR_US = 1700000


def _press_until_read(emu, pin, box, name):
    """Run hwcheck.button in a thread and press `pin` (100 ms, every 300 ms of emulated time) until the
    box has read a press: the check's own loop may start a little after we begin."""
    out = []
    t = threading.Thread(target=lambda: out.append(hwcheck.button(box, name, timeout_s=15)))
    t.start()
    try:
        while t.is_alive():
            r = emu.press(pin, 100)
            emu.wait_until_us(r["release_us"] + 200000)
            t.join(0.05)
    finally:
        t.join(60)
    return out[0]


def test_hardware_checks(boot, fw_image):
    emu = boot(image=fw_image, hold=("OK",))
    emu.wait_until_us(DTR_US)
    emu.release("OK")
    box, probe = flash._connect(emu.serial_url, lambda s: None)
    try:
        assert not probe.app_ran
        ok, detail = hwcheck.display(box)
        assert ok, detail
        fb = emu.frame()
        # the border: the top and bottom rows and the left and right columns are lit
        assert all(fb[x] & 1 for x in range(128)) and all(fb[7 * 128 + x] & 0x80 for x in range(128))
        assert all(fb[p * 128] == 0xFF and fb[p * 128 + 127] == 0xFF for p in range(1, 7))
        # and text inside it (rows 20-27 are page 2 and 3)
        assert sum(bin(b).count("1") for b in fb[2 * 128 + 1:4 * 128 - 1]) > 40

        ok, detail = hwcheck.rings(box)
        assert ok and "3 rings" in detail, detail
        for pin in (6, 7, 8):
            leds = emu.leds(pin)
            assert leds[0] == (0, 24, 0) and leds[1] == (0, 0, 0) and leds[4] == (0, 24, 0), leds

        assert _press_until_read(emu, "A", box, "A")[0] is True
        ok, detail = _press_until_read(emu, "NEXT", box, "OK")
        assert not ok and detail == "OK was asked for, NEXT answered (wiring or pin map?)"

        ok, detail = hwcheck.memory(box)
        assert ok and "flash" in detail, detail
        ok, detail = hwcheck.clock(box)
        assert ok and "CPU 200 MHz" in detail, detail   # boot.py: pico.fast_clock()
    finally:
        box.close()


def test_nakk_doctor_hardware_asks_for_each_button(boot, fw_image):
    """`nakk doctor --hardware --port socket://...` as the organiser runs it: each button asked for in
    turn and pressed on the emulated Pico, then RAM and clock; all pass and the app restarts."""
    import os
    import queue
    import subprocess
    import sys
    emu = boot(image=fw_image, hold=("OK",))
    emu.wait_until_us(DTR_US)
    emu.release("OK")
    nakk = os.path.join(os.path.dirname(sys.executable), "nakk")
    p = subprocess.Popen([nakk, "doctor", "--hardware", "--port", emu.serial_url], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(x) for x in p.stdout] + [lines.put(None)])
    reader.start()
    out = []
    try:
        while True:
            line = lines.get(timeout=120)
            if line is None:
                break
            out.append(line)
            if line.startswith("press "):
                name = line.split()[1]
                while lines.empty():          # press it until the box has read it
                    r = emu.press(name, 100)
                    emu.wait_until_us(r["release_us"] + 200000)
    finally:
        p.wait(60)
        reader.join(10)
    text = "".join(out)
    assert p.returncode == 0, text + p.stderr.read()
    for b in ("A", "B", "C", "PREV", "OK", "NEXT"):
        assert "%s read" % b in text
    assert "all hardware checks passed" in text
    f = emu.wait_frame(emu.frame_count())     # the app is back: it draws its screen
    assert f["frame"] > 0
