"""The shared core's tests on both interpreters: the worked examples and tests/core/*, from the same files."""
import os

import pytest

from conftest import ROOT, TESTS, run_mpy

import scenario_runner

SCENARIOS = os.path.join(TESTS, "scenarios")
SCENARIO_FILES = scenario_runner.files(SCENARIOS)
CORE_MODULES = sorted(f[:-3] for f in os.listdir(os.path.join(TESTS, "core")) if f.startswith("test_"))


def _ids(paths):
    return [os.path.basename(p)[:-5] for p in paths]


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=_ids(SCENARIO_FILES))
def test_worked_example_cpython(path):
    why = scenario_runner.check(scenario_runner.load(path))
    assert why is None, why


@pytest.fixture(scope="module")
def mpy_scenarios():
    r = run_mpy([os.path.join(TESTS, "scenario_runner.py"), SCENARIOS], path=(TESTS,))
    lines = {}
    for line in r.stdout.splitlines():
        verdict, _, rest = line.partition(" ")
        ident = rest.split(":")[0]
        lines[ident] = (verdict, line)
    return r, lines


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=_ids(SCENARIO_FILES))
def test_worked_example_micropython(path, mpy_scenarios):
    r, lines = mpy_scenarios
    ident = scenario_runner.load(path)["id"]
    assert ident in lines, "MicroPython did not report %s; stderr: %s" % (ident, r.stderr[-2000:])
    verdict, line = lines[ident]
    assert verdict == "PASS", line


def test_every_scenario_ran_on_micropython(mpy_scenarios):
    r, lines = mpy_scenarios
    assert len(lines) == len(SCENARIO_FILES), r.stderr[-2000:]
    assert len(SCENARIO_FILES) >= 85  # every worked example in shared/rules, with their variants


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_on_micropython(module):
    r = run_mpy([os.path.join(TESTS, "mpy_runner.py"), "core." + module], path=(TESTS,))
    passed = [l for l in r.stdout.splitlines() if l.startswith("PASS ")]
    failed = [l for l in r.stdout.splitlines() if not l.startswith("PASS ")]
    assert not failed and r.returncode == 0, "\n".join(failed) + r.stderr[-2000:]
    assert len(passed) >= 3
