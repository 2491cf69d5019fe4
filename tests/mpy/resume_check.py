"""MicroPython: a match journaled on a LittleFS image, then the box restarts: the fold of the journal is where it was.

Usage: micropython tests/mpy/resume_check.py IMAGE EVENTS.jsonl CUT
Journals the first CUT events, unmounts (the restart), mounts again, folds
the journal's records with nakk.match (cancel re-reads them from flash) and
prints the summary as canonical JSON, then the summary of folding the same
events straight from the file, for the test to compare.
"""
import sys

import vfs

from nakk.offbox.blockdev import mount_image
from nakk.event import encode, parse
from nakk.journal import Journal
from nakk.match import Match

image, path, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path) as f:
    lines = [l.strip().encode() for l in f if l.strip()][:cut]

bdev = mount_image(image, "/flash")
j = Journal("/flash/journal")
n = j.new_match()
m = Match()
for line in lines:
    ev = parse(line)
    m.apply(ev)
    j.append(n, encode(ev), finished=m.st.over)
vfs.umount("/flash")
bdev.close()

# the restart
bdev = mount_image(image, "/flash")
j = Journal("/flash/journal")
n = j.matches()[-1][0]
resumed = Match(lambda: (parse(r) for r in j.records(n)))
for rec in j.records(n):
    resumed.apply(parse(rec))
print(encode(resumed.summary()).decode())
straight = Match()
for line in lines:
    straight.apply(parse(line))
print(encode(straight.summary()).decode())
print("finished=%d" % (1 if j.finished(n) else 0))
