"""The console's glue to the plug-in watcher (nakk_host.watch): start it, stop it, read its events and boxes.

The watcher syncs a paired box the moment it is plugged in, offers an
unpaired box for pairing and a box without its table's match that match, and
says what happened in words. The console reads it through Watched, which
gives events(lang) as {n, at, text, alarm, kind, port} and boxes(lang) as
{port, device, name, table, room, state, text, last_kind, offer, busy}, each
in the session's language, and passes pair(port, name), assign(port) and
sync(port) on: while it watches, the console never opens a box's port itself
for a sync. NoWatcher (tests that give the console none) offers the console's
own sync button instead.
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
        return [{"n": e.get("n"), "at": e.get("time"), "alarm": bool(e.get("alarm")), "kind": e.get("kind"),
                 "port": e.get("port"), "text": e.get(lang) or e.get("words")} for e in self.w.events(0)[-50:]]

    def boxes(self, lang="et"):
        from nakk_host.watchwords import STATES
        latest = {}                   # port -> its latest event (the words in the session's language)
        for e in self.w.events(0)[-200:]:
            if e.get("port"):
                latest[e["port"]] = e
        out = []
        for b in self.w.boxes():
            last = latest.get(b.get("port")) or {}
            state = STATES.get(b.get("state"))
            words = state[1 if lang == "en" else 0] if state else b.get("state_words") or b.get("state")
            out.append({"port": b.get("port"), "device": b.get("box"), "name": b.get("name"), "table": b.get("table"),
                        "room": b.get("room"), "state": b.get("state"), "state_text": words, "offer": b.get("offer"),
                        "busy": bool(b.get("busy")), "text": last.get(lang) or b.get("last") or words,
                        "last_kind": last.get("kind"), "label": b.get("label")})
        return out

    def pair(self, port, name):
        self.w.pair(port, name)

    def assign(self, port):
        self.w.assign(port)

    def sync(self, port):
        self.w.sync(port)


def make(db, judge_name=None):
    """The plug-in watcher for this database (Estonian and English words both kept in each event)."""
    from nakk_host import watch
    return Watched(watch.Watcher(db, judge_name=judge_name))
