"""The table of `nakk` commands: each command is one `Command` (name, help, description, its arguments,
the function that runs it), and the options several commands share are here once. cli.py builds the
argparse parser from the modules' COMMANDS tuples. Touches argparse only (and the environment for defaults).

Adding a command is one entry:

    Command("hello", cmd_hello, "one line for `nakk --help`", "what `nakk hello --help` says",
            arg("name", help="who"), db(), tournament())

An entry of COMMANDS may also be any function that takes the subparsers and adds a command.
"""

import os


def arg(*flags, **kw):
    """One argument, as argparse's add_argument takes it."""
    return lambda p: p.add_argument(*flags, **kw)


def group(title, *args):
    """Arguments shown under their own heading in --help."""
    def add(p):
        g = p.add_argument_group(title)
        for a in args:
            a(g)
    return add


def either(*args):
    """Arguments of which at most one may be given."""
    def add(p):
        g = p.add_mutually_exclusive_group()
        for a in args:
            a(g)
    return add


class Command:
    """A `nakk` subcommand: calling it with the subparsers adds it (so a COMMANDS tuple mixes these and
    plain functions)."""

    def __init__(self, name, func, help, description, *args):
        self.name, self.func, self.help, self.description, self.args = name, func, help, description, args

    def __call__(self, sub):
        p = sub.add_parser(self.name, help=self.help, description=self.description)
        for a in self.args:
            a(p)
        p.set_defaults(func=self.func)
        return p


# ---------------------------------------------------------------- the options several commands share

def db(note=None, after=""):
    """--db: $NAKK_DB or ./nakk.db, as it is when the parser is built; note goes in the brackets, after behind."""
    def add(p):
        from nakk_host import store
        p.add_argument("--db", default=store.default_db(), metavar="FILE",
                       help="the judge's database (%s%s)%s" % (store.default_help(), "; " + note if note else "", after))
    return add


def tournament():
    return arg("-t", "--tournament", metavar="CODE", help="tournament code (default: the latest created)")


def live_scores(shows):
    """--live HOST:PORT and --quiet-minutes N of the two commands that take live scores from Pico W boxes
    (`nakk serve`, `nakk judge`: live.listen starts the server); shows: where the tables are shown."""
    def add(p):
        p.add_argument("--live", metavar="HOST:PORT",
                       help="also take live scores from Pico W boxes there (the hall network's address of this "
                            "laptop and a port, as given to the boxes at nakk pair --live; docs/live.md)")
        p.add_argument("--quiet-minutes", type=float, default=10, metavar="N",
                       help="%s flags a table whose live score has not moved for N minutes (default: %%(default)s)"
                            % shows)
    return add


def judged(creates=False):
    """--db and -t, as the commands of the judge's day have them (`tournament new` has no -t)."""
    def add(p):
        db("`tournament new` creates it" if creates else None)(p)
        if not creates:
            tournament()(p)
    return add


def who(required=True, which=None):
    """--by and --why, kept in the history. --by may come from $NAKK_JUDGE, so the command checks it;
    --why is required by argparse where every use of the command needs it (which: the actions that do)."""
    def add(p):
        what = "required for %s" % which if which else "required"
        g = p.add_argument_group("%s: who and why (kept in the history)" % what)
        judge = os.environ.get("NAKK_JUDGE")
        g.add_argument("--by", metavar="NAME", default=judge,
                       help="who does this (%s; %s)" % (what, "default: %s, from $NAKK_JUDGE" % judge if judge
                                                         else "or set $NAKK_JUDGE"))
        g.add_argument("--why", metavar="TEXT", required=required, help="why (%s)" % what)
    return add
