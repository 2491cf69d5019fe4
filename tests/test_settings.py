"""The settings file (firmware/nakk/settings.py): language and sound, read and rewritten whole."""
import os
import sys

from conftest import FIRMWARE

sys.path.insert(0, FIRMWARE)
from nakk.settings import EN, ET, Settings  # noqa: E402


def test_defaults_when_the_file_is_missing_or_damaged(tmp_path):
    p = str(tmp_path / "settings.json")
    s = Settings(p)
    assert (s.lang, s.sound) == (ET, True)
    for bad in (b"", b"{", b"[1, 2]", b'"en"'):
        with open(p, "wb") as f:
            f.write(bad)
        s = Settings(p)
        assert (s.lang, s.sound) == (ET, True), bad


def test_saved_settings_are_read_back_and_nothing_else_is_left(tmp_path):
    p = str(tmp_path / "settings.json")
    s = Settings(p)
    s.lang = EN
    s.sound = False
    assert s.save()
    again = Settings(p)
    assert (again.lang, again.sound) == (EN, False)
    assert os.listdir(str(tmp_path)) == ["settings.json"]   # no temp file left behind


def test_a_refused_write_says_so(tmp_path):
    s = Settings(str(tmp_path / "no-such-dir" / "settings.json"))
    assert s.save() is False
