"""`nakk judge`: runs the judge's console on uvicorn, prints where it listens and the one-time code, opens the browser;
its entry in the command table (COMMANDS, cmdtable.py)."""

import sys

from nakk_host.cmdtable import Command, arg, db, live_scores
from nakk_host.errors import CommandError


def hosts_for(host, port):
    """The Host header values the console answers to: its own address (and localhost on loopback);
    None (any) when it listens on every address, where the Origin check still holds."""
    if host in ("0.0.0.0", "::", ""):
        return None
    shown = "[%s]" % host if ":" in host else host
    out = ["%s:%d" % (shown, port)]
    from nakk_host.hall.server import is_loopback
    if is_loopback(host):
        out += ["localhost:%d" % port, "127.0.0.1:%d" % port]
    return out


def serve(db, host="127.0.0.1", port=8081, browser=True, out=None, sock=None, code=None, ready=None,
          live=None, quiet_s=600.0):
    """Serve until interrupted. Returns 0. ready(url) is called once the socket listens (tests).
    live: "HOST:PORT" where the live server takes the Pico W boxes' frames too (nakk_host.live, the
    one `nakk serve --live` runs), in a thread beside the console, into the same database."""
    import uvicorn

    from nakk_host import store
    from nakk_host.console import watch
    from nakk_host.console.app import make_app
    from nakk_host.console.guard import Sessions
    from nakk_host.hall.server import bind, is_loopback
    from nakk_host.judge import default_judge
    out = out or sys.stdout
    store.open_db(db, create=True).close()      # the evening may begin here: the console creates it
    if sock is None:
        sock = bind(host, port)
    said = None
    if live:
        from nakk_host import live as L
        try:
            server_live, said = L.listen(db, live, log=lambda s: print("nakk judge: " + s, file=out, flush=True))
        except L.LiveError:
            sock.close()
            raise
    port = sock.getsockname()[1]
    shown = "[%s]" % host if ":" in host else host
    url = "http://%s:%d/" % ("127.0.0.1" if host in ("0.0.0.0", "::") else shown, port)
    sessions = Sessions(code)
    judge = default_judge()
    watcher = watch.make(db, judge_name=judge)     # the plug-in watcher, on this database, while the console runs
    app = make_app(db, sessions=sessions, watcher=watcher, hosts=hosts_for(host, port), judge=judge, quiet_s=quiet_s)
    where = "this computer only" if is_loopback(sock.getsockname()[0]) else \
        "ANYONE on this network who has the code"
    out.write("nakk judge: %s on %s (%s); kood / code: %s (Ctrl-C stops)\n" % (db, url, where, sessions.code))
    if said:
        out.write(said + "\n")
    out.flush()
    if browser:
        import webbrowser
        try:
            webbrowser.open(url + "login")
        except Exception:          # no browser on this machine: the line above says where to go
            pass
    if ready is not None:
        ready(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1, access_log=False)
    server = uvicorn.Server(config)
    watcher.start()
    try:
        server.run(sockets=[sock])
    finally:
        watcher.stop()
        if said:
            server_live.stop()
        sock.close()
    return 0


def cmd_judge(args):
    from nakk_host import live, store
    from nakk_host.hall.server import ServeError
    if args.quiet_minutes <= 0:
        raise CommandError("--quiet-minutes is more than 0 (got %g)" % args.quiet_minutes, 2)
    try:
        if args.live:
            live.parse_address(args.live)      # a bad address is said before the database is made
        return serve(args.db, args.host, args.port, browser=not args.no_browser, live=args.live,
                     quiet_s=args.quiet_minutes * 60)
    except (ServeError, store.StoreError, live.LiveError) as e:
        raise CommandError(str(e))


COMMANDS = (
    Command("judge", cmd_judge,
            "the judge's console in a browser: the evening on one screen (local web server)",
            "Serve the judge's console: every table of the round with its state, the next "
                "step (import, draw, push, print), players, boxes, paper sheets, corrections, standings and "
                "exports, in Estonian (English by a button). Protected: the one-time code printed here logs "
                "one browser in. Listens on this computer only unless --host says otherwise; `nakk serve` "
                "(the hall's read-only pages) can run beside it on the same database. With --live it also takes "
                "the Pico W boxes' live scores (as `nakk serve --live` does; one of the two per port).",
            db("created if missing"),
            arg("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this computer only)"),
            arg("--port", type=int, default=8081, help="port (default: %(default)s; 0: any free one)"),
            arg("--no-browser", action="store_true", help="do not open the browser"),
            live_scores("the evening page")),
)
