"""The draw: who plays whom at which table in the next round, repeatable from a seed.

Saare mäng (and Turniirisasku's teams): a round robin (circle method) when the
whole field can meet within the tournament's rounds, otherwise Swiss: pairs
ranked by the standings so far, paired by networkx's maximum weight matching
so that no two meet again while that is avoidable and pairs meet the nearest
ranks; an odd field gives a bye to the lowest ranked pair that has not had
one. Schmier: tables of three teams by the standings (random in round 1),
avoiding teams that met. Withdrawn and disqualified entrants are left out, and
so are pairs disqualified in the season's previous stage (barred from the
next stage, SM: "ei tohi järgmises etapis osaleda").

The pure functions (round_robin, swiss, threes) take plain lists; draw_next()
reads the database and writes the round.
"""

import random

import networkx as nx

from nakk_host.store import now
from nakk_host.tournament import TournamentError

_BIG = 1 << 40
_REPEAT = 1 << 30


def round_robin(ids, round_no):
    """Pairs of round round_no (1-based) of a circle-method round robin over ids (None: the bye).
    Every pair meets once in len(ids) - 1 rounds (len(ids) rounded up to even)."""
    ids = list(ids)
    if len(ids) % 2:
        ids.append(None)
    n = len(ids)
    r = (round_no - 1) % (n - 1)
    rest = ids[1:]
    rest = rest[-r:] + rest[:-r] if r else rest          # rotate everyone but the first
    line = [ids[0]] + rest
    pairs = []
    for i in range(n // 2):
        a, b = line[i], line[n - 1 - i]
        if a is None:
            a, b = b, a
        pairs.append((a, b))
    # the bye last, so the tables are numbered 1.. without a gap
    pairs.sort(key=lambda p: p[1] is None)
    return pairs


def swiss(ranked, met, had_bye=(), window=12):
    """Swiss pairs for ranked (best first): [(a, b)], b None for the bye.

    met: a set of frozensets of pairs that played each other; had_bye: ids that had a
    bye. A pair costs the square of its rank distance, a repeat a huge penalty, so the
    maximum weight matching avoids every avoidable repeat and then keeps pairs close.
    Edges are built between ranks at most `window` apart first (a 400-pair field stays
    fast); if that cannot pair everyone without a repeat, the whole graph is used."""
    ranked = list(ranked)
    pairs = []
    if len(ranked) % 2:
        bye = None
        for x in reversed(ranked):
            if x not in had_bye:
                bye = x
                break
        if bye is None:
            bye = ranked[-1]
        ranked.remove(bye)
        pairs_bye = [(bye, None)]
    else:
        pairs_bye = []
    n = len(ranked)
    for w in ((window, n) if window < n else (n,)):
        g = nx.Graph()
        g.add_nodes_from(range(n))
        for i in range(n):
            for j in range(i + 1, min(n, i + 1 + w)):
                cost = (j - i) ** 2 + (_REPEAT if frozenset((ranked[i], ranked[j])) in met else 0)
                g.add_edge(i, j, weight=_BIG - cost)
        mate = nx.max_weight_matching(g, maxcardinality=True)
        repeats = sum(1 for i, j in mate if frozenset((ranked[i], ranked[j])) in met)
        if len(mate) * 2 == n and (repeats == 0 or w >= n):
            break
    pairs = [(ranked[min(i, j)], ranked[max(i, j)]) for i, j in mate]
    pairs.sort(key=lambda p: ranked.index(p[0]))
    return pairs + pairs_bye


def threes(ranked, met, rng):
    """Schmier tables of three from ranked (best first): [(a, b, c)], and the left-over teams
    as byes [(x, None, None)]. Teams that met are swapped with a neighbour table where that helps."""
    ranked = list(ranked)
    extra = len(ranked) % 3
    byes = []
    for _ in range(extra):
        byes.append((ranked.pop(), None, None))
    tables = [ranked[i:i + 3] for i in range(0, len(ranked), 3)]

    def clashes(tb):
        return sum(1 for i in range(3) for j in range(i + 1, 3) if frozenset((tb[i], tb[j])) in met)

    for _ in range(3):
        changed = False
        for k in range(len(tables)):
            if not clashes(tables[k]):
                continue
            for k2 in list(range(k + 1, len(tables))) + list(range(k - 1, -1, -1)):
                done = False
                for i in range(3):
                    for j in range(3):
                        a, b = list(tables[k]), list(tables[k2])
                        a[i], b[j] = b[j], a[i]
                        if clashes(a) + clashes(b) < clashes(tables[k]) + clashes(tables[k2]):
                            tables[k], tables[k2] = a, b
                            done = changed = True
                            break
                    if done:
                        break
                if done:
                    break
        if not changed:
            break
    return [tuple(tb) for tb in tables] + byes


# ---------------------------------------------------------------- the database side

def eligible(conn, t):
    """The entrants who play the next round: active, and not barred by a disqualification in
    the season's previous stage. Returns (entrant dicts, barred entrant dicts)."""
    from nakk_host.players import entrants
    every = entrants(conn, t)
    return [e for e in every if e["status"] == "active"], [e for e in every if e["status"] == "barred"]


def _met(conn, t):
    met = set()
    byes = set()
    for a, b, c in conn.execute("SELECT a, b, c FROM draw WHERE tournament_id=?", (t["id"],)):
        if b is None:
            byes.add(a)
            continue
        ids = [x for x in (a, b, c) if x is not None]
        for i in range(len(ids)):
            for j in range(i + 1, len(ids)):
                met.add(frozenset((ids[i], ids[j])))
    return met, byes


def method_for(t, n):
    """round-robin when the field can all meet within the rounds (or the judge said so), else swiss."""
    if t["format"] == "schmier":
        return "schmier"
    if t["draw"] != "auto":
        return t["draw"]
    return "round-robin" if n - 1 + (n % 2) <= t["rounds"] else "swiss"


def draw_next(conn, t, seed=None):
    """Draw and store the next round of tournament t. Returns (round_no, method, seed, barred).

    A round-robin round is known in advance, so it may be drawn before the previous
    round is in (a table that finishes early does not wait); a Swiss or Schmier round
    needs the standings, so every counted result of the previous round must be in."""
    from nakk_host import standings as S
    last = S.current_round(conn, t)
    round_no = last + 1
    if round_no > t["rounds"]:
        raise TournamentError("%s has %d rounds, all drawn" % (t["code"], t["rounds"]))
    ents, barred = eligible(conn, t)
    if len(ents) < (3 if t["format"] == "schmier" else 2):
        raise TournamentError("not enough entrants to draw (%d active)" % len(ents))
    if seed is None:
        seed = random.SystemRandom().randrange(1, 1 << 31)
    rng = random.Random("%s/%d/%d" % (t["code"], round_no, seed))
    method = method_for(t, len(ents))
    ids_by_no = [e["id"] for e in ents]
    if method == "round-robin" and round_no > 1:
        # the schedule hangs on round 1's field: a late entry or a withdrawal breaks it, and Swiss
        # (which avoids repeats) takes over from here
        first_field = set()
        for a, b in conn.execute("SELECT a, b FROM draw WHERE tournament_id=? AND round_no=1", (t["id"],)):
            first_field.update(x for x in (a, b) if x is not None)
        if first_field != set(ids_by_no):
            method = "swiss"
    if method == "round-robin":
        # the whole schedule hangs on one order of the field, fixed by round 1's seed
        if round_no == 1:
            order = list(ids_by_no)
            rng.shuffle(order)
        else:
            first = conn.execute("SELECT seed FROM rounds WHERE tournament_id=? AND round_no=1",
                                 (t["id"],)).fetchone()
            order = list(ids_by_no)
            random.Random("%s/%d/%d" % (t["code"], 1, first[0])).shuffle(order)
            seed = first[0]
        pairs = round_robin(order, round_no)
        tables = [(a, b, None) for a, b in pairs]
    else:
        if last:
            pending = [m for m in S.matches(conn, t, last) if not m["counted"]]
            if pending:
                raise TournamentError("round %d is not in yet: table%s %s (%s); a %s draw needs its standings"
                                      % (last, "s" if len(pending) > 1 else "",
                                         ", ".join(str(m["table"]) for m in pending),
                                         ", ".join(sorted(set(m["state"] for m in pending))), method))
            rows = S.standings(conn, t)["rows"]
            rank = {r["no"]: i for i, r in enumerate(rows)}
            ranked = sorted(ents, key=lambda e: rank.get(e["no"], len(rank)))
            ranked = [e["id"] for e in ranked]
        else:
            ranked = list(ids_by_no)
            rng.shuffle(ranked)
        met, byes = _met(conn, t)
        if method == "schmier":
            tables = threes(ranked, met, rng)
        else:
            tables = [(a, b, None) for a, b in swiss(ranked, met, byes)]
    with conn:
        conn.execute("INSERT INTO rounds (tournament_id, round_no, method, seed, drawn_at) VALUES (?,?,?,?,?)",
                     (t["id"], round_no, method, seed, now()))
        for i, (a, b, c) in enumerate(tables):
            table_no = i + 1
            if t["format"] == "teams":
                first = (round_no - 1) * t["boards"] + 1
                last_b = round_no * t["boards"]
                # room 1: team a's pair 1 NS (side A) against team b's pair 2; room 2 the other way round
                conn.execute("INSERT INTO draw (tournament_id, round_no, table_no, room, a, b, first_board,"
                             " last_board) VALUES (?,?,?,?,?,?,?,?)", (t["id"], round_no, table_no, 1, a, b,
                                                                       first, last_b))
                if b is not None:
                    conn.execute("INSERT INTO draw (tournament_id, round_no, table_no, room, a, b, first_board,"
                                 " last_board) VALUES (?,?,?,?,?,?,?,?)", (t["id"], round_no, table_no, 2, b, a,
                                                                           first, last_b))
            else:
                conn.execute("INSERT INTO draw (tournament_id, round_no, table_no, room, a, b, c) VALUES"
                             " (?,?,?,?,?,?,?)", (t["id"], round_no, table_no, 0, a, b, c))
    return round_no, method, seed, barred


def draw_round(conn, t, round_no, seed=None):
    """Draw round `round_no`, which must be the next one: a form sent twice (a double click, a page
    sent again) does not draw two rounds. Returns what draw_next returns."""
    from nakk_host import standings as S
    last = S.current_round(conn, t)
    if round_no != last + 1:
        raise TournamentError("round %d is drawn already (the latest drawn is %d)" % (round_no, last)
                              if round_no <= last else "round %d cannot be drawn before round %d"
                              % (round_no, last + 1))
    return draw_next(conn, t, seed)
