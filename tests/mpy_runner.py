"""Run the plain test functions of one tests/core module on this interpreter (for MicroPython).

Prints "PASS name" or "FAIL name: why" per test_* function; exit status 1 if any failed.
"""

import sys


def main(modname):
    mod = __import__(modname, None, None, ("x",))
    failed = 0
    names = sorted(n for n in dir(mod) if n.startswith("test_"))
    for name in names:
        try:
            getattr(mod, name)()
            print("PASS " + name)
        except Exception as e:
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
