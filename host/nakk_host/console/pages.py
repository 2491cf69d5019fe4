"""What each console page shows, as data for its template: read from the modules the CLI prints from.

PAGES: path -> fn(c, params) for the screens; PRINTS: the printed pages (the
draw, table cards, a scoresheet per table, the standings), each one A4 sheet;
export(): the CSV files and the printable standings as downloads.
"""

import time

from nakk_host import acts as J
from nakk_host import device as Dev
from nakk_host import export as X
from nakk_host import players as P
from nakk_host import standings as S
from nakk_host import store
from nakk_host import tournament as T
from nakk_host.console import evening, sheets


def _int(params, key, default=None):
    try:
        return int(params.get(key))
    except (TypeError, ValueError):
        return default


def home(c, params):
    st = evening.state(c.conn, c.t, c.watcher, c.lang, c.quiet_s)
    return {"template": "evening.html", "state": st, "state_json": evening.as_json(st), "now": time.time()}


def tournaments(c, params):
    return {"template": "tournaments.html", "all": T.all_tournaments(c.conn)}


def players(c, params):
    return {"template": "players.html", "entrants": P.entrants(c.conn, c.t) if c.t else []}


def boxes(c, params):
    rn = S.current_round(c.conn, c.t) if c.t else 0
    return {"template": "boxes.html", "paired": [d for d in store.devices(c.conn) if d["key"] is not None],
            "ports": [{"url": p.url, "label": p.label} for p in Dev.discover()], "round": rn,
            "watched": c.watcher.boxes(c.lang), "watching": getattr(c.watcher, "available", False)}


def enter(c, params):
    rn, tb, room = _int(params, "round"), _int(params, "table"), _int(params, "room", 0)
    out = {"template": "enter.html", "sheet": None, "open": sheets.open_sheets(c.conn, c.t) if c.t else [],
           "round": S.current_round(c.conn, c.t) if c.t else 0, "at": None}
    if c.t is None or rn is None or tb is None:
        return out
    got = sheets.load(c.conn, c.t, rn, tb, room)
    if got is None:
        from nakk_host import enter as E
        try:
            E.refuse_if_in(c.conn, c.t, rn, tb, room)
            sheet = E.sheet_for(c.conn, c.t, rn, tb, room)
        except T.TournamentError as e:
            from nakk_host.refusals import estonian
            out["refused"] = str(e) if c.lang == "en" else estonian(str(e))
            return out
        got = (sheet, {}, 0)
    out["sheet"] = sheets.view(*got, lang=c.lang)
    out["at"] = {"round": rn, "table": tb, "room": room}
    return out


def acts(c, params):
    rows = []
    if c.t:
        for r in store.results(c.conn, c.t["code"]):
            rows.append({"result_id": r["result_id"], "round": r["round_no"], "table": r["table_no"],
                         "room": r["room"], "status": r["status"], "final": (r["summary"] or {}).get("final")})
    # results a box played at no drawn table (set up by hand, or another table): the judge places them
    to_place = (S.unplaced(c.conn, c.t) if c.t else []) + S.unassigned_results(c.conn)
    return {"template": "acts.html", "results": rows, "entrants": P.entrants(c.conn, c.t) if c.t else [],
            "alarms": store.alarms(c.conn), "to_place": to_place}


def history(c, params):
    no = params.get("no") or None
    lines, error = [], None
    if c.t:
        try:
            lines = J.history(c.conn, c.t, no, lang=c.lang)
        except T.TournamentError as e:
            from nakk_host.refusals import estonian
            error = str(e) if c.lang == "en" else estonian(str(e))
    return {"template": "history.html", "lines": lines, "no": no, "error": error}


def standings(c, params):
    st = S.standings(c.conn, c.t) if c.t else None
    season = None
    if c.t and c.t["season"]:
        season = S.season(c.conn, c.t["season"])
    from nakk_host.hall.words import order_words
    return {"template": "standings.html", "st": st, "season": season,
            "order": order_words(st["order"], c.lang) if st else ""}


def rounds(c, params):
    last = S.current_round(c.conn, c.t) if c.t else 0
    rn = _int(params, "round", last)
    rt = S.round_tables(c.conn, c.t, rn) if c.t and rn else None
    return {"template": "rounds.html", "last": last, "rn": rn,
            "rows": X.draw_rows(c.t, rt, bye="—") if rt else []}


PAGES = {"/": home, "/tournaments": tournaments, "/players": players, "/boxes": boxes, "/enter": enter,
         "/acts": acts, "/history": history, "/standings": standings, "/rounds": rounds}


# ---------------------------------------------------------------- printed pages

def _round_of(c, params):
    last = S.current_round(c.conn, c.t)
    rn = _int(params, "round", last)
    if not c.t or not rn or not 1 <= rn <= last:
        raise T.TournamentError("no such round")
    return rn, S.round_tables(c.conn, c.t, rn)


def print_draw(c, params):
    rn, rt = _round_of(c, params)
    return {"template": "print_draw.html", "rn": rn, "rows": X.draw_rows(c.t, rt, bye="vaba voor / bye")}


def print_cards(c, params):
    """A card per table (a room per card in Turniirisasku): table, round, the pairs with their numbers."""
    rn, rt = _round_of(c, params)
    return {"template": "print_cards.html", "rn": rn,
            "cards": [r for r in X.draw_rows(c.t, rt, bye="") if len(r["sides"]) > 1 and r["sides"][1]]}


def print_sheets(c, params):
    """A paper scoresheet per table: the ruleset's deal form as columns to fill in by hand."""
    from nakk_host import enter as E
    rn, rt = _round_of(c, params)
    out = []
    for r in X.draw_rows(c.t, rt, bye=""):
        if len(r["sides"]) < 2 or not r["sides"][1]:
            continue
        try:
            sheet = E.Sheet(dict(E.A.assignment(c.conn, c.t, rn, r["table"], r["room"] or 0), clock=0))
        except T.TournamentError:
            continue
        fixed, steps = sheet.form()
        out.append(dict(r, steps=[s["label"][1 if c.lang == "en" else 0] for s in steps]))
    return {"template": "print_sheets.html", "rn": rn, "sheets": out}


def print_standings(c, params):
    from nakk_host.hall.words import order_words
    st = S.standings(c.conn, c.t)
    return {"template": "print_standings.html", "st": st, "order": order_words(st["order"], c.lang)}


PRINTS = {"draw": print_draw, "cards": print_cards, "sheets": print_sheets, "standings": print_standings}


def export(c, name, params):
    """(bytes, media type, file name) of a download, or None."""
    if c.t is None:
        return None
    st = S.standings(c.conn, c.t)
    csv = "text/csv; charset=utf-8"
    if name == "standings.csv":
        return ("\ufeff" + X.standings_csv(st)).encode("utf-8"), csv, name
    if name == "matches.csv":
        return ("\ufeff" + X.matches_csv(c.conn, c.t)).encode("utf-8"), csv, name
    if name == "deals.csv":
        return ("\ufeff" + X.deals_csv(c.conn, c.t)).encode("utf-8"), csv, name
    if name == "standings.html":
        return X.standings_html(st).encode("utf-8"), "text/html; charset=utf-8", name
    if name == "season.csv" and c.t["season"]:
        return ("\ufeff" + X.standings_csv(S.season(c.conn, c.t["season"]))).encode("utf-8"), csv, name
    if name == "season.html" and c.t["season"]:
        return (X.standings_html(S.season(c.conn, c.t["season"]), c.t["season"]).encode("utf-8"),
                "text/html; charset=utf-8", name)
    return None
