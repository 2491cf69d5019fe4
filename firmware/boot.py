# boot.py: maintenance mode (nakk/board/pico.py, maintenance()). When the flag
# file /maintenance exists or OK is held at power-on, say so and leave the
# REPL free: main.py's app.main() then sees the same answer from
# pico.maintenance() and starts neither the app nor the watchdog. Either way
# the CPU runs at 200 MHz from here (pico.fast_clock(): main.py's imports
# too). Never raises: a broken boot.py must not lock anyone out.
try:
    from nakk.board import pico

    pico.fast_clock()      # 200 MHz from here on: main.py's imports too (nakk/board/pico.py)
    if pico.maintenance():
        print("nakk: maintenance mode: no app, no watchdog, REPL free")
except Exception as e:
    print("nakk: boot.py:", repr(e))
