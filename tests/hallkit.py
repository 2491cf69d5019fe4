"""Test kit for the hall pages: a judge's database with results in it, and a real `nakk serve` (uvicorn) on a free loopback port."""

import os
import socket
import subprocess
import sys
import time
import urllib.request


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "saare-2020.jsonl")


def example_bytes():
    with open(EXAMPLE, "rb") as f:
        return b"\n".join(line.strip() for line in f if line.strip())


def store_result(conn, raw, result_id, source="paper"):
    """Store a result as the judge's side does (intake.store_result: exact bytes, folded again, verified or flagged)."""
    from nakk_host.intake import store_result as intake
    return intake(conn, result_id, raw, source)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(cond, timeout, what, step=0.05):
    """Poll cond() until it is true; AssertionError naming `what` after timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            raise AssertionError("timed out after %.1f s waiting for %s" % (timeout, what))
        time.sleep(step)


def stop(proc):
    """End a server started by a test (terminate, kill after 10 s) and close its pipes."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.stdout.close()
    proc.stderr.close()


class Served:
    """`nakk serve --db DB --port P` as a subprocess, ready when its first page answers."""

    def __init__(self, db, *extra, port=None):
        self.port = port or free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nakk_host.cli", "serve", "--db", db, "--port", str(self.port)] + list(extra),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(self._up, 20, "nakk serve to answer")

    def _up(self):
        if self.proc.poll() is not None:
            raise AssertionError("nakk serve exited: %s" % self.proc.stderr.read())
        try:
            with urllib.request.urlopen(self.url + "/results", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            return r.status, r.read().decode("utf-8")

    def close(self):
        stop(self.proc)


NAMES = ["Mets/Tamm", "Saar/Kask", "Õun/Pärn", "Šokk/Žürii", "Mägi/Org", "Küla/Linn", "Jõgi/Järv", "Öökull/Rebane",
         "Kõiv/Lepp", "Vaher/Haab", "Kukk/Kana", "Hirv/Põder", "Lõhe/Ahven", "Kivi/Liiv", "Tuul/Vihm", "Päike/Kuu"]


def hall_tournament(conn, n=8, played=None, season="Saaremaa hooaeg 2026", name="Kuressaare karikas", ids="box-",
                    date="2026-12-01"):
    """A Saare mäng stage with n pairs, round 1 drawn, and `played` of its tables in (default: all but one).

    Returns (tournament, [[side A name, side B name] per table]). Results go in through intake.store_result,
    the one function that stores results for `nakk enter` and the standings."""
    from judge_kit import saare_events, stage, store
    from nakk_host import draw as D
    from nakk_host import standings as S
    names = [NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else " %d" % (i // len(NAMES) + 1)) for i in range(n)]
    t = stage(conn, names, season=season, name=name, date=date)
    D.draw_next(conn, t, seed=7)
    tables = [[s["name"] for s in tb["sides"]] for tb in S.round_tables(conn, t["code"])["tables"] if not tb["bye"]]
    if played is None:
        played = len(tables) - 1
    for i in range(played):
        store(conn, "%s%d" % (ids, i + 1), table_events(t["code"], i + 1, tables[i], i))
    return t, tables


def table_events(code, table_no, names, k=0):
    """A whole Saare mäng 2020 match for a table: side A or B wins by k's parity, with a penalty-free mix."""
    from judge_kit import saare_events
    win = "A" if k % 2 == 0 else "B"
    lose = "B" if win == "A" else "A"
    deals = [("suit", lose, lose)] * (k % 3) + [("pime-pits", win, win), ("pime-pits", win, win)]
    return saare_events(code, 1, table_no, names, deals)
