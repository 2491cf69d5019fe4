"""A box for the link's MicroPython checks: the real journal and table behind a byte-queue port.

link_check.py and link_heap.py run nakk.link.task.Link against this; only the
port (a byte queue) and the board's maintenance reset (recorded, not done)
stand in for the Pico's.
"""
from nakk.journal import Journal
from nakk.table import Table


class Port:
    """The board.serial shape: readinto (None when nothing waits) and write."""

    def __init__(self):
        self.inq = bytearray()
        self.out = []

    def readinto(self, buf):
        n = min(len(self.inq), len(buf))
        if not n:
            return None
        buf[:n] = self.inq[:n]
        self.inq[:n] = b""
        return n

    def write(self, data):
        self.out.append(bytes(data))
        return len(data)


class Board:
    def __init__(self, device="check"):
        self.serial = Port()
        self.device = device
        self.asked = []          # how many writes had been made when maintenance was asked

    def device_id(self):
        return self.device

    def request_maintenance(self):
        self.asked.append(len(self.serial.out))


class App:
    """What the link needs of nakk.app.App, built as App builds it at boot."""

    def __init__(self, root):
        self.root = root
        self.journal = Journal(root)
        self.table = Table(self.journal)
        self.table.resume()
        self.table.waiting()      # as App does at boot (it reads each finished match's start once)
        self.assignment_path = root + "/assignment.json"
        self.changed = 0

    def journal_changed(self):
        self.changed += 1
