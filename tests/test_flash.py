"""nakk flash without a box: what it copies and removes, what it refuses, the firmware tree, the CLI's errors.
(On the emulated Pico it runs end to end in tests/hil/test_hil_flash.py.)"""
import os
import subprocess
import sys

import pytest

from nakk_host import build, flash

NAKK = os.path.join(os.path.dirname(sys.executable), "nakk")


def _probe(version=(1, 28, 0), mpy=6 | (3 << 8) | (2 << 10), platform="rp2", frozen=(), app=False):
    return flash.Probe((version[0], version[1], version[2], mpy, platform, list(frozen), app,
                        1400 * 1024, 1408 * 1024, False, "Raspberry Pi Pico with RP2040"))


def test_plan_copies_changed_and_missing_removes_stale_and_shadowing():
    files = {"/main.py": b"m", "/nakk/app.mpy": b"new", "/nakk/ui/flows.mpy": b"same", "/lib/ssd1306.mpy": b"d"}
    manifest = {"files": {"/main.py": build.digest(b"m"), "/nakk/app.mpy": build.digest(b"old"),
                          "/nakk/ui/flows.mpy": build.digest(b"same"), "/nakk/gone.mpy": build.digest(b"x"),
                          "/lib/ssd1306.mpy": build.digest(b"d")}}
    present = ["/main.py", "/nakk/app.mpy", "/nakk/ui/flows.mpy", "/nakk/gone.mpy", "/nakk/ui/flows.py",
               "/journal/id", "/settings.json", "/lib/other.py"]
    copy, remove = flash.plan(files, manifest, present)
    # changed (app), and in the manifest but not on the box (the driver) are copied
    assert copy == ["/lib/ssd1306.mpy", "/nakk/app.mpy"]
    # ours and no longer in the tree, and a .py that would be imported instead of its .mpy
    assert remove == ["/nakk/gone.mpy", "/nakk/ui/flows.py"]


def test_plan_same_tree_copies_nothing_and_no_manifest_copies_all():
    files = {"/main.py": b"m", "/nakk/app.mpy": b"a"}
    m = {"files": {p: build.digest(d) for p, d in files.items()}}
    assert flash.plan(files, m, list(files)) == ([], [])
    assert flash.plan(files, None, [])[0] == sorted(files)


@pytest.mark.parametrize("probe,words", [
    (_probe(version=(1, 22, 2)), "MicroPython 1.22.2"),
    (_probe(mpy=5), ".mpy format 5.0"),
    (_probe(platform="esp32"), "not for the Pico"),
])
def test_refuses_what_it_cannot_serve_and_says_what_to_install(probe, words):
    why = probe.refusal((6, 3))
    assert why and words in why
    if probe.platform == "rp2":
        assert "BOOTSEL" in why and "1.24 or newer" in why


def test_accepts_micropython_1_28():
    assert _probe().refusal(build.mpy_header()) is None
    assert build.mpy_header()[0] == build.MPY_MAJOR


def test_tree_leaves_out_frozen_and_host_only_modules(tmp_path):
    import mpremote  # noqa: F401
    cache = str(tmp_path)
    src = tmp_path / "ssd1306.py"
    src.write_text("class SSD1306:\n    pass\n")
    for name, version in build.package()[1]:
        build.seed_dep(name, version, {name + ".py": str(src)}, cache)
    t = build.tree(cache=cache)
    assert "/main.py" in t and "/boot.py" in t and "/nakk/app.mpy" in t and "/lib/ssd1306.mpy" in t
    assert all(b[:1] == b"M" and b[1] == build.MPY_MAJOR for p, b in t.items() if p.endswith(".mpy"))
    assert not any(p.endswith(("/sim.mpy", "/dump.mpy", "/score.mpy")) for p in t)
    frozen = build.tree(frozen=("nakk", "ssd1306"), cache=cache)
    assert sorted(frozen) == ["/boot.py", "/main.py"]


def test_native_code_is_built_for_the_architecture_the_box_reports(tmp_path):
    import mpremote  # noqa: F401
    pico = _probe(mpy=6 | (3 << 8) | (4 << 10))           # what a Pico's sys.implementation._mpy says
    assert pico.arch == "armv6m" and pico.refusal(build.mpy_header()) is None
    assert _probe(mpy=6 | (3 << 8)).arch is None           # a port that reports no native arch
    cache = str(tmp_path)
    src = tmp_path / "ssd1306.py"
    src.write_text("class SSD1306:\n    pass\n")
    for name, version in build.package()[1]:
        build.seed_dep(name, version, {name + ".py": str(src)}, cache)
    t = build.tree(cache=cache, arch=pico.arch)
    # the files with native code: the viper glyph loop, and the press path's @micropython.native
    from nakk_host.simulator import needs_native
    fw = build.firmware_dir()
    native = set()
    for d, _, fs in os.walk(os.path.join(fw, "nakk")):
        for f in fs:
            if f.endswith(".py") and needs_native(os.path.join(d, f)):
                native.add("/" + os.path.relpath(os.path.join(d, f), fw)[:-3].replace(os.sep, "/") + ".mpy")
    assert {"/nakk/drivers/glyphs.mpy", "/nakk/drivers/font.mpy"} <= native
    # the header's arch bits: armv6m (4) for those, none for all the rest
    assert all(t[p][2] >> 2 == 4 for p in native)
    assert all(b[2] >> 2 == 0 for p, b in t.items() if p.endswith(".mpy") and p not in native)
    x64 = build.tree(cache=cache, arch="x64")
    assert all(x64[p][2] >> 2 == 2 for p in native)
    assert {p: b for p, b in x64.items() if p not in native} == \
        {p: b for p, b in t.items() if p not in native}   # one byte-identical tree besides
    with pytest.raises(build.BuildError) as e:
        build.tree(cache=cache, arch=None)
    assert "nakk/drivers/glyphs.py" in str(e.value) and "native" in str(e.value)
    # with nakk frozen into the image nothing of ours is built: no refusal
    assert sorted(build.tree(frozen=("nakk", "ssd1306"), cache=cache, arch=None)) == ["/boot.py", "/main.py"]


def test_missing_dependency_offline_says_so(tmp_path, monkeypatch):
    # no cached copy and no way to micropython.org: a clear error, not a traceback
    monkeypatch.setattr(build, "MIP_INDEX", "http://127.0.0.1:9/pi/v2")
    with pytest.raises(build.BuildError) as e:
        build.fetch_dep("ssd1306", "0.1.0", str(tmp_path), index=build.MIP_INDEX)
    assert "no cached copy" in str(e.value) and "internet" in str(e.value)


def test_pick_port_none_several_named(monkeypatch):
    from serial.tools import list_ports

    class P:
        def __init__(self, dev, vid):
            self.device, self.vid = dev, vid

    monkeypatch.setattr(list_ports, "comports", lambda: [P("/dev/ttyUSB0", 0x10C4)])
    with pytest.raises(flash.FlashError, match="no box found"):
        flash.pick_port()
    monkeypatch.setattr(list_ports, "comports", lambda: [P("/dev/ttyACM1", 0x2E8A), P("/dev/ttyACM0", 0x2E8A)])
    with pytest.raises(flash.FlashError, match="several boxes.*ttyACM0, /dev/ttyACM1"):
        flash.pick_port()
    assert flash.pick_port("socket://127.0.0.1:1") == "socket://127.0.0.1:1"
    monkeypatch.setattr(list_ports, "comports", lambda: [P("/dev/ttyACM0", 0x2E8A)])
    assert flash.pick_port() == "/dev/ttyACM0"


def test_cli_unreachable_port_is_a_clean_error(tmp_path):
    r = subprocess.run([NAKK, "flash", "--port", str(tmp_path / "no-such-tty")], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.startswith("nakk: cannot open") and "Traceback" not in r.stderr


def test_manifest_freezes_what_nakk_flash_would_copy(tmp_path, monkeypatch):
    """firmware/manifest.py run as MicroPython's makemanifest runs it (cwd = its folder, the manifest API
    as globals): it includes the port's manifest, requires the package.json deps, and freezes exactly
    the nakk modules that nakk flash copies to a box without a frozen nakk."""
    fw = build.firmware_dir()
    calls = {"include": [], "require": [], "package": []}
    api = {
        "include": lambda p, **kw: calls["include"].append(p),
        "require": lambda name, **kw: calls["require"].append(name),
        "package": lambda p, files=None, base_path=".", opt=None: calls["package"].append((p, files, base_path)),
        "module": lambda *a, **kw: pytest.fail("no single modules expected"),
    }
    monkeypatch.chdir(fw)
    with open(os.path.join(fw, "manifest.py")) as f:
        exec(f.read(), api)
    assert calls["include"] == ["$(PORT_DIR)/boards/manifest.py"]
    assert calls["require"] == [name for name, _v in build.package()[1]]
    [(pkg, files, base)] = calls["package"]
    assert pkg == "nakk" and os.path.isdir(os.path.join(fw, base, pkg))
    src = tmp_path / "ssd1306.py"
    src.write_text("x = 1\n")
    for name, version in build.package()[1]:
        build.seed_dep(name, version, {name + ".py": str(src)}, str(tmp_path))
    copied = sorted(p[len("/nakk/"):-4] + ".py" for p in build.tree(cache=str(tmp_path)) if p.startswith("/nakk/"))
    assert sorted(files) == copied


def test_journal_format_on_the_box_is_read_from_its_id_record():
    from nakk import journal as J
    from nakk import record
    same = record.encode(record.META, J._MAGIC + b"%d " % record.VERSION + b"0123456789abcdef")
    newer = record.encode(record.META, J._MAGIC + b"%d " % (record.VERSION + 1) + b"0123456789abcdef")
    assert flash._journal_version(bytes(same)) == record.VERSION
    assert flash._journal_version(bytes(newer)) == record.VERSION + 1   # nakk flash refuses this one
    assert flash._journal_version(b"\x00garbage") is None


def test_a_firmware_file_mpy_cross_refuses_is_a_build_error_not_a_traceback(tmp_path, monkeypatch):
    # nakk flash turns BuildError into "nakk: ..."; mpy-cross's refusal must arrive as one
    from nakk_host import unixport
    fw = tmp_path / "firmware"
    (fw / "nakk").mkdir(parents=True)
    (fw / "boot.py").write_text("# boot\n")
    (fw / "main.py").write_text("# main\n")
    (fw / "nakk" / "__init__.py").write_text("")
    (fw / "nakk" / "broken.py").write_text("def f(:\n")
    monkeypatch.setattr(unixport, "firmware_package_dir", lambda: str(fw / "nakk"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg"))
    with pytest.raises(build.BuildError) as e:
        build.tree(cache=str(tmp_path / "cache"), fw=str(fw), arch="armv6m")
    assert "mpy-cross could not compile nakk/broken.py" in str(e.value)


def test_a_running_box_with_results_waiting_is_refused_from_its_hello(tmp_path):
    """Issue 24: a box holding 101 results was read over the raw REPL for a minute and all 101 match
    numbers listed. The running app's hello says how many at once: refused in one line, in seconds, the
    box left running (no maintenance restart) and its flash as it was."""
    import time
    import boxes
    from nakk_host.simulator import Simulator
    image = str(tmp_path / "box.img")
    boxes.fill(image, 101)
    with Simulator(image, register=False) as sim:
        t0 = time.monotonic()
        r = subprocess.run([NAKK, "flash", "--port", sim.tty], capture_output=True, text=True, timeout=60)
        took = time.monotonic() - t0
        assert sim.running()
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr == ("nakk: the box holds 101 finished results the judge has not synced: run nakk sync "
                        "first, or nakk flash --force to go on (the results stay on the box)\n")
    assert "maintenance" not in r.stdout and took < 15, (r.stdout, took)


def test_the_journal_refusal_names_a_few_matches_and_counts_the_rest():
    assert flash._waiting(1, [1]).startswith("the box holds 1 finished result the judge has not synced (match 1):")
    assert "(matches 1, 2, 3, 4, 5 and 96 more)" in flash._waiting(101, list(range(1, 102)))
