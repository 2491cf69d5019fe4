"""What the firmware needs the same on MicroPython and CPython: micropython.const and a ticks clock.

`from nakk.compat import const` is the one fallback for CPython (MicroPython's
compiler folds const() wherever the name comes from). clock() is `time` where
it has ticks_ms/ticks_add/ticks_diff (MicroPython), else the same three on
time.monotonic() (CPython: the tests and benches of the flows).
"""

try:
    import micropython
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

    class micropython:
        """The native-code decorator where there is no MicroPython: the function as written
        (MicroPython's compiler takes the decorator; it is never looked up at run time)."""

        @staticmethod
        def native(f):
            return f


class _MonotonicClock:
    """time's ticks_ms/ticks_add/ticks_diff where CPython lacks them: plain ints, no wrap."""

    def ticks_ms(self):
        import time
        return int(time.monotonic() * 1000)

    def ticks_add(self, a, b):
        return a + b

    def ticks_diff(self, a, b):
        return a - b


def clock(given=None):
    """`given` when there is one, else the ticks clock of this interpreter."""
    if given is not None:
        return given
    import time
    if hasattr(time, "ticks_ms"):
        return time
    return _MonotonicClock()
