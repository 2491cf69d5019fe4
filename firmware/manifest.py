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

# nakk, but its package nakk/offbox/ (what only the unix port or the judge's laptop runs): the one
# list of what the box gets is nakk/offbox/__init__.py's box_files(), read by `nakk flash` and the
# simulator too. makemanifest runs a manifest with the current directory set to the manifest's own
# (firmware/); the list is loaded from its file, not imported, so nakk/__init__.py never runs here.
import importlib.util

_spec = importlib.util.spec_from_file_location("_nakk_offbox", os.path.join(".", "nakk", "offbox", "__init__.py"))
_offbox = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_offbox)
package("nakk", files=_offbox.box_files(os.path.join(".", "nakk")), base_path=".")
