"""The simulator end to end: the real firmware on the MicroPython unix port, driven by button presses.

Matches are played through nakk_host.simulator.Simulator (no mocks of our own
code): the events are read back from the LittleFS image by the firmware's own
journal code, folded again on CPython, and compared with `nakk score` and with
what the simulated OLED shows. The serial port is a raw pty, registered where
`nakk sync` looks; killing the simulator is a power cut.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

from conftest import ROOT, TESTS, run_mpy

from nakk_host import cli_sim, screenshot
from nakk_host import simulator as S

DEMO = os.path.join(ROOT, "host", "nakk_host", "demo")
NAKK = [sys.executable, "-m", "nakk_host.cli"]


@pytest.fixture(autouse=True)
def registry(own_registry):
    """Each test registers its simulators in its own runtime directory."""
    return own_registry / "nakk"


def demo_keys(name):
    with open(os.path.join(DEMO, name + ".keys"), encoding="utf-8") as f:
        return S.parse_keys(f.read(), name)


def demo_presses(name):
    """How many presses `nakk demo` makes: one OK on the judge's assignment instead of the
    script's setup line, then the rest of the script."""
    from nakk_host.demotour import split_setup
    with open(os.path.join(DEMO, name + ".keys"), encoding="utf-8") as f:
        setup, rest = split_setup(f.read(), S.parse_keys)
    assert setup and setup + rest == demo_keys(name)
    return 1 + len(rest)


def body(fb):
    """The score region of the display (pages 1-6): what render.py draws from the match alone."""
    return bytes(fb[128:128 * 7])


def score_json(tmp_path, lines):
    p = tmp_path / "events.jsonl"
    p.write_bytes(b"\n".join(lines) + b"\n")
    r = subprocess.run(NAKK + ["score", "--json", str(p)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), p


# ---------------------------------------------------------------- a whole match

def test_a_whole_match_by_button_presses(tmp_path):
    image = str(tmp_path / "flash.img")
    keys = demo_keys("saare-2020")
    with S.Simulator(image) as sim:
        S.play(sim, keys)
        shown = sim.framebuffer()
        assert [p[0] for p in sim.presses] == [k[0] for k in keys]
        assert all(sent > 0 for _, _, sent in sim.presses)     # every press changed the screen
        # every key one button event, a side button held two (its PRESS and its LONG)
        assert sim.info()["handled"] == len(keys) + sum(1 for name, long in keys if long and name in "ABC")
    assert not sim.running()
    lines = S.dump_events(image)
    assert [json.loads(x)["type"] for x in lines] == ["setup"] + ["deal"] * 7 + ["confirm"] * 2
    # folded on CPython == `nakk score` on the dumped events == the expected result
    lines2, m = cli_sim.match_from_image(image)
    assert lines2 == lines
    summary, path = score_json(tmp_path, lines)
    assert json.loads(json.dumps(m.summary())) == summary
    assert summary["score"] == [16, 10] and summary["bonus"] == [1, 0] and summary["final"] == [17, 10]
    assert summary["winner"] == "A" and summary["marks"] == [1, 0] and summary["confirmed"] == ["A", "B"]
    assert summary["locked"]
    # what the OLED shows is that result: the score region drawn from the dumped events
    r = run_mpy([os.path.join(TESTS, "mpy", "render_match.py"), str(path)], compiled=True)
    assert r.returncode == 0, r.stderr
    frame_hex, mode = r.stdout.split()
    assert body(bytes.fromhex(frame_hex)) == body(shown)


def test_usb_host_dims_the_rings(tmp_path):
    with S.Simulator(str(tmp_path / "flash.img")) as sim:
        S.play(sim, S.parse_keys("OK OK OK OK PREV A"))          # blind ruutu made and won by A: 6 nakks lit
        bright = sum(sim.ring_buffers()[0])
        assert bright > 0
        sim.set_usb(True)
        deadline = time.monotonic() + 5
        while sum(sim.ring_buffers()[0]) >= bright:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert 0 < sum(sim.ring_buffers()[0]) < bright / 2


def test_bad_control_lines_are_reported_and_ignored(tmp_path):
    with S.Simulator(str(tmp_path / "flash.img")) as sim:
        sim._send(b"K X 60")
        sim._send(b"nonsense")
        sim._send(b"S zz")
        sim._send(b"K \xff 60")
        sim._send(b"K OK 99999999999999999999")
        sim._send(b"S " + b"00" * 5000)
        assert sim.press("OK") == 1
        assert sum(c.startswith("E ") for c in sim.console) == 5, sim.console
        assert sim.info()["serial_received"] == 0


# ---------------------------------------------------------------- the serial port

def test_pty_is_raw_registered_and_reaches_the_firmware(tmp_path, registry):
    image = str(tmp_path / "flash.img")
    with S.Simulator(image) as sim:
        entries = S.registered_simulators()
        assert len(entries) == 1
        e = entries[0]
        assert e["path"] == sim.tty and e["pid"] == os.getpid() and e["image"] == os.path.abspath(image)
        assert os.path.dirname(sim.registry) == str(registry)
        iflag, oflag, cflag, lflag = S.tty_flags(sim.tty)
        assert not lflag & (termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
        assert not oflag & termios.OPOST
        assert not iflag & (termios.ICRNL | termios.IXON)
        # a client writes to the port, closes it, comes back: the bytes arrive as they were sent
        data = b"hello\x03\r\n\x00\xff"
        for _ in range(2):
            fd = os.open(sim.tty, os.O_RDWR | os.O_NOCTTY)
            os.write(fd, data)
            os.close(fd)
        deadline = time.monotonic() + 10
        while sim.info()["serial_received"] < 2 * len(data):
            assert time.monotonic() < deadline, sim.info()
            time.sleep(0.02)
        assert sim.info()["serial_received"] == 2 * len(data)
        assert sim.serial_in == 2 * len(data)
        assert sim.press("OK") == 1            # the box is still fine
        # the other way: an S line from the firmware comes out of the pty unchanged
        fd = os.open(sim.tty, os.O_RDWR | os.O_NOCTTY)
        try:
            sim._line(b"S " + data.hex().encode())
            got = b""
            while len(got) < len(data):
                r, _, _ = select.select([fd], [], [], 5)
                assert r, got
                got += os.read(fd, 100)
            assert got == data
        finally:
            os.close(fd)
        path = sim.registry
    assert not os.path.exists(path)
    assert S.registered_simulators() == []


def test_stale_registry_entries_are_dropped(registry):
    registry.mkdir(parents=True)
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    (registry / "sim-1.json").write_text(json.dumps({"path": "/dev/null", "pid": p.pid, "image": "x", "started": 0}))
    (registry / "sim-2.json").write_text("not json")
    (registry / "sim-3.json").write_text(json.dumps({"path": "/nonexistent/tty", "pid": os.getpid()}))
    assert S.registered_simulators() == []
    assert os.listdir(registry) == []


# ---------------------------------------------------------------- power cut

def test_kill_9_mid_match_resumes_at_the_same_score(tmp_path):
    image = str(tmp_path / "flash.img")
    keys = demo_keys("saare-2020")
    cut = 13                      # the start and five deals (a pokk and its replay among them)
    sim = S.Simulator(image)
    try:
        S.play(sim, keys[:cut])
        before = sim.framebuffer()
        sim.press("OK")           # deal 6: the results of a suit game asked, half an entry, nothing saved
        os.kill(sim.proc.pid, signal.SIGKILL)
        sim.proc.wait()
    finally:
        sim.kill()
    assert sim.registry is None
    summary, _ = score_json(tmp_path, S.dump_events(image))
    assert summary["score"] == [6, 10] and summary["deals"] == 5 and not summary["over"]
    with S.Simulator(image) as again:
        assert body(again.framebuffer()) == body(before)        # the same score on screen
        S.play(again, keys[cut:])                                # the half entry is entered again
    lines, m = cli_sim.match_from_image(image)
    s = m.summary()
    assert s["final"] == [17, 10] and s["winner"] == "A" and s["confirmed"] == ["A", "B"]


# ---------------------------------------------------------------- the commands

def test_nakk_sim_keys_and_screenshot(tmp_path):
    png = tmp_path / "x.png"
    image = tmp_path / "flash.img"
    r = subprocess.run(NAKK + ["sim", "--image", str(image), "--keys", "OK OK OK OK A NEXT OK NEXT",
                               "--screenshot", str(png)], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "\u2580" in r.stdout or "\u2584" in r.stdout          # the screen in half blocks
    assert "8 presses" in r.stdout
    assert "Score so far: A 2, B 0" in r.stdout
    assert "saare-2020, 2 events, 1 deals" in r.stdout
    w, h, _ = screenshot.read_png(png.read_bytes())
    expect = screenshot.read_png(screenshot.to_png(bytes(1024), [bytes(48)] * 2))
    assert (w, h) == expect[:2]
    # the same image again: the match goes on where it was (an unfinished entry is entered again)
    r = subprocess.run(NAKK + ["sim", "--image", str(image), "--keys",
                               "NEXT OK  # ruutu: its results\nNEXT B  # Jänn: B made it and won\n"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Score so far: A 2, B 6" in r.stdout


def test_nakk_sim_key_errors(tmp_path):
    r = subprocess.run(NAKK + ["sim", "--image", str(tmp_path / "f.img"), "--keys", "OK A+B:long"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "a long press is of one button" in r.stderr
    r = subprocess.run(NAKK + ["sim", "--image", str(tmp_path / "f.img")], capture_output=True, text=True,
                       cwd=ROOT, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "nakk: no terminal" in r.stderr


def test_parse_keys():
    assert S.parse_keys("A ok\n# a comment\nPREV:long LNEXT  next # more\nlok") == [
        ("A", False), ("OK", False), ("PREV", True), ("NEXT", True), ("NEXT", False), ("OK", True)]
    with pytest.raises(S.KeyScriptError, match="line 2"):
        S.parse_keys("A\nD")
    assert S.parse_keys("a+b A+B+C b+c") == [("A+B", False), ("A+B+C", False), ("B+C", False)]
    assert S.parse_keys("prev+next:long") == [("PREV+NEXT", True)]     # held together: the pairing's yes
    with pytest.raises(S.KeyScriptError, match="long press"):
        S.parse_keys("A+B:long")
    for bad in ("A+A", "A+OK", "A+", "+B", "NEXT+PREV"):
        with pytest.raises(S.KeyScriptError, match="unknown key"):
            S.parse_keys(bad)


def test_a_chord_in_a_key_script_reaches_the_box_as_one(tmp_path):
    # two side buttons in the same ms: the box takes back the first and enters nothing
    image = str(tmp_path / "flash.img")
    with S.Simulator(image) as sim:
        S.play(sim, S.parse_keys("OK OK OK OK"))
        before = sim.info()["handled"]
        S.play(sim, S.parse_keys("A+B"))
        assert sim.info()["handled"] == before + 2    # both buttons' presses, handled
        assert len(S.dump_events(image)) == 1         # and nothing saved: the setup alone
        S.play(sim, S.parse_keys("A"))            # then one side: a deal ("Trump · võit")
    lines = S.dump_events(image)
    assert [json.loads(x)["type"] for x in lines] == ["setup", "deal"]


@pytest.mark.parametrize("ruleset", ["saare-2020", "schmier"])
def test_nakk_demo(tmp_path, ruleset):
    shot = tmp_path / "demo.png"
    r = subprocess.run(NAKK + ["demo", "--ruleset", ruleset, "--screenshot", str(shot)],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    final, winner, _, _ = _demo_sections(out)
    if ruleset == "saare-2020":
        assert final == {"A": (17, 16, 1), "B": (10, 10, 0)} and winner.startswith("Winner: A")
        assert "Presses: %d for 7 deals" % demo_presses(ruleset) in out
    else:
        assert final == {"A": (-1, -1, 0), "B": (21, 21, 0), "C": (14, 14, 0)} and winner.startswith("Winner: B")
    assert "over (reached the target)" in out            # nakk score's own text
    assert sorted(os.listdir(str(tmp_path))) == ["demo.png", "run"]     # the screenshot; no image left here


def _demo_sections(out):
    """(final score {side: (final, score, bonus)}, the winner line, the events, the `nakk score` text) of a demo's output."""
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("Final score: "))
    final = {}
    for part in lines[i][len("Final score: "):].split(", "):
        m = re.fullmatch(r"([A-C])(?: \([^)]*\))? (-?\d+)(?: \((-?\d+) \+ (-?\d+) bonus\))?", part)
        assert m, part
        total = int(m.group(2))
        final[m.group(1)] = (total, int(m.group(3)) if m.group(3) else total, int(m.group(4) or 0))
    winner = lines[i + 1]
    e = next(k for k, line in enumerate(lines) if re.fullmatch(r"The match's \d+ events, as the judge stored them \(the box's exact bytes, verified\):", line))
    n = int(lines[e].split()[2])
    events = [line[2:] for line in lines[e + 1:e + 1 + n]]
    assert all(line.startswith("  {") for line in lines[e + 1:e + 1 + n]) and lines[e + 1 + n] == ""
    f = lines.index("Folded as `nakk score` does:")
    g = next(k for k, line in enumerate(lines) if line.startswith("The standings (nakk standings"))
    return final, winner, events, "\n".join(lines[f + 1:g]).rstrip("\n")


@pytest.mark.parametrize("ruleset,final,winner", [
    pytest.param("sasku", {"A": (9, 9, 0), "B": (24, 24, 0)},
                 "No winner in this box: a Turniirisasku match is decided when the judge joins both rooms' boards.",
                 id="sasku"),
    pytest.param("saare-classic", {"A": (19, 18, 1), "B": (10, 10, 0)}, "Winner: A (reached the target)",
                 id="saare-classic"),
])
def test_nakk_demo_result_is_nakk_score_of_its_events(tmp_path, ruleset, final, winner):
    r = subprocess.run(NAKK + ["demo", "--ruleset", ruleset], capture_output=True, text=True,
                       cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    shown, winner_line, events, folded = _demo_sections(r.stdout)
    assert shown == final and winner_line == winner
    assert "Presses: %d for 8 deals" % demo_presses(ruleset) in r.stdout
    # the events it printed, scored again by `nakk score` as a judge would
    p = tmp_path / "events.jsonl"
    p.write_text("\n".join(events) + "\n", encoding="utf-8")
    assert [json.loads(x)["type"] for x in events] == ["setup"] + ["deal"] * 8 + ["confirm"] * 2
    t = subprocess.run(NAKK + ["score", str(p)], capture_output=True, text=True, cwd=ROOT)
    assert t.returncode == 0, t.stderr
    assert t.stdout.rstrip("\n") == folded                  # what the demo says `nakk score` prints
    table = folded.splitlines()
    cols = table[1].split()
    for row in table[2:2 + len(final)]:
        # the name (column 1) may hold spaces: the columns after it are counted from the right
        cells = row.split()
        cells = cells[:1] + [" ".join(cells[1:len(cells) - len(cols) + 2])] + cells[len(cells) - len(cols) + 2:]
        side = cells[0]
        assert (int(cells[cols.index("final")]), int(cells[cols.index("score")]),
                int(cells[cols.index("bonus")])) == shown[side], row
    summary, _ = score_json(tmp_path, [x.encode() for x in events])
    assert {s: (summary["final"][i], summary["score"][i], summary["bonus"][i])
            for i, s in enumerate("AB")} == shown
    assert summary["over"] and summary["confirmed"] == ["A", "B"]
    if summary["winner"] is None:
        assert summary["ended"] == "boards" and winner_line.startswith("No winner in this box")
        assert "over (all boards played): no winner in this box" in table
    else:
        assert winner_line == "Winner: %s (reached the target)" % summary["winner"]
        w = summary["winner"]
        assert "over (reached the target): winner %s %s" % (w, summary["sides"]["AB".index(w)]) in table
    assert sorted(os.listdir(str(tmp_path))) == ["events.jsonl", "run"]     # the demo left no image here


def test_interactive_sim_on_a_terminal(tmp_path):
    """`nakk sim` with a terminal: keys k (OK) and a (side A) play, u and s work, q quits."""
    import pty
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="140", LINES="50")
    p = subprocess.Popen(NAKK + ["sim", "--image", str(tmp_path / "f.img"), "--screenshot", str(tmp_path / "s.png")],
                         stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env, start_new_session=True)
    os.close(slave)
    out = bytearray()

    def read_until(what, timeout=20):
        end = time.monotonic() + timeout
        while what not in out:
            assert time.monotonic() < end, out.decode(errors="replace")[-2000:]
            r, _, _ = select.select([master], [], [], 0.1)
            if r:
                try:
                    out.extend(os.read(master, 65536))
                except OSError:
                    break

    try:
        read_until(b"registered: nakk sync, pair and doctor find it")
        for k in b"kkkk":                      # OK x4: a new match
            os.write(master, bytes([k]))
        os.write(master, b"\x1b[C")            # -> NEXT: "Ruutu · võit"
        os.write(master, b"a")                 # A made it and won: 4
        os.write(master, b"\r")                # OK: the other results of a suit game, nothing entered
        os.write(master, b"u")
        read_until(b"judge's USB")
        os.write(master, b"s")
        read_until(b"screenshot: ")
        os.write(master, b"q")
        read_until(b"Folded as")
        assert p.wait(20) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)
    text = out.decode(errors="replace")
    assert "Score so far: A 4, B 0" in text
    assert (tmp_path / "s.png").exists()


def test_readme_starts_with_the_demo():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    first = re.search(r"```sh\n(.*?)\n```", text, re.S).group(1)
    assert first == "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/nakk demo"
