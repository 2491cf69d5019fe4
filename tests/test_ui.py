"""The UI's flows (nakk.ui.flows.Ui on nakk.table.Table), driven by button events as the buttons driver emits them.

Plain test functions on both interpreters: pytest collects them on CPython
and tests/mpyrun.py runs the same ones on the MicroPython unix port
(tests/test_both_interpreters.py). The resume on a LittleFS image is
tests/mpy/ui_resume.py; the scripted matches against `nakk score` are in
tests/test_cli.py.

A script is space-separated button events:
  A B C                side button pressed (PRESS)
  PREV OK NEXT         short press of a cluster button
  LPREV LOK LNEXT      long press
  A+B  A+B+C ...       two or three side buttons within the same ms (a chord)
  PREV+NEXT            PREV and NEXT held together (their long presses 200 ms apart)
"""

from nakk.drivers import buttons as K
from nakk.ui import flows as U
from nakk.ui import words as W
from nakk.event import parse
from nakk.match import Match
from nakk.table import Table
from mpy.stillclock import Clock   # the test moves it by hand

_NAMES = K.NAMES


def events(token, t=0):
    """The button events of one script token, at time t (a chord: its side presses, all at t)."""
    if token == "PREV+NEXT":
        return [K.event(K.LONG, K.PREV, t), K.event(K.LONG, K.NEXT, t + 200)]
    if "+" in token:
        return [K.event(K.PRESS, _NAMES.index(part), t) for part in token.split("+")]
    if token[0] == "L" and len(token) > 1:
        b = _NAMES.index(token[1:])
        if b < K.NSIDE:          # a side button held: its PRESS at once, its LONG 0.8 s later
            return [K.event(K.PRESS, b, t), K.event(K.LONG, b, t + 800)]
        return [K.event(K.LONG, b, t)]
    b = _NAMES.index(token)
    return [K.event(K.PRESS if b < K.NSIDE else K.SHORT, b, t)]


def event(token):
    return events(token)[0]


def play(ui, script, outcomes=None):
    """Press the buttons of the script a second apart, flushing after each token as the app
    does once the chord window is past; returns the number of entries submitted.
    outcomes: a list that gets what each event did (Ui.handle's (what, reason))."""
    clock = getattr(ui, "test_clock", None)
    n = 0
    for token in script.split():
        if clock is not None:
            clock.advance(1000)
        did = None
        for ev in events(token, clock.ticks_ms() if clock is not None else 0):
            r = ui.handle(ev)
            if outcomes is not None:
                outcomes.append(r)
            if r[0] != U.NOTHING or did is None:
                did = r              # a held side button's LONG that changes nothing: its PRESS's
        if did[0] == U.SUBMITTED:
            n += 1
        ui.table.flush()
    return n


def box(on_lang=None, table=None):
    t = table if table is not None else Table()
    clock = Clock()
    ui = U.Ui(t, clock=clock, on_lang=on_lang, chord_ms=U.CHORD_MS)
    ui.test_clock = clock
    return ui


START = {"saare-2020": "OK OK OK OK",          # the game, table 1, round 1, A1 shuffles first
         "saare-classic": "NEXT OK OK OK OK",
         "sasku": "NEXT NEXT OK OK OK OK OK OK",  # ... room 1 and 8 boards as well
         "schmier": "PREV OK OK OK OK"}        # the list wraps: PREV from the first is the last


def started(ruleset):
    ui = box()
    play(ui, START[ruleset])
    assert ui.mode == U.ENTRY, ui.mode
    assert ui.table.match.rules.name == ruleset
    return ui


def saved(ui):
    return [parse(b) for b in ui.table.saved]


def folded(ui):
    m = Match()
    for ev in saved(ui):
        m.apply(ev)
    return m


def nothing_saved(ui, before, mode=None):
    """Nothing new was journaled and the score is as it was."""
    assert ui.table.pending is None
    assert len(ui.table.saved) == before[0], (len(ui.table.saved), before[0])
    assert ui.table.match.st.score == before[1]
    if mode is not None:
        assert ui.mode == mode, (ui.mode, mode)


def state(ui):
    return (len(ui.table.saved), list(ui.table.match.st.score))


# ---------------------------------------------------------------- whole matches

# Each script plays a whole match of its ruleset through the buttons, with
# what happens at a table: penalties, redeals, an undo, a pokk and its replay.
MATCHES = {
    "saare-2020": (
        "A "                 # "Trump · võit" with A's button: suit made and won by A: 2
        "NEXT OK PREV A "    # ruutu, OK: its results; "Jänn (kaotas)" (the list wraps) with A's button:
        #                      B made it, A won with jänn: 4 + 2 beaten + 2 jänn = 8
        "OK OK A "           # suit, OK: its results; OK: a pokk; A made it
        "B "                 # the replay (same game and maker): B wins, 2 + 2 beaten + 2 replay
        "LNEXT B "           # penalty: a card shown by B, 2 to A
        "LOK OK "            # redeal: misdeal
        "A LPREV OK "        # a deal, undone
        "NEXT NEXT OK PREV A "  # white pits, "♦6 püüdis (kaotas)": A's ♦6 caught B's ♣K: 6 + 2, a mark -> A 20
        "A B",               # each pair confirms the result
        {"score": [20, 6], "final": [21, 6], "winner": "A"}),
    "saare-classic": (
        "NEXT A "            # ruutu made and won by A: 4
        "OK PREV B "         # suit, "Jänn (kaotas)" with B's button: A made it, B won with jänn: 2 + 2 + 2
        "LNEXT PREV PREV B " # penalty: shuffling by B, 2 to A (the list wraps: second from its end)
        "NEXT OK NEXT NEXT B "  # ruutu, "Karvane" (the maker's) with B's button: 4 + 2, a mark
        "NEXT A NEXT A A "
        "A B",
        {"score": [16, 12], "final": [16, 13], "winner": "A"}),
    "sasku": (
        "A "                 # board 1: suit by A (NS), won: 2 (one press, as Saare mäng's)
        "NEXT OK PREV A "    # board 2: ruutu, its other results, "Jänn (kaotas)" to A: 4 + 2 + 2
        "PREV OK B "         # board 3: all passed (üleküla), B had more: 2
        "OK OK A "           # board 4: suit, its results, OK: pokk, made by A: 2 to B
        "OK PREV PREV A "    # board 5: suit, "Karvane (kaotas)" to A: 12
        "OK PREV PREV PREV B "  # board 6: suit, "Seajänn (kaotas)" to B: 2 + 2 + 1
        "LOK OK "            # a redeal: no board
        "A "                 # board 7
        "B LPREV OK B "      # board 8, entered, undone, entered again
        "A B",
        {"score": [24, 11], "final": [24, 11], "winner": None}),
    "schmier": (
        "A OK "              # bid 3 by A; OK: every point to the bidder's team: +6
        "NEXT B A C OK "     # bid 4 by B; a point to A, one to C, OK: the rest to B: A 1, B 4, C 1
        "LOK OK "            # all passed: a redeal
        "PREV C A PREV PREV OK "  # bid 5 by C (the bids wrap: 3 4 6 5); a point to A; "Mängupunkt
        #                         viik" (two PREVs): the Game point tied, the rest (4) to C: C set, -5
        "NEXT NEXT A OK "    # bid 6 by A, every point: +6
        "A OK "              # +6 -> A 20
        "B A OK "            # bid 3 by B, a point to A -> A 21: A wins
        "A B C",
        {"score": [21, 9, -4], "final": [21, 9, -4], "winner": "A"}),
}


def _whole_match(ruleset):
    script, want = MATCHES[ruleset]
    ui = box()
    play(ui, START[ruleset] + " " + script)
    m = ui.table.match
    s = m.summary()
    assert ui.mode == U.DONE, ui.mode
    assert s["over"] and s["locked"]
    for key in want:
        assert s[key] == want[key], (ruleset, key, s[key], want[key])
    assert folded(ui).summary() == s
    return ui


def test_whole_match_saare_2020():
    ui = _whole_match("saare-2020")
    types = [ev["type"] for ev in saved(ui)]
    assert types.count("penalty") == 1 and types.count("redeal") == 1 and types.count("cancel") == 1
    assert ui.table.match.st.marks == [1, 0]


def test_whole_match_saare_classic():
    _whole_match("saare-classic")


def test_whole_match_sasku():
    ui = _whole_match("sasku")
    assert len(ui.table.match.st.boards) == 8


def test_whole_match_schmier():
    ui = _whole_match("schmier")
    deals = [ev for ev in saved(ui) if ev["type"] == "deal"]
    assert deals[2]["game"] is None and deals[2]["bidder"] == "C" and deals[2]["tally"] == [1, 0, 4]
    assert ui.table.saved and saved(ui)[0]["v"] == 2      # the tally is event format 2


# ---------------------------------------------------------------- slips the screen shows

def _commit_screen(script):
    """Play a Saare mäng 2020 deal: what the screen says just before its last press (the step,
    the answer under the cursor, what a side button does there), and the event saved."""
    ui = started("saare-2020")
    tokens = script.split()
    play(ui, " ".join(tokens[:-1]))
    shown = (ui.word(ui.title), ui.choice_text(), ui.word(ui.says()))
    assert play(ui, tokens[-1]) == 1
    ev = saved(ui)[-1]
    return shown, (ev["game"], ev["maker"], ev["result"], ev["winner"])


def test_the_maker_is_on_screen_before_the_deal_is_saved():
    # Two deals the same pair wins with the same result, made by different pairs: with the
    # maker's button first, the winner's press showed the same screen for both and only the
    # beaten bonus differed (a wrong maker was saved unseen). Now what is on screen before
    # the saving press differs, in the players' words.
    pairs = (
        ("A", "OK A", ("suit", "A", "win", "A"), ("suit", "B", "win", "A")),
        ("OK NEXT A", "OK PREV A", ("suit", "A", "jann", "A"), ("suit", "B", "jann", "A")),
        ("OK NEXT NEXT A", "OK PREV PREV A", ("suit", "A", "karvane", "A"), ("suit", "B", "karvane", "A")),
        ("NEXT B", "NEXT OK B", ("ruutu", "B", "win", "B"), ("ruutu", "A", "win", "B")),
    )
    for made, lost, want_made, want_lost in pairs:
        shown_made, ev_made = _commit_screen(made)
        shown_lost, ev_lost = _commit_screen(lost)
        assert ev_made == want_made and ev_lost == want_lost
        assert shown_made[1] != shown_lost[1], (shown_made, shown_lost)     # the answer under the cursor
        assert shown_made[2] != shown_lost[2]                               # what the button says
        assert shown_made[2] == "tegi, võitis" and shown_lost[2] == "võitis"
    # and a wrong side button on the one-press answer changes who scores, which everyone sees
    ui = started("saare-2020")
    play(ui, "B")
    assert ui.table.match.st.score == [0, 2]


# ---------------------------------------------------------------- undo

def test_undo_needs_long_prev_and_ok():
    ui = started("saare-2020")
    assert play(ui, "A") == 1                        # "Trump · võit": A made it and won
    before = state(ui)
    play(ui, "OK OK OK")                             # other results, a pokk, and OK: the maker's side is asked
    nothing_saved(ui, before, U.ENTRY)
    assert ui.msg == W.SIDE and ui.deal.step == 2
    play(ui, "LPREV LPREV")                          # both steps taken back, nothing saved
    nothing_saved(ui, before, U.ENTRY)
    assert ui.deal.step == 0 and ui.deal.answers == {}
    play(ui, "LPREV")                                # long PREV alone asks, saves nothing
    nothing_saved(ui, before, U.UNDO)
    assert ui.items == (W.CONFIRM, W.BACK) and ui.cursor == 0
    assert ui.detail == "Mäng 1: Trump, A tegi ja võitis"   # the entry in the players' words, by the header's number
    play(ui, "LPREV")                                # any long press backs out
    nothing_saved(ui, before, U.ENTRY)
    for backout in ("NEXT OK", "PREV OK", "LPREV", "LOK", "LNEXT"):
        play(ui, "LPREV " + backout)                 # off "Confirm", or any long press: back, nothing saved
        nothing_saved(ui, before, U.ENTRY)
    play(ui, "LPREV A B C A+B")                      # side buttons do not confirm an undo
    nothing_saved(ui, before, U.UNDO)
    assert play(ui, "OK") == 1                       # long PREV then OK: the cancel
    ev = saved(ui)[-1]
    assert ev["type"] == "cancel" and ev["target"] == 2
    assert ui.table.match.st.score == [0, 0] and ui.mode == U.ENTRY and ui.msg == W.UNDONE
    play(ui, "LPREV")                                # nothing left to undo
    assert ui.mode == U.ENTRY and ui.msg == W.NOTHING


def test_long_prev_mid_entry_takes_back_the_last_step_only():
    ui = started("saare-2020")
    play(ui, "NEXT OK")                              # ruutu: its other results are asked
    assert ui.deal.step == 1 and ui.deal.answers == {"game": "ruutu"}
    assert ui.word(ui.title) == "Ruutu"              # the results say which game they are for
    play(ui, "LPREV")
    assert ui.mode == U.ENTRY and ui.deal.step == 0 and ui.deal.answers == {}
    assert ui.cursor == 1                            # back on the answer taken back
    assert ui.table.saved[-1:] and len(saved(ui)) == 1   # only the setup
    play(ui, "OK PREV A")                            # "Jänn (kaotas)" with A's button: B made it, A won
    assert ui.deal.step == 2 or len(saved(ui)) == 2
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["result"], ev["winner"]) == ("ruutu", "B", "jann", "A")
    play(ui, "OK NEXT")                              # suit, its results, "Jänn" (the maker's) under the cursor
    play(ui, "OK LPREV")                             # OK: a pokk, the maker asked; taken back: the results again
    assert ui.deal.step == 1 and ui.deal.answers == {"game": "suit"} and ui.word(ui.title) == "Trump"
    assert play(ui, "NEXT B") == 1                   # "Jänn": B made it and won it
    ev = saved(ui)[-1]
    assert (ev["game"], ev["maker"], ev["result"], ev["winner"]) == ("suit", "B", "jann", "B")

    ui = started("schmier")
    play(ui, "NEXT B A C")                           # bid 4 by B; a point to A, one to C
    assert ui.deal.step == 1 and ui.deal.fields()["tally"] == [1, 0, 1]
    assert [ui.tally(i) for i in range(3)] == [1, 0, 1] and ui.rest_left(1) == 4
    play(ui, "LPREV")                                # the tally taken back; the bid stays
    assert ui.deal.step == 1 and "tally" not in ui.deal.answers and ui.deal.answers["bidder"] == "B"
    assert play(ui, "C OK") == 1                     # a point to C, the rest to the bidder
    ev = saved(ui)[-1]
    assert (ev["bid"], ev["bidder"], ev["tally"]) == (4, "B", [0, 5, 1]) and "game" not in ev


def test_undo_at_the_end_of_a_match_reopens_it():
    ui = started("saare-2020")
    play(ui, "NEXT A NEXT A NEXT A NEXT A")          # ruutu made and won by A, four times: 16
    assert ui.mode == U.END
    assert play(ui, "LPREV OK") == 1
    assert ui.mode == U.ENTRY and ui.table.match.st.score == [12, 0]


# ---------------------------------------------------------------- penalty, redeal, forfeit

def test_penalty_flow():
    ui = started("saare-2020")
    before = state(ui)
    play(ui, "LNEXT")
    assert ui.mode == U.PENALTY and ui.items[0] == ("Kaart näidatud", "Card shown")
    play(ui, "OK")                                   # the offender's side is asked for
    nothing_saved(ui, before, U.PENALTY)
    assert ui.msg == W.SIDE
    play(ui, "LPREV")                                # backs out
    nothing_saved(ui, before, U.ENTRY)
    assert play(ui, "LNEXT NEXT NEXT B") == 1        # two cards shown by B (after the sohk): 4 (2020) to A
    ev = saved(ui)[-1]
    assert (ev["type"], ev["offence"], ev["by"]) == ("penalty", "cards-shown", "B")
    assert ui.table.match.st.score == [4, 0] and ui.mode == U.ENTRY

    ui = started("schmier")                          # no penalties in Schmier
    before = state(ui)
    play(ui, "LNEXT")
    nothing_saved(ui, before, U.ENTRY)
    assert ui.msg == W.NOPEN


def test_redeal_via_the_menu():
    ui = started("saare-2020")
    play(ui, "LOK")
    assert ui.mode == U.MENU
    assert ui.word(ui.items[0]) == "Uus töö: Vale jagamine"     # "tuleb uus töö" (the Saare texts)
    assert play(ui, "NEXT OK") == 1                  # the second reason
    ev = saved(ui)[-1]
    assert (ev["type"], ev["reason"]) == ("redeal", "no-picture")
    assert ui.mode == U.ENTRY and ui.table.match.st.redeals == 1 and ui.table.match.st.deals == 0
    before = state(ui)
    play(ui, "LOK LPREV")                            # into the menu and out again
    nothing_saved(ui, before, U.ENTRY)
    play(ui, "LOK PREV")                             # "Back" is last: PREV wraps round to it
    assert ui.items[ui.cursor] == W.BACK
    play(ui, "OK")
    nothing_saved(ui, before, U.ENTRY)


def test_forfeit_via_the_menu_and_a_side_button():
    ui = started("saare-2020")
    play(ui, "NEXT A A")                             # A 4
    before = state(ui)
    n = len(ui.table.match.rules.redeal_reasons)
    play(ui, "LOK " + "NEXT " * n)
    assert ui.items[ui.cursor] == W.FORFEIT
    play(ui, "OK")                                   # whose forfeit? a side button says
    nothing_saved(ui, before, U.MENU)
    assert ui.msg == W.SIDE
    play(ui, "C")                                    # no side C at a Saare table
    nothing_saved(ui, before, U.MENU)
    assert ui.msg == W.NOSIDE
    assert play(ui, "B") == 1
    ev = saved(ui)[-1]
    assert (ev["type"], ev["by"]) == ("forfeit", "B")
    m = ui.table.match
    assert ui.mode == U.END and m.st.over and m.summary()["winner"] == "A"


# ---------------------------------------------------------------- what enters nothing

def test_a_chord_enters_nothing():
    ui = started("saare-2020")
    play(ui, "NEXT")
    before = state(ui)
    for chord in ("A+B", "A+B+C", "B+C"):
        play(ui, chord)
        nothing_saved(ui, before, U.ENTRY)
        assert ui.msg == W.CHORD and ui.deal.step == 0 and ui.cursor == 1
    play(ui, "OK")                                   # ruutu: its other results
    play(ui, "A+B")
    nothing_saved(ui, before, U.ENTRY)
    assert ui.deal.step == 1 and ui.msg == W.CHORD
    assert play(ui, "B") == 1                        # one at a time: A made it, B won


def test_side_c_in_a_two_side_game_enters_nothing():
    for ruleset in ("saare-2020", "sasku"):
        ui = started(ruleset)
        before = state(ui)
        play(ui, "C")
        nothing_saved(ui, before, U.ENTRY)
        assert ui.msg == W.NOSIDE and ui.deal.step == 0
        play(ui, "OK")                               # the next step: the game's other results
        step = ui.deal.step
        assert step > 0
        play(ui, "C")
        nothing_saved(ui, before, U.ENTRY)
        assert ui.deal.step == step
    ui = started("schmier")                          # three teams: C is a side
    play(ui, "C")
    assert ui.deal.step == 1 and ui.deal.answers["bidder"] == "C"


def test_ok_where_a_side_is_asked_enters_nothing_and_says_so():
    ui = started("sasku")                            # OK on a game: its other results; on a result: a pokk
    before = state(ui)
    play(ui, "OK OK OK")                             # then the pokk's maker is asked: OK enters nothing
    nothing_saved(ui, before, U.ENTRY)
    assert ui.msg == W.SIDE and ui.deal.steps[ui.deal.step]["key"] == "maker"
    assert play(ui, "B") == 1
    assert (saved(ui)[-1]["result"], saved(ui)[-1]["maker"]) == ("pokk", "B")
    ui = started("saare-2020")                       # OK on a game: its other results; on a result: a pokk
    before = state(ui)
    play(ui, "OK OK OK")                             # then the pokk's maker is asked: OK enters nothing
    nothing_saved(ui, before, U.ENTRY)
    assert ui.msg == W.SIDE and ui.deal.step == 2
    assert play(ui, "B") == 1
    assert (saved(ui)[-1]["result"], saved(ui)[-1]["maker"]) == ("pokk", "B")


def test_a_press_clears_the_message_and_messages_time_out():
    ui = started("sasku")
    play(ui, "OK OK OK")                             # the maker of a pokk: a side is asked
    assert ui.msg == W.SIDE
    play(ui, "NEXT")
    assert ui.msg is None
    play(ui, "OK")
    ui.test_clock.advance(U.MSG_MS)
    assert ui.tick() and ui.msg is None


def test_the_press_that_wakes_the_screen_enters_nothing():
    ui = started("saare-2020")
    ui.test_clock.advance(U.IDLE_MS)
    assert ui.tick() and ui.idle
    before = state(ui)
    play(ui, "A")
    nothing_saved(ui, before, U.ENTRY)
    assert not ui.idle and ui.deal.step == 0
    assert play(ui, "A") == 1


# ---------------------------------------------------------------- the end of a match

def test_end_of_match_confirm_dispute_lock_and_a_new_match():
    ui = started("saare-2020")
    play(ui, "NEXT A NEXT A NEXT A NEXT A")
    m = ui.table.match
    assert ui.mode == U.END and ui.items == (W.CONFIRM, W.DISPUTE)
    before = state(ui)
    play(ui, "OK")                                   # who confirms? each side with its own button
    nothing_saved(ui, before, U.END)
    assert ui.msg == W.SIDE
    play(ui, "C")
    nothing_saved(ui, before, U.END)
    assert play(ui, "NEXT A") == 1                   # A disputes (cursor on Vaidlustan)
    assert ui.word(W.DISPUTE) == "Vaidlustan"
    m = ui.table.match
    assert m.disputed == [0] and ui.mode == U.END and ui.cursor == 0
    before = state(ui)
    play(ui, "A")                                    # A has answered already
    nothing_saved(ui, before, U.END)
    assert play(ui, "B") == 1                        # B confirms: the result is locked
    m = ui.table.match
    assert m.confirmed == [1] and m.locked() and ui.mode == U.DONE
    types = [ev["type"] for ev in saved(ui)[-2:]]
    assert types == ["dispute", "confirm"]
    before = state(ui)
    play(ui, "A B OK NEXT LPREV")                    # nothing changes a locked result
    nothing_saved(ui, before, U.DONE)
    assert ui.msg == W.NOTHING
    play(ui, "LOK")                                  # the next match
    assert ui.mode == U.START and ui.word(ui.title) == "Mäng"
    assert ui.items[ui.cursor] == ("Saare mäng 2020", "Saare mäng 2020")
    play(ui, "OK OK")
    assert ui.items[ui.cursor] == 2                  # the round after the last one
    play(ui, "OK OK")
    assert ui.mode == U.ENTRY and ui.table.match.setup["round"] == 2 and ui.table.match.seq == 1


def test_start_screen_long_prev_steps_back_and_side_buttons_ask_for_ok():
    ui = box()
    play(ui, "NEXT NEXT OK NEXT OK")                 # sasku, table 2
    assert ui.word(ui.title) == "Voor"
    play(ui, "LPREV")
    assert ui.word(ui.title) == "Laud" and ui.cursor == 1
    play(ui, "A")
    assert ui.mode == U.START and ui.msg == W.PRESS_OK
    play(ui, "OK OK OK OK OK")
    assert ui.mode == U.ENTRY
    s = ui.table.match.setup
    assert (s["ruleset"], s["table"], s["round"], s["room"], s["boards"]) == ("sasku", 2, 1, 1, [1, 8])


# ---------------------------------------------------------------- language

def test_language_switch_in_the_menu():
    calls = []
    ui = box(on_lang=calls.append)
    assert ui.lang == 0 and ui.word(ui.title) == "Mäng"     # Estonian by default
    play(ui, START["saare-2020"])
    assert ui.word(ui.title) == "Mäng" and ui.word(ui.items[0]) == "Trump · võit"
    before = state(ui)
    play(ui, "LOK")
    i = list(ui.items).index(W.LANG)
    play(ui, "NEXT " * i + "OK")
    assert calls == [1] and ui.lang == 1
    nothing_saved(ui, before, U.MENU)
    assert ui.word(ui.title) == "Menu" and ui.word(ui.items[0]) == "Redeal: Misdeal"
    assert ui.items[ui.cursor] == W.LANG and ui.word(W.LANG) == "Language: English"
    play(ui, "LPREV")
    assert ui.mode == U.ENTRY and ui.word(ui.title) == "Game" and ui.word(ui.items[0]) == "Suit · won"
    assert ui.word(ui.says()) == "made, won" and ui.word(ui.ok_says()) == "other"
    play(ui, "LNEXT")
    assert ui.word(ui.items[0]) == "Card shown"
    play(ui, "LPREV LOK")
    i = list(ui.items).index(W.LANG)
    play(ui, "NEXT " * i + "OK")
    assert calls == [1, 0] and ui.word(ui.title) == "Menüü"


# ---------------------------------------------------------------- invalid entries

def test_entries_the_rules_reject_show_a_message_and_save_nothing():
    ui = started("saare-2020")                       # A1 shuffles: the dealer's pair is A
    before = state(ui)
    play(ui, "LNEXT PREV PREV")
    assert ui.items[ui.cursor] == ("Kaks vale jagamist", "Misdealt twice")
    play(ui, "B")
    nothing_saved(ui, before, U.PENALTY)
    assert ui.msg == W.refusal("by") == ("See pool ei saa", "Not this side") and ui.msg2 == ""
    assert play(ui, "A") == 1                        # the dealer's pair: saved
    assert saved(ui)[-1]["offence"] == "misdeal-twice"

    ui = started("saare-2020")
    play(ui, "OK OK A")                              # a pokk made by A: the replay follows
    assert ui.table.match.st.chain == 1
    before = state(ui)
    play(ui, "LOK NEXT OK")                          # no redeal for want of a picture in a replay
    nothing_saved(ui, before)
    assert ui.msg == W.refusal("reason") and ui.msg2 == ""
    assert ui.table.match.st.redeals == 0


# ---------------------------------------------------------------- faults

def test_fault_and_clear_set_and_clear_the_faults():
    ui = started("saare-2020")
    # a stuck button's message is not a refusal: the app must not beep for it
    assert ui.handle(K.event(K.FAULT, K.OK)) == (U.NOTHING, None)
    assert ui.faults == 1 << K.OK and ui.msg == W.STUCK and ui.msg2 == "OK"
    ui.handle(K.event(K.FAULT, K.A))
    assert ui.faults == (1 << K.OK) | (1 << K.A)
    assert ui.handle(K.event(K.CLEAR, K.OK)) == (U.NOTHING, None)
    assert ui.faults == 1 << K.A and ui.msg == W.FREED
    ui.handle(K.event(K.CLEAR, K.A))
    assert ui.faults == 0 and ui.deal.step == 0 and len(ui.table.saved) == 1


def test_handle_says_what_each_press_did():
    ui = started("saare-2020")
    got = []
    play(ui, "NEXT OK OK C OK A", got)
    assert got == [(U.MOVED, None),                   # the cursor moved
                   (U.MOVED, None),                   # OK: ruutu's other results
                   (U.MOVED, None),                   # OK: a pokk; its maker is next
                   (U.REFUSED, W.NOSIDE),           # no side C in Saare mäng
                   (U.REFUSED, W.SIDE),             # OK where a side button is asked for
                   (U.SUBMITTED, None)]               # the maker: the pokk is entered
    assert ui.msg is None and ui.deal.step == 0 and ui.table.match.st.chain == 1
    del got[:]
    play(ui, "B", got)                                # the replay: B won
    assert got == [(U.SUBMITTED, None)] and ui.table.match.st.deals == 2
    play(ui, "OK", got)
    assert ui.deal.step == 1
    del got[:]
    play(ui, "B", got)
    assert got == [(U.SUBMITTED, None)] and ui.table.match.st.deals == 3
    ui.test_clock.advance(U.IDLE_MS)
    assert ui.tick() and ui.idle
    del got[:]
    play(ui, "A", got)                                # wakes the screen, enters nothing
    assert got == [(U.NOTHING, None)] and ui.deal.step == 0 and ui.table.match.st.deals == 3


def test_an_assignment_offered_while_the_box_runs_shows_at_once():
    ui = box()
    play(ui, "NEXT")                                  # on the wizard's game list
    a = {"ruleset": "sasku", "table": 9, "round": 4, "room": 2, "first_shuffler": 3,
         "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]}
    ui.offer(a)
    assert ui.mode == U.START and ui.title == W.ASSIGN and ui.cursor == 0
    assert play(ui, "OK") == 1
    m = ui.table.match
    assert m.rules.name == "sasku" and m.setup["table"] == 9 and m.st.shuffler == 3
    ui.offer(dict(a, table=10))                       # in a match: kept for the next one
    assert ui.mode == U.ENTRY and ui.assignment["table"] == 10


def test_the_pairing_question_needs_prev_and_next_held_and_only_on_the_start_screen():
    ui = started("saare-2020")
    play(ui, "NEXT OK")                               # ruutu, half an entry
    answers = []
    assert ui.ask(("Paarida?", "Pair?"), answers.append) is False   # over a match: never shown
    assert ui.mode == U.ENTRY and ui.deal.step == 1 and answers == []
    ui = box()                                        # the start screen
    q = (("Paarida?", "Pair?"), answers.append)
    assert ui.ask(*q, detail="Kohtunik Kalju") is True
    assert ui.mode == U.ASK and ui.title == ("Paarida?", "Pair?") and ui.detail == "Kohtunik Kalju"
    assert ui.items == (W.HOLD_PN,)
    assert ui.ask(("Toine?", "Another?"), answers.append) is False     # a second question never replaces it
    assert ui.title == ("Paarida?", "Pair?") and answers == []
    got = []
    play(ui, "LOK", got)                              # the players' habit: only dismisses it
    assert answers == [False] and got == [(U.MOVED, None)] and ui.mode == U.START and ui.table.match is None
    for no in ("OK", "A", "B", "LNEXT LPREV", "LPREV LPREV", "NEXT"):
        ui.ask(*q)
        play(ui, no)                                  # any other press (or the halves a second apart): no
        assert answers[-1] is False and ui.mode == U.START and ui.table.match is None, no
    n = len(answers)
    ui.ask(*q)
    play(ui, "PREV+NEXT")                             # held together: yes
    assert answers[n:] == [True] and ui.mode == U.START and ui.table.match is None
    ui.ask(*q)
    play(ui, "LPREV")                                 # half of it, then nothing: no, once the window is past
    assert ui.mode == U.ASK
    ui.test_clock.advance(U.PAIR_MS + 1)
    ui.tick()
    assert answers[-1] is False and ui.mode == U.START
    n = len(answers)
    ui.ask(("Paarida?", "Pair?"), answers.append, 500)
    ui.test_clock.advance(499)
    ui.tick()
    assert len(answers) == n
    ui.test_clock.advance(1)
    ui.tick()                                         # nobody answered: no
    assert answers[n:] == [False] and ui.mode == U.START
    assert play(ui, START["saare-2020"]) == 1 and ui.mode == U.ENTRY   # the start screen works as before


def test_side_presses_together_take_back_the_first_and_enter_nothing():
    # the UI's chord window (the app's setting): a second and a third side
    # within 40 ms of the first take the first back and enter nothing
    ui = box()
    play(ui, START["saare-2020"])
    play(ui, "OK")                                    # suit: its other results
    before = state(ui)
    t = ui.test_clock.ticks_ms() + 1000
    got = [ui.handle(K.event(K.PRESS, b, t + dt)) for b, dt in ((0, 0), (1, 5), (2, 10))]  # A B C, 5 ms apart
    assert got == [(U.SUBMITTED, None), (U.REFUSED, W.CHORD), (U.REFUSED, W.CHORD)]
    assert ui.table.pending is None and ui.msg == W.CHORD
    ui.table.flush()
    nothing_saved(ui, before, U.ENTRY)
    assert ui.deal.step == 1 and ui.deal.answers == {"game": "suit"}   # back on the result step
    assert ui.handle(K.event(K.PRESS, 1, t + 200)) == (U.SUBMITTED, None)   # later, one side alone: B won
    ui.table.flush()
    assert (saved(ui)[-1]["winner"], saved(ui)[-1]["maker"]) == ("B", "A")
    # the one-press deal is taken back whole by a chord too
    before = state(ui)
    t += 1000
    got = [ui.handle(K.event(K.PRESS, b, t + dt)) for b, dt in ((1, 0), (0, 5))]   # B then A
    assert got == [(U.SUBMITTED, None), (U.REFUSED, W.CHORD)]
    ui.table.flush()
    nothing_saved(ui, before, U.ENTRY)
    assert ui.deal.step == 0 and ui.deal.answers == {}


def test_a_match_started_by_mistake_is_abandoned_from_the_menu():
    ui = started("saare-2020")
    play(ui, "LOK")
    assert W.ABANDON in ui.items                    # nothing entered yet
    i = list(ui.items).index(W.ABANDON)
    assert play(ui, "NEXT " * i + "OK") == 1
    ev = saved(ui)[-1]
    assert ev["type"] == "close" and ui.table.match.closed
    assert ui.mode == U.START                          # straight to a new match
    ui = started("saare-2020")
    play(ui, "A LOK")
    assert W.ABANDON not in ui.items                 # a deal is in force: forfeit or the judge


def test_a_half_entered_deal_survives_a_look_at_the_menu_or_the_penalty_list():
    ui = started("saare-2020")
    play(ui, "NEXT OK NEXT")                           # ruutu; its results, "Jänn" under the cursor
    assert ui.deal.step == 1
    play(ui, "LOK NEXT LPREV")                         # the menu, and back
    assert ui.mode == U.ENTRY and ui.deal.step == 1 and ui.deal.answers == {"game": "ruutu"}
    assert ui.cursor == 1
    play(ui, "LNEXT LPREV")                            # the penalty list, and back
    assert ui.mode == U.ENTRY and ui.deal.step == 1
    play(ui, "A")
    assert saved(ui)[-1]["game"] == "ruutu" and saved(ui)[-1]["winner"] == "A"
    assert saved(ui)[-1]["result"] == "jann" and saved(ui)[-1]["maker"] == "A"
    play(ui, "NEXT OK LNEXT A")                        # a penalty in between starts the entry again
    assert ui.mode == U.ENTRY and ui.deal.step == 0 and saved(ui)[-1]["type"] == "penalty"


def test_a_box_without_the_third_side_button_does_not_offer_schmier():
    ui = U.Ui(Table(), clock=Clock(), max_sides=2)
    names = [ui.word(w) for w in ui.items]
    assert "Schmier" not in names and "Saare mäng 2020" in names
    ui = U.Ui(Table(), clock=Clock())
    assert "Schmier" in [ui.word(w) for w in ui.items]


def test_the_start_takes_the_match_the_start_screen_folded_only_for_that_setup():
    # the screen folds the match OK would start (its words are drawn ahead); the start press
    # takes that match instead of folding the setup again, and only when it is that setup
    ui = box()
    play(ui, "OK OK OK")                       # the game, table 1, round 1: the shuffler is asked
    likely = ui.likely_match()
    assert likely is not None and likely.seq == 1
    play(ui, "OK")
    assert ui.mode == U.ENTRY and ui.table.match is likely
    assert saved(ui)[0] == likely.setup        # what went to the journal is the setup it holds
    play(ui, "A")                              # a deal folds on that match
    assert folded(ui).st.score == ui.table.match.st.score != [0, 0]
    ui = box()
    play(ui, "OK OK OK")
    likely = ui.likely_match()
    play(ui, "NEXT OK")                        # another shuffler: another setup than the one folded
    assert ui.mode == U.ENTRY and ui.table.match is not likely
    assert ui.table.match.setup["first_shuffler"] != likely.setup["first_shuffler"]
