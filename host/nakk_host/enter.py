"""Paper and rescue: a match typed in from its scoresheet, or closed on a dead box, kept as events like any other.

`Sheet` builds each deal's questions from the ruleset's own form description
(nakk.rules: steps, choices, which side field a choice fills), exactly as the
box does, and checks every entry with the same Match.apply: what the box
would refuse, the sheet refuses, with the rules' reason, and nothing typed
before it is lost. The finished sheet is stored through intake.store_result
as a `paper` result; `close()` ends a match left unfinished (a forfeit, or
the judge's close keeping every deal) from the events the box still holds.
"""

from nakk import rules as _rules
from nakk.event import FORMAT_VERSION, SIDES, EventError, encode
from nakk.match import Match

from nakk_host import assign as A
from nakk_host import players as P
from nakk_host.intake import next_paper_id, store_result
from nakk_host.tournament import TournamentError

HELP = ("Enter: the next deal   p OFFENCE SIDE: a penalty   r REASON: a redeal   u: undo the last entry   "
        "a SIDE POINTS REASON: an adjustment   f SIDE: a forfeit   c REASON: close unfinished   "
        "q: quit, nothing stored")


class Quit(Exception):
    """The judge left the sheet: nothing is stored."""


def _err(e):
    return "%s%s" % ((e.field + ": ") if e.field else "", e.reason)


def setup_format(setup):
    """The event format a match of this setup is written in, picked as the box picks it
    (nakk.table.Table.start): the one its ruleset's deals need (Schmier's tally: 2; Saare
    mäng stays 1), the newest for an unknown ruleset (Match then says what is wrong)."""
    try:
        return _rules.get(setup.get("ruleset")).format
    except (KeyError, TypeError):
        return FORMAT_VERSION


class Sheet:
    """One match being typed in. Every method either applies one event or raises EventError
    (with the rules' reason) and changes nothing."""

    def __init__(self, setup, lang=1, v=None):
        # v: the format of a match the box began (a rescue keeps it); else as the box picks it
        ev = dict(setup, seq=1, type="setup", v=v if v is not None else setup_format(setup))
        self.m = Match()
        self.m.apply(ev)
        self.events = [ev]
        self.lang = lang

    @classmethod
    def from_events(cls, events):
        """A sheet rebuilt from its events (setup first), each applied again through Match.apply."""
        setup = dict(events[0])
        v = setup.get("v")
        for key in ("seq", "type", "v"):
            setup.pop(key, None)
        sheet = cls(setup, v=v)
        for ev in events[1:]:
            ev = dict(ev)
            ev.pop("seq", None)
            sheet._apply(ev)
        return sheet

    def _apply(self, ev):
        ev = dict(ev, seq=self.m.seq + 1)
        self.m.apply(ev)
        self.events.append(ev)
        return ev

    def form(self):
        """(fixed fields, steps) of the next deal, from the ruleset."""
        return self.m.rules.form(self.m.st, self.m.cfg)

    def offered(self, step, answers, fixed):
        """The step's choices on offer, then the step's own OK answer (a pokk) if it has one:
        on paper it is one more number on the list."""
        out = []
        for c in step["choices"]:
            w = c.get("when")
            if w is not None and answers.get(w[0], fixed.get(w[0])) not in w[1]:
                continue
            if step.get("live") and not self.m.rules.offers(self.m.st, c):
                continue                      # e.g. a board stored already
            if c.get("adds") == 0:
                continue                      # the box's OK after a tally's last point: a line needs none
            out.append(c)
        if step.get("ok") is not None:
            out.append(step["ok"])
        return out

    def answer(self, step, answers, fixed, text):
        """Apply one typed answer to a step: "N SIDE" (the choice's number and the side its
        field takes), "N" for a choice without a side, or "rest" (Schmier: this point and
        the later ones to the bidder). Returns the updated answers; ValueError in words."""
        offered = self.offered(step, answers, fixed)
        words = text.replace(",", " ").split()
        if not words:
            raise ValueError("type a number from the list")
        if "count" in step:
            return self._tally(step, answers, offered, words)
        if words[0] == "rest" and step.get("rest"):
            who = answers.get(step["rest"])
            if who is None:
                raise ValueError("no %s yet to give the rest to" % step["rest"])
            return dict(answers, _rest=who)
        w0 = words[0]
        side = None
        if len(w0) > 1 and w0[-1].upper() in SIDES and w0[:-1].isdigit():
            w0, side = w0[:-1], w0[-1].upper()
        elif len(words) > 1:
            side = words[1].upper()
        if not w0.isdigit() or not 1 <= int(w0) <= len(offered):
            raise ValueError("choose 1 to %d" % len(offered))
        c = offered[int(w0) - 1]
        n = self.m.rules.sides
        out = dict(answers)
        # as the box's DealEntry.answer: a side fills the choice's side field and what it
        # says besides (also, opp, sets: "made it and won" in one answer); a choice OK takes
        # (or one without a side) is its value alone
        if side is None and c.get("side") is not None and not c.get("ok"):
            raise ValueError("%s needs a side: %s" % (c["label"][self.lang], " or ".join(SIDES[:n])))
        if side is not None:
            if c.get("side") is None:
                raise ValueError("%s takes no side" % c["label"][self.lang])
            if side not in SIDES[:n]:
                raise ValueError("%s needs a side: %s" % (c["label"][self.lang], " or ".join(SIDES[:n])))
        if not c.get("omit"):
            out[step["key"]] = c["value"]
        if side is not None:
            out[c["side"]] = side
            for k in c.get("also") or ():
                out[k] = side
            if c.get("opp") is not None:
                out[c["opp"]] = SIDES[1 - SIDES.index(side)]
            for k in c.get("sets") or {}:
                out[k] = c["sets"][k]
        return out

    def judged(self, answers, text):
        """"oN SIDE": the ruleset's Nth offence judged inside a deal, by SIDE, into the deal's
        answers as the box's penalty list puts it (its side field, or offence and offender)."""
        words = text.replace(",", " ").split()
        judged = self.m.rules.deal_offences
        n = words[0][1:]
        side = words[1].upper() if len(words) > 1 else ""
        if not n.isdigit() or not 1 <= int(n) <= len(judged) or side not in SIDES[:self.m.rules.sides]:
            raise ValueError("an offence inside the deal: o1 to o%d and the offending side" % len(judged))
        o = judged[int(n) - 1]
        out = dict(answers)
        if len(o) > 3:
            out[o[3]] = side
        else:
            out["offence"] = o[0]
            out["offender"] = side
        return out

    def _tally(self, step, answers, offered, words):
        """A tally step (Schmier: each point is worth one) typed in one line, as the box's
        presses: a side ("A", or "A3" for three points), a choice's number ("1 A": its side
        takes one; "4": a choice without a side, e.g. the tied Game point, which gives the
        rest too), "rest": what is
        left of the count to the side named in the step's `rest` field (the bidder). The
        line must give the whole count; the counts go in the event as a list, one a side."""
        n = self.m.rules.sides
        got = [0] * n
        out = dict(answers)
        sets_taken = 0                # a choice that sets a field (a tied point) takes one off the count
        rest = False
        i = 0
        while i < len(words):
            w = words[i]
            i += 1
            if w == "rest" and step.get("rest"):
                rest = True
                continue
            side, k = w[:1].upper(), w[1:]
            if side in SIDES[:n] and (k == "" or k.isdigit()):
                got[SIDES.index(side)] += int(k) if k else 1
                continue
            if not w.isdigit() or not 1 <= int(w) <= len(offered):
                raise ValueError("a side (%s, or e.g. A2 for two points), a number 1 to %d, or rest"
                                 % (" ".join(SIDES[:n]), len(offered)))
            c = offered[int(w) - 1]
            if c.get("side") is not None:
                side = words[i].upper() if i < len(words) else None
                if side not in SIDES[:n]:
                    raise ValueError("%s needs a side: %s" % (c["label"][self.lang], " or ".join(SIDES[:n])))
                got[SIDES.index(side)] += c.get("adds", 1)     # "+3 punkti": three
                i += 1
            else:
                for key in c.get("sets") or {}:
                    if key not in out:
                        out[key] = c["sets"][key]
                        sets_taken += 1
                if c.get("rests"):
                    rest = True               # as on the box: "Mängupunkt viik" gives the rest too
        left = step["count"] - sets_taken - sum(got)
        if rest:
            who = out.get(step["rest"])
            if who is None:
                raise ValueError("no %s yet to give the rest to" % step["rest"])
            got[SIDES.index(who)] += max(left, 0)
            left = min(left, 0)
        if left != 0:
            raise ValueError("%d of %d given: give exactly %d (rest: what is left to the %s)"
                             % (step["count"] - left, step["count"], step["count"],
                                step.get("rest") or "side"))
        out[step["key"]] = got
        return out

    def deal(self, fields):
        return self._apply(dict(fields, type="deal"))

    def penalty(self, offence, by):
        return self._apply({"type": "penalty", "offence": offence, "by": by.upper()})

    def redeal(self, reason):
        return self._apply({"type": "redeal", "reason": reason})

    def adjust(self, side, points, reason):
        return self._apply({"type": "adjust", "side": side.upper(), "points": points, "reason": reason})

    def undo(self):
        if not self.m.in_force:
            raise EventError("target", "there is no entry to undo")
        return self._apply({"type": "cancel", "target": self.m.in_force[-1]})

    def forfeit(self, by, reason=None):
        ev = {"type": "forfeit", "by": by.upper()}
        if reason:
            ev["reason"] = reason
        return self._apply(ev)

    def close(self, reason):
        return self._apply({"type": "close", "reason": reason})

    def sign(self, confirmed):
        """Both (all) sides signed the sheet: confirm events; or disputed."""
        for i in range(self.m.rules.sides):
            self._apply({"type": "confirm" if confirmed else "dispute", "by": SIDES[i]})

    def raw(self):
        return b"\n".join(encode(e) for e in self.events)

    def score_text(self):
        s = self.m.summary()
        parts = ["%s %d" % (SIDES[i], s["final"][i] if s["over"] else s["score"][i]) for i in range(len(s["score"]))]
        return ", ".join(parts)


def next_step(sheet, answers, k=0):
    """The next step of the deal to ask, from step k on: (k, step, choices on offer), or None when the
    deal's answers are complete. A step with nothing on offer, or filled by an earlier answer, is passed."""
    fixed, steps = sheet.form()
    while k < len(steps):
        st = steps[k]
        offered = sheet.offered(st, answers, fixed)
        if offered and st["key"] not in answers:
            return k, st, offered
        k += 1
    return None


def give(sheet, k, answers, text):
    """Apply one typed answer to step k of the deal: returns (answers, the step to ask from next).
    `rest` (Schmier) fills the following steps of the same count for the bidder. ValueError in words."""
    fixed, steps = sheet.form()
    if sheet.m.rules.deal_offences and text.strip()[:1] == "o":
        # an offence judged inside the deal (a sohk, a Turniirisasku board's), as the box's penalty
        # list puts it into the deal: "o1 B", then the deal as it went
        return sheet.judged(answers, text), k
    st = steps[k]
    got = sheet.answer(st, answers, fixed, text)
    if "_rest" in got:
        who = got.pop("_rest")
        while k < len(steps) and steps[k].get("rest") == st["rest"]:
            first = sheet.offered(steps[k], got, fixed)[0]
            got[steps[k]["key"]] = first["value"]
            got[first["side"]] = who
            k += 1
        return got, k
    return got, k + 1


def deal_fields(sheet, answers):
    """The deal event's fields: the form's fixed fields and the answers."""
    out = dict(sheet.form()[0])
    out.update(answers)
    return out


def _deal_steps(sheet, ask, say):
    """Ask every step of one deal; returns the deal's fields (raises Quit)."""
    answers = {}
    k = 0
    while True:
        nxt = next_step(sheet, answers, k)
        if nxt is None:
            break
        k, st, offered = nxt
        menu = "  ".join("%d %s%s" % (i + 1, c["label"][sheet.lang],
                                       " [%s]" % c["side"] if c.get("side") else "") for i, c in enumerate(offered))
        hint = " (or rest: to the %s)" % st["rest"] if st.get("rest") else ""
        if "count" in st:                   # a tally: the whole count in one line
            hint = " (%d in all: a side for each, A2 for two; rest: what is left to the %s)" % (
                st["count"], st.get("rest") or "side")
        hint += " (u: drop this deal)"
        judged = sheet.m.rules.deal_offences
        if judged:                          # "o1 B": see give()
            hint += " (%s)" % "  ".join("o%d SIDE: %s" % (i + 1, o[1 + sheet.lang]) for i, o in enumerate(judged))
        text = ask("%s: %s%s > " % (st["label"][sheet.lang], menu, hint))
        if text.strip() == "q":
            raise Quit()
        if text.strip() == "u":
            return None                     # drop this deal's answers: back to the deal prompt
        try:
            answers, k = give(sheet, k, answers, text)
        except ValueError as e:
            say("  %s" % e)
    return deal_fields(sheet, answers)


def run_sheet(sheet, ask, say):
    """The interactive loop: commands and deals until the match is over (or closed). Raises Quit."""
    say(HELP)
    while not sheet.m.st.over:
        text = ask("[%s] deal %d > " % (sheet.score_text(), sheet.m.st.deals + 1)).strip()
        words = text.split()
        try:
            if not words:
                fields = _deal_steps(sheet, ask, say)
                if fields is None:
                    say("  deal dropped, nothing entered")
                    continue
                sheet.deal(fields)
            elif words[0] == "q":
                raise Quit()
            elif words[0] == "p" and len(words) == 3:
                sheet.penalty(words[1], words[2])
            elif words[0] == "r" and len(words) == 2:
                sheet.redeal(words[1])
            elif words[0] == "u" and len(words) == 1:
                sheet.undo()
            elif words[0] == "a" and len(words) >= 4:
                sheet.adjust(words[1], int(words[2]), " ".join(words[3:]))
            elif words[0] == "f" and len(words) >= 2:
                sheet.forfeit(words[1], " ".join(words[2:]) or None)
            elif words[0] == "c" and len(words) >= 2:
                sheet.close(" ".join(words[1:]))
            else:
                say("  not understood: %r. %s" % (text, HELP))
                continue
        except EventError as e:
            say("  refused (the rules): %s" % _err(e))
            continue
        except ValueError as e:
            say("  %s" % e)
            continue
        say("  %s" % sheet.score_text())
    s = sheet.m.summary()
    say("Over: %s%s" % (sheet.score_text(), ", winner %s" % s["winner"] if s["winner"] else ", no winner"))
    if s["ended"] not in ("closed", "forfeit"):
        while True:
            a = ask("Signed by every side? (y: confirmed, n: disputed, q: quit) > ").strip().lower()
            if a in ("y", "n"):
                sheet.sign(a == "y")
                break
            if a == "q":
                raise Quit()


def refuse_if_in(conn, t, round_no, table_no, room=0):
    """A table whose result is in is not typed in or closed again: the judge voids the wrong
    result first (nakk correct RESULT --void), so no result is replaced unseen."""
    from nakk_host import standings as S
    places, _ = S._placed_results(conn, t)
    have = [r["result_id"] for r in places.get((round_no, table_no, room), [])]
    if have:
        raise TournamentError("round %d table %d%s has a result already (%s): to replace it, void it first with "
                              "`nakk correct %s --void --why ...`" % (round_no, table_no,
                                                                     " room %d" % room if room else "",
                                                                     ", ".join(have), have[0]))


def sheet_for(conn, t, round_no, table_no, room=0):
    """A Sheet set up as the box would have been (the table's assignment, without a clock)."""
    refuse_if_in(conn, t, round_no, table_no, room)
    a = A.assignment(conn, t, round_no, table_no, room)
    a.pop("clock", None)
    return Sheet(a)


def store_sheet(conn, t, sheet, by, why, kind="enter"):
    """Store a typed-in or rescued match as a paper result, and the judge's record of it."""
    setup = sheet.events[0]
    rid = next_paper_id(conn)
    row, status, problems, _ = store_result(conn, rid, sheet.raw(), "paper")
    with conn:
        P.record(conn, t, kind, by, why, result_id=rid, round_no=setup.get("round"), table_no=setup.get("table"),
                 room=setup.get("room"))
    return rid, status, problems


class EventsError(TournamentError):
    """A line of a dead box's events that is not an event (said by line number)."""


def events_of(lines, source=""):
    """A dead box's events as its journal or a file holds them (bytes lines; blank ones skipped), read by
    the one reader of an events file (textfile.events: `nakk score` and `nakk close` say a bad line in
    the same words). EventsError names the line: "<source>line N: field: reason"."""
    from nakk_host import textfile
    try:
        return textfile.events(lines)
    except textfile.TextFileError as e:
        raise EventsError(source + str(e))


def close(conn, t, round_no, table_no, by, why, events=(), room=0, forfeit=None):
    """Close a match left unfinished on a dead box: its events so far (as the box holds them,
    parsed dicts; none if nothing could be read) are kept, then a forfeit by `forfeit` or the
    judge's close. Refuses events of another table. Returns (result id, status, problems)."""
    events = list(events)
    refuse_if_in(conn, t, round_no, table_no, room)
    if events:
        setup = dict(events[0])
        want = {"tournament": t["code"], "round": round_no, "table": table_no}
        for key, value in want.items():
            if setup.get(key) != value:
                raise TournamentError("these events are of %s %r, not %r: place them with `nakk correct --place`"
                                      % (key, setup.get(key), value))
        if room and setup.get("room") != room:
            raise TournamentError("these events are of room %r, not %d" % (setup.get("room"), room))
        try:
            sheet = Sheet.from_events(events)
        except EventError as e:
            raise TournamentError("the box's events do not fold: %s" % _err(e))
    else:
        sheet = sheet_for(conn, t, round_no, table_no, room)
    if sheet.m.st.over:
        raise TournamentError("this match is over already: sync or enter it, there is nothing to close")
    try:
        if forfeit:
            sheet.forfeit(forfeit, why)
        else:
            sheet.close(why)
    except EventError as e:
        raise TournamentError(_err(e))
    return store_sheet(conn, t, sheet, by, why, kind="close")
