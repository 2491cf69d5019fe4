"""The journal's index file: which matches on flash are finished, with the app's tag of each: a boot reads no match.

    data = encode(fs_id, next_match, count, entries)   # count (n, tag) entries, tag 0..255
    load(path, buf, fs_id, put)                 # put(n, tag) per entry; -> next or None

The file (docs/journal.md, "The index") is records back to back, as every
file of the journal: a META header b"nakk-index 1 <fs_id> <next> <count>",
then META records of 5-byte entries (match number, 4 bytes little-endian;
tag, 1 byte), at most ENTRIES per record. The journal writes it whole with
write_atomic(), so after a power cut it is the old file or the new one;
load() trusts it only if every record is sound, the header names this
journal and the count matches, and otherwise reports None before calling
put() at all. A reader that finds no index, or one of another version,
reads the matches themselves instead: the index only ever saves work.
"""
from nakk import record

VERSION = 1
ENTRIES = 400                  # entries per record: 2000 bytes, under record.MAX_PAYLOAD
_MAGIC = b"nakk-index "
_SIZE = 5


def encode(fs_id, nxt, count, entries):
    """The index file's bytes (a bytearray) for `count` (n, tag) entries, taken from the iterable
    entries in its order (a generator: no list of them is made)."""
    out = record.encode(record.META, _MAGIC + (b"%d " % VERSION) + fs_id.encode()
                        + (b" %d %d" % (nxt, count)))
    chunk = bytearray(_SIZE * max(1, min(count, ENTRIES)))
    k = 0
    for n, tag in entries:
        i = k * _SIZE
        chunk[i] = n & 0xFF
        chunk[i + 1] = (n >> 8) & 0xFF
        chunk[i + 2] = (n >> 16) & 0xFF
        chunk[i + 3] = (n >> 24) & 0x3F     # match numbers stay far below 2**30
        chunk[i + 4] = tag
        k += 1
        if k == ENTRIES:
            out += record.encode(record.META, chunk)
            k = 0
    if k:
        out += record.encode(record.META, memoryview(chunk)[:k * _SIZE])
    return out


def _header(p, fs_id):
    # (next, count) from a header payload naming this journal, else None
    if not p.startswith(_MAGIC):
        return None
    w = p[len(_MAGIC):].split()
    if len(w) != 4 or w[0] != b"%d" % VERSION or w[1] != fs_id.encode():
        return None
    try:
        return int(w[2]), int(w[3])
    except ValueError:
        return None


def _records(path, buf, scan, each):
    """Pass over the file's records: each(payload view, first) per sound one; False when the
    file is missing, holds an unsound stretch or a record that is not META."""
    try:
        f = open(path, "rb")
    except OSError:
        return False
    bad = [0]
    mv = memoryview(buf)
    first = True
    try:
        for pos, nxt in scan(f, buf, bad):
            if buf[pos + 1] != record.META or not each(mv[pos + 4:nxt - 4], first):
                return False
            first = False
    finally:
        f.close()
    return not bad[0] and not first


def load(path, buf, fs_id, put, scan):
    """Read the index at path through buf (the journal's own, 2 records long; scan is the
    journal's record scanner): if it is whole and names journal fs_id, put(n, tag) for each
    entry and return the match number that was next when it was written; else None, and put
    is not called (unless the file changed between the two passes over it, which only the
    journal's own writes do: the caller then drops what was put). About 1 KB is read twice:
    nothing is trusted before all of it is checked."""
    want = [None, 0]    # [(next, count) from the header, entries seen]

    def check(p, first):
        if first:
            want[0] = _header(bytes(p), fs_id)
            return want[0] is not None
        if len(p) % _SIZE:
            return False
        want[1] += len(p) // _SIZE
        return True

    if not _records(path, buf, scan, check) or want[1] != want[0][1]:
        return None

    def apply(p, first):
        if not first:
            for i in range(0, len(p), _SIZE):
                put(p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) | (p[i + 3] << 24), p[i + 4])
        return True

    if not _records(path, buf, scan, apply):
        return None     # changed between the passes: never (the journal alone writes it)
    return want[0][0]
