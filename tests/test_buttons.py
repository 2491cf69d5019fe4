"""Button driver (firmware/nakk/drivers/buttons.py) on the MicroPython unix port, with simulated pins and a hand-driven clock.

Each test runs a small MicroPython script: PRELUDE builds SimPins, a SimClock
and a Buttons driver, then the scenario moves the clock one ms at a time and
calls poll() (the task's step), printing every event as "E <ms since start>
<event>" at the poll that emitted it, and as "T <ms since start> <event>"
with the time the event carries (K.at(ev): the timeline). Nothing waits on real time except the asyncio
integration tests at the end, which await the events themselves: the driver's tasks on the hand clock, the ISR's
ThreadSafeFlag wake and the timer task on the real ms clock (the driver's own timeline against the clock when
`await b.get()` returned), and the poll loop alone on a port without ThreadSafeFlag."""
import os
import shutil
import subprocess

import pytest

from conftest import FIRMWARE, micropython_path, run_mpy

PRELUDE = r'''
import gc, micropython, time
from nakk.drivers import buttons as K
from nakk.offbox import simpins as S
clk = None
pins = None
b = None
T0 = 0
PICO = 1 << 30

def setup(start=0, period=PICO, n=6, held=(), **kw):
    global clk, pins, b, T0
    clk = S.SimClock(start, period)
    T0 = clk.ticks_ms()
    pins = S.make_pins(n)
    for i in held:
        pins[i].press()
    b = K.Buttons(pins, clock=clk, **kw)
    drain()

def now():
    return clk.ticks_diff(clk.ticks_ms(), T0)

def drain():
    while True:
        ev = b.get_nowait()
        if not ev:
            break
        print("E", now(), K.describe(ev))
        print("T", K.span(T0, K.at(ev)), K.describe(ev))

def go(ms, poll=True):
    # Move the clock to `ms` after the start, one ms at a time; the task
    # polls every ms unless it is blocked (poll=False).
    target = clk.ticks_add(T0, ms)
    while clk.ticks_diff(target, clk.ticks_ms()) > 0:
        clk.advance(1)
        if poll:
            b.poll()
            drain()

def poll():
    b.poll()
    drain()

def tap(i, at, ms, bounce=0):
    go(at)
    pins[i].press()
    pins[i].bounce(bounce, 0)
    go(at + ms)
    pins[i].release()
    pins[i].bounce(bounce, 1)

A, B, C, PREV, OK, NEXT = 0, 1, 2, 3, 4, 5
'''


def run(script, heap="320K", timeout=60):
    r = run_mpy(["-c", PRELUDE + script], heap=heap, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def events(out, tag="E"):
    """[(ms, 'KIND BUTTON'), ...] from a scenario's output: when each event was
    polled (tag E), or when it happened (tag T, see timeline)."""
    evs = []
    for line in out.splitlines():
        if line.startswith(tag + " "):
            _, t, rest = line.split(" ", 2)
            evs.append((int(t), rest))
    return evs


def timeline(out):
    """[(ms, 'KIND BUTTON'), ...]: the time each event happened (the time it carries)."""
    return events(out, "T")


def results(out):
    """{key: value} from 'R key value' lines."""
    res = {}
    for line in out.splitlines():
        if line.startswith("R "):
            _, k, v = line.split(" ", 2)
            res[k] = v
    return res


def test_firmware_files_compile_with_mpy_cross(tmp_path):
    exe = os.path.join(os.path.dirname(micropython_path() or ""), "mpy-cross")
    if not os.path.exists(exe):
        exe = shutil.which("mpy-cross")
    if exe is None:
        pytest.skip("mpy-cross not installed")
    for rel in ("nakk/drivers/buttons.py", "nakk/offbox/simpins.py"):
        out = tmp_path / (os.path.basename(rel) + ".mpy")
        r = subprocess.run([exe, "-o", str(out), os.path.join(FIRMWARE, rel)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


# ---- side buttons: press-down, bounce, two at once -------------------------

def test_side_press_is_emitted_on_press_down_once_despite_bounce():
    out = run('''
setup()
tap(A, 100, 300, bounce=5)      # five bounce edges on press and on release
go(1000)
go(1100); pins[A].press(); go(1102); pins[A].release(); go(1103); pins[A].press()
go(1104); pins[A].release(); go(1106); pins[A].press()      # bounce spread over 6 ms
go(1500); pins[A].release(); go(1501); pins[A].press(); go(1503); pins[A].release()
go(2000)
''')
    # PRESS comes at the first poll after the first edge, before any release.
    assert events(out) == [(101, "PRESS A"), (1101, "PRESS A")]
    assert timeline(out) == [(100, "PRESS A"), (1100, "PRESS A")]


def test_side_press_with_bounce_is_one_press_at_once():
    out = run('''
setup()
tap(B, 100, 50, bounce=3)
go(500)
''')
    # emitted by the first poll after the edge (the harness polls every ms)
    assert events(out) == [(101, "PRESS B")]


def test_two_sides_together_give_each_its_press_with_its_time():
    # the driver has no chord window: whether two presses were "together" is
    # the UI's call, from the times the events carry (nakk.ui.flows)
    out = run('''
setup()
go(100); pins[A].press(); go(120); pins[B].press()
go(300); pins[A].release(); pins[B].release()
go(1000); pins[A].press(); go(1010); pins[C].press(); go(1039); pins[B].press()
go(1200); pins[A].release(); pins[B].release(); pins[C].release()
go(2000); pins[A].press(); go(2040); pins[B].press()      # 40 ms apart: not together
go(2300); pins[A].release(); pins[B].release()
go(3000); pins[C].press(); pins[B].press()                 # same ms
go(3100); pins[C].release(); pins[B].release()
go(3500)
''')
    assert events(out) == [
        (101, "PRESS A"), (121, "PRESS B"),
        (1001, "PRESS A"), (1011, "PRESS C"), (1040, "PRESS B"),
        (2001, "PRESS A"), (2041, "PRESS B"),
        (3001, "PRESS C"), (3001, "PRESS B"),
    ]
    assert timeline(out) == [
        (100, "PRESS A"), (120, "PRESS B"),
        (1000, "PRESS A"), (1010, "PRESS C"), (1039, "PRESS B"),
        (2000, "PRESS A"), (2040, "PRESS B"),
        (3000, "PRESS C"), (3000, "PRESS B"),
    ]


# ---- cluster: short and long --------------------------------------------------

def test_cluster_short_on_release_and_long_once_while_held():
    out = run('''
setup()
tap(OK, 100, 200, bounce=4)       # released at 300: SHORT on that edge, polled at 301
tap(OK, 1000, 2000, bounce=4)     # held 2 s: one LONG at 1800, nothing on release
tap(PREV, 4000, 799)              # just short of the threshold: released at 4799
tap(NEXT, 5000, 800)              # exactly the threshold: LONG (the timer at 5800 fires before the edge)
go(7000)
''')
    assert events(out) == [
        (301, "SHORT OK"),
        (1800, "LONG OK"),
        (4800, "SHORT PREV"),
        (5800, "LONG NEXT"),
    ]
    assert timeline(out) == [
        (300, "SHORT OK"),
        (1800, "LONG OK"),
        (4799, "SHORT PREV"),
        (5800, "LONG NEXT"),
    ]


def test_release_bounce_across_the_long_threshold_is_short():
    out = run('''
setup()
go(100); pins[OK].press()
go(898); pins[OK].release()       # released before 900: SHORT on this edge ...
go(901); pins[OK].press()         # ... bounce after the threshold: no LONG
go(903); pins[OK].release()       # confirmed at 928: nothing more
go(1200)
''')
    assert events(out) == [(899, "SHORT OK")]
    assert timeline(out) == [(898, "SHORT OK")]


def test_short_is_emitted_at_the_release_edge_of_a_steady_press():
    out = run('''
setup()
go(100); pins[OK].press()
go(300); pins[OK].release()
go(301); print("R down301", b.is_down(OK))      # SHORT out, release not confirmed yet
go(324); print("R down324", b.is_down(OK))
go(325); print("R down325", b.is_down(OK))      # confirmed: 25 ms settled
go(1000); pins[NEXT].press(); go(1025); pins[NEXT].release()   # steady exactly debounce_ms
go(2000); pins[NEXT].press(); go(2024); pins[NEXT].release()   # 1 ms short of it
go(3000); pins[PREV].press(); go(3002); pins[PREV].release(); go(3004); pins[PREV].press()
go(3029); pins[PREV].release()                  # steady 25 since the last press bounce (3004)
go(4000); pins[PREV].press(); go(4002); pins[PREV].release(); go(4004); pins[PREV].press()
go(4028); pins[PREV].release()                  # down 28, but steady only 24
go(4500)
''')
    r = results(out)
    assert (r["down301"], r["down324"], r["down325"]) == ("True", "True", "False")
    # Steady >= debounce_ms before the release edge: SHORT at that edge (the
    # harness polls it 1 ms later). Less: SHORT when the release is confirmed.
    assert events(out) == [
        (301, "SHORT OK"),
        (1026, "SHORT NEXT"),
        (2049, "SHORT NEXT"),
        (3030, "SHORT PREV"),
        (4053, "SHORT PREV"),
    ]
    assert timeline(out) == [
        (300, "SHORT OK"),
        (1025, "SHORT NEXT"),
        (2049, "SHORT NEXT"),
        (3029, "SHORT PREV"),
        (4053, "SHORT PREV"),
    ]


def test_release_chatter_gives_one_short_at_the_first_release_edge():
    out = run('''
setup()
go(100); pins[NEXT].press()
go(400); pins[NEXT].release()                   # the first release edge: SHORT
go(403); pins[NEXT].press(); go(405); pins[NEXT].release(); go(410); pins[NEXT].press()
go(418); pins[NEXT].release(); go(420); pins[NEXT].bounce(3, 1)   # 9 edges within 20 ms, ends released
print("R edges", pins[NEXT].edges)
go(444); print("R down444", b.is_down(NEXT))
go(445); print("R down445", b.is_down(NEXT))     # 25 ms after the last edge (420)
go(600)
tap(NEXT, 700, 100, bounce=5)                   # the next press is a press of its own
go(1000)
''')
    r = results(out)
    assert r["edges"] == "10"
    assert (r["down444"], r["down445"]) == ("True", "False")
    assert events(out) == [(401, "SHORT NEXT"), (801, "SHORT NEXT")]
    assert timeline(out) == [(400, "SHORT NEXT"), (800, "SHORT NEXT")]


def test_reclose_after_an_early_short_is_no_long_but_stuck_is_a_fault():
    out = run('''
setup()
go(100); pins[OK].press()
go(400); pins[OK].release()                     # SHORT
go(405); pins[OK].press()                       # re-closes and stays closed: the release bouncing
go(5099); print("R faults5099", b.faults, b.is_down(OK))
go(6000); pins[OK].release()
go(6100)
tap(OK, 6200, 100)
go(6500)
print("R faults", b.faults)
''')
    # No LONG (at 900 or ever) for a press that already gave its SHORT; held
    # stuck_ms from the press's start (100) it is a FAULT, as any press.
    assert events(out) == [(401, "SHORT OK"), (5100, "FAULT OK"), (6025, "CLEAR OK"), (6301, "SHORT OK")]
    assert timeline(out) == [(400, "SHORT OK"), (5100, "FAULT OK"), (6025, "CLEAR OK"), (6300, "SHORT OK")]
    r = results(out)
    assert r["faults5099"] == "0 True" and r["faults"] == "0"


def test_spike_shorter_than_debounce_gives_its_short_on_confirmation():
    out = run('''
setup()
go(100); pins[PREV].press(); go(110); pins[PREV].release()       # down 10 ms
go(300); pins[PREV].press(); pins[PREV].release()                 # a pulse within one ms
go(500); pins[PREV].press(); go(501); pins[PREV].release(); go(503); pins[PREV].press()
go(510); pins[PREV].release()                                     # bouncing all along
go(700)
''')
    # Never down steadily for debounce_ms: one SHORT each, 25 ms after the last edge.
    assert events(out) == [(135, "SHORT PREV"), (325, "SHORT PREV"), (535, "SHORT PREV")]
    assert timeline(out) == events(out)


def test_long_press_gives_long_and_no_short():
    out = run('''
setup()
tap(OK, 100, 1000, bounce=3)       # LONG at 900; the release at 1100 and its bounce: nothing
tap(PREV, 2000, 820)               # released 20 ms after the LONG
go(3000); pins[PREV].press(); go(3010); pins[PREV].release()   # a spike after it: a press of its own
go(3500)
print("R down", b.is_down(OK), b.is_down(PREV))
''')
    assert events(out) == [(900, "LONG OK"), (2800, "LONG PREV"), (3035, "SHORT PREV")]
    assert timeline(out) == events(out)
    assert results(out)["down"] == "False False"


def test_long_waits_for_a_steady_contact():
    out = run('''
setup()
go(100); pins[OK].press()
for t in range(110, 930, 10):     # chattering from the start (closed 9 ms at a time), ends pressed
    go(t); pins[OK].release(); go(t + 1); pins[OK].press()
print("R down", b.is_down(OK))
go(1200); pins[OK].release()
go(1500)
''')
    # Never steady for debounce_ms before a release edge: no early SHORT, and
    # the release is never confirmed. Last chatter edge at 921: LONG once the
    # contact has been steady for 25 ms (946), not at 900.
    assert events(out) == [(946, "LONG OK")]
    assert results(out)["down"] == "True"


def test_chatter_around_the_threshold_after_a_steady_press_is_one_short():
    out = run('''
setup()
go(100); pins[OK].press()
for t in range(890, 930, 4):      # steady 790 ms, then chattering across 900, ends pressed
    go(t); pins[OK].release(); go(t + 1); pins[OK].press()
go(1200); pins[OK].release()
go(1500)
tap(OK, 1600, 100)                # the button works normally afterwards
go(2000)
''')
    # 890 is the first release edge of a steady press, before LONG was due
    # (900): SHORT there. The chatter after it, the re-close held to 1200
    # included, is that release bouncing: no LONG, no second SHORT.
    assert events(out) == [(891, "SHORT OK"), (1701, "SHORT OK")]
    assert timeline(out) == [(890, "SHORT OK"), (1700, "SHORT OK")]


def test_random_bounce_trains_never_give_a_double_entry():
    # 300 presses, one at a time, on random buttons, with up to 7 bounce edges
    # on press and on release and random hold times (a quarter of them 5-64
    # ms, around debounce_ms): exactly one event each, at the right time.
    out = run('''
import random
random.seed(1234)
setup()
def collect(upto, got):
    target = clk.ticks_add(T0, upto)
    while clk.ticks_diff(target, clk.ticks_ms()) > 0:
        clk.advance(1)
        b.poll()
        while True:
            ev = b.get_nowait()
            if not ev:
                break
            got.append((K.describe(ev), K.span(T0, K.at(ev))))
def edge(p, level):
    # drive the pin; the time of the edge if the line moved, else None
    e = p.edges
    p.drive(level)
    return now() if p.edges != e else None
t = 100
bad = 0
for k in range(300):
    i = random.getrandbits(8) % 6
    if random.getrandbits(2):
        hold = 30 + random.getrandbits(11) % 1400
    else:
        hold = 5 + random.getrandbits(6)
    got = []
    collect(t, got)
    last = edge(pins[i], 0)
    for j in range(random.getrandbits(3)):          # bounce over <= 4 ms
        collect(t + 1 + j // 2, got); last = edge(pins[i], j % 2 == 0) or last
    last = edge(pins[i], 0) or last                 # the last press edge
    collect(t + hold, got)
    pins[i].release()
    end = t + hold
    for j in range(random.getrandbits(3)):
        collect(t + hold + 1 + j // 2, got); end = edge(pins[i], j % 2) or end
    end = edge(pins[i], 1) or end                   # the last edge of all
    collect(t + hold + 60, got)
    if i < K.NSIDE:
        want = [("PRESS " + K.NAMES[i], t)]             # the time of its first edge
        if hold >= 800:                             # held: its LONG too (the UI decides)
            want.append(("LONG " + K.NAMES[i], t + 800))
    elif hold >= 800:
        want = [("LONG " + K.NAMES[i], t + 800)]
    elif t + hold - last >= 25:                     # steady press: SHORT on the release edge
        want = [("SHORT " + K.NAMES[i], t + hold)]
    else:                                           # when the release is confirmed
        want = [("SHORT " + K.NAMES[i], end + 25)]
    if got != want:
        bad += 1
        print("MISMATCH", k, i, hold, want, got)
    t = t + hold + 60 + random.getrandbits(6)
print("R bad", bad)
print("R faults", b.faults)
''')
    assert "MISMATCH" not in out, out
    assert results(out) == {"bad": "0", "faults": "0"}


# ---- faults -------------------------------------------------------------------------

def test_button_held_at_boot_is_a_fault_until_released():
    out = run('''
setup(held=(A, OK))
print("R faults0", b.faults)
go(7000)                            # still held, long past stuck_ms: nothing more
pins[OK].release(); pins[OK].bounce(3, 1)
go(7010); pins[OK].press(); go(7012); pins[OK].release()   # more bounce
go(7100)
print("R faults1", b.faults)
tap(OK, 7200, 100)                  # OK works again
go(7600); pins[A].release()         # A, held since boot, released at last
go(7700)
tap(A, 7800, 100)
go(8000)
print("R faults2", b.faults)
''')
    assert events(out) == [
        (0, "FAULT A"), (0, "FAULT OK"),      # at construction; nothing else while held
        (7037, "CLEAR OK"),                   # 25 ms after the last bounce edge
        (7301, "SHORT OK"),                   # released at 7300
        (7625, "CLEAR A"),
        (7801, "PRESS A"),
    ]
    r = results(out)
    assert (r["faults0"], r["faults1"], r["faults2"]) == (str(1 | 1 << 4), "1", "0")


def test_stuck_button_faults_then_recovers_after_release():
    out = run('''
setup()
go(100); pins[NEXT].press()
go(7000); pins[NEXT].release(); pins[NEXT].bounce(2, 1)
go(7100)
tap(NEXT, 7200, 100)
go(8000); pins[B].press()
go(14000)
print("R faults", b.faults)
pins[B].release()
go(14100)
tap(B, 14200, 50)
go(15000)
print("R faults2", b.faults)
''')
    assert events(out) == [
        (900, "LONG NEXT"),
        (5100, "FAULT NEXT"),
        (7025, "CLEAR NEXT"),
        (7301, "SHORT NEXT"),                 # released at 7300
        (8001, "PRESS B"),
        (8800, "LONG B"),                     # a side button held: its LONG (the UI decides)
        (13000, "FAULT B"),
        (14025, "CLEAR B"),
        (14201, "PRESS B"),
    ]
    r = results(out)
    assert r["faults"] == "2" and r["faults2"] == "0"


def test_chattering_contact_is_stuck_not_a_stream_of_presses():
    out = run('''
setup()
go(100); pins[PREV].press()
t = 100
while t < 6000:                    # a worn contact: opens for 5 ms every 20 ms
    go(t + 15); pins[PREV].release(); go(t + 20); pins[PREV].press(); t += 20
pins[PREV].release()
go(6200)
''')
    # stuck_ms (5000) ran out while the contact was open (5095..5100): the
    # fault is decided at the next close, 5100, and seen by the poll at 5101.
    assert events(out) == [(5101, "FAULT PREV"), (6025, "CLEAR PREV")]


def test_released_just_before_stuck_ms_is_no_fault():
    out = run('''
setup()
go(100); pins[OK].press(); go(5090); pins[OK].release()      # settles at 5115 > 5100
go(6000); pins[A].press(); go(10990); pins[A].release()
go(12000)
print("R faults", b.faults)
''')
    assert events(out) == [(900, "LONG OK"), (6001, "PRESS A"), (6800, "LONG A")]
    assert results(out)["faults"] == "0"


# ---- the task not running; interrupts off ------------------------------------------

BLOCKED = '''
setup()
go(50)
go(100, POLL); pins[OK].press()
go(1000, POLL); pins[OK].release()             # held 900 ms: a LONG
go(1200, POLL); pins[A].press()
go(1220, POLL); pins[B].press()                # together: two PRESS events 20 ms apart
go(1300, POLL); pins[A].release(); pins[B].release()
go(1400, POLL); pins[PREV].press(); go(1450, POLL); pins[PREV].release()   # a SHORT
go(1600, POLL); pins[C].press(); go(1700, POLL); pins[C].release()         # a PRESS
go(2000, POLL)
poll()
go(2500)
'''


def test_edges_latched_while_the_task_is_blocked_keep_their_timestamps():
    live_out = run("POLL = True\n" + BLOCKED)
    blocked_out = run("POLL = False\n" + BLOCKED)
    live = events(live_out)
    blocked = events(blocked_out)
    assert live == [(900, "LONG OK"), (1201, "PRESS A"), (1221, "PRESS B"), (1451, "SHORT PREV"),
                    (1601, "PRESS C")]
    # Blocked 50..2000 ms: the same decisions, in the same order, emitted at 2000 ...
    assert blocked == [(2000, e) for _, e in live]
    # ... and each carries the time it happened, as live (PREV released at 1450).
    tl = [(900, "LONG OK"), (1200, "PRESS A"), (1220, "PRESS B"), (1450, "SHORT PREV"), (1600, "PRESS C")]
    assert timeline(live_out) == tl
    assert timeline(blocked_out) == tl


def test_a_tap_while_interrupts_are_off_is_not_lost():
    out = run('''
setup()
go(100); st = S.disable_irq()
go(150); pins[OK].press(); pins[OK].bounce(3, 0)
go(250); pins[OK].release(); pins[OK].bounce(3, 1)
go(400); S.enable_irq(st)            # erase over: ISR runs once, both edges flagged
go(1000); st = S.disable_irq()
go(1100); pins[B].press(); go(1180); pins[B].release()
go(1300); S.enable_irq(st)
go(2000); st = S.disable_irq()
go(2100); pins[NEXT].press()         # pressed during the erase, still held after it
go(2300); S.enable_irq(st)
go(3500); pins[NEXT].release()
go(4000)
''')
    assert events(out) == [
        (425, "SHORT OK"),               # tap replayed at the ISR's time (400): press and
        (1301, "PRESS B"),               # release at one instant, so no early SHORT; the
        (3100, "LONG NEXT"),             # release is confirmed 25 later. NEXT: press seen at 2300
    ]
    assert timeline(out) == [(425, "SHORT OK"), (1300, "PRESS B"), (3100, "LONG NEXT")]


# ---- ticks wrap ----------------------------------------------------------------------

WRAP = '''
tap(OK, 100, 300, bounce=2)
tap(NEXT, 600, 1000)
go(2000); pins[A].press(); go(2030); pins[C].press(); go(2100); pins[A].release(); pins[C].release()
tap(B, 2500, 60)
go(3000); pins[PREV].press()
go(9000); pins[PREV].release()
go(9500)
print("R faults", b.faults)
'''


@pytest.mark.parametrize("start", ["0", "PICO - 1", "PICO - 450", "PICO - 1500",
                                   "PICO - 2040", "PICO - 5500", "PICO - 7000"])
def test_pico_tick_wrap_changes_nothing(start):
    out = run("setup(0)\n" + WRAP)
    base = events(out)
    assert base == [
        (401, "SHORT OK"), (1400, "LONG NEXT"), (2001, "PRESS A"), (2031, "PRESS C"), (2501, "PRESS B"),
        (3800, "LONG PREV"), (8000, "FAULT PREV"), (9025, "CLEAR PREV"),
    ]
    tl = [(400, "SHORT OK"), (1400, "LONG NEXT"), (2000, "PRESS A"), (2030, "PRESS C"), (2500, "PRESS B"),
          (3800, "LONG PREV"), (8000, "FAULT PREV"), (9025, "CLEAR PREV")]
    assert timeline(out) == tl
    out = run("setup(%s)\n" % start + WRAP)
    assert events(out) == base
    assert timeline(out) == tl


def test_unix_port_tick_wrap_with_real_ticks_arithmetic():
    # period=None: the clock uses this port's time.ticks_add/ticks_diff
    # (which wrap at 2**62 here) around their own wrap point.
    base = events(run("setup(0, None)\n" + WRAP))
    assert len(base) == 8
    for start in ("time.ticks_add(0, -1)", "time.ticks_add(0, -2040)", "time.ticks_add(0, -5500)"):
        assert events(run("setup(%s, None)\n" % start + WRAP)) == base


# ---- overflow ------------------------------------------------------------------------

def test_ring_overflow_keeps_the_oldest_edges_and_resynchronises():
    out = run('''
setup(ring=16)
for k in range(20):                         # task blocked: 40 edges into a ring of 15
    go(100 + 50 * k, False); pins[OK].press()
    go(120 + 50 * k, False); pins[OK].release()
go(1200, False); pins[A].press()            # dropped as well: only the pin knows
print("R overflows", b.overflows)
poll()
go(1500)
tap(OK, 1600, 100)                           # works normally afterwards
go(2000)
print("R ovf2", b.overflows)
''')
    evs = events(out)
    r = results(out)
    assert r["overflows"] == "26" and r["ovf2"] == "26"
    # 15 edges kept = 7 taps + the 8th press; that press's release and A's
    # press were dropped and are recovered from the pins' levels at 1200.
    # The 7 taps (20 ms each, shorter than debounce_ms) give their SHORTs on
    # confirmation (145, 195, ...); the 8th press (down since 450) is released
    # by the resync at 1200, which gives its SHORT on that edge (after A's
    # PRESS: the resync reads the pins in button order). A is still down at 2000:
    # its LONG, 800 ms after the resync saw it pressed.
    assert evs == [(1200, "SHORT OK")] * 7 + [(1200, "PRESS A"), (1200, "SHORT OK"), (1701, "SHORT OK"),
                                              (2000, "LONG A")]
    assert timeline(out) == ([(145 + 50 * k, "SHORT OK") for k in range(7)]
                             + [(1200, "PRESS A"), (1200, "SHORT OK"), (1700, "SHORT OK"), (2000, "LONG A")])


def test_event_queue_full_drops_the_newest_and_counts():
    out = run('''
setup(queue=4)
for k in range(6):
    i = (PREV, OK, NEXT)[k % 3]
    go(100 + 100 * k, False); pins[i].press(); go(150 + 100 * k, False); pins[i].release()
    go(200 + 100 * k, False); b.poll()
go(800, False); b.poll()
print("R pending", b.pending(), "dropped", b.dropped)
drain()
go(900, False); pins[A].press(); go(1000, False); b.poll()
drain()
''')
    assert results(out)["pending"] == "4 dropped 2"
    # the first four are kept, the two newest were dropped
    assert [e for _, e in events(out)] == ["SHORT PREV", "SHORT OK", "SHORT NEXT", "SHORT PREV", "PRESS A"]


def test_missing_button_and_fewer_pins():
    out = run('''
pins = S.make_pins(6)
clk = S.SimClock(0)
T0 = 0
b = K.Buttons((pins[0], pins[1], None, pins[3], pins[4]), clock=clk)
go(100); pins[A].press(); go(110); pins[B].press(); go(200); pins[A].release(); pins[B].release()
tap(PREV, 300, 50)
tap(OK, 500, 50)
go(1000)
''')
    assert events(out) == [(101, "PRESS A"), (111, "PRESS B"), (351, "SHORT PREV"), (551, "SHORT OK")]


# ---- allocation ---------------------------------------------------------------------

def test_isr_and_poll_allocate_nothing():
    # Every event kind, driven through the ISR (SimPin edges, with bounce) and
    # poll(), first with the heap locked (any allocation raises MemoryError),
    # then unlocked with gc disabled, counting bytes with gc.mem_alloc().
    out = run('''
setup()
# (ms into the cycle, button, level); a cycle gives SHORT OK (on the release
# edge), SHORT PREV (a 10 ms spike: on confirmation), LONG NEXT, PRESS A and
# PRESS B 10 ms apart, PRESS C, LONG PREV, FAULT PREV, CLEAR PREV.
STEPS = ((0, OK, 0), (100, OK, 1), (150, PREV, 0), (160, PREV, 1), (200, NEXT, 0), (1100, NEXT, 1),
         (1200, A, 0), (1210, B, 0), (1300, A, 1), (1300, B, 1),
         (1400, C, 0), (1450, C, 1), (1500, PREV, 0), (7000, PREV, 1))
CYCLE = 7100
kinds = bytearray(8)
def cycles(k0, k1):
    return S.cycles(b, pins, clk, STEPS, CYCLE, k0, k1, T0, kinds)
def measure():
    # inside a function: a new module-level name would grow the globals dict
    cycles(0, 1)                       # warm up
    gc.collect()
    micropython.heap_lock()
    try:
        n = cycles(1, 3)
    finally:
        micropython.heap_unlock()
    print("R locked_events", n)
    print("R kinds", list(kinds))
    gc.collect(); gc.disable()
    m0 = gc.mem_alloc()
    n = cycles(3, 5)
    m1 = gc.mem_alloc()
    gc.enable()
    print("R events", n)
    print("R bytes", m1 - m0)
measure()
print("R state", b.faults, b.overflows, b.dropped)
print("R flag", b._flag is not None)    # so the ISR's flag.set() ran with the heap locked too
''')
    r = results(out)
    assert r["locked_events"] == "18"
    # by kind: -, PRESS, SHORT, LONG, FAULT, CLEAR (warm-up + 2 locked cycles)
    assert r["kinds"] == "[0, 9, 6, 6, 3, 3, 0, 0]"
    assert r["events"] == "18"
    assert r["bytes"] == "0"
    assert r["state"] == "0 0 0"
    assert r["flag"] == "True"


def test_a_latched_edge_newer_than_the_poll_waits_for_the_next_poll():
    out = run('''
setup()
go(200, False)
pins[A].press()                       # ISR time 200
b.poll(clk.ticks_add(T0, 199))        # a poll that read the clock just before
print("R down", b.is_down(A))
go(300)
''')
    assert results(out)["down"] == "False"
    assert events(out) == [(201, "PRESS A")]


# ---- the asyncio task and the UI's await ------------------------------------------------

def test_asyncio_task_delivers_events_to_an_awaiting_ui():
    # The real task and the UI's `await b.get()`. The driver decides on the
    # SimClock (moved by hand); the task sleeps real ms (<= poll_ms) between
    # polls. The test awaits the events themselves, never a sleep.
    out = run('''
import asyncio
setup()
async def main():
    task = b.start()
    got = []
    pins[OK].press(); clk.advance(100); pins[OK].release(); clk.advance(30)
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    pins[A].press(); clk.advance(50); pins[A].release(); clk.advance(30)
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    # held 900 ms and released before the task even ran: the timestamps still say LONG
    pins[NEXT].press(); clk.advance(900); pins[NEXT].release(); clk.advance(50)
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    pins[A].press(); pins[C].press(); clk.advance(60); pins[A].release(); pins[C].release()
    clk.advance(50)
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    # heap per event, end to end: edge -> ISR -> task -> queue -> the awaiting UI
    gc.collect(); gc.disable()
    m0 = gc.mem_alloc()
    for k in range(5):
        pins[PREV].press(); clk.advance(60); pins[PREV].release(); clk.advance(40)
        got.append(await b.get())
    m1 = gc.mem_alloc()
    gc.enable()
    for ev in got:
        print("G", K.describe(ev))
    print("R heap_per_event", (m1 - m0) // 5)
    print("R same_task", task is b.start())
    etask = b._etask
    b.deinit()
    await asyncio.sleep_ms(0)
    print("R detached", pins[A]._handler is None, task.done(), etask.done())
asyncio.run(main())
''', timeout=30)
    got = [line[2:] for line in out.splitlines() if line.startswith("G ")]
    assert got == ["SHORT OK", "PRESS A", "LONG NEXT", "PRESS A", "PRESS C"] + ["SHORT PREV"] * 5
    r = results(out)
    assert r["same_task"] == "True"
    assert r["detached"] == "True True True"
    assert int(r["heap_per_event"]) <= 512


# The two tests below run the driver on the real ms clock (the timer task's
# sleeps are real) and measure on the driver's own timeline: the time the
# event carries against the clock when `await b.get()` returned. Nothing waits on
# a wall-clock sleep for synchronisation: they await the events.

REAL = '''
import asyncio

class Clock:
    # The real ms clock, plus a jump the test adds to hold a button without waiting for it.
    def __init__(self):
        self.off = 0

    def ticks_ms(self):
        return time.ticks_add(time.ticks_ms(), self.off)

    def ticks_add(self, a, d):
        return time.ticks_add(a, d)

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

def seen(clock, ev):
    # the event, and how long after it happened the UI had it (ms, the driver's timeline)
    print("G", K.describe(ev), K.span(K.at(ev), clock.ticks_ms()))

def stamped(ev, t0, t1):
    # ms from t0 and from t1 to when the event happened (t1 - t0 is 0 or 1 ms)
    a = K.span(t0, K.at(ev))
    return a, a - clock.ticks_diff(t1, t0)

clock = Clock()
pins = S.make_pins()

def buttons(**kw):
    # the driver on that clock, polling only every 500 ms: what makes it prompt is the ISR's flag
    return K.Buttons(pins, clock=clock, poll_ms=500, **kw)
'''


def seen(out):
    """[(event, ms from when it happened to `await get()` returning), ...]"""
    res = []
    for line in out.splitlines():
        if line.startswith("G "):
            _, k, name, ms = line.split(" ")
            res.append((k + " " + name, int(ms)))
    return res


def in_time(out, events):
    """The UI got exactly `events`, each within 50 ms of when it happened (the poll_ms of 500
    these tests set, a safety net, would have been up to 500)."""
    got = seen(out)
    assert [e for e, _ in got] == events, out
    for e, ms in got:
        assert 0 <= ms <= 50, (e, ms)


def test_an_edge_wakes_the_driver_at_once():
    # poll_ms and debounce_ms are 500: the timer task sleeps up to 500 ms, so
    # a driver that only polled would see these edges up to 500 ms late. The
    # ISR's ThreadSafeFlag wakes the edge task instead: each event is in the
    # UI's hands within a pass or two of the loop (about 2 ms on the unix
    # port, whose select sleeps 1 ms per pass while a flag is waited on).
    out = run(REAL + '''
b = buttons(debounce_ms=500)
print("R flag", b._flag is not None)

async def main():
    b.start()
    await asyncio.sleep_ms(0)                  # both tasks run: the timer task polls, then sleeps 500 ms
    pins[A].press()                            # a side PRESS, on the press edge
    seen(clock, await b.get())
    pins[OK].press()
    clock.off += 600                           # OK held 600 ms (>= debounce_ms: a real press) ...
    pins[OK].release()                         # ... SHORT on the release edge
    seen(clock, await b.get())
    st = S.disable_irq()                       # a flash erase: interrupts off
    pins[B].press()                            # latched by the hardware, no ISR yet
    S.enable_irq(st)                           # the ISR runs now and sets the flag
    seen(clock, await b.get())
    print("R tasks", b._task is not None, b._etask is not None)
    b.deinit()

asyncio.run(main())
''', timeout=30)
    r = results(out)
    assert r["flag"] == "True" and r["tasks"] == "True True"
    in_time(out, ["PRESS A", "SHORT OK", "PRESS B"])


def test_a_sink_gets_each_event_in_the_task_the_isr_woke():
    # Buttons.sink: the app's way in. No task of the consumer's awaits get(): the
    # edge task (woken by the ISR's flag) hands the event over itself, and the
    # timer task hands over what its timers decided (LONG). latched() says an
    # edge is in the ring before any poll has seen it. The test waits for the
    # events to arrive (a list the sink fills), polling the loop, never a sleep
    # standing in for one.
    out = run(REAL + '''
b = buttons(debounce_ms=500, long_ms=150)
got = []
where = []

def sink(ev):
    got.append(ev)
    where.append(b.pending())          # handed over as decided: nothing left queued behind it
    seen(clock, ev)

b.sink = sink

async def arrive(n):
    while len(got) < n:
        await asyncio.sleep_ms(0)

async def main():
    b.start()
    await asyncio.sleep_ms(0)
    print("R latched_before", b.latched())
    pins[A].press()                            # the ISR latches the edge ...
    print("R latched_after_edge", b.latched())    # ... no poll has seen it yet
    await asyncio.wait_for_ms(arrive(1), 2000)
    print("R latched_after_poll", b.latched())
    pins[A].release()
    pins[B].press()
    await asyncio.wait_for_ms(arrive(2), 2000)
    pins[B].release()
    pins[NEXT].press()                         # held: LONG from the timer task (debounce_ms 500 in)
    await asyncio.wait_for_ms(arrive(3), 2000)
    pins[NEXT].release()
    print("R queued", b.pending(), max(where))
    b.deinit()

asyncio.run(main())
''', timeout=30)
    r = results(out)
    assert (r["latched_before"], r["latched_after_edge"], r["latched_after_poll"]) == ("False", "True", "False")
    assert r["queued"] == "0 0"
    in_time(out, ["PRESS A", "PRESS B", "LONG NEXT"])


def test_timers_fire_on_time_while_the_driver_waits():
    # With poll_ms 500 the timer task still wakes exactly when a timer is due
    # (the edge task meanwhile waits on the flag): a side PRESS at once, LONG
    # comes long_ms and FAULT stuck_ms after
    # the press, each on the driver's timeline and in the UI's hands at once.
    out = run(REAL + '''
b = buttons(long_ms=150, stuck_ms=300)

async def main():
    b.start()
    await asyncio.sleep_ms(0)
    t0 = clock.ticks_ms()
    pins[A].press()                            # PRESS A on the press edge
    t1 = clock.ticks_ms()
    ev = await b.get()
    seen(clock, ev)
    print("R press_at %d %d" % stamped(ev, t0, t1))
    pins[A].release()
    t0 = clock.ticks_ms()
    pins[NEXT].press()                         # held: LONG at 150, FAULT at 300
    t1 = clock.ticks_ms()
    ev = await b.get()
    seen(clock, ev)
    print("R long_at %d %d" % stamped(ev, t0, t1))
    ev = await b.get()
    seen(clock, ev)
    print("R stuck_at %d %d" % stamped(ev, t0, t1))
    pins[NEXT].release()
    seen(clock, await b.get())                 # CLEAR: debounce_ms after the release
    b.deinit()

asyncio.run(main())
''', timeout=30)
    in_time(out, ["PRESS A", "LONG NEXT", "FAULT NEXT", "CLEAR NEXT"])
    r = results(out)
    # the ISR stamped the edge between t0 and t1 (the same ms, or the next)
    for key, want in (("press_at", 0), ("long_at", 150), ("stuck_at", 300)):
        a, b = (int(v) for v in r[key].split())
        assert b <= want <= a, (key, r[key])


def test_without_threadsafeflag_the_timer_task_polls_alone():
    # A port without asyncio.ThreadSafeFlag: no edge task; the timer task
    # polls every poll_ms and the events are the same.
    out = run('''
import asyncio
K.ThreadSafeFlag = None
setup()
async def main():
    task = b.start()
    print("R fallback", b._flag is None, b._etask is None)
    got = []
    pins[OK].press(); clk.advance(100); pins[OK].release(); clk.advance(30)
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    pins[A].press(); clk.advance(50); pins[A].release(); clk.advance(30)
    got.append(await asyncio.wait_for_ms(b.get(), 2000))
    for ev in got:
        print("G", K.describe(ev))
    b.deinit()
    await asyncio.sleep_ms(0)
    print("R done", task.done())
asyncio.run(main())
''', timeout=30)
    got = [line[2:] for line in out.splitlines() if line.startswith("G ")]
    assert got == ["SHORT OK", "PRESS A"]
    assert results(out) == {"fallback": "True True", "done": "True"}
