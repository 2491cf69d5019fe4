"""A paper sheet typed in on the console, deal by deal, kept in the database (table `sheets`) between clicks.

The questions are the ruleset's own deal form, asked step by step as the box
and `nakk enter` ask them (enter.next_step, enter.give), and every entry goes
through the same Sheet (Match.apply): a refused entry says the rules' reason
and changes nothing. Each click saves the sheet, so closing the browser loses
nothing; storing it is enter.store_sheet, as the CLI stores it.
"""

import json

from nakk.event import EventError

from nakk_host import enter as E
from nakk_host.console.actions import FieldError, need, run, why
from nakk_host.refusals import estonian
from nakk_host.store import now


def _key(t, rn, tb, room):
    return (t["id"], rn, tb, room)


def load(conn, t, rn, tb, room=0):
    """(sheet, answers, step) of a sheet being typed in, or None."""
    row = conn.execute("SELECT events, answers, step FROM sheets WHERE tournament_id=? AND round_no=? AND "
                       "table_no=? AND room=?", _key(t, rn, tb, room)).fetchone()
    if row is None:
        return None
    return E.Sheet.from_events(json.loads(row["events"])), json.loads(row["answers"]), row["step"]


def save(conn, t, rn, tb, room, sheet, answers, step):
    with conn:
        conn.execute("INSERT INTO sheets (tournament_id, round_no, table_no, room, events, answers, step, updated_at)"
                     " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (tournament_id, round_no, table_no, room) DO UPDATE"
                     " SET events=excluded.events, answers=excluded.answers, step=excluded.step,"
                     " updated_at=excluded.updated_at",
                     _key(t, rn, tb, room) + (json.dumps(sheet.events, ensure_ascii=False),
                                              json.dumps(answers, ensure_ascii=False), step, now()))


def drop(conn, t, rn, tb, room=0):
    with conn:
        conn.execute("DELETE FROM sheets WHERE tournament_id=? AND round_no=? AND table_no=? AND room=?",
                     _key(t, rn, tb, room))


def open_sheets(conn, t):
    return [dict(r) for r in conn.execute("SELECT round_no, table_no, room, updated_at FROM sheets WHERE "
                                          "tournament_id=? ORDER BY round_no, table_no, room", (t["id"],))]


def start(conn, t, rn, tb, room=0):
    """The sheet of a table: the one being typed in, or a fresh one (refused where the result is in)."""
    got = load(conn, t, rn, tb, room)
    if got is not None:
        return got
    return run("table", E.sheet_for, conn, t, rn, tb, room), {}, 0     # saved with its first entry


def view(sheet, answers, step, lang):
    """What the form shows: the score, the step asked (its choices as buttons), whether it is over."""
    s = sheet.m.summary()
    L = 1 if lang == "en" else 0
    out = {"score": s["final"] if s["over"] else s["score"], "over": bool(s["over"]), "winner": s["winner"],
           "ended": s.get("ended"), "deals": sheet.m.st.deals, "sides": [x["name"] for x in sheet.events[0]["sides"]],
           "answers": answers, "step": None, "signed": any(e["type"] in ("confirm", "dispute") for e in sheet.events),
           "events": len(sheet.events) - 1}
    if s["over"]:
        return out
    nxt = E.next_step(sheet, answers, step)
    if nxt is None:
        return out
    k, st, offered = nxt
    n = sheet.m.rules.sides
    choices = []
    for i, c in enumerate(offered):
        label = c["label"][L]
        if c.get("side") is not None:
            for side in "ABC"[:n]:
                choices.append({"answer": "%d %s" % (i + 1, side), "label": "%s: %s" % (label, side)})
        if c.get("side") is None or c.get("ok"):
            choices.append({"answer": str(i + 1), "label": label})
    out["step"] = {"k": k, "label": st["label"][L], "choices": choices, "tally": "count" in st,
                   "count": st.get("count"), "rest": bool(st.get("rest"))}
    return out


def act(conn, t, rn, tb, room, form, by):
    """One click on the sheet's form. Returns the message (et, en) or raises FieldError; the sheet is saved."""
    sheet, answers, step = start(conn, t, rn, tb, room)
    what = form.get("what") or "answer"
    try:
        if what == "answer":
            nxt = E.next_step(sheet, answers, step)
            if nxt is None:
                raise FieldError("answer", "selles jagamises pole enam küsimusi", "nothing more to ask in this deal")
            answers, step = E.give(sheet, nxt[0], answers, need(form, "answer", "vali vastus", "choose an answer"))
            if E.next_step(sheet, answers, step) is None:
                sheet.deal(E.deal_fields(sheet, answers))
                answers, step = {}, 0
        elif what == "drop":
            answers, step = {}, 0
        elif what == "undo":
            sheet.undo()
        elif what == "penalty":
            sheet.penalty(need(form, "offence", "mis rikkumine?", "which offence?"), need(form, "side", "kes?", "who?"))
        elif what == "redeal":
            sheet.redeal(need(form, "reason", "põhjus", "the reason"))
        elif what == "adjust":
            sheet.adjust(need(form, "side", "kes?", "who?"),
                         need(form, "points", "mitu punkti?", "how many points?", number=True),
                         need(form, "reason", "põhjus", "the reason"))
        elif what == "forfeit":
            sheet.forfeit(need(form, "side", "kes loobub?", "who forfeits?"), form.get("reason") or None)
        elif what == "close":
            sheet.close(need(form, "reason", "põhjus", "the reason"))
        elif what == "sign":
            sheet.sign(form.get("signed") == "yes")
        elif what == "store":
            s = sheet.m.summary()
            if not s["over"]:
                raise FieldError("store", "partii pole veel läbi", "the match is not over yet")
            if s["ended"] not in ("closed", "forfeit") and not any(
                    e["type"] in ("confirm", "dispute") for e in sheet.events):
                raise FieldError("store", "kas kõik pooled allkirjastasid?", "did every side sign the sheet?")
            rid, status, problems = run("store", E.store_sheet, conn, t, sheet, by, why(form))
            drop(conn, t, rn, tb, room)
            return ("Paberleht salvestatud: %s (%s)" % (rid, status), "Paper sheet stored: %s (%s)" % (rid, status))
        elif what == "discard":
            drop(conn, t, rn, tb, room)
            return ("Leht visati ära, midagi ei salvestatud", "Sheet discarded, nothing stored")
        else:
            raise FieldError("what", "tundmatu käsk", "unknown command")
    except EventError as e:
        raise FieldError("answer", "reeglid ei luba: %s" % estonian(E._err(e)), "refused by the rules: %s" % E._err(e))
    except ValueError as e:
        raise FieldError("answer", estonian(str(e)), str(e))
    save(conn, t, rn, tb, room, sheet, answers, step)
    return ("Sisestatud", "Entered")
