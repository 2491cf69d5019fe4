"""Every command that uses the judge's database, on a missing, an empty, a damaged and a foreign file: one
`nakk: …` line, a non-zero exit, the file byte for byte as it was (a missing one not created); one default."""

import json
import os
import sqlite3

import pytest

from nakk_host import cli
from nakk_host import store

# every command that opens the judge's database, with the arguments it needs to get that far
READERS = [
    ["results"], ["results", "--json"],
    ["sync", "--port", "loop://"],
    ["doctor", "--port", "loop://"],
    ["serve", "--port", "0"],
    ["tournament", "list"],
    ["players", "list"], ["players", "import", "pairs.csv"], ["players", "add", "Mets"],
    ["players", "withdraw", "1", "--by", "K", "--why", "ill"],
    ["players", "rename", "1", "Tamm", "--by", "K", "--why", "typo"],
    ["round"], ["round", "--show"], ["round", "--html", "draw.html"],
    ["assign", "--print"], ["assign", "--table", "1", "--image", "img"],
    ["enter", "--round", "1", "--table", "1", "--by", "K", "--why", "paper"],
    ["close", "--round", "1", "--table", "1", "--by", "K", "--why", "dead box"],
    ["standings"], ["standings", "--json"], ["standings", "--season"],
    ["deduct", "1", "--by", "K", "--why", "noise"],
    ["disqualify", "1", "--by", "K", "--why", "rude"],
    ["correct", "r1", "--void", "--by", "K", "--why", "wrong table"],
    ["history"], ["history", "1", "--json"],
    ["export", "--out", "out"], ["export", "--season", "--out", "out"],
]
# the commands that begin a database when it is missing (refused all the same on a bad file)
BEGINNERS = [
    ["tournament", "new", "Etapp", "--ruleset", "saare-2020", "--rounds", "2"],
    ["pair", "--port", "loop://", "--timeout", "0.2"],
    ["demo"],
]


def _damaged(path, wal=False):
    """A Nakk database whose pages after the first are overwritten (a disk that lost a write)."""
    conn = store.open_db(path)
    if not wal:
        conn.execute("PRAGMA journal_mode=DELETE")
    with conn:
        for i in range(200):
            conn.execute("INSERT INTO alarms (at, what) VALUES ('now', ?)", ("x" * 200,))
    conn.close()
    with open(path, "r+b") as f:
        f.seek(4096)
        f.write(b"\xa5" * 8192)


def _foreign(path):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Mari', '5551234')")
    conn.commit()
    conn.close()


KINDS = {
    "empty": lambda p: open(p, "wb").close(),
    "not sqlite": lambda p: open(p, "wb").write(b"my notes for the evening\n" * 20),
    "damaged": _damaged,
    "damaged, in WAL mode": lambda p: _damaged(p, wal=True),
    "foreign": _foreign,
    "bare sqlite": lambda p: sqlite3.connect(p).execute("PRAGMA user_version=0").connection.commit(),
}


def _one_line_error(capsys, argv):
    try:
        rc = cli.main(argv)
    except SystemExit as e:          # argparse
        rc = e.code
    out = capsys.readouterr()
    assert rc not in (0, None), (argv, out)
    lines = out.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nakk: ") and "Traceback" not in out.err, (argv, out.err)
    return lines[0]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NAKK_DB", raising=False)
    monkeypatch.delenv("NAKK_JUDGE", raising=False)
    (tmp_path / "pairs.csv").write_text("nimi\nMets\nTamm\n")
    return tmp_path


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_file_that_is_not_a_whole_nakk_database_is_refused_untouched(here, capsys, kind):
    db = str(here / "judge.db")
    KINDS[kind](db)
    before = open(db, "rb").read()
    listing = sorted(os.listdir(here))
    for argv in READERS + BEGINNERS:
        line = _one_line_error(capsys, argv + ["--db", db])
        assert "judge.db" in line and "Nakk database" in line or "damaged" in line, (argv, line)
        assert open(db, "rb").read() == before, argv
        assert sorted(os.listdir(here)) == listing, argv     # no -wal, -shm, html, out/ left behind


def test_a_missing_database_is_an_error_and_is_not_created(here, capsys):
    for argv in READERS:
        line = _one_line_error(capsys, argv + ["--db", "typo.db"])
        assert "typo.db: no such database" in line, (argv, line)
        assert not os.path.exists("typo.db"), argv
        assert not os.path.exists("draw.html") and not os.path.exists("out"), argv


def test_pair_begins_a_database_only_when_the_box_says_yes(here, capsys):
    _one_line_error(capsys, ["pair", "--port", "loop://", "--timeout", "0.2", "--db", "new.db"])
    assert not os.path.exists("new.db")
    line = _one_line_error(capsys, ["pair", "--port", "loop://", "--db", "no/such/folder/new.db"])
    assert "no such folder" in line


def test_one_default_for_every_command_nakk_db_or_here(here, capsys, monkeypatch):
    monkeypatch.setenv("NAKK_DB", str(here / "evening.db"))
    for argv in READERS:
        line = _one_line_error(capsys, argv)
        assert "evening.db: no such database" in line, (argv, line)
    # and --help says so, for every command that has --db
    p = cli.parser()
    subs = [a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"][0].choices
    with_db = []
    for name, sp in subs.items():
        for a in sp._actions:
            if "--db" in a.option_strings and name != "demo":
                with_db.append(name)
                assert a.default == str(here / "evening.db") and "from $NAKK_DB" in a.help, name
    assert set(with_db) >= {"sync", "results", "pair", "doctor", "serve", "tournament", "standings", "export"}
    monkeypatch.delenv("NAKK_DB")
    for argv in (["results"], ["standings"], ["doctor", "--port", "loop://"], ["sync"]):
        line = _one_line_error(capsys, argv)
        assert line.startswith("nakk: nakk.db: no such database"), line


def test_a_database_another_nakk_has_open_is_read_as_it_is(here, capsys):
    """While `nakk sync` (or serve) holds the database, its write-ahead log beside it, a command reads it
    through SQLite's locks and sees what was committed."""
    db = str(here / "judge.db")
    conn = store.open_db(db)
    with conn:
        conn.execute("INSERT INTO alarms (at, what) VALUES ('now', 'committed')")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO alarms (at, what) VALUES ('now', 'not yet')")    # a write under way
    assert os.path.exists(db + "-wal")
    try:
        assert cli.main(["results", "--db", db, "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == []
        check = store.open_db(db, create=False)
        assert [r[0] for r in check.execute("SELECT what FROM alarms")] == ["committed"]
        check.close()
    finally:
        conn.rollback()
        conn.close()


def test_the_readmes_database_is_not_a_tracked_file():
    """`nakk demo --db nakk.db` (the README) writes ./nakk.db: git ignores it, and the repository ships none."""
    from conftest import ROOT
    ignore = open(os.path.join(ROOT, ".gitignore"), encoding="utf-8").read().split()
    assert "/nakk.db" in ignore
    import shutil
    import subprocess
    if shutil.which("git") and os.path.exists(os.path.join(ROOT, ".git")):      # a clone (a worktree's .git is a file)
        tracked = subprocess.run(["git", "ls-files", "nakk.db"], cwd=ROOT, capture_output=True, text=True).stdout
        assert tracked == ""


def test_an_empty_db_name_is_no_database(here, capsys):
    for argv in READERS + BEGINNERS:
        for name in ("", ":memory:") if argv != ["demo"] else (":memory:",):    # demo --db "": its own temporary one
            line = _one_line_error(capsys, argv + ["--db", name])
            assert "names no database file" in line, (argv, line)


def test_opening_the_database_again_keeps_what_another_process_sees(tmp_path):
    """A process holding a connection (the console's watcher, the hall's feed) opens the database again
    (each request does): another process's open and close must not take its write-ahead log for unused,
    or this process's later commits are seen by no one else."""
    import subprocess
    import sys
    from nakk_host import store
    db = str(tmp_path / "judge.db")
    first = store.open_db(db)
    first.execute("PRAGMA data_version").fetchone()
    store.open_db(db, create=False).close()                    # a request's own connection, in this process
    subprocess.run([sys.executable, "-c", "import sys; from nakk_host import store; "
                    "store.open_db(sys.argv[1], create=False).close()", db], check=True)
    with first:
        first.execute("INSERT INTO alarms (at, what) VALUES ('now', 'probe')")
    other = subprocess.run([sys.executable, "-c", "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("
                            "\"SELECT what FROM alarms\").fetchall())", db],
                           capture_output=True, text=True, check=True)
    first.close()
    assert other.stdout.strip() == "[('probe',)]", other.stdout
