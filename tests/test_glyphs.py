"""nakk.drivers.glyphs, the font's text (1x and 2x) and score-digit loops in viper: pixel-identical to font.py's Python loop on the unix port, built per architecture, and absent on CPython."""
import os
import subprocess
import sys

from conftest import FIRMWARE, ROOT, micropython_path, run_mpy

from nakk.drivers import font


def test_glyphs_draw_byte_for_byte_what_the_python_loop_draws():
    # the firmware as the simulator runs it: .mpy, glyphs.mpy built with -march for this machine
    r = run_mpy(["tests/mpy/glyphs_check.py"], compiled=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(line.split(" ", 1) for line in r.stdout.strip().split("\n") if not line.startswith("differs"))
    assert out["viper"] == "1", r.stdout                  # the viper loop was the one compared
    assert int(out["glyphs"]) == len(font.codepoints())
    assert int(out["digits"]) >= 13                       # every score glyph, and numbers
    # every glyph at 139 x 73 places in 2 colours (and 28 x 82 at scale 2), more for the strings
    assert int(out["draws"]) > len(font.codepoints()) * (139 * 73 + 28 * 82) * 2
    # scale 2 (Schmier's wide scores): every glyph near both edges at every y, both colours,
    # and random ints, strs and bytes at random places, aligned, cut with '...' or not
    assert out["viper2"] == "1", r.stdout                 # 2x text no longer goes the Python loop
    assert int(out["glyphs2"]) == len(font.codepoints())
    assert int(out["random2"]) >= 6000
    assert out["bad"] == "0", r.stdout


def test_cpython_keeps_the_python_loop():
    assert font._G is None


def _font_in(mpypath):
    exe = micropython_path()
    env = dict(os.environ, MICROPYPATH=mpypath + ":.frozen")
    code = ("import framebuf\nfrom nakk.drivers import font\nb = bytearray(1024)\n"
            "f = framebuf.FrameBuffer(b, 128, 64, framebuf.MONO_VLSB)\nfont.target(f, b)\n"
            "w = font.text(f, b'J\\xc3\\xa4nn', 3, 5)\nprint(font._G is not None, w, sum(b))\n")
    r = subprocess.run([exe, "-X", "heapsize=320K", "-c", code], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_a_build_without_native_code_falls_back_to_python():
    sys.path.insert(0, os.path.join(ROOT, "host"))
    from nakk_host.simulator import compiled_firmware
    none = compiled_firmware(None)              # no -march: glyphs.mpy left out
    host = compiled_firmware()
    assert not os.path.exists(os.path.join(none, "nakk", "drivers", "glyphs.mpy"))
    with open(os.path.join(host, "nakk", "drivers", "glyphs.mpy"), "rb") as f:
        assert f.read(3)[2] >> 2 != 0           # built for this machine's architecture
    slow, fast = _font_in(none), _font_in(host)
    assert slow[0] == "False" and fast[0] == "True"
    assert slow[1:] == fast[1:] and int(fast[2]) > 0   # the same width and ink either way


def test_an_mpy_for_another_architecture_is_refused_at_import_and_font_falls_back(tmp_path):
    # a Pico's glyphs.mpy (armv6m) on this machine's unix port: the import fails, font draws in Python
    sys.path.insert(0, os.path.join(ROOT, "host"))
    from nakk_host.simulator import compiled_firmware
    import shutil
    pico = compiled_firmware("armv6m")
    tree = tmp_path / "fw"
    shutil.copytree(compiled_firmware(), tree)
    shutil.copy(os.path.join(pico, "nakk", "drivers", "glyphs.mpy"), str(tree / "nakk" / "drivers" / "glyphs.mpy"))
    res = _font_in(str(tree))
    assert res[0] == "False" and int(res[2]) > 0
