"""A noisy cable for the sync tests and bench/bench_sync.py: ptys in front of boxes' ptys that drop, flip and insert bytes, and can be cut.

    relay = Relay(seed=1)
    link = relay.add(sim.tty, rate=1e-3)   # link.url: a pty the judge opens as if it were the box
    ...                                    # link.cut(): the cable is pulled (the pty goes away)
    relay.close()

One thread carries every link (a hall's 25 boxes cost one thread, not 50);
`python tests/relay.py RATE SEED BOX_TTY...` runs it as a process of its own.
At `rate` faults per byte, in both directions, a byte is dropped, has one bit
flipped, or gets a random byte inserted after it (a third of the faults each;
a fault may hit a line end: two frames become one, or one becomes two).
`cut_after(n)` cuts the link once n bytes went from the judge to the box
(mid-frame, usually), `cut_on(b'"cmd":"ack"')` when the judge writes those
bytes (before they reach the box): the judge's port fails, and cannot be
opened again (the pty is gone, as a USB port is when its cable is pulled).
"""
import errno
import math
import os
import random
import select
import threading
import tty


class Link:
    """One box behind the relay: url (the judge's side), counters of the bytes carried and faults made."""

    def __init__(self, relay, box_tty, rate, rng):
        self.relay = relay
        self.rate = rate
        self.rng = rng
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.url = os.ttyname(self.slave)
        self.box = os.open(box_tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        os.set_blocking(self.master, False)
        self.to_box = bytearray()      # bytes waiting to be written to the box
        self.to_judge = bytearray()
        self.carried = [0, 0]          # bytes judge->box, box->judge
        self.faults = 0
        self.cut_at = None             # judge->box byte count at which the link is cut
        self.cut_when = None           # judge->box bytes on whose sight it is cut
        self.is_cut = False
        self._skip = [self._gap(), self._gap()]   # bytes until the next fault, per direction

    def _gap(self):
        if self.rate <= 0:
            return float("inf")
        # geometric: the bytes before the next fault (not a draw per byte)
        u = self.rng.random()
        return int(math.log(1.0 - u) / math.log(1.0 - self.rate))

    def _mangle(self, data, d):
        if self.rate <= 0:
            return data
        out = bytearray()
        i = 0
        n = len(data)
        while i < n:
            skip = self._skip[d]
            if i + skip >= n:
                out += data[i:]
                self._skip[d] = skip - (n - i)
                break
            out += data[i:i + skip]
            i += skip
            b = data[i]
            kind = self.rng.randrange(3)
            if kind == 1:
                out.append(b ^ (1 << self.rng.randrange(8)))
            elif kind == 2:
                out.append(b)
                out.append(self.rng.randrange(256))
            # kind 0: dropped
            self.faults += 1
            i += 1
            self._skip[d] = self._gap()
        return bytes(out)

    def cut_after(self, n):
        """Cut the link once n more bytes went from the judge to the box (the rest of them are lost)."""
        with self.relay.lock:
            self.cut_at = self.carried[0] + n

    def cut_on(self, pattern):
        """Cut the link when the judge writes pattern (nothing of that write reaches the box)."""
        with self.relay.lock:
            self.cut_when = pattern

    def cut(self):
        """Pull the cable now: the judge's pty goes away."""
        with self.relay.lock:
            self._cut()

    def _cut(self):
        if self.is_cut:
            return
        self.is_cut = True
        for fd in (self.master, self.slave, self.box):
            try:
                os.close(fd)
            except OSError:
                pass


class Relay:
    def __init__(self, seed=1):
        self.rng = random.Random(seed)
        self.links = []
        self.lock = threading.Lock()
        self.stop = False
        self.errors = []
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def add(self, box_tty, rate=0.0):
        link = Link(self, box_tty, rate, random.Random(self.rng.random()))
        with self.lock:
            self.links.append(link)
        return link

    def _run(self):
        while not self.stop:
            with self.lock:
                live = [k for k in self.links if not k.is_cut]
                rd = [k.master for k in live] + [k.box for k in live]
                wr = [k.box for k in live if k.to_box] + [k.master for k in live if k.to_judge]
            if not rd:
                select.select([], [], [], 0.05)
                continue
            try:
                r, w, _ = select.select(rd, wr, [], 0.05)
            except (OSError, ValueError):
                continue      # a link was cut while we waited
            with self.lock:
                for k in live:
                    if not k.is_cut:
                        try:
                            self._move(k, r, w)
                        except OSError as e:      # that link is broken (said in errors), not the others
                            self.errors.append("%s: %s" % (k.url, e))
                            k._cut()

    def _move(self, k, r, w):
        if k.master in r:
            data = _read(k.master)
            if data:
                if k.cut_when is not None and k.cut_when in data:
                    k._cut()
                    return
                if k.cut_at is not None and k.carried[0] + len(data) >= k.cut_at:
                    keep = k.cut_at - k.carried[0]
                    k.to_box += k._mangle(data[:keep], 0)
                    _write(k.box, k.to_box)
                    k._cut()
                    return
                k.carried[0] += len(data)
                k.to_box += k._mangle(data, 0)
        if k.box in r:
            data = _read(k.box)
            if data:
                k.carried[1] += len(data)
                k.to_judge += k._mangle(data, 1)
        if k.to_box:
            _write(k.box, k.to_box)
        if k.to_judge:
            _write(k.master, k.to_judge)

    def close(self):
        self.stop = True
        self.t.join(2)
        with self.lock:
            for k in self.links:
                k._cut()


def _read(fd):
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return b""
    except OSError as e:
        if e.errno == errno.EIO:      # the judge's end is closed (between a close and a reopen)
            return b""
        raise


def _write(fd, buf):
    """Write what the fd takes now; the rest stays in buf."""
    try:
        n = os.write(fd, buf)
    except BlockingIOError:
        return
    except OSError as e:
        if e.errno == errno.EIO:
            return
        raise
    del buf[:n]


def main(argv=None):
    """As a process of its own (bench/bench_sync.py: the cables must not share the judge's interpreter):
    relay.py RATE SEED BOX_TTY... prints the judge's pty for each box, one a line, then carries bytes
    until its stdin closes; then prints the faults made."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    rate, seed, ttys = float(args[0]), int(args[1]), args[2:]
    relay = Relay(seed)
    links = [relay.add(t, rate) for t in ttys]
    for k in links:
        print(k.url)
    sys.stdout.flush()
    sys.stdin.read()
    relay.close()
    print("faults %d errors %d" % (sum(k.faults for k in links), len(relay.errors)))


if __name__ == "__main__":
    main()
