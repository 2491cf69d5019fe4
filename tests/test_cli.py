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
    mp = run_mpy(["-m", "nakk.offbox.score", EXAMPLE, "--json"])
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
    mp = run_mpy(["-m", "nakk.offbox.score", "-"], stdin=bad)
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


def _nakk_bytes(*args, stdin=None):
    return subprocess.run([NAKK, *args], input=stdin, capture_output=True, cwd=ROOT)


def _mpy_score_bytes(path_or_dash, stdin=None):
    # run_mpy works in text; the unix port is run here on raw bytes
    import conftest
    env = dict(os.environ, MICROPYPATH=conftest.FIRMWARE)
    return subprocess.run([conftest.micropython_path(), "-X", "heapsize=" + conftest.HEAP, "-m", "nakk.offbox.score",
                           path_or_dash], input=stdin, capture_output=True, cwd=ROOT, env=env, timeout=60)


def test_score_text_that_is_not_utf8_is_one_line_on_both(tmp_path):
    lines = open(EXAMPLE, "rb").read().splitlines(True)
    # a Latin-1 name from a Windows spreadsheet in the setup line
    latin = lines[0].replace(b"Mets", b"M\xe4ts")
    col = latin.index(b"\xe4") + 1
    f = tmp_path / "latin1.jsonl"
    f.write_bytes(latin + b"".join(lines[1:]))
    binary = bytes(range(256)) * 4
    b = tmp_path / "binary.bin"
    b.write_bytes(binary)
    utf16 = tmp_path / "utf16.jsonl"
    utf16.write_bytes(b"\xff\xfe" + open(EXAMPLE, encoding="utf-8").read().encode("utf-16-le"))
    want = (
        (str(f), None, "nakk: line 1: not UTF-8 text (byte 0xE4 at column %d)\n" % col),
        (str(utf16), None, "nakk: line 1: not UTF-8 text (byte 0xFF at column 1)\n"),
        ("-", binary, "nakk: line 1: "),
        ("-", open(str(f), "rb").read(), "nakk: line 1: not UTF-8 text (byte 0xE4 at column %d)\n" % col),
    )
    for arg, stdin, err in want:
        for r in (_nakk_bytes("score", arg, stdin=stdin), _mpy_score_bytes(arg, stdin=stdin)):
            text = r.stderr.decode("utf-8")
            assert r.returncode == 2 and r.stdout == b"", (arg, r.returncode, text)
            assert text.startswith(err) and text.count("\n") == 1, (arg, text)
    r = _nakk_bytes("score", str(b))
    assert r.returncode == 2 and r.stderr.decode().startswith("nakk: line 1: ") and b"Traceback" not in r.stderr


def test_score_accepts_a_utf8_bom(tmp_path):
    f = tmp_path / "bom.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + open(EXAMPLE, "rb").read())
    plain = nakk("score", "--json", EXAMPLE)
    for r in (_nakk_bytes("score", "--json", str(f)), _mpy_score_bytes(str(f))):
        assert r.returncode == 0, r.stderr
    assert _nakk_bytes("score", "--json", str(f)).stdout.decode() == plain.stdout
    assert _nakk_bytes("score", "--json", "-", stdin=f.read_bytes()).stdout.decode() == plain.stdout


def test_help_and_docs_speak_in_the_present_only_of_commands_that_exist():
    import re
    from nakk_host import cli
    p = cli.parser()
    sub = next(a for a in p._actions if a.dest == "command")
    commands = set(sub.choices)
    with open(os.path.join(ROOT, "docs", "commands.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme += f.read()
    # docs/commands.md's table of the command today lists exactly the commands there are
    table = readme.split("## The `nakk` command today", 1)[1].split("\n\n", 2)[1]
    rows = {re.match(r"\| `nakk (\w+)", line).group(1) for line in table.splitlines() if line.startswith("| `nakk ")}
    assert rows == commands, (rows, commands)
    helptext = nakk("--help").stdout
    for name in commands:
        assert name in helptext
    # every command the README once planned (sync, standings, flash, export) is there now, and neither
    # the README nor the commands' page says one of them is being built
    assert {"sync", "standings", "flash", "export"} <= commands
    for name in ("Standings", "Flashing a Pico", "The judge's sync"):
        assert not re.search(name + r"[^.]* (is|are) being built", readme), name


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
