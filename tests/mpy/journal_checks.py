"""Journal checks that run under MicroPython on littlefs v2 over a simulated
NOR flash (or the simulator's image file).

    micropython tests/mpy/journal_checks.py NAME [NAME ...]

Prints "OK NAME" or "FAIL NAME: why" for each; tests/test_journal.py runs
them one by one.
"""
import gc
import os
import sys
import vfs
import micropython

from norflash import NorFlash
from nakk import record
from nakk.journal import Journal, JournalError, JournalFull, write_atomic

MOUNT = "/jc"
ROOT = MOUNT + "/journal"


class Failed(Exception):
    pass


def expect(cond, what="check failed"):
    if not cond:
        raise Failed(what)


def fresh(blocks=64):
    flash = NorFlash(blocks)
    vfs.VfsLfs2.mkfs(flash, progsize=256)
    vfs.mount(vfs.VfsLfs2(flash, progsize=256), MOUNT)
    return flash


def remount(flash):
    vfs.umount(MOUNT)
    gc.collect()
    vfs.mount(vfs.VfsLfs2(flash, progsize=256), MOUNT)


def payload(i, size=None):
    """A deal event; with size, an event of exactly that many bytes (>= 24)."""
    if size is None:
        return b'{"game":"suit","maker":"A","result":"win","seq":%d,"type":"deal","winner":"A"}' % i
    head = b'{"seq":%d,"type":"deal","x":"' % i
    p = head + b"y" * (size - len(head) - 2) + b'"}'
    expect(len(p) == size, "payload size %d != %d" % (len(p), size))
    return p


def segments(n):
    return sorted(os.listdir("%s/m%06d" % (ROOT, n)))


# ---------------------------------------------------------------- checks

def check_roundtrip():
    flash = fresh()
    j = Journal(ROOT)
    n = j.new_match()
    expect(n == 1, "first match is %d" % n)
    sizes = [40, 77, 200, 130, 600, 2048, 0, 90] + [60 + (i * 37) % 140 for i in range(60)]
    want = []
    for i, s in enumerate(sizes):
        p = payload(i, s) if s >= 60 else b"x" * s
        want.append(p)
        j.append(n, p, finished=(i == len(sizes) - 1))
    got = list(j.records(n))
    expect(got == want, "records differ")
    recs = j.records(n)
    expect(list(recs) == list(recs) == want, "not re-iterable")
    kinds = [k for k, p in j.records(n, kinds=True)]
    expect(kinds == [record.EVENT] * (len(sizes) - 1) + [record.FINISHED], "kinds")
    expect(j.head(n, 3) == want[:3] and j.head(n, 1000) == want, "head")
    expect(j.head(n, 2) == want[:2], "head after a head left early")
    expect(j.matches() == [(1, True)], "matches %r" % (j.matches(),))
    # segments stay inline (<= SEG_MAX) except the ones holding a big record
    d = "%s/m%06d" % (ROOT, n)
    for name in segments(n):
        size = os.stat(d + "/" + name)[6]
        expect(size <= j.seg_max or size > 600, "segment %s has %d bytes" % (name, size))
    try:
        j.append(n, b"x" * (record.MAX_PAYLOAD + 1))
        expect(False, "an oversized payload was accepted")
    except ValueError:
        pass
    try:
        j.append(99, b"{}")
        expect(False, "append to an unknown match")
    except JournalError:
        pass
    try:
        j.head(99, 1)
        expect(False, "head of an unknown match")
    except JournalError:
        pass
    expect(list(j.records(n)) == want, "a refused append changed the match")


def check_resume():
    flash = fresh()
    j = Journal(ROOT)
    fs_id = j.fs_id
    a = j.new_match()
    for i in range(10):
        j.append(a, payload(i), finished=(i == 9))
    b = j.new_match()
    for i in range(7):
        j.append(b, payload(100 + i))
    segs = segments(b)
    remount(flash)
    j = Journal(ROOT)
    expect(j.fs_id == fs_id, "fs_id changed")
    expect(j.matches() == [(a, True), (b, False)], "matches %r" % (j.matches(),))
    expect(list(j.records(b)) == [payload(100 + i) for i in range(7)], "match b")
    j.append(b, payload(107))
    expect(segments(b) == segs, "resumed append opened a new segment: %r -> %r"
           % (segs, segments(b)))
    expect(list(j.records(b))[-1] == payload(107), "append after resume")
    expect(j.new_match() == b + 1, "numbering")


def check_fs_id():
    fresh()
    j = Journal(ROOT)
    fid = j.fs_id
    expect(len(fid) == 16 and all(c in "0123456789abcdef" for c in fid), "fs_id %r" % fid)
    expect(j.result_id(3) == fid + "-3", "result_id")
    expect(not [x for x in os.listdir(ROOT) if x.endswith(".tmp")], "temp file left")
    vfs.umount(MOUNT)
    ids = set([fid])
    for _ in range(3):
        fresh()  # a reformatted box
        ids.add(Journal(ROOT).fs_id)
        vfs.umount(MOUNT)
    expect(len(ids) == 4, "a reformatted box reused its id")


def check_stale_tmp():
    flash = fresh()
    j = Journal(ROOT)
    with open(ROOT + "/next.tmp", "wb") as f:
        f.write(b"half written")
    write_atomic(MOUNT + "/settings.json", b'{"a":1}')
    write_atomic(MOUNT + "/settings.json", b'{"a":2}')
    expect(open(MOUNT + "/settings.json", "rb").read() == b'{"a":2}', "write_atomic")
    expect("settings.json.tmp" not in os.listdir(MOUNT), "write_atomic left its temp file")
    remount(flash)
    Journal(ROOT)
    expect("next.tmp" not in os.listdir(ROOT), "stale temp file not removed")


def check_corrupt_tail():
    flash = fresh()
    j = Journal(ROOT)
    n = j.new_match()
    want = [payload(i) for i in range(12)]
    for p in want:
        j.append(n, p)
    last = segments(n)[-1]
    path = "%s/m%06d/%s" % (ROOT, n, last)
    # a torn record: its header and half of its payload
    rec = record.encode(record.EVENT, payload(12))
    with open(path, "ab") as f:
        f.write(rec[:len(rec) // 2])
    remount(flash)
    j = Journal(ROOT)
    expect(list(j.records(n)) == want, "torn tail hid or changed records")
    expect(n in j.damaged, "torn tail not reported")
    j.append(n, payload(13))
    expect(list(j.records(n)) == want + [payload(13)], "record after a torn tail")
    expect(segments(n)[-1] != last, "appended after the torn tail")
    # garbage (a flipped bit in the CRC) at the end of the newest segment
    last = segments(n)[-1]
    path = "%s/m%06d/%s" % (ROOT, n, last)
    rec = bytearray(record.encode(record.EVENT, payload(14)))
    rec[-1] ^= 0x10
    with open(path, "ab") as f:
        f.write(rec)
    remount(flash)
    j = Journal(ROOT)
    expect(list(j.records(n)) == want + [payload(13)], "corrupt CRC accepted or hid records")
    j.append(n, payload(15), finished=True)
    remount(flash)
    j = Journal(ROOT)
    expect(list(j.records(n)) == want + [payload(13), payload(15)], "after restart")
    expect(j.matches() == [(n, True)], "state")


def _flip(path, k):
    # flip one bit in the payload of the k-th record of a file
    with open(path, "rb") as f:
        data = bytearray(f.read())
    pos = 0
    for _ in range(k):
        pos += (data[pos + 2] | (data[pos + 3] << 8)) + record.OVERHEAD
    data[pos + 10] ^= 0x04
    with open(path, "wb") as f:
        f.write(data)
    return pos


def check_sealing():
    flash = fresh()
    j = Journal(ROOT)
    n = j.new_match()
    want = []
    for i in range(60):
        want.append(payload(i, 100 + i))
        j.append(n, want[-1], finished=(i >= 50))
        expect(list(j.records(n)) == want, "records after append %d" % i)
    d = "%s/m%06d" % (ROOT, n)
    names = os.listdir(d)
    expect("body" in names, "nothing sealed: %r" % (names,))
    expect(len(names) <= j.seal_segs + 2, "segments not deleted: %r" % (names,))
    body = os.stat(d + "/body")[6]
    expect(body > 512 * 2, "body only %d bytes" % body)
    kinds = [k for k, p in j.records(n, kinds=True)]
    expect(kinds == [record.EVENT] * 50 + [record.FINISHED] * 10, "kinds after sealing")
    remount(flash)
    j = Journal(ROOT)
    expect(list(j.records(n)) == want and j.matches() == [(n, True)], "after restart")
    # a segment whose deletion was cut short after the seal: skipped, then removed
    leftover = d + "/0000"
    with open(leftover, "wb") as f:
        f.write(record.encode(record.EVENT, payload(0, 100)))
    expect(list(j.records(n)) == want, "a sealed leftover segment was read")
    remount(flash)
    j = Journal(ROOT)
    # the index has the match as finished: the start reads nothing of it; the first read of its
    # tail removes the leftover (a journal without an index does at start)
    expect("0000" in os.listdir(d), "a finished match's tail was read at start")
    expect(list(j.records(n)) == want, "records")
    expect("0000" not in os.listdir(d), "leftover segment not removed when the tail was read")
    with open(leftover, "wb") as f:
        f.write(record.encode(record.EVENT, payload(0, 100)))
    remount(flash)
    Journal(ROOT, index=False)
    expect("0000" not in os.listdir(d), "leftover segment not removed at start")
    j = Journal(ROOT)
    expect(list(j.records(n)) == want, "records")
    expect(not j.damaged, "damage %r" % (j.damaged,))
    # a body whose seal record at the end is damaged: the state still comes out
    size = os.stat(d + "/body")[6]
    with open(d + "/body", "rb") as f:
        data = bytearray(f.read())
    data[size - 3] ^= 0xFF
    with open(d + "/body", "wb") as f:
        f.write(data)
    remount(flash)
    j = Journal(ROOT)
    expect(list(j.records(n)) == want, "a damaged seal record lost records")
    expect(j.matches() == [(n, True)], "state with a damaged seal")
    j.append(n, payload(60))
    expect(list(j.records(n)) == want + [payload(60)], "append")


def check_corrupt_middle():
    flash = fresh()
    j = Journal(ROOT)
    n = j.new_match()
    want = [payload(i, 120) for i in range(40)]
    for p in want:
        j.append(n, p)
    d = "%s/m%06d" % (ROOT, n)
    segs = [x for x in os.listdir(d) if x != "body"]
    segs.sort()
    expect("body" in os.listdir(d) and len(segs) >= 2, "layout %r" % (os.listdir(d),))
    with open(d + "/body", "rb") as f:
        sealed = len([r for r in record.decode_all(f.read())[0] if r[0] != record.META])
    _flip(d + "/body", 5)       # the 6th record of the match
    _flip(d + "/" + segs[0], 1)  # the 2nd record of the first open segment
    lost = [want[5], want[sealed + 1]]
    remount(flash)
    j = Journal(ROOT)
    got = list(j.records(n))
    expect(j.damaged.get(n) == 2, "damage %r" % (j.damaged,))
    expect(got == [p for p in want if p not in lost], "%d records of %d" % (len(got), len(want)))
    j.append(n, payload(40))
    expect(list(j.records(n))[-1] == payload(40), "append after middle damage")


def check_ack():
    flash = fresh()
    j = Journal(ROOT)
    free0 = j.free_bytes()
    a = j.new_match()
    for i in range(40):
        j.append(a, payload(i, 150), finished=(i == 39))
    b = j.new_match()
    j.append(b, payload(0))
    try:
        j.ack(b, b'{"type":"synced"}')
        expect(False, "an unfinished match was acked")
    except JournalError:
        pass
    used = free0 - j.free_bytes()
    j.ack(a, b'{"seq":40,"type":"synced"}')
    expect(j.matches() == [(b, False)], "matches after ack %r" % (j.matches(),))
    expect(sorted(os.listdir(ROOT)) == ["id", "index", "m%06d" % b, "next"], "files %r" % (os.listdir(ROOT),))
    expect(free0 - j.free_bytes() < used, "compaction freed nothing")
    try:
        j.append(a, payload(41))
        expect(False, "append to a compacted match")
    except JournalError:
        pass
    # an unfinished match closed by the judge keeps its deals
    j.append(b, payload(1))
    j.append(b, b'{"reason":"rescue","seq":2,"type":"close"}', finished=True)
    remount(flash)
    j = Journal(ROOT)
    expect(list(j.records(b)) == [payload(0), payload(1), b'{"reason":"rescue","seq":2,"type":"close"}'],
           "closed match lost deals")
    expect(j.matches() == [(b, True)], "closed match not finished")
    j.ack(b, b'{"type":"synced"}')
    expect(j.matches() == [], "all acked")
    # numbers are never reused, even with every match compacted away
    remount(flash)
    j = Journal(ROOT)
    expect(j.new_match() == b + 1, "match number reused after compaction")
    # an ack record on flash whose compaction did not happen (a journal before the index put
    # the record first, then renamed): done at start
    c = b + 1
    jo = Journal(ROOT, index=False)
    jo.append(c, payload(0), finished=True)
    jo._put(c, jo._tail(c), record.encode(record.ACK, b'{"type":"synced"}'))
    remount(flash)
    j = Journal(ROOT)
    expect(j.matches() == [], "pending compaction not finished at start")
    # the same on a match the index names (an ack on a flash too full to rename or to rewrite
    # the index): listed until it is asked about, then compacted
    c = j.new_match()
    j.append(c, payload(0), finished=True)
    j._put(c, j._tail(c), record.encode(record.ACK, b'{"type":"synced"}'))
    remount(flash)
    j = Journal(ROOT)
    expect(j.matches() == [(c, True)], "the index's word %r" % (j.matches(),))
    expect(not j.finished(c) and j.matches() == [] and not j.has(c), "acked match not compacted when asked")
    remount(flash)
    j = Journal(ROOT)
    expect(j.matches() == [], "compaction undone")
    # a half-deleted match (renamed for compaction): finished at start
    d = j.new_match()
    expect(d == c + 1, "numbering")
    for i in range(12):
        j.append(d, payload(i), finished=True)
    os.rename("%s/m%06d" % (ROOT, d), "%s/x%06d" % (ROOT, d))
    os.remove("%s/x%06d/0000" % (ROOT, d))
    remount(flash)
    j = Journal(ROOT)
    expect(j.matches() == [] and "x%06d" % d not in os.listdir(ROOT), "half compaction left")
    expect(j.new_match() == d + 1, "numbering after compaction")


class Counting(Journal):
    """A journal that counts the matches whose tail it reads from flash."""
    tails_read = 0

    def _scan_tail(self, n):
        Counting.tails_read += 1
        return Journal._scan_tail(self, n)


def _start_reads(**kw):
    Counting.tails_read = 0
    j = Counting(ROOT, **kw)
    return j, Counting.tails_read


def _state(j):
    return j.matches(), dict((n, list(j.records(n))) for n, fin in j.matches())


def check_index():
    flash = fresh(96)
    # a journal as the firmware wrote it before the index: finished matches, one in play
    old = Journal(ROOT, index=False)
    fin = []
    for m in range(12):
        n = old.new_match()
        for i in range(8):
            old.append(n, payload(i, 60 + m), finished=(i == 7))
        fin.append(n)
    live = old.new_match()
    old.append(live, payload(0))
    expect(sorted(os.listdir(ROOT)) == sorted(["id", "next"] + ["m%06d" % n for n in fin + [live]]),
           "files of a journal without an index: %r" % (os.listdir(ROOT),))
    want = _state(old)
    remount(flash)
    # it upgrades: the first start reads every match, loses nothing, and writes the index
    j, reads = _start_reads()
    expect(reads == len(fin) + 1, "the first start read %d tails" % reads)
    expect(_state(j) == want, "the upgrade changed the journal")
    expect([j.tag(n) for n in fin] == [None] * len(fin), "tags from nowhere")
    for n in fin:
        j.set_tag(n, n % 3)
    expect(j.save_index() and "index" in os.listdir(ROOT), "no index written")
    remount(flash)
    # from then on a start reads only the match in play, and the index says the same
    j, reads = _start_reads()
    expect(reads == 1, "a start with the index read %d tails" % reads)
    expect(_state(j) == want and [j.tag(n) for n in fin] == [n % 3 for n in fin], "through the index")
    expect(not j.damaged, "damage %r" % (j.damaged,))
    # finishing a match rewrites it, with the tag given
    j.append(live, payload(1), finished=True, tag=7)
    fin.append(live)
    remount(flash)
    j, reads = _start_reads()
    expect(reads == 0 and j.tag(live) == 7 and j.matches() == [(n, True) for n in fin], "after a finish")
    # a match reopened (a record that leaves it unfinished) leaves the index first
    j.append(live, payload(2))
    remount(flash)
    j, reads = _start_reads()
    expect(reads == 1 and dict(j.matches())[live] is False and j.tag(live) is None, "reopened")
    j.append(live, payload(3), finished=True, tag=2)
    # acks leave stale entries, ignored; the old journal's own work (an ack, a match finished) is
    # seen by the next start too
    for n in fin[:4]:
        j.ack(n, b'{"type":"synced"}')
    old = Journal(ROOT, index=False)
    old.ack(fin[4], b'{"type":"synced"}')
    extra = old.new_match()
    old.append(extra, payload(0), finished=True)
    old = None
    want = _state(Journal(ROOT, index=False))
    remount(flash)
    j, reads = _start_reads()
    expect(reads == 1 and _state(j) == want, "after acks and the old journal's writes")
    expect(extra in dict(j.matches()) and fin[4] not in dict(j.matches()), "matches %r" % (j.matches(),))
    j.save_index()
    remount(flash)
    j, reads = _start_reads()
    expect(reads == 0 and _state(j) == want, "after save_index")
    # numbers the index names are never given again, even when the counter file is lost
    top = j.next_match()
    for n, f in j.matches():
        j.ack(n, b'{"type":"synced"}')
    os.remove(ROOT + "/next")
    remount(flash)
    j = Journal(ROOT)
    m = j.new_match()
    expect(m >= top, "a match number reused")
    # an index that is damaged, cut short, of another journal or another version: ignored
    for k in range(3):
        j.append(m, payload(0), finished=True, tag=1)
        if k < 2:
            m = j.new_match()
    want = _state(j)
    with open(ROOT + "/index", "rb") as f:
        good = f.read()
    other = good.replace(j.fs_id.encode(), b"0123456789abcdef")
    bad_version = good.replace(b"nakk-index 1 ", b"nakk-index 9 ")
    flipped = bytearray(good)
    flipped[len(good) - 6] ^= 0x10
    for name, data in (("damaged", flipped), ("cut short", good[:len(good) - 5]),
                       ("another journal's", other), ("another version", bad_version),
                       ("not records", b"garbage" * 20)):
        with open(ROOT + "/index", "wb") as f:
            f.write(data)
        remount(flash)
        j, reads = _start_reads()
        expect(reads == 3 and _state(j) == want, "%s index: %d tails read" % (name, reads))
        expect([j.tag(n) for n, f in j.matches()] == [None] * 3, "%s index: tags" % name)
    # the heap a start keeps per match: one small dict entry (no list, no object per match)
    vfs.umount(MOUNT)
    flash = None
    gc.collect()
    flash = fresh(352)
    j = Journal(ROOT)
    for m in range(120):
        n = j.new_match()
        j.append(n, payload(0), finished=True, tag=0)
    j = None
    Journal(MOUNT + "/empty")
    remount(flash)
    gc.collect()
    a0 = gc.mem_alloc()
    e = Journal(MOUNT + "/empty")
    gc.collect()
    fixed = gc.mem_alloc() - a0       # its buffers
    e = None
    gc.collect()
    a0 = gc.mem_alloc()
    j = Journal(ROOT)
    gc.collect()
    per = (gc.mem_alloc() - a0 - fixed) / 120
    print("index: %.1f bytes kept per match (a journal: %d)" % (per, fixed))
    expect(len(j.matches()) == 120 and per < 32, "%d bytes kept per match" % per)


def check_full():
    # A small flash filled with finished, unsynced matches.
    flash = fresh(40)
    j = Journal(ROOT, reserve=48 * 1024)
    saved = {}
    refused = None
    full_appends = 0
    for m in range(100):
        try:
            n = j.new_match()
        except JournalFull as e:
            refused = str(e)
            break
        saved[n] = []
        for i in range(30):
            p = payload(i, 180)
            j.append(n, p, finished=(i == 29))
            saved[n].append(p)
    expect(refused is not None, "new_match never refused")
    expect("full" in refused and "sync" in refused, "unclear message: %r" % refused)
    expect(j.free_bytes() < j.reserve, "refused with %d bytes free" % j.free_bytes())
    # the open match can still be played on into the reserve, until ENOSPC
    n = max(saved)
    try:
        for i in range(3000):
            p = payload(1000 + i, 180)
            j.append(n, p)
            saved[n].append(p)
    except JournalFull as e:
        full_appends += 1
        expect("not saved" in str(e), "unclear ENOSPC message: %r" % e)
    expect(full_appends == 1, "never hit ENOSPC")
    # after ENOSPC: nothing lost, nothing corrupt, still refusing cleanly
    try:
        j.append(n, payload(9999, 180))
    except JournalFull:
        pass
    else:
        saved[n].append(payload(9999, 180))
    remount(flash)
    j = Journal(ROOT, reserve=48 * 1024)
    for m in saved:
        expect(list(j.records(m)) == saved[m], "match %d changed after ENOSPC" % m)
    expect(not j.damaged, "damage after ENOSPC")
    try:
        j.new_match()
        expect(False, "new match on a full flash")
    except JournalFull:
        pass
    # the judge syncs: acks work on the full flash and free space
    free = j.free_bytes()
    for m in sorted(saved):
        if m == n:
            continue
        j.ack(m, b'{"type":"synced"}')
        expect(m not in dict(j.matches()), "ack on a full flash did not compact")
    expect(j.free_bytes() > free + 4096 * 4, "acks freed little: %d -> %d" % (free, j.free_bytes()))
    # the open match goes on and is closed by the judge, keeping its deals
    j.append(n, b'{"reason":"rescue","seq":9999,"type":"close"}', finished=True)
    saved[n].append(b'{"reason":"rescue","seq":9999,"type":"close"}')
    remount(flash)
    j = Journal(ROOT, reserve=48 * 1024)
    expect(list(j.records(n)) == saved[n], "the big match after acks")
    j.ack(n, b'{"type":"synced"}')
    m2 = j.new_match()
    j.append(m2, payload(1))
    remount(flash)
    j = Journal(ROOT, reserve=48 * 1024)
    expect(j.matches() == [(m2, False)], "matches %r" % (j.matches(),))
    expect(list(j.records(m2)) == [payload(1)], "new match after freeing space")
    expect(not j.damaged, "damage")


def _cost(flash, fn):
    p, e, b = flash.progs, flash.erases, flash.prog_bytes
    fn()
    return flash.progs - p, flash.erases - e, flash.prog_bytes - b


def check_append_cost_flat():
    # Bytes programmed and erases of appends with 10 events in the journal
    # and with 1000: the same (within noise), on one match or many.
    flash = fresh(352)
    j = Journal(ROOT)

    def window(n, k, base):
        tot = [0, 0, 0]
        for i in range(k):
            c = _cost(flash, lambda: j.append(n, payload(base + i, 120)))
            tot[0] += c[0]
            tot[1] += c[1]
            tot[2] += c[2]
        return tot

    early = window(j.new_match(), 64, 0)
    for m in range(14):
        n = j.new_match()
        for i in range(64):
            j.append(n, payload(i, 120), finished=True)
    late = window(j.new_match(), 64, 0)
    big = j.new_match()
    for i in range(900):
        j.append(big, payload(i, 120))
    long_ = window(big, 64, 900)
    print("cost early %r late %r long-match %r" % (early, late, long_))
    for w in (late, long_):
        expect(w[2] <= early[2] * 1.25 + 2048, "bytes grew: %r vs %r" % (w, early))
        expect(w[1] <= early[1] * 1.5 + 4, "erases grew: %r vs %r" % (w, early))


def check_stream_memory():
    # A match much bigger than the heap (run with 320K) streams through
    # records(), from the simulator's image file (which is not in the heap).
    from nakk.offbox.blockdev import mount_image
    bdev = mount_image(sys.argv[-1], MOUNT)
    j = Journal(ROOT, reserve=0)
    n = j.new_match()
    count = 2200
    for i in range(count):
        j.append(n, payload(i, 200))
    heap = gc.mem_alloc() + gc.mem_free()
    expect(count * 200 > heap, "the match is not bigger than the heap")
    seen = 0
    for i, p in enumerate(j.records(n)):
        expect(p == payload(i, 200), "record %d" % i)
        seen += 1
    expect(seen == count, "%d of %d records" % (seen, count))
    vfs.umount(MOUNT)
    bdev.close()


def check_blockdev_no_alloc():
    from nakk.offbox.blockdev import FileBlockDev
    buf = bytearray(256)
    flash = NorFlash(8)
    bdev = FileBlockDev(sys.argv[-1], blocks=16)
    r = [1, 1, 1, 1]

    def ops(dev):
        r[0] = dev.readblocks(1, buf, 16)
        r[1] = dev.writeblocks(2, buf, 256)
        r[2] = dev.ioctl(6, 3)
        r[3] = dev.ioctl(3, 0)

    for dev in (flash, bdev):
        micropython.heap_lock()
        try:
            ops(dev)
            err = None
        except MemoryError as e:
            err = e
        micropython.heap_unlock()
        expect(err is None, "%s allocated" % type(dev).__name__)
        expect(r == [0, 0, 0, 0], "%s: %r" % (type(dev).__name__, r))
    # after a cut: every operation fails with -EIO, still without allocating
    flash.arm(0)
    flash.ioctl(6, 1)
    micropython.heap_lock()
    try:
        ops(flash)
        err = None
    except MemoryError as e:
        err = e
    micropython.heap_unlock()
    expect(err is None, "dead flash allocated")
    expect(r == [-5, -5, -5, -5], "dead flash answered %r" % (r,))
    bdev.close()


def check_nor_semantics():
    flash = NorFlash(4)
    buf = bytearray(b"\x0f" * 256)
    zero = bytearray(4096)
    flash.writeblocks(1, buf, 0)
    buf2 = bytearray(b"\xf0" * 256)
    flash.writeblocks(1, buf2, 0)  # can only clear bits: 0x0f & 0xf0 = 0
    out = bytearray(256)
    flash.readblocks(1, out, 0)
    expect(out == bytearray(256), "program set bits")
    expect(flash.violations == 256, "violations %d" % flash.violations)
    flash.ioctl(6, 1)
    flash.readblocks(1, out, 0)
    expect(out == bytearray(b"\xff" * 256), "erase")
    # a half-done program: the first half only
    flash.arm(0, 1)
    expect(flash.writeblocks(1, buf, 0) == -5, "cut program")
    flash = flash.power_cycle()
    flash.readblocks(1, out, 0)
    expect(out[:128] == bytearray(b"\x0f" * 128) and out[128:] == bytearray(b"\xff" * 128),
           "half program")
    # a half-done erase
    flash.writeblocks(1, zero, 0)
    flash.arm(0, 1)
    expect(flash.ioctl(6, 1) == -5, "cut erase")
    flash = flash.power_cycle()
    flash.readblocks(1, out, 0)
    expect(out[:128] == bytearray(b"\xff" * 128), "half erase")
    big = bytearray(4096)
    flash.readblocks(1, big, 0)
    expect(big[3000:3128] == bytearray(128), "half erase touched the second half")


def main():
    names = [a for a in sys.argv[1:] if not a.startswith("/")]
    for name in names:
        try:
            globals()["check_" + name]()
            print("OK", name)
        except Exception as e:
            sys.print_exception(e)
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
        try:
            vfs.umount(MOUNT)
        except OSError:
            pass


main()
