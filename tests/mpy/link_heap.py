"""The heap the link costs on the box (MicroPython unix port): idle polls, and each kind of frame.

    micropython link_heap.py IMAGE

IMAGE holds finished matches and a key (tests/boxes.py fills it). The link
runs on the real journal and table; only the port is a byte queue here.
Prints one line per figure: "<name> <bytes>".
"""
import gc
import sys

from nakk import proto
from nakk.board.blockdev import mount_image
from nakk.journal import Journal
from nakk.link import Link
from nakk.table import Table


class Port:
    """The board.serial shape: readinto (None when nothing waits) and write."""

    def __init__(self):
        self.inq = bytearray()
        self.out = []

    def readinto(self, buf):
        n = len(self.inq)
        if not n:
            return None
        if n > len(buf):
            n = len(buf)
        buf[:n] = self.inq[:n]
        self.inq[:n] = b""
        return n

    def write(self, data):
        self.out.append(bytes(data))
        return len(data)


class Board:
    def __init__(self):
        self.serial = Port()

    def device_id(self):
        return "heap-test"


class App:
    def __init__(self, root):
        self.journal = Journal(root)
        self.table = Table(self.journal)
        self.table.resume()
        self.assignment_path = root + "/assignment.json"
        self.changed = 0

    def journal_changed(self):
        self.changed += 1


def frame_cost(link, port, line):
    """Heap allocated while the link reads one request and answers it (garbage included)."""
    gc.collect()
    port.inq[:] = line
    gc.collect()
    a = gc.mem_alloc()
    while port.inq:
        link.poll()
    link.poll()
    b = gc.mem_alloc()
    port.out.clear()
    return b - a


def main(argv):
    bdev = mount_image(argv[0], "/flash")
    app = App("/flash/journal")
    board = Board()
    link = Link(app, board)
    port = board.serial
    for _ in range(3):
        link.poll()
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    for _ in range(1000):
        link.poll()
    idle = gc.mem_alloc() - a
    print("idle_poll_total_1000", idle)
    n = app.journal.matches()[0][0]
    print("frame_hello", frame_cost(link, port, proto.request(1, "hello", {"nonce": "0123456789abcdef"})))
    print("frame_list", frame_cost(link, port, proto.request(2, "list")))
    print("frame_get_first", frame_cost(link, port, proto.request(3, "get", {"n": n, "off": 0})))
    print("frame_get_next", frame_cost(link, port, proto.request(4, "get", {"n": n, "off": 100})))
    print("frame_noise_line", frame_cost(link, port, b"x" * 200 + b"\n"))
    print("frame_damaged", frame_cost(link, port, b"~N{\"id\":1}~00000000\n"))
    gc.enable()
    gc.collect()
    a = gc.mem_alloc()
    other = Link(app, board)
    gc.collect()
    print("link_object", gc.mem_alloc() - a)
    import vfs
    vfs.umount("/flash")
    bdev.close()


main(sys.argv[1:])
