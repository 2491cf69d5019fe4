"""The link's handling of control bytes and maintenance requests, on the MicroPython unix port.

    micropython link_check.py PAIRED_IMAGE KEY_HEX UNPAIRED_IMAGE

Runs nakk.link.task.Link on the real journal with a board whose port is a byte
queue and whose request_maintenance() only records that it was asked (the
Pico's writes a flag and resets). Prints "PASS name" / "FAIL name: why".
"""
import sys

from nakk.link import proto
from nakk.offbox.blockdev import mount_image
from nakk.link.task import Link

from nakk.event import encode
from nakk.link.sign import hmac_sha256

from linkbox import App, Board


def signed(rid, cmd, fields, key, link, challenge=None):
    """A request signed as the judge's tool signs it (nakk_host.device.Box.signed)."""
    body = dict(fields)
    body["cmd"] = cmd
    body["challenge"] = link.challenge if challenge is None else challenge
    mac = hmac_sha256(key, proto.signed_msg(link.device, link.journal.fs_id, encode(body)))
    out = dict(fields)
    out["challenge"] = body["challenge"]
    out["mac"] = proto.hexlify(mac).decode()
    return proto.request(rid, cmd, out)


def exists(path):
    import os
    try:
        os.stat(path)
        return True
    except OSError:
        return False


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


def box(image):
    """The image's filesystem at /flash and a link on it: (block device, app, board, link, port)."""
    bdev = mount_image(image, "/flash")
    app = App("/flash/journal")
    board = Board()
    return bdev, app, board, Link(app, board), board.serial


def main(argv):
    key = proto.unhexlify(argv[1])
    bdev, app, board, link, port = box(argv[0])

    feed(link, port, b"\x03\x03\x04\x04")
    check("ctrl_c_and_ctrl_d_alone_are_ignored", not board.asked and not port.out, repr(port.out))

    feed(link, port, b"\x03" + proto.request(5, "list"))
    a = answers(port)
    check("a_frame_after_ctrl_c_is_answered", len(a) == 1 and a[0]["id"] == 5 and a[0]["ok"], repr(a))

    line = proto.request(6, "list")
    feed(link, port, line[:10] + b"\x03" + line[10:])
    a = answers(port)
    check("ctrl_c_inside_a_frame_damages_it", len(a) == 1 and a[0]["error"] == "damaged" and a[0]["id"] == 0, repr(a))

    # a paired box: bytes alone never reach maintenance mode, nor an unsigned or replayed request
    feed(link, port, b"\r\x03\r\x01")
    a = answers(port)
    check("mpremote_sequence_is_refused_by_a_paired_box", board.asked == [] and link.rejected == 1
          and [x["error"] for x in a] == ["bad-mac"], repr((board.asked, a)))

    board.asked[:] = []
    feed(link, port, b"\r\x03\x03\r\x01x\r\x03\r")
    check("near_misses_do_not", board.asked == [] and link.rejected == 1, repr(board.asked))

    feed(link, port, proto.request(7, "repl"))
    feed(link, port, signed(20, "repl", {}, b"k" * 32, link))               # another key
    feed(link, port, signed(21, "repl", {}, key, link, challenge="0" * 16))  # an old challenge
    a = answers(port)
    check("unsigned_or_wrongly_signed_repl_is_refused", board.asked == [] and link.rejected == 4
          and [x["error"] for x in a] == ["bad-mac"] * 3, repr((board.asked, a)))

    good = signed(22, "repl", {}, key, link)
    feed(link, port, good)
    a = answers(port)
    check("signed_repl_answers_then_resets", len(board.asked) == 1 and board.asked[0] > 0
          and a[0]["maintenance"] is True, repr((board.asked, a)))

    board.asked[:] = []
    feed(link, port, good)                                                  # the same bytes again
    a = answers(port)
    check("a_replayed_repl_is_refused", board.asked == [] and a[0]["error"] == "bad-mac" and link.rejected == 5,
          repr((board.asked, a)))

    assignment = {"ruleset": "saare-2020", "table": 2, "round": 1, "tournament": "t", "clock": 1000000000,
                  "sides": [{"id": "A", "name": "Mets"}, {"id": "B", "name": "Saar"}]}
    feed(link, port, proto.request(23, "assign", assignment))
    a = answers(port)
    check("unsigned_assign_changes_nothing", a[0]["error"] == "bad-mac" and not exists(app.assignment_path)
          and link.clock_offset == 0 and link.rejected == 6, repr(a))
    good = signed(24, "assign", assignment, key, link)
    feed(link, port, good)
    feed(link, port, good)
    a = answers(port)
    check("signed_assign_once_then_replay_refused", a[0].get("assigned") is True and a[1]["error"] == "bad-mac"
          and exists(app.assignment_path) and link.rejected == 7, repr(a))
    feed(link, port, proto.request(25, "hello"))
    a = answers(port)
    check("hello_counts_what_was_refused", a[0]["rejected"] == 7 and len(a[0]["challenge"]) == 16, repr(a))

    board.asked[:] = []
    feed(link, port, proto.request(8, "bogus") + proto.request(9, "get", {"n": "x"}) + b"~N{}~00000000\n")
    a = answers(port)
    check("bad_requests_get_error_frames", [x.get("error") for x in a] == ["unknown-command", "bad-request", "damaged"],
          repr(a))

    import vfs
    vfs.umount("/flash")
    bdev.close()

    # an unpaired box (a fresh one, flashed so): mpremote's bytes and an unsigned repl reach maintenance
    bdev, app, board, link, port = box(argv[2])
    feed(link, port, b"\r\x03\r\x01")
    check("mpremote_sequence_asks_an_unpaired_box_for_maintenance", board.asked == [0], repr(board.asked))
    board.asked[:] = []
    feed(link, port, proto.request(7, "repl"))
    check("unpaired_box_takes_an_unsigned_repl", len(board.asked) == 1 and answers(port)[0]["maintenance"] is True,
          repr(board.asked))
    feed(link, port, proto.request(8, "assign", assignment))
    a = answers(port)
    check("unpaired_box_takes_no_assignment", a[0]["error"] == "not-paired" and not exists(app.assignment_path),
          repr(a))
    vfs.umount("/flash")
    bdev.close()


main(sys.argv[1:])
