# main.py: run the app on the real board (app.main returns at once in maintenance mode). A Pico W's
# MicroPython has `network`: its board has the Wi-Fi for the live scores (nakk/board/picow.py); a
# Pico imports nothing more than before. The judge's link before the app: its buffers are made at
# import, while the heap is one free run (nakk/link/task.py, _FIRST); the app's imports leave code
# and garbage all over it.
try:
    import network  # noqa: F401
    from nakk.board import picow as board
except ImportError:
    from nakk.board import pico as board
from nakk.link import task  # noqa: F401
from nakk import app
app.main(board)
