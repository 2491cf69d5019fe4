"""The box always boots: a full flash mid-match, a flipped bit in a record, and whatever else is on the flash.

The whole box: the real App (tests/mpy/app_check.py) on the MicroPython unix
port, from the firmware compiled to .mpy as the Pico runs it, with the heap
capped at 320K, over a LittleFS image. tests/mpy/box_faults.py puts on the
image what a season can leave there (a full flash, a bit gone bad, a record
of a newer format, a setup the rules refuse, garbage in a file). Every run
of app_check is one power-on; each test checks that the box starts, says
what is wrong in the players' words, and keeps every record."""
import json
import os

import pytest

from conftest import TESTS, run_box

from nakk_host import device as D
from nakk_host import judge as J
from nakk_host import simulator as S

APP = os.path.join(TESTS, "mpy", "app_check.py")
FAULTS = os.path.join(TESTS, "mpy", "box_faults.py")
START = "OK OK OK OK"   # saare-2020, table 1, round 1, A1 shuffles first
DAMAGED = "Mäng %d: kahjustatud, kutsu kohtunik"


def mpy(args, timeout=120):
    return run_box(args, timeout=timeout)


def fault(image, *args):
    r = mpy([FAULTS, str(image)] + [str(a) for a in args])
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def boot(image, script, *more):
    """One power-on of the whole box: its report (key -> rest of line; `said` lines as a list)."""
    r = mpy([APP, str(image), script] + [str(a) for a in more])
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    out = {"said": []}
    for line in r.stdout.splitlines():
        key, _, rest = line.partition(" ")
        if key == "said":
            seq, msg, detail = [x.strip() for x in rest.split("|")]
            out["said"].append((int(seq), msg, detail))
        else:
            out[key] = rest
    out["summary"] = json.loads(out["summary"])
    return out


def records(image, n):
    """The sound records of match n, as the firmware's own dump reads them (canonical event lines)."""
    return [json.loads(x) for x in S.dump_events(str(image), n)]


def test_a_full_flash_mid_match_refuses_the_entry_keeps_the_sequence_and_the_box_boots(tmp_path):
    img = tmp_path / "flash.img"
    # the flash fills up under a match: the journal refuses an entry (a new segment file:
    # littlefs says ENAMETOOLONG or ENOSPC), and the flash stays full for the next one
    refused = int(fault(img, "edge", 2000).split("refused ")[1].split()[0])
    on_flash = records(img, 1)
    assert [e["seq"] for e in on_flash] == list(range(1, refused))
    r = boot(img, "said A said B said unfill A said")
    before, after_a, after_b, freed = r["said"]
    assert before[0] == refused - 1
    # each press on the full flash: the entry refused in words, the screen as on flash
    for s in (after_a, after_b):
        assert s[0] == refused - 1 and s[1] == "Mälu täis: sünkrooni", s
    assert r["beeps"].split()[:2] == ["150", "150"]
    # room again: the next entry takes the next number on flash, not one past the refused ones
    assert freed[0] == refused and r["summary"]["seq"] == refused
    seqs = [e["seq"] for e in records(img, 1)]
    assert seqs == list(range(1, refused + 1))
    again = boot(img, "said")
    assert again["summary"] == r["summary"] and again["mode"] == "1" and again["msg"] == "-"


def test_a_flipped_bit_in_an_unfinished_match_leaves_a_box_that_starts_and_says_which(tmp_path):
    img = tmp_path / "flash.img"
    fault(img, "play", 26)                    # 27 records: the early ones sealed into the body
    kept = records(img, 1)
    assert len(kept) == 27
    fault(img, "flip", 5)                     # one bit of event 5 goes bad
    r = boot(img, "said")
    assert r["said"][0][1] == DAMAGED % 1 and "seq" in r["said"][0][2]   # which match, and why
    assert r["summary"] is None and r["mode"] == "0"       # no match in play: the start screen
    # every other record is still there for the judge; only the damaged one is unreadable
    left = records(img, 1)
    assert left == [e for e in kept if e["seq"] != 5]
    # the players start a new match; the damaged one stays on flash as it was
    r = boot(img, START + " A")
    assert r["summary"]["seq"] == 2 and r["summary"]["deals"] == 1 and r["mode"] == "1"
    assert records(img, 1) == left and [e["seq"] for e in records(img, 2)] == [1, 2]
    again = boot(img, "")
    assert again["summary"] == r["summary"]
    # the judge's tool hears of it too: hello names the damaged match, doctor says it in words
    with S.Simulator(str(img), register=False) as sim:
        with D.Box(sim.tty, timeout=5) as box:
            h = box.hello()
        assert h["damaged"] == 1 and h["damaged_matches"] == [1], h
        said = J.diagnose(D.Port(sim.tty, "sim", "sim"), None, 5)["problems"]
    assert any("damaged records (match 1)" in x for x in said), said


def _setup(**over):
    ev = {"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "match": 1,
          "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]}
    ev.update(over)
    return ev


DEAL = {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"}


@pytest.mark.parametrize("case", ["newer-record", "refused-setup", "unknown-ruleset"])
def test_resume_never_raises_whatever_the_latest_match_holds(tmp_path, case):
    img = tmp_path / "flash.img"
    if case == "newer-record":
        fault(img, "play", 6)
        fault(img, "newer", 4)                # a record of journal format 2 (valid CRC)
        n, kept = 1, 6                        # 7 records, one not readable by this firmware
    else:
        setup = _setup(settings={"target": 999}) if case == "refused-setup" else _setup(ruleset="saare-2030")
        f = tmp_path / "m.jsonl"
        f.write_text(json.dumps(setup) + "\n" + json.dumps(DEAL) + "\n")
        fault(img, "raw", str(f))
        n, kept = 1, 2
    before = records(img, n)
    assert len(before) == kept
    r = boot(img, "said")
    assert r["said"][0][1] == DAMAGED % n and r["said"][0][2], r["said"]
    assert r["summary"] is None and r["mode"] == "0"
    assert records(img, n) == before                      # every record kept
    r = boot(img, START + " A")                           # and a new match can be played
    assert r["summary"]["deals"] == 1 and records(img, n) == before


def test_a_journal_of_a_newer_format_starts_the_box_and_writes_nothing(tmp_path):
    img = tmp_path / "flash.img"
    fault(img, "play", 2)
    out = fault(img, "idnewer")
    assert out.split("matches ")[1].split() == ["1"]
    r = boot(img, "said " + START + " said")
    assert r["said"][0][1] == "Mälu kahjustatud, kutsu kohtunik" and "newer" in r["said"][0][2]
    assert r["summary"] is None
    assert r["said"][1][1] != "-" and r["said"][1][0] == 0     # the new match was refused in words
    assert fault(img, "ls").split("matches ")[1].split() == ["1"]   # no match written
    # the link still answers: the judge's tool hears why the box hands over nothing
    with S.Simulator(str(img), register=False) as sim:
        with D.Box(sim.tty, timeout=5) as box:
            h = box.hello()
            assert h["fs_id"] is None and "newer" in h["broken"] and box.list() == ([], False)


@pytest.mark.parametrize("text", [
    '{"ruleset": 7, "sides": "no", "table": "seven", "round": [1]}',
    "\u00ff\u00fe not json at all",
    '{"ruleset": "bridge", "sides": [{"id": "A", "name": "x"}]}',
])
def test_a_wrong_assignment_from_the_judge_is_said_and_a_match_can_still_be_set_up(tmp_path, text):
    img = tmp_path / "flash.img"
    fault(img, "file", "journal/assignment.json", text)
    r = boot(img, "said " + START)
    assert r["said"][0][1] == "Kohtuniku määrang vigane" and r["said"][0][2], r["said"]
    assert r["summary"]["seq"] == 1 and r["mode"] == "1"     # the start screen set the match up by hand
    assert r["assignment"] == "kept"                         # the file is left for the judge's tool


@pytest.mark.parametrize("text", ['{"lang": 5, "sound": "loud"', "[1, 2, 3]", "\u00ff\u00fe"])
def test_a_damaged_settings_file_gives_the_defaults_and_the_match_goes_on(tmp_path, text):
    img = tmp_path / "flash.img"
    fault(img, "play", 2)
    before = records(img, 1)
    fault(img, "file", "settings.json", text)
    r = boot(img, "said A")
    assert r["said"][0][1] == "-" and r["mode"] == "1"        # Estonian, the match in play is back
    assert r["summary"]["seq"] == 4 and records(img, 1)[:3] == before


def test_enametoolong_on_a_new_segment_is_a_full_flash_and_the_sequence_holds(tmp_path):
    """littlefs answers a new file on a full flash with ENAMETOOLONG (errno 36), not ENOSPC. The
    journal runs on CPython too, where the OS gives the same errno for a path too long to create:
    the journal's folder is put so deep that its match folder fits and a segment file does not."""
    import errno
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "firmware"))
    from nakk.journal import Journal
    from nakk.table import Table
    base = str(tmp_path)
    limit = os.pathconf(base, "PC_PATH_MAX") - 1            # longest path the OS takes
    root = base
    while limit - 12 - len(root) > 250:                      # deep, in components the OS allows
        root += "/" + "d" * 200
    root += "/" + "j" * (limit - 13 - len(root))             # (50 to 249 j) root + "/m000001/0000" is one too long
    os.makedirs(root)
    assert len(root + "/m000001") <= limit < len(root + "/m000001/0000")
    t = Table(Journal(root, reserve=0))
    assert t.start({"ruleset": "saare-2020", "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]})
    assert not t.flush()                                     # the setup's segment cannot be created
    assert t.full and "flash full" in t.error
    assert t.match is None                                   # nothing on flash: nothing in play
    try:
        open(root + "/m000001/0000", "ab")
    except OSError as e:
        assert e.errno == errno.ENAMETOOLONG                 # the errno the journal was given


def test_a_start_that_cannot_make_its_match_on_flash_leaves_the_table_as_it_was(tmp_path):
    """The press that starts a match only folds its setup; the match is made on flash when the
    setup is flushed (after the screen shows it, "saving"). When littlefs cannot make it then,
    the table goes back to the match it had, nothing is half-made, and the next start works."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "firmware"))
    from nakk.journal import Journal
    from nakk.table import Table
    root = str(tmp_path / "j")
    setup = {"ruleset": "saare-2020", "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]}
    t = Table(Journal(root, reserve=0))
    assert t.start(setup) and t.flush()
    t.submit({"type": "close", "reason": "abandoned at the table: started by mistake"})
    assert t.flush() and t.match.locked()
    first = t.match
    assert t.start(setup)
    assert t.n == 2 and not os.path.exists(root + "/m000002")   # nothing written by the press
    os.mkdir(root + "/next.tmp")          # the journal's next-number file cannot be written
    assert not t.flush()
    assert "flash" in t.error and not t.full
    assert t.n == 1 and t.match is first and t.pending is None
    assert not os.path.exists(root + "/m000002") and sorted(Journal(root).matches()) == [(1, True)]
    os.rmdir(root + "/next.tmp")
    assert t.start(setup) and t.flush()   # the same number, now on flash
    assert t.n == 2 and Journal(root).matches() == [(1, True), (2, False)]


def test_the_start_screen_loads_no_ruleset(tmp_path):
    """The start wizard asks its questions from the rulesets' table: a box on its start screen
    holds no ruleset module (Saare mäng alone is ~34 KB of the unix port's heap); the one the
    players choose is loaded when OK would start it."""
    import subprocess
    import sys
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from nakk.table import Table\n"
            "from nakk.ui import flows as U\n"
            "u = U.Ui(Table())\n"
            "loaded = lambda: sorted(m for m in sys.modules if m.startswith('nakk.rules.'))\n"
            "print(u.mode == U.START, loaded())\n"
            "print(u.likely_match(), loaded())\n"
            "for i in range(3): u.handle(U.K.event(U.K.SHORT, U.K.OK))   # game, table, round\n"
            "print(u.likely_match().rules.name, loaded())\n"
            # Turniirisasku: its room and boards questions too; the boards' default is the table's
            "u = U.Ui(Table())\n"
            "for b in (U.K.NEXT, U.K.NEXT, U.K.OK, U.K.OK, U.K.OK, U.K.OK): u.handle(U.K.event(U.K.SHORT, b))\n"
            "print(u.items[u.cursor], u.likely_match(), loaded())\n"
            "u.handle(U.K.event(U.K.SHORT, U.K.OK))   # boards\n"
            "print(u.likely_match().rules.name, loaded())\n") % os.path.join(os.path.dirname(TESTS), "firmware")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["True []", "None []", "saare-2020 ['nakk.rules.common', 'nakk.rules.saare']",
                                     "8 None ['nakk.rules.common', 'nakk.rules.saare']",
                                     "sasku ['nakk.rules.common', 'nakk.rules.saare', 'nakk.rules.sasku']"]


def test_the_journal_counts_and_finds_matches_without_listing_them(tmp_path):
    """What the box asks after every entry, get and ack (a full box holds ~160 matches) agrees
    with matches(), the list the judge's `list` still gets."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "firmware"))
    from nakk.journal import Journal
    j = Journal(str(tmp_path / "j"), reserve=0)
    assert j.latest() is None and j.count_finished() == 0 and not j.has(1)
    for fin in (True, False, True, True):
        n = j.new_match()
        j.append(n, b'{"type":"setup"}', finished=fin)
    listed = j.matches()
    assert j.count_finished() == sum(1 for _, fin in listed if fin) == 3
    assert j.count_finished(lambda n: n == 3) == 2
    assert j.latest() == listed[-1][0] == 4 and j.has(2) and not j.has(5)
    again = Journal(str(tmp_path / "j"), reserve=0)        # the tails read from flash, not kept
    assert again.count_finished() == 3 and again.latest() == 4


def test_an_entry_the_heap_cannot_write_is_refused_not_shown_as_saved(tmp_path, monkeypatch):
    """No room on the heap for the segment file's buffer (MemoryError at open): the entry is not on
    flash, so the table says the save failed and the match in play is what is on flash; the next
    entry is saved in its place."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "firmware"))
    from nakk import jread as J            # the records are written by its _write
    from nakk.journal import Journal
    from nakk.table import Table
    t = Table(Journal(str(tmp_path), reserve=0))
    assert t.start({"ruleset": "saare-2020", "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]})
    assert t.flush()
    real = open
    fail = [True]

    def no_heap(path, mode="r", *a):
        if "a" in mode and fail[0]:
            fail[0] = False
            raise MemoryError("memory allocation failed, allocating 1280 bytes")
        return real(path, mode, *a)
    monkeypatch.setattr(J, "open", no_heap, raising=False)
    deal = {"type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"}
    t.submit(dict(deal))
    assert t.match.st.score[0] > 0                  # on screen, "saving"
    assert not t.flush()                            # not on flash: said, not shown as saved
    assert "memory" in t.error and not t.full
    assert t.match.seq == 1 and t.match.st.score == [0, 0]    # what is on flash
    t.submit(dict(deal))                            # entered again: saved, with the seq it should have
    assert t.flush() and t.match.seq == 2
    again = Table(Journal(str(tmp_path), reserve=0))
    assert again.resume() and again.match.seq == 2 and again.match.st.score == t.match.st.score


def test_a_box_whose_journal_has_no_index_boots_counts_and_syncs_every_result(tmp_path):
    """A journal as a firmware before the index left it (finished matches, no index file): the first
    boot reads every match, counts them all, and writes the index; the next boot has it, and the
    judge gets every result, once."""
    import boxes
    from nakk_host import store
    from nakk_host import sync as Sy
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "old", db, count=12)
    assert "index yes" in fault(image, "ls")          # the box that filled it wrote one
    assert "index no" in fault(image, "noindex")
    with S.Simulator(str(image), register=False) as sim:
        with D.Box(sim.tty, timeout=5) as box:
            h = box.hello()
            assert h["unsynced"] == 12 and h["ready"] == 12 and not h["damaged"], h
    assert "index yes" in fault(image, "ls")          # written back by that boot
    with S.Simulator(str(image), register=False) as sim:
        rep = Sy.sync([D.Port(sim.tty)], db)[0]
        assert rep.ok() and len(rep.new) == 12 and rep.left == 0, rep.to_json()
    conn = store.open_db(db)
    try:
        got = sorted(r["result_id"] for r in store.results(conn))
    finally:
        conn.close()
    assert got == sorted("%s-%d" % (fs_id, n) for n in range(1, 13))
