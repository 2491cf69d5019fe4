"""Write finished matches (and optionally a pairing key) into a simulator's flash image, with the firmware's own journal.

    micropython fill_journal.py IMAGE LINES COUNT [KEYHEX]

LINES holds one match: each line "E <event>" or "F <event>" (F: the match is
finished after it, as the app marks it). The match is written COUNT times,
each under its own match number (the setup's "match" field follows it).
With KEYHEX the box is paired with that key, as the link stores it.
"""
import sys

from nakk import record
from nakk.board.blockdev import mount_image
from nakk.event import encode, parse
from nakk.journal import Journal, write_atomic

MOUNT = "/flash"


def main(argv):
    image, lines_path, count = argv[0], argv[1], int(argv[2])
    with open(lines_path, "rb") as f:
        lines = [l for l in f.read().split(b"\n") if l.strip()]
    bdev = mount_image(image, MOUNT)
    try:
        j = Journal(MOUNT + "/journal")
        for _ in range(count):
            n = j.new_match()
            for line in lines:
                ev = parse(line[2:])
                if ev["type"] == "setup":
                    ev["match"] = n
                j.append(n, encode(ev), finished=line[0] == 0x46)
        if len(argv) > 3:
            write_atomic(MOUNT + "/journal/key", record.encode(record.META, b"nakk-key 1 " + argv[3].encode()))
        print(j.fs_id, " ".join(str(m[0]) for m in j.matches()))
    finally:
        import vfs
        vfs.umount(MOUNT)
        bdev.close()
    return 0


sys.exit(main(sys.argv[1:]))
