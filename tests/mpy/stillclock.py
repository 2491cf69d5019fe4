"""A ticks clock for the UI in tests and benches: it stands still unless the script moves it (advance)."""


class Clock:
    def __init__(self):
        self.now = 0

    def ticks_ms(self):
        return self.now

    def ticks_diff(self, a, b):
        return a - b

    def advance(self, ms):
        self.now += ms
