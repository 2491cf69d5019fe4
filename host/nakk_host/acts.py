"""The judge's acts on a tournament: deductions, disqualification, corrections, voids, placements, and the history.

Each act is a new row in `records` with who and why; nothing stored is ever
edited. The standings apply the records on top of the folded results, so
`history()` can say, line by line, why every number is what it is.
"""

from nakk import rules as rules_pkg
from nakk.event import SIDES

from nakk_host import players as P
from nakk_host import records as R
from nakk_host import standings as S
from nakk_host.tournament import TournamentError


MAX_POINTS = 10000          # more than any match of any ruleset gives (and well inside SQLite's integers)


def deduct(conn, t, no, by, why, points=None, round_no=None):
    """Deduct points from an entrant's overall result (SM-15: the noise deduction, 4 by default).
    Counts from round round_no on (default: the current round)."""
    e = P.find(conn, t, no)
    if points is None:
        cfg = rules_pkg.get(t["ruleset"]).config(t["settings"] or None)
        points = cfg.get("noise_deduction", 4)
    if points <= 0:
        raise TournamentError("a deduction is a positive number of points taken off (got %d); to withdraw "
                              "one, `nakk void RECORD`" % points)
    if points > MAX_POINTS:
        raise TournamentError("a deduction of %d is more than any match gives (at most %d)" % (points, MAX_POINTS))
    if round_no is None:
        round_no = S.current_round(conn, t)
    with conn:
        P.record(conn, t, "deduct", by, why, entrant=e, points=points, round_no=round_no)
    return e, points


def disqualify(conn, t, no, by, why):
    """Remove an entrant: left out of this tournament's later draws and barred from the
    season's next stage (SM: "ei tohi järgmises etapis osaleda"). Results played stay."""
    e = P.find(conn, t, no)
    if e["status"] == "disqualified":
        raise TournamentError("%s is disqualified already" % e["name"])
    with conn:
        P.record(conn, t, "disqualify", by, why, entrant=e, round_no=S.current_round(conn, t))
    return e


def _result(conn, t, result_id):
    row = conn.execute("SELECT result_id, tournament, round_no, table_no, room, ruleset FROM results"
                       " WHERE result_id=?", (result_id,)).fetchone()
    if row is None:
        raise TournamentError("no result %r (see `nakk history` or `nakk standings` for result ids)" % result_id)
    return dict(row)


def _of_this(conn, t, r):
    """A correction or a void counts in the tournament it is recorded in: refuse one recorded in
    another than the result's (it would show in `nakk results` and nowhere in the standings)."""
    placed = conn.execute("SELECT 1 FROM records WHERE tournament_id=? AND kind='place' AND result_id=?",
                          (t["id"], r["result_id"])).fetchone()
    if r["tournament"] != t["code"] and placed is None:
        raise TournamentError("%s is a result of %s, not of %s: give -t %s (or place it here first: nakk correct "
                              "%s --place ROUND TABLE)" % (r["result_id"], r["tournament"] or "no tournament",
                                                           t["code"], r["tournament"] or "CODE", r["result_id"]))


def correct(conn, t, result_id, by, why, points=None, winner=False):
    """Correct a result without touching its events: points to add per side (e.g. [0, -2]),
    and/or the winner ('A', 'B', 'C', or None for no winner; False: unchanged)."""
    r = _result(conn, t, result_id)
    _of_this(conn, t, r)
    n = rules_pkg.get(r["ruleset"]).sides if r["ruleset"] else len(points or [0, 0])
    data = {}
    if points is not None:
        if len(points) != n:
            raise TournamentError("give %d numbers, one per side (%s)" % (n, " ".join(SIDES[:n])))
        if any(abs(p) > MAX_POINTS for p in points):
            raise TournamentError("a correction of more than %d points is more than any match gives" % MAX_POINTS)
        data["points"] = list(points)
    if winner is not False:
        if winner is not None and winner not in SIDES[:n]:
            raise TournamentError("the winner is one of %s (or none)" % ", ".join(SIDES[:n]))
        data["winner"] = winner
    if not data:
        raise TournamentError("say what changes: --points and/or --winner (or --void)")
    with conn:
        P.record(conn, t, "correct", by, why, result_id=result_id, data=data,
                 round_no=r["round_no"], table_no=r["table_no"], room=r["room"])
    return data


def void(conn, t, result_id, by, why):
    """Leave a result out of the standings (a second result for a table, a match played by
    mistake). Its events stay stored."""
    _of_this(conn, t, _result(conn, t, result_id))
    with conn:
        P.record(conn, t, "void", by, why, result_id=result_id)


def void_record(conn, t, record_no, by, why):
    """Withdraw one of the judge's deductions or corrections: a new `void` record naming it (data.record);
    the standings leave the voided one out, the history shows both. Returns the voided record."""
    row = conn.execute("SELECT * FROM records WHERE id=? AND tournament_id=?", (record_no, t["id"])).fetchone()
    if row is None:
        raise TournamentError("no record %s in %s (nakk history lists them with their numbers)" % (record_no, t["code"]))
    old = dict(row)
    if old["kind"] not in R.VOIDABLE:
        raise TournamentError("record %d is a %s: only a deduction or a correction is voided this way%s" % (
            old["id"], old["kind"], " (a result: nakk void RESULT)" if old["kind"] == "void" else ""))
    done = R.voids(conn, t["id"]).get(old["id"])
    if done is not None:
        raise TournamentError("record %d was voided already (record %d, by %s)" % (old["id"], done["id"],
                                                                                   done["by_whom"]))
    e = None
    if old["entrant_id"] is not None:
        e = {"id": old["entrant_id"]}
    with conn:
        P.record(conn, t, "void", by, why, entrant=e, round_no=old["round_no"], table_no=old["table_no"],
                 room=old["room"], points=old["points"], data={"record": old["id"], "kind": old["kind"],
                                                              "result": old["result_id"]})
    return old


def void_any(conn, t, what, by, why):
    """`nakk void RECORD|RESULT`: a record number voids that deduction or correction (returns the
    voided record); anything else is a result id, left out of the standings (returns None)."""
    what = str(what).strip()
    if what.isdigit():
        return void_record(conn, t, int(what), by, why)
    void(conn, t, what, by, why)
    return None


def winner_of(text):
    """A correction's winner as the judge writes it: "A", "b", "none" (no winner, also "pole");
    empty: the winner is left as it is (False)."""
    text = (text or "").strip()
    if not text:
        return False
    return None if text.lower() in ("none", "pole") else text.upper()


def place(conn, t, result_id, round_no, table_no, by, why, room=0, swap=False):
    """Place a result at a drawn table (a box played a match nobody assigned it).
    swap: the result's side A is the draw's second entrant."""
    _result(conn, t, result_id)
    if conn.execute("SELECT 1 FROM draw WHERE tournament_id=? AND round_no=? AND table_no=? AND room=?",
                    (t["id"], round_no, table_no, room)).fetchone() is None:
        raise TournamentError("round %d has no table %d%s in %s" % (
            round_no, table_no, " room %d" % room if room else "", t["code"]))
    with conn:
        P.record(conn, t, "place", by, why, result_id=result_id, round_no=round_no, table_no=table_no, room=room,
                 data={"swap": bool(swap)})


# ---------------------------------------------------------------- history

def _name(ents, eid):
    e = ents.get(eid)
    return "%s (%d)" % (e["name"], e["no"]) if e else "?"


# the history's words, (Estonian, English): the console shows them in the session's language, the CLI in English
WORDS = {
    "record": ("kirje %d: %s", "record %d: %s"),
    "sub": ("  kirje %d: %s", "  record %d: %s"),
    "voided": (" (tühistatud kirjega %d)", " (voided by record %d)"),
    "void": ("kirje %s tühistamine, %s: see ei loe enam", "void of record %s, %s: it no longer counts"),
    "of-deduct": ("mahaarvamine %s", "the deduction of %s"),
    "of-correct": ("tulemuse %s parandus", "the correction of %s"),
    "place": (" %d. vooru lauale %d%s", " at round %d table %d%s"),
    "swapped": (" (pooled vahetatud)", " (sides swapped)"),
    "bye": ("%d. voor: vaba voor (loeb võiduks, nakke pole)", "round %d: a bye (counts as a win, no nakks)"),
    "uncounted": ("%d. voor, laud %d, vastu %s: ei loe (%s%s)", "round %d table %d against %s: not counted (%s%s)"),
    "match": ("%d. voor, laud %d, vastu %s: %d:%d, %s (tulemus %s%s)",
              "round %d table %d against %s: %d:%d, %s (result %s%s)"),
    "won": ("võit", "won"), "lost": ("kaotus", "lost"), "no winner": ("võitjat pole", "no winner"),
    "as corrected": (", parandatud kujul", ", as corrected"),
    "corrected": ("%s parandatud: %s", "corrected %s: %s"),
    "deduction": ("%d punkti maha üldtulemusest (alates %s. voorust)",
                  "deduction of %d from the overall result (from round %s)"),
    "renamed": ("uus nimi: %s -> %s", "renamed %s -> %s"),
    "disqualify": ("diskvalifitseeritud (pole järjestuses; sarja järgmisest etapist väljas)",
                   "disqualified (not ranked; barred from the season's next stage)"),
    "withdraw": ("loobus", "withdrawn"), "reinstate": ("tagasi võistlusel", "reinstated"),
    "barred": ("pole edetabelis: sellest etapist väljas (diskvalifitseeriti sarja eelmises etapis)",
               "not in the standings: barred from this stage (disqualified in the season's previous stage)"),
    "rank": ("koht %d: ", "rank %d: "), "unranked": ("pole järjestuses (%s): ", "not ranked (%s): "),
}
# a record's kind and a match's state as the lines name them
KINDS = {"deduct": ("mahaarvamine", "deduct"), "disqualify": ("diskvalifitseerimine", "disqualify"),
         "withdraw": ("loobumine", "withdraw"), "reinstate": ("tagasivõtmine", "reinstate"),
         "rename": ("ümbernimetamine", "rename"), "correct": ("parandus", "correct"), "void": ("tühistus", "void"),
         "place": ("paigutus", "place"), "enter": ("paberleht", "enter"), "close": ("sulgemine", "close"),
         "waiting": ("ootab", "waiting"), "playing": ("mängib", "playing"), "flagged": ("häire", "flagged"),
         "verified": ("kontrollitud", "verified"), "disputed": ("vaidlustatud", "disputed"),
         "active": ("mängib", "active"), "withdrawn": ("loobunud", "withdrawn"),
         "disqualified": ("diskvalifitseeritud", "disqualified")}


def _w(key, lang, *args):
    text = WORDS[key][0 if lang == "et" else 1]
    return text % args if args else text


def _k(kind, lang):
    return KINDS.get(kind, (kind, kind))[0 if lang == "et" else 1]


def _voided(r, lang="en"):
    v = r.get("voided_by")
    return _w("voided", lang, v["id"]) if v else ""


def _void_text(r, ents, lang="en"):
    d = r["data"]
    what = {"deduct": _w("of-deduct", lang, r["points"]), "correct": _w("of-correct", lang, d.get("result"))}
    return _w("void", lang, d.get("record"), what.get(d.get("kind"), _k(d.get("kind"), lang)))


def history(conn, t, no=None, lang="en"):
    """Why every number is what it is: a list of lines (dicts: record, round, what, text, by, why).

    For one entrant: each counted match with what it adds (and the result id it
    came from), each correction of those results, each deduction, status change and
    rename, with who and why; then the totals as the standings show them. Without
    an entrant: every record of the judge in order. A record's line carries its
    number (`record`, for `nakk void`); a voided one says which record voided it,
    and the void is a line of its own. lang: "en" (the CLI) or "et" (WORDS)."""
    ents = {e["id"]: e for e in P.entrants(conn, t)}
    recs = R.of(conn, t, ("deduct", "disqualify", "withdraw", "reinstate", "rename", "correct", "void",
                          "place", "enter", "close"), with_voided=True)
    out = []

    def line(r, text):
        out.append({"record": r["id"], "at": r["at"], "round": r["round_no"], "what": r["kind"],
                    "by": r["by_whom"], "why": r["why"], "text": text + _voided(r, lang)})

    if no is None:
        for r in recs:
            who = _name(ents, r["entrant_id"]) if r["entrant_id"] else (r["result_id"] or "")
            extra = ""
            if r["kind"] == "deduct":
                extra = " -%d" % r["points"]
            elif r["kind"] == "correct":
                extra = " %s" % R.text(r["data"], lang)
            elif r["kind"] == "place":
                extra = _w("place", lang, r["round_no"], r["table_no"],
                           _w("swapped", lang) if r["data"].get("swap") else "")
            elif r["kind"] == "rename":
                extra = " %s -> %s" % (r["data"].get("from"), r["data"].get("to"))
            if r["kind"] == "void" and r["result_id"] is None:
                line(r, _w("record", lang, r["id"], _void_text(r, ents, lang)))
            else:
                line(r, _w("record", lang, r["id"], "%s %s%s" % (_k(r["kind"], lang), who, extra)))
        return out
    e = P.find(conn, t, no)
    corr = {}
    voids_of = {}
    for r in recs:
        if r["kind"] == "correct":
            corr.setdefault(r["result_id"], []).append(r)
        elif r["kind"] == "void" and r["result_id"] is None:
            voids_of[r["data"].get("record")] = r
    for m in S.matches(conn, t):
        if e["id"] not in m["entrants"]:
            continue
        i = m["entrants"].index(e["id"])
        if m["bye"]:
            out.append({"round": m["round"], "what": "bye", "by": "", "why": "", "text": _w("bye", lang, m["round"])})
            continue
        others = ", ".join(_name(ents, x) for x in m["entrants"] if x != e["id"])
        if not m["counted"]:
            out.append({"round": m["round"], "what": "match", "by": "", "why": "",
                        "text": _w("uncounted", lang, m["round"], m["table"], others, _k(m["state"], lang),
                                   ": " + "; ".join(m["problems"]) if m["problems"] else "")})
            continue
        own = m["final"][i]
        against = sum(m["final"]) - own
        res = "won" if m["winner"] == e["id"] else "no winner" if m["winner"] is None else "lost"
        out.append({"round": m["round"], "what": "match", "by": "", "why": "",
                    "text": _w("match", lang, m["round"], m["table"], others, own, against, _w(res, lang),
                               ", ".join(m["result_ids"]),
                               _w("as corrected", lang) if any(c for rid in m["result_ids"] for c in corr.get(rid, ())
                                                               if not c.get("voided_by")) else "")})
        for rid in m["result_ids"]:
            for c in corr.get(rid, ()):
                line(c, _w("sub", lang, c["id"], _w("corrected", lang, rid, R.text(c["data"], lang))))
                if c.get("voided_by"):
                    v = c["voided_by"]
                    line(v, _w("sub", lang, v["id"], _void_text(v, ents, lang)))
    for r in recs:
        if r["entrant_id"] != e["id"]:
            continue
        if r["kind"] == "deduct":
            text = _w("deduction", lang, r["points"], r["round_no"])
        elif r["kind"] == "rename":
            text = _w("renamed", lang, r["data"].get("from"), r["data"].get("to"))
        elif r["kind"] == "void":
            text = _void_text(r, ents, lang)
        elif r["kind"] in ("disqualify", "withdraw", "reinstate"):
            text = _w(r["kind"], lang)
        else:
            text = r["kind"]
        line(r, _w("record", lang, r["id"], text))
    st = S.standings(conn, t)
    row = [x for x in st["rows"] if x["no"] == e["no"]]
    if not row:
        out.append({"round": None, "what": "total", "by": "", "why": "", "text": _w("barred", lang)})
        return out
    row = row[0]
    head = _w("rank", lang, row["rank"]) if row["rank"] is not None else _w("unranked", lang, _k(row["status"], lang))
    out.append({"round": None, "what": "total", "by": "", "why": "",
                "text": head + ", ".join("%s %s" % (_column(c, lang), row[c]) for c in st["columns"]
                                         if c not in ("rank", "no", "name", "club"))})
    return out


# a standings column as the history's total names it (English: the column's own key)
COLUMNS = {"played": "mänge", "wins": "võite", "losses": "kaotusi", "draws": "viike", "byes": "vabu",
           "nakks": "nakke", "against": "vastu", "diff": "vahe", "deductions": "maha arvatud", "mp": "MP",
           "points": "punkte", "stages_played": "etappe"}


def _column(c, lang):
    return COLUMNS.get(c, c) if lang == "et" else c


_corr_text = R.text
