"""`nakk sim` and `nakk demo`: the firmware on the MicroPython unix port, played by keys from the terminal or a
script, and the demo's whole evening (pair, assign, play, sync, standings) on it. The work is in simulator.py."""

import io
import json
import os
import shutil
import sys
import tempfile

from nakk import rules as rules_pkg
from nakk.offbox import score as score_mod
from nakk_host import cli_acts
from nakk_host.cmdtable import Command, arg
from nakk_host.errors import CommandError


DEMO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo")


def _sim_errors(f):
    """Run f(); a simulator failure becomes a CommandError."""
    from nakk_host import simulator as S
    try:
        return f()
    except S.SimulatorError as e:
        raise CommandError(str(e))
    except S.KeyScriptError as e:
        raise CommandError(str(e), 2)


def _read_keys(args):
    """The parsed key script of --keys / --keys-file, or None."""
    from nakk_host import simulator as S
    if args.keys is None and args.keys_file is None:
        return None
    from nakk_host import textfile
    keys = []
    if args.keys_file is not None:
        text = textfile.read_text(args.keys_file)
        keys += _sim_errors(lambda: S.parse_keys(text, args.keys_file))
    if args.keys is not None:
        keys += _sim_errors(lambda: S.parse_keys(args.keys, "--keys"))
    return keys


def match_from_image(image):
    """(events as canonical JSON lines, folded Match) of the latest match on a flash image;
    ([], None) when there is none. The events are read by the firmware's own code on the unix port."""
    from nakk.match import read_lines
    from nakk_host import simulator as S
    lines = _sim_errors(lambda: S.dump_events(image))
    if not lines:
        return [], None
    m, error = read_lines(lines)
    if error is not None:
        n, e = error
        raise CommandError("event %d on the flash image is invalid: %s%s" % (n, (e.field + ": ") if e.field else "", e.reason))
    return lines, m


def _print_events(lines, source="read back from the flash image"):
    """The events (read back from a flash image, or as the judge stored them), and their fold as `nakk score` prints it."""
    print()
    print("The match's %d events, %s:" % (len(lines), source))
    for line in lines:
        print("  " + line.decode())
    print()
    print("Folded as `nakk score` does:")
    print(_score_text(lines))


def _score_text(lines):
    """What `nakk score` prints for these events."""
    out = io.StringIO()
    err = io.StringIO()
    score_mod.run([line.decode() for line in lines], False, out, err)
    return (out.getvalue() + err.getvalue()).rstrip("\n")


def result_lines(summary):
    """The final score and the winner in words, from a match summary."""
    from nakk.event import SIDES
    s = summary
    names = s["sides"]
    parts = []
    for i in range(len(names)):
        label = SIDES[i] if names[i] == SIDES[i] else "%s (%s)" % (SIDES[i], names[i])
        if s["bonus"][i]:
            parts.append("%s %d (%d + %d bonus)" % (label, s["final"][i], s["score"][i], s["bonus"][i]))
        else:
            parts.append("%s %d" % (label, s["final"][i]))
    out = ["Final score: " + ", ".join(parts) if s["over"] else "Score so far: " + ", ".join(parts)]
    if not s["over"]:
        out.append("The match is not over.")
    elif s["winner"] is not None:
        why = score_mod.ending(s)
        out.append("Winner: %s (%s)" % (s["winner"], why) if why else "Winner: %s" % s["winner"])
    else:
        out.append(score_mod.no_winner(s) or "No winner.")
    return out


def _show_match(image, lines, m):
    if m is None:
        print("No match on the flash image %s yet." % image)
        return
    print("\n".join(result_lines(m.summary())))
    _print_events(lines)


def _check_image(image, fmt):
    """A bad --image is the first thing to say, before keys are read or the firmware starts."""
    from nakk_host import flashimage
    from nakk_host import simulator as S
    try:
        flashimage.check(image, fmt)
    except flashimage.ImageError as e:
        raise CommandError(str(e), 2)
    held = S.image_in_use(image)
    if held is not None:
        raise CommandError(str(S.in_use_error(image, held)))


def cmd_sim(args):
    from nakk_host import textfile
    _check_image(args.image, args.format)
    if args.screenshot:
        textfile.output_file(args.screenshot, option="--screenshot")     # before anything is played
    keys = _read_keys(args)
    if keys is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise CommandError("no terminal for the interactive simulator: give --keys or --keys-file", 2)
        return _interactive(args)
    from nakk_host import simulator as S
    sim = _sim_errors(lambda: S.Simulator(args.image, lang=args.lang, fmt=args.format))
    try:
        _sim_errors(lambda: S.play(sim, keys))
        screen = sim.text()
        if args.screenshot:
            sim.screenshot(args.screenshot)
        sent = sim.sent
    finally:
        sim.close()
    print(screen)
    print("%d presses, %d bytes sent to the display; flash image %s" % (len(keys), sent, os.path.abspath(args.image)))
    if args.screenshot:
        print("screenshot: %s" % args.screenshot)
    print()
    lines, m = match_from_image(args.image)
    _show_match(args.image, lines, m)
    return 0


_TERM_KEYS = {"a": ("A", False), "b": ("B", False), "c": ("C", False), "x": ("A+B", False),
              "j": ("PREV", False), "k": ("OK", False), "l": ("NEXT", False),
              "J": ("PREV", True), "K": ("OK", True), "L": ("NEXT", True),
              "A": ("A", True), "B": ("B", True), "C": ("C", True),
              "\r": ("OK", False), "\n": ("OK", False),
              "\x1b[D": ("PREV", False), "\x1b[C": ("NEXT", False),
              "\x1bOD": ("PREV", False), "\x1bOC": ("NEXT", False)}

_HELP = ("a b c: side buttons   x: A+B together   j k l or \u2190 Enter \u2192: PREV OK NEXT   A B C J K L: held   "
         "u: USB host   s: screenshot   q: quit")


def _term_actions(data):
    """Split what the terminal sent into key names: escape sequences whole, other bytes one by one."""
    out = []
    i = 0
    while i < len(data):
        if data[i] == "\x1b" and i + 2 < len(data) and data[i + 1] in "[O":
            out.append(data[i:i + 3])
            i += 3
        else:
            out.append(data[i])
            i += 1
    return out


def _interactive(args):
    import select
    import shutil
    import termios
    import threading
    import time
    import tty
    from nakk_host import simulator as S
    dirty = threading.Event()
    sim = _sim_errors(lambda: S.Simulator(args.image, lang=args.lang, on_frame=dirty.set, fmt=args.format))
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    out = sys.stdout
    status = ["pty %s (registered: nakk sync, pair and doctor find it)" % sim.tty]
    stop = threading.Event()
    lock = threading.Lock()
    shots = [0]

    def draw():
        cols = shutil.get_terminal_size((132, 40)).columns
        screen = sim.text(color=True, border=cols >= 130)
        usb = "on the judge's USB (rings dimmed)" if sim.usb else "on battery"
        text = "\x1b[H" + screen.replace("\n", "\x1b[K\n") + "\x1b[K\n" + \
            "%s | %s\x1b[K\n%s\x1b[K\n\x1b[J" % (status[0], usb, _HELP)
        with lock:
            out.write(text)
            out.flush()

    def drawer():
        while not stop.is_set():
            if dirty.wait(0.5):
                dirty.clear()
                draw()
                time.sleep(0.03)         # at most ~30 redraws a second

    t = threading.Thread(target=drawer, daemon=True)
    try:
        tty.setcbreak(fd)                # keys one by one, no echo; Ctrl-C still interrupts
        out.write("\x1b[?25l\x1b[2J")
        t.start()
        dirty.set()
        quit_ = False
        while not quit_:
            r, _, _ = select.select([fd], [], [], 0.2)
            if not r:
                if not sim.running():
                    raise CommandError("the simulator stopped" + sim._console_tail())
                continue
            data = os.read(fd, 64).decode("utf-8", "replace")
            for key in _term_actions(data):
                if key in ("q", "Q"):
                    quit_ = True
                    break
                if key == "u":
                    sim.set_usb(not sim.usb)
                    dirty.set()
                elif key == "s":
                    shots[0] += 1
                    path = args.screenshot or "nakk-screen-%d.png" % shots[0]
                    try:
                        sim.screenshot(path)
                        status[0] = "screenshot: %s | pty %s" % (path, sim.tty)
                    except OSError as e:        # said on the status line; the box plays on
                        status[0] = "no screenshot: %s: %s | pty %s" % (path, e.strerror or e, sim.tty)
                    dirty.set()
                elif key in _TERM_KEYS:
                    name, long = _TERM_KEYS[key]
                    _sim_errors(lambda: sim.press(name, long))
    finally:
        stop.set()
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        with lock:
            out.write("\x1b[?25h\n")
            out.flush()
        if t.is_alive():
            t.join(1)
        sim.close()
    lines, m = match_from_image(args.image)
    _show_match(args.image, lines, m)
    return 0


def _demo_pair(sim, db):
    """Pair the simulated box with the judge's database as `nakk pair` does; the demo holds PREV
    and NEXT together when the box asks (as the judge does at the box)."""
    import threading
    from nakk_host import judge
    got = {}

    def run():
        try:
            got["hello"] = judge.pair_box(db, sim.tty, "demo box", say=lambda s: None, judge_name="demo judge")
        except CommandError as e:
            got["error"] = e

    before = sim.sent
    t = threading.Thread(target=run, daemon=True)
    t.start()
    _sim_errors(lambda: sim._wait(lambda: sim.sent > before or not t.is_alive(), "the box to ask"))
    if t.is_alive():
        _sim_errors(lambda: sim.press("PREV+NEXT", long=True))
    t.join(30)
    if "error" in got:
        raise got["error"]
    if "hello" not in got:
        raise CommandError("the box did not answer the pairing")


def _demo_assign(sim, db, t, record):
    """Push table 1's assignment to the simulated box as `nakk assign` does, and note it in the
    judge's database (the table shows 'playing' until its result is in)."""
    from nakk_host import assign as A
    from nakk_host import store
    from nakk_host.tournament import TournamentError
    try:
        conn = _store_errors(lambda: store.open_db(db))
        try:
            dev, _url = A.push(conn, record, url=sim.tty)
            A.pushed(conn, t, record["round"], record["table"], record.get("room", 0), record, device_id=dev)
        finally:
            conn.close()
    except TournamentError as e:
        raise CommandError(str(e))


def cmd_demo(args):
    from nakk_host import simulator as S
    from nakk_host import judge, store
    from nakk_host import demotour
    from nakk_host.tournament import TournamentError
    from nakk_host import textfile
    if args.screenshot:
        textfile.output_file(args.screenshot, option="--screenshot")     # before the match is played
    path = os.path.join(DEMO_DIR, args.ruleset + ".keys")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # the script's setup line is the start wizard by hand; the demo pushes the judge's assignment
    # instead, and the players take it with one OK
    wizard, deals = _sim_errors(lambda: demotour.split_setup(text, lambda t: S.parse_keys(t, path)))
    keys = [("OK", False)] + deals
    tmp = tempfile.mkdtemp(prefix="nakk-demo-")
    image = args.image
    if image is not None:
        _check_image(image, args.format)
    else:
        image = os.path.join(tmp, "nakk-flash.img")
    db = args.db or os.path.join(tmp, "nakk-demo.db")
    try:
        title = rules_pkg.get(args.ruleset).title[1]
        print("nakk demo: a whole %s match on the simulator, entered with %d button presses" % (title, len(keys)))
        print("(the real firmware on the MicroPython unix port; flash: %s)" % (image if args.image else "a fresh image"))
        conn = _store_errors(lambda: store.open_db(db))
        try:
            t, created = demotour.tournament(conn, args.ruleset)
            round_no, room, drawn = demotour.next_table(conn, t)
            record = demotour.assignment(conn, t, round_no, room)
        except TournamentError as e:
            raise CommandError(str(e))
        finally:
            conn.close()
        print()
        print("The judge's evening (nakk tournament, players, round): tournament %s %s, %d entrants; round %d %s."
              % (t["code"], "created" if created else "reused", len(demotour.ENTRANTS[t["format"]]), round_no,
                 "drawn" if drawn else "drawn before"))
        sim = _sim_errors(lambda: S.Simulator(image, register=False, fmt=args.format))
        try:
            print("serial port: %s" % sim.tty)
            print("The judge pairs the box (nakk pair --judge 'demo judge'): the box asks \"Paarida kohtuniku "
                  "arvutiga?\" naming the judge, and the demo holds PREV and NEXT together at the box.")
            _demo_pair(sim, db)
            _demo_assign(sim, db, t, record)
            print("The judge assigns table 1 (nakk assign): %s%s, pushed to the box over the link; the players "
                  "take it with one OK instead of %d presses setting the match up by hand."
                  % (" vs ".join(x["name"] for x in record["sides"]), (", room %d" % room) if room else "",
                     len(wizard)))
            _sim_errors(lambda: S.play(sim, keys))
            screen = sim.text()
            if args.screenshot:
                sim.screenshot(args.screenshot)
            sent = sim.sent
            print()
            print("At the table, when the last press is done:")
            print(screen)
            print()
            print("The judge syncs (nakk sync): the box hands over its finished match, signed; the judge checks "
                  "the signature, counts the match again from its deals, stores it, and only then acknowledges it.")
            status, reports = judge.run_sync(db, [sim.tty])
            if status != 0 or not reports[0].new:
                raise CommandError("the demo's sync did not store the match")
            rid = reports[0].new[0]
            print()
            print("Syncing again stores nothing new:")
            judge.run_sync(db, [sim.tty])
        finally:
            sim.close()
        conn = _store_errors(lambda: store.open_db(db))
        try:
            row = store.result_by_id(conn, rid)
            shown = judge.result_rows(conn)
        finally:
            conn.close()
        s = json.loads(row["summary"])
        print()
        print("The judge's stored result (nakk results%s):" % (" --db " + db if args.db else ""))
        judge.print_results([r for r in shown if r["result_id"] == rid])
        print("\n".join(result_lines(s)))
        print("Presses: %d for %d deals (%d bytes sent to the display)" % (len(keys), s["deals"], sent))
        if args.screenshot:
            print("Screenshot: %s" % args.screenshot)
        lines = [line for line in bytes(row["events"]).split(b"\n") if line]
        _print_events(lines, "as the judge stored them (the box's exact bytes, %s)" % row["status"])
        print()
        conn = _store_errors(lambda: store.open_db(db))
        try:
            print("The standings (nakk standings%s -t %s), counted from the stored events:"
                  % (" --db " + db if args.db else "", t["code"]))
            cli_acts.print_standings(conn, t)
            if room:
                print("(a Turniirisasku match counts when both rooms' boards are in: the demo plays room 1 only)")
        finally:
            conn.close()
        if args.image:
            print()
            print("Look at the box yourself: nakk sim --image %s" % image)
        if args.db:
            print()
            print("See it in a browser: nakk serve --db %s" % db)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _store_errors(f):
    from nakk_host import store
    try:
        return f()
    except store.StoreError as e:
        raise CommandError(str(e))


COMMANDS = (
    Command("sim", cmd_sim,
            "run the firmware on the MicroPython unix port: keys for buttons, the screen in the terminal",
            "Run the real firmware on the MicroPython unix port with the simulator board: "
                "keys for the buttons, the OLED and the rings drawn in the terminal, the flash as a LittleFS "
                "image file (killing the simulator is a power cut), the USB serial port on a pseudo-terminal "
                "that is registered for `nakk sync`, `nakk pair` and `nakk doctor`. With --keys or --keys-file it plays them, prints the final screen and "
                "the match, and exits.",
            arg("--image", default="nakk-flash.img", help="flash image file (created if missing; an existing file must be a Nakk flash image; "
                "default: %(default)s)"),
            arg("--format", action="store_true", help="overwrite the --image file with an empty flash, whatever it holds"),
            arg("--keys", help='key script, e.g. "OK OK OK OK A A" (A B C PREV OK NEXT; PREV:long OK:long NEXT:long or LPREV LOK LNEXT; A+B a chord; PREV+NEXT:long held together)'),
            arg("--keys-file", help="key script file (# starts a comment)"),
            arg("--screenshot", metavar="FILE.png", help="write a PNG of the OLED and the rings (at the end, or on `s`)"),
            arg("--lang", choices=("et", "en"), help="the box's language (saved on its flash)")),

    Command("demo", cmd_demo,
            "play a scripted match on the simulator, sync it to a judge's database, print the result",
            "Play a whole scripted match on the simulator, with nobody at the keyboard, "
                "then pair the box with a judge's database and sync it over the simulator's serial port, as "
                "`nakk pair` and `nakk sync` do, and print the final screen, the sync, and the result as the "
                "judge stored it: score, winner, presses and the match's exact events.",
            arg("--ruleset", choices=rules_pkg.NAMES, default=rules_pkg.NAMES[0], help="the game (default: %(default)s)"),
            arg("--image", help="flash image file to play on (created if missing; an existing file must be "
                "a Nakk flash image; default: a fresh temporary one)"),
            arg("--format", action="store_true", help="overwrite the --image file with an empty flash, whatever it holds"),
            arg("--db", help="the judge's database to keep: the demo tournament is created in it (or reused) "
                "and the match synced into it, for `nakk serve --db FILE` (default: a temporary one, removed "
                "at the end)"),
            arg("--screenshot", nargs="?", const="nakk-demo.png", metavar="FILE.png", help="write a PNG of the final screen and rings (default name: %(const)s)")),
)
