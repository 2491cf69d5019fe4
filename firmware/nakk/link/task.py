"""The device end of the serial link (docs/protocol.md): answers the judge's frames from its own asyncio task.

    link = Link(app, board)      # built by the app at boot: it owns the port from then on
    link.start()                 # its task: poll, answer, write

What it needs (the seams, documented in board/__init__.py and app.py):
  board.serial      readinto(buf) -> bytes read, 0 or None when nothing waits
                    (never blocks); write(data) -> bytes written
  board.device_id() the box's id; board.request_maintenance() (optional:
                    write the flag and reset; absent on the simulator)
  app.root, app.journal (None when it could not be opened), app.table, app.assignment_path
  app.spawn(coro)         run the link's task beside the app's, under its exception handler
  app.journal_changed()   the journal changed under the table (an ack
                          compacted a match away)
  app.assignment_changed()  assignment.json was written: offered at once
  app.ask(words, on_answer, timeout_ms, detail)  the pairing question on the box:
                          on_answer(True) when PREV and NEXT are held together,
                          else False; returns False (nothing shown) when the box
                          is not on its start screen
  app.say(words)          a message on the box (the box's own reset: nakk.link.trust)

I/O rules (docs/protocol.md): input is polled, and only the
bytes that are there are read, into a fixed buffer; a line longer than
proto.MAX_LINE is dropped and answered with an error frame; only this task
writes. Nothing a frame says can change a finished result: the link reads
finished matches, and drops one only on an ack that verifies under the
pairing key. Everything else that changes a paired box (an assignment, the
clock, maintenance mode, a new key) must be signed by its judge over the
box's current challenge (docs/security.md); a request that is not is refused
with an error frame and counted (`rejected` in the hello). Ctrl-C (0x03) and
Ctrl-D (0x04) are plain bytes here (micropython.kbd_intr(-1)); mpremote's
`\\r\\x03\\r\\x01` outside a frame asks an UNPAIRED box for maintenance mode, as
a `repl` request does (a fresh box is flashed that way); a paired box refuses it.
The key, the challenge, pairing and maintenance are nakk.link.trust's (a mixin of Link).
"""

from nakk.compat import const

import asyncio
import hashlib
import time

from nakk import BOARD, BUILD, VERSION, record
from nakk.link import proto
from nakk.event import EventError, encode, parse
from nakk.journal import READ_BUF, write_atomic
from nakk.link.sign import eq, hmac_sha256
from nakk.link.trust import PAIR_MS, Trust, _Refuse, _hex

POLL_MS = const(10)       # how often the port is looked at while it is quiet
_RX = const(256)          # bytes taken from the port per read
_LIST_MAX = const(40)     # matches named per `list` response (it says when there are more)
_MREPL = b"\r\x03\r\x01"  # mpremote: interrupt, then raw REPL

_ASSIGN_FIELDS = ("tournament", "table", "round", "ruleset", "settings", "sides", "seats",
                  "first_shuffler", "boards", "room", "clock", "note", "assignment")


def _buffers():
    """The buffers a link answers every frame with: the port's reads, the line, a match read from
    flash (READ_BUF: 4 KB in one piece), one `get` response's data."""
    return [bytearray(_RX), bytearray(proto.MAX_LINE + 2), bytearray(READ_BUF), bytearray(proto.CHUNK)]


# The box's link's buffers, made when this module is imported: main.py imports it before the
# app, while the heap is still one free run. Made later, after the UI's modules were loaded
# (as .mpy files their code is on the heap, between the garbage their loading left), the
# 4 KB piece found no hole: 80 KB free, the largest run 3.5 KB (MemoryError at boot).
_FIRST = [_buffers()]


class Link(Trust):
    def __init__(self, app, board, poll_ms=POLL_MS):
        self.app = app
        self.board = board
        self.serial = board.serial
        self.poll_ms = poll_ms
        self.journal = app.journal   # None when it could not be opened (the box says so): nothing to hand over
        self.key_path = app.root + "/key"
        self.judge = ""        # the name of the judge the box is paired with ("" when not, or not told)
        self.key = self._load_key()
        self.device = board.device_id()
        # Every buffer a frame needs is made at boot (the box's own link takes _FIRST's):
        # by the time the judge comes, a box with many matches on flash has a fragmented heap
        self._rx, self._line, self._rbuf, self._data = _FIRST.pop() if _FIRST else _buffers()
        encode({})                         # nakk.event's encode buffer, made now
        self._n = 0            # bytes of the current line
        self._over = False     # the current line ran past the cap: dropped
        self._seq = 0          # how much of _MREPL came last, outside a frame
        self._out = []         # frames waiting to be written by the task
        self._got = None       # [n, rid, size, sha hex, events, final] of the last match read
        self._pair = None      # [rid, key, nonce, started ms, judge] while the box asks (nakk.link.pairing)
        self._reset = False    # enter maintenance mode once the reply is written
        self.clock_offset = 0  # the judge's clock minus the box's (seconds)
        # counters (the simulator's I line and bench_sync read them)
        self.frames = 0        # frames answered
        self.errors = 0        # error frames sent
        self.ignored = 0       # lines that were not frames
        self.maintenance = 0   # maintenance requests seen
        self.rejected = 0      # requests refused since boot for a missing or wrong signature (hello: rejected)
        self.challenge = ""    # what the judge's next signed request must carry (hello: challenge)
        self._fresh()
        self.task = None

    # ------------------------------------------------------------ the task
    def start(self):
        try:
            import micropython
            micropython.kbd_intr(-1)   # Ctrl-C is a byte like any other: the link owns the port
        except (ImportError, AttributeError):
            pass
        spawn = getattr(self.app, "spawn", None)
        if spawn is not None:
            spawn(self.run())
        else:
            self.task = asyncio.create_task(self.run())

    async def run(self):
        while True:
            got = self.poll()
            if got or self._out or self._reset:
                await asyncio.sleep_ms(0)
            else:
                await asyncio.sleep_ms(self.poll_ms)

    def poll(self):
        """Read what waits on the port (one buffer's worth), answer whole lines, write.
        Returns the bytes read (0 when the port was quiet: then nothing is allocated)."""
        got = self.serial.readinto(self._rx)
        if got:
            self._take(got)
        else:
            got = 0
        if self._pair is not None and time.ticks_diff(time.ticks_ms(), self._pair[3]) > PAIR_MS + 5000:
            self.pair_timed_out()
        if self._out or self._reset:
            self._flush()
        return got

    def _flush(self):
        self._write_out()
        if self._reset:
            self._reset = False
            self.board.request_maintenance()

    def _write_out(self):
        """Write the frames waiting, in order."""
        out = self._out
        write = self.serial.write
        while out:
            f = out.pop(0)
            if isinstance(f, tuple):       # (body, tail) of a long frame: never joined in RAM
                write(proto.MARK)
                write(f[0])
                write(f[1])
            else:
                write(f)

    def _take(self, k):
        rx = self._rx
        line = self._line
        cap = len(line)
        for i in range(k):
            c = rx[i]
            # mpremote's raw-REPL request, outside a frame (it starts with \r, which ends a line)
            if c == _MREPL[self._seq] and (self._seq > 0 or self._n == 0):
                self._seq += 1
                if self._seq == 4:
                    self._seq = 0
                    self._mpremote()
            else:
                self._seq = 1 if c == 13 else 0
            if c == 10 or c == 13:
                if self._over:
                    if line[0] == 0x7E:
                        self._send(proto.error(0, proto.E_TOO_LONG, "frame longer than %d bytes: dropped"
                                               % proto.MAX_LINE))
                        self.errors += 1
                elif self._n:
                    self._line_done(self._n)
                self._n = 0
                self._over = False
            elif c < 0x20 and not (self._n >= 2 and line[0] == 0x7E and line[1] == 0x4E):
                self._n = 0      # a control byte (Ctrl-C, Ctrl-D, ...) outside a frame: noise, dropped
            elif self._n < cap:
                line[self._n] = c
                self._n += 1
            else:
                self._over = True

    def _send(self, frame):
        self._out.append(frame)

    def _line_done(self, n):
        line = self._line
        if n < 2 or not proto.is_frame(line):
            self.ignored += 1
            return
        rid = 0
        try:
            obj = proto.decode_frame(memoryview(line)[:n])
            if "ok" in obj:
                self.ignored += 1      # a response (an echo of our own): not for us
                return
            rid, cmd = proto.check_request(obj)
            h = _HANDLERS.get(cmd)
            if h is None:
                raise _Refuse(proto.E_UNKNOWN, "unknown command %r (protocol %d: %s)"
                              % (cmd, proto.VERSION, " ".join(proto.COMMANDS)))
            resp = h(self, rid, obj)
            if resp is not None:
                # built in the encoder's own buffer and written at once (before the next line
                # of this read is answered): a fragmented heap need not hold a 1.3 KB `get` reply
                self._send(proto.reply_parts(rid, resp, view=True))
                self._write_out()
            self.frames += 1
        except proto.ProtoError as e:
            self._error(rid or e.rid, e.code, e.why)
        except _Refuse as e:
            self._error(rid, e.code, e.why)
        except Exception as e:    # nothing a frame says may stop the link
            self._error(rid, proto.E_FAILED, repr(e))

    def _error(self, rid, code, why):
        self.errors += 1
        self._send(proto.error(rid, code, why))

    # ------------------------------------------------------------ what is there to sync
    def _ready(self):
        """Match numbers the judge may take: finished, and not the match still at the table
        unless its result is locked (every side answered): the players may still confirm."""
        table = self.app.table
        out = []
        if self.journal is None:
            return out
        for n, fin in self.journal.matches():
            if not fin:
                continue
            if n == table.n and table.match is not None and not table.match.locked():
                continue
            out.append(n)
        return out

    def _read(self, n, fold=True):
        """[n, rid, size, sha256 hex, events, final, folded] of finished match n, in one pass over
        flash (cached). fold: also fold it with the rules for the totals the box showed (`get`
        reports them; an `ack` needs only the hash)."""
        g = self._got
        if g is not None and g[0] == n and (g[6] or not fold):
            return g
        j = self.journal
        h = hashlib.sha256()
        size = 0
        count = 0
        m = None
        if fold:
            from nakk.match import Match
            m = Match(lambda: (parse(r) for r in j.records(n)))
        for kind, p in j.records(n, kinds=True, buf=self._rbuf):
            if kind == record.ACK:
                continue
            if count:
                h.update(b"\n")
                size += 1
            h.update(p)
            size += len(p)
            count += 1
            if m is not None:
                m.apply(parse(p))
        final = None
        if m is not None:
            st = m.summary()
            final = st.get("final") if st.get("over") else None
        g = [n, j.result_id(n), size, _hex(h.digest()), count, final, fold]
        self._got = g
        return g

    def _chunk(self, n, off):
        """proto.CHUNK bytes (fewer at the end) of match n's stored data from off, as a str.
        A fixed size lets the judge ask for every chunk of a match at once; escaped in
        JSON it is at most twice as long, which a frame holds."""
        out = self._data
        k = 0
        pos = 0
        stop = off + proto.CHUNK
        first = True
        for kind, p in self.journal.records(n, kinds=True, buf=self._rbuf):
            if kind == record.ACK:
                continue
            if not first:
                if off <= pos < stop:
                    out[k] = 10
                    k += 1
                pos += 1
            first = False
            end = pos + len(p)
            if end > off and pos < stop:
                i = off - pos if off > pos else 0
                j = stop - pos if stop < end else len(p)
                out[k:k + j - i] = p[i:j]
                k += j - i
            pos = end
            if pos >= stop:
                break
        return str(memoryview(out)[:k], "utf-8")   # one copy: the str

    def _need_key(self):
        if self.key is None:
            raise _Refuse(proto.E_NOT_PAIRED, "this box is not paired with a judge: nakk pair")

    def _number(self, obj, name):
        v = obj.get(name)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v >= proto.ID_MAX:
            raise _Refuse(proto.E_BAD, "%s: a whole number" % name)
        return v

    # ------------------------------------------------------------ commands
    def c_hello(self, rid, obj):
        from nakk import rules
        j = self.journal
        ready = self._ready()
        table = self.app.table
        damaged = dict(j.damaged) if j is not None else {}
        if table.damaged is not None:
            damaged[table.damaged[0]] = 1
        if j is not None:
            # a match left unfinished behind the one in play could not be folded back
            # at a boot (a damaged record): the players went on with a new one
            for n, fin in j.matches():
                if not fin and table.n is not None and n < table.n:
                    damaged[n] = 1
        out = {"device": self.device, "fs_id": j.fs_id if j is not None else None, "fw": VERSION, "build": BUILD,
               "board": BOARD,
               "proto": proto.VERSION, "journal": record.VERSION, "rulesets": list(rules.NAMES),
               "free": j.free_bytes() if j is not None else 0,
               "unsynced": table.waiting(), "ready": len(ready), "paired": self.key is not None,
               "clock": int(time.time()) + self.clock_offset, "max_line": proto.MAX_LINE,
               "damaged": len(damaged), "damaged_matches": sorted(damaged),
               "challenge": self.challenge, "rejected": self.rejected}
        if self.key is not None:
            out["judge"] = self.judge
            out["live"] = _exists(self.app.root + "/net")   # a network for the live scores: never what it is
        if j is None:
            out["broken"] = table.broken or "the journal could not be opened"
        nonce = obj.get("nonce")
        if nonce is not None:
            if not isinstance(nonce, str) or not 8 <= len(nonce) <= 64:
                raise _Refuse(proto.E_BAD, "nonce: 8 to 64 characters")
            if self.key is not None and j is not None:
                out["mac"] = _hex(hmac_sha256(self.key, proto.hello_msg(nonce, self.device, j.fs_id)))
        return out

    def _is_ready(self, n):
        """Whether _ready() would list match n, without listing them all: a full box holds
        ~160 matches, and every get and ack asks (the lists took 2 KB in one piece each
        on the unix port, which a long sync's heap sometimes no longer had)."""
        j = self.journal
        if j is None or not j.has(n):
            return False
        try:
            if not j.finished(n):
                return False
        except OSError:
            return False
        table = self.app.table
        return not (n == table.n and table.match is not None and not table.match.locked())

    def c_list(self, rid, obj):
        ready = self._ready()
        j = self.journal
        return {"matches": [[n, j.result_id(n)] for n in ready[:_LIST_MAX]],
                "more": len(ready) > _LIST_MAX}

    def c_get(self, rid, obj):
        self._need_key()
        n = self._number(obj, "n")
        off = obj.get("off", 0)
        if not isinstance(off, int) or isinstance(off, bool) or off < 0:
            raise _Refuse(proto.E_BAD, "off: a whole number")
        if not self._is_ready(n):
            raise _Refuse(proto.E_NO_MATCH, "no finished, unacknowledged match %d" % n)
        g = self._read(n)
        if off > g[2]:
            raise _Refuse(proto.E_BAD, "off: past the end (%d bytes)" % g[2])
        data = self._chunk(n, off)
        out = {"n": n, "rid": g[1], "off": off, "size": g[2], "sha256": g[3],
               "data": data, "end": off + len(data) >= g[2]}
        if off == 0:
            out["sig"] = _hex(hmac_sha256(self.key, proto.result_msg(g[1], g[3])))
            out["final"] = g[5]
            out["events"] = g[4]
        return out

    def c_ack(self, rid, obj):
        self._need_key()
        n = self._number(obj, "n")
        rid_s = obj.get("rid")
        sha = obj.get("sha256")
        mac = obj.get("mac")
        if not isinstance(rid_s, str) or not isinstance(sha, str) or not isinstance(mac, str):
            raise _Refuse(proto.E_BAD, "ack needs rid, sha256 and mac")
        j = self.journal
        if j is None:
            raise _Refuse(proto.E_NO_MATCH, "this box's journal could not be opened")
        if rid_s != j.result_id(n):
            raise _Refuse(proto.E_BAD, "rid: not this box's result %d" % n)
        try:
            given = proto.unhexlify(mac)
        except ValueError:
            raise _Refuse(proto.E_BAD, "mac: hex")
        if not eq(hmac_sha256(self.key, proto.ack_msg(rid_s, sha)), given):
            self._reject("the acknowledgement is not signed with this box's key")
        if not self._is_ready(n):
            raise _Refuse(proto.E_NO_MATCH, "no finished, unacknowledged match %d (already acknowledged?)" % n)
        g = self._read(n, fold=False)
        if not eq(g[3].encode(), sha.encode()):
            raise _Refuse(proto.E_BAD, "sha256: not the hash of match %d as stored" % n)
        judge = obj.get("judge")
        ev = {"seq": g[4] + 1, "type": "synced", "hash": sha}
        if isinstance(judge, str) and len(judge) <= 64:
            ev["judge"] = judge
        try:
            j.ack(n, encode(ev))
        except Exception as e:
            raise _Refuse(proto.E_FAILED, "could not save the acknowledgement: %r" % (e,))
        self._got = None
        self._changed()
        return {"n": n, "acked": True}

    def c_assign(self, rid, obj):
        from nakk.match import Match
        self._need_key()
        self._signed(obj)
        a = {}
        for k in _ASSIGN_FIELDS:
            if k in obj:
                a[k] = obj[k]
        ev = dict(a)
        ev["type"] = "setup"
        ev["seq"] = 1
        ev["v"] = 1
        try:
            Match().apply(ev)      # the same check as a match started at the table
        except EventError as e:
            raise _Refuse(proto.E_BAD, str(e))
        aid = a.get("assignment")
        if aid is not None and not (isinstance(aid, str) and 1 <= len(aid) <= 64):
            raise _Refuse(proto.E_BAD, "assignment: the judge's id for it, 1 to 64 characters")
        a["device"] = self.device
        try:
            write_atomic(self.app.assignment_path, encode(a))
        except OSError as e:
            raise _Refuse(proto.E_FAILED, "could not save the assignment: %r" % (e,))
        clock = a.get("clock")
        if isinstance(clock, int) and clock > 0:
            self.clock_offset = clock - int(time.time())
        changed = getattr(self.app, "assignment_changed", None)
        if changed is not None:
            changed()
        return {"assigned": True}

    def _changed(self):
        f = getattr(self.app, "journal_changed", None)
        if f is not None:
            f()


def _exists(path):
    try:
        open(path, "rb").close()
        return True
    except OSError:
        return False


_HANDLERS = {"hello": Link.c_hello, "list": Link.c_list, "get": Link.c_get, "ack": Link.c_ack,
             "assign": Link.c_assign, "pair": Link.c_pair, "repl": Link.c_repl}
