"""The real app (firmware/nakk/app.py) on the MicroPython unix port: buttons -> UI -> journal on LittleFS -> screen.

tests/mpy/app_check.py runs nakk.app.App on a test board (SimPins, a
framebuf, a LittleFS image file) with real asyncio timing and prints what the
app ended with; the firmware runs from .mpy bytecode, as on the Pico. Each run of the script is one power-on of the box, so running
it again on the same image is a restart."""
import json
import os
import sys

from conftest import FIRMWARE, TESTS, run_mpy

sys.path.insert(0, FIRMWARE)
from nakk.match import fold  # noqa: E402

SCRIPT = os.path.join(TESTS, "mpy", "app_check.py")
START = "OK OK OK OK"   # saare-2020, table 1, round 1, A1 shuffles first


def boot(image, script):
    r = run_mpy([SCRIPT, str(image), script], timeout=120, compiled=True)
    assert r.returncode == 0, r.stdout + r.stderr
    out = {}
    for line in r.stdout.splitlines():
        key, _, rest = line.partition(" ")
        out[key] = rest
    out["summary"] = json.loads(out["summary"])
    return out


def test_a_deal_is_journaled_and_the_box_resumes_after_a_restart(tmp_path):
    img = tmp_path / "flash.img"
    first = boot(img, START + " A NEXT OK PREV PREV A")   # suit made and won by A; ruutu by B, karvane to A
    s = first["summary"]
    expected = fold([
        {"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "first_shuffler": 0,
         "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]},
        {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"},
        {"seq": 3, "type": "deal", "game": "ruutu", "maker": "B", "result": "karvane", "winner": "A"},
    ]).summary()
    assert s["deals"] == 2 and s["score"] == expected["score"] and s["marks"] == expected["marks"]
    assert s["shuffler"] == expected["shuffler"]
    assert first["pending"] == "0"
    assert int(first["savingshown"]) >= 3        # setup and both deals showed "saving" before the flush
    again = boot(img, "")
    assert again["summary"] == s                  # the same match, score, shuffler
    assert again["mode"] == "1"                   # back on the score screen with deal entry


def test_undo_needs_the_long_press_and_ok(tmp_path):
    img = tmp_path / "flash.img"
    s = boot(img, START + " A")["summary"]
    assert s["deals"] == 1
    backed_out = boot(img, "LPREV NEXT OK")            # long PREV, cursor to "Back", OK
    assert backed_out["summary"]["deals"] == 1
    undone = boot(img, "LPREV OK")
    assert undone["summary"]["deals"] == 0 and undone["summary"]["seq"] == s["seq"] + 1
    assert undone["msg"] == "Tühistatud"


def test_an_undo_in_the_boot_that_started_the_match_reads_it_back_from_flash(tmp_path):
    # the start press takes the match the start screen folded (Match.read_back): its undo
    # must read the events back from flash like any other
    img = tmp_path / "flash.img"
    r = boot(img, START + " A B LPREV OK")
    assert r["summary"]["deals"] == 1 and r["summary"]["seq"] == 4 and r["msg"] == "Tühistatud"
    again = boot(img, "")
    assert again["summary"] == r["summary"]


def test_two_side_buttons_together_enter_nothing(tmp_path):
    img = tmp_path / "flash.img"
    # A+B on the result step: A alone would finish the deal; B 5 ms later takes it back
    r = boot(img, START + " OK A+B")
    assert r["summary"]["deals"] == 0 and r["summary"]["seq"] == 1
    assert r["msg"] == "Üks pool korraga"
    # all three slapped (a Schmier box has C): still nothing
    r = boot(img, "A+B+C")
    assert r["summary"]["deals"] == 0 and r["summary"]["seq"] == 1 and r["msg"] == "Üks pool korraga"
    # B first then A, on the first step (B alone would enter the deal); then the deal entered properly
    r = boot(img, "B+A OK A")
    assert r["summary"]["deals"] == 1 and r["summary"]["seq"] == 2
    assert r["summary"]["score"][0] > 0 == r["summary"]["score"][1]   # maker B, won by A


def test_a_button_held_at_boot_is_ignored_until_released(tmp_path):
    img = tmp_path / "flash.img"
    r = boot(img, "hold:OK " + START)
    # the held OK entered nothing; after its release the four OKs set the match up
    assert r["summary"]["seq"] == 1 and r["summary"]["ruleset"] == "saare-2020"
    assert r["faultsseen"] == str(1 << 4)          # OK was shown in fault while held
    assert r["faults"] == "0"                      # and works again after its release
    # the stuck button's message is no refusal: only the saved setup beeped (no long beep)
    assert r["beeps"] == "25"


def test_a_full_flash_refuses_a_new_match_with_a_message(tmp_path):
    img = tmp_path / "flash.img"
    # 24 blocks of 4 KiB: less free space than the journal's reserve
    r = run_mpy([SCRIPT, str(img), START, "24"], timeout=120, compiled=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "summary null" in r.stdout           # no match was started
    assert "msg Mälu täis: sünkrooni" in r.stdout
    assert "mode 0" in r.stdout                 # still on the start screen, nothing crashed


def test_the_judges_assignment_is_accepted_with_ok(tmp_path):
    img = tmp_path / "flash.img"
    a = {"tournament": "Kuressaare karikas", "table": 7, "round": 3, "ruleset": "schmier",
         "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"},
                   {"id": "C", "name": "Kivi/Puu"}], "first_shuffler": 2}
    r = run_mpy([SCRIPT, str(img), "OK", "0", json.dumps(a)], timeout=120, compiled=True)
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(line.partition(" ")[::2] for line in r.stdout.splitlines())
    s = json.loads(out["summary"])
    assert s["ruleset"] == "schmier" and s["sides"] == ["Mets/Tamm", "Saar/Kask", "Kivi/Puu"]
    assert s["shuffler"] == 2 and s["seq"] == 1
    assert out["mode"] == "1" and out["assignment"] == "gone"    # used once, then removed


def test_an_assignment_whose_start_did_not_reach_flash_is_offered_again(tmp_path):
    img = tmp_path / "flash.img"
    a = {"table": 5, "round": 1, "ruleset": "saare-2020",
         "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]}
    # the flash refuses the match's file once: nothing started, the players are told, and the
    # judge's assignment is on the start screen again, its file kept
    r = run_mpy([SCRIPT, str(img), "nonew OK", "0", json.dumps(a)], timeout=120, compiled=True)
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(line.partition(" ")[::2] for line in r.stdout.splitlines())
    assert out["summary"] == "null" and out["mode"] == "0" and out["msg"] == "Salvestus ebaõnnestus"
    assert out["offered"] == "1" and out["assignment"] == "kept", r.stdout
    # the next OK takes it
    r = run_mpy([SCRIPT, str(img), "OK", "0"], timeout=120, compiled=True)
    out = dict(line.partition(" ")[::2] for line in r.stdout.splitlines())
    s = json.loads(out["summary"])
    assert s["sides"] == ["Mets/Tamm", "Saar/Kask"] and s["seq"] == 1 and out["assignment"] == "gone"


def test_a_saved_entry_beeps_and_the_sound_can_be_switched_off(tmp_path):
    img = tmp_path / "flash.img"
    r = boot(img, START + " A")                     # setup and one deal saved: two short beeps
    assert r["beeps"].split() == ["25", "25"]
    # the results, a pokk, and OK where its maker's button is asked: a long beep, nothing saved
    r = boot(img, "OK OK OK")
    assert r["beeps"] == "150" and r["summary"]["seq"] == 2
    # long OK (menu), the cursor to "Heli: sees" (last but one, round the list backwards), OK
    r = boot(img, "LOK PREV PREV OK LPREV A")
    assert r["summary"]["deals"] == 2 and r["beeps"] == "-"
    r = boot(img, "A")                              # the setting survives a restart
    assert r["summary"]["deals"] == 3 and r["beeps"] == "-"


def test_the_pairing_question_needs_prev_and_next_held_and_only_over_the_start_screen(tmp_path):
    # on the start screen: the players' habit (long OK) only dismisses it, and starts nothing
    r = boot(tmp_path / "a.img", "ask LOK note")
    assert r["asked"] == "True" and r["answer"] == "False" and r["summary"] is None
    assert r["note"].split()[0] == "0"               # the start screen is back
    # PREV and NEXT held together say yes; nobody pressing says no
    r = boot(tmp_path / "b.img", "ask LPREV+NEXT")
    assert r["asked"] == "True" and r["answer"] == "True" and r["mode"] == "0" and r["summary"] is None
    r = boot(tmp_path / "c.img", "ask:300 wait")
    assert r["answer"] == "False" and r["mode"] == "0"
    # a match in play: the question is not shown at all, and the deal goes on
    img = tmp_path / "d.img"
    r = boot(img, START + " OK ask LOK")
    assert r["asked"] == "False" and "answer" not in r and r["mode"] == "2"   # long OK: the menu, as always
    r = boot(img, "A")
    assert r["summary"]["deals"] == 1


def test_an_assignment_that_arrives_while_the_box_runs_is_offered_at_once(tmp_path):
    img = tmp_path / "flash.img"
    a = {"table": 4, "round": 2, "ruleset": "saare-classic",
         "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}], "first_shuffler": 1}
    # NEXT on the start wizard's game list, then the assignment arrives: one OK takes it
    r = run_mpy([SCRIPT, str(img), "NEXT offer OK", "0", json.dumps(a)], timeout=120, compiled=True)
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(line.partition(" ")[::2] for line in r.stdout.splitlines())
    s = json.loads(out["summary"])
    assert s["ruleset"] == "saare-classic" and s["sides"] == ["Mets/Tamm", "Saar/Kask"] and s["shuffler"] == 1
    assert out["assignment"] == "gone"


def test_the_judges_ack_under_the_table_refreshes_the_box(tmp_path):
    img = tmp_path / "flash.img"
    # a forfeit ends the match (long OK, PREV round the menu to "forfeit", A), both sides confirm
    r = boot(img, START + " LOK PREV PREV PREV PREV PREV A A B note ack")
    assert r["note"].split() == ["6", "1"]          # locked, one result waits for the judge
    assert r["summary"] is None and r["mode"] == "0"  # acked and compacted away: the start screen
    assert r["waiting"] == "0"


def test_schmier_a_held_bid_or_amount_and_the_header_once_the_button_has_been_down_a_while(tmp_path):
    img = tmp_path / "flash.img"
    # B down on the bid: bid 3 entered (nothing saved); the header says "hoia: 4" only once the
    # button has been down a quarter second (a tap never shows it); let go before 0.8 s: 3 stays
    r = boot(img, "PREV OK OK OK OK down:B held pause:300 held up:B held LC OK")
    assert r["held1"].split() == ["0", "1", "4", "0"]
    assert r["held2"].split() == ["0", "1", "4", "2"]
    assert r["held3"].split()[3] == "0"
    # held: the next bid (4), and C's held "+1 punkt" two points; OK the rest to the bidder
    r = boot(img, "LA LC OK")
    s = r["summary"]
    assert s["deals"] == 2 and s["score"] == [4, 4, 4]     # B made 3 with 4; then A made 4 with 4, C 2 twice
    assert r["pending"] == "0"


def test_a_held_side_button_waits_for_its_release_and_holding_it_enters_its_held_answer(tmp_path):
    img = tmp_path / "flash.img"
    # A down on "Trump · võit" (past the chord window): the win waits off flash while A is
    # down, the header says what holding it enters; released, it is saved as the win
    r = boot(img, START + " down:A held up:A held")
    assert r["held1"].split() == ["1", "0", "jänn", "2"]
    assert r["held2"].split() == ["0", "-1", "-", "0"]
    assert r["summary"]["deals"] == 1 and r["pending"] == "0"
    # held 1 s: its LONG takes the win back and enters the jänn, then saved at once
    r = boot(img, "LA held")
    assert r["held1"].split() == ["0", "-1", "-", "0"]
    assert r["summary"]["deals"] == 2
    won = fold([
        {"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020", "first_shuffler": 0,
         "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]},
        {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"},
        {"seq": 3, "type": "deal", "game": "suit", "maker": "A", "result": "jann", "winner": "A"},
    ]).summary()
    assert r["summary"]["score"] == won["score"] and r["summary"]["seq"] == 3
    # a cluster button held does what it always did; a side button held where it has no held
    # meaning (OK's results list) enters what its press did, once
    r = boot(img, "OK LB")
    assert r["summary"]["deals"] == 3 and r["summary"]["seq"] == 4
