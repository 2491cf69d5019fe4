"""Nakk: an electronic scoreboard for Estonian trick-taking tournaments.

The shared core (rules, match, event, journal and protocol codecs) runs on
MicroPython and CPython alike; board/ holds the hardware backends."""

VERSION = "0.1.0"
