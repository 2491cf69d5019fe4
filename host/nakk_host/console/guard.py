"""The console's door: a one-time code, then a session cookie; CSRF tokens on forms; other origins refused.

Local as it is, the console changes the judge's database, so a page of another
site open in the same browser must not reach it: requests that name another
Origin (or Referer), or a Host that is not this server's, are refused (403);
a change (POST) must carry its form's CSRF token (checked in app.py, where the
form is read) and an Origin or Referer of this server. Sessions live in
memory: restarting `nakk judge` prints a new code and ends every session.
"""

import hmac
import secrets
from urllib.parse import urlsplit

COOKIE = "nakk_judge"
OPEN_PATHS = ("/login", "/static/")


TRIES = 10          # wrong codes before the code is spent: guessing one in a million stays hopeless


class Sessions:
    """The one-time code and the sessions it opened: token -> {csrf, lang}."""

    def __init__(self, code=None):
        self.code = code or "%06d" % secrets.randbelow(10 ** 6)
        self.used = False
        self.wrong = 0
        self.by_token = {}

    def login(self, code):
        """A new session's token if code is the one printed and not used yet; else None. After TRIES
        wrong codes the code is spent too (a restart of `nakk judge` prints a new one)."""
        if self.used:
            return None
        if not hmac.compare_digest(str(code).strip().encode(), self.code.encode()):
            self.wrong += 1
            if self.wrong >= TRIES:
                self.used = True
            return None
        self.used = True
        token = secrets.token_urlsafe(24)
        self.by_token[token] = {"csrf": secrets.token_urlsafe(24), "lang": "et"}
        return token

    def get(self, token):
        return self.by_token.get(token) if token else None

    @staticmethod
    def csrf_ok(session, sent):
        return session is not None and bool(sent) and hmac.compare_digest(str(sent).encode(),
                                                                           session["csrf"].encode())


def _origin(url):
    u = urlsplit(url)
    return "%s://%s" % (u.scheme, u.netloc) if u.scheme and u.netloc else None


class Guard:
    """ASGI: refuses a foreign Host, Origin or Referer; a request without a session is sent to the
    login page (GET) or refused (anything else)."""

    def __init__(self, app, sessions, hosts=None):
        self.app = app
        self.sessions = sessions
        self.hosts = hosts            # the Host values this server answers to (None: any, for tests)

    async def _refuse(self, send, status, text, headers=()):
        body = text.encode("utf-8")
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()), (b"cache-control", b"no-store")]
                    + list(headers)})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        h = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = h.get("host", "")
        if self.hosts is not None and host not in self.hosts:
            return await self._refuse(send, 403, "403: see konsool vastab ainult aadressil %s / this console "
                                      "answers only at %s\n" % (self.hosts[0], self.hosts[0]))
        scheme = scope.get("scheme", "http")
        mine = "%s://%s" % (scheme, host)
        origin = h.get("origin")
        referer = _origin(h.get("referer", "")) if h.get("referer") else None
        if (origin and origin != mine) or (h.get("referer") and referer != mine):
            return await self._refuse(send, 403, "403: päring teiselt lehelt / a request from another site\n")
        method = scope["method"]
        if method not in ("GET", "HEAD") and not (origin or referer):
            return await self._refuse(send, 403, "403: päring ei ütle, kust see tuli / the request names no "
                                      "origin\n")
        path = scope["path"]
        if not any(path == p or (p.endswith("/") and path.startswith(p)) for p in OPEN_PATHS):
            token = None
            for part in h.get("cookie", "").split(";"):
                k, _, v = part.strip().partition("=")
                if k == COOKIE:
                    token = v
            session = self.sessions.get(token)
            if session is None:
                if method in ("GET", "HEAD") and not path.startswith("/api/"):
                    return await self._refuse(send, 303, "sisene: /login\n", [(b"location", b"/login")])
                return await self._refuse(send, 403, "403: sisene esmalt / log in first\n")
            scope.setdefault("state", {})["session"] = session
        await self.app(scope, receive, send)
