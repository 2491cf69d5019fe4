"""The `nakk` command: score and rules, as a user runs them (the installed console script)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_mpy

NAKK = os.path.join(os.path.dirname(sys.executable), "nakk")
EXAMPLE = os.path.join(ROOT, "examples", "saare-2020.jsonl")


def nakk(*args, stdin=None):
    return subprocess.run([NAKK, *args], input=stdin, capture_output=True, text=True, cwd=ROOT)


def test_score_example_table_and_json():
    r = nakk("score", EXAMPLE)
    assert r.returncode == 0, r.stderr
    assert "winner A" in r.stdout and "Mets/Tamm" in r.stdout
    j = nakk("score", "--json", EXAMPLE)
    s = json.loads(j.stdout)
    assert s["winner"] == "A" and s["final"][0] == s["score"][0] + s["bonus"][0]
    assert s["locked"] is True


def test_score_same_result_on_micropython():
    cp = nakk("score", "--json", EXAMPLE)
    mp = run_mpy(["-m", "nakk.score", EXAMPLE, "--json"])
    assert mp.returncode == 0, mp.stderr
    assert mp.stdout == cp.stdout  # byte for byte: canonical JSON on both


def test_invalid_event_line_field_reason_exit_2():
    lines = open(EXAMPLE).read().splitlines()
    lines[3] = lines[3].replace('"result":"win"', '"result":"won"')
    bad = "\n".join(lines) + "\n"
    r = nakk("score", "-", stdin=bad)
    assert r.returncode == 2
    assert r.stderr.startswith("nakk: line 4: result: must be one of"), r.stderr
    assert r.stdout == ""
    mp = run_mpy(["-m", "nakk.score", "-"], stdin=bad)
    assert mp.returncode == 2 and "line 4: result" in mp.stderr


def test_malformed_json_is_rejected_with_its_line(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text(open(EXAMPLE).read().splitlines()[0] + "\n" + '{"seq":2,"type":"deal",}\n')
    r = nakk("score", str(f))
    assert r.returncode == 2 and "line 2" in r.stderr and "invalid JSON" in r.stderr


def test_missing_file_is_a_clear_error():
    r = nakk("score", "/nonexistent/match.jsonl")
    assert r.returncode == 2 and r.stderr.startswith("nakk: cannot read /nonexistent/match.jsonl")


def test_rules_lists_every_setting_with_its_default():
    from nakk import rules
    for name in rules.NAMES:
        r = nakk("rules", name)
        assert r.returncode == 0, r.stderr
        for s in rules.get(name).settings:
            assert "  %s = " % s.key in r.stdout, (name, s.key)
            assert s.ref in r.stdout
    assert nakk("rules").stdout.count("\n") == len(rules.NAMES)
    et = nakk("rules", "saare-2020", "--lang", "et")
    assert "Jänn" in et.stdout and "Karvane" in et.stdout


def test_unknown_ruleset():
    r = nakk("rules", "bridge")
    assert r.returncode == 2 and r.stderr.startswith("nakk: unknown ruleset 'bridge'")


@pytest.mark.parametrize("ruleset", ["saare-2020", "saare-classic", "sasku", "schmier"])
def test_scripted_matches_played_on_the_ui_equal_nakk_score(ruleset, tmp_path):
    # whole matches played through the UI (tests/test_ui.py's scripts); their journal scored by the command
    from test_ui import MATCHES, _whole_match
    assert ruleset in MATCHES
    ui = _whole_match(ruleset)
    path = tmp_path / (ruleset + ".jsonl")
    path.write_bytes(b"".join(line + b"\n" for line in ui.table.saved))
    r = nakk("score", "--json", str(path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    s = ui.table.match.summary()
    for key in ("final", "score", "winner", "bonus", "over", "locked", "deals"):
        assert out[key] == s[key], (key, out[key], s[key])
