"""The console's glue to the plug-in watcher (nakk_host.watch): start it, stop it, read its events and boxes.

The watcher syncs a paired box the moment it is plugged in, offers an
unpaired box for pairing and a box without its table's match that match, and
says what happened in words. The console reads it through Watched, which
gives events(lang) as {n, at, text, alarm} and boxes(lang) as {port, device,
name, table, room, state, text, offer}, and passes pair(port, name) and
assign(port) on. Where no watcher module is installed the console runs with
NoWatcher, and its sync button does the work on the judge's click instead.
"""


class NoWatcher:
    """No watcher: nothing is watched; the console says so and offers its sync button."""

    available = False

    def start(self):
        pass

    def stop(self):
        pass

    def events(self, lang="et"):
        return []

    def boxes(self, lang="et"):
        return []


class Watched:
    """A running nakk_host.watch.Watcher, read in the console's shape."""

    available = True

    def __init__(self, watcher):
        self.w = watcher

    def start(self):
        self.w.start()

    def stop(self):
        self.w.stop()

    def events(self, lang="et"):
        return [{"n": e.get("n"), "at": e.get("time"), "alarm": bool(e.get("alarm")),
                 "text": e.get(lang) or e.get("words")} for e in self.w.events(0)[-50:]]

    def boxes(self, lang="et"):
        out = []
        for b in self.w.boxes():
            out.append({"port": b.get("port"), "device": b.get("box"), "name": b.get("name"), "table": b.get("table"),
                        "room": b.get("room"), "state": b.get("state"), "offer": b.get("offer"),
                        "text": b.get("last") or b.get("state_words"), "label": b.get("label")})
        return out

    def pair(self, port, name):
        self.w.pair(port, name)

    def assign(self, port):
        self.w.assign(port)


def make(db):
    """The plug-in watcher for this database, or NoWatcher where none is installed."""
    try:
        from nakk_host import watch
    except ImportError:
        return NoWatcher()
    return Watched(watch.Watcher(db))
