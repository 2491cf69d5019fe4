"""The console's glue to the plug-in watcher (nakk_host.watch): start it, stop it, read its events and boxes.

The watcher syncs a paired box the moment it is plugged in and says what
happened in words. The console needs only start(), stop(), events(since) (recent
events, newest last, each {id, at, text, ...}) and boxes() (per box: {device,
name, state, text}). Where no watcher module is installed the console runs with
NoWatcher, and its sync action does the work on the judge's click instead.
"""


class NoWatcher:
    """No watcher: nothing is watched; the console says so and offers its sync button."""

    available = False

    def start(self):
        pass

    def stop(self):
        pass

    def events(self, since=0):
        return []

    def boxes(self):
        return []


def make(db):
    """The plug-in watcher for this database, or NoWatcher where none is installed."""
    try:
        from nakk_host import watch
    except ImportError:
        return NoWatcher()
    w = watch.Watcher(db)
    w.available = True
    return w
