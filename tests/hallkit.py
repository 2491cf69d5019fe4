"""Test kit for the hall pages: a judge's database with results in it, and a real `nakk serve` (uvicorn) on a free loopback port."""

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from nakk_host import store
from nakk_host.verify import recompute

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "saare-2020.jsonl")


def example_bytes():
    with open(EXAMPLE, "rb") as f:
        return b"\n".join(line.strip() for line in f if line.strip())


def store_result(conn, raw, result_id, source="paper"):
    """Store a result as the judge's side does: exact bytes, folded again, verified or flagged."""
    events, summary, problems = recompute(raw)
    setup = events[0] if events else {}
    conn.execute(
        "INSERT INTO results (result_id, source, events, sha256, status, problems, ruleset, tournament, "
        "table_no, round_no, room, summary, received_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (result_id, source, bytes(raw), hashlib.sha256(raw).hexdigest(), "flagged" if problems else "verified",
         json.dumps(problems), setup.get("ruleset"), setup.get("tournament"), setup.get("table"),
         setup.get("round"), setup.get("room"), json.dumps(summary), store.now()))
    conn.commit()


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


class Served:
    """`nakk serve --db DB --port P` as a subprocess, ready when its first page answers."""

    def __init__(self, db, *extra):
        self.port = free_port()
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
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()
