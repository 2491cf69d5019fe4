# main.py: run the app on the real board (app.main returns at once in maintenance mode); a Pico W's
# board has the Wi-Fi for the live scores (nakk/board/picow.py), a Pico's is as it was.
from nakk.board import pico, picow
from nakk import app
app.main(picow if picow.is_pico_w() else pico)
