"""The journal's reading half and its file helpers: the constants of the layout, the errors, the
scan of a segment or body, a match's records streamed, and _Reader, the part of nakk.journal.Journal
that finds and reads matches (nakk/journal.py says the layout). May touch the filesystem (read only,
but write_atomic and the record writer _write) and nakk.record, nothing else of nakk."""
import os

from nakk import record


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


def read_meta(path, magic=b"", size=_REC_MAX):
    """The payload after `magic` of a file holding one META record (as write_atomic leaves the
    journal's id, the pairing key, the network), or None: no file, a torn or another one.
    size: the most the file holds (the bytes read at once)."""
    try:
        f = open(path, "rb")
    except OSError:
        return None
    try:
        data = f.read(size)
    finally:
        f.close()
    recs, status = record.decode_all(data)
    if status != record.END or len(recs) != 1 or recs[0][0] != record.META:
        return None
    p = recs[0][1]
    return p[len(magic):] if p.startswith(magic) else None


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



class _Reader:
    """What Journal reads: its matches, their tails and seals, their records, free flash. A base
    class of Journal only (the attributes are Journal's)."""

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

    def after(self, n):
        """The lowest match number above n on flash, or None (no list made)."""
        m = None
        for k in self._tails:
            if k > n and (m is None or k < m):
                m = k
        return m

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
