"""`nakk serve`: the hall's live, read-only standings pages (Starlette on uvicorn, Jinja2, server-sent events)."""
