"""The judge's assignment pushed to a box, and `nakk doctor`, against the real firmware in the simulator."""
import json
import os

import pytest

import boxes
from nakk_host import cli
from nakk_host import device as D
from nakk_host.simulator import Simulator, dump_events

ASSIGNMENT = {"tournament": "saaremaa-2026", "table": 7, "round": 3, "ruleset": "saare-2020",
              "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]}


@pytest.fixture(autouse=True)
def own_registry(tmp_path, monkeypatch):
    d = tmp_path / "xdg"
    d.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(d))


def test_assignment_becomes_the_next_match(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "assign", db, count=1)
    with Simulator(image, register=False) as sim:
        with pytest.raises(D.Refused) as e:
            D.assign(sim.tty, dict(ASSIGNMENT, ruleset="poker"))
        assert e.value.code == "bad-request" and "ruleset" in e.value.why
        with pytest.raises(D.Refused) as e:
            D.assign(sim.tty, dict(ASSIGNMENT, settings={"no_such_setting": 1}))
        assert e.value.code == "bad-request"
        assert D.assign(sim.tty, ASSIGNMENT)["assigned"] is True
        sim.press("OK", long=True)     # the finished match is answered: long OK, the next match
        sim.press("OK")                # one OK takes the judge's assignment, offered at once
    setup = json.loads(dump_events(image)[0])
    for k, v in ASSIGNMENT.items():
        assert setup[k] == v, k
    assert setup["match"] == 2 and setup["device"] == boxes.sim_device_id(image)
    assert abs(setup["clock"] - __import__("time").time()) < 120


def test_doctor_names_what_is_wrong(tmp_path, capsys):
    db = str(tmp_path / "judge.db")
    good, fs_id, key = boxes.paired_box(tmp_path, "good", db, count=2)
    stranger = str(tmp_path / "stranger.img")
    boxes.fill(stranger, 1)                       # never paired
    with Simulator(good), Simulator(stranger):
        assert cli.main(["doctor", "--db", db, "--json"]) == 1
        found = {b["device"]: b for b in json.loads(capsys.readouterr().out)}
        g = found[boxes.sim_device_id(good)]
        assert g["problems"] == [] and g["paired"] is True and g["unsynced"] == 2 and g["fs_id"] == fs_id
        assert g["fw"] and g["proto"] == 1 and g["free"] > 100000
        s = found[boxes.sim_device_id(stranger)]
        assert s["paired"] is False and s["problems"] == ["not paired: run nakk pair"]
        assert g["name"] == "good" and s["name"] is None      # the name the judge gave it at pairing
        assert cli.main(["doctor", "--db", db]) == 1
        out = capsys.readouterr().out
        assert "not paired" in out and "OK" in out
        # the whole id, never cut to "sim-01…", and the judge's name for it, however narrow the terminal
        for dev in found:
            assert dev in out.replace("│", "").replace(" ", "").replace("\n", "") and "…" not in out
        assert "good" in out
    assert cli.main(["doctor", "--db", db, "--port", str(tmp_path / "no-such-tty"), "--timeout", "0.5"]) == 1
    assert "does not answer" in capsys.readouterr().out
