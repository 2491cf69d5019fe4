"""The judge's console as a Starlette application: pages, the one POST door (CSRF checked), print pages, live JSON.

Every change goes through POST /do/{action}: the form's CSRF token is checked
before anything is read from the database, then actions.py (or sheets.py)
calls the modules the CLI calls. A refused form is shown again with the
message beside its field (400); a done one redirects with its message (303).
"""

import os
import re
import sqlite3
import types

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from nakk_host import store
from nakk_host import tournament as T
from nakk_host.console import actions as X
from nakk_host.console import evening, pages, sheets
from nakk_host.console import watch as W
from nakk_host.console.guard import COOKIE, Guard, Sessions

HERE = os.path.dirname(os.path.abspath(__file__))


class Console:
    """The application for one database: sessions, the watcher, templates."""

    def __init__(self, db, sessions=None, watcher=None, hosts=None, judge=None, quiet_s=600.0):
        self.db = db
        self.quiet_s = quiet_s        # a table whose live score has not moved this long is flagged
        self.sessions = sessions or Sessions()
        self.watcher = watcher or W.NoWatcher()
        self.judge = judge
        self.env = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
                                      autoescape=True, trim_blocks=True, lstrip_blocks=True)
        self.starlette = Starlette(routes=[
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/do/{action}", self.do, methods=["POST"]),
            Route("/api/state", self.api_state),
            Route("/export/{name}", self.export),
            Route("/print/{what}", self.print_page),
            Route("/{page:path}", self.page),
            Mount("/static", StaticFiles(directory=os.path.join(HERE, "static")), name="static"),
        ], exception_handlers={sqlite3.Error: self.database_error})
        self.starlette.router.routes.insert(0, self.starlette.router.routes.pop())   # /static before /{page}
        self.app = Guard(self.starlette, self.sessions, hosts)

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)

    async def database_error(self, request, exc):
        return PlainTextResponse("nakk judge: andmebaasi ei saa kasutada / cannot use the database %s: %s\n"
                                 % (self.db, exc), status_code=503)

    # ------------------------------------------------------------ helpers

    def context(self, request):
        """The database and the session's tournament and judge for one request (in a worker thread)."""
        s = request.scope["state"]["session"]
        conn = store.open_db(self.db, create=False)
        try:
            t = T.get(conn, s.get("t"))
        except T.TournamentError:
            t = None
        return types.SimpleNamespace(conn=conn, t=t, db=self.db, session=s, by=s.get("by") or self.judge,
                                     lang=s.get("lang", "et"), watcher=self.watcher, quiet_s=self.quiet_s)

    def render(self, template, lang, status=200, session=None, **ctx):
        L = 1 if lang == "en" else 0
        errors = ctx.get("errors") or {}
        values = ctx.get("values") or {}
        ctx.update(lang=lang, L=L, _=lambda et, en: en if L else et, csrf=session["csrf"] if session else "",
                   E=lambda form: errors if errors.get("_form") == form else {},
                   V=lambda form: values if errors.get("_form") == form or values.get("_form") == form else {},
                   flash=session.pop("flash", None) if session else None)
        html = self.env.get_template(template).render(**ctx)
        return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store"})

    # ------------------------------------------------------------ login

    async def login(self, request):
        lang = "en" if request.query_params.get("lang") == "en" else "et"
        pre = request.cookies.get("nakk_login")
        if request.method == "GET":
            import secrets
            # kept while it lasts: a second GET (the browser's favicon request sent here too) must
            # not make the open login form stale
            pre = pre if pre and re.fullmatch(r"[\w-]{22}", pre) else secrets.token_urlsafe(16)
            r = self.render("login.html", lang, pre=pre, error=None)
            r.set_cookie("nakk_login", pre, httponly=True, samesite="strict", path="/login")
            return r
        form = await request.form()
        if not pre or form.get("pre") != pre:
            return PlainTextResponse("403: vale vorm / wrong form\n", status_code=403)
        token = self.sessions.login(form.get("code") or "")
        if token is None:
            r = self.render("login.html", lang, status=400, pre=pre,
                            error=("Vale või juba kasutatud kood: vaata käsurida, kus käivitasid nakk judge",
                                   "Wrong or used code: see the command line where nakk judge runs"))
            return r
        s = self.sessions.get(token)
        s["by"] = (form.get("by") or "").strip() or self.judge
        s["lang"] = lang
        r = RedirectResponse("/", status_code=303)
        # kept through a closed browser for the evening (the server's memory ends it at any restart)
        r.set_cookie(COOKIE, token, max_age=14 * 3600, httponly=True, samesite="strict", path="/")
        return r

    # ------------------------------------------------------------ pages

    async def page(self, request):
        path = "/" + request.path_params["page"]
        if path not in pages.PAGES:
            return PlainTextResponse("404: sellist lehte pole / no such page\n", status_code=404)
        return await run_in_threadpool(self._page, request, path, None, None, 200)

    def _page(self, request, path, errors, values, status, extra=None):
        c = self.context(request)
        try:
            data = pages.PAGES[path](c, dict(request.query_params) if values is None else values)
            if extra:
                data.update(extra)
            return self.render(data.pop("template"), c.lang, status, c.session, path=path, t=c.t,
                               errors=errors or {}, values=values or {}, **data)
        finally:
            c.conn.close()

    async def api_state(self, request):
        def read():
            c = self.context(request)
            try:
                return evening.state(c.conn, c.t, self.watcher, c.lang, c.quiet_s)
            finally:
                c.conn.close()
        return Response(evening.as_json(await run_in_threadpool(read)), media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    async def print_page(self, request):
        what = request.path_params["what"]
        if what not in pages.PRINTS:
            return PlainTextResponse("404\n", status_code=404)

        def make():
            c = self.context(request)
            try:
                data = pages.PRINTS[what](c, dict(request.query_params))
            except T.TournamentError:
                return PlainTextResponse("404: sellist vooru pole / no such round\n", status_code=404)
            finally:
                c.conn.close()
            return self.render(data.pop("template"), c.lang, 200, None, t=c.t, **data)
        return await run_in_threadpool(make)

    async def export(self, request):
        def make():
            c = self.context(request)
            try:
                return pages.export(c, request.path_params["name"], dict(request.query_params))
            finally:
                c.conn.close()
        got = await run_in_threadpool(make)
        if got is None:
            return PlainTextResponse("404\n", status_code=404)
        body, kind, name = got
        return Response(body, media_type=kind, headers={"Content-Disposition": 'attachment; filename="%s"' % name})

    # ------------------------------------------------------------ changes

    async def do(self, request):
        action = request.path_params["action"]
        form = await request.form()
        session = request.scope["state"]["session"]
        if not Sessions.csrf_ok(session, form.get("csrf")):
            return PlainTextResponse("403: vorm on aegunud või võõras (CSRF): ava leht uuesti / the form is stale "
                                     "or foreign (CSRF): open the page again\n", status_code=403)
        values = {k: v for k, v in form.items() if isinstance(v, str)}
        upload = form.get("file")
        raw = await upload.read() if upload is not None and not isinstance(upload, str) else None
        return await run_in_threadpool(self._do, request, action, values, raw)

    def _do(self, request, action, values, raw):
        session = request.scope["state"]["session"]
        if action == "lang":
            session["lang"] = "en" if values.get("lang") == "en" else "et"
            return RedirectResponse(values.get("back") or "/", status_code=303)
        if action == "logout":
            self.sessions.by_token = {k: v for k, v in self.sessions.by_token.items() if v is not session}
            return RedirectResponse("/login", status_code=303)
        c = self.context(request)
        back = "/"
        try:
            if action == "players_preview":
                back = "/players"
                if c.t is None:
                    raise X.FieldError("file", "loo enne turniir", "create a tournament first")
                preview = X.players_preview(c, values, raw)
                c.conn.close()
                return self._page(request, "/players", None, dict(values, _form=action), 200, {"preview": preview})
            if action == "sheet":
                back = "/enter"
                rn, tb, room = (X.need(values, k, k, k, number=True) for k in ("round", "table", "room"))
                msg = sheets.act(c.conn, c.t, rn, tb, room, values, c.by)
                to = "/enter?round=%d&table=%d&room=%d" % (rn, tb, room) if values.get("what") not in (
                    "store", "discard") else "/enter"
            elif action in X.ACTIONS:
                back = X.PAGE_OF[action]
                if c.t is None and not action.startswith("tournament"):
                    raise X.FieldError("name", "loo enne turniir", "create a tournament first")
                msg, to = X.ACTIONS[action](c, values, raw) if action == "close" else X.ACTIONS[action](c, values)
            else:
                return PlainTextResponse("404: tundmatu tegevus / unknown action\n", status_code=404)
        except X.FieldError as e:
            c.conn.close()
            return self._page(request, back, {e.field: (e.et, e.en), "_form": action}, values, 400)
        c.conn.close()
        session["flash"] = msg
        return RedirectResponse(to, status_code=303)


def make_app(db, **kw):
    return Console(db, **kw)
