"""Words and screens a player understands (issue 9, points 12-18): the UI's words on both interpreters.

Plain test functions: pytest collects them on CPython and tests/mpyrun.py runs
the same ones on the MicroPython unix port (tests/test_both_interpreters.py).
The pixels are tests/test_render.py's; the simulator's chords tests/test_sim.py's.
"""

from nakk.drivers import font
from nakk.ui import menus
from nakk import rules
from nakk.ui import flows as U
from nakk.ui import words as W
from nakk.table import Table
from test_ui import box, play, saved, started

_LIST_W = 120        # a list row's room on the 128 px screen (render: 4 px in, 4 px clear)
_LINE_W = 126        # a message's room (inverse line, 1 px each side)


def _header(ui):
    m = ui.table.match
    return "%s %d" % (m.rules.counter_word[ui.lang], m.rules.count(m.st))


# ---------------------------------------------------------------- 12: one number, the deal's

def test_the_undo_question_names_the_deal_by_the_headers_number():
    ui = started("saare-2020")
    assert _header(ui) == "Mäng 1"                   # the Saare texts: a deal is a "mäng"
    play(ui, "A LNEXT A LOK OK NEXT OK PREV A")      # deal 1, a penalty, a redeal, deal 2
    assert _header(ui) == "Mäng 3"
    play(ui, "LPREV")
    assert ui.detail == "Mäng 2: Ruutu, B tegi, A võitis jänniga", ui.detail   # not the event's number (#5)
    ui.lang = W.EN
    play(ui, "NEXT OK LPREV")
    assert ui.detail == "Deal 2: Ruutu, B made it, A won with jänn", ui.detail


def test_turniirisasku_counts_boards_and_names_them_so():
    ui = started("sasku")
    assert _header(ui) == "Jaotus 1"                 # "jaotused mängitakse mõlemas toas"
    play(ui, "A LOK OK B")                           # board 1, a redeal, board 2
    play(ui, "LPREV")
    # the undo names the board as the players say it (issue 14 point 3), by its number
    assert ui.detail == "Jaotus 2: Trump, B tegi, B võitis", ui.detail
    play(ui, "NEXT OK NEXT OK OK A LPREV")           # back; board 3: ruutu, a pokk, made by A
    assert ui.detail == "Jaotus 3: Ruutu, A tegi, pokk", ui.detail
    play(ui, "NEXT OK PREV OK B LPREV")              # board 4: all passed, B won
    assert ui.detail == "Jaotus 4: Üleküla, B võitis", ui.detail
    ui.lang = W.EN
    play(ui, "NEXT OK OK NEXT A LPREV")              # board 5: suit, "Jänn 91+" made and won by A
    assert ui.detail == "Board 5: Suit, A made it, A won with jänn", ui.detail


# ---------------------------------------------------------------- 13: the pokk replay in sight

def test_a_pokk_replay_is_shown_while_it_is_entered():
    ui = started("saare-2020")
    assert ui.banner is None
    play(ui, "NEXT OK OK B")                         # ruutu, its results, OK: pokk 60:60, made by B
    assert ui.mode == U.ENTRY and ui.banner == "Pokk: uuesti (Ruutu B)", ui.banner
    play(ui, "LOK PREV LPREV")                       # a look at the menu and back: still there
    assert ui.banner == "Pokk: uuesti (Ruutu B)"
    play(ui, "A")                                    # the replay: A beats it
    assert ui.banner is None and ui.table.match.st.chain == 0


def test_every_pokk_replay_line_fits_the_screen():
    m = rules.get("saare-2020")
    from nakk.rules.common import State
    st = State(2, 4, 0)
    for g in m.games:
        for maker in (0, 1):
            st.chain = 1
            st.pending = (maker, g)
            for lang in (W.ET, W.EN):
                line = m.banner(st, {}, lang)
                assert font.width(line) <= 128, line


# ---------------------------------------------------------------- 14: refusals in words that fit

def test_a_refusal_is_a_short_sentence_in_the_boxs_language():
    ui = started("saare-2020")                       # A1 shuffles: the dealer's pair is A
    play(ui, "LNEXT PREV PREV B")                    # "misdealt twice" by B
    assert ui.msg == ("See pool ei saa", "Not this side") and ui.msg2 == ""
    ui.lang = W.EN
    play(ui, "B")
    assert ui.word(ui.msg) == "Not this side"
    for w in list(W._REFUSALS.values()) + [W.REFUSED]:
        for lang in (W.ET, W.EN):
            assert font.width(w[lang]) <= _LINE_W, w[lang]
    # the judge's side keeps the rules' detailed English reason
    t = ui.table
    try:
        t.submit({"type": "penalty", "offence": "misdeal-twice", "by": "B"})
        raise AssertionError("accepted")
    except Exception as e:
        assert e.field == "by" and "dealer" in e.reason, e.reason


# ---------------------------------------------------------------- 15: what the rules accept, the box enters

def test_the_number_of_cards_shown_is_entered():
    ui = started("saare-classic")                    # classic: per card, 2 nakks each
    play(ui, "LNEXT NEXT NEXT NEXT")
    assert ui.word(ui.items[ui.cursor]) == "Mitu kaarti näidatud: 3"
    assert play(ui, "B") == 1
    ev = saved(ui)[-1]
    assert (ev["offence"], ev["cards"], ev["by"]) == ("cards-shown", 3, "B")
    assert ui.table.match.st.score == [6, 0]


def test_an_offence_judged_inside_a_turniirisasku_board_is_entered():
    ui = started("sasku")
    play(ui, "LNEXT")                                # the penalty list, before the board's entry
    names = [ui.word(i) for i in ui.items]
    assert "Kommentaarid" in names and "Mastisalgamine" in names
    while ui.word(ui.items[ui.cursor]) != "Kommentaarid":
        play(ui, "NEXT")
    play(ui, "B")                                    # B commented: back to the board's entry
    assert ui.mode == U.ENTRY and ui.word(ui.title) == "Mäng"
    assert ui.banner == "Rikkus B: Kommentaarid" and font.width(ui.banner) <= 128
    assert play(ui, "A") == 1                        # A made it and won (2 P): the judge's floor gives A 4 P (T-P1)
    ev = saved(ui)[-1]
    assert (ev["offence"], ev["offender"], ev["winner"]) == ("comment", "B", "A")
    assert ui.table.match.st.score == [4, 0] and ui.banner is None
    for o in ui.table.match.rules.deal_offences:    # every one of them fits the line over the scores
        for lang in (W.ET, W.EN):
            line = ui.table.match.rules.banner(None, {"offence": o[0], "offender": "B"}, lang)
            assert font.width(line) <= 128, line


def test_a_manual_turniirisasku_start_asks_the_number_of_boards():
    ui = box()
    play(ui, "NEXT NEXT OK OK OK OK")                # sasku, table 1, round 1, room 1
    assert ui.word(ui.title) == "Jaotusi" and ui.cursor == 7     # the ruleset's 8 first
    play(ui, "PREV PREV PREV PREV OK OK")            # 4 boards, A1 shuffles first
    assert ui.table.match.setup["boards"] == [1, 4]
    play(ui, "A B A B")
    assert ui.table.match.st.over and ui.mode == U.END


# ---------------------------------------------------------------- 16: Schmier

def test_schmier_says_what_ok_does_and_shows_the_bid():
    ui = started("schmier")
    play(ui, "NEXT B")                               # bid 4 by B
    assert ui.banner == "Pakkumine 4: B"             # (the names line shows the tally over it)
    assert ui.word(ui.title) == "Pakkus 4" and ui.choice_text() == "+1 punkt"
    assert ui.rest_left(1) == 6 and ui.rest_left(0) == -1     # "OK+6" under the bidder's team
    play(ui, "A")                                    # a point to A
    assert ui.tally(0) == 1 and ui.rest_left(1) == 5 and ui.word(ui.title) == "Pakkus 4"
    play(ui, "C LC")                                 # three to C: one tapped, two held
    assert [ui.tally(i) for i in range(3)] == [1, 0, 3]
    assert [ui.word(i) for i in ui.items] == ["+1 punkt", "Mängupunkt viik"]
    ui.lang = W.EN
    assert ui.word(ui.items[1]) == "Game point tied"


# ---------------------------------------------------------------- 17: the seed texts' words

def test_the_words_are_the_seed_texts():
    assert W.NOPEN[0] == "Selles mängus karistusi pole"      # "karistatakse", not "trahv"
    assert W.ROOM[0] == "Tuba"                                # "mõlemas toas"
    ui = started("saare-2020")
    play(ui, "LNEXT")
    assert ("Mitu kaarti näidatud: 2", "Cards shown: 2") in ui.items
    play(ui, "LPREV LOK")
    assert ui.word(ui.items[0]) == "Uus töö: Vale jagamine"   # "tuleb uus töö"
    ui = started("schmier")
    play(ui, "LNEXT")
    assert ui.msg == W.NOPEN


def test_the_karvane_mark_is_shown_as_the_bonus_it_brings():
    ui = started("saare-2020")
    play(ui, "NEXT OK PREV PREV A")                  # ruutu by B, karvane to A: a mark for A
    m = ui.table.match
    assert m.st.marks == [1, 0]
    assert [m.rules.mark_bonus(m.st, m.cfg, i) for i in (0, 1)] == [1, 0]
    play(ui, "OK NEXT NEXT A")                       # suit by A, karvane again to A: +2 at the end
    m = ui.table.match
    assert m.st.marks == [2, 0]
    assert [m.rules.mark_bonus(m.st, m.cfg, i) for i in (0, 1)] == [2, 0]


# ---------------------------------------------------------------- 18: small things

def test_every_menu_and_penalty_row_fits_its_line():
    for name in rules.NAMES:
        ui = started(name)
        m = ui.table.match
        for lang in (W.ET, W.EN):
            items, actions = [], []
            menus.menu(m, lang, True, items, actions)
            pen, ids = [], []
            menus.penalties(m, pen, ids)
            for row in items + pen:
                t = W.text(row, lang)
                assert font.width(t) <= _LIST_W, (name, t, font.width(t))


def test_what_each_press_does_fits_its_place_on_screen():
    # issue 14 point 3: the words are read before the press, so none may be cut short. A side's
    # words go under its name (the names line: "A: " then the words, in the side's column); what
    # OK does goes left of the answer ("OK:" then the words, up to x 62). The room here is the
    # column's without a karvane mark: with one, its "+1" takes 14 px of the marked side's room.
    from nakk.event import SIDES
    seen = 0
    for name in rules.NAMES:
        ui = started(name)
        forms = [ui.deal.steps]
        if name.startswith("saare"):
            play(ui, "OK OK A")                       # a pokk: the replay's form
            forms.append(ui.deal.steps)
        sides = ui.table.match.rules.sides
        col = 128 // sides
        for steps in forms:
            for stp in steps:
                for c in stp["choices"] + ([stp["ok"]] if stp.get("ok") else []):
                    for lang in (W.ET, W.EN):
                        if c.get("says"):
                            t = W.text(c["says"], lang)
                            for i in range(sides):
                                room = col - 8 - font.width(SIDES[i])
                                assert font.width(t) <= room, (name, t, font.width(t), room)
                            seen += 1
                        if c.get("ok_says"):
                            t = W.text(c["ok_says"], lang)
                            room = 62 - font.width("OK:") - 2
                            assert font.width(t) <= room, (name, t, font.width(t), room)
                            seen += 1
    assert seen >= 40, seen


def test_the_lists_hint_says_ok_or_a_side_button_for_the_row():
    ui = started("saare-2020")
    play(ui, "LOK")
    assert ui.mode == U.MENU and not ui.takes_side()          # a redeal: OK
    while ui.actions[ui.cursor][0] != menus.FORFEIT:
        play(ui, "NEXT")
    assert ui.takes_side()                                    # a forfeit: the side's button
    play(ui, "NEXT")
    assert not ui.takes_side()
    play(ui, "LPREV LNEXT")
    assert ui.mode == U.PENALTY and ui.takes_side()


def test_a_result_waits_for_the_judge_once_locked_and_an_abandoned_start_never(tmp_path=None):
    from nakk.journal import Journal
    # pytest's temporary folder; on MicroPython (no fixtures) one of its own
    root = str(tmp_path) + "/j" if tmp_path is not None else "/tmp/nakk-test-words-mpy"
    _rmtree(root)
    try:
        ui = box(table=Table(Journal(root)))
        play(ui, "OK OK OK OK")
        play(ui, "LOK PREV PREV PREV PREV OK")       # abandon: wrong start
        assert ui.mode == U.START
        assert ui.table.waiting() == 0               # nothing for the judge in a wrong start
        play(ui, "OK OK OK OK")
        for _ in range(4):
            play(ui, "NEXT NEXT NEXT A NEXT NEXT A") # pits by A, karvane: 6 + 2 per deal
        assert ui.table.match.st.over and ui.mode == U.END
        assert ui.table.waiting() == 0               # over, but nobody confirmed yet
        play(ui, "A")
        assert ui.table.waiting() == 0
        play(ui, "B")
        assert ui.table.match.locked() and ui.table.waiting() == 1
        # the next boot counts them from the journal's index: each match tagged as it finished
        j = Journal(root)
        assert Table(j).waiting() == 1 and (j.tag(1), j.tag(2)) == (1, 0)
        # a journal without one (written before there was an index) is read, counted the same,
        # and its tags kept for the boot after
        import os
        os.remove(root + "/index")
        j = Journal(root)
        assert (j.tag(1), j.tag(2)) == (None, None)
        t = Table(j)
        assert t.waiting() == 1
        t.save_index()
        j = Journal(root)
        assert (j.tag(1), j.tag(2)) == (1, 0) and Table(j).waiting() == 1
    finally:
        _rmtree(root)


def _rmtree(path):
    import os
    try:
        names = os.listdir(path)
    except OSError:
        return
    for n in names:
        p = path + "/" + n
        try:
            os.remove(p)
        except OSError:
            _rmtree(p)
    os.rmdir(path)


# ---------------------------------------------------------------- 15: everything the rules accept, by the buttons
