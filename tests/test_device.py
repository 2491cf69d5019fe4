"""Finding boxes: USB ports by the Pico's VID:PID (pyserial's port list) and the registered simulators."""
import os

import pytest

import boxes
from nakk_host import cli
from nakk_host import device as D
from nakk_host.simulator import Simulator


class FakePortInfo:
    """What pyserial's list_ports.comports() yields (its ListPortInfo has these fields)."""

    def __init__(self, device, vid, pid, serial_number=None):
        self.device, self.vid, self.pid, self.serial_number = device, vid, pid, serial_number


pytestmark = pytest.mark.usefixtures("own_registry")     # conftest: this test's own simulators


def test_discover_takes_picos_and_simulators_only(tmp_path, monkeypatch):
    from serial.tools import list_ports
    monkeypatch.setattr(list_ports, "comports", lambda: [
        FakePortInfo("/dev/ttyACM1", 0x2E8A, 0x0005, "E6614103E7"),
        FakePortInfo("/dev/ttyUSB0", 0x0403, 0x6001),          # an FTDI adapter: not a box
        FakePortInfo("/dev/ttyACM0", 0x2E8A, 0x0005),
        FakePortInfo("/dev/ttyS0", None, None)])
    assert [(p.url, p.kind) for p in D.discover()] == [("/dev/ttyACM0", "usb"), ("/dev/ttyACM1", "usb")]
    image = str(tmp_path / "sim.img")
    with Simulator(image) as sim:
        found = D.discover()
        assert [p.kind for p in found] == ["usb", "usb", "sim"] and found[2].url == sim.tty
    assert [p.kind for p in D.discover()] == ["usb", "usb"]       # a closed simulator is gone


def test_pair_needs_one_box_or_a_port(tmp_path, capsys):
    db = str(tmp_path / "judge.db")
    a, b = str(tmp_path / "a.img"), str(tmp_path / "b.img")
    boxes.fill(a, 0)
    boxes.fill(b, 0)
    with Simulator(a), Simulator(b):
        assert cli.main(["pair", "--db", db]) == 2
        assert "2 boxes found: name the one to pair with --port" in capsys.readouterr().err
    assert not os.path.exists(db) or cli.main(["results", "--db", db]) == 0


def test_a_port_that_is_not_a_box(tmp_path):
    with pytest.raises(D.DeviceError, match="cannot open the port"):
        D.Box(str(tmp_path / "nothing")).open()
    with D.Box("loop://", timeout=0.3) as box:            # our own requests come back: never an answer
        with pytest.raises(D.DeviceError, match="does not answer"):
            box.hello()
        assert box.reopened == 1
