"""MicroPython: put on a LittleFS image what a season of tournaments can leave there, for the whole-box boot tests.

Usage: micropython tests/mpy/box_faults.py IMAGE ACTION [ARG]
  play N         a saare-2020 match with N entries (deals and redeals, still open), journaled
                 as the box does it (Table)
  flip SEQ       flip one bit in the payload of the record of event SEQ of the latest match
                 (in whichever file holds it: the body or an open segment), written back
                 through the filesystem, as a bit gone bad in a data block reads
  newer SEQ      the record of event SEQ becomes a record of journal format 2 (valid CRC)
  raw JSONL      a new match whose records are the lines of the file JSONL, as they are
  idnewer        the journal's id file says format 2
  ls             nothing: only the match numbers on the image
  noindex        the journal's index removed, as on a box whose journal a firmware before the
                 index wrote
  file NAME TEXT /flash/NAME holds TEXT (settings.json, journal/assignment.json)
  edge MOST      a file fills the flash, then a match's entries (a deal, its undo, ...) are
                 journaled until one is refused (at most MOST): prints "refused <seq>"
Prints "ok", whether the journal has its index ("index yes") and the match numbers on the
image ("matches 1 2", the last line).
"""
import os
import sys

import vfs

from nakk import record
from nakk.offbox.blockdev import mount_image
from nakk.journal import Journal, write_atomic
from nakk.table import Table

from flashfill import fill

ROOT = "/flash/journal"


def play(n):
    t = Table(Journal(ROOT))
    assert t.start({"ruleset": "saare-2020", "table": 1, "round": 1, "first_shuffler": 0,
                    "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]})
    assert t.flush()
    for i in range(n):
        side = "AB"[i % 2]
        # every other entry a redeal, the rest suit games won by their makers (2 nakks):
        # a long match that stays open
        if i % 2:
            t.submit({"type": "redeal", "reason": "misdeal"})
        else:
            t.submit({"type": "deal", "game": "suit", "maker": "AB"[i // 2 % 2], "result": "win",
                      "winner": "AB"[i // 2 % 2]})
        assert t.flush(), t.error
    assert not t.match.st.over


def edge(most):
    """A match on a full flash, its entries undone and entered again (a deal, its cancel, ...)
    until the journal refuses one: the flash is then full for the next entry too."""
    from nakk.journal import JournalError
    t = Table(Journal(ROOT))
    assert t.start({"ruleset": "saare-2020", "table": 1, "round": 1, "first_shuffler": 0,
                    "sides": [{"id": "A", "name": "A"}, {"id": "B", "name": "B"}]})
    assert t.flush()
    fill()
    for i in range(most):
        if i % 2:
            t.submit({"type": "cancel", "target": t.match.seq})
        else:
            t.submit({"type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"})
        try:
            ok = t.flush()
        except JournalError:     # (before issue 9's fix, Table.flush let it through)
            ok = False
        if not ok:
            print("refused", i + 2, t.error)
            return
    raise SystemExit("the flash never filled up")


def _find(seq):
    """(path, offset of the payload, payload length) of the record of event seq in the latest match."""
    j = Journal(ROOT)
    n = j.matches()[-1][0]
    d = "%s/m%06d" % (ROOT, n)
    want = b'"seq":%d,' % seq
    names = os.listdir(d)
    for name in (["body"] if "body" in names else []) + sorted(x for x in names if x != "body"):
        with open(d + "/" + name, "rb") as f:
            data = f.read()
        pos = 0
        while pos + record.OVERHEAD <= len(data):
            nxt = record.parse(data, pos, len(data))
            if nxt <= 0:
                pos += 1
                continue
            payload = data[pos + 4:nxt - 4]
            if want in payload and data[pos + 1] != record.META:
                return d + "/" + name, pos, nxt - pos
            pos = nxt
    raise SystemExit("no record of seq %d" % seq)


def _rewrite(path, pos, new):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[pos:pos + len(new)] = new
    write_atomic(path, bytes(data))


def flip(seq):
    path, pos, size = _find(seq)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[pos + 4 + size // 3] ^= 0x10      # one bit inside the payload
    write_atomic(path, bytes(data))


def newer(seq):
    path, pos, size = _find(seq)
    with open(path, "rb") as f:
        data = f.read()
    payload = data[pos + 4:pos + size - 4]
    rec = bytearray(record.encode(data[pos + 1], payload))
    rec[0] = 2                              # the format version byte...
    crc = record.crc32(bytes(rec[:-4]))     # ...and a CRC that is right for it
    rec[-4:] = bytes(((crc >> s) & 0xFF) for s in (0, 8, 16, 24))
    _rewrite(path, pos, bytes(rec))


def raw(path):
    j = Journal(ROOT)
    n = j.new_match()
    with open(path, "rb") as f:
        lines = [line.strip() for line in f if line.strip()]
    for line in lines:
        j.append(n, line)


def idnewer():
    Journal(ROOT)                            # make sure it exists
    write_atomic(ROOT + "/id", record.encode(record.META, b"nakk-journal 2 0123456789abcdef"))


def main(argv):
    image, action = argv[0], argv[1]
    bdev = mount_image(image, "/flash")
    try:
        if action == "play":
            play(int(argv[2]))
        elif action == "flip":
            flip(int(argv[2]))
        elif action == "newer":
            newer(int(argv[2]))
        elif action == "raw":
            raw(argv[2])
        elif action == "edge":
            edge(int(argv[2]))
        elif action == "file":
            Journal(ROOT)                    # the journal's folder exists, as on any box
            write_atomic("/flash/" + argv[2], argv[3].encode())
        elif action == "ls":
            pass
        elif action == "idnewer":
            idnewer()
        elif action == "noindex":
            os.remove(ROOT + "/index")
        else:
            raise SystemExit("unknown action " + action)
        names = sorted(x for x in os.listdir(ROOT) if x.startswith("m"))
        print("ok")
        print("index", "yes" if "index" in os.listdir(ROOT) else "no")
        print("matches", " ".join(str(int(x[1:])) for x in names))   # last: tests split on it
    finally:
        vfs.umount("/flash")
        bdev.close()


if __name__ == "__main__":
    main(sys.argv[1:])
