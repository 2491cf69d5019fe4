"""The hall's change feed: notices every commit to the judge's database and tells open pages (server-sent events).

Whoever stores (`nakk sync`, `nakk enter`, a correction) commits from another
process; SQLite's PRAGMA data_version changes for a connection whenever
another connection has committed, so one cheap query every `interval`
seconds on a dedicated read-only connection is the whole detector: no
triggers, no change table, nothing the writers must remember to do.

Each change bumps `version`. An event id is "<boot>-<version>", where boot
is drawn when the server starts: a page that reconnects (EventSource sends
Last-Event-ID) or that was rendered at an older version is told at once to
fetch again, and so is every page after the server itself restarted.
"""

import asyncio
import os
import sqlite3


def connect_ro(path):
    """A read-only connection: SQLite itself refuses any write through it."""
    from urllib.parse import quote
    conn = sqlite3.connect("file:%s?mode=ro" % quote(os.path.abspath(path)), uri=True,
                           check_same_thread=False, timeout=10)
    conn.row_factory = sqlite3.Row
    return conn


class ChangeFeed:
    def __init__(self, path, interval=0.5):
        self.path = path
        self.interval = interval
        self.boot = os.urandom(4).hex()
        self.version = 0
        self._cond = None
        self._conn = None
        self._last = None

    def event_id(self, version=None):
        return "%s-%d" % (self.boot, self.version if version is None else version)

    def seen(self, event_id):
        """The version a page has seen from its event id; -1 when it is from another server run or unreadable."""
        if not event_id:
            return -1
        boot, _, n = event_id.partition("-")
        # ASCII digits, and few ("²".isdigit() is true; int() of 5 000 digits raises): a header can hold anything
        if boot != self.boot or not (n.isascii() and n.isdigit()) or len(n) > 12 or int(n) > self.version:
            return -1           # unknown, or a version this run never had: fetch now
        return int(n)

    def poll(self):
        """One look at the database; True when someone committed since the last look."""
        if self._conn is None:
            self._conn = connect_ro(self.path)
        dv = self._conn.execute("PRAGMA data_version").fetchone()[0]
        changed = self._last is not None and dv != self._last
        self._last = dv
        return changed

    async def run(self):
        """Poll until cancelled; wake every waiting page on a change."""
        self._cond = asyncio.Condition()
        self.poll()
        try:
            while True:
                await asyncio.sleep(self.interval)
                try:
                    changed = self.poll()
                except sqlite3.Error:
                    changed = False   # a busy or briefly locked file: look again next time
                if changed:
                    self.version += 1
                    async with self._cond:
                        self._cond.notify_all()
        finally:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    async def wait(self, seen, timeout):
        """Wait until version > seen (True) or timeout seconds pass (False)."""
        if self.version > seen:
            return True
        if self._cond is None:
            await asyncio.sleep(timeout)
            return self.version > seen
        try:
            async with self._cond:
                await asyncio.wait_for(self._cond.wait_for(lambda: self.version > seen), timeout)
            return True
        except asyncio.TimeoutError:
            return False
