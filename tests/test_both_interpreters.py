"""The shared tests on both interpreters, from the same files: pytest collects them here (CPython) and
tests/mpyrun.py runs the very same test functions on the MicroPython unix port.

Every test function pytest sees in a shared module must have passed on
MicroPython too: the names are compared, so a test cannot run on one
interpreter only."""
import importlib
import os

import pytest

from conftest import HEAP, TESTS, run_mpy

# the modules whose tests run on both: the scoring core and the worked examples, and the UI's flows
SHARED = ("core.test_codec", "core.test_record", "core.test_match", "core.test_worked_examples", "test_ui",
          "test_words", "test_entries", "test_assignment")


def _tests(module):
    mod = importlib.import_module(module)
    return sorted(n for n, f in vars(mod).items() if n.startswith("test_") and callable(f))


CASES = [(m, n) for m in SHARED for n in _tests(m)]


@pytest.fixture(scope="module")
def micropython_results():
    """{module: (CompletedProcess, {test name: the runner's line})}, one MicroPython process per module."""
    out = {}
    for m in SHARED:
        # the UI's flows with the firmware as .mpy, as the Pico runs it (the box never compiles the
        # UI, the renderer and every ruleset from source inside its heap); the core from source
        # test_entries walks every form of every ruleset in one process, each ruleset's forms and
        # screens kept by the walk; the box loads one ruleset for a match: its heap gets room for all.
        # test_words starts matches of every ruleset in one process too, test_ui's helpers compiled
        # from source beside them: at 320K a ruleset's import (a 1.3 KB piece) found no room in the
        # fragmented heap already at 318K before the sohk's step and Schmier's "+3", and at 328K
        # a journal's 4 KB buffer none once the forms held their held answers; 352K (the simulator's)
        r = run_mpy([os.path.join(TESTS, "mpyrun.py"), m], path=(TESTS,), timeout=300,
                    heap="448K" if m == "test_entries" else "352K" if m == "test_words" else HEAP,
                    compiled=m in ("test_ui", "test_words", "test_entries", "test_assignment"))
        lines = {}
        for line in r.stdout.splitlines():
            verdict, _, rest = line.partition(" ")
            if verdict in ("PASS", "FAIL"):
                lines[rest.split(":")[0][len(m) + 1:]] = line
        out[m] = (r, lines)
    return out


def test_the_shared_modules_have_their_tests():
    counts = dict((m, len(_tests(m))) for m in SHARED)
    assert counts["core.test_worked_examples"] >= 85 and counts["test_ui"] >= 25, counts


@pytest.mark.parametrize("module,name", CASES, ids=["%s::%s" % c for c in CASES])
def test_passes_on_micropython(module, name, micropython_results):
    r, lines = micropython_results[module]
    assert name in lines, "MicroPython did not run %s.%s; stderr: %s" % (module, name, r.stderr[-2000:] + r.stdout[-2000:])
    assert lines[name].startswith("PASS "), lines[name]


def test_micropython_ran_nothing_else(micropython_results):
    for m in SHARED:
        r, lines = micropython_results[m]
        assert sorted(lines) == _tests(m), m
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
