"""Journal benchmark: flash wear per deal, projected lifetime, replay time.

    python bench/bench_journal.py          (re-runs itself on MicroPython)
    micropython bench/bench_journal.py     (with MICROPYPATH=firmware:tests/mpy)

Everything runs on the MicroPython unix port, on littlefs v2 mounted as the
Pico mounts its flash (4096-byte blocks, progsize 256, 352 blocks = 1408 KiB)
over the simulated NOR flash of tests/mpy/norflash.py, which counts
programs, bytes programmed and erases per block.

1. Wear. A tournament box: 120 KiB of firmware files, then matches played
   one after another, each synced (acked and compacted) right after it
   ends: setup, deals (with the odd penalty, redeal and cancel), two
   confirmations, the ack. Every byte programmed and every block erased,
   including new_match, sealing, the ack and the compaction, is divided by
   the number of deals. The same event stream is also run through the
   obvious design (one file per match, flushed appends) for comparison.
2. Lifetime at 200 deals a day, 100 000 erase cycles per block: from the
   average (assuming littlefs spreads wear over the free blocks) and, more
   conservatively, from the most-erased block of the whole run.
3. Replay: start a Journal (what the box does at boot) and read every
   record of every match, for journals of 10, 100 and 1000 events; time per
   event. Also the cost of one append with 10 and with 1000 events on flash.
"""
import sys

if sys.implementation.name != "micropython":
    import os
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    env = dict(os.environ)
    env["MICROPYPATH"] = ":".join([os.path.join(root, "firmware"), os.path.join(root, "tests", "mpy"), ".frozen"])
    sys.exit(subprocess.call([exe, "-X", "heapsize=8M", os.path.abspath(__file__)] + sys.argv[1:],
                             env=env, cwd=root))

import gc
import os
import time
import vfs

from norflash import NorFlash
from nakk.journal import Journal

BLOCKS = 352
MOUNT = "/bench"
DEALS_PER_DAY = 200
CYCLES = 100000
FIRMWARE_BYTES = 120 * 1024


class Rand:
    def __init__(self, seed):
        self.x = seed

    def next(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def match_events(rnd, m):
    """(payload, finished, is_deal) for one match, about 30 deals."""
    out = [(b'{"boards":[],"first_shuffler":%d,"match":%d,"round":%d,"ruleset":"saare-2020",'
            b'"seats":[0,1,2,3],"seq":0,"sides":[["Mari Maasikas","Jaan Tamm"],["Kati Karu",'
            b'"Toomas Kask"]],"table":%d,"tournament":"saaremaa-2025","type":"setup","v":1}'
            % (m % 4, m, m % 7 + 1, m % 12 + 1), False, False)]
    deals = 24 + rnd.next(14)
    seq = 1
    for i in range(deals):
        r = rnd.next(20)
        if r == 0:
            out.append((b'{"by":"B","offence":"revoke","seq":%d,"type":"penalty"}' % seq, False, False))
            seq += 1
        elif r == 1:
            out.append((b'{"reason":"misdeal","seq":%d,"type":"redeal"}' % seq, False, False))
            seq += 1
        note = b',"note":"' + b"n" * rnd.next(60) + b'"' if rnd.next(4) == 0 else b""
        out.append((b'{"eyes":[%d,%d],"game":"%s","maker":"%s","result":"win","seq":%d,'
                    b'"type":"deal","winner":"%s"%s}'
                    % (rnd.next(120), rnd.next(120), (b"suit", b"small", b"solo")[rnd.next(3)],
                       b"AB"[rnd.next(2):][:1], seq, b"AB"[rnd.next(2):][:1], note),
                    i == deals - 1, True))
        seq += 1
        if r == 2 and i < deals - 1:
            out.append((b'{"seq":%d,"target":%d,"type":"cancel"}' % (seq, seq - 1), False, False))
            seq += 1
    out.append((b'{"by":"A","seq":%d,"type":"confirm"}' % seq, True, False))
    out.append((b'{"by":"B","seq":%d,"type":"confirm"}' % (seq + 1), True, False))
    return out


def synced(m):
    return b'{"hash":"%08x","judge":"laptop-1","match":%d,"type":"synced"}' % (m * 2654435761 & 0xFFFFFFFF, m)


def fresh_flash():
    flash = NorFlash(BLOCKS)
    vfs.VfsLfs2.mkfs(flash, progsize=256)
    vfs.mount(vfs.VfsLfs2(flash, progsize=256), MOUNT)
    os.mkdir(MOUNT + "/lib")
    left = FIRMWARE_BYTES
    i = 0
    while left > 0:
        n = 6000 if left > 6000 else left
        with open(MOUNT + "/lib/mod%02d.mpy" % i, "wb") as f:
            f.write(b"\x4d" * n)
        left -= n
        i += 1
    flash.reset_counters()
    return flash


def wear(days):
    target = days * DEALS_PER_DAY
    results = []
    for design in ("journal", "one file per match"):
        flash = fresh_flash()
        rnd = Rand(7)
        deals = events = m = 0
        t0 = time.ticks_ms()
        j = Journal(MOUNT + "/journal") if design == "journal" else None
        while deals < target:
            m += 1
            evs = match_events(rnd, m)
            if j is not None:
                n = j.new_match()
                for p, fin, is_deal in evs:
                    j.append(n, p, finished=fin)
                j.ack(n, synced(m))
            else:
                path = MOUNT + "/m%d" % m
                f = open(path, "ab")
                for p, fin, is_deal in evs:
                    f.write(p)
                    f.write(b"\n")
                    f.flush()
                f.close()
                os.remove(path)
            for p, fin, is_deal in evs:
                events += 1
                deals += is_deal
        dt = time.ticks_diff(time.ticks_ms(), t0)
        vfs.umount(MOUNT)
        counts = flash.erase_counts
        worst = max(counts)
        used = 0
        for c in counts:
            if c:
                used += 1
        results.append((design, deals, events, m, flash.erases, flash.prog_bytes, flash.progs, worst,
                        used, dt))
        gc.collect()
    return results


def fmt_years(y):
    return "%d" % y if y < 10000 else ">10000"


def report_wear(days):
    print("1. Wear: %d simulated days at %d deals a day, Pico-size flash (%d blocks of 4096,"
          " progsize 256), %d KiB of firmware files" % (days, DEALS_PER_DAY, BLOCKS, FIRMWARE_BYTES // 1024))
    res = wear(days)
    for design, deals, events, matches, erases, pbytes, progs, worst, used, dt in res:
        epd = erases / deals
        print("   %-19s %d matches, %d events, %d deals" % (design + ":", matches, events, deals))
        print("      erases per deal          %.3f" % epd)
        print("      bytes programmed / deal  %d   (%.1f program operations per deal)"
              % (pbytes // deals, progs / deals))
        print("      blocks erased at least once %d of %d; most-erased block %d times" % (used, BLOCKS, worst))
        avg_years = (BLOCKS - FIRMWARE_BYTES // 4096) * CYCLES / (epd * DEALS_PER_DAY * 365)
        worst_per_day = worst / days
        worst_years = CYCLES / (worst_per_day * 365) if worst_per_day else 1e9
        print("      lifetime, wear spread over the free blocks  %s years" % fmt_years(avg_years))
        print("      lifetime, most-erased block's rate           %s years" % fmt_years(worst_years))
        print("      (simulated in %d ms)" % dt)
    return res


def build(n_events, per_match):
    flash = NorFlash(BLOCKS)
    vfs.VfsLfs2.mkfs(flash, progsize=256)
    vfs.mount(vfs.VfsLfs2(flash, progsize=256), MOUNT)
    j = Journal(MOUNT + "/journal", reserve=0)
    rnd = Rand(11)
    left = n_events
    m = 0
    n = None
    in_match = 0
    while left > 0:
        m += 1
        for p, fin, is_deal in match_events(rnd, m):
            if n is None or in_match == per_match:
                n = j.new_match()
                in_match = 0
            j.append(n, p, finished=fin and per_match < 1000)
            in_match += 1
            left -= 1
            if left == 0:
                break
    return flash, j


def replay_all():
    t0 = time.ticks_us()
    j = Journal(MOUNT + "/journal", reserve=0)
    t1 = time.ticks_us()
    count = 0
    nbytes = 0
    for n, fin in j.matches():
        for p in j.records(n):
            count += 1
            nbytes += len(p)
    t2 = time.ticks_us()
    return count, time.ticks_diff(t1, t0), time.ticks_diff(t2, t0), j


def report_replay():
    print("3. Replay (start a Journal, read every record) on the MicroPython unix port, x86-64:")
    print("   %-26s %8s %10s %12s %14s" % ("journal", "events", "start us", "replay us", "us per event"))
    per = {}
    for layout, per_match in (("matches of <= 40 events", 40), ("one match", 100000)):
        for size in (10, 100, 1000):
            flash, j = build(size, per_match)
            best = None
            for _ in range(3):
                gc.collect()
                count, start, total, j = replay_all()
                if count != size:
                    print("   !! replayed %d of %d events" % (count, size))
                if best is None or total < best[1]:
                    best = (start, total)
            per[(layout, size)] = best[1] / size
            print("   %-26s %8d %10d %12d %14.1f" % (layout, size, best[0], best[1], best[1] / size))
            vfs.umount(MOUNT)
            gc.collect()
        r = per[(layout, 1000)] / per[(layout, 10)]
        print("   %s: per-event cost at 1000 events / at 10 events = %.2f" % (layout, r))
    return per


def report_append_cost():
    print("4. One append with the journal holding 10 and 1000 events (flash counters, time):")
    for size, per_match in ((10, 40), (1000, 40), (1000, 1000)):
        flash, j = build(size, per_match)
        n = j.new_match()
        p0, b0, e0 = flash.progs, flash.prog_bytes, flash.erases
        t0 = time.ticks_us()
        k = 64
        for i in range(k):
            j.append(n, b'{"eyes":[80,40],"game":"suit","maker":"A","result":"win","seq":%d,"type":"deal","winner":"A"}' % i)
        dt = time.ticks_diff(time.ticks_us(), t0)
        print("   %5d events on flash in %2d matches: %4d bytes, %.2f erases, %.1f programs, %d us per append (mean of %d)"
              % (size, len(j.matches()) - 1, (flash.prog_bytes - b0) // k, (flash.erases - e0) / k, (flash.progs - p0) / k, dt // k, k))
        vfs.umount(MOUNT)
        gc.collect()


def main():
    days = 100
    for a in sys.argv[1:]:
        if a.startswith("days="):
            days = int(a[5:])
    res = report_wear(days)
    design, deals, events, matches, erases, pbytes, progs, worst, used, dt = res[0]
    epd = erases / deals
    worst_years = CYCLES / (worst / days * 365)
    print("2. Targets: erases per deal %.3f (target <= 1.1): %s; lifetime %s years by the"
          " most-erased block (target >= 20): %s"
          % (epd, "met" if epd <= 1.1 else "MISSED", fmt_years(worst_years),
             "met" if worst_years >= 20 else "MISSED"))
    per = report_replay()
    report_append_cost()


main()
