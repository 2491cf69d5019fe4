# boot.py: maintenance mode (nakk/board/pico.py, maintenance()). When the flag
# file /maintenance exists or OK is held at power-on, say so and leave the
# REPL free: main.py's app.main() then sees the same answer from
# pico.maintenance() and starts neither the app nor the watchdog. Otherwise
# do nothing. Never raises: a broken boot.py must not lock anyone out.
try:
    from nakk.board import pico

    if pico.maintenance():
        print("nakk: maintenance mode: no app, no watchdog, REPL free")
except Exception as e:
    print("nakk: boot.py:", repr(e))
