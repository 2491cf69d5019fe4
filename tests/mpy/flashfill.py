"""MicroPython: fill(): a file takes every free block of the mounted /flash, as on a box whose flash is full (app_check.py, box_faults.py)."""


def fill():
    f = open("/flash/fill", "ab")
    size = 4096
    while size:
        try:
            f.write(bytes(size))
            f.flush()
        except OSError:
            size //= 2
    try:
        f.close()
    except OSError:
        pass
