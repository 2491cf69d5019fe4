"""What the console's forms do: each action reads its form's fields and calls the module the CLI calls.

No scoring, drawing or checking lives here: a field the form must have is
asked for (FieldError, beside the field), then the work is the modules'
(players, draw, assign, sync, enter, acts, tournament), whose refusals come
back as FieldError on the field they concern. An action returns its message in
Estonian and English and where to go next.
"""

import base64
import sqlite3

from nakk_host import acts as J
from nakk_host import assign as A
from nakk_host import draw as D
from nakk_host import players as P
from nakk_host import tournament as T
from nakk_host.refusals import estonian
from nakk_host.intake import IntakeError
from nakk_host.store import StoreError


class FieldError(Exception):
    """A form's field is wrong: the message goes beside it, nothing was changed."""

    def __init__(self, field, et, en=None):
        Exception.__init__(self, et)
        self.field = field
        self.et = et
        self.en = en or et


def need(form, field, et, en, number=False):
    """A field that must be filled in (a whole number where number)."""
    v = (form.get(field) or "").strip()
    if not v:
        raise FieldError(field, et, en)
    if number:
        try:
            return int(v)
        except ValueError:
            raise FieldError(field, "kirjuta täisarv", "type a whole number")
    return v


def optional_int(form, field):
    v = (form.get(field) or "").strip()
    if not v:
        return None
    try:
        return int(v)
    except ValueError:
        raise FieldError(field, "kirjuta täisarv", "type a whole number")


def why(form):
    return need(form, "why", "miks? põhjus jääb ajalukku", "why? the reason is kept in the history")


def run(field, fn, *args, **kw):
    """fn(*args) with the modules' refusals turned into a FieldError on `field`."""
    try:
        return fn(*args, **kw)
    except (T.TournamentError, IntakeError, StoreError) as e:
        raise FieldError(field, estonian(str(e)), str(e))
    except sqlite3.Error as e:
        raise FieldError(field, "andmebaas: %s" % e, "the database: %s" % e)


# ---------------------------------------------------------------- tournament

def tournament_new(c, form):
    name = need(form, "name", "turniiri nimi puudub", "the tournament needs a name")
    rounds = need(form, "rounds", "mitu vooru?", "how many rounds?", number=True)
    ruleset = need(form, "ruleset", "vali reeglid", "choose the rules")
    fmt = {"sasku": "teams", "schmier": "schmier"}.get(ruleset, "stage")
    settings = run("settings", T.parse_settings, [x for x in (form.get("settings") or "").splitlines() if x.strip()])
    order = [x.strip() for x in (form.get("order") or "").split(",") if x.strip()] or None
    try:
        t = run("name", T.create, c.conn, name, ruleset, fmt, rounds, date=form.get("date") or None,
                place=form.get("place") or None, boards=optional_int(form, "boards"),
                season=(form.get("season") or "").strip() or None, settings=settings,
                draw=form.get("draw") or "auto", order_by=order, code=(form.get("code") or "").strip() or None)
    except FieldError as e:
        # the module's refusal names its option: the message goes beside that field
        for field, words in (("boards", "boards"), ("rounds", "round"), ("date", "date"), ("code", "code"),
                             ("order", "criterion"), ("draw", "draw is"), ("settings", "setting")):
            if words in e.en:
                e.field = field
        raise
    c.session["t"] = t["code"]
    return ("Turniir %s loodud" % t["name"], "Tournament %s created" % t["name"]), "/"


def tournament_use(c, form):
    code = need(form, "code", "vali turniir", "choose a tournament")
    t = run("code", T.get, c.conn, code)
    c.session["t"] = t["code"]
    return ("Valitud: %s" % t["name"], "Chosen: %s" % t["name"]), "/"


# ---------------------------------------------------------------- players

def players_preview(c, form, upload):
    """Read an uploaded CSV as `nakk players import` does, without adding anything: the rows to confirm."""
    if upload is None or not upload:
        raise FieldError("file", "vali CSV-fail", "choose a CSV file")
    rows, enc = run("file", P.read_csv, upload, c.t["format"])
    return {"rows": rows, "encoding": enc, "data": base64.b64encode(upload).decode("ascii")}


def players_import(c, form):
    try:
        raw = base64.b64decode(need(form, "data", "faili pole", "no file"), validate=True)
    except ValueError:
        raise FieldError("file", "fail on rikutud, laadi uuesti", "the file is damaged: upload it again")
    rows, _ = run("file", P.read_csv, raw, c.t["format"])
    added = run("file", P.add_many, c.conn, c.t, rows)
    barred = [e["name"] for e in added if e["status"] == "barred"]
    et = "%d lisatud (numbrid %d–%d)" % (len(added), added[0]["no"], added[-1]["no"])
    en = "%d added (numbers %d-%d)" % (len(added), added[0]["no"], added[-1]["no"])
    if barred:
        et += "; eelmisest etapist diskvalifitseeritud, loosist väljas: " + ", ".join(barred)
        en += "; disqualified in the previous stage, left out of the draw: " + ", ".join(barred)
    return (et, en), "/players"


def player_add(c, form):
    name = need(form, "name", "nimi puudub", "the name is missing")
    players = [p.strip() for p in (form.get("players") or "").split(",") if p.strip()]
    e = run("name", P.add_many, c.conn, c.t, [{"name": name, "club": (form.get("club") or "").strip(),
                                               "players": players}])[0]
    return ("Lisatud nr %d %s" % (e["no"], e["name"]), "Added no %d %s" % (e["no"], e["name"])), "/players"


def player_withdraw(c, form):
    return on_player(c, form, P.withdraw, "loobus (järgmistest loosimistest väljas)",
                     "withdrawn (left out of the next draws)"), "/players"


def on_player(c, form, fn, et, en):
    """A judge's act on the player numbered in the form, with its reason: fn(conn, tournament, no,
    by, why); the words saying it was done ("Nr 3 Mets/Tamm " and et)."""
    e = run("no", fn, c.conn, c.t, need(form, "no", "number puudub", "the number is missing"), c.by, why(form))
    return "Nr %d %s %s" % (e["no"], e["name"], et), "No %d %s %s" % (e["no"], e["name"], en)


def player_rename(c, form):
    no = need(form, "no", "number puudub", "the number is missing")
    name = need(form, "name", "uus nimi puudub", "the new name is missing")
    players = [p.strip() for p in (form.get("players") or "").split(",") if p.strip()] or None
    e = run("name", P.rename, c.conn, c.t, no, name, c.by, why(form), players)
    return ("Nr %d on nüüd %s" % (e["no"], e["name"]), "No %d is now %s" % (e["no"], e["name"])), "/players"


# ---------------------------------------------------------------- rounds, boxes

def draw(c, form):
    n = need(form, "round", "mis voor?", "which round?", number=True)
    rn, method, seed, barred = run("round", D.draw_round, c.conn, c.t, n)
    et = {"swiss": "Šveitsi süsteem", "round-robin": "igaüks igaühega", "schmier": "kolmekaupa"}.get(method, method)
    return ("Voor %d loositud (%s, seeme %d)" % (rn, et, seed),
            "Round %d drawn (%s, seed %d)" % (rn, method, seed)), "/"


def push(c, form):
    """Give the round's boxes their tables: through the watcher's offers while it watches (it holds
    the ports), else assign.push_all on every port found."""
    from nakk_host import standings as S
    rn = optional_int(form, "round") or S.current_round(c.conn, c.t)
    if getattr(c.watcher, "available", False):
        offered = [b for b in c.watcher.boxes(c.lang) if (b["offer"] or {}).get("kind") == "assign"
                   and b["offer"].get("round") == rn and b["offer"].get("tournament") == c.t["code"]]
        sent = []
        for b in offered:
            try:
                c.watcher.assign(b["port"])
                sent.append(b)
            except Exception:           # busy or pulled out since: its offer stays on the page
                pass
        if not sent:
            raise FieldError("round", "ükski ühendatud kast ei oota %d. vooru lauda" % rn,
                             "no box plugged in is waiting for a table of round %d" % rn)
        return ("Voor %d: saadan %d kastile nende laua" % (rn, len(sent)),
                "Round %d: sending %d boxes their table" % (rn, len(sent))), "/"
    done = run("round", A.push_all, c.conn, c.t, rn)
    if not done:
        raise FieldError("round", "ühtegi kasti pole ühendatud (USB või simulaator)",
                         "no box is connected (USB or a simulator)")
    sent = [x for x in done if x[4].startswith("sent")]
    other = [(x[1] or x[0], x[4]) for x in done if not x[4].startswith("sent")]
    et = "".join("; %s: %s" % (who, estonian(what)) for who, what in other)
    en = "".join("; %s: %s" % (who, what) for who, what in other)
    return ("Voor %d: %d kasti said oma laua%s" % (rn, len(sent), et),
            "Round %d: %d boxes got their table%s" % (rn, len(sent), en)), "/"


def assign_one(c, form):
    from nakk_host import standings as S
    rn = optional_int(form, "round") or S.current_round(c.conn, c.t)
    tb = need(form, "table", "mis laud?", "which table?", number=True)
    room = optional_int(form, "room") or 0
    port = need(form, "port", "vali kast", "choose a box")
    rec = run("table", A.assignment, c.conn, c.t, rn, tb, room)
    device, url = run("port", A.push, c.conn, rec, port)
    A.pushed(c.conn, c.t, rn, tb, room, rec, device_id=device)
    return ("Laud %d: saadetud kastile %s" % (tb, device), "Table %d: sent to box %s" % (tb, device)), "/"


def pair(c, form):
    from nakk_host import judge
    from nakk_host.errors import CommandError
    port = need(form, "port", "vali kast", "choose a box")
    name = need(form, "name", "kasti nimi, nt „laud 3”", "the box's name, e.g. 'laud 3'")
    try:
        h = judge.pair_box(c.db, port, name, say=lambda s: None, judge_name=c.by)
    except CommandError as e:
        raise FieldError("port", estonian(str(e)), str(e))
    return ("Kast %s paaritatud nimega %s" % (h["device"], name), "Box %s paired as %s" % (h["device"], name)), "/boxes"


def sync(c, form):
    """Sync the boxes plugged in: through the watcher while it watches (it holds each box's port: a
    box it is busy with is synced after that job), else sync.sync on every port found."""
    from nakk_host import device as Dev
    from nakk_host import sync as Sy
    if getattr(c.watcher, "available", False):
        asked = []
        for b in c.watcher.boxes(c.lang):
            if b["state"] not in ("unpaired", "foreign"):
                try:
                    c.watcher.sync(b["port"])
                    asked.append(b["port"])
                except Exception:       # pulled out since the page was drawn: nothing to sync
                    pass
        if not asked:
            raise FieldError("sync", "ühtegi paaritatud kasti pole ühendatud", "no paired box is plugged in")
        return ("Sünkroonin %d kasti: mis tuleb, on allpool" % len(asked),
                "Syncing %d boxes: what comes in is below" % len(asked)), "/"
    ports = Dev.discover()
    if not ports:
        raise FieldError("sync", "ühtegi kasti pole ühendatud", "no box is connected")
    reports = Sy.sync(ports, c.db)
    new = sum(len(r.new) for r in reports)
    bad = [(r.device or r.port.url, r.error or "; ".join(w for _, w in r.rejected)) for r in reports if not r.ok()]
    et = "".join("; %s: %s" % (who, estonian(why)) for who, why in bad)
    en = "".join("; %s: %s" % (who, why) for who, why in bad)
    return ("Sünkroonitud %d kasti: %d uut tulemust%s" % (len(reports), new, et),
            "Synced %d boxes: %d new results%s" % (len(reports), new, en)), "/"


def watch_pair(c, form):
    """Pair a box the plug-in watcher offers for pairing (it asks its players to hold PREV+NEXT)."""
    port = need(form, "port", "vali kast", "choose a box")
    name = need(form, "name", "kasti nimi, nt „laud 3”", "the box's name, e.g. 'laud 3'")
    try:
        c.watcher.pair(port, name)
    except Exception as e:          # the watcher's refusal (the box is gone, not offered) in its words
        raise FieldError("name", estonian(str(e)), str(e))
    return ("Kast küsib mängijatelt kinnitust: hoidke PREV ja NEXT all", "The box asks its players: hold PREV "
            "and NEXT"), "/" if form.get("back") == "/" else "/boxes"


def watch_assign(c, form):
    """Send the box the assignment the plug-in watcher offers it."""
    port = need(form, "port", "vali kast", "choose a box")
    try:
        c.watcher.assign(port)
    except Exception as e:
        raise FieldError("port", estonian(str(e)), str(e))
    return ("Saadan kastile tema laua", "Sending the box its table"), "/" if form.get("back") == "/" else "/boxes"


# ---------------------------------------------------------------- the judge's acts

def deduct(c, form):
    no = need(form, "no", "number puudub", "the number is missing")
    e, pts = run("no", J.deduct, c.conn, c.t, no, c.by, why(form), optional_int(form, "points"))
    return ("Nr %d %s: %d maha arvatud" % (e["no"], e["name"], pts),
            "No %d %s: %d deducted" % (e["no"], e["name"], pts)), "/acts"


def disqualify(c, form):
    return on_player(c, form, J.disqualify, "diskvalifitseeritud", "disqualified"), "/acts"


def correct(c, form):
    rid = need(form, "result", "tulemuse tunnus puudub", "the result id is missing")
    reason = why(form)
    points = None
    if (form.get("points") or "").strip():
        try:
            points = [int(x) for x in form["points"].replace(",", " ").split()]
        except ValueError:
            raise FieldError("points", "punktid poolte kaupa, nt 0 -2", "points per side, e.g. 0 -2")
    winner = J.winner_of(form.get("winner"))
    if points is None and winner is False:
        raise FieldError("points", "anna punktid või võitja", "give points or a winner")
    data = run("result", J.correct, c.conn, c.t, rid, c.by, reason, points, winner)
    return (("%s parandatud: %s" % (rid, J._corr_text(data, "et")), "%s corrected: %s" % (rid, J._corr_text(data))),
            "/acts")


def void(c, form):
    what = need(form, "what", "kirje number või tulemuse tunnus", "a record number or a result id")
    if run("what", J.void_any, c.conn, c.t, what, c.by, why(form)) is not None:
        return ("Kirje %s tühistatud" % what, "Record %s voided" % what), "/acts"
    return ("%s jäetakse arvestusest välja" % what, "%s is left out of the standings" % what), "/acts"


def place(c, form):
    rid = need(form, "result", "tulemuse tunnus puudub", "the result id is missing")
    rn = need(form, "round", "mis voor?", "which round?", number=True)
    tb = need(form, "table", "mis laud?", "which table?", number=True)
    run("result", J.place, c.conn, c.t, rid, rn, tb, c.by, why(form), optional_int(form, "room") or 0,
        bool(form.get("swap")))
    return ("%s paigutatud: voor %d laud %d" % (rid, rn, tb), "%s placed: round %d table %d" % (rid, rn, tb)), "/acts"


def close(c, form, upload=None):
    """Close a dead box's match: its events so far (an uploaded JSON-lines file, as the box's dump
    gives them; none: nothing could be read), then the forfeit or the judge's close."""
    from nakk_host import enter as E
    rn = need(form, "round", "mis voor?", "which round?", number=True)
    tb = need(form, "table", "mis laud?", "which table?", number=True)
    forfeit = (form.get("forfeit") or "").strip().upper() or None
    reason = why(form)
    events = ()
    if upload:
        events = run("events", E.events_of, upload[3:].split(b"\n") if upload.startswith(b"\xef\xbb\xbf")
                     else upload.split(b"\n"))
    rid, status, _ = run("table", E.close, c.conn, c.t, rn, tb, c.by, reason, events,
                         optional_int(form, "room") or 0, forfeit)
    return ("Voor %d laud %d suletud: %s" % (rn, tb, rid), "Round %d table %d closed: %s" % (rn, tb, rid)), "/acts"


ACTIONS = {f.__name__: f for f in (tournament_new, tournament_use, players_import, player_add, player_withdraw,
                                   player_rename, draw, push, assign_one, pair, sync, watch_pair, watch_assign,
                                   deduct, disqualify,
                                   correct, void, place, close)}
# the page each action's form is on (its errors are shown there)
PAGE_OF = {"tournament_new": "/tournaments", "tournament_use": "/tournaments", "players_import": "/players",
           "player_add": "/players", "player_withdraw": "/players", "player_rename": "/players", "draw": "/",
           "push": "/", "assign_one": "/boxes", "pair": "/boxes",
           "watch_pair": "/boxes", "watch_assign": "/boxes", "sync": "/", "deduct": "/acts",
           "disqualify": "/acts", "correct": "/acts", "void": "/acts", "place": "/acts", "close": "/acts"}
