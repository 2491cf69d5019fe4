"""`nakk demo`'s small tournament: created (or reused) in the judge's database, round drawn, the box's assignment.

The demo tells the judge's whole evening with the real pieces: a tournament of the
demo's ruleset with a few made-up entrants (tournament.py, players.py), a round drawn
(draw.py), and the assignment of table 1 (assign.py) that the demo pushes to the
simulated box before the players press anything, so that the synced result lands in
the tournament and the standings count it.
"""

from nakk_host import assign as A
from nakk_host import players as P
from nakk_host import tournament as T
from nakk_host.draw import draw_next

ROUNDS = 3
# Made-up entrants per format, with their players (sasku: a team of four; schmier: teams of two)
ENTRANTS = {
    "stage": [("Mets / Tamm", ["Mari Mets", "Jaan Tamm"]), ("Saar / Kask", ["Liis Saar", "Peeter Kask"])],
    "teams": [("Kuressaare", ["Mari Mets", "Jaan Tamm", "Liis Saar", "Peeter Kask"]),
              ("Orissaare", ["Anu Kuusk", "Toomas Lepp", "Kati Mänd", "Rein Pärn"])],
    "schmier": [("Mets / Tamm", ["Mari Mets", "Jaan Tamm"]), ("Saar / Kask", ["Liis Saar", "Peeter Kask"]),
                ("Kuusk / Lepp", ["Anu Kuusk", "Toomas Lepp"])],
}
FORMAT = {"sasku": "teams", "schmier": "schmier"}   # the Saare mäng rulesets play a stage


def code_of(ruleset):
    return "nakk-demo-" + ruleset


def split_setup(keys_text, parse):
    """(setup presses, the rest) of a demo key script: its first line with presses sets up the
    match by hand (the start wizard), as the scripts' headers say; the demo replaces it with
    one OK on the judge's assignment. parse: simulator.parse_keys."""
    lines = keys_text.splitlines(True)
    for i, line in enumerate(lines):
        if line.split("#", 1)[0].strip():
            # the lines before the rest are kept blank, so that an error names the file's own line
            return parse(line), parse("\n" * (i + 1) + "".join(lines[i + 1:]))
    return [], []


def tournament(conn, ruleset):
    """The demo tournament of this ruleset: (row, created). Created with its entrants when the
    database does not have it yet."""
    code = code_of(ruleset)
    if conn.execute("SELECT 1 FROM tournaments WHERE code=?", (code,)).fetchone():
        return T.get(conn, code), False
    fmt = FORMAT.get(ruleset, "stage")
    t = T.create(conn, "Nakk demo (%s)" % ruleset, ruleset, fmt, ROUNDS, place="the simulator",
                 boards=8 if fmt == "teams" else None, code=code)
    P.add_many(conn, t, [{"name": n, "players": p} for n, p in ENTRANTS[fmt]])
    return t, True


def _played(conn, t, round_no, room):
    return conn.execute("SELECT 1 FROM results WHERE tournament=? AND round_no=? AND table_no=1"
                        " AND COALESCE(room, 0)=?", (t["code"], round_no, room)).fetchone() is not None


def next_table(conn, t):
    """(round, room, drawn now) of the next match the demo plays: table 1 (room 1 in Turniirisasku)
    of the first drawn round without a result there, else of the next round, drawn now.
    TournamentError when every round is played."""
    room = 1 if t["format"] == "teams" else 0
    for (rn,) in conn.execute("SELECT round_no FROM rounds WHERE tournament_id=? ORDER BY round_no", (t["id"],)):
        if not _played(conn, t, rn, room):
            return rn, room, False
    try:
        rn = draw_next(conn, t)[0]
    except T.TournamentError as e:
        raise T.TournamentError("the demo tournament %s cannot play another round (%s); give another --db"
                                % (t["code"], e))
    return rn, room, True


def assignment(conn, t, round_no, room):
    """Table 1's assignment record (assign.assignment), for the box."""
    return A.assignment(conn, t, round_no, 1, room)
