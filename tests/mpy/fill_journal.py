"""Write finished matches (and optionally a pairing key) into a simulator's flash image, with the firmware's own journal.

    micropython fill_journal.py IMAGE LINES COUNT [KEYHEX] [open] [live=HOST:PORT] [blocks=N]

LINES holds one match: each line "E <event>" or "F <event>" (F: the match is
finished after it, as the app marks it). The match is written COUNT times,
each under its own match number (the setup's "match" field follows it);
COUNT `full` writes it until the journal refuses another match (JournalFull:
a full box). With `open` the last match is left in play: only its events
before the first F line (with `full` it is written where another whole
match would leave less than two matches' room above the journal's reserve).
With KEYHEX the box is paired with that key, as the link stores it; with live=HOST:PORT it
is given a network for the live scores, as a pairing with --wifi stores it; blocks=N: a filesystem
of N 4 KiB blocks (a Pico W's: 212) instead of the Pico's 352.
"""
import sys

from nakk import record
from nakk.offbox.blockdev import mount_image
from nakk.event import encode, parse
from nakk.journal import Journal, JournalFull, write_atomic

MOUNT = "/flash"


def main(argv):
    blocks = [int(a[7:]) for a in argv if a.startswith("blocks=")]
    argv = [a for a in argv if not a.startswith("blocks=")]
    open_last = "open" in argv
    if open_last:
        argv = [a for a in argv if a != "open"]
    image, lines_path = argv[0], argv[1]
    count = -1 if argv[2] == "full" else int(argv[2])   # -1: until JournalFull
    with open(lines_path, "rb") as f:
        lines = [l for l in f.read().split(b"\n") if l.strip()]
    unfinished = []
    for line in lines:
        if line[0] == 0x46:
            break
        unfinished.append(line)
    bdev = mount_image(image, MOUNT, *blocks)
    try:
        j = Journal(MOUNT + "/journal")
        made = 0
        per = 0           # flash one match takes (learnt from the first)
        last = False
        while not last and (count < 0 or made < count):
            if open_last:
                last = made == count - 1 or (count < 0 and per > 0 and j.free_bytes() - j.reserve < 3 * per)
            free = j.free_bytes()
            try:
                n = j.new_match()
            except JournalFull:
                if count >= 0:
                    raise
                break
            made += 1
            for line in (unfinished if last else lines):
                ev = parse(line[2:])
                if ev["type"] == "setup":
                    ev["match"] = n
                # tagged as the app tags a match as it finishes (nakk/table.py: 1, a setup closed
                # at once; else 0), so the box's boot counts it from the journal's index
                j.append(n, encode(ev), finished=line[0] == 0x46,
                         tag=1 if ev["seq"] == 2 and ev["type"] == "close" else 0)
            if not per:
                per = free - j.free_bytes()
        live = [a[5:] for a in argv if a.startswith("live=")]
        argv = [a for a in argv if not a.startswith("live=")]
        if live:      # the network for the live scores, as nakk.pairing stores it (docs/live.md)
            from nakk.link import net
            write_atomic(MOUNT + "/journal/net", net.config_record("nakk-test", "salasõna-123", live[0]))
        if len(argv) > 3:
            write_atomic(MOUNT + "/journal/key", record.encode(record.META, b"nakk-key 1 " + argv[3].encode()))
        print(j.fs_id, " ".join(str(m[0]) for m in j.matches()))
    finally:
        import vfs
        vfs.umount(MOUNT)
        bdev.close()
    return 0


sys.exit(main(sys.argv[1:]))
