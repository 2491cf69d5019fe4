"""Every view of a stage's numbers agrees: standings (printed and --json), the season, the exports (standings,
matches, deals, the printable page), `nakk results`, the history and the hall's pages, on a stage with a correction,
a deduction, a voided correction, a voided deduction and a pair barred by a disqualification in the stage before."""

import csv
import io
import json
import re

import pytest

from hallkit import Served
from judge_kit import saare_events, stage, store
from nakk_host import acts as J
from nakk_host import cli
from nakk_host import draw as D
from nakk_host import standings as S

PAIRS = ["Mets/Tamm", "Saar/Kask", "Õun/Pärn", "Mägi/Org", "Küla/Linn"]
BARRED = "Saar/Kask"


def run(capsys, *argv):
    rc = cli.main(list(argv))
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


def _csv(path):
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(raw[3:].decode("utf-8")), delimiter=";"))


@pytest.fixture
def evening(tmp_path, monkeypatch):
    """Stage 1 (Saar/Kask disqualified), stage 2 of the same season: its round 1 played, then the judge's acts."""
    db = str(tmp_path / "judge.db")
    monkeypatch.setenv("NAKK_DB", db)
    monkeypatch.setenv("NAKK_JUDGE", "Kohtunik Kalju")
    monkeypatch.chdir(tmp_path)
    from nakk_host.store import open_db
    conn = open_db(db)
    s1 = stage(conn, PAIRS, rounds=1, season="2026", date="2026-11-01", code="s1")
    J.disqualify(conn, s1, BARRED, "Kohtunik Kalju", "insulted the judge")
    s2 = stage(conn, PAIRS, rounds=2, season="2026", date="2026-12-01", code="s2")
    D.draw_next(conn, s2, seed=3)
    tables = [[s["name"] for s in tb["sides"]] for tb in S.round_tables(conn, s2)["tables"]]
    assert len(tables) == 2 and BARRED not in sum(tables, [])
    (a1, b1), (a2, b2) = tables
    # table 1: A 16, B 2 as the box counted; table 2: A 16 + 2 (prillid), B 0
    store(conn, "t1", saare_events("s2", 1, 1, tables[0], [("suit", "B", "B")] + [("pime-pits", "A", "A")] * 2))
    store(conn, "t2", saare_events("s2", 1, 2, tables[1], [("ruutu", "A", "A")] * 4))
    J.correct(conn, s2, "t1", "Kohtunik Kalju", "B's trump counted twice", points=[0, -2])
    J.correct(conn, s2, "t2", "Kohtunik Kalju", "typed on the wrong table", points=[3, 0])
    J.deduct(conn, s2, b2, "Kohtunik Kalju", "second warning for noise")
    J.deduct(conn, s2, a1, "Kohtunik Kalju", "noise, or so I thought", points=2)
    recs = {r[1]: r[0] for r in conn.execute("SELECT id, why FROM records")}
    return {"conn": conn, "db": db, "s2": s2, "tables": tables, "recs": recs, "dir": tmp_path}


def test_every_view_shows_the_same_numbers(evening, capsys):
    conn, s2, recs = evening["conn"], evening["s2"], evening["recs"]
    (a1, b1), (a2, b2) = evening["tables"]
    # the judge withdraws one correction and one deduction: new records, both kept in the history
    out = run(capsys, "void", str(recs["typed on the wrong table"]), "-t", "s2", "--why", "it was right after all")
    assert "voided by record" in out
    run(capsys, "void", str(recs["noise, or so I thought"]), "-t", "s2", "--why", "it was the next table")
    line = cli.main(["void", str(recs["noise, or so I thought"]), "-t", "s2", "--why", "again"])
    assert line == 1 and "voided already" in capsys.readouterr().err

    # what the numbers must be, by hand
    want = {a1: {"nakks": 16, "against": 0, "deductions": 0, "wins": 1},
            b1: {"nakks": 0, "against": 16, "deductions": 0, "wins": 0},
            a2: {"nakks": 18, "against": 0, "deductions": 0, "wins": 1},
            b2: {"nakks": -4, "against": 18, "deductions": 4, "wins": 0}}
    finals = {"t1": [16, 0], "t2": [18, 0]}
    cols = ("nakks", "against", "deductions", "wins")

    def check(rows, what, conv=int):
        got = {r["name"]: {c: conv(r[c]) for c in cols} for r in rows}
        assert got == want, what

    # standings, as the module and `nakk standings --json` give them; the barred pair is not in them
    st = S.standings(conn, s2)
    check(st["rows"], "standings")
    assert st["barred"] == [{"no": 2, "name": BARRED}]
    js = json.loads(run(capsys, "standings", "-t", "s2", "--json"))
    check(js["rows"], "standings --json")
    text = run(capsys, "standings", "-t", "s2")
    assert BARRED in text and "barred" in text           # said under the table, not ranked in it
    assert not any(BARRED in r for r in text.splitlines() if r.startswith("│"))

    # the season: stage 1 counted nothing for anyone yet; the disqualified pair counts for no stage
    se = S.season(conn, "2026")
    assert BARRED not in [r["name"] for r in se["rows"]]
    check(se["rows"], "season")
    assert all(r["stages_played"] == 2 for r in se["rows"])
    s1 = S.standings(conn, "s1")
    assert [r["name"] for r in s1["rows"]][-1] == BARRED and s1["rows"][-1]["rank"] is None

    # exports
    out = evening["dir"] / "out"
    run(capsys, "export", "-t", "s2", "--out", str(out))
    rows = _csv(out / "standings.csv")
    head = rows[0]
    from nakk_host.export import HEADERS
    idx = {c: head.index(HEADERS[c]) for c in cols}
    name_i = head.index(HEADERS["name"])
    check([dict({c: r[idx[c]] for c in cols}, name=r[name_i]) for r in rows[1:]], "standings.csv")
    m = _csv(out / "matches.csv")
    mh = m[0]
    for r in m[1:]:
        rid = r[mh.index("Tulemused")]
        side = "AB".index(r[mh.index("Pool")])
        assert int(r[mh.index("Lõpptulemus")]) == finals[rid][side], r
    notes = {r[mh.index("Tulemused")]: r[-1] for r in m[1:]}
    assert "record %d" % recs["B's trump counted twice"] in notes["t1"] and notes["t2"] == ""
    d = _csv(out / "deals.csv")
    dh = d[0]
    last = {}
    for r in d[1:]:
        last[r[0]] = r
    for rid, fin in finals.items():
        assert last[rid][dh.index("Seis pärast")] == "%d %d" % tuple(fin), last[rid]
    assert last["t1"][dh.index("Sündmus")] == "kohtuniku parandus" and last["t2"][dh.index("Sündmus")] == "lõpptulemus"
    html = (out / "standings.html").read_text(encoding="utf-8")
    for name, w in want.items():
        row = html.split("<td>%s</td>" % name, 1)[1].split("</tr>", 1)[0]
        cells = re.findall(r'<td class="num">([^<]*)</td>', row)
        assert str(w["nakks"]) in cells and str(w["against"]) in cells, (name, cells)
    assert BARRED not in html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]

    # nakk results
    res = {r["result_id"]: r for r in json.loads(run(capsys, "results", "--json"))}
    for rid, fin in finals.items():
        assert res[rid]["totals"] == fin
    assert "record %d" % recs["B's trump counted twice"] in res["t1"]["corrections"] and not res["t2"]["corrections"]

    # the history: the corrected score, every record with its number, the voided ones and their voids
    hist = {no: json.loads(run(capsys, "history", str(no), "-t", "s2", "--json"))
            for no in (1, 3, 4, 5)}
    by_name = {e["name"]: e["no"] for e in S.standings(conn, s2)["rows"]}
    h_b1 = [x["text"] for x in hist[by_name[b1]]]
    assert any("0:16, lost (result t1, as corrected)" in x for x in h_b1), h_b1
    h_a1 = [x["text"] for x in hist[by_name[a1]]]
    dr = recs["noise, or so I thought"]
    assert any("record %d: deduction of 2" % dr in x and "voided by record" in x for x in h_a1), h_a1
    assert any("void of record %d" % dr in x for x in h_a1), h_a1
    h_a2 = [x["text"] for x in hist[by_name[a2]]]
    assert any("18:0, won (result t2)" in x for x in h_a2), h_a2
    assert any("corrected t2: points A +3" in x and "voided by" in x for x in h_a2), h_a2
    every = json.loads(run(capsys, "history", "-t", "s2", "--json"))
    assert [x["what"] for x in every].count("void") == 2
    assert all(x["record"] for x in every)

    # the hall
    conn.close()
    srv = Served(evening["db"])
    try:
        page = srv.get("/?t=s2")[1]
        for name, w in want.items():
            row = page.split('<tr data-name="%s"' % name, 1)[1].split("</tr>", 1)[0]
            assert re.search(r'class="num c-nakks[^"]*">%d<' % w["nakks"], row), (name, row)
        assert '<tr data-name="%s"' % BARRED not in page
        se_page = srv.get("/season?t=s2")[1]
        assert '<tr data-name="%s"' % BARRED not in se_page
        for rid, fin in finals.items():
            mp = srv.get("/match/" + rid)[1]
            assert re.findall(r'class="num final-score">(-?\d+)<', mp) == [str(x) for x in fin], rid
        assert "Kohtuniku parandus" in srv.get("/match/t1")[1] and "Kohtuniku parandus" not in srv.get("/match/t2")[1]
        results = srv.get("/results")[1]
        for rid, fin in finals.items():
            row = results.split('data-result="%s"' % rid, 1)[1].split("</tr>", 1)[0]
            assert "%d : %d" % tuple(fin) in row, row
        tables = srv.get("/tables?t=s2")[1]
        assert "16" in tables and "18" in tables
    finally:
        srv.close()


def test_importing_the_csv_again_says_the_barred_pair_is_barred(evening, capsys):
    f = evening["dir"] / "pairs.csv"
    f.write_text("nimi\n" + "\n".join(PAIRS) + "\n", encoding="utf-8")
    run(capsys, "tournament", "new", "Etapp 3", "--ruleset", "saare-2020", "--rounds", "1", "--season", "2026",
        "--date", "2027-01-01", "--code", "s3")
    out = run(capsys, "players", "import", str(f), "-t", "s3")
    assert "5 pairs added" in out
    # stage 3 follows stage 2, where nobody was disqualified: nobody is barred
    assert "barred" not in out
    run(capsys, "disqualify", "1", "-t", "s3", "--why", "cheating")
    run(capsys, "tournament", "new", "Etapp 4", "--ruleset", "saare-2020", "--rounds", "1", "--season", "2026",
        "--date", "2027-02-01", "--code", "s4")
    out = run(capsys, "players", "import", str(f), "-t", "s4")
    assert "barred from this stage (disqualified in the season's previous stage): no 1 Mets/Tamm" in out
    listing = run(capsys, "players", "list", "-t", "s4")
    assert re.search(r"Mets/Tamm.*barred", listing)
