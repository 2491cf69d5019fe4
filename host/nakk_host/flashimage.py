"""Is this file a Nakk flash image? Checked before the simulator may format it, so no other file is lost.

The simulator's flash is a LittleFS v2 image of the Pico's filesystem
(nakk.offbox.blockdev: 352 blocks of 4096 bytes). The firmware formats any
file it cannot mount, as MicroPython formats a blank Pico, so the host
decides first: a missing file may be created, an existing file must be such
an image (or erased flash, all 0xFF) unless the user asked to format it.
"""

import json
import os
import stat

BLOCK_SIZE = 4096
BLOCKS = 352                        # nakk.offbox.blockdev.PICO_BLOCKS
IMAGE_SIZE = BLOCK_SIZE * BLOCKS
_MAGIC = b"littlefs"                # in the superblock entry, 8 bytes into block 0 or block 1
_SNIFF = 64 * 1024                  # bytes read to say what a file looks like


class ImageError(Exception):
    """The path cannot be used as a flash image; the message says why and what to do."""


def _looks_like(head, size):
    """A few words on what a file that is not a flash image looks like."""
    if size == 0:
        return "it is empty"
    if head.startswith(b"SQLite format 3\0"):
        return "it is an SQLite database"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "it is a PNG picture"
    if head.startswith((b"PK\x03\x04", b"\x1f\x8b")):
        return "it is a compressed archive"
    if head.startswith(b"\x7fELF"):
        return "it is a program"
    if _MAGIC in head[:2 * BLOCK_SIZE]:
        return "it is a LittleFS image of %d bytes, not of the box's %d" % (size, IMAGE_SIZE)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3:         # not just a character cut at the end of the sniff
            return "it holds binary data (%d bytes)" % size
        text = head[:e.start].decode("utf-8")
    if "\0" in text:
        return "it holds binary data (%d bytes)" % size
    first = next((line for line in text.lstrip("\ufeff").splitlines() if line.strip()), "")
    try:
        value = json.loads(first)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return "it looks like JSON lines (events?)" if text.count("\n") > 1 else "it looks like JSON"
    if text.lstrip().startswith(("{", "[")):
        return "it looks like JSON"
    return "it is a text file (%d bytes)" % size


def check(path, fmt=False):
    """Raise ImageError unless the simulator may use path as its flash image.

    A missing file in an existing folder is fine (it is created and
    formatted); an existing one must be a Nakk flash image or erased flash.
    fmt=True allows an existing regular file to be overwritten: the caller
    then empties it (see prepare())."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if not os.path.isdir(folder):
            raise ImageError("cannot create the flash image %s: there is no folder %s" % (path, folder))
        if not os.access(folder, os.W_OK):
            raise ImageError("cannot create the flash image %s: the folder %s is not writable" % (path, folder))
        return
    except OSError as e:
        raise ImageError("cannot use %s as the flash image: %s" % (path, e.strerror or e))
    if stat.S_ISDIR(st.st_mode):
        raise ImageError("%s is a folder, not a flash image" % path)
    if not stat.S_ISREG(st.st_mode):
        raise ImageError("%s is not a regular file, so not a flash image" % path)
    if not os.access(path, os.R_OK | os.W_OK):
        raise ImageError("cannot use %s as the flash image: it is not readable and writable" % path)
    if fmt:
        return
    try:
        with open(path, "rb") as f:
            head = f.read(_SNIFF)
            if st.st_size == IMAGE_SIZE and _MAGIC in head[:2 * BLOCK_SIZE]:
                return                          # a Nakk flash image
            erased = st.st_size % BLOCK_SIZE == 0 and st.st_size > 0
            block = head
            while erased and block:
                erased = block.count(b"\xff") == len(block)
                block = f.read(_SNIFF)
    except OSError as e:
        raise ImageError("cannot read %s: %s" % (path, e.strerror or e))
    if erased:
        return                                  # erased flash: formatting it loses nothing
    raise ImageError("%s is not a Nakk flash image (%s); give another file name, or --format to "
                     "overwrite it with an empty flash" % (path, _looks_like(head, st.st_size)))


def prepare(path, fmt=False):
    """check(), then empty the file if fmt: the firmware formats an empty image as new flash."""
    check(path, fmt)
    if fmt and os.path.exists(path):
        with open(path, "r+b") as f:
            f.truncate(0)
