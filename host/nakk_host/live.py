"""The judge's live server (docs/live.md): Pico W boxes send each saved event over TCP; stored once, in order.

    server = LiveServer(db_path)               # the judge's database (store.open_db)
    await server.start("192.168.8.10", 7373)   # binds there; server.where says where
    ...                                        # or: listen(db, "HOST:PORT"), in a
                                               # thread of its own beside `nakk serve` / `nakk judge`

A box connects (the address came only with pairing) and speaks the serial link's
frames (nakk.proto), one per line:

    box:    {"cmd":"hello","id":1,"device":D,"fs_id":F,"nonce":N}
    server: {"id":1,"ok":true,"challenge":C,"mac":HMAC(key, live_hello_msg(N, C, D, F))}
    box:    {"cmd":"event","id":k,"rid":"F-n","seq":s,"ev":"<the event's stored bytes>",
             "mac":HMAC(key, live_msg(C, k, D, rid, s, ev))}
    server: {"id":k,"ok":true,"next":t,"mac":HMAC(key, live_ack_msg(N, k, rid, t))}

Only boxes this judge paired (store.devices) get past the hello; an event is taken
only with a good mac under that box's key over this connection's challenge and a
frame id above every id taken on the connection (so a recorded frame, replayed on
this connection or another, is refused), and only in order: seq t is stored when
every seq before it is; an earlier seq (sent again after a lost answer) is answered
and not stored again; a later one is answered with the seq wanted (the box goes
back). Refused frames are answered with an error frame and counted (livestore).
The server reads nothing else and changes nothing but live_events and live_refused.
"""

import asyncio
import errno
import hmac
import os
import secrets
import sqlite3
import threading

from nakk.link import proto
from nakk.event import EventError, parse
from nakk.link.sign import hmac_sha256

from nakk_host import livestore, store

_IDLE_S = 120          # a connection that says nothing this long is closed (the box reconnects)
_LINE = proto.MAX_LINE + 2


class LiveError(Exception):
    """The server cannot start (the address is taken, not this machine's, ...)."""


def parse_address(text):
    """(host, port) of "HOST:PORT"; LiveError in plain words when it is not one."""
    host, sep, port = (text or "").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise LiveError("--live %r: HOST:PORT, e.g. 192.168.8.10:7373" % (text,))
    return host.strip("[]"), int(port)


class _Refused(Exception):
    def __init__(self, code, why, count=None):
        super().__init__(why)
        self.code = code
        self.why = why
        self.count = count      # livestore.count_refused's reason, or None: answered, not counted


class LiveServer:
    def __init__(self, db, on_store=None, log=None):
        """db: the judge's database file; on_store(result_id, seq): called after each event is
        stored (the hall's pages refresh on it); log(text): where a line about a connection goes."""
        self.db = db
        self.conn = store.open_db(db, create=False)
        self.on_store = on_store
        self.log = log or (lambda s: None)
        self.server = None
        self.where = None
        # counters since start (the bench and the tests read them; the database keeps the refusals)
        self.stored = 0         # events stored
        self.again = 0          # events sent again that were already stored (answered, not stored)
        self.refused = 0        # frames refused (forged, replayed, unknown box, damaged)
        self.connections = 0

    async def start(self, host, port):
        try:
            self.server = await asyncio.start_server(self._client, host, port, limit=4 * _LINE)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                # the other door (nakk serve --live / nakk judge --live) already takes the boxes there
                raise LiveError("port %d on %s is taken (nakk serve --live or nakk judge --live already "
                                "listens there?): the boxes send to the one that listens" % (port, host)) from None
            raise LiveError("cannot listen on %s:%d: %s" % (host, port, e.strerror or e)) from None
        sock = self.server.sockets[0].getsockname()
        self.where = "%s:%d" % (sock[0], sock[1])
        return self.where

    def stop(self):
        """Stop a server that serve_in_thread runs (from another thread)."""
        loop = getattr(self, "loop", None)
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)

    async def close(self):
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        self.conn.close()

    # ------------------------------------------------------------ one box's connection
    async def _client(self, reader, writer):
        self.connections += 1
        session = {"box": None, "nonce": None, "challenge": None, "last": 0, "fs_id": None}
        try:
            while True:
                try:
                    line = await asyncio.wait_for(reader.readuntil(b"\n"), _IDLE_S)
                except (asyncio.LimitOverrunError, ValueError):
                    self._count(session, "damaged")
                    break                    # a line longer than any frame: not a box of ours
                except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError, OSError):
                    break
                if not proto.is_frame(line):
                    continue
                writer.write(self._answer(session, line))
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    def _answer(self, session, line):
        rid = 0
        try:
            obj = proto.decode_frame(line)
            rid, cmd = proto.check_request(obj)
            if cmd == "hello":
                return proto.reply(rid, self._hello(session, obj))
            if cmd == "event":
                return proto.reply(rid, self._event(session, rid, obj))
            raise _Refused(proto.E_UNKNOWN, "the live server takes hello and event", "damaged")
        except proto.ProtoError as e:
            self._count(session, "damaged")
            return proto.error(rid or e.rid, e.code, e.why)
        except _Refused as e:
            if e.count:
                self._count(session, e.count)
            return proto.error(rid, e.code, e.why)

    def _count(self, session, why):
        self.refused += 1
        box = session["box"]
        livestore.count_refused(self.conn, box["device_id"] if box else "?", why)

    def _hello(self, session, obj):
        dev = obj.get("device")
        fs_id = obj.get("fs_id")
        nonce = obj.get("nonce")
        if not (isinstance(dev, str) and isinstance(fs_id, str) and isinstance(nonce, str) and 8 <= len(nonce) <= 64):
            raise _Refused(proto.E_BAD, "hello needs device, fs_id and a nonce of 8 to 64 characters", "damaged")
        if session["box"] is not None and session["nonce"] == nonce and session["box"]["device_id"] == dev:
            # the same hello again (a network that duplicated it): the same answer, the session goes on
            return {"challenge": session["challenge"], "mac": session["hello_mac"]}
        box = store.device(self.conn, dev)
        if box is None or box["key"] is None:
            raise _Refused(proto.E_NOT_PAIRED, "this judge never paired box %s" % dev, "unknown-box")
        if box["fs_id"] != fs_id:
            raise _Refused(proto.E_NOT_PAIRED, "box %s was reformatted since it was paired: pair it again" % dev,
                           "unknown-box")
        challenge = secrets.token_hex(8)
        session.update(box=box, nonce=nonce, challenge=challenge, last=0, fs_id=fs_id)
        self.log("live: box %s (%s) connected" % (box["name"] or dev, dev))
        mac = hmac_sha256(bytes(box["key"]), proto.live_hello_msg(nonce, challenge, dev, fs_id)).hex()
        session["hello_mac"] = mac
        return {"challenge": challenge, "mac": mac}

    def _event(self, session, fid, obj):
        box = session["box"]
        if box is None:
            raise _Refused(proto.E_NOT_PAIRED, "hello first", "damaged")
        rid_s, seq, ev, mac = obj.get("rid"), obj.get("seq"), obj.get("ev"), obj.get("mac")
        if not (isinstance(rid_s, str) and isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1
                and isinstance(ev, str) and isinstance(mac, str)):
            raise _Refused(proto.E_BAD, "event needs rid, seq, ev and mac", "damaged")
        dev = box["device_id"]
        raw = ev.encode("utf-8")
        want = hmac_sha256(bytes(box["key"]), proto.live_msg(session["challenge"], fid, dev, rid_s, seq, raw))
        try:
            given = bytes.fromhex(mac)
        except ValueError:
            given = b""
        if not hmac.compare_digest(want, given):
            raise _Refused(proto.E_BAD_MAC, "not signed with this box's key on this connection", "forged")
        if fid <= session["last"]:
            raise _Refused(proto.E_BAD_MAC, "frame %d was already taken on this connection (replayed)" % fid,
                           "replayed")
        session["last"] = fid
        fs_id, _, n = rid_s.rpartition("-")
        if fs_id != session["fs_id"] or not n.isdigit():
            raise _Refused(proto.E_BAD, "rid: not a result id of this box", "conflict")
        try:
            event = parse(raw)
        except EventError as e:
            raise _Refused(proto.E_BAD, "ev: %s" % e.reason, "damaged")
        if event.get("seq") != seq:
            raise _Refused(proto.E_BAD, "ev: its seq is not %d" % seq, "damaged")
        nxt = livestore.expected(self.conn, rid_s)
        if seq == nxt and self._add(rid_s, dev, fs_id, int(n), seq, raw):
            nxt += 1
        else:
            if seq == nxt:
                nxt = livestore.expected(self.conn, rid_s)    # another live server stored it first
            if seq < nxt:
                self.again += 1
                if livestore.stored_event(self.conn, rid_s, seq) != raw:
                    # the same seq with other bytes: never overwritten (the synced result decides)
                    self._count(session, "conflict")
        mac = hmac_sha256(bytes(box["key"]), proto.live_ack_msg(session["nonce"], fid, rid_s, nxt))
        return {"next": nxt, "mac": mac.hex()}

    def _add(self, rid_s, dev, fs_id, n, seq, raw):
        """Store one event; False when it is already there: another live server on this database
        (`nakk serve --live` and `nakk judge --live` on two ports) stored it between our look and our
        write. (result_id, seq) is live_events' key, so an event is there once whichever stores it."""
        try:
            livestore.add_event(self.conn, rid_s, dev, fs_id, n, seq, raw)
        except sqlite3.IntegrityError:
            return False
        self.stored += 1
        if self.on_store is not None:
            self.on_store(rid_s, seq)
        return True


def serve_in_thread(db, host, port, on_store=None, log=print):
    """Run a LiveServer on its own event loop in a daemon thread (beside `nakk serve`'s web
    server). Returns (server, where) once it listens; LiveError if it cannot."""
    started = threading.Event()
    box = {}

    def run():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            srv = LiveServer(db, on_store=on_store, log=log)
            box["server"] = srv
            box["where"] = loop.run_until_complete(srv.start(host, port))
        except (LiveError, store.StoreError, sqlite3.Error) as e:
            box["error"] = e
            started.set()
            return
        srv.loop = loop
        started.set()
        loop.run_forever()
        pending = asyncio.all_tasks(loop)       # the boxes' connections: ended, not left half-run
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(srv.close())
        loop.close()

    t = threading.Thread(target=run, name="nakk-live", daemon=True)
    t.start()
    started.wait(30)
    if "error" in box:
        raise LiveError(str(box["error"]))
    return box["server"], box["where"]


def listen(db, address, log=print):
    """`--live HOST:PORT` of `nakk serve` and `nakk judge` (cmdtable.live_scores): the live server in its
    own thread beside the web pages. Returns (server, the line saying where it listens); LiveError in
    plain words (a bad address, a port another nakk already takes)."""
    host, port = parse_address(address)
    srv, where = serve_in_thread(db, host, port, log=log)
    return srv, "nakk: live scores from the Pico W boxes on %s (only boxes this judge paired)" % where


def main(argv=None):
    """`python -m nakk_host.live DB HOST:PORT`: the live server alone (tests and the bench run it
    as a process of its own). Prints one line saying where it listens."""
    import sys
    argv = sys.argv[1:] if argv is None else argv
    db, addr = argv[0], argv[1]
    host, port = parse_address(addr)

    async def run():
        srv = LiveServer(db)
        where = await srv.start(host, port)
        print("nakk: live scores from the boxes on %s (database %s)" % (where, os.path.abspath(db)), flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
