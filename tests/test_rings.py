"""Tests of nakk.drivers.rings: every mode inside the current budget, nakks and overflow, progress, dimming, blinking, LED order; on CPython and on MicroPython, allocation-free there."""

import json

import pytest

from conftest import run_mpy

from nakk.drivers.rings import FAULT, LEDS, NAKK, NEGATIVE, OVER, Rings


def leds(r, i):
    """(r, g, b) per position 0..15 of ring i, undoing first/reverse."""
    v = r.ring(i)
    out = []
    for p in range(r.leds):
        k = (r._first - p) % r.leds if r._reverse else (r._first + p) % r.leds
        out.append((v[3 * k + 1], v[3 * k], v[3 * k + 2]))
    return out


def lit(r, i, faint=0):
    return [p for p, c in enumerate(leds(r, i)) if max(c) > faint]


def estimate_ma(buf, ma_per_channel, idle=0.0):
    return sum(buf) * ma_per_channel / 255.0 + idle


def hue(c):
    r, g, b = c
    if r > 4 * max(g, b):
        return "red"
    if b > max(r, g):
        return "blue"
    if r >= g >= b and 5 * g >= r:
        return "amber"
    return "other"


def every_mode(r, ring):
    """Yield after painting each mode and value the tests sweep."""
    for n in range(-20, 41):
        r.units(ring, n, 4)
        yield "nakks", n
    for target in (1, 16, 21, 40):
        for pts in range(-30, 61, 3):
            r.progress(ring, pts, target)
            yield "progress", (pts, target)
    for f in range(48):
        r.celebrate(ring, f)
        yield "celebrate", f
    for f in range(12):
        r.fault(ring, f)
        yield "fault", f
    r.fill(ring, 0xFFFFFF)
    yield "white", 0


@pytest.mark.parametrize("rings,budget,ma_ch,bright", [
    (1, 60, 20, 255), (2, 120, 20, 255), (2, 300, 16, 255), (3, 200, 12, 255),
    (2, 1000, 20, 255), (2, 500, 20, 64), (3, 30, 20, 128),
])
def test_current_cap_holds_for_every_mode_and_value(rings, budget, ma_ch, bright):
    r = Rings(rings, budget, ma_ch, brightness=bright)
    worst = 0
    for ring in range(rings):
        for others in ("white", "same"):
            for o in range(rings):
                if o != ring:
                    r.fill(o, 0xFFFFFF)
            for mode, value in every_mode(r, ring):
                if others == "same":
                    for o in range(rings):
                        if o != ring:
                            r.celebrate(o, 3)
                for dimmed in (False, True):
                    r.dim(dimmed)
                    ma = r.commit()
                    est = estimate_ma(r.buf, ma_ch)
                    assert est <= budget + 1e-9, (mode, value, dimmed, est)
                    assert ma <= budget and ma >= est - 1e-9
                    worst = max(worst, est)
                r.dim(False)
    if budget <= 300:
        assert worst > 0.8 * budget, "the cap should scale down, not switch off"


def test_cap_counts_idle_current_and_dim_budget():
    r = Rings(2, 100, 20, brightness=255, idle_ma_per_led=1, dim_max_total_ma=50)
    r.fill(0, 0xFFFFFF)
    r.fill(1, 0xFFFFFF)
    assert r.commit() <= 100
    assert estimate_ma(r.buf, 20, 32) <= 100
    assert estimate_ma(r.buf, 20, 32) > 90
    r.dim(True)
    r.fill(0, 0xFFFFFF)
    r.fill(1, 0xFFFFFF)
    r.set_brightness(255, 255)           # dimmed level as high as normal: the budget still binds
    assert r.commit() <= 50 and estimate_ma(r.buf, 20, 32) <= 50
    tiny = Rings(2, 20, 20, idle_ma_per_led=1)           # idle alone is over budget
    tiny.fill(0, 0xFFFFFF)
    tiny.commit()
    assert not any(tiny.buf)


def test_sixteen_nakks_light_sixteen():
    r = Rings(2, 2000, 20, marks=False)
    for n in range(17):
        r.units(0, n, 4)
        assert lit(r, 0) == list(range(n))
    r.units(1, 16, 4)
    c = leds(r, 1)
    assert all(max(x) > 0 for x in c)
    assert all(hue(x) == "amber" for x in c)


def test_groups_of_four_show_the_rings():
    r = Rings(1, 2000, 20)
    r.units(0, 16, 4)
    c = leds(r, 0)
    plain = {c[p] for p in range(16) if p % 4 != 3}
    marked = {c[p] for p in range(16) if p % 4 == 3}
    assert len(plain) == 1 and len(marked) == 1 and plain != marked
    # unlit: faint marks at the ends of the groups still to fill
    r.units(0, 5, 4)
    c = leds(r, 0)
    assert lit(r, 0, faint=8) == [0, 1, 2, 3, 4]
    assert [p for p in range(5, 16) if max(c[p])] == [7, 11, 15]
    r2 = Rings(1, 2000, 20, marks=False)
    r2.units(0, 5, 4)
    assert lit(r2, 0) == [0, 1, 2, 3, 4]


def test_overflow_above_sixteen():
    r = Rings(1, 2000, 20, marks=False)
    base = None
    for n in (17, 20, 31, 32, 40):
        r.units(0, n, 4)
        c = leds(r, 0)
        assert lit(r, 0) == list(range(16)), n
        over = [p for p in range(16) if hue(c[p]) == "blue"]
        assert over == list(range(min(n - 16, 16))), n
    r.units(0, 16, 4)
    base = leds(r, 0)
    r.units(0, 17, 4)
    assert leds(r, 0) != base


def test_negative_nakks_and_progress_are_dim_red_anticlockwise():
    r = Rings(1, 2000, 20, marks=False)
    r.units(0, -3, 4)
    assert lit(r, 0) == [13, 14, 15]
    assert all(hue(leds(r, 0)[p]) == "red" for p in (13, 14, 15))
    r.progress(0, -8, 16)                 # -8 of 16: half the ring, anticlockwise
    assert lit(r, 0) == list(range(8, 16))
    neg = max(max(c) for c in leds(r, 0))
    r.progress(0, 8, 16)
    pos = max(max(c) for c in leds(r, 0))
    assert lit(r, 0) == list(range(8))
    assert neg < pos / 2, "negative is dim"
    r.progress(0, -100, 21)
    assert lit(r, 0) == list(range(16))


def test_progress_to_target():
    r = Rings(1, 2000, 20, marks=False)
    r.progress(0, 0, 21)
    assert lit(r, 0) == []
    r.progress(0, 21, 21)
    assert lit(r, 0) == list(range(16))
    r.progress(0, 10, 21)                  # 160/21 = 7.6 LEDs: 7 full, the 8th partly
    c = leds(r, 0)
    assert lit(r, 0) == list(range(8))
    assert 0 < max(c[7]) < max(c[0])
    r.progress(0, 8, 16)
    assert lit(r, 0) == list(range(8))
    r.progress(0, 1, 1000)                 # a sliver still shows
    assert lit(r, 0) == [0]
    r.progress(0, 25, 21)                  # over the target: full, the excess in blue
    c = leds(r, 0)
    assert lit(r, 0) == list(range(16))
    assert [p for p in range(16) if hue(c[p]) == "blue"] == [0, 1, 2, 3]
    r.progress(0, 5, 0)                    # no target: full, never a division by zero
    assert lit(r, 0) == list(range(16))


def test_dimming():
    r = Rings(2, 2000, 20, brightness=96, dim_brightness=12)
    r.units(0, 16, 4)
    r.progress(1, 10, 21)
    normal = bytes(r.ring(0)), bytes(r.ring(1)), r.commit()
    r.dim(True)
    r.units(0, 16, 4)
    r.progress(1, 10, 21)
    dimmed = bytes(r.ring(0)), bytes(r.ring(1)), r.commit()
    assert dimmed[2] * 4 < normal[2]
    for a, b in zip(normal[0] + normal[1], dimmed[0] + dimmed[1]):
        assert b <= a and (b > 0) == (a > 0), "dimmer, but the same LEDs lit"
    r.dim(False)
    r.units(0, 16, 4)
    r.progress(1, 10, 21)
    assert (bytes(r.ring(0)), bytes(r.ring(1)), r.commit()) == normal
    # the lowest level keeps lit channels at 1, never dark
    r.set_brightness(1)
    r.units(0, 3, 4)
    assert lit(r, 0, faint=0)[:3] == [0, 1, 2]


def test_celebration_frames():
    r = Rings(1, 2000, 20)
    frames = []
    for f in range(32):
        r.celebrate(0, f)
        frames.append(bytes(r.ring(0)))
        assert len(lit(r, 0)) >= 6
    assert len(set(frames)) == 32
    r.celebrate(0, 5)
    assert bytes(r.ring(0)) == frames[5], "a function of the frame counter only"
    heads = []
    for f in range(16):
        r.celebrate(0, f)
        c = leds(r, 0)
        heads.append(max(range(16), key=lambda p: sum(c[p])))
    assert heads == list(range(16)), "the comet runs clockwise, one LED a frame"


def test_fault_blinks():
    r = Rings(1, 2000, 20)
    on = off = 0
    for f in range(12):
        r.fault(0, f)
        c = leds(r, 0)
        if lit(r, 0):
            on += 1
            assert lit(r, 0) == [0, 4, 8, 12]
            assert all(hue(c[p]) == "red" for p in (0, 4, 8, 12))
        else:
            off += 1
    assert on == off == 6
    r.blink(0, 0, 0x00FF00, period=4)
    assert lit(r, 0) == list(range(16))
    r.blink(0, 2, 0x00FF00, period=4)
    assert lit(r, 0) == []


def test_led_order_first_and_reverse():
    r = Rings(2, 2000, 20, first=4, reverse=True, marks=False)
    r.units(1, 2, 4)
    v = r.ring(1)
    on = [k for k in range(16) if v[3 * k] or v[3 * k + 1]]
    assert on == [3, 4]            # positions 0, 1 -> LEDs 4, 3
    assert not any(r.ring(0))
    g, red, b = v[12], v[13], v[14]
    assert red > g > b == 0, "GRB byte order"


def test_ring_views_commit_and_share_the_buffer():
    r = Rings(2, 50, 20, brightness=255)
    assert len(r.buf) == 2 * 16 * 3 and len(r.ring(0)) == 48
    r.fill(0, 0xFFFFFF)
    r.fill(1, 0xFFFFFF)
    assert r.current_ma() > 50
    v = r.ring(1)                   # committed on the way out
    assert r.current_ma() <= 50
    assert bytes(v) == bytes(r.buf[48:])
    r.units(1, 1, 4)
    red, g, b = leds(r, 1)[0]
    assert red > g > b == 0                     # the nakk colour, 0xFF7000
    assert (NAKK, OVER, NEGATIVE, FAULT, LEDS) == (0xFF7000, 0x00A0FF, 0x600000, 0xFF0000, 16)


# ---- the same on MicroPython, allocation-free

MPY = r"""
import gc, json
from nakk.drivers.rings import Rings
r = Rings(2, 300, 20)
def frame(i):
    r.units(0, i % 40 - 4, 4)
    r.progress(1, i % 30 - 8, 21)
    a = r.commit()
    r.celebrate(0, i)
    r.fault(1, i)
    r.dim(i & 1)
    b = r.commit()
    r.blink(0, i, 0x00FF00, 4, 2)
    r.fill(1, 0xFFFFFF, 128)
    r.pixel(1, i, 0xFF0000)
    r.ring(0)
    r.ring(1)
    r.dim(False)
    return a + b + r.current_ma()
def measure():
    for i in range(10):
        frame(i)
    acc = 0
    m0 = gc.mem_alloc()
    for i in range(100):
        acc += frame(i)
    return gc.mem_alloc() - m0
gc.collect()
gc.disable()
alloc = measure()
gc.enable()
out = []
for i in range(40):
    frame(i)
    out.append(bytes(r.buf).hex())
print(json.dumps({"alloc": alloc, "frames": out}))
"""


def test_mpy_zero_allocation_and_same_frames_as_cpython():
    p = run_mpy(["-c", MPY])
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["alloc"] == 0
    # CPython paints the same bytes
    ns = {}
    exec(MPY.split("def measure")[0].replace("import gc, json\n", ""), ns)
    got = []
    for i in range(40):
        ns["frame"](i)
        got.append(bytes(ns["r"].buf).hex())
    assert got == res["frames"]
