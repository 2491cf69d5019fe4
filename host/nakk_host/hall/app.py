"""The hall's web application: routes, the read-only guard, templates and the server-sent event stream.

Every page is a plain HTML page that works with scripting off (it refreshes
itself with a meta refresh inside <noscript>); with scripting on, static/live.js
listens to /events and swaps the page's #live part when the database changes.
Page data is cached per database version, so 100 open pages that all fetch
again after a change cost one read of the database, not a hundred.
"""

import asyncio
import contextlib
import os
import sqlite3
import time
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, PlainTextResponse, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from nakk_host.hall.feed import ChangeFeed
from nakk_host.hall.pages import Pages
from nakk_host.hall.query import Checked, value
from nakk_host.hall.words import COLUMNS, NARROW_HIDDEN, order_words, status_word, word

HERE = os.path.dirname(os.path.abspath(__file__))
SAFE_METHODS = ("GET", "HEAD")


class ReadOnly:
    """ASGI guard: anything but GET and HEAD is refused before it reaches a route (405, in both languages)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            body = ("405: nakk serve on ainult vaatamiseks / is read-only (GET, HEAD)\n").encode("utf-8")
            await send({"type": "http.response.start", "status": 405,
                        "headers": [(b"allow", b"GET, HEAD"), (b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


class Hall:
    """The application for one database: its change feed, page data cache and templates."""

    def __init__(self, db, interval=0.5, page_seconds=10, keepalive=15.0, quiet_s=600.0):
        self.db = db
        self.quiet_s = quiet_s        # a table whose live score has not moved this long is flagged
        self.feed = ChangeFeed(db, interval)
        self.pages = Pages(db)
        self.page_seconds = page_seconds
        self.keepalive = keepalive
        self._cache = {}
        self._cache_version = -1
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
            autoescape=True, trim_blocks=True, lstrip_blocks=True)
        self.starlette = Starlette(routes=[
            Route("/", self.standings_page),
            Route("/season", self.season_page),
            Route("/draw", self.draw_page),
            Route("/tables", self.tables_page),
            Route("/results", self.results_page),
            Route("/match/{result_id:path}", self.match_page),
            Route("/projector", self.projector_page),
            Route("/events", self.events),
            Mount("/static", StaticFiles(directory=os.path.join(HERE, "static")), name="static"),
        ], lifespan=self.lifespan, exception_handlers={sqlite3.Error: self.database_error})
        self.app = ReadOnly(Checked(self.starlette))

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(self, app):
        task = asyncio.get_running_loop().create_task(self.feed.run())
        try:
            yield
        finally:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    # ------------------------------------------------------------ helpers

    async def database_error(self, request, exc):
        """The database went away or is unreadable: say so in plain words (the page tries again later)."""
        text = ("nakk serve: andmebaasi ei saa lugeda / cannot read the database %s: %s\n" % (self.db, exc))
        return PlainTextResponse(text, status_code=503, headers={"Retry-After": "2", "Cache-Control": "no-store"})

    async def data(self, key, fn, *args):
        """fn(*args) in a worker thread, cached until the database changes. Returns (data, version)."""
        version = self.feed.version       # read before the data: a page is never stamped newer than it is
        if version != self._cache_version:
            self._cache = {}
            self._cache_version = version
        hit = self._cache.get((key, args))
        if hit is None:
            hit = await run_in_threadpool(fn, *args)
            if len(self._cache) >= 256:
                self._cache = {}          # bounded: a visitor asking for many ids cannot grow it
            if self._cache_version == version:
                self._cache[(key, args)] = hit
        return hit, version

    def render(self, request, template, version, status=200, **ctx):
        lang = "en" if value(request, "lang") == "en" else "et"

        def url(path, **params):
            q = dict(params)
            if request.query_params.get("t"):
                q.setdefault("t", request.query_params["t"])
            if lang == "en":
                q["lang"] = "en"
            if not q:
                return path
            return path + "?" + urlencode(q)

        other = dict(request.query_params)
        if lang == "en":
            other.pop("lang", None)
        else:
            other["lang"] = "en"
        ctx.update(
            lang=lang, L=1 if lang == "en" else 0, w=lambda k: word(k, lang), url=url,
            col=lambda k: COLUMNS.get(k, (k, k))[1 if lang == "en" else 0], narrow_hidden=NARROW_HIDDEN,
            order_words=lambda order: order_words(order, lang),
            status_word=lambda st: status_word(st, lang),
            other_lang_url=request.url.path + ("?" + urlencode(other) if other else ""),
            since=self.feed.event_id(version), path=request.url.path,
            now=time.strftime("%H:%M"), page_seconds=self.page_seconds)
        html = self.env.get_template(template).render(**ctx)
        return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})

    # ------------------------------------------------------------ pages

    async def results_page(self, request):
        rows, v = await self.data("results", self.pages.results)
        return self.render(request, "results.html", v, results=rows)

    async def match_page(self, request):
        rid = request.path_params["result_id"]
        m, v = await self.data("match", self.pages.match, rid)
        if m is None:
            return self.render(request, "missing.html", v, status=404, result_id=rid)
        return self.render(request, "match.html", v, r=m, m=m["match"])

    def _code(self, request):
        return value(request, "t")

    async def standings_page(self, request):
        d, v = await self.data("standings", self.pages.standings, self._code(request), self._round(request))
        results = None
        if d is None:
            # no tournament yet (a demo, boxes synced before the judge set one up): show what is stored
            results, v = await self.data("results", self.pages.results)
        return self.render(request, "standings.html", v, d=d, results=results)

    async def season_page(self, request):
        d, v = await self.data("season", self.pages.season, self._code(request), value(request, "season"))
        return self.render(request, "season.html", v, d=d)

    def _round(self, request):
        return value(request, "round")

    async def draw_page(self, request):
        d, v = await self.data("tables", self.pages.round_tables, self._code(request), self._round(request))
        return self.render(request, "draw.html", v, d=d)

    async def tables_page(self, request):
        d, v = await self.data("tables", self.pages.round_tables, self._code(request), self._round(request))
        # not cached: the time since each table's last entry moves without a commit
        lv = await run_in_threadpool(self.pages.live, self.quiet_s)
        return self.render(request, "tables.html", v, d=d, live=lv, quiet_s=self.quiet_s)

    async def projector_page(self, request):
        d, v = await self.data("standings", self.pages.standings, self._code(request), None)
        # Without scripting the server pages the rows: `rows` a page, the page refreshing to the next.
        per = value(request, "rows") or 12
        page = value(request, "page") or 1
        n = len(d["standings"]["rows"]) if d else 0
        pages = max(1, (n + per - 1) // per)
        page = min(max(page, 1), pages)
        nxt = page % pages + 1
        params = dict(request.query_params)
        params["page"] = str(nxt)
        return self.render(request, "projector.html", v, d=d, per=per, page=page, pages=pages,
                           next_url=request.url.path + "?" + urlencode(params))

    # ------------------------------------------------------------ live

    async def events(self, request):
        """The change stream: `change` events with ids "<boot>-<version>"; a page that is behind is told at once."""
        last = request.headers.get("last-event-id") or request.query_params.get("since")
        seen = self.feed.seen(last)
        feed = self.feed

        async def stream():
            yield "retry: 1000\n\n"          # reconnect after 1 s when the connection drops
            nonlocal seen
            while True:
                if seen < feed.version:
                    seen = feed.version
                    yield "id: %s\nevent: change\ndata: %d\n\n" % (feed.event_id(seen), seen)
                    continue
                if not await feed.wait(seen, self.keepalive):
                    yield ": still here\n\n"   # keeps proxies and idle timers from closing the stream

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def make_app(db, **kw):
    return Hall(db, **kw)
