"""Hardware backends: pico.py (the real board) and sim.py (the unix-port simulator)."""
