"""The judge's database: one SQLite file (WAL, synchronous=FULL), schema versioned with PRAGMA user_version.

Every part of the judge's side reads and writes through here: `nakk sync`
stores results, the tournament commands add their own tables as further
migrations, `nakk serve` only reads. A result is kept as the exact bytes the
box stored (its canonical event lines joined by "\\n"), never re-serialised;
everything shown is folded again from those bytes.

Schema changes are migrations appended to MIGRATIONS: the list index + 1 is
the user_version a database has once that migration ran. Never edit a
migration that has shipped; add one.
"""

import json
import os
import stat
import sqlite3
import time


class StoreError(Exception):
    """A database the judge's tool cannot use (not SQLite, newer schema, locked)."""


# Each entry: (what it adds, SQL script). Index + 1 = user_version after it.
MIGRATIONS = [
    ("devices, results, alarms", """
CREATE TABLE devices (
    device_id   TEXT PRIMARY KEY,          -- machine.unique_id() of the box, hex ("sim-..." for a simulator)
    fs_id       TEXT,                      -- the box's filesystem id when it was paired
    key         BLOB,                      -- HMAC-SHA256 key given at pairing (32 bytes)
    name        TEXT,                      -- what the judge calls the box (optional)
    paired_at   TEXT,
    last_seen   TEXT,
    last_hello  TEXT                       -- the box's last hello, JSON
);
CREATE TABLE results (
    id          INTEGER PRIMARY KEY,
    result_id   TEXT NOT NULL UNIQUE,      -- "<fs_id>-<match_no>" from a box; "paper-<n>" typed in
    source      TEXT NOT NULL,             -- 'box' | 'paper'
    device_id   TEXT,
    fs_id       TEXT,
    match_no    INTEGER,
    events      BLOB NOT NULL,             -- the exact stored bytes: canonical event lines, "\\n"-joined
    sha256      TEXT NOT NULL,             -- hex SHA-256 of events
    signature   TEXT,                      -- hex HMAC-SHA256 as the box sent it (NULL for paper)
    status      TEXT NOT NULL,             -- 'verified' | 'flagged'
    problems    TEXT NOT NULL DEFAULT '[]',-- JSON list of plain-words reasons when flagged
    ruleset     TEXT,
    tournament  TEXT,
    table_no    INTEGER,
    round_no    INTEGER,
    room        INTEGER,
    summary     TEXT NOT NULL,             -- JSON: the match folded again (totals, winner, bonuses, ...)
    received_at TEXT NOT NULL
);
CREATE INDEX results_place ON results (tournament, round_no, table_no);
CREATE TABLE alarms (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    device_id   TEXT,
    result_id   TEXT,
    what        TEXT NOT NULL,             -- plain words: why this is an alarm
    events      BLOB                       -- what was offered, kept for the judge
);
"""),
    ("the judge's day: seasons, tournaments, entrants, the draw, assignments, judge's records", """
CREATE TABLE seasons (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);
CREATE TABLE tournaments (
    id          INTEGER PRIMARY KEY,
    code        TEXT NOT NULL UNIQUE,      -- what the boxes carry as setup.tournament
    name        TEXT NOT NULL,
    date        TEXT,
    place       TEXT,
    ruleset     TEXT NOT NULL,
    settings    TEXT NOT NULL DEFAULT '{}',-- JSON: the ruleset's settings for every match
    format      TEXT NOT NULL,             -- 'stage' (Saare mäng) | 'teams' (Turniirisasku) | 'schmier'
    rounds      INTEGER NOT NULL,
    boards      INTEGER,                   -- Turniirisasku: boards per match (each room plays them all)
    draw        TEXT NOT NULL DEFAULT 'auto', -- 'auto' | 'round-robin' | 'swiss'
    order_by    TEXT NOT NULL,             -- JSON list: the standings' order of criteria
    season_id   INTEGER REFERENCES seasons(id),
    created_at  TEXT NOT NULL
);
CREATE TABLE entrants (
    id          INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    no          INTEGER NOT NULL,          -- the pair's (team's) number in the tournament: never changes
    name        TEXT NOT NULL,
    club        TEXT NOT NULL DEFAULT '',
    players     TEXT NOT NULL DEFAULT '[]',-- JSON list of names (a team: its first pair, then its second)
    key         TEXT NOT NULL,             -- who this is across a season's stages (kept through a rename)
    added_at    TEXT NOT NULL,
    UNIQUE (tournament_id, no)
);
CREATE TABLE rounds (
    id          INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round_no    INTEGER NOT NULL,
    method      TEXT NOT NULL,             -- 'round-robin' | 'swiss' | 'random'
    seed        INTEGER NOT NULL,
    drawn_at    TEXT NOT NULL,
    UNIQUE (tournament_id, round_no)
);
CREATE TABLE draw (
    id          INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round_no    INTEGER NOT NULL,
    table_no    INTEGER NOT NULL,
    room        INTEGER NOT NULL DEFAULT 0,-- Turniirisasku: 1 or 2; 0 elsewhere
    a           INTEGER NOT NULL REFERENCES entrants(id),
    b           INTEGER REFERENCES entrants(id),   -- NULL: a bye for a
    c           INTEGER REFERENCES entrants(id),   -- Schmier's third team
    first_board INTEGER,
    last_board  INTEGER,
    UNIQUE (tournament_id, round_no, table_no, room)
);
CREATE TABLE assignments (
    id          INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round_no    INTEGER NOT NULL,
    table_no    INTEGER NOT NULL,
    room        INTEGER NOT NULL DEFAULT 0,
    device_id   TEXT,
    content     TEXT NOT NULL,             -- the assignment record pushed, JSON
    pushed_at   TEXT NOT NULL
);
CREATE TABLE records (
    id          INTEGER PRIMARY KEY,       -- the judge's acts, in order; never edited
    tournament_id INTEGER REFERENCES tournaments(id),
    at          TEXT NOT NULL,
    by_whom     TEXT NOT NULL,
    why         TEXT NOT NULL,
    kind        TEXT NOT NULL,             -- deduct | disqualify | withdraw | reinstate | rename | correct | void | place | enter | close
    entrant_id  INTEGER REFERENCES entrants(id),
    result_id   TEXT,
    round_no    INTEGER,
    table_no    INTEGER,
    room        INTEGER,
    points      INTEGER,
    data        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX records_tournament ON records (tournament_id, kind);
"""),
    ("assignment ids: the id each pushed assignment carries, which the box's result names", """
ALTER TABLE assignments ADD COLUMN aid TEXT;   -- the assignment's id (its record's "assignment"), NULL before
CREATE INDEX assignments_aid ON assignments (aid);
"""),
    ("live scores: the events Pico W boxes send while they play (docs/live.md), never a result", """
CREATE TABLE live_events (
    result_id   TEXT NOT NULL,             -- "<fs_id>-<match_no>", as the synced result will be
    device_id   TEXT NOT NULL,
    fs_id       TEXT NOT NULL,
    match_no    INTEGER NOT NULL,
    seq         INTEGER NOT NULL,          -- the event's seq: stored 1, 2, 3 ... with no gap, once each
    event       BLOB NOT NULL,             -- the event's exact stored bytes, as the box signed them
    received_at REAL NOT NULL,             -- Unix time the live server stored it
    PRIMARY KEY (result_id, seq)
);
CREATE INDEX live_events_device ON live_events (device_id, received_at);
CREATE TABLE live_refused (
    device_id   TEXT NOT NULL,             -- the box a refused frame claimed to come from ('?' if none)
    why         TEXT NOT NULL,             -- 'forged' | 'replayed' | 'unknown-box' | 'damaged' | 'conflict'
    n           INTEGER NOT NULL,
    last_at     TEXT NOT NULL,
    PRIMARY KEY (device_id, why)
);
ALTER TABLE devices ADD COLUMN wifi TEXT;  -- JSON {"ssid", "password", "live"} given at pairing: never shown
"""),
    ("paper sheets being typed in: a half-entered sheet survives closing the judge's console", """
CREATE TABLE sheets (
    id          INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round_no    INTEGER NOT NULL,
    table_no    INTEGER NOT NULL,
    room        INTEGER NOT NULL DEFAULT 0,
    events      TEXT NOT NULL,             -- JSON list of the sheet's events so far (setup first)
    answers     TEXT NOT NULL DEFAULT '{}',-- JSON: the deal being entered, its answers so far
    step        INTEGER NOT NULL DEFAULT 0,-- the form's step to ask next in that deal
    updated_at  TEXT NOT NULL,
    UNIQUE (tournament_id, round_no, table_no, room)
);
"""),
]

SCHEMA_VERSION = len(MIGRATIONS)


def now():
    """The judge's clock as stored: ISO 8601, local time, seconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def default_db():
    """The database every command uses unless --db names another: $NAKK_DB, else nakk.db here."""
    return os.environ.get("NAKK_DB") or "nakk.db"


def default_help():
    """The --db default in words, as it is right now (for every command's --help)."""
    env = os.environ.get("NAKK_DB")
    if env:
        return "default: %s, from $NAKK_DB" % env
    return "default: nakk.db in the current folder, or $NAKK_DB"


# What each schema version has: a file whose tables lack them is not a Nakk database.
_TABLES = {1: {"devices", "results", "alarms"},
           2: {"seasons", "tournaments", "entrants", "rounds", "draw", "assignments", "records"}}


def _read_only_look(path, immutable):
    """(user_version, table names) of an SQLite file after SQLite's quick_check, read-only.
    immutable (no write-ahead log waits beside it): SQLite then makes no -wal/-shm file either."""
    from urllib.parse import quote
    try:
        ro = sqlite3.connect("file:%s?mode=ro%s" % (quote(os.path.abspath(path)), "&immutable=1" if immutable else ""),
                             uri=True, timeout=10)
    except sqlite3.Error as e:
        raise StoreError("cannot read %s: %s" % (path, e))
    try:
        ok = ro.execute("PRAGMA quick_check(1)").fetchone()[0]
        if ok != "ok":
            ok = " ".join(ok.replace("*** in database main ***", "").split())     # SQLite's words, one line
            raise StoreError("%s is damaged (%s): the judge's tool will not write into it" % (path, ok))
        have = ro.execute("PRAGMA user_version").fetchone()[0]
        tables = set(r[0] for r in ro.execute("SELECT name FROM sqlite_master WHERE type='table'"))
    except sqlite3.DatabaseError as e:
        if "locked" in str(e) or "busy" in str(e):
            raise StoreError("%s is in use by another program (%s); try again" % (path, e))
        if "not a database" in str(e):
            raise StoreError("%s is not a Nakk database (it is not an SQLite file); name another with --db" % path)
        raise StoreError("%s is damaged (%s): the judge's tool will not write into it"
                         % (path, " ".join(str(e).split())))
    finally:
        ro.close()
    return have, tables


def check_db(path):
    """Refuse a file that is not a whole Nakk database before anything writes to it (no pragma,
    no migration, no WAL switch): an empty file, a file that is not SQLite, a damaged one,
    another application's SQLite file, a newer schema. Read-only; raises StoreError."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise StoreError("cannot read %s: %s" % (path, e.strerror or e))
    if stat.S_ISDIR(st.st_mode):
        raise StoreError("%s is a folder, not a Nakk database; name the database file with --db" % path)
    if not st.st_size:
        raise StoreError("%s is an empty file, not a Nakk database; remove it or name another with --db" % path)
    # The header is read by hand only from a file too small to be a database anyone has open: closing
    # a file of our own on the database would drop every lock this process's SQLite connections hold
    # on it (POSIX), and another process would then take the write-ahead log for unused and delete it,
    # with this process's commits after that seen by no one else. A bigger file SQLite reads itself.
    if st.st_size < 512:
        try:
            with open(path, "rb") as f:
                head = f.read(100)
        except OSError as e:
            raise StoreError("cannot read %s: %s" % (path, e.strerror or e))
        if head[:16] != b"SQLite format 3\x00":
            raise StoreError("%s is not a Nakk database (it is not an SQLite file); name another with --db" % path)
        if len(head) < 100:
            raise StoreError("%s is damaged (cut short): not a Nakk database any more" % path)
    try:
        have, tables = _read_only_look(path, immutable=not os.path.exists(path + "-wal"))
    except StoreError:
        if not os.path.exists(path + "-wal"):
            raise
        # a writer began (its log is there now) while we looked without locks: look again, with them
        have, tables = _read_only_look(path, immutable=False)
    if have > SCHEMA_VERSION:
        raise StoreError("%s was written by a newer nakk (schema %d, this one knows %d): update nakk"
                         % (path, have, SCHEMA_VERSION))
    want = set()
    for v in range(1, have + 1):
        want |= _TABLES.get(v, set())
    if (have == 0 and tables) or not want <= tables:
        raise StoreError("%s is an SQLite file of something else, not a Nakk database" % path)
    if have == 0:
        raise StoreError("%s is an SQLite file with nothing in it, not a Nakk database; remove it or name "
                         "another with --db" % path)


def open_db(path=None, create=True):
    """Open (and migrate) the judge's database; the one opener of every command.

    create: a missing file becomes a new database (only the commands that begin one: `nakk
    tournament new`, `nakk pair`); otherwise a missing file is an error. An existing file is
    checked read-only first (check_db), so a file that is not a Nakk database is never touched.
    Raises StoreError in plain words."""
    if path is None:
        path = default_db()
    if not path or path == ":memory:":
        raise StoreError("--db %r names no database file" % path)     # SQLite would make a throwaway one
    exists = os.path.lexists(path)
    if not exists and not create:
        raise StoreError("%s: no such database (`nakk tournament new` or `nakk pair` begins one; name "
                         "another with --db or $NAKK_DB)" % path)
    if exists:
        check_db(path)
    elif not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        raise StoreError("cannot make the database %s: there is no folder %s"
                         % (path, os.path.dirname(os.path.abspath(path))))
    try:
        conn = sqlite3.connect(path, timeout=10)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        _migrate(conn, path)
    except sqlite3.DatabaseError as e:
        raise StoreError("%s: %s" % (path, e)) from None
    return conn


def _migrate(conn, path):
    have = conn.execute("PRAGMA user_version").fetchone()[0]
    if have > SCHEMA_VERSION:
        raise StoreError("%s was written by a newer nakk (schema %d, this one knows %d): update nakk"
                         % (path, have, SCHEMA_VERSION))
    if have == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
        if tables:
            raise StoreError("%s is an SQLite file of something else, not a Nakk database" % path)
    for i in range(have, SCHEMA_VERSION):
        # one transaction per migration: a crash leaves the previous version whole
        conn.executescript("BEGIN;" + MIGRATIONS[i][1] + "PRAGMA user_version=%d; COMMIT;" % (i + 1))


def result_row(row):
    """A results row as a plain dict, with summary and problems decoded."""
    d = dict(row)
    d["summary"] = json.loads(d["summary"])
    d["problems"] = json.loads(d["problems"])
    return d


def results(conn, tournament=None):
    """Every stored result (optionally of one tournament), oldest first."""
    if tournament is None:
        rows = conn.execute("SELECT * FROM results ORDER BY id")
    else:
        rows = conn.execute("SELECT * FROM results WHERE tournament=? ORDER BY id", (tournament,))
    return [result_row(r) for r in rows]


# ---------------------------------------------------------------- devices (pairing)

def device(conn, device_id):
    """The devices row of a box (a dict), or None when this judge never paired it."""
    row = conn.execute("SELECT * FROM devices WHERE device_id=?", (device_id,)).fetchone()
    return dict(row) if row is not None else None


def devices(conn):
    return [dict(r) for r in conn.execute("SELECT * FROM devices ORDER BY device_id")]


def save_pairing(conn, device_id, fs_id, key, name=None):
    """Remember a box's key (a new pairing replaces the old one: the box confirmed it). Commits."""
    with conn:
        conn.execute(
            "INSERT INTO devices (device_id, fs_id, key, name, paired_at, last_seen) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT(device_id) DO UPDATE SET fs_id=excluded.fs_id, key=excluded.key, "
            "name=COALESCE(excluded.name, devices.name), paired_at=excluded.paired_at, last_seen=excluded.last_seen",
            (device_id, fs_id, bytes(key), name, now(), now()))


def saw_device(conn, device_id, hello):
    """Note a known box's latest hello (no commit: part of the sync's transaction)."""
    conn.execute("UPDATE devices SET last_seen=?, last_hello=? WHERE device_id=?",
                 (now(), json.dumps(hello, sort_keys=True), device_id))


# ---------------------------------------------------------------- results from boxes

def result_by_id(conn, result_id):
    row = conn.execute("SELECT * FROM results WHERE result_id=?", (result_id,)).fetchone()
    return dict(row) if row is not None else None


def insert_result(conn, result_id, device_id, fs_id, match_no, raw, sha256, signature, status, problems,
                  summary, setup):
    """Store one result from a box (no commit: the caller commits, then acknowledges)."""
    setup = setup or {}

    def field(name):
        v = setup.get(name)
        return v if isinstance(v, (int, str)) and not isinstance(v, bool) else None

    conn.execute(
        "INSERT INTO results (result_id, source, device_id, fs_id, match_no, events, sha256, signature, status, "
        "problems, ruleset, tournament, table_no, round_no, room, summary, received_at) "
        "VALUES (?, 'box', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (result_id, device_id, fs_id, match_no, bytes(raw), sha256, signature, status,
         json.dumps(problems), field("ruleset"), field("tournament"), field("table"), field("round"),
         field("room"), json.dumps(summary, sort_keys=True), now()))


def add_alarm(conn, what, device_id=None, result_id=None, events=None):
    """Record something the judge must look at (no commit)."""
    conn.execute("INSERT INTO alarms (at, device_id, result_id, what, events) VALUES (?,?,?,?,?)",
                 (now(), device_id, result_id, what, None if events is None else bytes(events)))


def alarms(conn):
    return [dict(r) for r in conn.execute("SELECT * FROM alarms ORDER BY id")]
