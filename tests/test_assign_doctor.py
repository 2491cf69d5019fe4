"""The judge's assignment pushed to a box, and `nakk doctor`, against the real firmware in the simulator."""
import json
import secrets
import time

import pytest

import boxes
from nakk.link import proto
from nakk.link.sign import hmac_sha256
from nakk_host import cli
from nakk_host import device as D
from nakk_host.simulator import Simulator, dump_events

ASSIGNMENT = {"tournament": "saaremaa-2026", "table": 7, "round": 3, "ruleset": "saare-2020",
              "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]}


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


def test_assignment_becomes_the_next_match(tmp_path):
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "assign", db, count=1)
    with Simulator(image, register=False) as sim:
        with pytest.raises(D.Refused) as e:
            D.assign(sim.tty, dict(ASSIGNMENT, ruleset="poker"), key)
        assert e.value.code == "bad-request" and "ruleset" in e.value.why
        with pytest.raises(D.Refused) as e:
            D.assign(sim.tty, dict(ASSIGNMENT, settings={"no_such_setting": 1}), key)
        assert e.value.code == "bad-request"
        assert D.assign(sim.tty, dict(ASSIGNMENT, assignment="a1b2c3d4e5f60718"), key)["assigned"] is True
        sim.press("OK", long=True)     # the finished match is answered: long OK, the next match
        sim.press("OK")                # one OK takes the judge's assignment, offered at once
    setup = json.loads(dump_events(image)[0])
    for k, v in ASSIGNMENT.items():
        assert setup[k] == v, k
    assert setup["match"] == 2 and setup["device"] == boxes.sim_device_id(image)
    assert setup["assignment"] == "a1b2c3d4e5f60718"     # the result names what the judge assigned
    assert abs(setup["clock"] - __import__("time").time()) < 120


EVIL = {"tournament": "EVIL", "table": 7, "round": 9, "ruleset": "saare-2020", "clock": 0,
        "sides": [{"id": "A", "name": "Ründaja"}, {"id": "B", "name": "Ründaja 2"}]}


def test_an_assignment_not_signed_by_the_judge_changes_nothing(tmp_path, capsys):
    """The issue's attack: any laptop pushed an assignment (the clock to 1970, the next match under
    tournament EVIL). Unsigned, signed with another key, or replayed: refused, counted, nothing changed;
    the next match is the judge's own."""
    db = str(tmp_path / "judge.db")
    image, fs_id, key = boxes.paired_box(tmp_path, "laud7", db, count=1)
    with Simulator(image, register=False) as sim:
        with D.Box(sim.tty) as box:
            clock = box.hello()["clock"]
            with pytest.raises(D.Refused) as e:
                box.request("assign", EVIL, retry=False)                    # no signature
            assert e.value.code == "bad-mac"
            with pytest.raises(D.Refused) as e:
                box.assign(EVIL, secrets.token_bytes(32))                   # another laptop's key
            assert e.value.code == "bad-mac"
            h = box.hello()
            assert h["rejected"] == 2 and abs(h["clock"] - clock) < 60    # the clock is the box's own
            # the judge's genuine one, recorded by the laptop and sent again: its challenge is used up
            fields = dict(ASSIGNMENT, clock=int(time.time()), assignment="00112233aabbccdd",
                          challenge=h["challenge"])
            from nakk.event import encode
            body = dict(fields, cmd="assign")
            fields["mac"] = hmac_sha256(key, proto.signed_msg(h["device"], h["fs_id"], encode(body))).hex()
            assert box.request("assign", fields, retry=False)["assigned"] is True
            with pytest.raises(D.Refused) as e:
                box.request("assign", dict(fields, table=7, tournament="EVIL"), retry=False)  # altered
            assert e.value.code == "bad-mac"
            with pytest.raises(D.Refused) as e:
                box.request("assign", fields, retry=False)                  # replayed as it was
            assert e.value.code == "bad-mac"
            assert box.hello()["rejected"] == 4
        assert cli.main(["doctor", "--db", db, "--port", sim.tty, "--json"]) == 1
        doc = json.loads(capsys.readouterr().out)[0]
        assert doc["rejected"] == 4 and not any("clock is off" in p for p in doc["problems"]), doc
        sim.press("OK", long=True)
        sim.press("OK")
    setup = json.loads(dump_events(image)[0])
    assert setup["tournament"] == "saaremaa-2026" and setup["table"] == 7 and setup["round"] == 3
    assert setup["assignment"] == "00112233aabbccdd"


def test_an_unpaired_box_takes_no_assignment(tmp_path, capsys):
    image = str(tmp_path / "fresh.img")
    boxes.fill(image, 0)
    with Simulator(image, register=False) as sim:
        with D.Box(sim.tty) as box:
            with pytest.raises(D.Refused) as e:
                box.request("assign", ASSIGNMENT, retry=False)
            assert e.value.code == "not-paired"


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
        assert g["fw"] and g["proto"] == 2 and g["free"] > 100000 and g["rejected"] == 0
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
