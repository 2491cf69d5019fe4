"""The files a judge names: one reader of text files (events, key scripts), one check of output paths.

Every command that reads such a file (`nakk score`, `nakk close --events`,
`nakk sim --keys-file`) reads it here, so they all take and refuse the same
things: a UTF-8 byte-order mark at the start is skipped (Notepad writes one);
text that is not UTF-8 (a Latin-1 or Windows-1257 export) is named by line,
byte and column; an event whose strings hold a lone surrogate (JSON's `\\ud800`,
which is no character and cannot be printed nor stored as text) is refused by
line and field. Events are parsed by one function (events()) whatever their
source. Each refusal is one TextFileError (a CommandError, exit 2).

Output paths (a screenshot, a printable draw, an export folder) are checked
with output_file() and output_dir() before anything is played, drawn or
stored, so a typo in a folder name costs nothing.
"""

import os

import sys

from nakk_host.errors import CommandError

BOM = b"\xef\xbb\xbf"


class TextFileError(CommandError):
    """A file the judge named that cannot be read as it should: one line, exit status 2."""

    def __init__(self, message):
        CommandError.__init__(self, message, 2)


def read_bytes(path):
    """The file's bytes (path "-": standard input), BOM skipped; TextFileError when unreadable."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise TextFileError("cannot read %s: %s" % (path, e.strerror or e))
    return data[3:] if data[:3] == BOM else data


def _not_utf8(where, data, e):
    """The line and column of the first byte that is not UTF-8, in the words `nakk score` uses."""
    line_start = data.rfind(b"\n", 0, e.start) + 1
    line_no = data.count(b"\n", 0, e.start) + 1
    col = len(data[line_start:e.start].decode("utf-8", "replace")) + 1
    return TextFileError("%sline %d: not UTF-8 text (byte 0x%02X at column %d); save the file as UTF-8"
                         % (where, line_no, data[e.start], col))


def read_text(path):
    """The file as text (UTF-8, BOM skipped). For key scripts."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8("%s " % path, data, e)


def lone_surrogate(value, field=""):
    """The field path of the first string in value holding a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return field or "(the value)"
        return None
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for k, v in items:
        k = str(k)
        if lone_surrogate(k):
            return "a key of %s" % (field or "the event")
        bad = lone_surrogate(v, (field + "." if field else "") + k)
        if bad:
            return bad
    return None


def events(lines):
    """The events of JSON lines (bytes or str), blank lines skipped: the one reader of an events file
    (`nakk score`, `nakk close --events` and `--image`), so a bad line is said in the same words and with
    the same line number everywhere. Each event is parsed and folded as nakk.match.read_lines does
    (`line N: field: reason`; text that is not UTF-8 by byte and column; an event the match cannot take,
    such as a deal before the setup); a string holding a lone surrogate is refused before anything
    prints or stores it. TextFileError (exit 2) at the first bad line."""
    from nakk.event import EventError, parse
    from nakk.match import Match
    m = Match()
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            ev = parse(line.strip())
            bad = lone_surrogate(ev)
            if bad:
                raise TextFileError("line %d: %s: a lone surrogate (\\ud800-\\udfff without its pair) is not "
                                    "a character" % (n, bad))
            m.apply(ev)
        except EventError as e:
            raise TextFileError("line %d: %s%s" % (n, (e.field + ": ") if e.field else "", e.reason))
        out.append(ev)
    return out


def read_events(path):
    """(lines as bytes, events) of an events file (path "-": standard input), BOM skipped; see events()."""
    lines = read_bytes(path).split(b"\n")
    return lines, events(lines)


class PathError(CommandError):
    """An output path that cannot be written (exit status 1, as a file that exists always was)."""


def output_file(path, force=None, option=None):
    """Refuse (TextFileError) an output file that cannot be written: a folder, a folder that does
    not exist or is not writable, or (force=False) a file that exists. force=None: overwriting is fine."""
    name = "%s %s" % (option, path) if option else path
    if os.path.isdir(path):
        raise PathError("%s is a folder: name the file to write" % name)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise PathError("cannot write %s: there is no folder %s" % (name, folder))
    if not os.access(folder, os.W_OK):
        raise PathError("cannot write %s: the folder %s is not writable" % (name, folder))
    if os.path.lexists(path):
        if force is False:
            raise PathError("%s exists; give another name or --force to overwrite it" % path)
        if not os.access(path, os.W_OK):
            raise PathError("cannot write %s: it is not writable" % name)


def output_dir(path, option="--out"):
    """Refuse (TextFileError) an output folder that is a file or cannot be made or written."""
    name = "%s %s" % (option, path) if option else path
    if os.path.lexists(path) and not os.path.isdir(path):
        raise PathError("%s is a file, not a folder: %s names the folder the files go into" % (name, option))
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise PathError("cannot make the folder %s: %s is a file" % (path, probe))
    if not os.access(probe, os.W_OK):
        raise PathError("cannot write into %s: the folder %s is not writable" % (name, probe))
