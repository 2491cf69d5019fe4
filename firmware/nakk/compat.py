"""What the firmware needs the same on MicroPython and CPython: micropython.const, a ticks clock, and let_go.

`from nakk.compat import const` is the one fallback for CPython (MicroPython's
compiler folds const() wherever the name comes from). clock() is `time` where
it has ticks_ms/ticks_add/ticks_diff (MicroPython), else the same three on
time.monotonic() (CPython: the tests and benches of the flows). let_go(name)
forgets a module used once in a while (its next import loads it again).
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


def let_go(name):
    """Forget the module `name` (from sys.modules and its package): once nothing else holds its
    functions, its code and names leave the heap. Where the firmware is .mpy files (stock
    MicroPython) a module's code is on the heap, and a module wanted only now and then (the
    pairing, its question, the assignment's words) would otherwise keep KBs of it there for
    good; frozen into the UF2, only its globals go."""
    import sys
    sys.modules.pop(name, None)
    pkg, _, attr = name.rpartition(".")
    p = sys.modules.get(pkg)
    if p is not None:
        try:
            delattr(p, attr)
        except AttributeError:
            pass
