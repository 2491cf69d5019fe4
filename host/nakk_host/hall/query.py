"""The hall's query parameters: what each may hold, checked before any page is made (a bad value is a 400 in plain words).

Every page reads its parameters through value(); a request whose query holds
a bad value for a known name (`?round=²`, 5 000 digits, a negative, an empty
number) never reaches a page. Names the hall does not know are left alone
(a link shared with tracking parameters still opens).
"""

from starlette.datastructures import QueryParams
from starlette.responses import PlainTextResponse


def _whole(lo, hi):
    def check(v):
        # ASCII digits only ("²".isdigit() is true), and few of them: int() of 5 000 digits raises
        if not (v.isascii() and v.isdigit()) or len(v) > len(str(hi)):
            return None
        n = int(v)
        return n if lo <= n <= hi else None
    return check


def _text(most):
    def check(v):
        return v if len(v) <= most else None
    return check


def _lang(v):
    return v if v in ("et", "en") else None


def _event_id(v):
    # "<boot>-<version>" as hall.feed makes them; empty: the page has seen none (live.js sends it so)
    boot, dash, n = v.partition("-")
    if v == "" or (len(v) <= 40 and dash and boot.isascii() and boot.isalnum() and _whole(0, 10 ** 12)(n) is not None):
        return v
    return None


# name -> (what it must be, in words; its check: the value it stands for, or None when it is bad)
PARAMS = {
    "round": ("a round number, 1 to 999", _whole(1, 999)),
    "rows": ("rows a page, 1 to 200", _whole(1, 200)),
    "page": ("a page number, 1 to 9999", _whole(1, 9999)),
    "t": ("a tournament code of at most 64 characters", _text(64)),
    "season": ("a season's name of at most 100 characters", _text(100)),
    "lang": ("et or en", _lang),
    "since": ("an event id this server gave", _event_id),
}


def problem(query_params):
    """What is wrong with a query (a short sentence), or None when every known value is good."""
    for name, v in query_params.multi_items():
        rule = PARAMS.get(name)
        if rule is not None and rule[1](v) is None:
            return "%s: %s" % (name, rule[0])
    return None


def value(request, name):
    """The checked value of a query parameter (an int for numbers), or None when it is absent or empty text."""
    v = request.query_params.get(name)
    if v is None or v == "":
        return None
    return PARAMS[name][1](v)


class Checked:
    """ASGI guard: a request with a bad query value gets 400 and one line saying which, before any route."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            why = problem(QueryParams(scope.get("query_string", b"")))
            if why is not None:
                resp = PlainTextResponse("400: vigane päring / bad query: %s\n" % why, status_code=400,
                                         headers={"Cache-Control": "no-store"})
                await resp(scope, receive, send)
                return
        await self.app(scope, receive, send)
