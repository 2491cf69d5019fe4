"""Bench: heap bytes per rendered frame and per button event through the UI (MicroPython unix port).

Run:  .venv/bin/python bench/bench_ui.py   (re-runs itself on the unix port, a
      process per ruleset and part, each -X heapsize=HEAP, the firmware and
      bench_presses as .mpy on MICROPYPATH, and a temporary LittleFS image for
      the journal)

(a) Frames: a Saare mäng 2020 match (target raised so it runs on; on the
    journal, as a box) is played
    deal by deal with the press-counting player of bench_presses; between
    deals only the render is measured: nakk.ui.render.Screen.draw + Screen.leds
    with a nakk.drivers.rings.Rings, collector off, gc.mem_alloc() before and after.
    20 frames of warm-up, then 100 frames, each after a deal changed the score.
    Also: a frame with nothing changed, and the two draws around a save.
(b) Button events: every press of whole matches of each ruleset (the mix of
    bench_presses), each measured alone with the collector off: Ui.handle,
    then what the app does (draw with "saving", Table.flush, draw again),
    by kind. Once with the events kept in RAM (no journal) and once with the
    real Journal on a LittleFS image (nakk.offbox.blockdev.mount_image).
    Peak heap for a whole match: micropython.mem_peak() as the port reports
    it, and the live heap sampled after every press with gc.threshold(512).

Target: <= 512 bytes per button event; 0 bytes per steady-state frame.

The heap (HEAP, 320K) is the `.mpy` box's after boot, on this 64-bit port: a box
with the firmware as .mpy has 68 KB of its 246 KB free after boot, its code on
the heap and no ruleset yet (bench/bench_pico_boot.py, docs/architecture.md "RAM
at boot"); here bytecode takes about its size on the Pico and objects up to twice
it, so that room is 68 to 136 KB. A run prints what it has after its imports (the
firmware's modules, bench_presses' player and the mix, no ruleset): ~118 KB at
320K, then the one ruleset a box playing that game imports (a box plays one game
at a time, and keeps a ruleset once imported: so one process per ruleset). The
UF2's code is in flash and its heap has ~184 KB free after boot: a 320K run that
fits fits it too.
"""

import sys

TARGET = 512
FRAMES = 100
WARMUP = 20
MATCHES = 3
HEAP = "320K"


def _launch():
    import os
    import subprocess
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    sys.path.insert(0, here)
    import mpyenv
    from bench_presses import RULESETS
    exe = mpyenv.micropython("bench_ui")
    mix = os.path.join(here, "deal-mix.json")
    if not os.path.exists(mix):
        sys.exit("bench_ui: %s not found" % mix)
    bench = mpyenv.bench_path()      # bench_presses' player as .mpy: not compiled inside the heap
    env = dict(os.environ, MICROPYPATH=((bench + ":") if bench else "") + mpyenv.firmware_path() + ":" + here +
               ":.frozen")
    # one process per ruleset and part, each on a fresh HEAP (the module docstring says why its size):
    # a box plays one game at a time, and a ruleset once imported stays, so two rulesets side by side
    # on one heap is a box no tournament makes
    runs = [("frames", "saare-2020")]
    runs += [("ram", name) for name in RULESETS]
    runs += [("journal", name) for name in RULESETS]
    by = {}       # (part, kind) -> [events, bytes, max]
    peaks = []    # (part, ruleset, mem_peak rise, live peak, matches)
    free = {}     # ruleset -> (free before its import, after)
    rc = 0
    with tempfile.TemporaryDirectory() as d:
        for part, name in runs:
            r = subprocess.run([exe, "-X", "heapsize=" + HEAP, os.path.abspath(__file__), mix,
                                os.path.join(d, "flash.img"), part, name], env=env, cwd=root,
                               capture_output=True, text=True)
            for line in r.stdout.splitlines():
                f = line.split("|")
                if f[0] == "=K":
                    t = by.setdefault((part, f[1]), [0, 0, 0])
                    t[0] += int(f[2])
                    t[1] += int(f[3])
                    t[2] = max(t[2], int(f[4]))
                elif f[0] == "=P":
                    peaks.append((part, name, int(f[1]), int(f[2]), int(f[3])))
                elif f[0] == "=F":
                    free[name] = (int(f[1]), int(f[2]))
                else:
                    print(line)
            if r.returncode:
                sys.stdout.write(r.stderr)
                print("bench_ui: the %s run of %s failed on the %s heap" % (part, name, HEAP))
                rc = r.returncode
                break
    if bench:
        import shutil
        shutil.rmtree(bench, ignore_errors=True)
    if free:
        print()
        print("free heap (-X heapsize=%s) after the imports, before the ruleset -> after it: %s" % (HEAP, "; ".join(
            "%s %.1f -> %.1f KB" % (n, free[n][0] / 1024, free[n][1] / 1024) for n in RULESETS if n in free)))
    for part, label in (("ram", "events kept in RAM (no journal)"),
                        ("journal", "real Journal on a LittleFS image (Pico's geometry)")):
        kinds = sorted(k for (p, k) in by if p == part)
        if not kinds:
            continue
        print()
        print("(b) heap per button event, %s: handle + draw(saving) + flush + draw, %d matches of each ruleset"
              " (one process each)" % (label, MATCHES))
        over = []
        n = tot = 0
        for k in kinds:
            kn, ktot, worst = by[(part, k)]
            print("  %-52s %5d events  %6d B mean  %6d B max" % (k, kn, ktot // kn, worst))
            if worst > TARGET:
                over.append(k)
            n += kn
            tot += ktot
        print("  all events: %d B mean; target <= %d B per button event: %s" % (
            tot // n, TARGET, "MET by every kind" if not over else "exceeded (max) by: " + "; ".join(over)))
        for p, name, mp, lv, m in peaks:
            if p == part:
                print("  a whole %s match: micropython.mem_peak() rose by %d B (max over %d matches; the port counts"
                      " allocations, not live heap), live heap peak %d B above the start" % (name, mp, m, lv))
    sys.exit(rc)


# ---------------------------------------------------------------- unix port

def _bench(mix_path, image, part, name):
    import gc
    import micropython
    import framebuf
    import vfs
    import bench_presses as BP
    from nakk.drivers import buttons as K
    from nakk.drivers import font
    from nakk.ui import flows as U
    from nakk.ui.render import Screen
    from nakk.drivers.rings import Rings
    from nakk.table import Table

    font.warm()
    import nakk.journal           # the app imports it at boot; the UI does when a match starts  # noqa: F401
    mix = BP.mixes(BP.load_mix(mix_path))[name]
    from nakk import rules as _rules
    gc.collect()
    free0 = gc.mem_free()
    # the ruleset in play, and no other: a box imports the one its first match needs (at the start
    # wizard's OK, a press not measured here) and keeps it
    _rules.get(name)
    gc.collect()
    print("=F|%d|%d" % (free0, gc.mem_free()))
    buf = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    rings = Rings(3, 400, 20, brightness=64)

    if part == "frames":
        v = sys.implementation.version
        print("bench_ui: MicroPython %d.%d.%d unix port, -X heapsize=%s, a process per ruleset and part; heap"
              " measured with gc.mem_alloc(), collector off; fonts warm, nakk.journal and the ruleset in play"
              " imported first" % (v[0], v[1], v[2], HEAP))

    def frames(table):
        # ------------------------------------------------------------ (a) frames
        ui = U.Ui(table, clock=BP.FixedClock())

        def new_match():
            table.start({"ruleset": "saare-2020", "settings": {"target": 200}, "table": 1, "round": 1,
                         "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]})
            table.flush()
            ui.resync()

        new_match()
        screen = Screen(fb, rings)
        player = BP.Player(ui)
        rng = BP.Rng(7)

        def deal():
            # one deal that changes the score (redeals and pokks drawn again)
            while True:
                if ui.mode != U.ENTRY:
                    new_match()             # 200 nakks reached: a new match (not measured)
                kind, what = BP.draw_deal(rng, "saare-2020", mix, table.match)
                if kind == "deal" and what["result"][0] != "pokk":
                    before = list(table.match.st.score)
                    player.enter(what)
                    if table.match.st.score != before:
                        return

        def frame(*saving):
            # bytes one frame allocates (saving: whether an entry is on its way to flash), its mask
            gc.collect()
            gc.disable()
            a0 = gc.mem_alloc()
            mask = screen.draw(ui, *saving)
            screen.leds(ui)
            a = gc.mem_alloc() - a0
            gc.enable()
            return a, mask

        for _ in range(WARMUP):
            deal()
            frame()
        tot = worst = 0
        body = 0
        for _ in range(FRAMES):
            deal()
            a, mask = frame()
            tot += a
            worst = max(worst, a)
            if mask & 0x7E:
                body += 1
        same, mask0 = frame()
        # the two draws around a save, with the entry that makes them
        deal_what = None
        while deal_what is None:
            kind, what = BP.draw_deal(rng, "saare-2020", mix, table.match)
            if kind == "deal":
                deal_what = what
        save = [0, 0]

        def around_save():
            if table.pending is not None:
                save[0] = frame(True)[0]
                table.flush()
                save[1] = frame(False)[0]
            else:
                screen.draw(ui)
                screen.leds(ui)

        player.after = around_save
        player.enter(deal_what)
        print()
        print("(a) frames on the score screen, Saare mäng 2020, %d frames after %d of warm-up, each after a deal"
              " changed the score (the body was redrawn in %d of them)" % (FRAMES, WARMUP, body))
        print("  Screen.draw + Screen.leds: %d bytes mean, %d max per frame (target 0): %s"
              % (tot // FRAMES, worst, "MET" if worst == 0 else "MISSED"))
        print("  a frame with nothing changed: %d bytes, mask 0x%02x" % (same, mask0))
        print("  around a save: the draw with \"saving\" %d bytes, the draw after the flush %d bytes" % tuple(save))

    # ------------------------------------------------------------ (b) button events
    PREV_S, NEXT_S = BP.PREV_S, BP.NEXT_S

    class Meter(BP.Player):
        """The player, with every press measured alone: handle, then draw / flush / draw as the app does."""

        def __init__(self, ui, screen):
            BP.Player.__init__(self, ui)
            self.screen = screen
            self.by = {}
            self.peak = 0
            self.base = 0

        def press(self, ev):
            ui = self.ui
            table = ui.table
            mode = ui.mode
            self.presses += 1
            gc.collect()
            gc.disable()
            a0 = gc.mem_alloc()
            r = ui.handle(ev)[0]
            self.refused = r == U.REFUSED
            done = r == U.SUBMITTED
            if done:
                self.last_ev = table.pending
            if table.pending is not None:
                self.screen.draw(ui, True)
                self.screen.leds(ui)
                table.flush()
            self.screen.draw(ui, False)
            self.screen.leds(ui)
            a = gc.mem_alloc() - a0
            gc.enable()
            live = gc.mem_alloc() - self.base
            if live > self.peak:
                self.peak = live
            k = K.kind(ev)
            if ev == PREV_S or ev == NEXT_S:
                what = "cursor move (PREV/NEXT)"
            elif mode == U.START or mode == U.DONE:
                what = "start a match (long OK, start screen)"
            elif (mode == U.ENTRY or mode == U.END) and k == K.LONG:
                what = {K.PREV: "open the undo question (long PREV)", K.NEXT: "open the penalty list (long NEXT)",
                        K.OK: "open the menu (long OK)"}[K.button(ev)]
            elif mode == U.END:
                what = "confirm the result (side)"
            elif mode == U.ENTRY:
                what = "deal commit (last answer: builds, folds, journals)" if done else \
                    "step answer (side or OK, not the last)"
            elif mode == U.PENALTY:
                what = "penalty commit (offender's side)"
            elif mode == U.UNDO:
                what = "undo commit (OK: cancel, fold again)"
            elif mode == U.MENU:
                what = "redeal commit (OK on the reason)"
            else:
                what = "other"
            t = self.by.get(what)
            if t is None:
                t = self.by[what] = [0, 0, 0]
            t[0] += 1
            t[1] += a
            if a > t[2]:
                t[2] = a
            return done

    def run_events(make_table):
        """MATCHES matches of the ruleset in play; lines for the CPython side: =K|kind|events|bytes|max per kind,
        =P|mem_peak rise|live peak|matches (the maxima over the matches)."""
        gc.collect()
        table = make_table()
        ui = U.Ui(table, clock=BP.FixedClock())
        screen = Screen(fb, rings)
        screen.draw(ui)
        m = Meter(ui, screen)
        rng = BP.Rng(11)
        mp = lv = 0
        for i in range(MATCHES):
            gc.collect()
            m.base = gc.mem_alloc()
            m.peak = 0
            p0 = micropython.mem_current()
            gc.threshold(512)
            m.start(name)
            while ui.mode == U.ENTRY:
                if mix["penalty"] and rng.chance(mix["penalty"]):
                    offence, who = BP.draw_penalty(rng, mix, table.match)
                    m.penalty(offence, who)
                    if ui.mode != U.ENTRY:
                        break
                kind, what = BP.draw_deal(rng, name, mix, table.match)
                if kind == "redeal":
                    m.redeal(what)
                else:
                    if rng.chance(mix["undo"] * 5):      # more undos than the mix, to measure them
                        if m.enter(what, rng, rng.below(2))[1]:
                            m.undo()
                        else:
                            ui.resync()      # the box refused the wrong entry: nothing to undo
                    m.enter(what)
            m.confirm()
            gc.threshold(-1)
            mp = max(mp, micropython.mem_peak() - p0)
            lv = max(lv, m.peak)
        for k in m.by:
            t = m.by[k]
            print("=K|%s|%d|%d|%d" % (k, t[0], t[1], t[2]))
        print("=P|%d|%d|%d" % (mp, lv, MATCHES))

    if part == "ram":
        run_events(Table)
        return

    import os
    try:
        os.remove(image)
    except OSError:
        pass
    from nakk.offbox.blockdev import mount_image
    from nakk.journal import Journal
    bdev = mount_image(image, "/flash")
    try:
        if part == "frames":
            # on the journal, as a box: a Table without one keeps every event of the match in RAM
            # as well, which for a 200-point match is more than a box ever holds
            frames(Table(Journal("/flash/journal")))
        else:
            run_events(lambda: Table(Journal("/flash/journal")))
    finally:
        vfs.umount("/flash")
        bdev.close()


if sys.implementation.name == "micropython":
    _bench(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4])
elif __name__ == "__main__":
    _launch()
