"""The pages render keeps drawn (the names line and the foot of the deal entry, copied when
they show what they showed before) leave the same pixels as drawing every page: every
ruleset's match played with random presses on MicroPython, two screens in lockstep."""
import json
import os

from conftest import HEAP, TESTS, run_mpy


def test_kept_pages_equal_drawn_pages():
    # two screens and their frame buffers in lockstep, one ruleset a process (as a box plays one
    # game), on the tests' HEAP
    runs = []
    for cursor in range(4):
        r = run_mpy([os.path.join(TESTS, "mpy", "page_lockstep.py"), "300", str(cursor)], timeout=300,
                    compiled=True, heap=HEAP)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
        runs += [json.loads(line) for line in r.stdout.splitlines()]
    assert sorted(x["rules"] for x in runs) == ["saare-2020", "saare-classic", "sasku", "schmier"]
    for x in runs:
        assert x["frames"] > 300, x
        assert x["differ"] == 0, "a kept page differs from the page drawn: %r" % x
        # the cache is used at all (else the comparison proves nothing)
        assert x["kept"] > 0, x


def test_kept_pages_give_way_least_recently_used():
    # the deal's first step comes back every deal: the cursor's pages of the games list
    # must not push it out; and a press keeping a page finds a slot warm() made
    r = run_mpy([os.path.join(TESTS, "mpy", "kept_lru.py")], timeout=120, compiled=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert res["first_kept"] is True, res
    assert res["second_kept"] is False, res
    assert res["slot_bytes"] == 0, res
