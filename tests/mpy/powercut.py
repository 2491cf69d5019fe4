"""Power-cut sweep for nakk.journal, run inside one MicroPython process.

    micropython tests/mpy/powercut.py [broken] [clean|half] [stride=N] [aged=M]

The scenario, on littlefs v2 (4096-byte blocks, progsize 256, as the Pico
mounts its flash) over a simulated NOR flash: a first start (the journal
draws its id), a new match, a whole match of 34 events (the index rewritten
when it finishes, with the match's tag), the index lost and written again
from the match (as on a box whose journal predates it), the judge's
acknowledgement and its compaction, and a second match of a few events
(finished by one, reopened by the next).

A dry run counts the K program/erase operations. Then for every k < K and
for each mode (clean cut, half-done operation) the scenario runs again from
the same freshly formatted flash, the power goes at operation k, and after
the cut:
  - the old mount is dropped and the garbage collector runs (finalisers of
    files left open run with the heap locked, against the dead flash);
  - the flash powers up, littlefs mounts it (it must), the journal starts;
  - every record reported saved is there, in order, and at most the one in
    flight is added; finished flags, the id, the acknowledgement (done, not
    done, or in flight) agree with what the scenario was told; the journal
    read through its index says what one that reads every match says, and
    the tag is the one given (or none);
  - the device keeps working: it appends, acks a finished match, starts a new
    one, and all of that survives a clean remount;
  - where that first start after the cut writes (it finishes an interrupted
    compaction, or deletes segments a seal had copied), each of those
    writes is cut in turn as well, and all of the above is checked again.

"aged=M" first plays and acks M matches, so that the sweep runs on a flash
whose allocator has wrapped around. "broken" runs the same sweep on a journal that reports a record saved before
it is flushed; the sweep must catch it.

Prints one line "RESULT ops=K runs=R failures=F ..." and the first failures.
"""
import gc
import os
import sys
import vfs

from norflash import NorFlash, CLEAN, HALF
from nakk import record
from nakk.journal import Journal

MOUNT = "/pc"
ROOT = MOUNT + "/journal"
BLOCKS = 48
FIRST = [1]   # the first match number of the scenario
RESTART_AT = 15
TAG = 5       # the tag of the scenario's first match


def make_events():
    ev = [(b'{"ruleset":"saare-2020","seq":0,"sides":[["Mari Maasikas","Jaan Tamm"],'
           b'["Kati Karu","Toomas Kask"]],"table":7,"tournament":"saaremaa-2025-kevad",'
           b'"type":"setup","v":1}', False)]
    games = (b"suit", b"small", b"solo", b"misere")
    seq = 1
    for i in range(28):
        side = b"A" if i % 3 else b"B"
        p = (b'{"game":"' + games[i % 4] + b'","maker":"' + side + b'","points":'
             + (b"%d" % (31 + i * 7 % 90)) + b',"result":"win","seq":' + (b"%d" % seq)
             + b',"type":"deal","winner":"' + side + b'"}')
        ev.append((p, False))
        seq += 1
        if i == 9:
            ev.append((b'{"offence":"revoke","by":"B","seq":%d,"type":"penalty"}' % seq, False))
            seq += 1
        if i == 17:
            ev.append((b'{"seq":%d,"target":%d,"type":"cancel"}' % (seq, seq - 1), False))
            seq += 1
    # the last deal ends the match; the confirmations come after it
    ev[-1] = (ev[-1][0], True)
    ev.append((b'{"by":"A","seq":%d,"type":"confirm"}' % seq, True))
    ev.append((b'{"by":"B","seq":%d,"type":"confirm"}' % (seq + 1), True))
    return ev


EVENTS = make_events()
SYNCED = b'{"hash":"9f2c4e","judge":"laptop-1","seq":99,"type":"synced"}'
# the second match is finished by its deal, then reopened (the index must stop naming it first)
EVENTS2 = [
    (b'{"ruleset":"schmier","seq":0,"sides":[["A1","A2"],["B1","B2"],["C1","C2"]],"type":"setup","v":1}', False),
    (b'{"game":"x","seq":1,"type":"deal","winner":"C"}', True),
    (b'{"reason":"misdeal","seq":2,"type":"redeal"}', False),
    (b'{"game":"y","seq":3,"type":"deal","winner":"A"}', False),
]
PROBE = b'{"by":"A","reason":"probe after the cut","seq":500,"type":"dispute"}'


class BrokenJournal(Journal):
    """Reports a record saved while it sits in littlefs's RAM cache: the file
    is only closed (synced) when the next record is written."""

    _open = None

    def _write(self, path, data):
        if self._open is not None:
            self._open.close()
        self._open = open(path, "ab")
        self._open.write(data)


class Log:
    def __init__(self):
        self.fs_id = None
        self.m1 = None
        self.saved1 = []
        self.inflight1 = None
        self.ack = 0          # 0 not asked, 1 in flight, 2 returned
        self.m2 = None
        self.m2_asked = False
        self.saved2 = []
        self.inflight2 = None
        self.phase = {}
        self.sealed = False


def mount(flash, mkfs=False):
    if mkfs:
        vfs.VfsLfs2.mkfs(flash, progsize=256)
    fs = vfs.VfsLfs2(flash, progsize=256)
    vfs.mount(fs, MOUNT)
    return fs


def umount():
    try:
        vfs.umount(MOUNT)
    except OSError:
        pass


def scenario(jcls, log, flash):
    log.phase["start"] = flash.ops
    j = jcls(ROOT)
    log.fs_id = j.fs_id
    log.phase["match"] = flash.ops
    n = j.new_match()
    log.m1 = n
    for i, (p, fin) in enumerate(EVENTS):
        if i == RESTART_AT:
            # a clean restart in the middle of the match: resume from flash
            j = None
            umount()
            mount(flash)
            j = jcls(ROOT)
        log.inflight1 = p
        j.append(n, p, finished=fin, tag=TAG)
        log.saved1.append(p)
        log.inflight1 = None
    log.phase["reindex"] = flash.ops
    # the index lost (or never written: a journal from before it): the start reads the match,
    # the app tags it again and saves the index
    os.remove(ROOT + "/index")
    j = None
    umount()
    mount(flash)
    j = jcls(ROOT)
    j.set_tag(n, TAG)
    j.save_index()
    log.phase["ack"] = flash.ops
    log.sealed = "body" in os.listdir("%s/m%06d" % (ROOT, n))
    log.ack = 1
    j.ack(n, SYNCED)
    log.ack = 2
    log.phase["second"] = flash.ops
    log.m2_asked = True
    n2 = j.new_match()
    log.m2 = n2
    for p, fin in EVENTS2:
        log.inflight2 = p
        j.append(n2, p, finished=fin)
        log.saved2.append(p)
        log.inflight2 = None
    log.phase["end"] = flash.ops
    return j


class Failed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failed(what)


def check_match(j, ms, n, saved, inflight, events):
    expect(n in ms, "match %d is gone" % n)
    got = list(j.records(n))
    ok = got == saved or (inflight is not None and got == saved + [inflight])
    expect(ok, "match %d: %d records on flash, %d reported saved%s" % (
        n, len(got), len(saved), " (+1 in flight)" if inflight is not None else ""))
    fin = False
    for p, f in events:
        if got and p == got[-1]:
            fin = f
    expect(ms[n] == fin, "match %d: finished flag %r, expected %r" % (n, ms[n], fin))


def verify(log, j):
    log_m1[0] = log.m1
    ms = dict(j.matches())
    expect(not j.damaged, "damage reported: %r" % (j.damaged,))
    if log.fs_id is not None:
        expect(j.fs_id == log.fs_id, "fs_id changed")
    known = set()
    # match 1
    if log.m1 is None:
        # new_match() may have been in flight: an empty match 1 may exist
        for n in ms:
            expect(n == FIRST[0] and not list(j.records(n)), "unexpected match %d" % n)
        return ms
    known.add(log.m1)
    if log.ack == 2:
        expect(log.m1 not in ms, "acknowledged match %d still there" % log.m1)
    elif log.ack == 1 and log.m1 not in ms:
        pass  # the ack record made it: compacted at start
    else:
        check_match(j, ms, log.m1, log.saved1, log.inflight1, EVENTS)
    # match 2
    if log.m2 is not None:
        known.add(log.m2)
        check_match(j, ms, log.m2, log.saved2, log.inflight2, EVENTS2)
    elif log.m2_asked:
        for n in ms:
            if n not in known:
                expect(n == log.m1 + 1 and not list(j.records(n)), "unexpected match %d" % n)
                known.add(n)
    for n in ms:
        expect(n in known, "unexpected match %d" % n)
    agrees(j, ms)
    return ms


def agrees(j, ms):
    # what the index says is what the matches say
    truth = dict(Journal(ROOT, index=False).matches())
    expect(truth == ms, "through the index %r, from the matches %r" % (ms, truth))
    if log_m1[0] in ms and ms[log_m1[0]]:
        expect(j.tag(log_m1[0]) in (None, TAG), "tag %r" % (j.tag(log_m1[0]),))


log_m1 = [None]


def keeps_working(j, ms):
    # Append to an open match (or a new one), ack a finished one, start another.
    open_ms = [n for n in ms if not ms[n]]
    n = open_ms[-1] if open_ms else j.new_match()
    before = list(j.records(n))
    j.append(n, PROBE, finished=True)
    expect(list(j.records(n)) == before + [PROBE], "append after the cut is not read back")
    for m in list(ms):
        if ms[m]:
            j.ack(m, SYNCED)
            expect(m not in dict(j.matches()), "ack after the cut did not compact")
    j.ack(n, SYNCED)
    m = j.new_match()
    expect(m > n and m > max(ms or [0]), "match number reused")
    j.append(m, EVENTS2[0][0])
    return m


def after_cut(flash, log):
    """Power back after a cut: mount, start, check, keep working, restart."""
    mount(flash)                        # must mount: never a box that cannot boot
    # After the cut the checks use the real journal: the question is only
    # what the scenario's journal left on flash.
    j = Journal(ROOT)
    ms = verify(log, j)
    fs_id = j.fs_id
    m = keeps_working(j, ms)
    # a clean restart keeps everything
    j = None
    umount()
    gc.collect()
    mount(flash)
    j = Journal(ROOT)
    expect(j.fs_id == fs_id, "fs_id changed on a clean restart")
    expect(list(j.records(m)) == [EVENTS2[0][0]], "the new match did not survive a restart")
    expect(not j.damaged, "damage after restart")
    agrees(j, dict(j.matches()))
    umount()


def cut_again_while_starting(flash, log, mode):
    """The start after a cut may itself write (finish a compaction, drop
    leftovers of a seal): cut each of those writes too, then check again.
    Returns how many such second cuts were made."""
    image = flash.snapshot()
    mount(flash)
    Journal(ROOT)
    writes = flash.ops
    umount()
    for k2 in range(writes):
        f2 = NorFlash(BLOCKS)
        f2.restore(image)
        mount(f2)
        f2.arm(k2, mode)
        try:
            Journal(ROOT)
        except OSError:
            pass
        expect(f2.dead, "start wrote less than before")
        umount()
        gc.collect()
        after_cut(f2.power_cycle(), log)
    return writes


def one_run(jcls, base, k, mode):
    """Returns (power was cut, second cuts made during the start after it)."""
    flash = NorFlash(BLOCKS)
    flash.restore(base)
    mount(flash)
    log = Log()
    flash.arm(k, mode)
    j = None
    cut = False
    try:
        j = scenario(jcls, log, flash)
    except OSError:
        cut = True
    if not flash.dead:
        # k beyond the end: nothing to check but the clean run
        umount()
        return cut, 0
    j = None
    umount()
    gc.collect()                        # finalisers of open files: heap locked, flash dead
    flash = flash.power_cycle()
    recuts = cut_again_while_starting(flash, log, mode) if jcls is Journal else 0
    after_cut(flash, log)
    return cut, recuts


def main(argv):
    broken = "broken" in argv
    modes = (CLEAN, HALF)
    stride = 1
    aged = 0
    for a in argv:
        if a == "clean":
            modes = (CLEAN,)
        elif a == "half":
            modes = (HALF,)
        elif a.startswith("stride="):
            stride = int(a[7:])
        elif a.startswith("aged="):
            aged = int(a[5:])
    jcls = BrokenJournal if broken else Journal

    flash = NorFlash(BLOCKS)
    mount(flash, mkfs=True)
    if aged:
        # A box that has played and synced a few dozen matches: littlefs's
        # allocator has gone round the flash and metadata has moved.
        j = Journal(ROOT)
        for m in range(aged):
            n = j.new_match()
            for p, fin in EVENTS:
                j.append(n, p, finished=fin)
            j.ack(n, SYNCED)
        j = None
    FIRST[0] = aged + 1
    umount()
    base = flash.snapshot()

    # dry run: how many operations, and where each phase starts
    flash = NorFlash(BLOCKS)
    flash.restore(base)
    mount(flash)
    flash.arm(-1)
    log = Log()
    scenario(jcls, log, flash)
    umount()
    total = flash.ops
    phase = log.phase
    erases = flash.erases

    runs = 0
    failures = []
    cuts = 0
    recuts = 0
    for mode in modes:
        k = 0
        while k < total:
            runs += 1
            try:
                cut, again = one_run(jcls, base, k, mode)
                cuts += cut
                recuts += again
            except Exception as e:
                umount()
                failures.append("k=%d %s: %s: %s" % (k, "half" if mode else "clean",
                                                     type(e).__name__, e))
            k += stride
            gc.collect()
    lost = 0
    for f in failures:
        if "reported saved" in f:
            lost += 1
    print("RESULT ops=%d erases=%d sealed=%d runs=%d failures=%d lost=%d cuts=%d recuts=%d "
          "phases=start:%d,match:%d,reindex:%d,ack:%d,second:%d,end:%d"
          % (total, erases, log.sealed, runs, len(failures), lost, cuts, recuts, phase["start"], phase["match"],
             phase["reindex"], phase["ack"], phase["second"], phase["end"]))
    for f in failures[:15]:
        print("FAIL", f)


main(sys.argv[1:])
