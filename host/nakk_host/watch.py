"""Plug in, and it is synced: the judge's box watcher, under the console (`nakk judge`) and `nakk sync --watch`.

    w = Watcher("nakk.db", lang="et")      # the judge's database (store.open_db), Estonian words
    w.start()                              # one scanner thread; a thread per box that appears
    for e in w.wait(since=0, timeout=5):   # numbered events: {"n", "time", "port", "box", "table", "kind", "words", ...}
        print(e["n"], e["words"])          # "Laud 3: 16 : 12 vastu võetud, kontrollitud"
    w.boxes()                              # every box plugged in now: its state and what it is offered
    w.pair(url, name="laud 3")             # an offered box: it asks its players to hold PREV+NEXT
    w.assign(url)                          # an offered assignment: sent, signed with the box's key
    w.stop()                               # ends and joins every thread

The scanner polls the USB ports (pyserial's list_ports, VID:PID 2E8A:0005) and the simulators'
registry (device.discover) every `poll` seconds. A box that appears gets its own thread
(watchjobs.look): a box paired with this judge is synced at once by sync.sync_box, the one sync
(stored once, then acknowledged: a box pulled out mid-sync and plugged in again stores nothing
twice); a box paired with nobody is offered for pairing; a paired box whose table (its name, `laud
3`) has a match drawn in the latest round that it was never given is offered that assignment. The
offers are looked at again whenever another connection writes the database (a round drawn while
the boxes are plugged in). At most `workers` boxes are synced at once, in the order they appeared;
a box that has not finished within `deadline` seconds gives its place to the next (a hung box among
twenty holds up none of the others). Any exception in a thread becomes a "crash" event: no thread
dies silently. Touches the boxes' serial ports and the judge's database, through watchjobs only.
"""

import sys
import threading
import time

from nakk_host import assign as A
from nakk_host import device as D
from nakk_host import store
from nakk_host import watchjobs as J
from nakk_host import watchwords as W

POLL = 0.2        # seconds between two looks at the ports
WORKERS = 8       # boxes synced at once (a hub of 20: in 3 waves; each sync is mostly waiting on its box)
STOP_WAIT = 5.0  # seconds `nakk sync --watch` waits at Ctrl-C for a box being read
DEADLINE = 30.0   # seconds a box may take to be looked at and synced before the next one gets its place
KEEP = 2000       # events kept for events(since)


class WatchError(Exception):
    """A request the watcher cannot do now (no such box, busy, not offered), in plain words."""


class _Box:
    """What the watcher knows of the box on one port, while it is plugged in."""

    def __init__(self, port):
        self.port = port
        self.ident = getattr(port, "ident", port.url)
        self.device = self.fs_id = self.name = self.judge = None
        self.state = "new"
        self.offer = None         # {"kind": "pair"} or {"kind": "assign", round, table, room, sides, tournament}
        self.thread = None        # the job running for it (one at a time)
        self.counted = False      # holds one of the `workers` places
        self.started = None       # when it took its place (time.monotonic)
        self.gone = False
        self.again = False        # a sync asked for while a job ran
        self.since = store.now()
        self.last = None          # the latest event's words
        self.stored = 0           # results stored since it was plugged in

    def place(self):
        p = A.table_of(self.name) if self.name else None
        return p if p is not None else (None, 0)

    def who(self):
        tb, room = self.place()
        if tb is not None:
            return W.place(tb, room)
        what = self.name or self.device or self.port.url
        return tuple("%s %s" % (W.BOX[i], what) for i in (0, 1))


class Watcher:
    """Watches the ports for boxes; see the module's text. Every method is safe from any thread."""

    def __init__(self, db, lang="et", tournament=None, poll=POLL, workers=WORKERS, deadline=DEADLINE,
                 timeout=None, judge_name=None, discover=None):
        if lang not in ("et", "en"):
            raise ValueError("lang is et or en")
        self.db = db
        self.lang = lang
        self.tournament = tournament          # a tournament's code; None: the latest created
        self.poll = poll
        self.workers = max(1, int(workers))
        self.deadline = deadline
        self.timeout = timeout or D.TIMEOUT   # seconds for a box's answer (serialline)
        self.judge_name = judge_name          # for pairing (judge.default_judge when None)
        self._discover = discover or D.discover
        self._cond = threading.Condition()
        self._boxes = {}                      # port url -> _Box
        self._events = []
        self._n = 0
        self._queue = []                      # boxes waiting for a place, in the order they appeared
        self._running = 0
        self._tick = 0                        # counts every change of a box's state (wait() wakes)
        self._threads = set()
        self._stop = threading.Event()
        self._scanner = None
        self._scan_error = None
        self._version = None

    # ------------------------------------------------------------ the console's side
    def start(self):
        """Begin watching. StoreError (plain words) for a database that cannot be used."""
        if self._scanner is not None:
            raise WatchError("the watcher is running already")
        store.open_db(self.db, create=False).close()
        self._scanner = threading.Thread(target=self._scan_loop, name="nakk-watch", daemon=True)
        self._scanner.start()

    def stop(self, timeout=30.0):
        """Stop watching and join every thread (a box's job ends within its serial timeouts; a pairing
        waiting at the box, within its 75 s). Returns the ports whose thread had not ended in `timeout`."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        end = time.monotonic() + timeout
        if self._scanner is not None:
            self._scanner.join(max(0.0, end - time.monotonic()))
        with self._cond:
            threads = list(self._threads)
        for t in threads:
            t.join(max(0.0, end - time.monotonic()))
        with self._cond:
            return sorted(b.port.url for b in self._boxes.values() if b.thread is not None and b.thread.is_alive())

    def events(self, since=0):
        """The events numbered above `since` (the last one seen), oldest first, as dicts: n, time, at,
        port, box (device id), name, table, room, kind, alarm, et, en, words (in the watcher's language),
        and for a result: result_id, final, round; for an offer: offer."""
        with self._cond:
            return [dict(e) for e in self._events if e["n"] > since]

    def wait(self, since=0, timeout=None):
        """events(since), waiting up to `timeout` seconds for one to come or for a box's state to
        change (then it may be []: a console's long poll, after which it reads boxes() again)."""
        with self._cond:
            tick = self._tick
            self._cond.wait_for(lambda: self._n > since or self._tick != tick or self._stop.is_set(), timeout)
        return self.events(since)

    def last_event(self):
        """The number of the latest event (0 before any)."""
        with self._cond:
            return self._n

    def boxes(self):
        """Every box plugged in now, by port: port, kind (usb/sim/url), label, box (device id), name,
        table, room, state (and state_words), offer, busy, since, last (the latest event's words), stored."""
        out = []
        with self._cond:
            for url in sorted(self._boxes):
                b = self._boxes[url]
                if b.gone:
                    continue
                tb, room = b.place()
                words = W.STATES.get(b.state, (b.state, b.state))
                out.append({"port": url, "kind": b.port.kind, "label": b.port.label, "box": b.device, "name": b.name,
                            "table": tb, "room": room, "state": b.state,
                            "state_words": words[0 if self.lang == "et" else 1],
                            "offer": dict(b.offer) if b.offer else None, "busy": b.thread is not None,
                            "since": b.since, "last": b.last, "stored": b.stored})
        return out

    def pair(self, port, name=None):
        """Pair the box on `port` (offered for pairing) as `nakk pair` does: it asks its players to hold
        PREV and NEXT together; events follow (pairing, then paired and its sync, or pair-failed).
        name: what the judge calls it ("laud 3": the table it gets assignments for)."""
        with self._cond:
            b = self._offered(port, "pair")
            self._spawn(b, J.pair_now, (name,), slot=False)

    def assign(self, port):
        """Send the box on `port` the assignment it is offered (events: assigned or assign-failed)."""
        with self._cond:
            b = self._offered(port, "assign")
            self._spawn(b, J.assign_now, (dict(b.offer),), slot=False)

    def sync(self, port):
        """Look at the box on `port` again now, as when it appeared (after the job it is doing, if
        busy): a paired box is synced (a box that did not answer, once it does)."""
        with self._cond:
            b = self._present(port)
            if b.state in ("unpaired", "foreign"):
                raise WatchError("%s: the box is not paired with this judge" % port)
            if b.thread is not None:
                b.again = True
            else:
                self._spawn(b, J.look, (), slot=True)

    # ------------------------------------------------------------ what the jobs call
    def update(self, b, **state):
        with self._cond:
            for k, v in state.items():
                setattr(b, k, v)
            self._changed()

    def set_offer(self, b, offer, again=False):
        """Offer the box something (None: nothing); an offer new to it is an event (again: say it again)."""
        with self._cond:
            if b.gone or offer == b.offer and not again:
                return
            b.offer = offer
            self._changed()
        if offer is None:
            return
        if offer["kind"] == "pair":
            self.event(b, "pair-offer", box=b.device or "?", offer=dict(offer))
        else:
            self.event(b, "assign-offer", where=W.place(offer["table"], offer["room"]), round=offer["round"],
                       sides=offer["sides"], offer=dict(offer), table=offer["table"], room=offer["room"])

    def event(self, b, kind, **fields):
        """Add an event in words (watchwords.WORDS[kind]) about box b (None: the watcher itself)."""
        fields.setdefault("who", b.who() if b is not None else ("jälgija", "watcher"))
        fields.setdefault("port", b.port.url if b is not None else None)
        et, en = W.say(kind, fields)
        tb, room = b.place() if b is not None else (None, 0)
        e = {"time": store.now(), "at": time.time(), "port": fields["port"], "box": b.device if b else None,
             "name": b.name if b else None, "table": fields.get("table", tb), "room": fields.get("room", room),
             "kind": kind, "alarm": kind in W.ALARMS, "et": et, "en": en, "words": et if self.lang == "et" else en}
        for k in ("result_id", "final", "round", "offer"):
            if k in fields:
                e[k] = fields[k]
        with self._cond:
            self._n += 1
            e["n"] = self._n
            self._events.append(e)
            del self._events[:-KEEP]
            if b is not None:
                b.last = e["words"]
            self._changed()

    # ------------------------------------------------------------ the threads
    def _changed(self):
        """Something a console shows changed (the caller holds the lock): wake the waiters."""
        self._tick += 1
        self._cond.notify_all()

    def _present(self, port):
        b = self._boxes.get(getattr(port, "url", port))
        if b is None or b.gone:
            raise WatchError("no box on %s now" % port)
        return b

    def _offered(self, port, kind):
        b = self._present(port)
        if b.thread is not None:
            raise WatchError("%s: the box is busy (%s)" % (port, b.state))
        if not b.offer or b.offer["kind"] != kind:
            raise WatchError("%s: nothing to %s is offered for this box" % (port, kind))
        return b

    def _spawn(self, b, job, args, slot):
        """Start b's job in its own thread (the caller holds the lock and b has none running)."""
        t = threading.Thread(target=self._job, args=(b, job, args, slot), name="nakk-watch %s" % b.port.url,
                             daemon=True)
        b.thread = t
        self._threads.add(t)
        if slot:
            self._queue.append(b)     # in line now, in the order the boxes appeared
        self._changed()
        t.start()

    def _job(self, b, job, args, slot):
        try:
            if slot and not self._take_place(b):
                return
            job(self, b, *args)
        except Exception as e:
            self.update(b, state="failed")
            self.event(b, "crash", why="%s: %s" % (type(e).__name__, e))
        finally:
            with self._cond:
                if b.counted:
                    self._running -= 1
                    b.counted = False
                if b in self._queue:
                    self._queue.remove(b)
                b.thread = None
                b.started = None
                self._threads.discard(threading.current_thread())
                if b.gone and self._boxes.get(b.port.url) is b:
                    del self._boxes[b.port.url]
                elif b.again and not self._stop.is_set():
                    b.again = False
                    self._spawn(b, J.look, (), slot=True)
                self._changed()

    def _take_place(self, b):
        """Wait for one of the `workers` places, first come first served (in line since _spawn);
        False when stopping or the box is gone."""
        with self._cond:
            while not self._stop.is_set() and not (self._running < self.workers and self._queue[0] is b):
                self._cond.wait(1.0)
            self._queue.remove(b)
            self._changed()
            if self._stop.is_set() or b.gone:       # pulled out while in line: nothing to look at
                return False
            self._running += 1
            b.counted = True
            b.started = time.monotonic()
            return True

    def _scan_loop(self):
        try:
            self._scan_forever()
        except BaseException:           # even the words failed: said on stderr, never silently
            import traceback
            traceback.print_exc()

    def _scan_forever(self):
        conn = None
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = store.open_db(self.db, create=False)
                self._scan()
                self._overdue()
                self._recheck(conn)
                self._scan_error = None
            except Exception as e:
                why = "%s: %s" % (type(e).__name__, e)
                if why != self._scan_error:        # said once, not every poll
                    self._scan_error = why
                    self.event(None, "crash", why=why)
            self._stop.wait(self.poll)
        if conn is not None:
            conn.close()

    def _scan(self):
        ports = {p.url: p for p in self._discover()}
        with self._cond:
            for url, b in list(self._boxes.items()):
                p = ports.get(url)
                if b.gone or (p is not None and getattr(p, "ident", url) == b.ident):
                    continue
                b.gone = True
                b.offer = None
                self.event(b, "gone")
                if b.thread is None:
                    del self._boxes[url]
            for url, p in ports.items():
                if url in self._boxes or self._stop.is_set():
                    continue        # there already (or a box pulled out whose thread still ends)
                b = self._boxes[url] = _Box(p)
                self.event(b, "plugged")
                self._spawn(b, J.look, (), slot=True)

    def _overdue(self):
        """A box past its deadline gives its place to the next one (its thread ends by its timeouts)."""
        now = time.monotonic()
        with self._cond:
            late = [b for b in self._boxes.values() if b.counted and now - b.started > self.deadline]
            for b in late:
                b.counted = False
                self._running -= 1
                b.state = "hung"
            self._changed()
        for b in late:
            self.event(b, "hung", seconds="%g" % self.deadline)

    def _recheck(self, conn):
        """Look at the offers of the boxes plugged in again when the database changed (another
        connection wrote it: a round drawn, an assignment pushed, a result entered)."""
        v = conn.execute("PRAGMA data_version").fetchone()[0]
        if v == self._version:
            return
        self._version = v
        with self._cond:
            idle = [b for b in self._boxes.values() if not b.gone and b.thread is None and b.state == "synced"]
        for b in idle:
            self.set_offer(b, J.offer_for(conn, b.device, b.name, self.tournament))


# ---------------------------------------------------------------- `nakk sync --watch`

def watch_cli(db, lang="et", out=None, timeout=None):
    """Print each event as it comes until Ctrl-C; the console's buttons become the commands to type."""
    out = out or sys.stdout
    w = Watcher(db, lang=lang, timeout=timeout)
    w.start()
    print("Jälgin USB-porte ja simulaatoreid (Ctrl-C lõpetab)." if lang == "et" else
          "Watching the USB ports and the simulators (Ctrl-C stops).", file=out, flush=True)
    seen = 0
    try:
        while True:
            for e in w.wait(seen, timeout=1.0):
                seen = e["n"]
                line = "%s  %s" % (e["time"][11:], e["words"])
                offer = e.get("offer")
                if e["kind"] == "pair-offer":
                    line += "  (nakk pair --db %s --port %s --name 'laud N')" % (db, e["port"])
                elif e["kind"] == "assign-offer" and offer:
                    line += "  (nakk assign --db %s --port %s --round %d --table %d%s)" % (
                        db, e["port"], offer["round"], offer["table"], " --room %d" % offer["room"] if offer["room"] else "")
                print(line, file=out, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        # Ctrl-C is the judge leaving: a box still being read is let go after a few seconds (its
        # store transaction is whole or absent, and the next plug-in syncs it), and said
        busy = w.stop(timeout=STOP_WAIT)
        if busy:
            print("nakk: stopped while still reading %s; plug it in again to sync it" % ", ".join(busy),
                  file=sys.stderr, flush=True)
    return 0
