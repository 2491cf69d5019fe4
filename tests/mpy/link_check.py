"""The link's handling of control bytes and maintenance requests, on the MicroPython unix port.

    micropython link_check.py IMAGE

Runs nakk.link.Link on the real journal with a board whose port is a byte
queue and whose request_maintenance() only records that it was asked (the
Pico's writes a flag and resets). Prints "PASS name" / "FAIL name: why".
"""
import sys

from nakk import proto
from nakk.board.blockdev import mount_image
from nakk.link import Link

from linkbox import App, Board


def feed(link, port, data):
    port.inq[:] = data
    while port.inq:
        link.poll()
    link.poll()


def answers(port):
    out = b"".join(port.out).split(b"\n")
    port.out[:] = []
    return [proto.decode_frame(l) for l in out if l]


def check(name, ok, why=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def main(argv):
    bdev = mount_image(argv[0], "/flash")
    app = App("/flash/journal")
    board = Board()
    link = Link(app, board)
    port = board.serial

    feed(link, port, b"\x03\x03\x04\x04")
    check("ctrl_c_and_ctrl_d_alone_are_ignored", not board.asked and not port.out, repr(port.out))

    feed(link, port, b"\x03" + proto.request(5, "list"))
    a = answers(port)
    check("a_frame_after_ctrl_c_is_answered", len(a) == 1 and a[0]["id"] == 5 and a[0]["ok"], repr(a))

    line = proto.request(6, "list")
    feed(link, port, line[:10] + b"\x03" + line[10:])
    a = answers(port)
    check("ctrl_c_inside_a_frame_damages_it", len(a) == 1 and a[0]["error"] == "damaged" and a[0]["id"] == 0, repr(a))

    feed(link, port, b"\r\x03\r\x01")
    check("mpremote_sequence_asks_for_maintenance", board.asked == [0], repr(board.asked))

    board.asked[:] = []
    feed(link, port, b"\r\x03\x03\r\x01x\r\x03\r")
    check("near_misses_do_not", board.asked == [], repr(board.asked))

    feed(link, port, proto.request(7, "repl"))
    check("repl_answers_then_resets", len(board.asked) == 1 and board.asked[0] > 0 and answers(port)[0]["maintenance"] is True,
          repr(board.asked))

    board.asked[:] = []
    feed(link, port, proto.request(8, "bogus") + proto.request(9, "get", {"n": "x"}) + b"~N{}~00000000\n")
    a = answers(port)
    check("bad_requests_get_error_frames", [x.get("error") for x in a] == ["unknown-command", "bad-request", "damaged"],
          repr(a))

    import vfs
    vfs.umount("/flash")
    bdev.close()


main(sys.argv[1:])
