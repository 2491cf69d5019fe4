"""The box's live link (docs/live.md): a task that sends each saved event to the judge's live server over TCP.

    net = Net(app, board, link, cfg)   # built by the app at boot when the board has a network
    net.start()                        # and the judge gave one at pairing (load_config)
    net.saved()                        # the app: an entry reached flash (wakes the task)

The journal is the source of truth: the task reads what is on flash, oldest
match first, and sends each record's exact bytes (the setup, every entry, the
end, the answers: all but the judge's `synced`) as an `event` frame signed
with the pairing key (nakk.proto.live_msg); it waits for the server's signed
answer, which names the seq it wants next, and goes on from there. What it
has sent is a number in RAM (match, next record): after a reboot or a lost
connection it asks again from the first record of the oldest match, and the
server's answer moves it past what is stored. Nothing here writes the
journal, and no step holds the loop long: a Cursor keeps its place in the
match's files between steps, each step reads at most _BATCH records (one
small read of a file or a few) and the task yields; the journal's current
match is left as it is (reading an older one never makes it the current one). A box out of range, a server that is
off or a stranger's answer only mean the task waits and tries again; the
players never see it.

What it needs: board.net (join(ssid, password) starts joining, up() says it
is on the network; on the simulator a loopback that is always up; an optional
open_connection(host, port) replaces asyncio's sockets), app.journal,
app.spawn, and the link's key and device (nakk.link.Link).
"""

from nakk.compat import const

import asyncio
import time

from nakk import record
from nakk.link import proto
from nakk.event import encode, parse
from nakk.journal import READ_BUF, read_meta
from nakk.jread import ENOENT, _entries, _errno, _number, _parse_seal, _seg
from nakk.link.sign import eq, hmac_sha256

_MAGIC = b"nakk-net 1 "
ACK_MS = const(1500)      # an answer not here by then: the frame is sent again (a new id)
JOIN_MS = const(20000)    # joining the Wi-Fi may take this long before the task tries again
RETRY_MS = const(500)     # first pause after a failed connection (doubles, up to RETRY_MAX_MS)
RETRY_MAX_MS = const(16000)
IDLE_MS = const(5000)     # with nothing to send, look at the journal again after this long anyway
_BATCH = const(8)         # records read (or passed over) in one step at most
_CHUNK = const(1024)      # bytes of a file read at once (a longer record: the whole buffer)
_RX = const(256)
_LINE = const(512)


def config_path(root):
    return root + "/net"


def load_config(root):
    """The network the judge gave at pairing: {"ssid", "password", "live": "HOST:PORT"}, or None."""
    p = read_meta(config_path(root), _MAGIC, 512)
    if p is None:
        return None
    try:
        cfg = parse(p)
        host, port = split_address(cfg["live"])
    except Exception:
        return None
    cfg["host"] = host
    cfg["port"] = port
    return cfg


def split_address(text):
    """(host, port) of "HOST:PORT"; ValueError if it is not one."""
    i = text.rfind(":")
    if i <= 0:
        raise ValueError("HOST:PORT")
    port = int(text[i + 1:])
    if not 0 < port < 65536:
        raise ValueError("port")
    return text[:i], port


def config_record(ssid, password, live):
    """The bytes of <journal>/net (nakk.pairing writes them with write_atomic)."""
    split_address(live)
    return record.encode(record.META, _MAGIC + encode({"ssid": ssid, "password": password, "live": live}))


def _hex(b):
    return proto.hexlify(b).decode()


class Net:
    def __init__(self, app, board, link, cfg):
        self.app = app
        self.board = board
        self.link = link
        self.cfg = cfg
        self._wake = asyncio.Event()
        self._rx = bytearray(_RX)
        self._line = bytearray(_LINE)      # the server's answers are short: a longer line fails its CRC
        # the link's flash buffer, lent: both use it only between two awaits (never at once)
        self._rbuf = getattr(link, "_rbuf", None) or bytearray(READ_BUF)
        self._n = 0            # the match being sent
        self._i = 0            # its next record to send (0: the setup; the server's answer moves it on)
        self._batch = []       # records _from, _from+1, ... of match _n read in one step
        self._from = -1        # the record index _batch starts at
        self._cur = None       # the Cursor over match _n (None: made at the next step)
        self._acked = 0        # 1: the cursor passed match _n's ack record (its last; never sent)
        self._fid = 0
        self._nonce = ""
        self._challenge = ""
        self._reader = None
        self._writer = None
        self._restart = False
        self._rxi = self._rxn = self._ln = 0   # bytes of _rx taken, bytes in _rx, bytes of the line so far
        # counters since boot (what the task did: for a look over the REPL or a debugger)
        self.sent = 0          # event frames written
        self.acked = 0         # answers taken
        self.connects = 0      # connections made
        self.refused = 0       # answers that were not the judge's (bad mac), or errors
        self.state = "idle"

    def start(self):
        self.app.spawn(self.run())

    def reload(self):
        """The judge gave another network (or none) at a pairing: the connection starts anew."""
        self.cfg = load_config(self.app.root)
        self._restart = True
        self._wake.set()

    def saved(self):
        """An entry reached flash (the app calls it): send it now."""
        self._wake.set()

    # ------------------------------------------------------------ the task
    async def run(self):
        wait = RETRY_MS
        while True:
            acked = self.acked
            try:
                if await self._join() and await self._connect():
                    await self._send_all()
            except Exception as e:       # a lost connection, a reset, a refusal: try again later
                self.state = "error %r" % (e,)
            self._close()
            if self.acked > acked:
                wait = RETRY_MS          # it was working: the next try soon (a server that only refuses waits longer)
            await self._sleep(wait)
            wait = wait * 2 if wait < RETRY_MAX_MS else RETRY_MAX_MS

    async def _sleep(self, ms):
        try:
            await asyncio.wait_for_ms(self._wake.wait(), ms)
        except asyncio.TimeoutError:
            pass
        self._wake.clear()

    async def _join(self):
        self._restart = False
        if self.cfg is None:
            return False        # no network given (any more): the box is an ordinary box
        net = self.board.net
        if net.up():
            return True
        self.state = "joining"
        net.join(self.cfg["ssid"], self.cfg["password"])
        t0 = time.ticks_ms()
        while not net.up():
            if time.ticks_diff(time.ticks_ms(), t0) > JOIN_MS:
                return False
            await asyncio.sleep_ms(250)
        return True

    async def _connect(self):
        self.state = "connecting"
        j = self.app.journal
        if j is None or self.link.key is None:
            return False
        # the board's own way to the server when it has one (a bench's stand-in peer), else the sockets
        opener = getattr(self.board.net, "open_connection", None) or asyncio.open_connection
        self._reader, self._writer = await opener(self.cfg["host"], self.cfg["port"])
        self._rxi = self._rxn = self._ln = 0
        self.connects += 1
        self._n = 0
        self._i = 0
        self._batch = []
        self._cur = None
        self._fid = 0
        r = None
        for _ in range(3):              # a hello (or its answer) lost on the way is asked again
            self._fid += 1
            self._nonce = _hex(_random(12))
            await self._write(proto.request(self._fid, "hello", {"device": self.link.device, "fs_id": j.fs_id,
                                                                 "nonce": self._nonce}))
            r = await self._answer(self._fid)
            if r is not None:
                break
        ch = r.get("challenge") if r else None
        if not isinstance(ch, str):
            return False
        want = hmac_sha256(self.link.key, proto.live_hello_msg(self._nonce, ch, self.link.device, j.fs_id))
        if not _mac_ok(want, r.get("mac")):
            self.refused += 1          # not our judge: say nothing more to it
            return False
        self._challenge = ch
        self.state = "connected"
        return True

    def _close(self):
        w = self._writer
        self._reader = self._writer = None
        if w is not None:
            try:
                w.close()
            except Exception:
                pass

    async def _write(self, frame):
        self._writer.write(frame)
        await self._writer.drain()

    async def _line_in(self, ms):
        """The next frame line from the server (bytes), or None after ms; OSError when closed. Bytes read
        past a line end (two answers in one read) wait in _rx for the next call."""
        line = self._line
        rx = self._rx
        t0 = time.ticks_ms()
        while True:
            while self._rxi < self._rxn:
                # the bytes up to the line's end copied at once (a loop over each byte: ~3 ms an answer)
                i = self._rxi
                j = rx.find(b"\n", i, self._rxn)
                m = (self._rxn if j < 0 else j) - i
                if m > len(line) - self._ln:
                    m = len(line) - self._ln   # a longer line is cut to the buffer; its CRC then fails
                if m > 0:
                    line[self._ln:self._ln + m] = memoryview(rx)[i:i + m]
                    self._ln += m
                if j < 0:
                    self._rxi = self._rxn
                    break
                self._rxi = j + 1
                n = self._ln
                self._ln = 0
                if n >= 2 and proto.is_frame(line):
                    return bytes(line[:n])
            left = ms - time.ticks_diff(time.ticks_ms(), t0)
            if left <= 0:
                return None
            try:
                k = await asyncio.wait_for_ms(self._reader.readinto(rx), left)
            except asyncio.TimeoutError:
                return None
            if not k:
                raise OSError(104)     # the server closed the connection
            self._rxi = 0
            self._rxn = k

    async def _answer(self, fid):
        """The answer to frame fid (a dict), or None when it did not come in ACK_MS."""
        t0 = time.ticks_ms()
        while True:
            left = ACK_MS - time.ticks_diff(time.ticks_ms(), t0)
            line = await self._line_in(left) if left > 0 else None
            if line is None:
                return None
            try:
                obj = proto.decode_frame(line)
            except proto.ProtoError:
                continue
            if obj.get("id") != fid:
                continue           # an answer to an earlier frame (sent again since): stale
            if obj.get("ok") is not True:
                self.refused += 1      # refused: something is off with this connection; a new one
                raise OSError(5)
            return obj

    # ------------------------------------------------------------ what to send
    def _next(self):
        """(n, rid, seq, bytes) of the next record to send; None when all on flash is sent; False when
        this step only read on (at most _BATCH records; the task yields and asks again). The match
        numbers move on past matches the server has whole, and past matches no longer on flash."""
        j = self.app.journal
        c = self._cur
        if c is None or not j.has(self._n):
            if not j.has(self._n):
                n = j.after(self._n)
                if n is None:
                    return None
                self._n, self._i = n, 0
            c = self._new_cursor(j)
        i = self._i
        b = self._batch
        if self._from <= i < self._from + len(b):
            return self._n, j.result_id(self._n), i + 1, b[i - self._from]
        if i < c.i - self._acked:
            c = self._new_cursor(j)   # the server asks for a record passed: from the first again
        if not self._acked:
            got = c.take(self._rbuf, _BATCH, i - c.i)
            b = []
            for kind, p in got:
                if kind == record.ACK:
                    self._acked = 1     # an ack is a match's last record: nothing to send after it
                    break
                b.append(p)
            self._batch = b
            self._from = i
            if b:
                return self._n, j.result_id(self._n), i + 1, b[0]
            if not c.end and not self._acked:
                return False
        later = j.after(self._n)        # all of match _n on flash is sent: the next one, if any
        if later is None:
            return None
        self._n, self._i, self._cur = later, 0, None
        return False

    def _new_cursor(self, j):
        self._cur = c = Cursor(j, self._n)
        self._batch = []
        self._acked = 0
        return c

    async def _send_all(self):
        # Between the pieces of work (a pass over flash, signing and framing, an answer's check: each
        # a few ms on the Pico) the task sleeps 1 ms, so a press that came meanwhile runs first (a task
        # put back with sleep_ms(0) would run again before it: asyncio takes the earlier time first).
        link = self.link
        while not self._restart:
            await asyncio.sleep_ms(1)
            nxt = self._next()
            if nxt is None:
                self.state = "sent"
                await self._sleep(IDLE_MS)
                continue
            if nxt is False:
                continue                 # read on through flash: the next piece after a yield
            n, rid, seq, ev = nxt
            await asyncio.sleep_ms(1)
            self._fid += 1
            fid = self._fid
            mac = hmac_sha256(link.key, proto.live_msg(self._challenge, fid, link.device, rid, seq, ev))
            await self._write(event_frame(fid, rid, seq, ev, proto.hexlify(mac)))
            self.sent += 1
            r = await self._answer(fid)
            if r is None:
                continue                 # lost on the way (or refused): sent again under a new id
            await asyncio.sleep_ms(1)
            t = r.get("next")
            want = hmac_sha256(link.key, proto.live_ack_msg(self._nonce, fid, rid, t))
            if not isinstance(t, int) or t < 1 or not _mac_ok(want, r.get("mac")):
                self.refused += 1
                raise OSError(5)         # not our judge's answer: a new connection
            self.acked += 1
            if n == self._n:
                self._i = t - 1


class Cursor:
    """Match n's records read a few at a time from a place kept between calls (a file of the match, an
    offset in it), read-only, no file open between calls: the journal and what it knows of its
    current match are left as they are (jread.Records reads the match's tail first, which makes it
    the journal's current one). It passes the records Records yields, in its order: the body's (its
    seal records say which segments it holds), then each segment above those; an unsound stretch is
    skipped as jread._scan skips it (not counted in journal.damaged: the app's own reads count it)."""

    def __init__(self, j, n):
        self.j = j
        self.n = n
        self.i = 0            # records passed (META records not counted)
        self._w = 0           # records passed in this walk from the first (< i: walking again to i)
        self.end = False      # the last take() reached the end of what is on flash now
        self._s = -1          # the file read: -1 the body, else that segment
        self._off = 0         # where its next record starts
        self._sealed = -1     # the last segment the body holds

    def take(self, buf, k, skip=0):
        """Up to k records from here as [(kind, payload)], the first `skip` passed over, not kept
        (they count in k): one read of a file and one listing of the match's files at most (~1-2 ms
        each on the Pico). A file gone since the last call (its segment sealed into the body): a
        walk from the match's first record again, up to record i."""
        out = []
        self.end = False
        d = self.j._mdir(self.n)
        mv = memoryview(buf)
        size = _CHUNK
        for _ in range(2):
            if k <= 0:
                break
            try:
                f = open(d + "/" + (_seg(self._s) if self._s >= 0 else "body"), "rb")
            except OSError as e:
                if _errno(e) != ENOENT:
                    raise
                if self._s >= 0 or self._off:
                    self._w = self._off = 0     # from the first again, up to record i
                    self._s = self._sealed = -1
                    continue
                if not self._advance(d):        # no body (yet): its first segment, if any
                    self.end = True
                break
            try:
                f.seek(self._off)
                got = f.readinto(mv[:size])
            finally:
                f.close()
            eof = got < size       # a file gives a short read only at its end
            pos = 0
            nxt = 1
            while k > 0:
                nxt = record.parse(buf, pos, got)
                if nxt > 0:
                    kind = buf[pos + 1]
                    if kind != record.META:
                        if self._w < self.i:
                            pass           # passed before this walk
                        elif skip > 0:
                            skip -= 1
                            self.i += 1
                        else:
                            out.append((kind, bytes(mv[pos + 4:nxt - 4])))
                            self.i += 1
                        self._w += 1
                        k -= 1
                    elif self._s < 0:
                        seal = _parse_seal(buf, pos, nxt)
                        if seal is not None and seal[0] > self._sealed:
                            self._sealed = seal[0]
                    pos = nxt
                elif nxt == record.END or (nxt == record.TRUNCATED and not eof):
                    break          # all read, or a record runs past what was read: read on from it
                else:
                    pos += 1       # unsound: skipped byte by byte until a sound record starts
            self._off += pos
            if nxt == record.TRUNCATED and pos == 0:
                size = len(buf)    # a record longer than a chunk
            elif nxt == record.END and eof and k > 0:
                if not self._advance(d):
                    self.end = True
                break              # the next file is read at the next call
        return out

    def _advance(self, d):
        # On to the lowest segment above the one read and those the body holds; False: none (yet)
        lo = self._s if self._s > self._sealed else self._sealed
        best = None
        try:
            for name, is_dir, size in _entries(d):
                s = _number(name, "")
                if s is not None and not is_dir and s > lo and (best is None or s < best):
                    best = s
        except OSError:
            return False           # the match is gone (acknowledged and compacted)
        if best is None:
            return False
        self._s = best
        self._off = 0
        return True


def event_frame(fid, rid, seq, ev, mac_hex):
    """proto.request(fid, "event", {"rid", "seq", "ev": ev as text, "mac"}), the same bytes, without
    the JSON encoder's walk over every character of ev (~11 ms on the Pico for an entry): ev is an
    event's stored bytes, its canonical encoding, printable ASCII only, so as a JSON string it needs
    only its quotes and backslashes escaped (tests/test_live_frames.py holds the two equal)."""
    text = bytes(ev).replace(b"\\", b"\\\\").replace(b'"', b'\\"')
    return proto.frame_of(b"".join((b'{"cmd":"event","ev":"', text, b'","id":', str(fid).encode(), b',"mac":"',
                                    mac_hex, b'","rid":"', rid.encode(), b'","seq":', str(seq).encode(), b"}")))


def _mac_ok(want, given):
    if not isinstance(given, str):
        return False
    try:
        return eq(want, proto.unhexlify(given))
    except ValueError:
        return False


def _random(k):
    try:
        import os
        return os.urandom(k)
    except (ImportError, AttributeError):
        import random
        return bytes(random.getrandbits(8) for _ in range(k))


def start(app, board, link):
    """The app's door: a Net task when the board has a network and the judge gave one at pairing."""
    if getattr(board, "net", None) is None or link is None or app.journal is None:
        return None
    cfg = load_config(app.root)
    if cfg is None:
        return None
    net = Net(app, board, link, cfg)
    net.start()
    return net
