"""Turniirisasku team match over two rooms, joined on the judge's side (a pure function of both event lists).

The rules never import this module (arrows point down): it folds each room
with nakk.match and combines the boards. It is core code (it runs on both
interpreters, so the scenario tests check it on MicroPython too) but it is
not needed on the box.
"""

from nakk.event import EventError
from nakk.match import fold
from nakk.rules.sasku import SASKU


def team_match(room_a, room_b):
    """Join two rooms of a Sasku team match, deal by deal (docs/rules.md, Turniirisasku §5, §7).

    room_a, room_b: each a list of events (dicts) of one room, as the boxes
    journaled them. Returns a dict: teams, per-board lines, totals, winner
    (a team name, or None for a draw), unplayed boards, and the checks made.
    Raises EventError when the two rooms do not make one match.
    """
    rooms = {}
    for events in (room_a, room_b):
        m = fold(events)
        setup = m.setup
        if m.rules is not SASKU:
            raise EventError("ruleset", "both rooms must be sasku")
        room = setup.get("room", 1)
        if room in rooms:
            raise EventError("room", "both event lists are room %d" % room)
        teams = []
        for s in setup["sides"]:
            if "team" not in s:
                raise EventError("sides", "each side needs its team in a team match")
            teams.append(s["team"])
        rooms[room] = (m, teams)
    if 1 not in rooms or 2 not in rooms:
        raise EventError("room", "one room 1 and one room 2 are needed")
    m1, t1 = rooms[1]
    m2, t2 = rooms[2]
    if t1[0] == t1[1] or sorted(t1) != sorted(t2):
        raise EventError("sides", "the same two teams must meet in both rooms")
    if t1[0] != t2[1]:
        raise EventError("sides", "each team sits NS in one room and EW in the other")
    if m1.st.board_range != m2.st.board_range:
        raise EventError("boards", "the rooms played different board sets")
    cfg = m1.cfg
    names = (t1[0], t1[1])
    totals = [0, 0]
    lines = []
    unplayed = []
    first, last = m1.st.board_range
    for b in range(first, last + 1):
        r1 = m1.st.boards.get(b)
        r2 = m2.st.boards.get(b)
        if r1 is None or r2 is None:
            unplayed.append(b)
        # points of team names[0] and names[1] in each room
        p1 = (r1[0], r1[1]) if r1 else (0, 0)           # room 1: team 0 is NS (side A)
        p2 = (r2[1], r2[0]) if r2 else (0, 0)           # room 2: team 0 is EW (side B)
        cancelled = None
        if cfg["cancel_other_room_on_offence"] and r1 and r2:
            judged1, judged2 = r1[2] >= 0, r2[2] >= 0
            if judged1 and not judged2:
                cancelled = 2
                p2 = (0, 0)
            elif judged2 and not judged1:
                cancelled = 1
                p1 = (0, 0)
        team = (p1[0] + p2[0], p1[1] + p2[1])
        totals[0] += team[0]
        totals[1] += team[1]
        lines.append({"board": b, "room1": list(p1), "room2": list(p2), "cancelled": cancelled,
                      "points": list(team)})
    winner = None
    if totals[0] != totals[1]:
        winner = names[0] if totals[0] > totals[1] else names[1]
    disq = []
    for m, teams in ((m1, t1), (m2, t2)):
        if m.st.disqualified is not None:
            disq.append(teams[m.st.disqualified])
    if len(disq) == 1:  # T-P2 (TS-07): a removed team forfeits the match
        winner = names[1] if disq[0] == names[0] else names[0]
    return {"teams": list(names), "boards": lines, "totals": totals, "winner": winner,
            "unplayed": unplayed, "disqualified": disq}
