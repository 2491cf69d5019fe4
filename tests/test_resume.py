"""A box that loses power resumes where it was: the match folded from its journal equals the match as played."""
import os

import pytest

from conftest import ROOT, TESTS, run_mpy

EXAMPLE = os.path.join(ROOT, "examples", "saare-2020.jsonl")


@pytest.mark.parametrize("cut", [1, 4, 7, 10, 12])
def test_resume_from_journal(tmp_path, cut):
    r = run_mpy([os.path.join(TESTS, "mpy", "resume_check.py"), str(tmp_path / "flash.img"), EXAMPLE, str(cut)])
    assert r.returncode == 0, r.stderr
    resumed, straight, finished = r.stdout.splitlines()
    assert resumed == straight
    assert ('"over":true' in straight) == (finished == "finished=1")
    assert '"seq":%d' % cut in resumed


def test_resume_after_an_undo(tmp_path):
    lines = open(EXAMPLE).read().splitlines()[:4]
    lines.append('{"seq":5,"type":"cancel","target":4}')
    lines.append('{"seq":6,"type":"deal","game":"suit","maker":"A","result":"win","winner":"A"}')
    f = tmp_path / "m.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = run_mpy([os.path.join(TESTS, "mpy", "resume_check.py"), str(tmp_path / "flash.img"), str(f), "6"])
    assert r.returncode == 0, r.stderr
    resumed, straight, _ = r.stdout.splitlines()
    assert resumed == straight and '"score":[4,6]' in resumed


def test_the_ui_resumes_where_it_was_after_every_power_cut_on_littlefs(tmp_path):
    # the UI on a journal in a LittleFS image, restarted after each step: entry, undo, end, lock, next match
    r = run_mpy([os.path.join(TESTS, "mpy", "ui_resume.py"), str(tmp_path / "flash.img")], path=(TESTS,))
    assert r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "PASS", r.stdout + r.stderr
