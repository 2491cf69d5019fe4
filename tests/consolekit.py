"""The judge's console for the tests: an app on a fresh database, a logged-in client, forms posted with their token."""

import os
import re
import sqlite3
import subprocess
import sys

from starlette.testclient import TestClient

from nakk_host.console.app import make_app
from nakk_host.console.guard import Sessions
from nakk_host.store import open_db

ORIGIN = {"Origin": "http://testserver"}
CODE = "424242"


def app_for(db, **kw):
    open_db(db).close()
    return make_app(db, sessions=Sessions(CODE), judge="Kohtunik Kalju", **kw)


def client(app):
    return TestClient(app, base_url="http://testserver")


def login(c, code=CODE, by="Kohtunik Kalju"):
    r = c.get("/login")
    pre = re.search(r'name="pre" value="([^"]+)"', r.text).group(1)
    return c.post("/login", data={"pre": pre, "code": code, "by": by}, headers=ORIGIN, follow_redirects=False)


def csrf(c, path="/"):
    return re.search(r'name="csrf" value="([^"]+)"', c.get(path).text).group(1)


def post(c, action, token, files=None, **fields):
    return c.post("/do/" + action, data=dict(fields, csrf=token), files=files, headers=ORIGIN, follow_redirects=False)


def error_beside(html, field):
    """The message shown beside a form's field (None: none)."""
    m = re.search(r'data-error="%s"[^>]*>([^<]*)<' % re.escape(field), html)
    return m.group(1) if m else None


def flash(html):
    m = re.search(r'id="flash"[^>]*>([^<]*)<', html)
    return m.group(1) if m else None


def snapshot(db):
    """Every row of every table, as SQL: equal snapshots mean nothing was changed."""
    conn = sqlite3.connect(db)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


def players_csv(n, fmt="nimi;mängija;mängija;klubi\n"):
    names = ["Mets", "Tamm", "Saar", "Kask", "Õun", "Pirn", "Kuusk", "Vaher", "Lepp", "Haab", "Jõgi", "Järv"]
    return (fmt + "".join("%s/%s;%s;%s;Kuressaare\n" % (names[2 * i % 12], names[(2 * i + 1) % 12] + str(i),
                                                           names[2 * i % 12], names[(2 * i + 1) % 12] + str(i))
                          for i in range(n))).encode("utf-8")


def evening(tmp_path, pairs=8, rounds=3):
    """A logged-in console on a database with a stage of `pairs` pairs imported. Returns (client, db, token)."""
    db = os.path.join(str(tmp_path), "judge.db")
    c = client(app_for(db))
    assert login(c).status_code == 303
    token = csrf(c)
    assert post(c, "tournament_new", token, name="Saare etapp", ruleset="saare-2020", rounds=str(rounds)).status_code == 303
    r = post(c, "players_preview", token, files={"file": ("osalejad.csv", players_csv(pairs), "text/csv")})
    data = re.search(r'name="data" value="([^"]+)"', r.text).group(1)
    assert post(c, "players_import", token, data=data).status_code == 303
    return c, db, token


class Judge:
    """`nakk judge --no-browser` as a subprocess: its address and one-time code from its one line."""

    def __init__(self, db, env, *options):
        from hallkit import free_port
        self.port = free_port()
        self.proc = subprocess.Popen([sys.executable, "-m", "nakk_host.cli", "judge", "--db", db, "--port",
                                      str(self.port), "--no-browser", *options], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.line = self.proc.stdout.readline()
        m = re.search(r"on (http://127\.0\.0\.1:\d+/) \(this computer only\); kood / code: (\d+)", self.line)
        assert m, (self.line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.url, self.code = m.group(1), m.group(2)

    def close(self):
        from hallkit import stop
        stop(self.proc)
