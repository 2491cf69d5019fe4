"""Match folding tests (order, undo, locking, closing), run on CPython and MicroPython from this same file."""

from nakk.event import EventError
from nakk.match import Match, fold, read_lines

SETUP = {"seq": 1, "type": "setup", "v": 1, "ruleset": "saare-2020",
         "sides": [{"id": "A", "name": "Mets/Tamm"}, {"id": "B", "name": "Saar/Kask"}]}


def deal(seq, winner="A", result="win", game="suit", maker="A"):
    return {"seq": seq, "type": "deal", "game": game, "maker": maker, "result": result, "winner": winner}


def rejected(m, ev, field=None):
    before = m.summary()
    try:
        m.apply(ev)
    except EventError as e:
        if field is not None:
            assert e.field == field, (e.field, str(e))
        assert m.summary() == before, "a rejected event changed the match"
        return str(e)
    raise AssertionError("accepted %r" % (ev,))


def test_first_event_is_setup_and_seq_is_contiguous():
    m = Match()
    rejected(m, deal(1), "type")
    m.apply(dict(SETUP))
    rejected(m, deal(3), "seq")
    rejected(m, dict(SETUP, seq=2), "type")
    m.apply(deal(2))
    assert m.summary()["score"] == [2, 0]


def test_setup_is_checked():
    for ev, field in (
        (dict(SETUP, ruleset="bridge"), "ruleset"),
        (dict(SETUP, v=3), "v"),
        (dict(SETUP, v=0), "v"),
        (dict(SETUP, sides=[{"id": "A", "name": "x"}]), "sides"),
        (dict(SETUP, settings={"target": 1}), "settings.target"),
        (dict(SETUP, settings={"no_such": 1}), "settings.no_such"),
        (dict(SETUP, settings={"sohk_policy": True}), "settings.sohk_policy"),
        (dict(SETUP, first_shuffler=4), "first_shuffler"),
        (dict(SETUP, seats=["a", "b"]), "seats"),
    ):
        rejected(Match(), ev, field)


def test_cancel_undoes_only_the_latest_entry_and_restores_the_state():
    m = fold([dict(SETUP), deal(2), deal(3, "B", "jann", "ruutu", "B")])
    assert m.summary()["score"] == [2, 6]
    rejected(m, {"seq": 4, "type": "cancel", "target": 2}, "target")
    m.apply({"seq": 4, "type": "cancel", "target": 3})
    assert m.summary()["score"] == [2, 0]
    m.apply({"seq": 5, "type": "cancel", "target": 2})
    assert m.summary()["score"] == [0, 0]
    rejected(m, {"seq": 6, "type": "cancel", "target": 2}, "target")
    m.apply(deal(6, "B"))
    assert m.summary()["score"] == [0, 4]
    assert m.summary()["deals"] == 1


def test_an_undo_takes_back_the_copy_kept_before_the_entry_without_reading_history():
    events = [dict(SETUP), deal(2), deal(3, "B", "jann", "ruutu", "B")]
    reads = []

    def history():
        reads.append(1)
        return iter(events)

    m = Match(history)
    for ev in events:
        m.apply(ev)
        m.keep_undo()                       # as the table does once each entry is on flash
    m.apply({"seq": 4, "type": "cancel", "target": 3})
    assert reads == [] and m.summary()["score"] == [2, 0]
    # no copy of the state before seq 2 is left: this undo folds the match from history
    events.append({"seq": 4, "type": "cancel", "target": 3})
    m.apply({"seq": 5, "type": "cancel", "target": 2})
    assert reads == [1] and m.summary()["score"] == [0, 0]


def test_a_copy_kept_by_keep_undo_is_not_changed_by_later_entries():
    m = fold([dict(SETUP), deal(2)])
    m.keep_undo()
    m.apply(deal(3, "B", "jann", "ruutu", "B"))
    m.keep_undo()
    m.apply(deal(4, "B"))
    m.keep_undo()
    # copies at seq 3 and 4; the one at 2 (score 2:0) has been dropped for the newer ones
    assert [s[0] for s in m._snaps] == [3, 4]
    assert m._snaps[0][1].score == [2, 6] and m._snaps[1][1].score == [2, 10]
    m.apply({"seq": 5, "type": "cancel", "target": 4})
    assert m.summary()["score"] == [2, 6] and m._snaps == []


def test_cancel_restores_pokk_and_shuffler():
    m = fold([dict(SETUP), deal(2), {"seq": 3, "type": "deal", "game": "ruutu", "maker": "B", "result": "pokk"}])
    s = m.summary()
    assert s["pokk"] == 1 and s["shuffler"] == 2
    m.apply({"seq": 4, "type": "cancel", "target": 3})
    s = m.summary()
    assert s["pokk"] == 0 and s["shuffler"] == 1 and "replay" not in s
    m.apply({"seq": 5, "type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A"})
    assert m.summary()["score"] == [4, 0]


def test_replay_must_keep_the_contract():
    m = fold([dict(SETUP), {"seq": 2, "type": "deal", "game": "ruutu", "maker": "B", "result": "pokk"}])
    rejected(m, deal(3, game="suit", maker="B"), "game")
    rejected(m, deal(3, game="ruutu", maker="A"), "maker")
    rejected(m, {"seq": 3, "type": "redeal", "reason": "no-picture"}, "reason")
    m.apply({"seq": 3, "type": "redeal", "reason": "misdeal"})
    assert m.summary()["pokk"] == 1


def test_confirm_dispute_and_lock():
    events = [dict(SETUP)]
    for i in range(8):
        events.append(deal(len(events) + 1))
    m = fold(events)
    s = m.summary()
    assert s["over"] and s["winner"] == "A" and s["final"] == [18, 0]  # 16 + prillid
    n = len(events) + 1
    rejected(m, deal(n), "")
    m.apply({"seq": n, "type": "confirm", "by": "A"})
    rejected(m, {"seq": n + 1, "type": "confirm", "by": "A"}, "by")
    m.apply({"seq": n + 1, "type": "dispute", "by": "B", "reason": "deal 5 was ours"})
    assert m.locked()
    rejected(m, {"seq": n + 2, "type": "cancel", "target": n - 1}, "type")
    m.apply({"seq": n + 2, "type": "synced", "hash": "ab"})
    rejected(m, {"seq": n + 3, "type": "confirm", "by": "A"}, "type")


def test_confirm_only_when_over_and_cancel_clears_confirmations():
    m = fold([dict(SETUP), deal(2)])
    rejected(m, {"seq": 3, "type": "confirm", "by": "A"}, "type")
    events = [dict(SETUP)] + [deal(i) for i in range(2, 10)]
    m = fold(events)
    m.apply({"seq": 10, "type": "confirm", "by": "A"})
    m.apply({"seq": 11, "type": "cancel", "target": 9})
    s = m.summary()
    assert s["confirmed"] == [] and not s["over"] and s["score"] == [14, 0]


def test_forfeit_and_close():
    m = fold([dict(SETUP), deal(2), {"seq": 3, "type": "forfeit", "by": "A", "reason": "left the hall"}])
    s = m.summary()
    assert s["over"] and s["winner"] == "B" and s["ended"] == "forfeit"
    m = fold([dict(SETUP), deal(2), {"seq": 3, "type": "close", "reason": "box broke; rescued by the judge"}])
    s = m.summary()
    assert s["over"] and s["winner"] is None and s["ended"] == "closed" and s["score"] == [2, 0]
    rejected(m, {"seq": 4, "type": "close", "reason": "again"}, "type")


def test_synced_only_when_over():
    m = fold([dict(SETUP), deal(2)])
    rejected(m, {"seq": 3, "type": "synced"}, "type")


def test_read_lines_reports_the_line_and_stops():
    lines = [
        '{"seq":1,"type":"setup","v":1,"ruleset":"saare-2020","sides":[{"id":"A","name":"a"},{"id":"B","name":"b"}]}',
        "",
        '{"seq":2,"type":"deal","game":"suit","maker":"A","result":"win","winner":"A"}',
        '{"seq":3,"type":"deal","game":"suit","maker":"A","result":"jann","winner":"A","eyes":[75,45]}',
        '{"seq":4,"type":"deal","game":"suit","maker":"A","result":"win","winner":"A"}',
    ]
    m, err = read_lines(lines)
    assert err is not None
    n, e = err
    assert n == 4 and e.field == "result" and "win" in e.reason
    assert m.summary()["score"] == [2, 0] and m.seq == 2


def test_read_lines_bytes_bom_and_text_that_is_not_utf8():
    setup = b'{"seq":1,"type":"setup","v":1,"ruleset":"saare-2020","sides":[{"id":"A","name":"a"},{"id":"B","name":"b"}]}'
    deal2 = b'{"seq":2,"type":"deal","game":"suit","maker":"A","result":"win","winner":"A"}'
    # a UTF-8 byte-order mark before the first line (Notepad) is not part of the event
    m, err = read_lines([b"\xef\xbb\xbf" + setup + b"\n", deal2 + b"\n"])
    assert err is None and m.seq == 2
    m, err = read_lines(["\ufeff" + setup.decode(), deal2.decode()])
    assert err is None and m.seq == 2
    # ...but only at the start of the file
    m, err = read_lines([setup, b"\xef\xbb\xbf" + deal2])
    assert err is not None and err[0] == 2
    # a Latin-1 note on line 3: reported by line, byte and column; nothing after it applied
    bad = b'{"seq":3,"type":"redeal","reason":"misdeal","note":"K\xe4si"}'
    m, err = read_lines([setup, deal2, bad, b'{"seq":4,"type":"confirm","by":"A"}'])
    assert err is not None
    assert err[0] == 3 and err[1].reason == "not UTF-8 text (byte 0xE4 at column 54)", err[1].reason
    assert m.seq == 2


def test_contradicting_detail_is_rejected():
    m = fold([dict(SETUP)])
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "karvane", "winner": "A",
                 "eyes": [100, 20], "tricks": [7, 2]}, "result")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "B",
                 "eyes": [70, 50]}, "winner")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "eyes": [70, 40]}, "eyes")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "eyes": [10, 110], "tricks": [0, 9]}, "eyes")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "pokk", "winner": "A"}, "winner")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "capture", "capture": "A"}, "capture")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A"}, "result")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "win"}, "winner")
    rejected(m, {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "win", "winner": "A", "colour": 1}, "colour")
    # karvane entered with eyes only: accepted when the losers hold no eyes
    m.apply({"seq": 2, "type": "deal", "game": "suit", "maker": "A", "result": "karvane", "winner": "A", "eyes": [120, 0]})
    assert m.summary()["marks"] == [1, 0]


def test_penalty_is_clipped_and_ends_the_partii():
    m = fold([dict(SETUP), {"seq": 2, "type": "adjust", "side": "B", "points": 14, "reason": "x"},
              {"seq": 3, "type": "penalty", "offence": "shuffle", "by": "A"}])
    s = m.summary()
    assert s["score"] == [0, 16] and s["over"] and s["winner"] == "B" and s["ended"] == "penalty"


def test_misdeal_twice_must_be_the_dealers_pair():
    m = fold([dict(SETUP, first_shuffler=1)])
    rejected(m, {"seq": 2, "type": "penalty", "offence": "misdeal-twice", "by": "A"}, "by")
    m.apply({"seq": 2, "type": "penalty", "offence": "misdeal-twice", "by": "B"})
    assert m.summary()["score"] == [2, 0] and m.summary()["shuffler"] == 2


def test_classic_has_no_misdeal_penalty_and_no_pits():
    m = fold([dict(SETUP, ruleset="saare-classic")])
    rejected(m, {"seq": 2, "type": "penalty", "offence": "misdeal-twice", "by": "A"}, "offence")
    rejected(m, deal(2, game="valge-pits"), "game")


def test_classic_has_no_misdeal_setting_that_does_nothing():
    # the classic text has no second-misdeal penalty (L4): no offence, so no setting pretending to one
    from nakk import rules
    assert rules.get("saare-classic").setting("misdeal_twice_penalty") is None
    assert rules.get("saare-2020").setting("misdeal_twice_penalty").default == 2
    m = Match()
    rejected(m, dict(SETUP, ruleset="saare-classic", settings={"misdeal_twice_penalty": 2}),
             "settings.misdeal_twice_penalty")
    # in 2020 the setting is the offence's size
    m = fold([dict(SETUP, first_shuffler=1, settings={"misdeal_twice_penalty": 3})])
    m.apply({"seq": 2, "type": "penalty", "offence": "misdeal-twice", "by": "B"})
    assert m.summary()["score"] == [3, 0]


def test_every_offence_offered_is_accepted_under_the_defaults():
    # what the box lists in its penalty menu, the rules take (by the dealer's pair, at the start)
    from nakk import rules
    for name in ("saare-2020", "saare-classic"):
        r = rules.get(name)
        for o in r.offences:
            m = fold([dict(SETUP, ruleset=name)])
            m.apply({"seq": 2, "type": "penalty", "offence": o[0], "by": "A"})
            assert m.seq == 2, (name, o[0])


def test_ulekula_policy():
    m = fold([dict(SETUP, settings={"all_pass_policy": "ulekula-ruutu"})])
    rejected(m, {"seq": 2, "type": "redeal", "reason": "all-pass"}, "reason")
    m.apply({"seq": 2, "type": "deal", "game": "ulekula", "eyes": [50, 70]})
    assert m.summary()["score"] == [0, 2]
    rejected(Match(), dict(SETUP, settings={"all_pass_policy": "sometimes"}), "settings.all_pass_policy")


def test_sohk_forfeit_partii_setting():
    m = fold([dict(SETUP, settings={"sohk_policy": "forfeit-partii"}),
              {"seq": 2, "type": "deal", "game": "suit", "maker": "A", "sohk": "A"}])
    s = m.summary()
    assert s["over"] and s["winner"] == "B" and s["ended"] == "sohk"


def test_forfeit_and_sohk_that_forfeits_pay_the_same_end_bonuses():
    # every value of forfeit_end_bonuses, every way the marks and nakks fall: the two ways of giving up agree
    karvane = {"type": "deal", "game": "ruutu", "maker": "A", "result": "karvane", "winner": "A"}
    b_karvane = {"type": "deal", "game": "ruutu", "maker": "B", "result": "karvane", "winner": "B"}
    b_win = {"type": "deal", "game": "suit", "maker": "B", "result": "win", "winner": "B"}
    seen = set()
    for ruleset in ("saare-2020", "saare-classic"):
        for value in ("all", "karvane", "none"):
            for deals in ([karvane], [karvane, b_win], [b_karvane, karvane], []):
                out = []
                for end in ({"type": "forfeit", "by": "B"}, {"type": "deal", "game": "suit", "maker": "B", "sohk": "B"}):
                    evs = [dict(SETUP, ruleset=ruleset,
                                settings={"forfeit_end_bonuses": value, "sohk_policy": "forfeit-partii"})]
                    evs += [dict(d) for d in deals] + [dict(end)]
                    for i, e in enumerate(evs):
                        e["seq"] = i + 1
                    s = fold(evs).summary()
                    out.append((s["winner"], s["score"], s["bonus"], s["final"]))
                assert out[0] == out[1], (ruleset, value, deals, out)
                seen.add((value, tuple(out[0][2])))
    # and the setting changes something: all differ where prillid and a mark are both due
    assert ("all", (3, 0)) in seen and ("karvane", (1, 0)) in seen and ("none", (0, 0)) in seen


def test_schmier_tie_settings():
    setup = {"seq": 1, "type": "setup", "v": 1, "ruleset": "schmier",
             "sides": [{"id": "A", "name": "a"}, {"id": "B", "name": "b"}, {"id": "C", "name": "c"}]}
    hand = {"seq": 5, "type": "deal", "bidder": "A", "bid": 4, "high": "A", "low": "B", "right": "B",
            "left": "C", "joker": "C", "game": "C"}
    before = [{"seq": 2, "type": "adjust", "side": "A", "points": 15, "reason": "x"},
              {"seq": 3, "type": "adjust", "side": "B", "points": 19, "reason": "x"},
              {"seq": 4, "type": "adjust", "side": "C", "points": 18, "reason": "x"}]
    assert not fold([setup] + before + [hand]).summary()["over"]
    s = fold([dict(setup, settings={"end_tie_without_bidder": "higher-previous"})] + before + [hand]).summary()
    assert s["over"] and s["winner"] == "B"
    s = fold([dict(setup, settings={"end_tie_without_bidder": "shared"})] + before + [hand]).summary()
    assert s["over"] and s["winner"] is None and s["shared"] == ["B", "C"]


def test_schmier_rejects_penalties_and_bad_hands():
    setup = {"seq": 1, "type": "setup", "v": 1, "ruleset": "schmier",
             "sides": [{"id": "A", "name": "a"}, {"id": "B", "name": "b"}, {"id": "C", "name": "c"}]}
    m = fold([setup])
    rejected(m, {"seq": 2, "type": "penalty", "offence": "card-shown", "by": "A"}, "offence")
    hand = {"seq": 2, "type": "deal", "bidder": "A", "bid": 3, "high": "A", "low": "B", "right": "B",
            "left": "C", "joker": "C", "game": "A"}
    rejected(m, dict(hand, bid=7), "bid")
    rejected(m, dict(hand, counts=[10, 30, 5]), "game")
    rejected(m, dict(hand, counts=[50, 40, 5]), "counts")
    h = dict(hand)
    del h["joker"]
    rejected(m, h, "joker")
    m.apply(dict(hand, game=None))
    assert m.summary()["score"] == [-3, 2, 2]
    rejected(fold([dict(setup, settings={"all_pass_policy": "stick-the-dealer"})]),
             {"seq": 2, "type": "redeal", "reason": "all-pass"}, "reason")


def test_schmier_tally_is_format_2_and_reads_as_the_points_one_by_one():
    setup = {"seq": 1, "type": "setup", "v": 2, "ruleset": "schmier",
             "sides": [{"id": "A", "name": "a"}, {"id": "B", "name": "b"}, {"id": "C", "name": "c"}]}
    by_point = {"seq": 2, "type": "deal", "bidder": "B", "bid": 4, "high": "A", "low": "C", "right": "B",
                "left": "B", "joker": "B", "game": "B"}
    tally = {"seq": 2, "type": "deal", "bidder": "B", "bid": 4, "tally": [1, 4, 1]}
    # version 2 reads both forms, and they score alike
    assert fold([setup, by_point]).summary()["score"] == fold([setup, tally]).summary()["score"] == [1, 4, 1]
    # version 1 reads the points one by one, and refuses a tally
    v1 = dict(setup, v=1)
    assert fold([v1, by_point]).summary()["score"] == [1, 4, 1]
    rejected(fold([v1]), tally, "tally")
    m = fold([setup])
    rejected(m, dict(tally, tally=[1, 4, 2]), "tally")              # seven points
    rejected(m, dict(tally, tally=[1, 4]), "tally")
    rejected(m, dict(tally, tally=[1, 5, -1]), "tally")
    rejected(m, dict(tally, game=None), "tally")                     # a tied Game point leaves five
    m.apply(dict(tally, tally=[1, 3, 1], game=None))                 # tied: five points, B set
    assert m.summary()["score"] == [1, -4, 1]
    # which point went where: optional detail, checked against the tally
    detail = dict(by_point, tally=[1, 4, 1])
    assert fold([setup, detail]).summary()["score"] == [1, 4, 1]
    rejected(fold([setup]), dict(detail, tally=[2, 3, 1]), "tally")
    d = dict(detail)
    del d["joker"]
    rejected(fold([setup]), d, "high")                               # all five or none
    del d["game"]
    d["joker"] = "B"
    assert fold([setup, d]).summary()["score"] == [1, 4, 1]          # the Game point: the one left over
    rejected(fold([setup]), dict(tally, game="C", tally=[1, 5, 0]), "tally")   # C took the Game point
    rejected(fold([setup]), dict(tally, counts=[10, 20, 30], tally=[1, 5, 0]), "tally")   # the counts: C's
    assert fold([setup, dict(tally, counts=[10, 30, 20])]).summary()["score"] == [1, 4, 1]


def test_sasku_room_is_over_when_boards_are_played():
    setup = {"seq": 1, "type": "setup", "v": 1, "ruleset": "sasku", "room": 2, "boards": [5, 6],
             "sides": [{"id": "A", "name": "NS"}, {"id": "B", "name": "EW"}]}
    m = fold([setup, {"seq": 2, "type": "deal", "board": 6, "contract": "suit", "maker": "A", "result": "win", "winner": "A"}])
    rejected(m, {"seq": 3, "type": "deal", "board": 6, "contract": "suit", "maker": "A", "result": "win", "winner": "A"}, "board")
    rejected(m, {"seq": 3, "type": "deal", "board": 7, "contract": "suit", "maker": "A", "result": "win", "winner": "A"}, "board")
    rejected(m, {"seq": 3, "type": "deal", "board": 5, "contract": "ulekula", "maker": "A", "result": "win", "winner": "A"}, "maker")
    rejected(m, {"seq": 3, "type": "deal", "board": 5, "contract": "suit", "maker": "A", "result": "win", "winner": "A",
                 "award": [4, 0]}, "award")
    assert m.summary()["next_board"] == 5
    m.apply({"seq": 3, "type": "deal", "board": 5, "contract": "ruutu", "maker": "B", "result": "seajann", "winner": "A"})
    s = m.summary()
    assert s["over"] and s["ended"] == "boards" and s["score"] == [2 + 7, 0] and s["boards"] == [[5, 7, 0], [6, 2, 0]]


def _room(n, teams, deals, extra=None):
    ev = [{"seq": 1, "type": "setup", "v": 1, "ruleset": "sasku", "room": n, "boards": [1, 2],
           "sides": [{"id": "A", "name": teams[0], "team": teams[0]}, {"id": "B", "name": teams[1], "team": teams[1]}]}]
    for d in deals:
        ev.append(dict(d, seq=len(ev) + 1, type="deal"))
    for e in extra or ():
        ev.append(dict(e, seq=len(ev) + 1))
    return ev


def test_team_match_checks_the_rooms_and_disqualification():
    from nakk.offbox.teams import team_match
    d1 = {"board": 1, "contract": "suit", "maker": "A", "result": "win", "winner": "A"}
    r1 = _room(1, ("X", "Y"), [d1])
    r2 = _room(2, ("Y", "X"), [d1])
    res = team_match(r1, r2)
    assert res["totals"] == [2, 2] and res["winner"] is None and res["unplayed"] == [2]
    for bad in (_room(1, ("X", "Y"), [d1]), _room(2, ("X", "Y"), [d1]), _room(2, ("Y", "Z"), [d1])):
        try:
            team_match(r1, bad)
        except EventError:
            continue
        raise AssertionError("accepted a mismatched room")
    r2q = _room(2, ("Y", "X"), [d1], [{"type": "penalty", "offence": "illegal-info", "by": "A"}])
    res = team_match(r1, r2q)
    assert res["disqualified"] == ["Y"] and res["winner"] == "X"


def test_registry_titles_are_the_rulesets_own():
    # the start screen lists the titles without importing every ruleset
    from nakk import rules
    assert len(rules.TITLES) == len(rules.NAMES) == len(rules.SEATS) == len(rules.BOARDS)
    for name, title, sides, seats, boards in zip(rules.NAMES, rules.TITLES, rules.SIDES, rules.SEATS, rules.BOARDS):
        r = rules.get(name)
        assert r.title == title and r.sides == sides and r.seats == seats
        assert boards == (r.config(None)["boards"] if r.has_boards else 0)


def test_saare_classic_shares_the_settings_it_has_in_common_with_2020():
    # one Setting object for both rulesets where they agree (heap on the box); the classic
    # rules read exactly as if made on their own
    from nakk.rules import saare, saare_tables
    fresh = saare_tables.settings(False)
    got = saare.SAARE_CLASSIC.settings
    fields = lambda ss: [(s.key, s.default, type(s.default), s.ref, s.text) for s in ss]
    assert fields(got) == fields(fresh)
    y2020 = saare_tables.settings(True)
    agree = [s.key for s in fresh if [o for o in y2020 if o.key == s.key and o.default == s.default]]
    shared = [s.key for s in got if [o for o in saare.SAARE_2020.settings if o is s]]
    assert shared == agree and 0 < len(shared) < len(got)
