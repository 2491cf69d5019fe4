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


def test_an_undo_after_a_boot_takes_back_the_state_kept_without_reading_the_flash(tmp_path):
    """The table keeps a copy of the state at boot and once each entry is on flash; an undo of
    the entry after it takes the copy back (no pass over the match on flash in the OK press),
    and the state is the one the journal folds to."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "firmware"))
    from nakk.journal import Journal
    from nakk.event import parse
    from nakk.match import Match
    from nakk.table import Table
    root = str(tmp_path / "j")
    t = Table(Journal(root, reserve=0))
    assert t.start({"ruleset": "saare-2020", "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]})
    assert t.flush()
    for fields in ({"type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"},
                   {"type": "deal", "game": "ruutu", "maker": "B", "result": "jann", "winner": "B"}):
        t.submit(fields)
        assert t.flush()
    t = Table(Journal(root, reserve=0))        # the box boots
    assert t.resume()
    reads = []
    history = t.match._history
    t.match._history = lambda: reads.append(1) or history()
    t.submit({"type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"})
    assert t.flush() and t.match.summary()["score"] == [4, 6]
    t.submit({"type": "cancel", "target": 4})
    assert t.flush() and reads == []
    assert t.match.summary()["score"] == [2, 6]
    # the second undo in a row has no copy from before its entry: it folds the match from flash
    t.submit({"type": "cancel", "target": 3})
    assert t.flush() and reads == [1]
    assert t.match.summary()["score"] == [2, 0]
    on_flash = Match()
    for r in Journal(root, reserve=0).records(t.n):
        on_flash.apply(parse(r))
    assert on_flash.summary() == t.match.summary()
