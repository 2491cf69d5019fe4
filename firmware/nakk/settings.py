"""The box's own settings file (language, sound): the one module that reads and writes it.

The file is one JSON object, rewritten whole with journal.write_atomic (a
power cut leaves the old file or the new one), e.g. {"lang":"et","sound":true}.
A missing or damaged file gives the defaults: Estonian, sound on.
"""

import json

from nakk.journal import write_atomic

ET = 0   # the UI's language index: word pairs are (Estonian, English)
EN = 1


class Settings:
    def __init__(self, path):
        """path: the settings file on the flash (board.settings); read at once."""
        self.path = path
        self.lang = ET
        self.sound = True
        self.load()

    def load(self):
        """Read the file; what is missing or unreadable keeps its default."""
        try:
            with open(self.path, "rb") as f:
                saved = json.loads(f.read())
            self.lang = EN if saved.get("lang") == "en" else ET
            self.sound = saved.get("sound", True) is not False
        except (OSError, ValueError, AttributeError):
            pass

    def save(self):
        """Write the file; False when the flash refused (the old file stays)."""
        try:
            write_atomic(self.path, b'{"lang":"%s","sound":%s}' % (
                b"en" if self.lang == EN else b"et", b"true" if self.sound else b"false"))
        except OSError:
            return False
        return True
