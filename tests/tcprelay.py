"""A faulty hall network for the live tests and bench/bench_live.py: a TCP relay that drops, delays, duplicates and cuts frames.

    relay = TcpRelay(("127.0.0.1", server_port), seed=1, drop=0.1, dup=0.1, delay=0.1, cut=0.05)
    relay.port            # boxes connect here (their --live address) instead of the server
    relay.counts          # {"frames", "dropped", "duplicated", "delayed", "cut"}
    relay.close()

The relay reads each direction up to a line end and decides per frame (a line):
with probability `drop` the frame is lost (the stream carries on without it, as a
frame lost to a broken connection's buffer would be), `dup` it is sent twice,
`delay` it waits up to `delay_ms` (and everything behind it: a stream keeps its
order), `cut` the connection is closed in both directions before the frame
(the box must reconnect and send what is missing). One thread carries every
connection; `down()` refuses new connections and cuts every open one (the Wi-Fi
gone), `up()` lets them in again.
"""
import random
import select
import socket
import threading
import time


class _Pair:
    def __init__(self, box, server):
        self.socks = (box, server)
        self.inbuf = [bytearray(), bytearray()]    # 0: box -> server, 1: server -> box
        self.out = [[], []]                        # [(release time, bytes)] per direction
        self.closed = False


class TcpRelay:
    def __init__(self, target, seed=1, drop=0.0, dup=0.0, delay=0.0, cut=0.0, delay_ms=300, host="127.0.0.1"):
        self.target = target
        self.rng = random.Random(seed)
        self.p = {"drop": drop, "dup": dup, "delay": delay, "cut": cut}
        self.delay_ms = delay_ms
        self.counts = {"frames": 0, "dropped": 0, "duplicated": 0, "delayed": 0, "cut": 0, "connections": 0}
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, 0))
        self.listener.listen(64)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.address = "%s:%d" % (host, self.port)
        self.pairs = []
        self.is_up = True
        self.lock = threading.Lock()
        self.stop = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def down(self):
        """The network goes: every connection is cut and new ones are refused until up()."""
        with self.lock:
            self.is_up = False
            for p in self.pairs:
                self._close(p)

    def up(self):
        with self.lock:
            self.is_up = True

    def _close(self, p):
        if p.closed:
            return
        p.closed = True
        for s in p.socks:
            try:
                s.close()
            except OSError:
                pass

    def _accept(self):
        try:
            box, _ = self.listener.accept()
        except (BlockingIOError, OSError):
            return
        if not self.is_up:
            box.close()
            return
        try:
            server = socket.create_connection(self.target, timeout=5)
        except OSError:
            box.close()
            return
        for s in (box, server):
            s.setblocking(False)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.pairs.append(_Pair(box, server))
        self.counts["connections"] += 1

    def _frames(self, p, d, data):
        buf = p.inbuf[d]
        buf += data
        now = time.monotonic()
        while True:
            i = buf.find(b"\n")
            if i < 0:
                return
            frame = bytes(buf[:i + 1])
            del buf[:i + 1]
            self.counts["frames"] += 1
            r = self.rng.random()
            p_ = self.p
            if r < p_["cut"]:
                self.counts["cut"] += 1
                self._close(p)
                return
            r -= p_["cut"]
            if r < p_["drop"]:
                self.counts["dropped"] += 1
                continue
            r -= p_["drop"]
            at = p.out[d][-1][0] if p.out[d] else now      # a stream keeps its order
            if r < p_["delay"]:
                self.counts["delayed"] += 1
                at = max(at, now + self.rng.uniform(0, self.delay_ms) / 1000.0)
            elif r - p_["delay"] < p_["dup"]:
                self.counts["duplicated"] += 1
                p.out[d].append((at, frame))
            p.out[d].append((at, frame))

    def _flush(self, p):
        now = time.monotonic()
        for d in (0, 1):
            q = p.out[d]
            while q and q[0][0] <= now and not p.closed:
                try:
                    n = p.socks[1 - d].send(q[0][1])
                except BlockingIOError:
                    break
                except OSError:
                    self._close(p)
                    return
                if n < len(q[0][1]):
                    q[0] = (q[0][0], q[0][1][n:])
                    break
                q.pop(0)

    def _run(self):
        while not self.stop:
            with self.lock:
                self.pairs = [p for p in self.pairs if not p.closed]
                socks = {}
                for p in self.pairs:
                    for d, s in enumerate(p.socks):
                        socks[s] = (p, d)
            try:
                r, _, _ = select.select([self.listener] + list(socks), [], [], 0.01)
            except (OSError, ValueError):
                continue          # a connection was cut while we waited
            with self.lock:
                for s in r:
                    if s is self.listener:
                        self._accept()
                        continue
                    p, d = socks[s]
                    if p.closed:
                        continue
                    try:
                        data = s.recv(65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        self._close(p)
                        continue
                    self._frames(p, d, data)
                for p in self.pairs:
                    if not p.closed:
                        self._flush(p)

    def close(self):
        self.stop = True
        self.t.join(2)
        with self.lock:
            for p in self.pairs:
                self._close(p)
        self.listener.close()
