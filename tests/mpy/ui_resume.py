"""MicroPython: the UI on a real journal in a LittleFS image, powered off and on between presses.

Usage: micropython tests/mpy/ui_resume.py IMAGE     (tests/ on MICROPYPATH: the helpers of tests/test_ui.py)
Prints "PASS" when the box came back where it was after every restart.
"""
import sys

from test_ui import START, box, play
from nakk.ui import flows as U
from nakk.table import Table

def _restart(image, bdev=None):
    """Power on: mount the flash image, open the journal, fold the latest match back in, a new UI."""
    import gc
    import vfs
    from nakk.offbox.blockdev import mount_image
    from nakk.journal import Journal
    if bdev is not None:
        vfs.umount("/flash")
        bdev.close()
    gc.collect()                 # the box before it starts again held nothing: drop what the last one held
    bdev = mount_image(image, "/flash")
    table = Table(Journal("/flash/journal"))
    table.resume()
    return bdev, box(table=table)

def resume_on_littlefs_is_where_it_was(image):
    bdev, ui = _restart(image)
    try:
        assert ui.mode == U.START
        play(ui, START["saare-2020"] + " NEXT OK PREV A LNEXT B A NEXT")
        s = ui.table.match.summary()
        assert s["score"] == [12, 0] and s["deals"] == 2
        title, items = ui.title, ui.items
        ui = None
        bdev, ui = _restart(image, bdev)             # the power goes; the box boots again
        assert ui.table.match.summary() == s
        assert ui.mode == U.ENTRY and ui.deal.step == 0 and ui.title == title and ui.items == items
        play(ui, "LPREV OK")                         # undo reads the match back from flash
        assert ui.table.match.st.score == [10, 0]
        s = ui.table.match.summary()
        ui = None
        bdev, ui = _restart(image, bdev)             # a cancel in the journal folds back too
        assert ui.table.match.summary() == s
        play(ui, "NEXT A NEXT A")                    # 18: the match is over
        assert ui.mode == U.END
        s = ui.table.match.summary()
        ui = None
        bdev, ui = _restart(image, bdev)
        assert ui.mode == U.END and ui.table.match.summary() == s
        play(ui, "A")
        ui = None
        bdev, ui = _restart(image, bdev)
        assert ui.mode == U.END and ui.table.match.confirmed == [0]
        play(ui, "B")
        ui = None
        bdev, ui = _restart(image, bdev)
        assert ui.mode == U.DONE and ui.table.match.locked()
        play(ui, "LOK " + START["saare-2020"])       # the next match, on the same flash
        assert ui.mode == U.ENTRY and ui.table.match.setup["round"] == 2
        ui = None
        bdev, ui = _restart(image, bdev)
        assert ui.mode == U.ENTRY and ui.table.match.seq == 1 and ui.table.waiting() == 1
    finally:
        import vfs
        vfs.umount("/flash")
        bdev.close()


resume_on_littlefs_is_where_it_was(sys.argv[1])
print("PASS")
