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

SEG_MAX = 480        # bytes; littlefs keeps files up to 512 bytes inline
SEAL_SEGS = 4        # segments copied into the body at a time
RESERVE = 96 * 1024  # new_match() refuses below this much free flash
_REC_MAX = record.MAX_PAYLOAD + record.OVERHEAD
_BUF = 2 * _REC_MAX
READ_BUF = _BUF      # bytes of the buffer a reader may lend records(): Journal.records(n, buf=...)

ENOENT = 2
EEXIST = 17
ENOSPC = 28
ENAMETOOLONG = 36   # what littlefs says when a full flash has no room for a new file's entry
_FULL = (ENOSPC, ENAMETOOLONG)

_MAGIC = b"nakk-journal "
_SEALED = b"sealed "
_SEAL_LEN = record.OVERHEAD + 16   # b"sealed 000012 E" plus padding to 16
_DIR_BIT = 0x4000
_INDEX = "index"
_IX = 0x100          # _tails value _IX + tag: finished, as the index says (tail not read)
_NOTAG = 255         # the tag of a finished match whose tag the app has not given


class JournalError(Exception):
    """The journal cannot do what was asked (unknown match, acked match, ...)."""


class JournalFull(JournalError):
    """Not enough free flash: the record was not saved / no new match."""


def write_atomic(path, data):
    """Replace the file at path with data: write a temp file, flush, close, rename.

    After a power cut the file holds either its old or its new content,
    never a mix. Use it for every file that is rewritten (settings, keys)."""
    tmp = path + ".tmp"
    _write(tmp, data, "wb")
    os.rename(tmp, path)


def _write(path, data, mode="ab"):
    """Write data to the file at path (appended by default) and close it: close() syncs, so littlefs
    commits the bytes atomically. The journal's records and write_atomic's temp file."""
    f = open(path, mode)
    try:
        f.write(data)
        f.flush()
    finally:
        f.close()


def _errno(e):
    return e.args[0] if e.args else 0


def _entries(path):
    """(name, is_dir, size) for each entry of a directory."""
    if hasattr(os, "ilistdir"):
        for e in os.ilistdir(path):
            if len(e) > 3 and e[3] >= 0:
                yield e[0], e[1] == _DIR_BIT, e[3]
            else:
                st = os.stat(path + "/" + e[0])
                yield e[0], e[1] == _DIR_BIT, st[6]
    else:  # CPython
        for name in os.listdir(path):
            st = os.stat(path + "/" + name)
            yield name, (st[0] & 0o170000) == 0o040000, st[6]


def _number(name, prefix):
    # "m000012" -> 12 (prefix "m"), "0012" -> 12 (prefix ""); else None
    k = len(prefix)
    if len(name) <= k or name[:k] != prefix:
        return None
    for c in name[k:]:
        if c < "0" or c > "9":
            return None
    return int(name[k:])


def _read_meta(path):
    """The payload of a file holding one META record, or None."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    try:
        data = f.read(_REC_MAX)
    finally:
        f.close()
    recs, status = record.decode_all(data)
    if status != record.END or len(recs) != 1 or recs[0][0] != record.META:
        return None
    return recs[0][1]


def _seal_payload(last_seg, kind):
    p = _SEALED + (b"%06d " % last_seg) + bytes((kind or 0x2D,))
    return p + b" " * (16 - len(p)) if len(p) < 16 else p


def _parse_seal(buf, pos, nxt):
    # (last segment, kind) from a sound META record at pos, or None
    if buf[pos + 1] != record.META:
        return None
    p = bytes(buf[pos + 4:nxt - 4])
    if not p.startswith(_SEALED):
        return None
    parts = p[len(_SEALED):].split()
    if len(parts) != 2:
        return None
    kind = parts[1][0]
    return int(parts[0]), (0 if kind == 0x2D else kind)


def _scan(f, buf, bad):
    """Yield (pos, next) for each sound record of the open file f, read in
    chunks through buf (which must hold 2 records); an unsound stretch is
    skipped byte by byte until a sound record starts, and each one adds 1 to
    bad[0]. The record is buf[pos:next] until the generator resumes."""
    mv = memoryview(buf)
    cap = len(buf)
    pos = 0
    end = 0
    eof = False
    in_bad = False
    while True:
        if not eof and end - pos < _REC_MAX:
            if pos:
                rest = end - pos
                mv[0:rest] = bytes(mv[pos:end])
                end = rest
                pos = 0
            want = cap - end
            r = f.readinto(mv[end:cap])
            if r:
                end += r
            if not r or r < want:
                eof = True  # a file gives a short read only at its end
        nxt = record.parse(buf, pos, end)
        if nxt > 0:
            in_bad = False
            yield pos, nxt
            pos = nxt
        elif nxt == record.END:
            if eof:
                return
        else:
            if not in_bad:
                bad[0] += 1
                in_bad = True
            pos += 1


class Records:
    """The stored payloads of one match, in order; iterate as often as you like.

    Each pass reads the match from flash (its body, then its open segments)
    in chunks through a buffer of its own (about 4 KiB) or the one lent
    (READ_BUF bytes: a reader that runs on a fragmented heap allocates it
    once), and yields each payload as bytes (or (kind, payload) with
    kinds=True). Two passes must not share a lent buffer at once."""

    def __init__(self, journal, n, kinds=False, buf=None):
        self._j = journal
        self._n = n
        self._kinds = kinds
        self._buf = buf

    def __iter__(self):
        j = self._j
        n = self._n
        d = j._mdir(n)
        last = j._tail(n)[0]
        buf = self._buf if self._buf is not None else bytearray(_BUF)
        mv = memoryview(buf)
        bad = [0]
        sealed = -1
        kinds = self._kinds
        for s in range(-1, last + 1):
            if s >= 0 and s <= sealed:
                continue  # copied into the body; its deletion was cut short
            try:
                f = open(d + "/" + (_seg(s) if s >= 0 else "body"), "rb")
            except OSError as e:
                if _errno(e) == ENOENT:
                    continue
                raise
            try:
                for pos, nxt in _scan(f, buf, bad):
                    k = buf[pos + 1]
                    if k == record.META:
                        if s < 0:
                            seal = _parse_seal(buf, pos, nxt)
                            if seal is not None and seal[0] > sealed:
                                sealed = seal[0]
                        continue
                    if kinds:
                        yield k, bytes(mv[pos + 4:nxt - 4])
                    else:
                        yield bytes(mv[pos + 4:nxt - 4])
            finally:
                f.close()
        if bad[0]:
            j.damaged[n] = j.damaged.get(n, 0) + bad[0]


def _seg(s):
    return "%04d" % s


class Journal:
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
        nxt = _read_meta(root + "/next")
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
        p = _read_meta(self.root + "/id")
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
    def _mdir(self, n):
        return "%s/m%06d" % (self.root, n)

    def _seg_path(self, n, s):
        return "%s/m%06d/%04d" % (self.root, n, s)

    # ------------------------------------------------------------ state
    def _tail(self, n):
        """Match n's whole tail (a list the writers update in place); it becomes the hot one."""
        if n == self._hot_n:
            return self._hot
        if n not in self._tails:
            raise JournalError("no match %d in the journal" % n)
        t = self._scan_tail(n)
        self._cool()
        self._hot_n = n
        self._hot = t
        return t

    def _cool(self):
        # The hot match cools down: the kind of its last record is all that stays (with its tag,
        # if the index has it as finished).
        h = self._hot_n
        if h is not None:
            k = self._hot[2]
            v = self._tails.get(h)
            if not (k == record.FINISHED and v is not None and v >= _IX):
                self._tails[h] = k

    def _kind(self, n):
        """The kind of match n's last record (0: none yet), read from flash at most once."""
        if n == self._hot_n:
            return self._hot[2]
        k = self._tails.get(n, -1)
        if k == -1:
            raise JournalError("no match %d in the journal" % n)
        if k is None:
            k = self._scan_tail(n)[2]
            self._tails[n] = k
        elif k >= _IX:
            return record.FINISHED
        return k

    def _forget(self, n):
        # What is known of match n's tail is wrong or gone: read it again when wanted.
        if n == self._hot_n:
            self._hot_n = None
            self._hot = None
        if n in self._tails:
            self._tails[n] = None

    def _read_seal(self, n, buf):
        # The body ends with its last seal record; read just that.
        try:
            f = open(self._mdir(n) + "/body", "rb")
        except OSError:
            return None
        try:
            size = f.seek(0, 2)
            if size < _SEAL_LEN:
                return (-1, 0) if size == 0 else None
            f.seek(size - _SEAL_LEN)
            got = f.readinto(buf)
        finally:
            f.close()
        if got == _SEAL_LEN and record.parse(buf, 0, _SEAL_LEN) == _SEAL_LEN:
            return _parse_seal(buf, 0, _SEAL_LEN)
        return None

    def _scan_tail(self, n):
        d = self._mdir(n)
        segs = []
        has_body = False
        for name, is_dir, size in _entries(d):
            s = _number(name, "")
            if s is not None and not is_dir:
                segs.append(s)
            elif name == "body":
                has_body = True
        segs.sort()
        buf = self._buf
        sealed, kind = -1, 0
        if has_body:
            seal = self._read_seal(n, buf)
            if seal is None:
                # No seal record at the end (bit rot): read the whole body.
                f = open(d + "/body", "rb")
                try:
                    for pos, nxt in _scan(f, buf, [0]):
                        if buf[pos + 1] == record.META:
                            seal = _parse_seal(buf, pos, nxt)
                            if seal is not None and seal[0] > sealed:
                                sealed, kind = seal
                        else:
                            kind = buf[pos + 1]
                finally:
                    f.close()
                self.damaged[n] = self.damaged.get(n, 0) + 1
            else:
                sealed, kind = seal
        # Leftovers of a seal whose deletions were cut short.
        live = []
        for s in segs:
            if s <= sealed:
                try:
                    os.remove(d + "/" + _seg(s))
                except OSError:
                    pass
            else:
                live.append(s)
        last = live[-1] if live else sealed + 1
        t = [last, 0, kind, sealed]
        # The last segment tells where to append, its last record the state;
        # go back further only if it holds no sound record.
        for i in range(len(live) - 1, -1, -1):
            s = live[i]
            bad = [0]
            k = 0
            size = 0
            f = open(d + "/" + _seg(s), "rb")
            try:
                for pos, nxt in _scan(f, buf, bad):
                    if buf[pos + 1] != record.META:
                        k = buf[pos + 1]
                    size += nxt - pos
                end = f.seek(0, 2)
            finally:
                f.close()
            if s == last:
                t[1] = end
                if bad[0] or size != end:
                    t[1] = -1  # unsound tail: never append after it
            if k:
                t[2] = k
                break
        return t

    def matches(self):
        """[(n, finished)] for every match on flash, by match number. A match that
        littlefs cannot read is listed as not finished and counted in `damaged`."""
        out = []
        for n in sorted(self._tails):
            try:
                fin = self._kind(n) == record.FINISHED
            except OSError:
                fin = False
                self.damaged[n] = self.damaged.get(n, 0) + 1
            out.append((n, fin))
        return out

    def finished(self, n):
        """Whether match n is finished, as its tail on flash says (the link asks before it reads
        or acks a match: the tail it reads here is the one the reading uses). A match found
        acknowledged (an ack whose rename found no room, the index still naming it) is compacted
        now if it can be, and is not finished."""
        v = self._tails.get(n)
        k = self._tail(n)[2] if v is not None and v >= _IX else self._kind(n)
        if k == record.ACK:
            try:
                self._compact(n)
            except OSError:
                pass
        return k == record.FINISHED

    def has(self, n):
        """Whether match n is on flash."""
        return n in self._tails

    def latest(self):
        """The highest match number on flash, or None."""
        last = None
        for n in self._tails:
            if last is None or n > last:
                last = n
        return last

    def count_finished(self, skip=None):
        """How many matches are finished (as matches() says), those with skip(n) true left
        out, without a list of them: a full box holds ~160 matches, and the app counts
        them after every entry and every ack (the list took 2 KB in one piece on the unix
        port, which the heap of a long sync sometimes no longer had)."""
        k = 0
        for n in self._tails:
            try:
                fin = self._kind(n) == record.FINISHED
            except OSError:
                fin = False
                self.damaged[n] = self.damaged.get(n, 0) + 1
            if fin and (skip is None or not skip(n)):
                k += 1
        return k

    def head(self, n, k):
        """The payloads of match n's first k records (fewer if it has fewer), as a list, read
        through the journal's own buffer: no 4 KiB buffer per call (the box counts its waiting
        results at boot by reading the start of every finished match; on the Pico a fresh
        buffer for each of 100 matches cost a second of collections)."""
        if n not in self._tails:
            raise JournalError("no match %d in the journal" % n)
        out = []
        it = iter(Records(self, n, False, self._buf))
        try:
            for p in it:
                out.append(p)
                if len(out) >= k:
                    break
        finally:
            it.close()     # a generator left early closes its file now, not at a collection
        return out

    def own_records(self, n):
        """records(n) read through the journal's own buffer: no 4 KiB allocation, for a heap
        that may have no 4 KiB in one piece (the table folding its match back in when a chord
        takes back a one-press deal). One pass at a time, and nothing written to the journal
        while it runs (appends and seals use that buffer); a pass of records(n) inside it is
        fine (an undo's refold: the match is already the hot one, its tail not read again)."""
        if n not in self._tails:
            raise JournalError("no match %d in the journal" % n)
        return Records(self, n, False, self._buf)

    def records(self, n, kinds=False, buf=None):
        """The payloads of match n in order (re-iterable, read from flash).

        With kinds=True it yields (kind, payload), kind one of record.EVENT,
        record.FINISHED, record.ACK. buf: a bytearray(READ_BUF) to read
        through instead of allocating one per pass."""
        if n not in self._tails:
            raise JournalError("no match %d in the journal" % n)
        return Records(self, n, kinds, buf)

    # ------------------------------------------------------------ space
    def free_bytes(self):
        """Free flash, in bytes.

        littlefs's statvfs counts the metadata pair of every directory twice
        (once on the list of pairs, once from the directory's entry) and can
        so report more used blocks than there are, wrapped around as an
        unsigned number. The journal knows its own directories and adds them
        back; any other directory on the filesystem is left counted twice,
        which errs on the safe side."""
        st = os.statvfs(self.root)
        total = st[2]
        free = st[4]
        if free > total:
            free -= 1 << 32
        free += 2 * (len(self._tails) + 1)
        if free < 0:
            free = 0
        elif free > total:
            free = total
        return st[1] * free

    def low(self):
        """True when a new match would be refused. The free flash is measured once after
        each change the journal makes (littlefs's statvfs walks every block in use: ~9 ms
        on the Pico), so a caller can measure it at idle time and ask again for nothing."""
        f = self._free
        if f is None:
            f = self._free = self.free_bytes()
        return f < self.reserve

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
