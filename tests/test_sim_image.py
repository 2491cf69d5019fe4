"""`nakk sim` / `nakk demo` and their flash image: no other file is ever formatted, one `nakk:` line on a bad path,
the same run from any folder, and docs/simulator.md's dump command as written."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT, micropython_path

from nakk_host import flashimage
from nakk_host import simulator as S

NAKK = [sys.executable, "-m", "nakk_host.cli"]
EXAMPLE = os.path.join(ROOT, "examples", "saare-2020.jsonl")


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


def nakk(*args, cwd=ROOT, timeout=120):
    return subprocess.run(NAKK + list(args), capture_output=True, text=True, cwd=cwd, timeout=timeout)


def _not_images(tmp_path):
    """(path, what the refusal says it looks like) for files a judge might pass by mistake."""
    out = []
    ev = tmp_path / "ev.jsonl"
    shutil.copy(EXAMPLE, str(ev))
    out.append((ev, "JSON lines"))
    db = tmp_path / "judge.sqlite"
    con = sqlite3.connect(str(db))
    con.execute("create table results (id text primary key)")
    con.commit()
    con.close()
    out.append((db, "SQLite"))
    txt = tmp_path / "notes.txt"
    txt.write_text("Laud 3: Mets/Tamm vs Kask/Saar\n", encoding="utf-8")
    out.append((txt, "text"))
    empty = tmp_path / "empty.img"
    empty.write_bytes(b"")
    out.append((empty, "empty"))
    binary = tmp_path / "random.bin"
    binary.write_bytes(bytes((i * 151 + 7) % 256 for i in range(5000)))
    out.append((binary, "binary"))
    return out


def test_sim_and_demo_refuse_a_file_that_is_not_a_flash_image(tmp_path):
    for path, looks in _not_images(tmp_path):
        before = path.read_bytes()
        for args in (["sim", "--image", str(path), "--keys", "OK"], ["demo", "--image", str(path)]):
            r = nakk(*args)
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            assert r.stderr.startswith("nakk: %s is not a Nakk flash image (" % path), r.stderr
            assert looks in r.stderr and "--format" in r.stderr and r.stderr.count("\n") == 1, r.stderr
            assert path.read_bytes() == before                  # nothing written
    folder = tmp_path / "adir"
    folder.mkdir()
    r = nakk("sim", "--image", str(folder), "--keys", "OK")
    assert r.returncode == 2 and r.stderr == "nakk: %s is a folder, not a flash image\n" % folder
    # the Python API refuses as well, before any firmware runs
    with pytest.raises(S.SimulatorError, match="not a Nakk flash image"):
        S.Simulator(str(tmp_path / "ev.jsonl"))


def test_a_missing_image_is_created_and_format_overwrites_on_purpose(tmp_path):
    image = tmp_path / "new.img"
    r = nakk("sim", "--image", str(image), "--keys", "OK OK OK OK A")
    assert r.returncode == 0, r.stderr
    assert image.stat().st_size == flashimage.IMAGE_SIZE
    flashimage.check(str(image))                               # what it made is a Nakk flash image
    # and it is used again as it is (the match goes on)
    r = nakk("sim", "--image", str(image), "--keys", "OK")        # the next deal's results, unfinished
    assert r.returncode == 0 and "Score so far: A 2, B 0" in r.stdout, r.stdout + r.stderr
    # --format on an events file: overwritten with an empty flash, on purpose
    ev = tmp_path / "ev.jsonl"
    shutil.copy(EXAMPLE, str(ev))
    r = nakk("sim", "--image", str(ev), "--format", "--keys", "OK")
    assert r.returncode == 0, r.stderr
    assert "No match on the flash image" in r.stdout
    flashimage.check(str(ev))
    # erased flash (all 0xFF, what a blank chip reads) is no file to protect
    erased = tmp_path / "erased.img"
    erased.write_bytes(b"\xff" * flashimage.IMAGE_SIZE)
    flashimage.check(str(erased))


def test_an_image_in_a_missing_folder_is_one_nakk_line(tmp_path):
    bad = str(tmp_path / "no" / "such" / "x.img")
    for args in (["sim", "--image", bad, "--keys", "OK"], ["demo", "--image", bad], ["sim", "--image", bad]):
        r = nakk(*args)
        assert r.returncode == 2, r.stderr
        assert r.stderr == "nakk: cannot create the flash image %s: there is no folder %s\n" % (
            bad, os.path.dirname(bad)), r.stderr
    # the firmware's own entry point says it in one line too, without a MicroPython traceback;
    # run as the simulator runs it (its .mpy bytecode and its heap): compiling the whole app
    # from source inside the tests' 320K heap runs out, by how the heap happens to fragment
    # (the length of this path alone decided it), which is not what this checks
    env = dict(os.environ, MICROPYPATH=S.compiled_firmware() + ":.frozen")
    r = subprocess.run([micropython_path(), "-X", "heapsize=" + S.HEAP, "-m", "nakk.offbox.simmain", bad],
                       input=b"", capture_output=True, cwd=ROOT, env=env, timeout=60)
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err, err
    assert re.fullmatch(r"nakk: cannot open the flash image %s: .*\n" % re.escape(bad), err), err


def test_demo_runs_from_a_folder_holding_a_nakk_folder(tmp_path):
    # the parent of a clone named nakk: the unix port puts the working directory first on its import path
    clone = tmp_path / "nakk"
    (clone / "board").mkdir(parents=True)
    (clone / "__init__.py").write_text("", encoding="utf-8")
    (clone / "README.md").write_text("# Nakk\n", encoding="utf-8")
    image = tmp_path / "flash.img"
    # the installed command, as a user runs it (`python -m` would put the folder on CPython's path too)
    r = subprocess.run([os.path.join(os.path.dirname(sys.executable), "nakk"), "demo", "--image", "flash.img"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Winner: A" in r.stdout
    assert image.stat().st_size == flashimage.IMAGE_SIZE     # a relative --image is still the caller's


def test_the_documented_dump_command_works_as_written(tmp_path):
    with open(os.path.join(ROOT, "docs", "simulator.md"), encoding="utf-8") as f:
        text = f.read()
    cmds = [line for block in re.findall(r"```sh\n(.*?)\n```", text, re.S) for line in block.splitlines()
            if "-m nakk.offbox.dump" in line]
    assert len(cmds) == 1, cmds
    image = tmp_path / "nakk-flash.img"
    with S.Simulator(str(image)) as sim:
        for k in ("OK", "OK", "OK", "OK", "A"):
            sim.press(k)
    # the page's line, run by a shell from the clone; the image name is the example's, given here in full
    cmd = cmds[0].replace(".venv/bin/", os.path.dirname(sys.executable) + "/").replace("nakk-flash.img", str(image))
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines == [x.decode() for x in S.dump_events(str(image))] and len(lines) == 2
    assert '"type":"setup"' in lines[0] and '"type":"deal"' in lines[1]
