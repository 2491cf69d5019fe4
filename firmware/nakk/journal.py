"""The journal: every event of every match on flash, append-only, power-safe.

    j = Journal("/journal")          # a directory on a mounted filesystem
    j.fs_id                          # 16 hex digits, drawn when the journal was created
    n = j.new_match()                # JournalFull when flash is low
    j.append(n, payload)             # returns once the record is on flash
    j.append(n, payload, finished=True)   # the match is over after this event
    for payload in j.records(n): ... # the stored bytes, in order, streamed
    j.head(n, 3)                     # the first 3 payloads, through the journal's own buffer
    j.matches()                      # [(n, finished), ...] by match number
    j.ack(n, synced_payload)         # the judge's ack: the match compacted away
    j.append(n, payload, finished=True, tag=1)   # the app's tag (0..254) of a finished match
    j.tag(n); j.set_tag(n, 1)        # read back from the index / learnt later
    j.save_index()                   # the index, if it lacks what the journal knows

Layout (docs/journal.md has the bytes and the format version):

    <root>/id            one META record: b"nakk-journal 1 <fs_id>"; written once
    <root>/next          one META record: b"next <n>": the next match number
    <root>/m000012/      match 12
        0007 0008 ...    its open segments: records back to back, each file
                         kept under SEG_MAX bytes so that littlefs keeps it
                         inline in the directory's metadata: an append is one
                         small metadata commit, no data block copied
        body             its sealed records: every SEAL_SEGS segments are
                         copied here in one atomic append, ending with a
                         META record b"sealed <last segment> <kind>", and
                         then deleted (inline data takes about ten times
                         its size in flash; the body barely more than 1x)
    <root>/x000012/      match 12 acknowledged, being compacted away
    <root>/index         the finished matches (numbers and the app's tags;
                         nakk/jindex.py), rewritten whole when a match
                         finishes: a boot reads this file instead of the
                         tail of every finished match

Power cuts: littlefs commits each closed file atomically, so a segment or
the body is either as it was or has all of the new bytes. A record is
reported saved only after close() (which syncs) returns. Segments that a
seal copied but did not get to delete are recognised by the seal record
and skipped. On start the journal finishes interrupted compactions, drops
temporary files, reads the index, and reads the tail of each match the
index does not list as finished (its last segment and the last 24 bytes of
its body) to learn whether the match is finished; where to append is read
when a match is written to. The index never lists a match that is not
finished on flash: it is written after the record that finishes a match,
before any record that would reopen one, and an ack renames the match away
first (the rename is the mark); a match the index lists whose directory is
gone is simply not there. An unsound record (torn, corrupt) is skipped and
counted in `damaged`; reading resynchronises on the next sound record, so
damage never hides another record, and no record is ever appended after an
unsound tail (the next one starts a fresh segment).

Cost (bench/bench_journal.py): 0.33 erases and ~1.1 KiB programmed per deal,
everything included, against 1.3 erases and ~2.9 KiB for flushed appends to
one file per match. Do not append to a match while iterating its records.
"""
import os

from nakk import jindex, record
from nakk.jread import (EEXIST, ENOSPC, READ_BUF, RESERVE, SEAL_SEGS, SEG_MAX, _BUF, _FULL, _INDEX, _IX, _MAGIC,  # noqa: F401
                        _NOTAG, JournalError, JournalFull, _Reader, _entries, _errno, _number, read_meta, _scan,
                        _seal_payload, _seg, _write, write_atomic)


class Journal(_Reader):
    """The journal in directory `root` of an already-mounted filesystem."""

    # every record goes through this (the power-cut sweep's journal that reports a record
    # saved before closing it overrides it: tests/mpy/powercut.py)
    _write = staticmethod(_write)

    def __init__(self, root, reserve=RESERVE, seg_max=SEG_MAX, seal_segs=SEAL_SEGS, index=True):
        """index=False: neither read nor write the index (the journal as it was before there
        was one: tests compare the two)."""
        root = root.rstrip("/")
        self.root = root
        self.reserve = reserve
        self.seg_max = seg_max
        self.seal_segs = seal_segs
        self.damaged = {}   # match -> unsound stretches skipped while reading it
        self._buf = bytearray(_BUF)  # for starts and seals; readers have their own
        self._free = None   # free_bytes() as last measured; None after a write
        # n -> kind of its last record (0: none yet), None until its tail is read, or
        # _IX + tag: finished, as the index says. Small ints are not heap objects: a box
        # full of matches keeps one dict and nothing else per match, so the boot scan leaves no long-lived crumbs
        # scattered among its garbage (they fragmented the heap until a module's
        # code no longer found 1.3 KB in one piece; see docs/journal.md).
        self._tails = {}
        # The one match whose whole tail is kept: [last segment, its size (-1: start
        # a new one), kind of the last record, last sealed segment (-1: none)]. It
        # is the match written to or read (the one in play, the one being synced);
        # any other is read again from flash when it is wanted (one directory
        # listing and its last segment).
        self._hot_n = None
        self._hot = None
        self._index = index
        self._dirty = False  # the index lacks a finished match or a tag the journal knows
        try:
            os.mkdir(root)
        except OSError as e:
            if _errno(e) != EEXIST:
                raise
        self._load_id()
        nxt = read_meta(root + "/next")
        self._next = 1
        if nxt is not None and nxt.startswith(b"next "):
            self._next = int(nxt[5:])
        pending = []
        for name, is_dir, size in list(_entries(root)):
            if is_dir:
                n = _number(name, "m")
                if n is not None:
                    self._tails[n] = None
                else:
                    n = _number(name, "x")
                    if n is not None:
                        pending.append(n)
                if n is not None and n >= self._next:
                    self._next = n + 1
            elif name.endswith(".tmp"):
                os.remove(root + "/" + name)
        for n in pending:
            self._delete(n)
        if index:
            self._read_index()
        for n in list(self._tails):
            if self._tails[n] is not None:
                continue         # finished, as the index says: not read
            try:
                k = self._kind(n)
                if k == record.ACK:
                    self._compact(n)
                elif k == record.FINISHED:
                    self._dirty = True   # finished, not in the index: save_index() adds it
            except OSError:
                # littlefs could not read this match: start anyway (the
                # others are fine); reading it will raise again
                self._forget(n)
                self.damaged[n] = self.damaged.get(n, 0) + 1

    # ------------------------------------------------------------ identity
    def _load_id(self):
        p = read_meta(self.root + "/id")
        if p is not None and p.startswith(_MAGIC):
            rest = p[len(_MAGIC):].split(b" ")
            version = int(rest[0])
            if version > record.VERSION:
                raise JournalError("journal format %d is newer than this firmware (%d)"
                                   % (version, record.VERSION))
            self.fs_id = rest[1].decode()
            return
        # New (or, after bit rot, unreadable): draw an id. A reformatted box
        # thus never reuses a result id.
        try:
            rnd = os.urandom(8)
        except (AttributeError, NotImplementedError):  # pragma: no cover
            import random
            rnd = bytes([random.getrandbits(8) for _ in range(8)])
        fs_id = "".join(["%02x" % b for b in rnd])
        write_atomic(self.root + "/id", record.encode(
            record.META, _MAGIC + (b"%d " % record.VERSION) + fs_id.encode()))
        self.fs_id = fs_id

    def result_id(self, n):
        """The id under which the judge stores match n's result."""
        return "%s-%d" % (self.fs_id, n)

    # ------------------------------------------------------------ the index
    def _read_index(self):
        tails = self._tails
        stale = [0]

        def put(n, tag):
            if n in tails:
                tails[n] = _IX + tag
            else:
                stale[0] += 1        # acknowledged and compacted since: gone

        nxt = jindex.load(self.root + "/" + _INDEX, self._buf, self.fs_id, put, _scan)
        if nxt is None:
            # none, or not whole, or another journal's: read every match (trust nothing put)
            for n in tails:
                if tails[n] is not None:
                    tails[n] = None
        elif nxt > self._next:
            self._next = nxt         # never a number the index may still name

    def _finished_tag(self, n, v):
        # the tag (_NOTAG: none given) of match n if it is finished as far as RAM knows, else -1
        if n == self._hot_n and self._hot[2] != record.FINISHED:
            return -1
        if v is not None and v >= _IX:
            return v - _IX
        if v == record.FINISHED or n == self._hot_n:
            return _NOTAG
        return -1

    def _write_index(self, skip=None):
        # Every match finished as RAM knows it (skip left out), in one atomic file.
        tails = self._tails
        count = 0
        for n in tails:
            if n != skip and self._finished_tag(n, tails[n]) >= 0:
                count += 1
        entries = ((n, self._finished_tag(n, tails[n])) for n in tails
                   if n != skip and self._finished_tag(n, tails[n]) >= 0)
        self._free = None
        write_atomic(self.root + "/" + _INDEX, jindex.encode(self.fs_id, self._next, count, entries))
        self._dirty = False

    def save_index(self):
        """Write the index if it lacks a finished match or a tag the journal knows (after a boot
        that had to read matches: a journal without an index, a cut between a match's last
        record and the index). True when the index on flash is up to date. Never raises: without
        it the next boot reads those matches from flash, as this one did."""
        if not self._index or not self._dirty:
            return True
        try:
            self._write_index()
        except (OSError, MemoryError):
            return False
        return True

    def tag(self, n):
        """The tag (0..254) given to finished match n (append(..., tag=) or set_tag()), or None."""
        v = self._tails.get(n)
        if v is not None and v >= _IX and v - _IX != _NOTAG:
            return v - _IX
        return None

    def set_tag(self, n, tag):
        """Give finished match n its tag (0..254), for the index (save_index() writes it)."""
        if self._kind(n) == record.FINISHED and self.tag(n) != tag:
            self._tails[n] = _IX + tag
            self._dirty = True

    # ------------------------------------------------------------ paths
    def next_match(self):
        """The number new_match() will give."""
        return self._next

    # ------------------------------------------------------------ writing
    def new_match(self):
        """A new, empty match; its number. JournalFull when flash is low."""
        if self.low():
            raise JournalFull("flash nearly full: sync finished matches with the judge first")
        n = self._next
        self._free = None
        try:
            write_atomic(self.root + "/next", record.encode(record.META, b"next %d" % (n + 1)))
            self._next = n + 1
            os.mkdir(self._mdir(n))
        except OSError as e:
            if _errno(e) in _FULL:
                raise JournalFull("flash full: no new match")
            raise
        self._tails[n] = 0
        self._cool()
        self._hot_n = n
        self._hot = [0, 0, 0, -1]
        return n

    def append(self, n, payload, finished=False, tag=None):
        """Store one event of match n; returns only once it is on flash.

        finished: whether the match is over after this event (the app knows
        from its rules: the final deal, a forfeit, a close; a confirm after
        it is still finished; a cancel of the final deal is not).
        tag: the app's note (0..254) on a match this event finishes, kept in
        the index (tag(n)); the index is rewritten after such a record."""
        t = self._tail(n)
        if t[2] == record.ACK:
            raise JournalError("match %d is acknowledged" % n)
        was = t[2]
        if was == record.FINISHED and not finished and self._index:
            # reopened: the index must stop naming it before the record can land
            try:
                self._write_index(skip=n)
            except OSError as e:
                self._dirty = True
                if _errno(e) in _FULL:
                    raise JournalFull("flash full: record not saved")
                raise
            self._tails[n] = record.EVENT
        self._put(n, t, record.encode(record.FINISHED if finished else record.EVENT, payload))
        if finished and was != record.FINISHED:
            self._tails[n] = _IX + (_NOTAG if tag is None else tag)
            self._dirty = True
            self.save_index()    # after the record: cut in between, the next boot reads the match

    def ack(self, n, payload):
        """The judge acknowledged finished match n: compact it away.

        Renaming its directory is the mark (one atomic commit). Only where a
        full flash has no room even for that is an
        acknowledgement record appended instead, for the next start to
        compact (the index rewritten without it, if there is room). Raises
        JournalFull when neither could be written: ask the judge again."""
        t = self._tail(n)
        if t[2] != record.FINISHED:
            raise JournalError("match %d is not finished" % n)
        if self._compact(n):
            return
        try:
            self._put(n, t, record.encode(record.ACK, payload))
        except JournalFull:
            raise JournalFull("flash full: acknowledgement not saved")
        self._tails[n] = record.ACK
        self._dirty = True
        self.save_index()

    def _put(self, n, t, rec):
        self._free = None
        size = t[1]
        if size < 0 or (size > 0 and size + len(rec) > self.seg_max):
            if t[0] - t[3] >= self.seal_segs and rec[1] != record.ACK:
                t = self._seal(n, t)
            t[0] += 1
            t[1] = size = 0
        try:
            self._write(self._seg_path(n, t[0]), rec)
        except (OSError, MemoryError) as e:
            # The record may or may not be there; append after it never. (No memory: the
            # heap had no room for the file's buffer, the caller says the save failed.)
            t[1] = -1
            if isinstance(e, OSError) and _errno(e) in _FULL:
                raise JournalFull("flash full: record not saved")
            raise
        t[1] = size + len(rec)
        t[2] = rec[1]

    def _seal(self, n, t):
        """Copy the open segments into the body in one atomic append that
        ends with a seal record, then delete them. Returns the new tail."""
        d = self._mdir(n)
        first, last = t[3] + 1, t[0]
        buf = self._buf
        mv = memoryview(buf)
        try:
            body = open(d + "/body", "ab")
            try:
                for s in range(first, last + 1):
                    try:
                        f = open(d + "/" + _seg(s), "rb")
                    except OSError:
                        continue
                    try:
                        for pos, nxt in _scan(f, buf, [0]):
                            if buf[pos + 1] != record.META:
                                body.write(mv[pos:nxt])
                    finally:
                        f.close()
                # Everything open is sealed, so the match's state is that of the
                # last record: t[2].
                body.write(record.encode(record.META, _seal_payload(last, t[2])))
            finally:
                body.close()  # the one commit: all of it, or none of it
        except OSError:
            # Not sealed (no room for the body, say): the segments stay and
            # are read as they are. Learn the state again from flash.
            self._forget(n)
            return self._tail(n)
        for s in range(first, last + 1):
            try:
                os.remove(d + "/" + _seg(s))
            except OSError:
                pass  # skipped by readers, deleted at the next start
        t[3] = last
        return t

    # ------------------------------------------------------------ compaction
    def _compact(self, n):
        """Drop match n. Renaming its directory is one atomic commit: from
        then on the match is gone for every reader, and a power cut only
        leaves the deleting to finish at the next start. False if there was
        no room even for that (then it stays, acked, for the next start)."""
        self._free = None
        try:
            os.rename(self._mdir(n), "%s/x%06d" % (self.root, n))
        except OSError as e:
            if _errno(e) == ENOSPC:
                return False
            raise
        self._forget(n)
        del self._tails[n]
        self._delete(n)
        return True

    def _delete(self, n):
        d = "%s/x%06d" % (self.root, n)
        try:
            for name, is_dir, size in list(_entries(d)):
                os.remove(d + "/" + name)
            os.rmdir(d)
        except OSError as e:
            if _errno(e) != ENOSPC:
                raise
            # finished at the next start
