"""A ticks clock for MicroPython test scripts: it stands still unless the script moves `now`."""


class Clock:
    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b
