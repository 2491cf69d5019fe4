"""Print a match's events from a simulator's flash image, one canonical event per line (MicroPython unix port).

    MICROPYPATH=firmware:.frozen micropython -m nakk.offbox.dump IMAGE [N]

N is the match number; without it, the latest match on the image. Prints
nothing for an image with no match. Exit status 2 if the image does not
exist or holds no filesystem, or there is no match N. The lines are the
stored bytes of each record (canonical JSON, see docs/events.md), so
`nakk score` folds them as it folds any events file.
"""

import sys

_MOUNT = "/dump"


def main(argv):
    if not argv or len(argv) > 2:
        sys.stderr.write("usage: micropython -m nakk.offbox.dump IMAGE [N]\n")
        return 2
    import os
    import vfs
    from nakk.offbox.blockdev import FileBlockDev
    from nakk.journal import Journal
    image = argv[0]
    try:
        os.stat(image)
    except OSError:
        sys.stderr.write("nakk: no flash image at %s\n" % image)
        return 2
    bdev = FileBlockDev(image)
    try:
        try:
            fs = vfs.VfsLfs2(bdev, progsize=256)
        except OSError:
            sys.stderr.write("nakk: %s holds no LittleFS filesystem\n" % image)
            return 2
        vfs.mount(fs, _MOUNT)
        try:
            try:
                os.stat(_MOUNT + "/journal")
            except OSError:
                return 0               # a fresh image: no match yet
            j = Journal(_MOUNT + "/journal")
            ms = j.matches()
            if not ms:
                return 0
            n = ms[-1][0]
            if len(argv) == 2:
                n = int(argv[1])
                if n not in [m[0] for m in ms]:
                    sys.stderr.write("nakk: no match %d on the image (matches: %s)\n"
                                     % (n, " ".join([str(m[0]) for m in ms])))
                    return 2
            out = sys.stdout.buffer
            for rec in j.records(n):
                out.write(rec)
                out.write(b"\n")
        finally:
            vfs.umount(_MOUNT)
    finally:
        bdev.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
