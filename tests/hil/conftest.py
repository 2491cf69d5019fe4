"""Hardware-in-the-loop fixtures: the firmware on the emulated Pico, as the shipped UF2 and as .mpy on stock MicroPython.

The kit (../shared/emu from the repo root, or $NAKK_PICOEMU) runs the
MicroPython v1.28.0 RPI_PICO firmware in rp2040js with the reference build's
buttons, SPI OLED and rings. rp2040js is installed with the kit's install.sh
into ~/.cache/picoemu/ when it is missing. Without the kit or node, every HIL
test is reported as skipped with the reason "HIL NOT RUN" and how to point
at the kit: never counted as passed.

Every test that boots the firmware (the `boot` fixture with `fw_image`, or
`fw_kind`) runs twice: "uf2", the UF2 that `nakk build` makes (built once a
session, tests/uf2kit.py; firmware/ frozen in, the filesystem holding only
what the box writes), and "mpy", stock MicroPython with the firmware as
.mpy (nakk flash's development path). Without the toolchain or the
MicroPython archives the "uf2" runs say "UF2 NOT RUN". A test module about
one of the two only overrides `fw_kind` (test_hil_flash.py: the .mpy path).

One emulator at a time keeps one CPU core busy: tests here boot one each,
in turn.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PINS = {"A": 2, "B": 3, "C": 4, "PREV": 13, "OK": 14, "NEXT": 15}   # firmware/nakk/board/pins.py
OLED_SPI = (18, 19, 17, 20, 21)                                      # SCK, MOSI, CS, DC, RES
RINGS = (6, 7, 8)
RP2040JS = "rp2040js-1.4.1"


def kit_dir():
    """The emulated Pico kit's folder, or None."""
    for d in (os.environ.get("NAKK_PICOEMU"), os.path.join(os.path.dirname(ROOT), "shared", "emu")):
        if d and os.path.isfile(os.path.join(d, "picoemu.py")):
            return os.path.abspath(d)
    return None


_NOT_RUN = None


def _setup():
    """(picoemu module, None) or (None, why the HIL tests are not run)."""
    kit = kit_dir()
    if kit is None:
        return None, ("HIL NOT RUN: the emulated Pico kit is not at ../shared/emu (from the repo root); "
                      "set NAKK_PICOEMU=/path/to/shared/emu to run these tests")
    if shutil.which("node") is None:
        return None, "HIL NOT RUN: node (>= 18) is not installed; the kit at %s needs it" % kit
    if kit not in sys.path:
        sys.path.insert(0, kit)
    import picoemu
    if picoemu.find_node_modules() is None:
        dest = picoemu.default_install_dir()
        r = subprocess.run([os.path.join(kit, "install.sh"), dest], capture_output=True, text=True)
        if r.returncode != 0 or picoemu.find_node_modules() is None:
            return None, ("HIL NOT RUN: rp2040js is missing and %s/install.sh %s failed:\n%s"
                          % (kit, dest, (r.stdout + r.stderr)[-1500:]))
    try:
        import littlefs  # noqa: F401  (the kit builds filesystem images with it)
    except ImportError:
        return None, "HIL NOT RUN: littlefs-python is not installed (pip install -e '.[test]')"
    return picoemu, None


@pytest.fixture(scope="session")
def picoemu():
    mod, why = _setup()
    if mod is None:
        pytest.skip(why)
    return mod


@pytest.fixture(scope="session")
def hil_cache(tmp_path_factory):
    """A nakk cache with firmware/package.json's ssd1306 seeded from the kit's copy of
    micropython-lib's driver (the emulator has no network for mip)."""
    from nakk_host import build
    mod, why = _setup()
    if mod is None:
        pytest.skip(why)
    cache = str(tmp_path_factory.mktemp("nakk-cache"))
    for name, version in build.package()[1]:
        assert name == "ssd1306", "a new dependency needs a source for the HIL cache: " + name
        build.seed_dep(name, version, {"ssd1306.py": mod.SSD1306_PY}, cache)
    return cache


@pytest.fixture(scope="session", params=["uf2", "mpy"])
def fw_kind(request):
    """Which firmware the box runs: "uf2" (the shipped UF2, frozen) or "mpy" (stock MicroPython + .mpy)."""
    return request.param


@pytest.fixture(scope="session")
def shipped_uf2(tmp_path_factory):
    """nakk build's Result for firmware/ (once a session; the UF2 cache makes a rerun take seconds)."""
    import uf2kit
    mod, why = _setup()
    if mod is None:
        pytest.skip(why)
    why = uf2kit.why_not()
    if why:
        pytest.skip(why)
    return uf2kit.built(str(tmp_path_factory.mktemp("uf2")))


@pytest.fixture(scope="session")
def fw_tree(hil_cache):
    """{device path: bytes}: what `nakk flash` would put on a box."""
    from nakk_host import build
    return build.tree(cache=hil_cache)


@pytest.fixture(scope="session")
def fw_image(picoemu, fw_kind, request, tmp_path_factory):
    """A LittleFS image of the Pico's /: for "mpy" the firmware as nakk flash lays it out; for "uf2" an empty
    filesystem (all of the firmware is in the UF2)."""
    if fw_kind == "uf2":
        request.getfixturevalue("shipped_uf2")
        img = os.path.join(str(tmp_path_factory.mktemp("uf2-img")), "empty.img")
        picoemu.mkimage(str(tmp_path_factory.mktemp("uf2-files")), img)
        return img
    return request.getfixturevalue("mpy_image")


@pytest.fixture(scope="session")
def mpy_image(picoemu, fw_tree, tmp_path_factory):
    """A LittleFS image of the Pico's / holding the firmware as nakk flash lays it out."""
    from nakk_host import build
    d = str(tmp_path_factory.mktemp("fw-files"))
    build.write_tree(fw_tree, d)
    # the manifest nakk flash leaves, so that flashing this box again copies nothing
    with open(os.path.join(d, build.MANIFEST.lstrip("/")), "wb") as f:
        f.write(build.manifest(fw_tree, build.package()[0], build.build_id(fw_tree), "1.28.0", "6.3"))
    img = os.path.join(str(tmp_path_factory.mktemp("fw-img")), "fw.img")
    picoemu.mkimage(d, img)
    return img


@pytest.fixture
def uf2_firmware(fw_kind, request):
    """PicoEmu's firmware= for this fw_kind: the shipped UF2's path, or None (the kit's stock MicroPython)."""
    return request.getfixturevalue("shipped_uf2").path if fw_kind == "uf2" else None


@pytest.fixture
def boot(picoemu, tmp_path, uf2_firmware):
    """boot(image=..., hold=(), save_fs=None, **kw) -> a started PicoEmu (on the fw_kind's firmware);
    stopped at the end of the test."""
    started = []

    def start(image=None, **kw):
        if uf2_firmware is not None:
            kw.setdefault("firmware", uf2_firmware)
        kw.setdefault("pins", PINS)
        kw.setdefault("oled_spi", OLED_SPI)
        kw.setdefault("rings", RINGS)
        kw.setdefault("log_path", str(tmp_path / ("runner-%d.log" % len(started))))
        emu = picoemu.PicoEmu(image=image, **kw)
        emu.start()
        started.append(emu)
        return emu

    yield start
    for emu in started:
        emu.stop()


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    """A private XDG_RUNTIME_DIR for tests that start simulators."""
    d = tempfile.mkdtemp(prefix="xdg-", dir=str(tmp_path))
    monkeypatch.setenv("XDG_RUNTIME_DIR", d)
    return d
