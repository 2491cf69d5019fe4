"""Bad files and paths a judge may name: one `nakk: …` line, a non-zero exit, every named file as it was, and
nothing played, drawn or stored first (the events-file reader, output paths, flash images, options)."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

from nakk_host import cli, cli_sim
from nakk_host import simulator as Sim
from nakk_host import standings as S
from nakk_host import store
from judge_kit import stage

NAKK = [sys.executable, "-m", "nakk_host.cli"]
EXAMPLE = os.path.join(ROOT, "examples", "saare-2020.jsonl")


@pytest.fixture(autouse=True)
def env(tmp_path, monkeypatch, own_registry):
    monkeypatch.setenv("NAKK_DB", str(tmp_path / "judge.db"))
    monkeypatch.setenv("NAKK_JUDGE", "Kohtunik Kalju")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_line(capsys, argv, status=None):
    """Run a command in this process; its one `nakk:` line (asserted so)."""
    rc = cli.main(argv)
    out = capsys.readouterr()
    assert rc != 0 and (status is None or rc == status), (argv, rc, out)
    lines = out.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nakk: "), (argv, out.err)
    return lines[0]


def nakk(*args, env=None):
    return subprocess.run(NAKK + list(args), capture_output=True, cwd=ROOT, timeout=120,
                          env=dict(os.environ, **(env or {})))


def drawn_tournament(env, rounds=3):
    conn = store.open_db(str(env / "judge.db"))
    t = stage(conn, ["Mets", "Tamm", "Saar", "Kask"], rounds=rounds, code="e")
    return conn, t


# ---------------------------------------------------------------- the events-file reader (items 4, 5, 6)

def test_a_lone_surrogate_in_a_name_is_one_line_for_score_and_close(env, capsys):
    data = open(EXAMPLE, "rb").read().replace(b"Mets", b"Me\\ud800ts", 1)
    f = env / "surrogate.jsonl"
    f.write_bytes(data)
    for argv in (["score", str(f)], ["score", "--json", str(f)]):
        r = nakk(*argv)
        err = r.stderr.decode()
        assert r.returncode == 2 and r.stdout == b"" and err.count("\n") == 1, err
        assert "line 1: sides.0.name: a lone surrogate" in err and "Traceback" not in err
    conn, t = drawn_tournament(env)
    line = one_line(capsys, ["close", "--round", "1", "--table", "1", "--why", "dead box", "--events", str(f)], 2)
    assert "sides.0.name: a lone surrogate" in line
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0
    assert f.read_bytes() == data


def test_close_reads_a_bom_as_score_does(env, capsys):
    f = env / "bom.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + open(EXAMPLE, "rb").read())
    assert nakk("score", str(f)).returncode == 0
    conn, t = drawn_tournament(env)
    line = one_line(capsys, ["close", "--round", "1", "--table", "1", "--why", "dead box", "--events", str(f)])
    # read whole (the BOM skipped): refused only because these events are of another tournament
    assert "of tournament 'Kuressaare karikas 2026'" in line and "invalid JSON" not in line
    bad = env / "bad.jsonl"
    bad.write_bytes(b'{"seq":1,"type":"setup"\n')
    line = one_line(capsys, ["close", "--round", "1", "--table", "1", "--why", "x", "--events", str(bad)], 2)
    assert line.startswith("nakk: line 1: ")


@pytest.mark.parametrize("name, data, said", [
    ("bom-bad-json", b"\xef\xbb\xbf" + b"\n" * 2 + b'{"seq":1,"type":"setup"\n', "line 3: invalid JSON"),
    ("bom-latin1", b"\xef\xbb\xbf\n" + b'{"seq":1,"type":"setup","name":"K\xe4si"}\n',
     "line 2: not UTF-8 text (byte 0xE4 at column 34)"),
    ("bad-field", open(EXAMPLE, "rb").read().replace(b'"result":"win"', b'"result":"won"', 1), "line 2: result: "),
    ("surrogate", b"\xef\xbb\xbf" + open(EXAMPLE, "rb").read().replace(b"Mets", b"Me\\ud800ts", 1),
     "line 1: sides.0.name: a lone surrogate"),
])
def test_score_and_close_refuse_an_events_file_in_the_same_words(env, capsys, name, data, said):
    f = env / (name + ".jsonl")
    f.write_bytes(data)
    conn, t = drawn_tournament(env)
    by_score = one_line(capsys, ["score", str(f)], 2)
    by_close = one_line(capsys, ["close", "--round", "1", "--table", "1", "--why", "x", "--events", str(f)], 2)
    assert by_score == by_close and by_score.startswith("nakk: " + said), (by_score, by_close)
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0 and f.read_bytes() == data


def test_key_scripts_in_latin1_or_with_a_bom(env, capsys):
    latin = env / "keys.txt"
    latin.write_bytes(b"OK OK  # k\xe4si\n")
    line = one_line(capsys, ["sim", "--image", str(env / "x.img"), "--keys-file", str(latin)], 2)
    assert line == "nakk: %s line 1: not UTF-8 text (byte 0xE4 at column 11); save the file as UTF-8" % latin
    assert not (env / "x.img").exists()
    bom = env / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfOK A  # BOM from Notepad\n")

    class Args:
        keys = None
        keys_file = str(bom)
    assert cli_sim._read_keys(Args) == [("OK", False), ("A", False)]


# ---------------------------------------------------------------- output paths before anything (items 3, 10, 13)

def test_round_html_in_no_folder_draws_nothing(env, capsys):
    conn, t = drawn_tournament(env)
    for _ in range(2):
        line = one_line(capsys, ["round", "--html", "/no/such/dir/draw.html"], 1)
        assert "there is no folder /no/such/dir" in line
        assert S.current_round(conn, t) == 0
    assert cli.main(["round", "--seed", "1"]) == 0
    capsys.readouterr()
    (env / "draw.html").write_text("the old draw")
    line = one_line(capsys, ["round", "--html", "draw.html"])
    assert "draw.html exists" in line and S.current_round(conn, t) == 1
    assert (env / "draw.html").read_text() == "the old draw"


def test_round_show_of_a_round_not_drawn(env, capsys):
    conn, t = drawn_tournament(env)
    assert "no round drawn yet" in one_line(capsys, ["round", "--show", "1"])
    cli.main(["round", "--seed", "1"])
    capsys.readouterr()
    assert one_line(capsys, ["round", "--show", "99"], 2) == "nakk: round 99 is not drawn: e has round 1"
    assert one_line(capsys, ["round", "--show", "-1"], 2).startswith("nakk: round -1 is not drawn")


def test_screenshot_in_no_folder_is_refused_before_anything_plays(env, capsys):
    for argv in (["sim", "--image", str(env / "x.img"), "--keys", "OK", "--screenshot", "/no/dir/x.png"],
                 ["demo", "--screenshot", "/no/dir/x.png"]):
        line = one_line(capsys, argv, 1)
        assert line == "nakk: cannot write --screenshot /no/dir/x.png: there is no folder /no/dir"
        assert not (env / "x.img").exists()
    (env / "shots").mkdir()
    assert "is a folder" in one_line(capsys, ["demo", "--screenshot", str(env / "shots")], 1)


def test_export_out_that_is_a_file(env, capsys):
    conn, t = drawn_tournament(env)
    f = env / "notes.txt"
    f.write_text("keep me")
    for argv in (["export", "--out", str(f)], ["export", "--out", str(f / "sub")]):
        line = one_line(capsys, argv, 1)
        assert "is a file" in line and "File exists" not in line
    assert f.read_text() == "keep me"


def test_page_seconds_must_be_positive(env, capsys):
    drawn_tournament(env)
    for n in ("-5", "0"):
        assert one_line(capsys, ["serve", "--page-seconds", n], 2) == "nakk: --page-seconds is at least 1 (got %d)" % int(n)


# ---------------------------------------------------------------- flash images (items 1, 2, 13)

def test_assign_image_refuses_what_is_not_a_whole_flash_image(env, capsys):
    conn, t = drawn_tournament(env)
    cli.main(["round", "--seed", "1"])
    capsys.readouterr()
    events = env / "events.jsonl"
    events.write_bytes(open(EXAMPLE, "rb").read())
    good = env / "box.img"
    assert cli.main(["assign", "--table", "1", "--image", str(good)]) == 0     # a new image: made and written
    capsys.readouterr()
    short = env / "short.img"
    short.write_bytes(good.read_bytes()[:200 * 4096])                          # a copy cut short
    for path, why in ((events, "looks like JSON lines"), (short, "a LittleFS image of 819200 bytes")):
        before = path.read_bytes()
        line = one_line(capsys, ["assign", "--table", "1", "--image", str(path)], 2)
        assert "is not a Nakk flash image" in line and why in line, line
        assert "--format" not in line
        assert path.read_bytes() == before
    line = one_line(capsys, ["assign", "--table", "1", "--image", "/no/dir/box.img"], 2)
    assert "there is no folder /no/dir" in line and "micropython" not in line
    pushed = conn.execute("SELECT count(*) FROM assignments").fetchone()[0]
    assert pushed == 1                                                        # only the good one noted


def test_one_image_one_simulator(env, capsys):
    conn, t = drawn_tournament(env)
    cli.main(["round", "--seed", "1"])
    capsys.readouterr()
    image = env / "box.img"
    with Sim.Simulator(str(image)) as sim:
        before = image.read_bytes()
        line = one_line(capsys, ["sim", "--image", str(image), "--keys", "OK OK OK"])
        assert "is in use by a running simulator" in line and sim.tty in line
        line = one_line(capsys, ["assign", "--table", "1", "--image", str(image)])
        assert "is in use by a running simulator" in line
        with pytest.raises(Sim.SimulatorError, match="in use"):
            Sim.Simulator(str(image), register=False)                      # nakk demo's kind, too
        assert image.read_bytes() == before
        assert conn.execute("SELECT count(*) FROM assignments").fetchone()[0] == 0
    # free again once it stopped; a claim left by a killed process does not hold it
    assert Sim.image_in_use(str(image)) is None
    sim = Sim.Simulator(str(image))
    sim.kill()
    assert Sim.image_in_use(str(image)) is None
    with Sim.Simulator(str(image)):
        pass


def test_every_command_says_what_it_does_and_what_it_requires(capsys, monkeypatch):
    monkeypatch.delenv("NAKK_JUDGE")
    p = cli.parser()
    subs = [a for a in p._actions if a.__class__.__name__ == "_SubParsersAction"][0].choices
    for name, sp in subs.items():
        assert sp.description, name                                 # `nakk NAME --help` says what it does
        for a in sp._actions:
            if "--by" in a.option_strings or "--why" in a.option_strings:
                assert "(required" in a.help, (name, a.help)
    for name in ("deduct", "disqualify", "history"):
        with pytest.raises(SystemExit):
            cli.main([name, "--help"])
        out = capsys.readouterr().out
        assert len(out.split("\n\n")[1]) > 60, out                 # a paragraph, not just the usage


# ---------------------------------------------------------------- beyond the list: every option as a new judge tries it

def test_a_wrong_command_line_is_one_line(env, capsys):
    for argv, says in ((["assign", "--image", "x.img", "--port", "loop://"], "not allowed with argument"),
                       (["players", "add", "Mets", "--club"], "expected one argument"),
                       (["frob"], "invalid choice: 'frob'"), ([], "required: COMMAND")):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and err.startswith("nakk: ") and says in err, err


def test_numbers_the_database_cannot_hold_and_options_that_contradict(env, capsys):
    conn, t = drawn_tournament(env)
    for argv, says in (
            (["round", "--seed", "99999999999999999999"], "--seed is a whole number"),
            (["deduct", "1", "--points", "99999999999999999999", "--why", "x"], "more than any match gives"),
            (["standings", "--round", "1"], "no round is drawn yet")):
        assert says in one_line(capsys, argv), argv
    assert S.current_round(conn, t) == 0 and conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0
    cli.main(["round", "--seed", "1"])
    capsys.readouterr()
    for argv, says in ((["standings", "--round", "99"], "the rounds drawn are 1"),
                       (["standings", "--round", "-1"], "the rounds drawn are 1")):
        assert says in one_line(capsys, argv, 2), argv
    from judge_kit import saare_events, store as keep
    names = [s["name"] for s in S.round_tables(conn, t)["tables"][0]["sides"]]
    keep(conn, "t1", saare_events("e", 1, 1, names, [("pime-pits", "A", "A")] * 2))
    for argv, says in ((["correct", "t1", "--void", "--points", "1", "1", "--why", "x"], "one change at a time"),
                       (["correct", "t1", "--swap", "--winner", "A", "--why", "x"], "--swap goes with --place"),
                       (["correct", "t1", "--points", "0", "-99999999999999999999", "--why", "x"], "more than")):
        assert says in one_line(capsys, argv), argv
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0


def test_a_tournament_and_a_pair_need_real_names_dates_and_codes(env, capsys):
    store.open_db(str(env / "judge.db")).close()
    for argv, says in (([" ", "--rounds", "2"], "needs a name"),
                       (["E", "--rounds", "0"], "at least one round"),
                       (["E", "--rounds", "2", "--date", "2026-13-01"], "is not a date"),
                       (["E", "--rounds", "2", "--code", "kuressaare karikas"], "--code 'kuressaare karikas'")):
        assert says in one_line(capsys, ["tournament", "new"] + argv[:1] + ["--ruleset", "saare-2020"] + argv[1:])
    conn = store.open_db(str(env / "judge.db"))
    assert conn.execute("SELECT count(*) FROM tournaments").fetchone()[0] == 0
    cli.main(["tournament", "new", "E", "--ruleset", "saare-2020", "--rounds", "2"])
    capsys.readouterr()
    assert "needs a name" in one_line(capsys, ["players", "add", "  "])
    assert conn.execute("SELECT count(*) FROM entrants").fetchone()[0] == 0


def test_a_timeout_is_above_zero(env, capsys):
    store.open_db(str(env / "judge.db")).close()
    for cmd in ("sync", "doctor", "pair"):
        for n in ("0", "-1", "nan"):
            line = one_line(capsys, [cmd, "--port", "loop://", "--timeout", n], 2)
            assert "--timeout is a number of seconds above 0" in line, (cmd, line)


def test_a_rename_never_makes_two_pairs_of_one_name(env, capsys):
    conn, t = drawn_tournament(env)
    line = one_line(capsys, ["players", "rename", "1", "tamm", "--why", "typo"])
    assert line == "nakk: no 2 is called Tamm already: give another name"
    assert [e["name"] for e in __import__("nakk_host.players", fromlist=["x"]).entrants(conn, t)][:2] == ["Mets", "Tamm"]


def test_a_correction_is_recorded_in_the_results_own_tournament(env, capsys):
    from judge_kit import saare_events, store as keep
    conn, t = drawn_tournament(env)
    cli.main(["round", "--seed", "1"])
    names = [s["name"] for s in S.round_tables(conn, t)["tables"][0]["sides"]]
    keep(conn, "t1", saare_events("e", 1, 1, names, [("pime-pits", "A", "A")] * 2))
    cli.main(["tournament", "new", "Teine", "--ruleset", "saare-2020", "--rounds", "1", "--code", "other"])
    capsys.readouterr()
    # -t defaults to the latest created: "other", not the result's "e"
    for argv in (["correct", "t1", "--points", "0", "-2", "--why", "x"], ["void", "t1", "--why", "x"]):
        assert one_line(capsys, argv) == ("nakk: t1 is a result of e, not of other: give -t e (or place it here "
                                          "first: nakk correct t1 --place ROUND TABLE)")
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == 0
    assert cli.main(["correct", "t1", "-t", "e", "--points", "0", "-2", "--why", "x"]) == 0


def test_a_name_with_a_control_character_is_refused(env, capsys):
    conn, t = drawn_tournament(env)
    f = env / "pairs.csv"
    f.write_bytes(b"nimi\nM\x00ets\n")
    assert "holds a control character" in one_line(capsys, ["players", "import", str(f)])
    assert "holds a control character" in one_line(capsys, ["players", "rename", "1", "Me\x1bts", "--why", "x"])
    assert [e["name"] for e in __import__("nakk_host.players", fromlist=["x"]).entrants(conn, t)] == \
        ["Mets", "Tamm", "Saar", "Kask"]
