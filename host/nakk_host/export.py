"""Exports for spreadsheets and the notice board: standings, matches and deals as CSV, and a printable page.

CSV files are UTF-8 with a BOM (so a spreadsheet opens õ ä ö ü š ž right)
and separated by semicolons (Estonian spreadsheets use the comma as the
decimal mark and read `;` as the list separator). The printable page is one
HTML file with print CSS (A4, the header row again on every page), made from
a Jinja2 template; everything in it comes from standings.py.
"""

import csv
import io
import os

import jinja2

from nakk.event import SIDES
from nakk.match import Match

from nakk_host import records as R
from nakk_host import standings as S
from nakk_host.tournament import TournamentError

HEADERS = {
    "rank": "Koht", "no": "Nr", "name": "Nimi", "club": "Klubi", "played": "Mänge", "wins": "Võite",
    "draws": "Viike", "losses": "Kaotusi", "byes": "Vabu", "nakks": "Nakke", "against": "Vastu", "diff": "Vahe",
    "deductions": "Maha", "points": "Punkte", "mp": "Matšipunkte", "stages_played": "Etappe",
}
NUMERIC = ("rank", "no", "played", "wins", "draws", "losses", "byes", "nakks", "against", "diff", "deductions",
           "points", "mp", "stages_played")


def _csv(rows):
    out = io.StringIO()
    w = csv.writer(out, delimiter=";", lineterminator="\r\n")
    for r in rows:
        w.writerow(r)
    return out.getvalue()


# matches.csv and deals.csv speak Estonian as standings.csv does; the events' own field names and
# values (game, maker, "suit", ...) are the journal's format (docs/events.md) and stay as stored
MATCH_HEADERS = ["Voor", "Laud", "Olek", "Arvestatud", "Pool", "Nr", "Nimi", "Lõpptulemus", "Võitja (nr)",
                 "Tulemused", "Probleemid", "Parandused"]
DEAL_HEADERS = ["Tulemus", "Allikas", "Olek", "Voor", "Laud", "Tuba", "Nr", "Sündmus"]
STATE_ET = {"verified": "kontrollitud", "flagged": "kohtunikule", "playing": "mängib", "waiting": "ootab",
            "bye": "vaba voor"}
SOURCE_ET = {"box": "kast", "paper": "paber"}


def _status(st):
    from nakk_host.hall.words import status_word
    return status_word(st, "et")


def standings_csv(st):
    cols = st["columns"]
    rows = [[HEADERS.get(c, c) for c in cols] + ["Staatus"]]
    for r in st["rows"]:
        rows.append([r[c] if r[c] is not None else "" for c in cols] + [_status(r["status"])])
    return _csv(rows)


def matches_csv(conn, t):
    ents = S._entrants(conn, t)
    corr = R.result_corrections(conn)
    rows = [MATCH_HEADERS]
    for m in S.matches(conn, t):
        notes = "; ".join(R.note(corr[rid]) for rid in m["result_ids"] if rid in corr)
        for i, eid in enumerate(m["entrants"]):
            e = ents[eid]
            rows.append([m["round"], m["table"], STATE_ET.get(m["state"], m["state"]), "jah" if m["counted"] else "ei",
                         SIDES[i], e["no"],
                         e["name"], "" if m["final"] is None else m["final"][i],
                         "" if m["winner"] is None else ents[m["winner"]]["no"], " ".join(m["result_ids"]),
                         " | ".join(m["problems"]), notes])
    return _csv(rows)


DEAL_FIELDS = ("game", "contract", "maker", "result", "winner", "board", "bidder", "bid", "high", "low", "right",
               "left", "joker", "capture", "sohk", "offence", "offender", "by", "side", "points", "reason", "target")


def deals_csv(conn, t):
    """Every event of every result placed in the tournament, with the score after it (folded again);
    then the match's final score as folded, and each standing correction of the judge with the
    score after it (the number the standings count)."""
    places, unplaced = S._placed_results(conn, t)
    corr = R.result_corrections(conn)
    rows = [DEAL_HEADERS + list(DEAL_FIELDS) + ["Seis pärast"]]
    results = [r for rs in places.values() for r in rs] + unplaced
    for r in sorted(results, key=lambda r: r["id"]):
        events = S.fold_result(r["events"], r["sha256"])[0]
        m = Match()
        for ev in events:
            m.apply(ev)
            score = "" if m.st is None else " ".join(str(x) for x in m.st.score)
            rows.append([r["result_id"], SOURCE_ET.get(r["source"], r["source"]), STATE_ET.get(r["status"], r["status"]),
                         r["round_no"], r["table_no"], r["room"] or "", ev["seq"], ev["type"]] + [_cell(ev.get(f)) for f in DEAL_FIELDS] + [score])
        head = [r["result_id"], SOURCE_ET.get(r["source"], r["source"]), STATE_ET.get(r["status"], r["status"]),
                r["round_no"], r["table_no"], r["room"] or "", ""]
        summary = m.summary() if m.st is not None else {}
        final, winner = summary.get("final"), summary.get("winner")
        if final is None:
            continue
        rows.append(head + ["lõpptulemus"] + [_cell(winner) if f == "winner" else "" for f in DEAL_FIELDS] +
                    [" ".join(str(x) for x in final)])
        for c in corr.get(r["result_id"], ()):
            final, winner = R.apply(final, winner, [c])
            cells = {"by": c["by_whom"], "reason": "record %d: %s" % (c["id"], c["why"]),
                     "points": _cell(c["data"].get("points"))}
            if "winner" in c["data"]:
                cells["winner"] = _cell(c["data"]["winner"]) or "none"
            rows.append(head + ["kohtuniku parandus"] + [cells.get(f, "") for f in DEAL_FIELDS] +
                        [" ".join(str(x) for x in final)])
    return _csv(rows)


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    return v


def standings_html(st, season_name=None, title=None, meta=None, headers=None):
    """The printable page of standings (or, with title, meta and headers given, of a draw)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("nakk_host", "templates"),
                             autoescape=jinja2.select_autoescape(("html",)))
    given_title, given_meta = title, meta
    if season_name is not None:
        title = "Hooaeg %s: üldtulemus" % season_name
        meta = "%d etappi: %s" % (len(st["stages"]), ", ".join("%s (%s)" % (s["name"], s["date"] or "")
                                                             for s in st["stages"]))
        pending = []
    else:
        tt = st["tournament"]
        title = tt["name"]
        meta = " · ".join(x for x in (tt["date"], tt["place"], tt["ruleset"],
                                       "pärast %d. vooru / after round %d" % (st["round"], st["round"])) if x)
        pending = st["pending"]
    order_text = st["order_text"]
    if st.get("order"):
        from nakk_host.hall.words import order_words
        order_text = "%s / %s" % (order_words(st["order"], "et"), order_words(st["order"], "en"))
    return env.get_template("standings.html").render(
        title=given_title or title, meta=given_meta or meta, order_text=order_text, columns=st["columns"],
        headers=dict(HEADERS, **(headers or {})), numeric=NUMERIC, rows=st["rows"], pending=pending,
        pending_text=S.pending_text, status_word=_status,
        foot="Arvutatud iga partii sündmustest (nakk). Recomputed from every match's stored events.")


def write(path, text, force=False, bom=False):
    """Write a file, never over an existing one unless asked."""
    if os.path.exists(path) and not force:
        raise TournamentError("%s exists; give another name or --force to overwrite it" % path)
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        f.write(text)
    return path


def export_all(conn, t, out_dir, force=False):
    """standings.csv, matches.csv, deals.csv and standings.html of a tournament into out_dir."""
    os.makedirs(out_dir, exist_ok=True)
    st = S.standings(conn, t)
    files = [("standings.csv", standings_csv(st), True), ("matches.csv", matches_csv(conn, t), True),
             ("deals.csv", deals_csv(conn, t), True), ("standings.html", standings_html(st), False)]
    for name, _, _ in files:
        if os.path.exists(os.path.join(out_dir, name)) and not force:
            raise TournamentError("%s exists; give another --out or --force to overwrite" % os.path.join(out_dir, name))
    return [write(os.path.join(out_dir, name), text, True, bom) for name, text, bom in files]


def draw_rows(t, rt, bye="bye"):
    """A round's draw as rows for the screen and the printed page: table, (room,) the sides with their
    numbers, state. Turniirisasku: a row per room, naming the team's pair that sits there."""
    rows = []
    for tb in rt["tables"]:
        if tb["rooms"] and not tb["bye"]:
            for x in tb["rooms"]:
                sides = ["%s (%d)" % (p["name"], p["no"]) for p in x["sides"]]
                rows.append({"table": tb["table"], "room": x["room"], "sides": sides, "state": x["state"]})
            continue
        sides = ["%s (%d)" % (s["name"], s["no"]) for s in tb["sides"]]
        if tb["bye"]:
            sides.append(bye)
        rows.append({"table": tb["table"], "room": None, "sides": sides, "state": tb["state"]})
    return rows


def round_html(conn, t, round_no):
    """The draw as a printable page (the same template as the standings): table, room (Turniirisasku:
    which team's pair sits in which room), the sides with their numbers."""
    rt = S.round_tables(conn, t, round_no)
    rows = []
    for r in draw_rows(t, rt, bye="vaba / bye"):
        sides = r["sides"] + [""] * (3 - len(r["sides"]))
        rows.append({"table": r["table"], "room": r["room"] or "", "a": sides[0], "b": sides[1], "c": sides[2]})
    cols = ["table"] + (["room"] if t["format"] == "teams" else []) + ["a", "b"] + \
        (["c"] if t["format"] == "schmier" else [])
    st = {"tournament": rt["tournament"], "round": round_no, "order_text": "laudade kaupa / by table",
          "columns": cols, "rows": rows, "pending": []}
    head = rt["tournament"]
    meta = " · ".join(x for x in (head["date"], head["place"], head["ruleset"]) if x)
    return standings_html(st, title="%s: %d. voor / round %d" % (t["name"], round_no, round_no), meta=meta,
                          headers={"table": "Laud / table", "room": "Tuba / room", "a": "A", "b": "B", "c": "C"})
