"""The one error every `nakk` command may raise: printed as `nakk: message`, exit status 1 (or .status).

Its own module so that cli.py and the command modules it registers (judge.py,
cli_judge.py, ...) all import it downwards, never from cli.py.
"""


class CommandError(Exception):
    """A user-facing failure: printed as `nakk: message`, exit status 1 (or .status)."""

    def __init__(self, message, status=1):
        Exception.__init__(self, message)
        self.status = status
