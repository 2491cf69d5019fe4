# manifest.py: freeze nakk and its dependencies into a MicroPython image for the Pico (README, "The UF2"; nakk build adds boot.py, main.py and the build line).
#
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/nakk/firmware/manifest.py
#
# A MicroPython manifest file (micropython-lib's form), run by the build's
# makemanifest, not on the board. Frozen bytecode runs from flash: the
# modules' code and constants take no heap, and nothing is loaded from the
# filesystem at boot. boot.py and main.py stay on the filesystem (`nakk flash`
# copies them, and only them, onto a box whose image has nakk frozen).
import os

# the rp2 port's own frozen modules (asyncio, neopixel, rp2, _boot with the filesystem)
include("$(PORT_DIR)/boards/manifest.py")

# firmware/package.json's dependencies, from micropython-lib (lib/micropython-lib in the MicroPython tree)
require("ssd1306")

# nakk, without what only the unix port or the judge's laptop runs (host-only.txt, read by host/nakk_host/build.py too).
# makemanifest runs a manifest with the current directory set to the manifest's own (firmware/).
_HERE = "."
with open(os.path.join(_HERE, "host-only.txt")) as _f:
    _HOST_ONLY = [_l.strip() for _l in _f if _l.strip() and not _l.startswith("#")]
_files = []
for _d, _dirs, _names in os.walk(os.path.join(_HERE, "nakk")):
    _dirs.sort()
    for _n in sorted(_names):
        _rel = os.path.relpath(os.path.join(_d, _n), os.path.join(_HERE, "nakk")).replace(os.sep, "/")
        if _n.endswith(".py") and _rel not in _HOST_ONLY:
            _files.append(_rel)
package("nakk", files=_files, base_path=_HERE)
