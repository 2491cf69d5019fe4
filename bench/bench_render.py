"""Bench: heap bytes and time per rendered frame (text, score digits, LED rings) on the MicroPython unix port, and how much of the display changes between frames."""

# Run: python bench/bench_render.py   (re-runs itself on the unix port with
#      -X heapsize=320K and firmware/ on MICROPYPATH)
#  or: MICROPYPATH=firmware micropython -X heapsize=320K bench/bench_render.py
#
# A frame is the score screen after a deal: both pairs' names, the score in
# 32 px digits, the deal number and who shuffles next, a "saving" mark, and
# both LED rings (nakks), committed under the current cap. The scores follow
# a plausible Saare mäng match, 0-16 nakks a side. Heap is measured with the
# collector off over 100 frames after a warm-up; the display diff counts the
# bytes, SSD1306 pages (128 bytes each) and column windows that changed
# from one frame to the next, i.e. what a partial update would have to send.

import sys

FRAMES = 100
WARMUP = 20


def _launch():
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import mpyenv
    mpyenv.rerun(__file__, "bench_render", "320K", (os.path.join(mpyenv.ROOT, "firmware"),))


def _bench():
    import gc
    import time
    import framebuf
    from nakk.drivers import font
    from nakk.drivers.rings import Rings

    buf = bytearray(1024)
    prev = bytearray(1024)
    fb = framebuf.FrameBuffer(buf, 128, 64, framebuf.MONO_VLSB)
    rings = Rings(2, 400, 20, brightness=64)
    names = ("J\u00e4nn & P\u00f5der", "Karvane & \u00d6\u00f6bik")
    deal = b"Jagu "
    shuf = (b"Jagab: J\xc3\xa4nn", b"Jagab: Karvane")
    # scores of a match: deal k gives nakks to one side or the other
    seq_a = bytearray(FRAMES + WARMUP)
    seq_b = bytearray(FRAMES + WARMUP)
    a = b = 0
    for k in range(FRAMES + WARMUP):
        step = (k * 7 + 3) % 5
        if k % 3:
            a += step % 3
        else:
            b += step % 4
        if a >= 17 or b >= 17:
            a = b = 0
        seq_a[k] = a
        seq_b[k] = b

    def text_part(k):
        font.text(fb, names[0], 0, 0, max_w=62)
        font.text(fb, names[1], 127, 0, align=font.RIGHT, max_w=62)
        font.text(fb, deal, 0, 55)
        font.text(fb, k + 1, font.width(deal) + 1, 55)
        font.text(fb, shuf[k & 1], 127, 55, align=font.RIGHT)
        if k % 4 == 0:
            font.text(fb, "\u2026", 60, 46)

    def digits_part(k):
        font.digits(fb, seq_a[k], 56, 12, align=font.RIGHT)
        font.digits(fb, b":", 62, 12)
        font.digits(fb, seq_b[k], 72, 12)

    def rings_part(k):
        rings.units(0, seq_a[k], 4)
        rings.units(1, seq_b[k], 4)
        return rings.commit()

    def frame(k):
        fb.fill(0)
        text_part(k)
        digits_part(k)
        return rings_part(k)

    def per_frame(f, count, diff):
        # how much count() grows a frame of f (diff: its difference), after WARMUP frames
        for k in range(WARMUP):
            f(k)
        c0 = count()
        for k in range(FRAMES):
            f(k)
        return diff(count(), c0) / FRAMES

    def minus(a, b):
        return a - b

    parts = (text_part, digits_part, rings_part, frame)
    font.warm()
    gc.collect()
    gc.disable()
    heap = [per_frame(f, gc.mem_alloc, minus) for f in parts]
    gc.enable()
    times = [per_frame(f, time.ticks_us, time.ticks_diff) / 1000 for f in parts]

    # what changes between consecutive frames
    changed = pages = windows = 0
    max_changed = max_pages = max_ma = 0
    frame(0)
    prev[:] = buf
    for k in range(1, FRAMES + 1):
        max_ma = max(max_ma, frame(k))
        c = p = w = 0
        for page in range(8):
            lo = hi = -1
            base = page * 128
            for x in range(128):
                if buf[base + x] != prev[base + x]:
                    c += 1
                    if lo < 0:
                        lo = x
                    hi = x
            if lo >= 0:
                p += 1
                w += hi - lo + 1
        changed += c
        pages += p
        windows += w
        max_changed = max(max_changed, c)
        max_pages = max(max_pages, p)
        prev[:] = buf

    v = sys.implementation.version
    print("bench_render: MicroPython %d.%d.%d unix port, -X heapsize=320K, %d frames after %d warm-up"
          % (v[0], v[1], v[2], FRAMES, WARMUP))
    print("heap bytes per frame (gc off): text %d, digits %d, rings %d, full frame %d"
          % tuple(int(h) for h in heap))
    print("time per frame (unix port, not a Pico): text %.3f ms, digits %.3f ms, rings %.3f ms, full frame %.3f ms"
          % tuple(times))
    print("display bytes changed per frame: mean %.1f of 1024, max %d" % (changed / FRAMES, max_changed))
    print("dirty SSD1306 pages per frame: mean %.2f of 8, max %d -> %.0f bytes by page vs 1024 full"
          % (pages / FRAMES, max_pages, 128 * pages / FRAMES))
    print("dirty column windows (one window per page): mean %.0f bytes per frame" % (windows / FRAMES))
    print("ring current estimate: max %d mA of a 400 mA budget (2 rings, 20 mA per channel)" % max_ma)


if sys.implementation.name == "micropython":
    _bench()
elif __name__ == "__main__":
    _launch()
