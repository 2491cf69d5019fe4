"""Power cuts: every program or erase of a full match, a judge's ack and a
compaction is cut in turn (cleanly, and half done) on a simulated NOR flash
under littlefs v2, inside one MicroPython process (tests/mpy/powercut.py),
and so is every write of the start that follows a cut;
a journal that reports records saved before flushing them must be caught;
and the simulator, killed with SIGKILL at arbitrary moments while its
journal lives in a littlefs image file, behaves the same."""
import os
import re
import subprocess

import pytest

from conftest import FIRMWARE, ROOT, TESTS, micropython_path, run_mpy

MPY_TESTS = os.path.join(TESTS, "mpy")


def sweep(*args):
    r = run_mpy([os.path.join(MPY_TESTS, "powercut.py"), *args], heap="2M", path=(MPY_TESTS,),
                timeout=600)
    out = r.stdout + r.stderr
    m = re.search(r"^RESULT (.*)$", r.stdout, re.M)
    assert m, out[-3000:]
    res = dict(kv.split("=", 1) for kv in m.group(1).split())
    phases = dict(kv.split(":") for kv in res.pop("phases").split(","))
    res = {k: int(v) for k, v in res.items()}
    res["phases"] = {k: int(v) for k, v in phases.items()}
    return res, out


def check_complete_sweep(res, out):
    assert res["failures"] == 0, out[-4000:]
    # every cut point of the scenario, in both modes, and power really went
    assert res["runs"] == 2 * res["ops"] and res["cuts"] == res["runs"], res
    ph = res["phases"]
    # the sweep covers the whole match, the ack with its compaction, and a new match
    assert ph["ack"] - ph["match"] >= 40 and ph["second"] - ph["ack"] >= 5 and ph["end"] > ph["second"], ph
    assert res["erases"] >= 5 and res["sealed"] == 1, res  # erases and a seal are among the cuts
    # the starts that finish an interrupted compaction were cut as well
    assert res["recuts"] > 0, res
    assert "MemoryError" not in out


def test_every_cut_on_a_new_flash():
    res, out = sweep()
    check_complete_sweep(res, out)


def test_every_cut_on_a_worn_flash():
    # 150 matches played and synced first: littlefs's allocator has wrapped
    # around and metadata has been relocated.
    res, out = sweep("aged=150")
    check_complete_sweep(res, out)


def test_the_sweep_catches_a_journal_that_reports_saved_before_flushing():
    res, out = sweep("broken")
    assert res["failures"] > 0 and res["lost"] > 0, out[-3000:]
    assert "reported saved" in out
    # its unflushed files are closed by finalisers after the cut, with the
    # heap locked, against the dead flash: they fail, nothing allocates
    assert "EIO" in out and "MemoryError" not in out


# ---------------------------------------------------------------- the simulator

EVENTS = 23  # events per match in tests/mpy/simkill.py (then it acks the match)


def _start(image):
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([FIRMWARE, MPY_TESTS, ".frozen"])
    return subprocess.Popen(
        [micropython_path(), "-X", "heapsize=320K", os.path.join(MPY_TESTS, "simkill.py"), image],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def test_killing_the_simulator_is_a_power_cut(tmp_path):
    image = str(tmp_path / "flash.img")
    saved = {}      # match -> records reported saved
    acked = set()   # matches whose ack() returned
    fs_id = None
    kills = [1, 9, 23, 40, 5, 57, 31, 12]
    for k in kills + [None]:
        p = _start(image)
        try:
            have = {}
            acked_before = set(acked)
            for line in p.stdout:
                w = line.split()
                assert w and w[0] != "bad", line
                if w[0] == "have":
                    have[int(w[1])] = (int(w[2]), int(w[3]))
                elif w[0] == "acked":
                    acked.add(int(w[1]))
                elif w[0] == "ready":
                    if fs_id is None:
                        fs_id = w[1]
                    assert w[1] == fs_id
                    break
            else:
                raise AssertionError("no start: " + p.stderr.read()[-3000:])
            for n, (count, fin) in have.items():
                assert n not in acked_before, "acked match %d is back" % n
                assert count in (saved.get(n, 0), saved.get(n, 0) + 1), (n, count, saved.get(n))
                saved[n] = count
            for n, count in saved.items():
                # a match whose last record was saved is acked next: a kill between ack()
                # returning and "acked" reaching the pipe leaves it gone, and rightly so
                in_ack = count == EVENTS
                assert n in acked_before or n in have or count == 0 or in_ack, "match %d lost" % n
            if k is None:
                break
            seen = 0
            for line in p.stdout:
                w = line.split()
                if w[0] == "saved":
                    saved[int(w[1])] = int(w[2]) + 1
                    seen += 1
                elif w[0] == "acked":
                    acked.add(int(w[1]))
                if seen == k:
                    break
            p.kill()  # SIGKILL, wherever it is
            p.wait()
            # What it reported saved before the kill landed, still in the pipe
            # (it runs ahead of this reader): saved too, and must be there.
            for line in p.stdout:
                if not line.endswith("\n"):
                    break           # cut short by the kill: never fully reported
                w = line.split()
                if w and w[0] == "saved":
                    saved[int(w[1])] = int(w[2]) + 1
                elif w and w[0] == "acked":
                    acked.add(int(w[1]))
        finally:
            p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()
    assert len(acked) >= 3 and sum(saved.values()) >= 100, (acked, saved)
