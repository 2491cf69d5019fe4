# main.py: run the app on the real board (app.main returns at once in maintenance mode).
from nakk.board import pico
from nakk import app
app.main(pico)
