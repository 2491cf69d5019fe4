"""The judge's assignment on the box's start screen (issue 26, point 5): both pairs (or teams) named, every setting
that differs from the game's defaults in words, taken with OK as before.

Plain test functions: pytest collects them on CPython and tests/mpyrun.py runs the same ones on the
MicroPython unix port (tests/test_both_interpreters.py), in a process of their own.
"""

from nakk.drivers import font
from nakk import rules
from nakk.ui import flows as U
from test_ui import box, play


def test_the_assignment_names_both_pairs_and_every_setting_that_differs():
    from nakk.ui import setwords
    from nakk.ui import words as W
    ui = box()
    a = {"ruleset": "saare-2020", "table": 3, "round": 2, "first_shuffler": 0,
         "sides": [{"id": "A", "name": "Šokk/Žukov"}, {"id": "B", "name": "Öö/Ärni"}],
         "settings": {"sohk_policy": "forfeit-partii", "target": 12, "pokk_replay_bonus": "flat"}}
    ui.offer(a)
    rows = [ui.word(i) for i in ui.items]
    assert ui.mode == U.START and ui.title == W.ASSIGN and ui.cursor == 0 and rows[0] == "Kinnitan"
    assert rows[1:-1] == ["Saare mäng 2020", "Laud 3 \u00b7 voor 2", "A: Šokk/Žukov", "B: Öö/Ärni",
                          "Mäng kuni: 12", "Sohk: kaotab partii"], rows   # flat is 2020's own: not said
    assert rows[-1] == "Uus mäng"
    play(ui, "NEXT NEXT NEXT")                       # reading on: OK still takes it
    assert play(ui, "OK") == 1
    m = ui.table.match
    assert m.cfg["sohk_policy"] == "forfeit-partii" and m.cfg["target"] == 12
    ui = box()
    ui.offer(dict(a, ruleset="sasku", room=2, boards=[9, 16],
                  sides=[{"id": "A", "name": "Kask/Tamm", "team": "Põlva"}, {"id": "B", "name": "Õun/Mänd"}],
                  settings={"judge_min_points": 6}))
    rows = [ui.word(i) for i in ui.items]
    assert rows[1:-1] == ["Turniirisasku", "Laud 3 \u00b7 voor 2 \u00b7 tuba 2", "A: Kask/Tamm (Põlva)",
                          "B: Õun/Mänd", "Rikkumine, vähemalt: 6", "Jaotused 9\u201316"], rows
    play(ui, "PREV OK")                              # the last row: a match set up by hand
    assert ui.mode == U.START and ui.assignment is None and ui.table.match is None
    # every setting a judge may change reads in words in both languages, and fits its row
    for name in rules.NAMES:
        for s in rules.get(name).settings:
            if isinstance(s.choices, tuple):
                values = [v for v in s.choices if v != s.default]
            else:
                values = [s.choices.high] if s.choices.high != s.default else []
            for v in values:
                for lang in (W.ET, W.EN):
                    line = setwords.setting_words(s.key, v, lang)
                    assert not line.startswith(s.key) and font.width(line) <= 120, (name, line)
                    if isinstance(v, str):                # a value in words, not its identifier
                        assert [r for r in setwords._VALUE_WORDS if r[0] == v], (name, v)
