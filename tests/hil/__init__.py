"""Hardware-in-the-loop tests on the emulated Pico (a package, so that its conftest does not shadow tests/conftest.py)."""
