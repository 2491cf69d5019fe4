"""Nakk: an electronic scoreboard for Estonian trick-taking tournaments.

The shared core (rules, match, event, journal and protocol codecs) runs on
MicroPython and CPython alike; board/ holds the hardware backends."""

VERSION = "0.1.0"
try:
    from nakk_build import BUILD, BOARD   # the UF2's build hash and board, frozen in by `nakk build` (uf2build.py)
except ImportError:
    BUILD = None                   # .mpy on stock MicroPython, the simulator, CPython
    BOARD = None
