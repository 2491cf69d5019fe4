"""The simulator's flash under kill -9: a journal on a littlefs image file.

    micropython tests/mpy/simkill.py IMAGE

Mounts IMAGE with nakk.offbox.blockdev (as the simulator does), reports what
the journal holds ("have N COUNT FINISHED", checking every payload; "bad
..." if one is wrong), prints "ready", then plays matches for ever: each
event is printed as "saved N I" only after append() returned, "acked N"
after ack() returned. tests/test_powercut.py kills it at arbitrary moments
and checks the next start against what it was told.
"""
import sys

from nakk.offbox.blockdev import mount_image
from nakk.journal import Journal

EVENTS = 23  # per match: a seal or two, then an ack and a compaction


def payload(n, i):
    p = b'{"game":"suit","maker":"A","match":%d,"result":"win","seq":%d,"type":"deal","winner":"B"}' % (n, i)
    return p + b" " * (i * 13 % 90)


def main(image):
    mount_image(image, "/flash")
    j = Journal("/flash/journal")
    current = None
    count = 0
    for n, fin in j.matches():
        i = 0
        for p in j.records(n):
            if p != payload(n, i):
                print("bad", n, i)
            i += 1
        print("have", n, i, int(fin))
        if not fin:
            current, count = n, i
        elif i:
            # finished: the judge acks it now
            j.ack(n, b'{"type":"synced"}')
            print("acked", n)
    print("ready", j.fs_id)
    while True:
        if current is None:
            current, count = j.new_match(), 0
        last = count == EVENTS - 1
        j.append(current, payload(current, count), finished=last)
        print("saved", current, count)
        count += 1
        if last:
            j.ack(current, b'{"type":"synced"}')
            print("acked", current)
            current = None


main(sys.argv[1])
