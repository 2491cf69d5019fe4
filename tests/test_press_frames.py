"""The functions a deal's presses call many times keep their frames off the heap.

MicroPython puts a bytecode function's frame (its arguments, locals and value stack) on the
heap at every call when it is larger than 11 words (VM_MAX_STATE_ON_STACK in py/objfun.c),
and frees it on return. Each such allocation scans the allocation table from the lowest
free block: measured inside a match's presses (bench/bench_emu_frame.py), ~10 µs more than a
frame on the C stack at the median on the shipped UF2 (~130 µs at worst), 25-30 µs on the
`.mpy` path's tighter heap (~400 µs at worst). So each function in HOT (loops, what a
press calls many times, and what measured slower as a heap frame) either fits in 11 words or
is @micropython.native (its frame on the C stack, and machine code); a function a press
calls once or twice may have a big frame and be written plainly, listed in ON_HEAP with its
reason (docs/latency.md).

The frame sizes are read from the unix port's compiler (`micropython -v -v` prints each
code block's N_STATE and N_EXC_STACK: the numbers mpy-cross writes into the .mpy; an
exception handler takes 3 words).
"""
import os
import re
import subprocess

import pytest

from conftest import FIRMWARE, micropython_path

WORDS = 11          # VM_MAX_STATE_ON_STACK / sizeof(mp_uint_t)

# file -> functions (by name) a press of the deal entry calls, many of them several times
HOT = {
    "nakk/drivers/buttons.py": ["poll", "_replay", "_advance", "_due", "_sleep_ms", "_deadline", "_edge",
                                "_edge1", "_fire", "_emit", "_deliver"],
    "nakk/app.py": ["_press", "on_event", "frame", "_head_box"],
    "nakk/ui/flows.py": ["handle", "_side_press", "_dispatch", "_entry_event", "_move", "_side", "_submit", "_screen",
                   "_keep_answers", "says", "ok_says", "tally", "rest_left", "choice_text", "word"],
    "nakk/ui/dealform.py": ["answer", "_count", "_by_side", "_offered", "_offers", "_given", "_taken",
                         "_unfits", "_fits", "_complete", "_held", "_on", "_innocent", "_tally_list", "_key", "_value_key", "_asks", "_label", "_named", "fields", "_to_list",
                         "_when_field", "_index", "_choice_of", "_put_each", "_put_all", "show", "ok_choice",
                         "left", "_nobodies", "_counted", "tally", "rests", "at"],
    "nakk/event.py": ["check_envelope", "check_fields", "_find", "kind_ok", "_short"],
    "nakk/table.py": ["submit"],
    "nakk/match.py": ["apply"],
    "nakk/rules/common.py": ["side_index", "check"],
    "nakk/rules/saare.py": ["_points", "_end_bonuses", "_mark_bonuses", "_mark_bonus", "_prillid"],
    "nakk/ui/render.py": ["_clear", "_key", "_kept_page", "_use", "_keep_page", "_oldest", "_slot", "_mix",
                          "_score_sig"],
    "nakk/ui/regions.py": ["_ok_head"],
    "nakk/drivers/font.py": ["text", "_row", "_run", "width", "digits", "digits_width", "_big_width", "_cached",
                     "kept"],
}


# Frames on the heap, each with its reason (a new big frame on a press's path goes in HOT or
# here). A heap frame costs ~10 µs more than a small one at the median of a match's presses
# on the shipped UF2 (~130 µs at worst), 20-30 µs on the .mpy path (~400 at worst;
# bench/bench_emu_frame.py, docs/latency.md): a function called once or twice a press may
# have one and be written plainly, if bench_emu's .mpy figures stay within 10 %. Loops, what
# a press calls many times, and what measured slower on the heap (the driver's poll and
# _edge1, app._press, the renderer's kept pages) stay in HOT.
ON_HEAP = {
    # twice an entry (the envelope's check, the rules' deal check): one function, no helpers
    "nakk/event.py": ["check_pair"],
    # once an entry: the rules, state and settings in locals, the format check inline
    "nakk/match.py": ["_undoable"],
    # the frame, once a press
    "nakk/ui/render.py": ["draw"],
    # the drawing of each region (once a press that changes it): making them native would
    # cost ~12 KB of RAM on the .mpy path
    "nakk/ui/regions.py": ["_head", "_names", "_score", "_foot", "_choice", "_answers"],
    # Saare's scoring of a deal (once an entry)
    "nakk/rules/saare.py": ["deal", "_result", "_sohk"],
    # a kept word blitted rather than copied (off the page grid, or cut to its place: ~1.3 a
    # press over the screens of tests/mpy/screens.py), and a word's first drawing (words are
    # drawn ahead between presses)
    "nakk/drivers/font.py": ["_put_kept", "_draw_kept"],
}


MODULES = sorted({p[:-3].replace("/", ".") for p in list(HOT) + list(ON_HEAP)})


def native(src, name):
    """Whether def name(...) in src is decorated @micropython.native."""
    return re.search(r"@micropython\.native\n\s*def %s\(" % re.escape(name), src) is not None


@pytest.fixture(scope="module")
def frames():
    """{(file, function): words of its frame} for every bytecode function of the HOT files."""
    exe = micropython_path()
    env = dict(os.environ, MICROPYPATH=FIRMWARE + ":.frozen")
    r = subprocess.run([exe, "-X", "heapsize=8M", "-v", "-v", "-c", "import " + ", ".join(MODULES)],
                       capture_output=True, text=True, env=env, cwd=FIRMWARE, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = {}
    # each code block: its "File ..., code block 'name'" line, then (further down, before the
    # next block) its N_STATE and N_EXC_STACK lines
    for block in re.split(r"\n(?=File )", r.stdout):
        m = re.match(r"File (\S+), code block '([^']+)'", block)
        n = re.search(r"^\(N_STATE (\d+)\)$", block, re.M)
        e = re.search(r"^\(N_EXC_STACK (\d+)\)$", block, re.M)
        if m and n and e:
            words = int(n.group(1)) + 3 * int(e.group(1))
            key = (m.group(1), m.group(2))
            out[key] = max(words, out.get(key, 0))     # a name defined twice: the bigger
    assert out, "micropython -v -v printed no N_STATE (a build without verbose output?)"
    return out


@pytest.mark.parametrize("rel", sorted(HOT))
def test_hot_functions_keep_their_frames_on_the_c_stack(frames, rel):
    with open(os.path.join(FIRMWARE, rel)) as f:
        src = f.read()
    big = []
    for name in HOT[rel]:
        assert re.search(r"def %s\(" % re.escape(name), src), "%s has no %s()" % (rel, name)
        if native(src, name):
            assert (rel, name) not in frames   # compiled to machine code, not bytecode
            continue
        words = frames.get((rel, name))
        assert words is not None, "no frame size for %s %s" % (rel, name)
        if words > WORDS:
            big.append("%s: %d words" % (name, words))
    assert not big, "%s: frames over %d words (allocated on the heap at every call): %s" % (
        rel, WORDS, ", ".join(big))


def test_the_frames_still_on_the_heap_are_the_known_ones(frames):
    # they are big (the check sees a big frame as big), and none of HOT's is among them
    for rel, names in ON_HEAP.items():
        for name in names:
            assert frames[(rel, name)] > WORDS, (rel, name)
            assert name not in HOT.get(rel, ())
