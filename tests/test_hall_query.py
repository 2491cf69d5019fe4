"""No URL of the hall server answers 500: every route the Starlette app has, every query parameter the hall knows
(and some it does not), fuzzed with bad values against a real `nakk serve`; a bad value is a 400 with a short message,
and the server's stderr holds no traceback."""
import random
import urllib.error
import urllib.request
from urllib.parse import quote

from starlette.routing import Mount, Route

from hallkit import Served, example_bytes, store_result
from test_hall import schmier_evening
from nakk_host import store
from nakk_host.hall import query
from nakk_host.hall.app import make_app

BAD = ["²", "٣", "1" * 5000, "-1", "", "0", "1e3", " 1", "1.5", "+1", "0x10", "\x00", "x" * 5000, "null",
       "99999999999999999999", "１"]
GOOD = {"round": "1", "rows": "5", "page": "2", "t": "sch", "season": "2026", "lang": "en", "since": "ab-1"}
RAW = ["%FF", "%B2", "%C2%B2", "%00", "%", "%zz", "&&", "=", "round", "round=1&round=%C2%B2", "t=%ED%A0%80",
       "lang=en&lang=xx", "page=" + "9" * 4301, "since=-", "since=%FF-1"]


def fetch(url):
    """The status of a GET (the body is not read: /events is a stream that does not end)."""
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.read(0)
    except urllib.error.HTTPError as e:
        body = e.read(400).decode("utf-8", "replace")
        return e.code, body


def paths(app):
    """A concrete path for every route of the app (path parameters filled in, good and bad)."""
    out = []
    for r in app.starlette.routes:
        if isinstance(r, Route):
            if r.param_convertors:
                for v in ("s1", "ab12-1", "x" * 3000, "%FF", "%ED%A0%80", "..%2F..%2Fetc%2Fpasswd", "%C2%B2", "%00"):
                    p = r.path
                    for name in r.param_convertors:
                        p = p.replace("{%s:path}" % name, v).replace("{%s}" % name, v)
                    out.append(p)
            else:
                out.append(r.path)
        elif isinstance(r, Mount):
            for sub in ("/live.js", "/%00", "/..%2F..%2Fapp.py", "/" + "a" * 3000, "/", "/%FF"):
                out.append(r.path + sub)
    return out


def test_no_query_string_makes_any_route_answer_500(tmp_path):
    db = str(tmp_path / "judge.db")
    conn = store.open_db(db)
    store_result(conn, example_bytes(), "ab12-1")
    schmier_evening(conn)
    conn.close()

    app = make_app(db)
    routes = paths(app)
    assert {"/", "/projector", "/events", "/results"} <= set(routes) and any(p.startswith("/match/") for p in routes)
    rng = random.Random(21)
    srv = Served(db)
    seen = {}
    try:
        for path in routes:
            queries = []
            for name in list(query.PARAMS) + ["zz"]:
                for v in BAD:
                    queries.append((name, v, "%s=%s" % (name, quote(v, safe=""))))
            queries += [(None, None, q) for q in RAW]
            for _ in range(40):             # several known names at once, good and bad, repeated
                names = rng.sample(list(query.PARAMS), rng.randrange(1, 5))
                qs = "&".join("%s=%s" % (n, quote(rng.choice(BAD + [GOOD[n]]), safe="")) for n in names)
                queries.append((None, None, qs))
            for name, v, qs in queries:
                status, body = fetch(srv.url + path + "?" + qs)
                seen[status] = seen.get(status, 0) + 1
                assert status != 500 and status < 500, (path, qs[:80], status, body)
                rule = query.PARAMS.get(name)
                if rule is not None and rule[1](v) is None and not (v == "" and name in ("t", "season", "since")):
                    # a value the hall refuses: said in one short line, naming the parameter
                    assert status == 400, (path, qs[:80], status)
                    assert body.startswith("400: ") and name + ":" in body and len(body) < 200, body
        # the brief's cases, by name
        for qs in ("round=%C2%B2", "rows=%C2%B2", "page=%C2%B2", "round=" + "7" * 5000, "page=-3", "rows="):
            status, body = fetch(srv.url + "/projector?" + qs)
            assert status == 400, (qs[:40], status)
        assert fetch(srv.url + "/projector?t=sch&rows=2&page=2")[0] == 200
        assert fetch(srv.url + "/events?since=")[0] == 200      # live.js before it has seen an event
    finally:
        srv.proc.terminate()
        _, err = srv.proc.communicate(timeout=20)
    assert "Traceback" not in err and "Exception" not in err and "Error" not in err, err[-3000:]
    assert seen.get(400, 0) > 100 and seen.get(200, 0) > 50, seen
