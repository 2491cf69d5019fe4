"""MicroPython: the real app (nakk.app.App) on a test board: SimPins, a framebuf, a LittleFS image file.

Usage: micropython tests/mpy/app_check.py IMAGE SCRIPT [BLOCKS [ASSIGNMENT-JSON]]
SCRIPT is a space-separated list of actions, played with real asyncio timing:
  A B C PREV OK NEXT   tap (60 ms down)      L<name>  hold 1000 ms (long)
  X+Y(+Z)              press X, then Y (and Z) 5 ms apart (all down), release them
  LX+Y                 the same, held 1000 ms (LPREV+NEXT: the pairing's yes)
  hold:<name>          press before the app starts (held at boot), release after 300 ms
  down:X / up:X        press / release side or cluster button X alone (then a person's pace)
  held                 print "held<k> <entry pending 0|1> <ui.holding()> <header hint or ->
                       <the head's box: 0 none, 1 saving, 2 the hint>" (k counts from 1)
  pause:<ms>           let that many ms pass (a button stays as it is)
  ask / ask:<ms>       App.ask the pairing question (time-out ms; default the UI's):
                       prints "asked True|False" (shown or not: only over the start
                       screen); each answer is printed as "answer True|False" when it comes
  offer                write ASSIGNMENT-JSON beside the journal now (not at boot) and
                       call App.assignment_changed()
  ack                  the judge's ack of every finished match (Journal.ack), then
                       App.journal_changed()
  fill / unfill        a file /flash/fill takes all the free flash / is removed
  note                 print "note <mode> <waiting>" at this point
  said                 print "said <seq in play> | <message> | <its detail>" at this point
  wait                 wait until the pending question is answered
After the script (and once the app has settled) it prints one line per fact the test checks:
  summary <canonical JSON of the match summary, or null>
  mode <ui mode>  msg <message or ->  faults <mask>  handled <n>  sent <bytes>
  savingshown <n of frames drawn with saving while an entry was pending>
"""
import asyncio
import sys

import framebuf

from nakk import app as A
from nakk.offbox import simpins as S
from nakk.offbox.blockdev import mount_image
from nakk.drivers.buttons import NAMES
from nakk.event import encode
from nakk.drivers.rings import Rings


class TestBoard:
    def __init__(self, image):
        self.image = image
        self.pins = S.make_pins(6)
        self.clock = None
        self.buf = bytearray(1024)
        self.fb = framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB)
        self.rings = Rings(3, 350, 20)
        self.settings = "/flash/settings.json"
        self.serial = None
        self.app = None
        self.saving_frames = 0
        self.faults_seen = 0
        self.beeps = []

    def show(self, mask):
        if self.app is not None:
            self.faults_seen |= self.app.ui.faults
        if self.app is not None and self.app.table.pending is not None and mask & 1:
            self.saving_frames += 1
        n = 0
        for p in range(8):
            if mask >> p & 1:
                n += 128
        return n

    def leds(self):
        pass

    def buzz(self, ms):
        self.beeps.append(ms)

    def usb_host(self):
        return False

    def mount(self):
        if BLOCKS:
            mount_image(self.image, "/flash", blocks=BLOCKS)
        else:
            mount_image(self.image, "/flash")
        if ASSIGN and not OFFER:
            write_assignment()     # found at boot
        return "/flash/journal"

    def feed(self):
        pass

    def device_id(self):
        return "test"


async def tap(pins, name, ms):
    p = pins[NAMES.index(name)]
    p.press()
    await asyncio.sleep_ms(ms)
    p.release()


ANSWERS = []
HELD = []


def write_assignment():
    # what the judge's link will write: the next match's setup fields
    import os
    try:
        os.mkdir("/flash/journal")
    except OSError:
        pass
    with open("/flash/journal/assignment.json", "wb") as f:
        f.write(ASSIGN)


async def settle(app, cond, ms=5000):
    # wait for a condition, never a fixed time; give up (and say so) after ms
    t = 0
    while not cond():
        if t >= ms:
            print("timeout waiting")
            return
        await asyncio.sleep_ms(5)
        t += 5


async def play(app, script):
    pins = app.board.pins
    for act in script:
        if act.startswith("hold:"):
            continue
        if act == "ask" or act.startswith("ask:"):
            def answered(yes):
                ANSWERS.append(yes)
                print("answer", yes)
            if act == "ask":
                shown = app.ask(("Paarida kohtuniku arvutiga?", "Pair with the judge's laptop?"), answered,
                                detail="Kohtunik Kalju")
            else:
                shown = app.ask(("Paarida?", "Pair?"), answered, int(act[4:]), "Kalju")
            print("asked", shown)
            continue
        if act == "wait":
            n = len(ANSWERS)
            await settle(app, lambda: len(ANSWERS) > n or app.ui.mode != 7)
            continue
        if act == "offer":
            write_assignment()
            app.assignment_changed()
            continue
        if act == "ack":
            j = app.journal
            for n, fin in j.matches():
                if fin:
                    j.ack(n, b'{"type":"synced"}')
            app.journal_changed()
            continue
        if act == "nonew":
            # the flash refuses the next match's file once (as a full heap or a flash error would)
            j = app.journal

            def refuse():
                del j.new_match
                raise OSError(5)
            j.new_match = refuse
            continue
        if act == "fill":
            from flashfill import fill   # here: its compile then costs the capped heap nothing before
            fill()
            continue
        if act == "unfill":
            import os
            os.remove("/flash/fill")
            continue
        if act == "said":
            ui = app.ui
            m = app.table.match
            print("said", m.seq if m is not None else 0, "|", ui.word(ui.msg) if ui.msg is not None else "-",
                  "|", ui.msg2)
            continue
        if act == "note":
            print("note", app.ui.mode, app.waiting)
            continue
        if act == "held":
            HELD.append(1)
            ui = app.ui
            h = ui.held_says()
            print("held%d" % len(HELD), 0 if app.table.pending is None else 1, ui.holding(),
                  ui.word(h) if h is not None else "-", app._head_box())
            continue
        if act.startswith("pause:"):
            await asyncio.sleep_ms(int(act[6:]))
            continue
        if act.startswith("down:") or act.startswith("up:"):
            p = pins[NAMES.index(act.split(":")[1])]
            if act.startswith("down:"):
                p.press()
            else:
                p.release()
            await asyncio.sleep_ms(120)
            continue
        if "+" in act:
            hold = 60
            if act.startswith("L"):
                act = act[1:]
                hold = 1000
            together = act.split("+")
            for k in range(len(together)):
                if k:
                    await asyncio.sleep_ms(5)
                pins[NAMES.index(together[k])].press()
            await asyncio.sleep_ms(hold)
            for x in together:
                pins[NAMES.index(x)].release()
        elif act.startswith("L"):
            await tap(pins, act[1:], 1000)
        else:
            await tap(pins, act, 60)
        await asyncio.sleep_ms(120)   # a person's pace between presses


def main(image, script):
    board = TestBoard(image)
    held = [a[5:] for a in script if a.startswith("hold:")]
    for h in held:
        board.pins[NAMES.index(h)].press()
    app = A.App(board)
    board.app = app

    async def run():
        asyncio.create_task(app.run())
        await asyncio.sleep_ms(50)
        for h in held:
            await asyncio.sleep_ms(300)
            board.pins[NAMES.index(h)].release()
            await asyncio.sleep_ms(120)   # a person's pace: the next press is not a bounce
        await play(app, script)
        await settle(app, app.settled)

    asyncio.run(run())
    m = app.table.match
    print("summary", encode(m.summary()).decode() if m is not None else "null")
    ui = app.ui
    print("mode", ui.mode)
    print("msg", ui.word(ui.msg) if ui.msg is not None else "-")
    print("faults", ui.faults)
    print("faultsseen", board.faults_seen)
    print("beeps", " ".join(str(b) for b in board.beeps) or "-")
    print("waiting", app.waiting)
    print("handled", app.handled)
    print("sent", app.sent)
    print("savingshown", board.saving_frames)
    print("pending", 0 if app.table.pending is None else 1)
    print("offered", 1 if ui.assignment is not None and ui.mode == 0 and ui.on_assignment else 0)
    import os
    try:
        os.stat("/flash/journal/assignment.json")
        print("assignment", "kept")
    except OSError:
        print("assignment", "gone")


BLOCKS = int(sys.argv[3]) if len(sys.argv) > 3 else 0   # a smaller flash (4 KiB blocks); 0: the Pico's
ASSIGN = sys.argv[4].encode() if len(sys.argv) > 4 else b""  # an assignment from the judge to find at boot
OFFER = "offer" in sys.argv[2].split()    # ... or to be written while the app runs
main(sys.argv[1], sys.argv[2].split())
