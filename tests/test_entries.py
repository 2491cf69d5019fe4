"""Every deal the rules allow, entered through the buttons (issue 26): every choice of every form of
every ruleset, every offence, the three sohk cases, a Turniirisasku board left out in a room.

Plain test functions: pytest collects them on CPython and tests/mpyrun.py runs the same ones on
the MicroPython unix port (tests/test_both_interpreters.py), in a process of their own (a fresh
heap: the walk starts many boxes).
"""

from nakk.drivers import font
from nakk.ui import menus
from nakk import rules
from nakk.ui import flows as U
from nakk.table import Table
from test_ui import box, play, saved, started


def _header(ui):
    m = ui.table.match
    return "%s %d" % (m.rules.counter_word[ui.lang], m.rules.count(m.st))


def _to(ui, label):
    """The cursor onto the answer of that (Estonian) label, the shorter way is not needed here."""
    for i in range(len(ui.items)):
        if ui.word(ui.items[ui.cursor]) == label:
            return
        play(ui, "NEXT")
    raise AssertionError((label, [ui.word(i) for i in ui.items]))


def _sohk(ui, side):
    """A sohk by side: long NEXT, the penalty list's "Sohk", the offender's button; back on the
    deal's entry, with the line that says what to enter now."""
    play(ui, "LNEXT")
    _to(ui, "Sohk")
    play(ui, side)
    assert ui.mode == U.ENTRY and ui.deal.answers["sohk"] == side
    other = "B" if side == "A" else "A"
    assert ui.banner == "Sohk %s; pooleli: %s võitis" % (side, other) and font.width(ui.banner) <= 128


def test_the_three_sohk_cases_are_entered_with_their_full_meaning():
    # 1. a sohk in a pokk replay: B's, while A's ruutu is replayed and not played out; A gets
    #    4 (the base win, A's plain win) and the replay's +2 (pokk_replay_bonus flat, SM-02)
    ui = started("saare-2020")
    play(ui, "NEXT OK OK A")                         # ruutu, its results, OK: a pokk, made by A
    assert ui.table.match.st.chain == 1 and ui.word(ui.title) == "Kordus"
    _sohk(ui, "B")
    assert ui.word(ui.title) == "Kordus"             # the replay's step, as it was
    _to(ui, "Võit")
    assert play(ui, "A") == 1                        # not played out: A's win
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["sohk"], ev["result"], ev["winner"]) == ("ruutu", "A", "B", "win", "A")
    st = ui.table.match.st
    assert st.score == [6, 0] and st.chain == 0 and ui.banner is None
    # the makers' own sohk in a replay: B gets the base 4 + 2 for beating it, and the +2
    ui = started("saare-2020")
    play(ui, "NEXT OK OK A")
    _sohk(ui, "A")
    _to(ui, "Võit")
    assert play(ui, "B") == 1
    assert ui.table.match.st.score == [0, 8]
    # 2. the defenders' sohk while the makers were winning with jänn: paid by the result, 2 + 2
    ui = started("saare-2020")
    _sohk(ui, "B")
    assert ui.choice_text() == "Trump · võit" and ui.word(ui.ok_says()) == "muu"
    play(ui, "OK")                                   # suit: the results the rules pay the innocent pair by,
    #                                                  each with the MAKER's button (the innocent pair won):
    #                                                  the one the game's button does not give first
    assert ui.word(ui.title) == "Trump" and ui.choice_text() == "Karvane"
    play(ui, "PREV")
    assert ui.choice_text() == "Jänn" and ui.word(ui.says()) == "tegi"
    assert play(ui, "A") == 1                        # A made it and won with jänn
    ev = saved(ui)[-1]
    assert (ev["sohk"], ev["maker"], ev["result"], ev["winner"]) == ("B", "A", "jann", "A")
    assert ui.table.match.st.score == [4, 0]         # not the base 2
    assert ui.undo_words() == "Mäng 1: Trump, A tegi, B tegi sohku, A võitis jänniga"
    # the same in two presses after the sohk's two: the offender's button held on the penalty
    # list's first row, the maker's held on the game
    ui = started("saare-2020")
    play(ui, "LNEXT")
    assert ui.word(ui.items[ui.cursor]) != "Sohk" and ui.word(ui.items[1]) == "Sohk"
    assert play(ui, "LB") == 0 and ui.deal.answers == {"sohk": "B"} and not saved(ui)[1:]
    assert play(ui, "LA") == 1
    ev = saved(ui)[-1]
    assert (ev["sohk"], ev["maker"], ev["result"], ev["winner"]) == ("B", "A", "jann", "A")
    assert ui.table.match.st.score == [4, 0]
    # 3. classic: the innocent makers' karvane during the other pair's sohk, at 12 : 2
    ui = started("saare-classic")
    play(ui, "A A A A A A")                          # six suits made and won by A: 12
    play(ui, "B")                                    # and one by B: 12 : 2
    assert ui.table.match.st.score == [12, 2]
    _sohk(ui, "B")
    play(ui, "OK")
    assert ui.choice_text() == "Karvane"
    assert play(ui, "A") == 1                        # A took every trick: 2 + 2 and a mark
    st = ui.table.match.st
    assert st.over and st.winner == 0 and st.marks == [1, 0] and st.final() == [17, 2], (st.score, st.final())
    assert ui.mode == U.END


def test_a_sohk_asks_the_maker_and_keeps_the_game_chosen():
    # not played out, the offenders made it: one press after the sohk (as the offenders' win,
    # which pays the same), base 2 + 2 to the innocent pair
    ui = started("saare-2020")
    _sohk(ui, "A")
    assert play(ui, "A") == 1
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["sohk"], ev["winner"]) == ("suit", "A", "A", "B")
    assert ui.table.match.st.score == [0, 4]
    # the offenders made it, the innocent pair won with jänn: the maker's button held
    ui = started("saare-2020")
    _sohk(ui, "A")
    assert play(ui, "LA") == 1
    ev = saved(ui)[-1]
    assert (ev["maker"], ev["sohk"], ev["result"], ev["winner"]) == ("A", "A", "jann", "B")
    # the cursor moved to a game first: the sohk keeps it there
    ui = started("saare-2020")
    play(ui, "NEXT NEXT")
    game = ui.choice_text()
    _sohk(ui, "B")
    assert ui.choice_text() == game and game.startswith("Valge pits")
    # a pits game: the ♦6's catch is one of the innocent pair's results, with the maker's button
    play(ui, "OK")
    assert [ui.word(w) for w in ui.items] == ["♦6 püüdis ♣K", "Karvane", "Pooleli / võit"]
    assert ui.word(ui.says()) == "tegi"
    _to(ui, "♦6 püüdis ♣K")
    assert play(ui, "B") == 1
    ev = saved(ui)[-1]
    assert (ev["maker"], ev["sohk"], ev["result"], ev["capture"]) == ("B", "B", "capture", "A")
    # a sohk entered on the results (the game chosen): the innocent pair's results of that game
    ui = started("saare-2020")
    play(ui, "NEXT OK")                              # ruutu, its other results
    _sohk(ui, "A")
    assert ui.word(ui.title) == "Ruutu" and ui.choice_text() == "Karvane"
    play(ui, "LPREV")                                # taken back: the game again, the sohk kept
    assert ui.deal.answers == {"sohk": "A"} and ui.choice_text() == "Ruutu · võit"
    play(ui, "OK")                                   # ruutu's: "Karvane" first
    assert ui.choice_text() == "Karvane" and play(ui, "B") == 1
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["sohk"], ev["result"], ev["winner"]) == ("ruutu", "B", "A", "karvane", "B")


def test_schmier_the_amount_under_the_cursor_stays_for_the_next_team_and_a_last_point_of_another_team_waits_for_ok():
    ui = started("schmier")
    play(ui, "A")                                    # bid 3 by A
    assert [ui.word(w) for w in ui.items] == ["+1 punkt", "+3 punkti", "Mängupunkt viik", "+5 punkti"]
    play(ui, "LB")                                   # held on "+1 punkt": two to B
    assert [ui.tally(i) for i in range(3)] == [0, 2, 0] and ui.rest_left(0) == 4
    assert ui.choice_text() == "+1 punkt" and ui.word(ui.says()) == "+1"   # the cursor stays on it
    play(ui, "LC")                                   # two for C too: one press
    assert [ui.tally(i) for i in range(3)] == [0, 2, 2] and ui.deal.left() == 2
    play(ui, "NEXT")                                 # "Mängupunkt viik" (two left: "+3", "+5" gone): OK gives
    assert ui.choice_text() == "Mängupunkt viik" and ui.word(ui.ok_says()) == "viik" and ui.rest_left(0) == 1
    assert ui.rest_left(1, False) == 1 and ui.rest_left(0, False) == -1   # the rest less the tied point, and
    #                                                  each other team's button the same to that team
    assert play(ui, "OK") == 1
    ev = saved(ui)[-1]
    assert ev["tally"] == [1, 2, 2] and ev["game"] is None
    # a team's button on "Mängupunkt viik": the rest less the tied point to that team, saved at once
    assert play(ui, "A B NEXT NEXT C") == 1
    ev = saved(ui)[-1]
    assert ev["tally"] == [0, 1, 4] and ev["game"] is None
    play(ui, "A NEXT B")                             # bid 3 by A, "+3 punkti" to B
    assert ui.choice_text() == "+3 punkti" and ui.deal.left() == 3
    play(ui, "C")                                    # three for C: none left, the last with C's button:
    n = len(saved(ui))
    assert ui.mode == U.ENTRY and len(saved(ui)) == n    # held, the tally in sight, until OK saves
    assert [ui.tally(i) for i in range(3)] == [0, 3, 3] and ui.rest_left(0) == -1
    assert ui.word(ui.items[0]) == "Salvesta" and len(ui.items) == 1 and ui.says() is None
    assert ui.word(ui.ok_says()) == "salvesta"
    play(ui, "LPREV")                                # taken back: the whole tally again
    assert ui.deal.step == 1 and "tally" not in ui.deal.answers and len(ui.items) == 4
    assert play(ui, "NEXT B C OK") == 1              # 3 and 3, held, saved with OK
    assert saved(ui)[-1]["tally"] == [0, 3, 3]
    play(ui, "A NEXT LB")                            # held on "+3 punkti": four to B; two left, "+3" gone,
    assert ui.choice_text() == "+1 punkt" and ui.deal.left() == 2    # the cursor back on the first
    play(ui, "LC")                                   # the last two held with C's button: held for OK too
    assert len(saved(ui)) == n + 1 and [ui.tally(i) for i in range(3)] == [0, 4, 2]
    assert play(ui, "OK") == 1 and saved(ui)[-1]["tally"] == [0, 4, 2]
    play(ui, "A B NEXT C")                           # a point to B, "+3 punkti" to C: two left, "+3" gone,
    assert ui.choice_text() == "+1 punkt"            # the cursor back on the first
    assert play(ui, "OK") == 1 and saved(ui)[-1]["tally"] == [2, 1, 3]
    play(ui, "A PREV B")                             # "+5 punkti" (one PREV) to B: one left, the cursor on "+1"
    assert ui.choice_text() == "+1 punkt" and ui.deal.left() == 1
    assert play(ui, "A") == 1                        # the bidder's own button on the last point saves at once
    assert saved(ui)[-1]["tally"] == [1, 5, 0]
    assert play(ui, "A B NEXT C LA") == 1            # the bidder's own last two, held: saved at once
    assert saved(ui)[-1]["tally"] == [2, 1, 3]
    play(ui, "A NEXT B")                             # "+3 punkti" to B: three left, "+5" gone, the cursor stays
    assert ui.choice_text() == "+3 punkti" and "+5 punkti" not in [ui.word(w) for w in ui.items]
    play(ui, "NEXT")                                 # "Mängupunkt viik" next to it
    assert ui.choice_text() == "Mängupunkt viik" and play(ui, "OK") == 1
    ev = saved(ui)[-1]
    assert ev["tally"] == [2, 3, 0] and ev["game"] is None


def test_schmier_a_bid_held_is_the_next_one_and_a_held_amount_one_more():
    from nakk.drivers import buttons as K
    ui = started("schmier")
    # every bid within two presses: 3 tapped, 4 held on it, 5 one PREV, 6 held there
    assert [ui.word(w) for w in ui.items] == ["3", "4", "6", "5"]
    for keys, bid in (("A", 3), ("LA", 4), ("PREV A", 5), ("PREV LA", 6), ("NEXT LA", 5)):
        play(ui, keys)
        assert ui.deal.answers["bid"] == bid and ui.deal.answers["bidder"] == "A", keys
        assert ui.banner == "Pakkumine %d: A" % bid and ui.title == ("Pakkus %d" % bid, "Bid %d" % bid)
        play(ui, "LPREV")                            # back to the bid: the cursor on the one taken back
        assert ui.deal.step == 0 and "bid" not in ui.deal.answers and ui.word(ui.items[ui.cursor]) == str(bid)
        while ui.cursor:
            play(ui, "PREV")
    # while the button is down: the tap's bid on screen, the header's words what holding gives
    t = ui.test_clock.ticks_ms() + 1000
    assert ui.handle(K.event(K.PRESS, K.B, t))[0] == U.MOVED
    assert ui.deal.answers["bid"] == 3 and ui.holding() == K.B and ui.word(ui.held_says()) == "4"
    assert ui.handle(K.event(K.LONG, K.B, t + 800))[0] == U.MOVED
    assert ui.deal.answers["bid"] == 4 and ui.deal.answers["bidder"] == "B" and ui.holding() == -1
    assert ui.deal.step == 1 and ui.cursor == 0
    # on the tally: "hoia: +2" on "+1", "+4" on "+3"; none where one more is not left
    t += 2000
    ui.handle(K.event(K.PRESS, K.A, t))
    assert ui.tally(0) == 1 and ui.holding() == K.A and ui.word(ui.held_says()) == "+2"
    assert ui.handle(K.event(K.LONG, K.A, t + 800))[0] == U.MOVED
    assert ui.tally(0) == 2 and ui.choice_text() == "+1 punkt"         # two, not three: the tap taken back
    play(ui, "NEXT")
    t = ui.test_clock.ticks_ms() + 1000
    ui.handle(K.event(K.PRESS, K.C, t))              # "+3" with four left: held would be "+4"
    assert ui.tally(2) == 3 and ui.word(ui.held_says()) == "+4"
    t += 2000                                        # let go: three stay
    ui.handle(K.event(K.PRESS, K.C, t))              # "+1" with one left: the tap fills it, no held answer
    assert ui.choice_text() == "Salvesta" or ui.tally(2) == 4
    assert ui.holding() == -1 and ui.handle(K.event(K.LONG, K.C, t + 800))[0] == U.NOTHING
    assert play(ui, "OK") == 1
    ev = saved(ui)[-1]
    assert (ev["bid"], ev["bidder"], ev["tally"]) == (4, "B", [2, 0, 4])


def test_a_turniirisasku_board_left_out_in_a_room_is_not_stored_under_its_number():
    ui = started("sasku")
    play(ui, "A")                                    # board 1
    assert _header(ui) == "Jaotus 2"
    _to(ui, "Muu jaotus")
    assert ui.word(ui.ok_says()) == "vali"
    play(ui, "OK")                                   # the boards it may be stored under
    assert ui.word(ui.title) == "Jaotus" and ui.word(ui.choice_text()) == "Jaotus 3"
    play(ui, "NEXT OK")                              # board 4: the screen says so till it is saved
    assert ui.banner == "Salvestub jaotus 4" and font.width(ui.banner) <= 128
    assert ui.word(ui.title) == "Mäng"
    assert play(ui, "B") == 1                        # suit made and won by B
    assert saved(ui)[-1]["board"] == 4 and ui.banner is None
    assert _header(ui) == "Jaotus 5"                 # on after the board stored, not back to 2
    play(ui, "A A A A")                              # boards 5 to 8
    assert _header(ui) == "Jaotus 2"                 # then the boards left out
    assert sorted(ui.table.match.st.boards) == [1, 4, 5, 6, 7, 8]


_EACH = [None]     # the walk's each(ui), called on every screen a commit is made on


def _commit(ui, c, ok=False):
    """Commit choice c of the step on screen: a side button (A) where it names a side, else OK
    (ok: OK where it takes c too, answering only its step: "Trump · võit" opens the results)."""
    i = 0
    while ui.deal.choices[ui.cursor] is not c:
        play(ui, "NEXT")
        i += 1
        assert i <= len(ui.items), "choice not offered"
    _says_what_the_next_press_does(ui)
    if _EACH[0] is not None:
        _EACH[0](ui)
    return play(ui, "A" if c.get("side") is not None and not (ok and c.get("ok")) else "OK")


def _says_what_the_next_press_does(ui):
    """Issue 14 point 3: on the answer under the cursor, the screen says in words what each press
    that enters something does (a side button under the names, OK left of the answer or in the
    header, a tally's OK as "OK+n" under the side it gives the rest to); some press does."""
    d = ui.deal
    c = d.choices[ui.cursor]
    where = (ui.table.match.rules.name, d.steps[d.step]["key"], c["label"][1])
    does = False
    if c.get("side") is not None:
        says = ui.says()
        assert says is not None and ui.word(says), where          # "A: tegi, võitis"
        does = True
    if d.ok_choice(c) is not None:
        ok = ui.ok_says()
        assert ok is not None and ui.word(ok), where              # "OK: muu", "OK:pokk"
        does = True
    elif d.rests():
        # the rest to a side already named: the count OK gives shows under that side
        assert [i for i in range(d.sides) if ui.rest_left(i) > 0], where
        does = True
    assert does, where


_OK = -1      # in a path: OK on a step's own OK answer (a pokk among results), not a choice


def _paths(ui, depth):
    """Every sequence of choice indexes (or _OK) for the steps before `depth` on a fresh deal
    (the form's conditions decide what is offered, so the paths are found by entering them)."""
    out = [[]]
    for d in range(depth):
        more = []
        for p in out:
            choices, ok = _offered_after(ui, p)
            more.extend(p + [i] for i in range(len(choices)))
            if ok:
                more.append(p + [_OK])
        out = more
    return out


def _offered_after(ui, path):
    """The choices offered after path, and whether the step has its own OK answer."""
    d = ui.deal
    pre = getattr(ui, "pre_answers", {})            # an offence given before the deal (a sohk)
    d.begin(ui.table.match)
    d.answers.update(pre)
    choices, ok = [], False
    for i in path:
        if not d.show():
            break                                     # the deal is complete before the path ends
        if i == _OK:
            d.answer(d.steps[d.step]["ok"], None)
            continue
        c = d.choices[i]
        d.answer(c, 0 if c.get("side") is not None and not c.get("ok") else None)
    else:
        if d.show():
            choices = list(d.choices)
            ok = d.steps[d.step].get("ok") is not None
    d.begin(ui.table.match)
    d.answers.update(pre)
    d.show()
    return choices, ok


def _step_ok(ui):
    """OK on the step's own OK answer: the cursor on a choice OK does not take itself."""
    while ui.deal.choices[ui.cursor].get("ok"):
        play(ui, "NEXT")
    _says_what_the_next_press_does(ui)
    if _EACH[0] is not None:
        _EACH[0](ui)
    return play(ui, "OK")


def _along(started_, path):
    """A fresh started_() box, the path's answers entered through the buttons."""
    ui = started_()
    for i in path:
        ui.deal.show()
        if i == _OK:
            _step_ok(ui)
        else:
            _commit(ui, ui.deal.choices[i], ok=True)
    return ui


def _walk_held(ui, c, held, tag, offered, entered):
    """Choice c on screen with A's button held (its held meaning, where it has one here), the
    deal finished with the first answers, and the saved deal checked: the held sets in it (a
    tally: A's count at least the held amount)."""
    stp = ui.deal.steps[ui.deal.step]
    if "count" in stp and held[0] > ui.deal.left():
        return                                    # not this much left: no held meaning here
    tag = tag + ("held",)
    if tag not in offered:
        offered.append(tag)
    while ui.deal.choices[ui.cursor] is not c:
        play(ui, "NEXT")
    n = play(ui, "LA")
    while n == 0 and ui.mode == U.ENTRY:
        n = _commit(ui, ui.deal.choices[0])
    assert n == 1, tag
    ev = saved(ui)[-1]
    if "count" in stp:
        assert ev[stp["key"]][0] >= held[0], (tag, ev)
    else:
        assert all(ev.get(f) == held[0][f] for f in held[0]) and ev[c["side"]] == "A", (tag, ev)
    if tag not in entered:
        entered.append(tag)


def _walk(name, started_, offered, entered, each=None):
    """Every choice on every path of the form a fresh started_() box shows, entered through
    the buttons (a side button, A, where it names a side; else OK), and the saved deal checked.
    each(ui): called on every screen of the entry before a press commits on it."""
    _EACH[0] = each
    base = started_()
    steps = base.deal.steps
    for k in range(len(steps)):
        for path in _paths(base, k):
            for ci in range(len(_offered_after(base, path)[0])):
                ui = _along(started_, path)
                if ui.deal.steps[ui.deal.step]["key"] != steps[k]["key"]:
                    continue                      # the form skipped the step on this path
                c = ui.deal.choices[ci]
                tag = (name, steps[k]["key"], c["label"][1])
                if tag not in offered:
                    offered.append(tag)
                h = steps[k].get("held")
                if h is not None and c.get("side") is not None and c["value"] in h:
                    _walk_held(_along(started_, path), c, h[c["value"]], tag, offered, entered)
                n = _commit(ui, c)
                while n == 0 and ui.mode == U.ENTRY and ui.deal.step > 0:
                    n = _commit(ui, ui.deal.choices[0])     # the rest: the first answers
                key = steps[k]["key"]
                if n == 0:
                    # refused by the rules (say, a result the eyes contradict): said in words
                    assert ui.msg is not None, (name, key, c["value"])
                    continue
                ev = saved(ui)[-1]
                if "count" in steps[k]:
                    # a tally: the count given (a button adds one; "one for nobody" sets its field)
                    got = sum(ev[key]) + (1 if c.get("sets") else 0)
                    assert got == steps[k]["count"], (name, key, c, ev)
                    for f in c.get("sets", {}):
                        assert ev[f] == c["sets"][f], (name, key, c, ev)
                elif c.get("omit"):
                    # a sohk names its offender and no result; "Pooleli" leaves the result out;
                    # "Muu jaotus" leaves the game to the step that asks it again
                    again = [s for s in steps[k + 1:] if s["key"] == key]
                    assert (c.get("side") is None or ev[c["side"]] == "A") and (key not in ev or again), \
                        (name, key, ev)
                elif c.get("side") is not None:
                    # the side field is the step's own (a Schmier point: the team that took it)
                    assert ev[c["side"]] == "A" and (c["side"] == key or ev.get(key) == c["value"]), \
                        (name, key, c, ev)
                else:
                    assert ev.get(key, None) == c["value"], (name, key, c, ev)
                if tag not in entered:
                    entered.append(tag)


def _assigned(name, settings=None, boards=None, then=""):
    """A box with a match of ruleset name started as the judge's assignment starts it (with
    settings, boards), then the presses of `then` (a pokk to replay, a board played)."""
    def start():
        a = {"ruleset": name, "table": 1, "round": 1, "first_shuffler": 0,
             "sides": [{"id": s, "name": s} for s in ("A", "B", "C")[:rules.get(name).sides]]}
        if settings:
            a["settings"] = settings
        if boards:
            a["boards"] = boards
        t = Table()
        assert t.start(a)                             # as OK on the assignment starts it
        t.flush()
        ui = box(table=t)
        assert ui.mode == U.ENTRY
        play(ui, then)
        ui.pre_answers = dict(ui.deal.answers)        # a sohk given by `then`, before the deal
        return ui
    return start


# every form of every ruleset: each game's own, a pokk replay (keeping its maker or not), the
# settings that change what a form offers, Turniirisasku's last board (no other to choose)
FORMS = [(n, _assigned(n)) for n in ("saare-2020", "saare-classic", "sasku", "schmier")] + [
    ("saare-2020", _assigned("saare-2020", then="OK OK A")),
    ("saare-classic", _assigned("saare-classic", then="OK OK A")),
    ("saare-2020", _assigned("saare-2020", {"pokk_replay_keeps_maker": False}, then="NEXT NEXT OK OK B")),
    ("saare-2020", _assigned("saare-2020", {"all_pass_policy": "ulekula-ruutu", "pits_jann_bonus": True})),
    ("saare-2020", _assigned("saare-2020", {"pits_capture_is_karvane_win": False})),
    # a sohk given first: its own steps (the buttons name the maker), in a deal and a replay
    ("saare-2020", _assigned("saare-2020", then="LNEXT NEXT B")),
    ("saare-classic", _assigned("saare-classic", then="LNEXT NEXT A")),
    ("saare-2020", _assigned("saare-2020", {"pokk_replay_keeps_maker": False}, then="NEXT NEXT OK OK B LNEXT NEXT A")),
    ("sasku", _assigned("sasku", boards=[3, 3])),
    ("sasku", _assigned("sasku", boards=[1, 4], then="NEXT NEXT OK OK A")),   # board 1 left out: 2 played
]


def _offences_in(name, start):
    """Every offence judged inside a deal (a sohk, a Turniirisasku board's), entered in this form:
    the penalty list's row with A's button, then the first answers till the deal is saved."""
    ui = start()
    pen, ids = [], []
    menus.penalties(ui.table.match, pen, ids)
    for i in range(len(ids)):
        offence, field, value = ids[i]
        if field != menus.DEAL:
            continue
        ui = start()
        steps = ui.deal.steps
        play(ui, "LNEXT")
        while ui.cursor != i:
            play(ui, "NEXT")
        play(ui, "A")
        assert ui.mode == U.ENTRY and ui.deal.steps is steps and ui.banner, (name, offence)
        n = 0
        while n == 0 and ui.mode == U.ENTRY:
            n = _commit(ui, ui.deal.choices[0])
        ev = saved(ui)[-1]
        assert ev[value] == "A" if value is not None else (ev["offence"], ev["offender"]) == (offence, "A"), ev


def test_every_choice_of_every_form_is_entered_with_the_buttons():
    offered = []     # (ruleset, step, choice label) of every choice on some path
    entered = []     # those saved in a deal through the buttons
    for name, start in FORMS:
        seen, mine = [], []
        _walk(name, start, seen, mine)
        assert len(mine) >= 3, (name, mine)         # each form is walked, not only the first
        _offences_in(name, start)
        offered.extend(t for t in seen if t not in offered)
        entered.extend(t for t in mine if t not in entered)
    missing = [t for t in offered if t not in entered]
    assert not missing, missing
    assert len(offered) >= 30, offered
    # a pokk replay's results say what their presses do too
    for name in ("saare-2020", "saare-classic"):
        ui = started(name)
        play(ui, "OK OK A")                           # suit, its results, OK: a pokk, made by A
        assert ui.table.match.st.chain
        for i in range(len(ui.items)):
            _says_what_the_next_press_does(ui)
            play(ui, "NEXT")
    # the paths go through OK on a game to its results, and through a tally to its end
    for tag in (("saare-2020", "game", "Suit · won"), ("saare-2020", "result", "Lost"),
                ("saare-2020", "result", "♦6 caught (lost)"), ("saare-2020", "maker", "Pokk 60:60"),
                ("schmier", "tally", "+1 point"), ("schmier", "tally", "Game point tied"),
                ("schmier", "tally", "+3 points"), ("schmier", "tally", "+5 points"),
                # held: the jänn, the next bid, one more point
                ("saare-2020", "game", "Suit · won", "held"), ("sasku", "contract", "Suit · won", "held"),
                ("schmier", "bid", "3", "held"), ("schmier", "bid", "5", "held"),
                ("schmier", "tally", "+1 point", "held"), ("schmier", "tally", "+3 points", "held"),
                ("schmier", "tally", "+5 points", "held")):
        assert tag in entered, (tag, entered)


def test_every_offence_and_every_setup_field_is_entered_with_the_buttons():
    for name in rules.NAMES:
        ui = started(name)
        pen, ids = [], []
        menus.penalties(ui.table.match, pen, ids)
        for i in range(len(ids)):
            ui = started(name)
            if name == "sasku" and ids[i][1] == menus.DEAL:
                play(ui, "A")                         # an offence judged inside a board: a board first
            play(ui, "LNEXT")
            while ui.cursor != i:
                play(ui, "NEXT")
            before = len(saved(ui))
            play(ui, "A")
            if len(saved(ui)) == before and ui.mode == U.PENALTY:
                play(ui, "B")                         # misdealt twice: only the dealer's pair
            offence, field, value = ids[i]
            if field == menus.DEAL:
                play(ui, "A")                         # the deal (a board), with the offence in it
            ev = saved(ui)[-1]
            if field == menus.DEAL and value is not None:
                assert ev[value] == "A", (name, ids[i], ev)     # a sohk: its offender
                continue
            assert ev["offence"] == offence, (name, ids[i], ev)
            if field is not None and field != menus.DEAL:
                assert ev[field] == value
    # the start wizard: a value other than the first for every step reaches the setup
    for g in range(len(rules.NAMES)):
        ui = box()
        play(ui, "NEXT " * g + "OK")
        fields = []
        while ui.mode == U.START:
            title = ui.word(ui.title)
            fields.append(title)
            play(ui, "NEXT OK")
        s = ui.table.match.setup
        assert s["ruleset"] == rules.NAMES[g]
        want = {"Laud": ("table", 2), "Voor": ("round", 2), "Tuba": ("room", 2), "Esimene segaja": ("first_shuffler", 1)}
        for t in fields:
            if t == "Jaotusi":
                assert s["boards"] == [1, 9]          # the ruleset's 8, and NEXT
            else:
                key, v = want[t]
                assert s[key] == v, (t, s)


def test_a_side_button_held_enters_its_held_answer_once():
    from nakk.drivers import buttons as K
    ui = started("saare-2020")
    # tapped: that pair's win; held (its PRESS, then its LONG): the jänn, one entry
    assert play(ui, "A") == 1 and saved(ui)[-1]["result"] == "win"
    assert play(ui, "LA") == 1
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["winner"], ev["result"]) == ("suit", "A", "A", "jann")
    assert len(saved(ui)) == 3                       # the setup and two deals: the tap's win taken back
    # a pits game has no jänn (2020): held, karvane
    play(ui, "NEXT NEXT")
    assert ui.choice_text().startswith("Valge pits")
    assert play(ui, "LB") == 1
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["winner"], ev["result"]) == ("valge-pits", "B", "B", "karvane")
    # while the button is down (the entry not on flash): which button, and the header's words
    t = ui.test_clock.ticks_ms() + 1000
    assert ui.handle(K.event(K.PRESS, K.A, t))[0] == U.SUBMITTED
    assert ui.holding() == K.A and ui.word(ui.held_says()) == "jänn"
    assert ui.handle(K.event(K.LONG, K.B, t + 800))[0] == U.NOTHING      # another button's LONG
    ui.table.flush()                                 # released: saved as the win
    assert ui.holding() == -1 and ui.held_says() is None
    assert ui.handle(K.event(K.LONG, K.A, t + 800))[0] == U.NOTHING      # too late: nothing changes
    assert saved(ui)[-1]["result"] == "win" and len(saved(ui)) == 5
    # both side buttons (a chord): nothing, and the first one's LONG then enters nothing either
    t += 2000
    ui.handle(K.event(K.PRESS, K.A, t))
    assert ui.handle(K.event(K.PRESS, K.B, t + 5))[0] == U.REFUSED
    assert ui.holding() == -1 and ui.handle(K.event(K.LONG, K.A, t + 800))[0] == U.NOTHING
    ui.table.flush()
    assert len(saved(ui)) == 5
    # the penalty list's first row: tapped, its offence; held, the sohk by that pair
    play(ui, "LNEXT")
    assert play(ui, "B") == 1 and saved(ui)[-1]["type"] == "penalty"
    # Turniirisasku: held, the makers' jänn
    ui = started("sasku")
    assert play(ui, "LB") == 1
    ev = saved(ui)[-1]
    assert (ev["contract"], ev["maker"], ev["winner"], ev["result"]) == ("suit", "B", "B", "jann")


def test_a_take_back_leaves_the_match_as_folding_it_again_would():
    # a held button's LONG and a chord take back the entry not yet on flash from the state copied
    # before it (Match.take_back); the match is then what its saved events fold to
    from test_ui import folded
    for name, script in (("saare-2020", "A LA NEXT LB OK B A+B LNEXT LB LA NEXT NEXT LA A LA"),
                         ("saare-classic", "LA LB B+A A LA"), ("sasku", "LA B LB A+B LA")):
        ui = started(name)
        for token in script.split():
            play(ui, token)
            m, f = ui.table.match, folded(ui)
            assert (m.seq, m.in_force, m.summary()) == (f.seq, f.in_force, f.summary()), (name, token)
        assert len(saved(ui)) > 4
