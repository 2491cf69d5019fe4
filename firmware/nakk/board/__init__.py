"""Hardware backends: pico.py (the real board), picow.py (the Pico W: the same, with Wi-Fi) and sim.py (the unix-port simulator's driver).

A board module has one function, `build(**options)`, that builds every piece
of hardware in one place and returns a Board: an object with these members,
which is all app.py ever touches.

    pins        tuple of 6 Pin-like objects in button order (A, B, C, PREV, OK,
                NEXT); None for a button the box does not have (C on a
                four-player box). Pulled up, pressed reads 0. For nakk.drivers.buttons.
    clock       None (use `time`) or an object with ticks_ms/ticks_add/ticks_diff
    buf         bytearray(1024): the frame, SSD1306 page layout (MONO_VLSB)
    fb          framebuf.FrameBuffer over buf, 128 x 64
    show(mask)  send pages of buf to the display: bit p of mask = page p
                (rows 8p..8p+7); 0xFF = all. Returns the bytes sent.
    rings       nakk.drivers.rings.Rings sized for this board's rings and power budget
    leds()      write rings' committed colours to the LEDs
    usb_host()  True while the box sits on a computer's USB (dim the rings)
    mount()     mount the flash filesystem; returns the journal's directory
    settings    path of the settings file (language, sound), on the flash;
                nakk.settings reads and writes it
    serial      the judge's link's byte stream (USB CDC on the Pico, the
                host's pty in the simulator), the same shape on both:
                  serial.readinto(buf)  copies the bytes already there (at
                      most len(buf)) into buf and returns their count, or
                      None when none wait; never blocks, allocates nothing
                  serial.write(data)  sends bytes; returns how many
    net         (optional) the network a Pico W box reports live scores over
                (nakk.link.net): join(ssid, password) starts joining, up() is True
                once on it; the Pico's board has none, the Pico W's has the
                WLAN (picow.py), the simulator's the host's loopback; an optional
                open_connection(host, port) -> (reader, writer) stands in for
                asyncio's sockets (bench_emu --net's peer inside the box)
    device_id() hex string: machine.unique_id() on the Pico
    buzz(ms)    a short beep (may do nothing)
    feed()      feed the watchdog (may do nothing)
    maintenance() True when boot asked for maintenance mode (no app)
    request_maintenance()  (optional) write the maintenance flag and reset
                into it: the link's `repl`, or mpremote's raw-REPL request
                (the Pico has it; the simulator has no maintenance mode)
"""
