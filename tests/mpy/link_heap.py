"""The heap the link costs on the box (MicroPython unix port): idle polls, and each kind of frame.

    micropython link_heap.py IMAGE

IMAGE holds finished matches and a key (tests/boxes.py fills it). The link
runs on the real journal and table; only the port is a byte queue here.
Prints one line per figure: "<name> <bytes>".
"""
import gc
import sys

from nakk.link import proto
from nakk.offbox.blockdev import mount_image
from nakk.link.task import Link

from linkbox import App, Board


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
    board = Board("heap-test")
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
