# main.py: run the app on the real board (app.main returns at once in maintenance mode).
# The judge's link before the app: its buffers are made at import, while the heap is one free
# run (nakk/link/task.py, _FIRST); the app's imports leave code and garbage all over it.
from nakk.board import pico
from nakk.link import task
from nakk import app
app.main(pico)
