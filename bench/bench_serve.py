"""Hall server benchmark: stored result -> page updated, and pages served per second with 100 open live pages.

    .venv/bin/python bench/bench_serve.py [--pairs 80] [--seconds 5]

A real `nakk serve` (uvicorn, one process) on a free loopback port, over a
judge's database with a Saare mäng stage of --pairs pairs (round 1 drawn,
all but one table in). Everything stays on 127.0.0.1; every loop is bounded
in count and time.

1. Store -> page updated (target < 2 s), each of --rounds (20) times, at
   random points of the change feed's 0.5 s poll:
   a. in headless Chromium (when installed): the standings page is open;
      intake.store_result commits a result; the time until the page's DOM
      shows it (live.js fetched it after the `change` event);
   b. without a browser: an EventSource-like client on /events; the time
      until the `change` event and the page fetched again show the result.
2. Pages per second (target >= 200/s): 100 live pages hold /events open
   (each a real streaming connection); 8 client threads with keep-alive
   fetch the standings page for --seconds (at most 20 000 pages); the
   page's data is read once per database version, so the figure is
   rendering and serving (the time to read it afresh is printed too). Then the
   burst the live pages cause: a result is stored, and all 100 pages fetch
   again at once; the time until the last one has it.
"""
import argparse
import http.client
import random
import os
import socket
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from hallkit import Served, hall_tournament, table_events, wait_for  # noqa: E402
from judge_kit import raw_of  # noqa: E402
from nakk_host import standings as S  # noqa: E402
from nakk_host import store  # noqa: E402
from nakk_host.intake import store_result  # noqa: E402


PHASE = random.Random(2026)   # pauses between stores, so they land at any point of the feed's poll


class Live:
    """One open live page's event stream: counts `change` events as they arrive."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
        self.changes = 0
        self.at = []
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        buf = b""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return
                buf += data
                while b"event: change" in buf:
                    buf = buf.split(b"event: change", 1)[1]
                    self.changes += 1
                    self.at.append(time.monotonic())
                buf = buf[-64:]
        except OSError:
            return

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def _in_threads(f, n):
    """f(0) ... f(n - 1), each in its own thread, all at once; returns when every one is done."""
    threads = [threading.Thread(target=f, args=(k,)) for k in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def fetch(conn, path="/"):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        raise RuntimeError("GET %s: %d" % (path, r.status))
    return body


def next_table(conn, t):
    """A table of the current round still waiting, and its sides' names (a new round is drawn when none is)."""
    from nakk_host import draw as D
    for _ in range(2):
        rt = S.round_tables(conn, t["code"])
        for tb in rt["tables"]:
            if tb["state"] == "waiting" and not tb["bye"]:
                return rt["round"], tb["table"], [s["name"] for s in tb["sides"]]
        D.draw_next(conn, t, seed=rt["round"] + 1)
    raise RuntimeError("no table to play")


def store_next(conn, t, n):
    rn, tb, names = next_table(conn, t)
    ev = table_events(t["code"], tb, names, n)
    ev[0]["round"] = rn
    store_result(conn, "bench-%d" % n, raw_of(ev), "box")
    return names[0]


def latency_sse(srv, conn, t, rounds):
    out = []
    live = Live(srv.port)
    http_conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    wait_for(lambda: live.changes >= 1, 10, "the live stream")
    try:
        for i in range(rounds):
            seen = live.changes
            t0 = time.monotonic()
            name = store_next(conn, t, 1000 + i)
            wait_for(lambda: live.changes > seen, 10, "the change event")
            body = fetch(http_conn, "/tables").decode()
            assert name in body
            out.append(time.monotonic() - t0)
            time.sleep(PHASE.uniform(0.1, 0.6))   # stores land at any point of the 0.5 s poll
    finally:
        http_conn.close()
        live.close()
    return out


def latency_browser(srv, conn, t, rounds):
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
    import test_hall_browser as B
    if B.WHY_NOT:
        return None, B.WHY_NOT
    b = B.new_browser()
    out = []
    try:
        b.get(srv.url + "/tables")
        wait_for(lambda: b.execute_script("return document.body.getAttribute('data-link')") == "open", 10, "live")
        for i in range(rounds):
            verified = b.execute_script("return document.querySelectorAll('tr[data-state=verified]').length")
            t0 = time.monotonic()
            store_next(conn, t, 2000 + i)
            wait_for(lambda: b.execute_script(
                "return document.querySelectorAll('tr[data-state=verified]').length") != verified, 10,
                "the page to show the stored result", step=0.01)
            out.append(time.monotonic() - t0)
            time.sleep(PHASE.uniform(0.1, 0.6))
    finally:
        b.quit()
    return out, None


def throughput(srv, conn, t, seconds, clients=8, live_pages=100, cap=20000):
    lives = [Live(srv.port) for _ in range(live_pages)]
    # a page connecting without an id is told to fetch once: then it is connected and up to date
    wait_for(lambda: all(x.changes >= 1 for x in lives), 10, "100 live pages connected")
    count = [0] * clients
    stop = time.monotonic() + seconds
    lock = threading.Lock()
    total = [0]

    def worker(k):
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        try:
            while time.monotonic() < stop:
                with lock:
                    if total[0] >= cap:
                        return
                    total[0] += 1
                fetch(c, "/")
                count[k] += 1
        finally:
            c.close()

    t0 = time.monotonic()
    _in_threads(worker, clients)
    took = time.monotonic() - t0
    pages = sum(count)
    # the burst: every live page fetches again after one store
    before = [x.changes for x in lives]
    t1 = time.monotonic()
    name = store_next(conn, t, 3000)
    wait_for(lambda: all(x.changes > b for x, b in zip(lives, before)), 10, "every live page told")
    told = max(x.at[-1] for x in lives) - t1
    done = []

    def refetch(k):
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        try:
            body = fetch(c, "/").decode()
            if name in body:
                done.append(k)
        finally:
            c.close()

    _in_threads(refetch, live_pages)
    burst = time.monotonic() - t1
    for x in lives:
        x.close()
    return pages, took, told, burst, len(done)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=80)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nakk-bench-serve-")
    db = os.path.join(tmp, "judge.db")
    conn = store.open_db(db)
    t, tables = hall_tournament(conn, args.pairs)
    srv = Served(db)
    try:
        size = len(srv.get("/")[1].encode())
        print("nakk serve on 127.0.0.1:%d, a stage of %d pairs (%d tables in round 1), standings page %d bytes"
              % (srv.port, args.pairs, len(tables), size))
        print()
        lat, why = latency_browser(srv, conn, t, args.rounds)
        if lat is None:
            print("1a. store -> page updated in Chromium: not run (%s)" % why)
        else:
            print("1a. store -> page updated in headless Chromium, %d times: median %.2f s, max %.2f s (target < 2 s)"
                  % (len(lat), statistics.median(lat), max(lat)))
        lat = latency_sse(srv, conn, t, args.rounds)
        print("1b. store -> change event -> page fetched with it, %d times: median %.2f s, max %.2f s (target < 2 s)"
              % (len(lat), statistics.median(lat), max(lat)))
        from nakk_host.hall.pages import Pages
        pg = Pages(db)
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            pg.standings(t["code"])
            times.append(time.perf_counter() - t0)
        print("    (the standings page's data read afresh, as after every change: median %.1f ms over 20)"
              % (statistics.median(times) * 1000))
        pages, took, told, burst, ok = throughput(srv, conn, t, args.seconds)
        print("2.  %d standings pages in %.1f s with 100 open live pages: %.0f pages/s (target >= 200/s)"
              % (pages, took, pages / took))
        print("    one store with 100 live pages open: all told in %.2f s; all 100 fetched it again within %.2f s "
              "(%d/100 showed the result)" % (told, burst, ok))
    finally:
        srv.close()
        conn.close()


if __name__ == "__main__":
    main()
