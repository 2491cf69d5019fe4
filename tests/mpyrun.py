"""The test runner for MicroPython: the plain test functions of test modules, as pytest runs them on CPython.

    micropython tests/mpyrun.py MODULE [MODULE ...]     (tests/ and firmware/ on MICROPYPATH)

A shared test module is plain functions named test_* that take no arguments,
so pytest collects them on CPython and this runs the same ones here. Prints
"PASS module.name" or "FAIL module.name: why" (and the traceback) per test;
exit status 1 if any failed. tests/test_both_interpreters.py runs it and
checks that every test pytest sees in those modules passed here too.
"""

import gc
import sys


def run(modname):
    mod = __import__(modname, None, None, ("x",))
    failed = 0
    # the module's dict, not dir(): MicroPython's dir() leaves out names a module adds to its
    # globals in bulk (core/test_worked_examples.py makes one test per scenario file)
    tests = mod.__dict__
    for name in sorted(n for n in tests if n.startswith("test_")):
        f = tests[name]
        if not callable(f):
            continue
        gc.collect()          # each test starts on a collected heap, as a fresh process would
        try:
            f()
            print("PASS %s.%s" % (modname, name))
        except Exception as e:
            failed += 1
            print("FAIL %s.%s: %s: %s" % (modname, name, type(e).__name__, e))
            sys.print_exception(e)
    return failed


def main(modules):
    failed = 0
    for m in modules:
        failed += run(m)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
