"""Modules that never go on the box: the simulator's board (sim.py, simpins.py, blockdev.py), its entry point (simmain.py), and what only the judge's laptop runs (dump.py, score.py, teams.py).

box_files() is the one list of what the box gets: every module of nakk/ but this package. The UF2's
manifest (firmware/manifest.py), `nakk flash` (nakk_host.build) and the simulator
(nakk_host.simulator) all read it. CPython only (the unix port imports this package for sim.py, and
never calls box_files)."""

OFFBOX = "offbox"


def box_files(pkg, ext=".py"):
    """The box's modules under the nakk package directory `pkg` (sources, or a compiled tree with
    ext=".mpy"): paths relative to `pkg`, '/'-separated, sorted."""
    import os
    out = []
    for d, dirs, names in os.walk(pkg):
        rel = os.path.relpath(d, pkg).replace(os.sep, "/")
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "__pycache__"))
                         and not (rel == "." and x == OFFBOX))
        for n in sorted(names):
            if n.endswith(ext):
                out.append(n if rel == "." else rel + "/" + n)
    return out
