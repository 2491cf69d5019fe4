"""The judge's tool says what is true today, in one language a page: help and README on sync, the exports in
Estonian, the hall's statuses in the page's language, the printed standings' order of criteria."""

import csv
import io
import os
import subprocess
import sys

from conftest import ROOT
from hallkit import Served
from judge_kit import db, saare_events, stage, store
from nakk_host import acts as J
from nakk_host import draw as D
from nakk_host import export as X
from nakk_host import standings as S

NAKK = [sys.executable, "-m", "nakk_host.cli"]


def _help(*args):
    return subprocess.run(NAKK + list(args) + ["--help"], capture_output=True, text=True, timeout=60).stdout


def test_nothing_says_sync_or_standings_are_not_written():
    top = _help()
    assert "Not yet" not in top and "sync with the boxes" in top and "standings" in top
    assert "not written" not in _help("sim")
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    assert "`nakk sync`, not written" not in readme
    src = open(os.path.join(ROOT, "host", "nakk_host", "cli_sim.py"), encoding="utf-8").read()
    assert "status = [" in src and "not written yet" not in src      # the simulator's status line


def _stage_with_a_disqualified_pair(tmp_path):
    conn = db(tmp_path)
    t = stage(conn, ["Mets", "Tamm", "Saar", "Kask"], rounds=1, code="e")
    D.draw_next(conn, t, seed=1)
    tables = [[s["name"] for s in tb["sides"]] for tb in S.round_tables(conn, t)["tables"]]
    store(conn, "t1", saare_events("e", 1, 1, tables[0], [("pime-pits", "A", "A")] * 2))
    J.disqualify(conn, t, tables[1][0], "Kohtunik", "rude")
    return conn, t, tables[1][0]


def _rows(text):
    return list(csv.reader(io.StringIO(text), delimiter=";"))


def test_the_exports_speak_estonian(tmp_path):
    conn, t, dq = _stage_with_a_disqualified_pair(tmp_path)
    st = S.standings(conn, t)
    rows = _rows(X.standings_csv(st))
    status = [r[-1] for r in rows[1:]]
    assert "active" not in status and "disqualified" not in status
    assert status.count("osaleb") == 3 and status.count("diskvalifitseeritud") == 1
    m = _rows(X.matches_csv(conn, t))
    assert m[0][:4] == ["Voor", "Laud", "Olek", "Arvestatud"]
    assert {r[3] for r in m[1:]} == {"jah", "ei"} and "verified" not in {r[2] for r in m[1:]}
    d = _rows(X.deals_csv(conn, t))
    assert d[0][:8] == ["Tulemus", "Allikas", "Olek", "Voor", "Laud", "Tuba", "Nr", "Sündmus"]
    assert d[0][-1] == "Seis pärast" and d[-1][7] == "lõpptulemus" and d[1][1] == "kast"
    html = X.standings_html(st)
    assert "partiivõidud, siis nakkide vahe" in html          # the order of criteria in Estonian first
    assert "(diskvalifitseeritud)" in html and "(disqualified)" not in html


def test_the_hall_says_a_status_in_the_pages_language(tmp_path):
    conn, t, dq = _stage_with_a_disqualified_pair(tmp_path)
    conn.close()
    srv = Served(str(tmp_path / "judge.db"))
    try:
        et = srv.get("/")[1]
        row = et.split('<tr data-name="%s"' % dq, 1)[1].split("</tr>", 1)[0]
        assert "(diskvalifitseeritud)" in row and "disqualified" not in row
        en = srv.get("/?lang=en")[1]
        row = en.split('<tr data-name="%s"' % dq, 1)[1].split("</tr>", 1)[0]
        assert "(disqualified)" in row
    finally:
        srv.close()
