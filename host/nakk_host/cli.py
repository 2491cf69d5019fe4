"""The `nakk` command: one small function and parser per subcommand; errors as `nakk: message`, non-zero exit."""

import argparse
import io
import json
import os
import shutil
import sys
import tempfile

from nakk import VERSION
from nakk import rules as rules_pkg
from nakk import score as score_mod


from nakk_host.errors import CommandError  # noqa: F401  (commands raise it; main() prints it)


# ---------------------------------------------------------------- score

def cmd_score(args):
    # bytes, not text: nakk.match reports text that is not UTF-8 by line and column
    from nakk_host import textfile
    return score_mod.run(textfile.event_lines(args.file), args.json)


def add_score(sub):
    p = sub.add_parser("score", help="score a match from its events (JSON lines)",
                       description="Read a match as JSON lines of events and print totals, winner and bonuses.")
    p.add_argument("file", help="events file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=cmd_score)


# ---------------------------------------------------------------- rules

def describe_rules(name, lang="en"):
    r = rules_pkg.get(name)
    li = 0 if lang == "et" else 1
    out = ["%s: %s (%s, %d sides, %d players, scored in %s)" % (
        r.name, r.title[li], r.family, r.sides, r.seats, r.unit[li])]
    out.append("")
    out.append("Settings (a club that reads a sentence the other way changes one setting;")
    out.append("the [references] are explained in docs/rules.md of the Nakk repository):")
    for s in r.settings:
        default = "true" if s.default is True else "false" if s.default is False else str(s.default)
        out.append("  %s = %s" % (s.key, default))
        out.append("      choices: %s   [%s]" % (s.describe_choices(), s.ref))
        out.append("      %s" % s.text)
    cfg = r.config(None)
    out.append("")
    out.append("What a deal needs (the entry steps; each list as the cursor meets it: the likeliest under it, the next likeliest one NEXT or PREV away):")
    st = r.start({"sides": []}, cfg)
    fixed, steps = r.form(st, cfg)
    for stp in steps:
        labels = []
        for c in stp["choices"]:
            hows = []
            if c.get("side") is not None:
                fills = [c["side"]] + list(c.get("also", ()))
                how = "side button -> %s" % "+".join(fills)
                if c.get("opp"):
                    how += ", the other side -> %s" % c["opp"]
                for k in sorted(c.get("sets", {})):
                    how += ", %s = %s" % (k, c["sets"][k])
                hows.append(how)
            if c.get("ok"):
                hows.append("OK")
            when = ""
            if "when" in c:
                when = " (only for %s)" % "/".join(str(v) for v in c["when"][1])
            labels.append("%s [%s]%s" % (c["label"][li], " or ".join(hows), when))
        head = stp["label"][li]
        if "count" in stp:
            head += " (a tally of %d: a side button adds one, OK gives the rest to %s)" % (stp["count"], stp["rest"])
        if "ok" in stp:
            labels.append("OK on any: %s" % stp["ok"]["label"][li])
        out.append("  %s: %s" % (head, "; ".join(labels)))
    if r.offences:
        out.append("")
        out.append("Penalties: " + ", ".join("%s (%s)" % (o[0], o[2 - (li == 0)]) for o in r.offences))
    if r.redeal_reasons:
        out.append("Redeal reasons: " + ", ".join(o[0] for o in r.redeal_reasons))
    return "\n".join(out)


def cmd_rules(args):
    if args.name is None:
        for name in rules_pkg.NAMES:
            r = rules_pkg.get(name)
            print("%-14s %s" % (name, r.title[1]))
        return 0
    try:
        print(describe_rules(args.name, args.lang))
    except KeyError as e:
        raise CommandError(str(e.args[0]), 2)
    return 0


def add_rules(sub):
    p = sub.add_parser("rules", help="list the rulesets, or print one ruleset's settings and defaults",
                       description="Print a ruleset's settings, their defaults and alternatives, for a judge.")
    p.add_argument("name", nargs="?", help="ruleset id: " + ", ".join(rules_pkg.NAMES))
    p.add_argument("--lang", choices=("en", "et"), default="en", help="language of the labels")
    p.set_defaults(func=cmd_rules)


# ---------------------------------------------------------------- sim and demo

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
              "\r": ("OK", False), "\n": ("OK", False),
              "\x1b[D": ("PREV", False), "\x1b[C": ("NEXT", False),
              "\x1bOD": ("PREV", False), "\x1bOC": ("NEXT", False)}

_HELP = ("a b c: side buttons   x: A+B together   j k l or \u2190 Enter \u2192: PREV OK NEXT   J K L: long PREV/OK/NEXT   "
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


def add_sim(sub):
    p = sub.add_parser("sim", help="run the firmware on the MicroPython unix port: keys for buttons, the screen in the terminal",
                       description="Run the real firmware on the MicroPython unix port with the simulator board: "
                       "keys for the buttons, the OLED and the rings drawn in the terminal, the flash as a LittleFS "
                       "image file (killing the simulator is a power cut), the USB serial port on a pseudo-terminal "
                       "that is registered for `nakk sync`, `nakk pair` and `nakk doctor`. With --keys or --keys-file it plays them, prints the final screen and "
                       "the match, and exits.")
    p.add_argument("--image", default="nakk-flash.img",
                   help="flash image file (created if missing; an existing file must be a Nakk flash image; "
                   "default: %(default)s)")
    p.add_argument("--format", action="store_true",
                   help="overwrite the --image file with an empty flash, whatever it holds")
    p.add_argument("--keys", help='key script, e.g. "OK OK OK OK A A" (A B C PREV OK NEXT; PREV:long OK:long NEXT:long or LPREV LOK LNEXT; A+B a chord; PREV+NEXT:long held together)')
    p.add_argument("--keys-file", help="key script file (# starts a comment)")
    p.add_argument("--screenshot", metavar="FILE.png", help="write a PNG of the OLED and the rings (at the end, or on `s`)")
    p.add_argument("--lang", choices=("et", "en"), help="the box's language (saved on its flash)")
    p.set_defaults(func=cmd_sim)


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
    from nakk_host import demotour, standings
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


def add_demo(sub):
    p = sub.add_parser("demo", help="play a scripted match on the simulator, sync it to a judge's database, print the result",
                       description="Play a whole scripted match on the simulator, with nobody at the keyboard, "
                       "then pair the box with a judge's database and sync it over the simulator's serial port, as "
                       "`nakk pair` and `nakk sync` do, and print the final screen, the sync, and the result as the "
                       "judge stored it: score, winner, presses and the match's exact events.")
    p.add_argument("--ruleset", choices=rules_pkg.NAMES, default=rules_pkg.NAMES[0], help="the game (default: %(default)s)")
    p.add_argument("--image", help="flash image file to play on (created if missing; an existing file must be "
                   "a Nakk flash image; default: a fresh temporary one)")
    p.add_argument("--format", action="store_true",
                   help="overwrite the --image file with an empty flash, whatever it holds")
    p.add_argument("--db", help="the judge's database to keep: the demo tournament is created in it (or reused) "
                   "and the match synced into it, for `nakk serve --db FILE` (default: a temporary one, removed "
                   "at the end)")
    p.add_argument("--screenshot", nargs="?", const="nakk-demo.png", metavar="FILE.png",
                   help="write a PNG of the final screen and rings (default name: %(const)s)")
    p.set_defaults(func=cmd_demo)


# ---------------------------------------------------------------- flash

def cmd_flash(args):
    from mpremote.transport import TransportError
    try:
        return _flash(args)
    except (OSError, TransportError) as e:     # pyserial's SerialException is an OSError
        raise CommandError("the box went away during nakk flash (%s): plug it in again and run nakk flash again "
                           "(a box cut off mid-copy boots to the REPL, not half-updated)" % (str(e).strip() or type(e).__name__))


def _flash(args):
    from nakk_host import flash
    if args.uf2:
        from nakk_host import uf2flash
        try:
            r = uf2flash.install(args.uf2, args.port, say=print, db=args.db)
        except flash.FlashError as e:
            raise CommandError(str(e))
        print("the box runs firmware %s (build %s); %d result%s waiting for the judge"
              % (r["after"]["fw"], r["after"]["build"], r["after"].get("unsynced", 0),
                 "" if r["after"].get("unsynced", 0) == 1 else "s"))
        return 0
    try:
        r = flash.flash(args.port, force=args.force, say=print, progress=sys.stdout.isatty(), db=args.db)
    except flash.FlashError as e:
        raise CommandError(str(e))
    if r["copied"] or r["removed"]:
        print("copied %d file%s (%d bytes)%s; firmware %s (build %s) on MicroPython %s; the app restarts"
              % (len(r["copied"]), "" if len(r["copied"]) == 1 else "s", r["bytes"],
                 (", removed %d" % len(r["removed"])) if r["removed"] else "",
                 r["version"], r["build"], r["micropython"]))
    else:
        print("nothing to copy: the box has firmware %s (build %s); the app restarts" % (r["version"], r["build"]))
    return 0


def add_flash(sub):
    p = sub.add_parser("flash", help="install or update the firmware on a box (a Pico with MicroPython) over USB",
                       description="Put the firmware and its dependencies onto the one connected box, copying only "
                                   "what changed, then restart its app. Refuses while finished results wait for "
                                   "the judge.")
    p.add_argument("--port", help="the box's serial port or a pyserial URL (default: the one Pico on USB)")
    p.add_argument("--force", action="store_true", help="flash even though results wait for the judge (they stay on the box)")
    from nakk_host import store
    p.add_argument("--db", default=store.default_db(), metavar="FILE",
                   help="the judge's database (%s): a paired box enters maintenance mode only on a request signed "
                   "with the key kept there" % store.default_help())
    p.add_argument("--uf2", metavar="FILE", help="install this UF2 (nakk build's) through the Pico's BOOTSEL drive "
                   "instead of copying .mpy files; the box's results stay on it")
    p.set_defaults(func=cmd_flash)


# ---------------------------------------------------------------- serve

def cmd_serve(args):
    from nakk_host import store
    from nakk_host.hall import server
    if args.page_seconds < 1:
        raise CommandError("--page-seconds is at least 1 (got %d)" % args.page_seconds, 2)
    try:
        store.open_db(args.db, create=False).close()   # a Nakk database, migrated by the judge's own tool
    except store.StoreError as e:
        raise CommandError(str(e))
    try:
        return server.serve(args.db, args.host, args.port, page_seconds=args.page_seconds)
    except server.ServeError as e:
        raise CommandError(str(e))


def add_serve(sub):
    from nakk_host import store
    p = sub.add_parser("serve", help="the hall's live standings pages in a browser (read-only web server)",
                       description="Serve the hall's pages from the judge's database: standings, the round's draw, "
                       "each table's state and every match's deals, in Estonian (English by a link), with a "
                       "projector view. Pages update themselves within 2 s of a store. Read-only: nothing a visitor "
                       "sends changes the database. Listens on the loopback address unless --host says otherwise.")
    p.add_argument("--db", default=store.default_db(), metavar="FILE",
                   help="the judge's database (%s)" % store.default_help())
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: %(default)s, this laptop only; 0.0.0.0 serves the hall's network)")
    p.add_argument("--port", type=int, default=8080, help="port (default: %(default)s)")
    p.add_argument("--page-seconds", type=int, default=10, metavar="N",
                   help="the projector shows each page of standings for N seconds (default: %(default)s)")
    p.set_defaults(func=cmd_serve)


# ---------------------------------------------------------------- main

def _judge_commands():
    from nakk_host import judge
    return judge.COMMANDS


COMMANDS = (add_score, add_rules, add_sim, add_demo, add_flash, add_serve) + _judge_commands()

# the judge's day (tournament, players, round, assign, enter, close): cli_judge.py; its numbers
# (standings, deduct, disqualify, correct, void, history, export): cli_acts.py
from nakk_host import cli_acts, cli_judge  # noqa: E402
COMMANDS = COMMANDS + cli_judge.COMMANDS + cli_acts.COMMANDS
from nakk_host import uf2build  # noqa: E402  (nakk build: the UF2)
COMMANDS = COMMANDS + (uf2build.add_build,)
from nakk_host.console import server as judge_console  # noqa: E402  (nakk judge: the judge's console)
COMMANDS = COMMANDS + (judge_console.add_judge,)


class _Parser(argparse.ArgumentParser):
    """argparse, but a wrong command line is one `nakk: …` line like every other refusal (exit 2)."""

    def error(self, message):
        sub = self.prog[len("nakk"):].strip()
        self.exit(2, "nakk: %s%s (`%s --help` shows the options)\n" % (sub + ": " if sub else "", message, self.prog))


def parser():
    p = _Parser(prog="nakk", description="Nakk scoreboards: score a match from its events, print a ruleset's "
                                "settings, run the box on the simulator, put the firmware on a box; the judge's day: "
                                "tournaments, players, the draw, assignments, sync with the boxes, paper sheets, "
                                "standings, corrections and the history, exports and the hall's pages. `nakk COMMAND "
                                "--help` says more.")
    p.add_argument("--version", action="version", version="nakk " + VERSION)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in COMMANDS:
        add(sub)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except CommandError as e:
        sys.stderr.write("nakk: %s\n" % e)
        return e.status
    except KeyboardInterrupt:
        sys.stderr.write("nakk: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
