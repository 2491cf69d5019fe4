# bench_emu --net's main.py on the emulated box (MicroPython; not a module of the host's): the app as main.py
# builds it, its board's network (board.net) a stand-in that is always up and whose connection is a peer
# inside the box answering as the judge's live server does (nakk_host/live.py: the hello's proof, then
# "next" with its mac for each event, after a round trip of RTT_MS). bench_emu.py writes it as the box's
# /main.py twice: on a box given no network (the live link not started) and on one given one.
#
# The emulator has no Wi-Fi chip: the peer's own work (the frame's fields found, an HMAC and the answer's
# CRC, per event: ~2 ms) runs on the box's CPU too, where a real box has the radio's and lwIP's. It prints
# the heap after boot, whether the live link started, and once a second when they moved: the peer's count
# of stored events, the link's state ("sent": all on flash acknowledged) and the longest step between two
# awaits of the link and of the peer (the most either can delay a press).
# (comments, not a docstring: the box compiles this file into its heap)
import gc
import asyncio
try:
    import network
    from nakk.board import picow as B
except ImportError:
    from nakk.board import pico as B
from nakk.link import task  # as main.py: the link's buffers first
from nakk import app as A
from nakk.link import proto
from nakk.link import net as N
from nakk.link.sign import hmac_sha256
import time

RTT_MS = 5


class Steps:
    # how long a task held the loop between two of its awaits: the most it can delay a press
    def __init__(self):
        self.n = 0
        self.longest = 0
        self.over1 = 0
        self.over5 = 0        # the rare long ones: a garbage collection falls in whichever task allocates

    def add(self, us):
        self.n += 1
        if us > self.longest:
            self.longest = us
        if us > 1000:
            self.over1 += 1
        if us > 5000:
            self.over5 += 1


def timed(coro, st):
    # the task's coroutine, each step between two awaits timed (what asyncio sends or throws in passed on)
    v = None
    e = None
    while True:
        t = time.ticks_us()
        try:
            y = coro.throw(e) if e is not None else coro.send(v)
        except StopIteration as s:
            return s.value
        finally:
            st.add(time.ticks_diff(time.ticks_us(), t))
        v = e = None
        try:
            v = yield y
        except BaseException as x:
            e = x


LINK = Steps()
PEER = Steps()


def start(self):
    self.app.spawn(timed(self.run(), LINK))


N.Net.start = start


class Peer:
    def __init__(self, net):
        self.net = net
        self.out = b""
        self.back = b""
        self.got = asyncio.Event()
        self.answered = asyncio.Event()
        self.closed = False
        self.nonce = ""
        asyncio.create_task(timed(self.serve(), PEER))

    def write(self, b):
        self.out += b
        self.got.set()

    async def drain(self):
        pass

    def close(self):
        self.closed = True
        self.got.set()
        self.answered.set()

    async def readinto(self, buf):
        while not self.back:
            if self.closed:
                return 0
            self.answered.clear()
            await self.answered.wait()
        n = min(len(buf), len(self.back))
        buf[:n] = self.back[:n]
        self.back = self.back[n:]
        return n

    async def serve(self):
        while not self.closed:
            i = self.out.find(b"\n")
            if i < 0:
                self.got.clear()
                await self.got.wait()
                continue
            line = self.out[:i]
            self.out = self.out[i + 1:]
            await asyncio.sleep_ms(RTT_MS)
            # the fields found, not parsed: the server's work is the laptop's, not the box's (the frame's
            # keys come after its "ev", whose quotes are escaped: rfind finds the frame's own)
            fid = int(field(line, b"id"))
            key = self.net.app.link.key
            if b'"cmd":"hello"' in line:
                self.nonce = str(field(line, b"nonce"), "utf-8")
                mac = hmac_sha256(key, proto.live_hello_msg(self.nonce, "0123456789abcdef",
                                                            str(field(line, b"device"), "utf-8"),
                                                            str(field(line, b"fs_id"), "utf-8")))
                body = b'{"challenge":"0123456789abcdef","id":%d,"mac":"%s","ok":true}' % (fid, proto.hexlify(mac))
            else:
                rid = str(field(line, b"rid"), "utf-8")
                nxt = self.net.next.get(rid, 1)
                if int(field(line, b"seq")) == nxt:
                    nxt += 1
                    self.net.next[rid] = nxt
                    self.net.stored += 1
                mac = hmac_sha256(key, proto.live_ack_msg(self.nonce, fid, rid, nxt))
                body = b'{"id":%d,"mac":"%s","next":%d,"ok":true}' % (fid, proto.hexlify(mac), nxt)
            self.back += proto.frame_of(body)
            self.answered.set()


def field(line, name):
    i = line.rfind(b'"' + name + b'":') + len(name) + 3
    if line[i] == 34:
        return line[i + 1:line.find(b'"', i + 1)]
    j = i
    while 48 <= line[j] <= 57:
        j += 1
    return line[i:j]


class LoopNet:
    def __init__(self):
        self.app = None
        self.next = {}
        self.stored = 0
        self.connections = 0

    def join(self, ssid, password):
        pass

    def up(self):
        return True

    async def open_connection(self, host, port):
        self.connections += 1
        p = Peer(self)
        return p, p


async def report(net, link):
    # the peer's count and the live link's state ("sent": all on flash is acknowledged), once a second when
    # they moved (the bench reads them from the serial port's output after the run)
    last = None
    while True:
        await asyncio.sleep_ms(1000)
        now = (net.stored, net.connections, link.state, LINK.n, LINK.longest, LINK.over1, LINK.over5,
               PEER.longest, PEER.over5)
        if now != last:
            last = now
            print("nakk-net stored %d connections %d link %s; its steps %d, longest %d us, %d over 1 ms, %d over "
                  "5 ms; the peer's longest %d us (%d over 5 ms)" % now)


b = B.build()
b.net = LoopNet()
a = A.App(b)
b.net.app = a
gc.collect()
print("nakk-boot heap free %d alloc %d" % (gc.mem_free(), gc.mem_alloc()))
print("nakk-net task %s" % ("on" if a.net is not None else "off"))
if a.net is not None:
    a.spawn(report(b.net, a.net))
asyncio.run(a.run())
