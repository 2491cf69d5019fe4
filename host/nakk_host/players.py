"""The tournament's pairs and teams: import from a spreadsheet's CSV, add, list, withdraw, rename.

An entrant is a pair (Saare mäng), a team of two pairs (Turniirisasku) or a
team of two (Schmier). Its number in the tournament never changes; a rename
or a withdrawal is also written to the judge's records, so `nakk history`
shows it. Status (active, withdrawn, disqualified) is derived from those
records, never stored in place.
"""

import csv
import io
import json

from nakk_host.store import now
from nakk_host.tournament import TournamentError

# header words a spreadsheet may use, Estonian and English, for each field
_HEADERS = {
    "no": ("no", "nr", "number", "#"),
    "name": ("name", "nimi", "pair", "paar", "team", "võistkond", "voistkond", "meeskond"),
    "club": ("club", "klubi", "kihelkond", "parish"),
    "player": ("player", "mängija", "mangija", "player1", "player2", "player3", "player4",
               "mängija1", "mängija2", "mängija3", "mängija4", "mangija1", "mangija2", "mangija3", "mangija4"),
}
# players per entrant, by format
PLAYERS = {"stage": 2, "teams": 4, "schmier": 2}


def decode(raw):
    """(text, encoding in words) of a CSV file's bytes: UTF-8 with or without a BOM, else the
    Windows Baltic code page (cp1257) that Estonian Excel writes. Never guesses silently: the
    caller says which it was."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8"), "UTF-8 with a BOM"
    try:
        return raw.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        pass
    # cp1257 decodes almost any byte; undefined bytes still fail, and then the file is not text we know
    try:
        return raw.decode("cp1257"), "Windows-1257 (Baltic; Estonian Excel's CSV)"
    except UnicodeDecodeError as e:
        raise TournamentError("the file is neither UTF-8 nor Windows-1257 text (byte 0x%02x at %d)"
                              % (raw[e.start], e.start))


def key_of(name, players):
    """Who an entrant is across a season's stages: its players' names (or its name), case-folded."""
    if players:
        return "|".join(sorted(" ".join(p.split()).casefold() for p in players))
    return " ".join(name.split()).casefold()


def _field(header):
    h = header.strip().casefold()
    for field, words in _HEADERS.items():
        if h in words:
            return field
    return None


def parse_csv(text, fmt):
    """Rows of a players CSV as dicts {name, club, players}. The header row names the columns
    (name/nimi, club/klubi, player/mängija columns); the separator is found (, ; or tab).
    Raises TournamentError with the line number of the first bad row."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise TournamentError("the file is empty (a header row is needed: e.g. name;player;player;club)")
    try:
        dialect = csv.Sniffer().sniff(lines[0], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    header = next(reader)
    fields = [_field(h) for h in header]
    if "player" not in fields and "name" not in fields:
        raise TournamentError("line 1: no name or player column in the header %r" % (header,))
    for h, f in zip(header, fields):
        if f is None and h.strip():
            raise TournamentError("line 1: unknown column %r (known: name, club, player, no)" % h)
    out = []
    want = PLAYERS[fmt]
    for n, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(fields):
            raise TournamentError("line %d: %d cells, the header has %d" % (n, len(row), len(fields)))
        d = {"name": "", "club": "", "players": []}
        for f, cell in zip(fields, row):
            cell = " ".join(cell.split())
            if f == "player":
                if cell:
                    d["players"].append(cell)
            elif f is not None:
                d[f] = cell
        if d["players"] and len(d["players"]) != want:
            raise TournamentError("line %d: %d players; a %s entrant has %d"
                                  % (n, len(d["players"]), "team" if fmt != "stage" else "pair", want))
        if not d["name"]:
            if not d["players"]:
                raise TournamentError("line %d: no name and no players" % n)
            d["name"] = " / ".join(d["players"])
        d.pop("no", None)
        out.append(d)
    if not out:
        raise TournamentError("the file has a header but no entrants")
    return out


def _next_no(conn, tid):
    return conn.execute("SELECT coalesce(max(no), 0) + 1 FROM entrants WHERE tournament_id=?", (tid,)).fetchone()[0]


def _printable(text):
    """Names go onto the boxes' screens and the hall's pages: no control characters (a NUL, a tab)."""
    bad = [c for c in text if ord(c) < 32 or 0x7f <= ord(c) < 0xa0]
    if bad:
        raise TournamentError("%r holds a control character (%r): not a name" % (text, bad[0]))


def add_many(conn, t, rows):
    """Register entrants (dicts name, club, players) in one transaction: all or none.
    Returns the new entrants. A duplicate (the same players, or name) is refused."""
    seen = {r["key"]: r for r in entrants(conn, t)}
    added = []
    with conn:
        no = _next_no(conn, t["id"])
        for r in rows:
            r["name"] = (r.get("name") or "").strip()
            if not r["name"]:
                raise TournamentError("a pair (team) needs a name")
            players = list(r.get("players") or [])
            for text in [r["name"], r.get("club") or ""] + players:
                _printable(text)
            if players and len(players) != PLAYERS[t["format"]]:
                raise TournamentError("%s: %d players; a %s entrant has %d" % (
                    r["name"], len(players), t["format"], PLAYERS[t["format"]]))
            key = key_of(r["name"], players)
            if key in seen:
                raise TournamentError("%s is registered already (as no %d, %s)" % (
                    r["name"], seen[key]["no"], seen[key]["name"]))
            rid = conn.execute(
                "INSERT INTO entrants (tournament_id, no, name, club, players, key, added_at) VALUES (?,?,?,?,?,?,?)",
                (t["id"], no, r["name"], r.get("club", ""), json.dumps(players, ensure_ascii=False), key, now())).lastrowid
            seen[key] = {"no": no, "name": r["name"]}
            added.append(rid)
            no += 1
    return [e for e in entrants(conn, t) if e["id"] in added]


def import_file(conn, t, path):
    """Import a CSV file of entrants; returns (entrants added, the encoding found)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise TournamentError("cannot read %s: %s" % (path, e.strerror or e))
    rows, encoding = read_csv(raw, t["format"])
    return add_many(conn, t, rows), encoding


def read_csv(raw, fmt):
    """A players CSV's bytes as (rows to add, the encoding found), nothing added: what an import
    would add (the console shows it before the judge confirms)."""
    text, encoding = decode(raw)
    return parse_csv(text, fmt), encoding


def statuses(conn, tid):
    """entrant id -> 'withdrawn' | 'disqualified' for those not active, from the judge's records in order."""
    out = {}
    for kind, eid in conn.execute(
            "SELECT kind, entrant_id FROM records WHERE tournament_id=? AND kind IN "
            "('withdraw', 'disqualify', 'reinstate') ORDER BY id", (tid,)):
        if kind == "reinstate":
            out.pop(eid, None)
        else:
            out[eid] = "withdrawn" if kind == "withdraw" else "disqualified"
    return out


def barred_keys(conn, t):
    """The keys (who they are) of the pairs disqualified in the season's previous stage: barred
    from stage t (SM: "ei tohi järgmises etapis osaleda")."""
    from nakk_host.tournament import previous_stage
    prev = previous_stage(conn, t) if t.get("season_id") is not None else None
    if prev is None:
        return set()
    dq = [eid for eid, s in statuses(conn, prev["id"]).items() if s == "disqualified"]
    if not dq:
        return set()
    return set(r[0] for r in conn.execute(
        "SELECT key FROM entrants WHERE id IN (%s)" % ",".join("?" * len(dq)), dq))


def entrants(conn, t):
    """Every entrant of tournament t, by number, as dicts (players decoded, status derived:
    active, withdrawn, disqualified, or barred by a disqualification in the previous stage)."""
    st = statuses(conn, t["id"])
    barred = barred_keys(conn, t)
    out = []
    for row in conn.execute("SELECT * FROM entrants WHERE tournament_id=? ORDER BY no", (t["id"],)):
        d = dict(row)
        d["players"] = json.loads(d["players"])
        d["status"] = st.get(d["id"]) or ("barred" if d["key"] in barred else "active")
        out.append(d)
    return out


def find(conn, t, no):
    """An entrant by its number (or name); TournamentError if there is none."""
    every = entrants(conn, t)
    for e in every:
        if str(e["no"]) == str(no):
            return e
    named = [e for e in every if e["name"].casefold() == str(no).casefold()]
    if len(named) > 1:
        raise TournamentError("%d pairs (teams) are called %s (numbers %s): give the number" % (
            len(named), no, ", ".join(str(e["no"]) for e in named)))
    if named:
        return named[0]
    raise TournamentError("no pair or team %r in %s" % (no, t["code"]))


def record(conn, t, kind, by, why, entrant=None, points=None, data=None, result_id=None,
           round_no=None, table_no=None, room=None):
    """Append one of the judge's records (never edited afterwards); returns its id."""
    if not by or not by.strip():
        raise TournamentError("say who does this (--by NAME)")
    if not why or not why.strip():
        raise TournamentError("say why (--why TEXT)")
    return conn.execute(
        "INSERT INTO records (tournament_id, at, by_whom, why, kind, entrant_id, result_id, round_no, table_no, room,"
        " points, data) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (t["id"], now(), by.strip(), why.strip(), kind, entrant["id"] if entrant else None, result_id,
         round_no, table_no, room, points, json.dumps(data or {}, ensure_ascii=False, sort_keys=True))).lastrowid


def withdraw(conn, t, no, by, why):
    e = find(conn, t, no)
    if e["status"] != "active":
        raise TournamentError("%s is %s already" % (e["name"], e["status"]))
    with conn:
        record(conn, t, "withdraw", by, why, entrant=e)
    return find(conn, t, no)


def rename(conn, t, no, name, by, why, players=None):
    """A new name (and players) for an entrant; its number and its season key stay."""
    e = find(conn, t, no)
    name = " ".join(name.split())
    if not name:
        raise TournamentError("the new name is empty")
    for text in [name] + list(players or []):
        _printable(text)
    if players is not None and len(players) != PLAYERS[t["format"]]:
        raise TournamentError("a %s entrant has %d players" % (t["format"], PLAYERS[t["format"]]))
    for other in entrants(conn, t):
        if other["id"] != e["id"] and other["name"].casefold() == name.casefold():
            raise TournamentError("no %d is called %s already: give another name" % (other["no"], other["name"]))
    with conn:
        record(conn, t, "rename", by, why, entrant=e,
               data={"from": e["name"], "to": name, "players": players if players is not None else e["players"]})
        conn.execute("UPDATE entrants SET name=?, players=? WHERE id=?",
                     (name, json.dumps(players if players is not None else e["players"], ensure_ascii=False),
                      e["id"]))
    return find(conn, t, e["no"])
