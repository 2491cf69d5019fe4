"""The link on the box (MicroPython unix port): what it costs on the heap, and that it never allocates while idle."""
import os
import subprocess

import boxes
from conftest import TESTS
from nakk_host.simulator import micropython_env, micropython_path


def link_heap(image):
    r = subprocess.run([micropython_path(), "-X", "heapsize=320K", os.path.join(TESTS, "mpy", "link_heap.py"), image],
                       env=micropython_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return {k: int(v) for k, v in (line.split() for line in r.stdout.splitlines())}


def test_link_heap(tmp_path):
    image = str(tmp_path / "heap.img")
    boxes.fill(image, 2, key=os.urandom(32))
    f = link_heap(image)
    assert f["idle_poll_total_1000"] == 0, f          # 0 B per idle poll
    assert f["link_object"] < 12 * 1024, f            # its buffers, made once: a line (2 KB), a read chunk, flash reads (4 KB), data (1.4 KB)
    assert 0 < f["frame_hello"] < 8192, f
    assert f["frame_noise_line"] < 1024, f            # a line that is no frame costs next to nothing
    assert f["frame_get_first"] < 96 * 1024, f        # one pass folds and hashes the match (garbage)


def test_link_control_bytes_and_maintenance(tmp_path):
    """Control bytes, and what changes a box: on a paired box mpremote's bytes, an unsigned, wrongly
    signed or replayed repl or assign are refused and counted; a signed one is taken once. An unpaired
    box takes mpremote's bytes and an unsigned repl (a fresh box is flashed so), and no assignment."""
    image = str(tmp_path / "ctl.img")
    key = os.urandom(32)
    boxes.fill(image, 1, key=key)
    fresh = str(tmp_path / "fresh.img")
    boxes.fill(fresh, 1)
    r = subprocess.run([micropython_path(), "-X", "heapsize=320K", os.path.join(TESTS, "mpy", "link_check.py"), image,
                        key.hex(), fresh], env=micropython_env(), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 15 and all(l.startswith("PASS ") for l in lines), r.stdout
