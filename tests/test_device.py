"""Finding boxes: USB ports by the Pico's VID:PID (pyserial's port list) and the registered simulators."""
import os
import threading

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


class SwitchProxy:
    """socket://127.0.0.1:PORT in front of a box's pty: each connection goes to the pty of `target`
    as it is then; drop() closes the one open now (the cable out), so the judge's port fails."""

    def __init__(self, target):
        import socket
        self.target = target
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.url = "socket://127.0.0.1:%d" % self.srv.getsockname()[1]
        self.conn = None
        self.t = threading.Thread(target=self._serve, daemon=True)
        self.t.start()

    def _serve(self):
        import select
        while True:
            try:
                conn, _ = self.srv.accept()
            except OSError:
                return
            self.conn = conn
            fd = os.open(self.target, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                while True:
                    r, _, _ = select.select([conn, fd], [], [], 0.5)
                    if fd in r:
                        try:
                            conn.sendall(os.read(fd, 65536))
                        except BlockingIOError:
                            pass
                    if conn in r:
                        data = conn.recv(65536)
                        if not data:
                            break
                        os.write(fd, data)
            except OSError:
                pass
            finally:
                conn.close()
                os.close(fd)

    def drop(self):
        import socket
        self.conn.shutdown(socket.SHUT_RDWR)

    def close(self):
        self.srv.close()


def test_a_port_opened_again_must_still_be_the_same_box(tmp_path):
    """A cable loose for a moment: the port is opened again and the same box goes on. A box pulled
    out and another plugged in where it was (its device path is handed on): the line stops, and
    nothing meant for the first box reaches the second."""
    a, b = str(tmp_path / "a.img"), str(tmp_path / "b.img")
    boxes.fill(a, 0)
    boxes.fill(b, 0)
    with Simulator(a, register=False) as sa, Simulator(b, register=False) as sb:
        proxy = SwitchProxy(sa.tty)
        try:
            with D.Box(proxy.url, timeout=1) as box:
                who = box.hello()["device"]
                proxy.drop()                                  # loose for a moment: the same box again
                assert box.list() == ([], False) and box.reopened == 1
                proxy.target = sb.tty                         # pulled out, another one in its place
                proxy.drop()
                before = sb.info()["serial_received"]
                with pytest.raises(D.OtherBox, match="another box .* is on this port now, not %s" % who):
                    box.list()
                # the other box heard a hello (and the line breaks before it), never the list
                assert sb.info()["serial_received"] - before < 60
        finally:
            proxy.close()
