"""Tournaments and seasons in the judge's database: create one, find one, read its settings.

A tournament is one evening (a Saare mäng stage of N rounds, a Turniirisasku
team event, a Schmier evening). Its `code` is what the boxes carry as
setup.tournament, so a synced result finds its tournament by it. A season is
a name that stages share; the season standings sum them.
"""

import json
import re

from nakk import rules as rules_pkg
from nakk.event import EventError

from nakk_host.store import now

# format -> (what it is, the rulesets it takes, default order of the standings)
FORMATS = {
    "stage": ("Saare mäng stage: pairs, rounds of partiis", ("saare-2020", "saare-classic"),
              ["wins", "diff", "nakks"]),
    "teams": ("Turniirisasku team matches over two rooms", ("sasku",), ["mp", "diff", "points"]),
    "schmier": ("Schmier: tables of three teams", ("schmier",), ["points", "wins"]),
}

# the criteria a standings order may name, per format (standings.py computes them)
CRITERIA = {
    "stage": ("wins", "diff", "nakks", "against", "h2h"),
    "teams": ("mp", "diff", "points", "wins", "h2h"),
    "schmier": ("points", "wins", "h2h"),
}


class TournamentError(Exception):
    """Something the judge asked that cannot be done, in plain words."""


def slug(text):
    """A short ASCII code from a name: lower case, Estonian letters folded, dashes."""
    table = str.maketrans("õäöüšžÕÄÖÜŠŽ", "oaouszOAOUSZ")
    s = re.sub(r"[^a-z0-9]+", "-", text.translate(table).lower()).strip("-")
    return s[:40] or "t"


def parse_settings(pairs):
    """A ruleset's settings given as KEY=VALUE texts: each value read as JSON where it is (4, true),
    else as text. TournamentError for a text without "="."""
    out = {}
    for p in pairs or ():
        if "=" not in p:
            raise TournamentError("--set KEY=VALUE (got %r)" % p)
        k, v = p.split("=", 1)
        try:
            out[k.strip()] = json.loads(v)
        except ValueError:
            out[k.strip()] = v.strip()
    return out


def create(conn, name, ruleset, fmt, rounds, date=None, place=None, settings=None, boards=None,
           draw="auto", order_by=None, season=None, code=None):
    """Create a tournament; returns its row as a dict. Raises TournamentError in plain words."""
    if fmt not in FORMATS:
        raise TournamentError("unknown format %r (known: %s)" % (fmt, ", ".join(sorted(FORMATS))))
    allowed = FORMATS[fmt][1]
    if ruleset not in allowed:
        raise TournamentError("format %s plays %s, not %r" % (fmt, " or ".join(allowed), ruleset))
    try:
        rules_pkg.get(ruleset).config(settings or None)   # unknown settings or values are refused here
    except KeyError as e:
        raise TournamentError(str(e.args[0]))
    except EventError as e:
        raise TournamentError("%s%s" % ((e.field + ": ") if e.field else "settings: ", e.reason))
    if not name or not name.strip():
        raise TournamentError("a tournament needs a name")
    if date is not None:
        import datetime
        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            raise TournamentError("--date %r is not a date: YYYY-MM-DD, e.g. 2026-12-05" % date)
    if code is not None and not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$", code):
        raise TournamentError("--code %r: letters, digits, . _ - (at most 40), as the boxes carry it" % code)
    if rounds < 1:
        raise TournamentError("a tournament has at least one round")
    if fmt == "teams":
        if not boards or boards < 1:
            raise TournamentError("a Turniirisasku tournament needs --boards (boards per match)")
    elif boards:
        raise TournamentError("--boards is for Turniirisasku only")
    if draw not in ("auto", "round-robin", "swiss"):
        raise TournamentError("draw is auto, round-robin or swiss")
    order = list(order_by) if order_by else list(FORMATS[fmt][2])
    for key in order:
        if key not in CRITERIA[fmt]:
            raise TournamentError("unknown standings criterion %r for %s (known: %s)"
                                  % (key, fmt, ", ".join(CRITERIA[fmt])))
    if len(set(order)) != len(order):
        raise TournamentError("a criterion appears twice in the standings order")
    code = code or slug("%s %s" % (date or "", name))
    if conn.execute("SELECT 1 FROM tournaments WHERE code=?", (code,)).fetchone():
        raise TournamentError("a tournament %r exists already; give another --code" % code)
    season_id = None
    with conn:
        if season:
            row = conn.execute("SELECT id FROM seasons WHERE name=?", (season,)).fetchone()
            if row is None:
                season_id = conn.execute("INSERT INTO seasons (name, created_at) VALUES (?, ?)",
                                         (season, now())).lastrowid
            else:
                season_id = row[0]
        conn.execute(
            "INSERT INTO tournaments (code, name, date, place, ruleset, settings, format, rounds, boards, draw,"
            " order_by, season_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (code, name, date, place, ruleset, json.dumps(settings or {}, sort_keys=True), fmt, rounds, boards,
             draw, json.dumps(order), season_id, now()))
    return get(conn, code)


def _row(conn, row):
    d = dict(row)
    d["settings"] = json.loads(d["settings"])
    d["order_by"] = json.loads(d["order_by"])
    d["season"] = None
    if d["season_id"] is not None:
        d["season"] = conn.execute("SELECT name FROM seasons WHERE id=?", (d["season_id"],)).fetchone()[0]
    return d


def get(conn, code=None):
    """A tournament by code, or the latest created when code is None. TournamentError if none."""
    if code is None:
        row = conn.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            raise TournamentError("no tournament yet: create one with `nakk tournament new`")
    else:
        row = conn.execute("SELECT * FROM tournaments WHERE code=?", (code,)).fetchone()
        if row is None:
            known = [r[0] for r in conn.execute("SELECT code FROM tournaments ORDER BY id")]
            raise TournamentError("no tournament %r (known: %s)" % (code, ", ".join(known) or "none"))
    return _row(conn, row)


def all_tournaments(conn, season_id=None):
    """Every tournament (of one season), oldest first (by date, then creation)."""
    if season_id is None:
        rows = conn.execute("SELECT * FROM tournaments ORDER BY coalesce(date, ''), id")
    else:
        rows = conn.execute("SELECT * FROM tournaments WHERE season_id=? ORDER BY coalesce(date, ''), id",
                            (season_id,))
    return [_row(conn, r) for r in rows]


def season_id(conn, name):
    row = conn.execute("SELECT id FROM seasons WHERE name=?", (name,)).fetchone()
    if row is None:
        known = [r[0] for r in conn.execute("SELECT name FROM seasons ORDER BY id")]
        raise TournamentError("no season %r (known: %s)" % (name, ", ".join(known) or "none"))
    return row[0]


def previous_stage(conn, t):
    """The season's stage before tournament t (by date, then creation), or None."""
    if t["season_id"] is None:
        return None
    stages = all_tournaments(conn, t["season_id"])
    ids = [s["id"] for s in stages]
    i = ids.index(t["id"])
    return stages[i - 1] if i > 0 else None
