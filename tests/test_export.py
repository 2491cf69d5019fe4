"""Exports: CSV for spreadsheets (UTF-8 with a BOM, `;`), and the printable standings page in headless Chromium.

Run as a script (`.venv/bin/python tests/test_export.py`) it regenerates
docs/screenshots/standings-print.png, the page as Chromium draws it.
"""

import csv
import io
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from judge_kit import db, saare_events, stage, store  # noqa: E402

from nakk_host import cli  # noqa: E402
from nakk_host import draw as D  # noqa: E402
from nakk_host import acts as J  # noqa: E402
from nakk_host import standings as S  # noqa: E402

NAMES = ["Mets/Tamm", "Saar/Kask", "Lõhmus/Pärn", "Kuusk/Vaher", "Rand/Org", "Šmidt/Žukov"]


def _tournament(path, names=NAMES):
    conn = db(path)
    t = stage(conn, names, rounds=2, code="etapp", name="Saare mängu 1. etapp")
    D.draw_next(conn, t, seed=9)
    for tb in S.round_tables(conn, t)["tables"]:
        sides = [s["name"] for s in tb["sides"]]
        deals = [("suit", "B", "B")] + [("pime-pits", "A", "A")] * 2 if tb["table"] % 2 else \
            [("ruutu", "B", "B")] * 4
        store(conn, "t%d" % tb["table"], saare_events("etapp", 1, tb["table"], sides, deals))
    J.deduct(conn, t, 1, "Kohtunik Kalju", "noise, second warning")
    return conn, t


def test_csv_files_open_in_a_spreadsheet_as_the_standings_say(tmp_path, capsys, monkeypatch):
    conn, t = _tournament(tmp_path)
    monkeypatch.setenv("NAKK_DB", str(tmp_path / "judge.db"))
    out = tmp_path / "out"
    assert cli.main(["export", "--out", str(out)]) == 0
    raw = (out / "standings.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw[3:].decode("utf-8")), delimiter=";"))
    st = S.standings(conn, t)
    assert rows[0][:3] == ["Koht", "Nr", "Nimi"]
    assert [r[2] for r in rows[1:]] == [r["name"] for r in st["rows"]]
    assert [int(r[st["columns"].index("nakks")]) for r in rows[1:]] == [r["nakks"] for r in st["rows"]]
    deals = list(csv.reader(io.StringIO((out / "deals.csv").read_bytes()[3:].decode()), delimiter=";"))
    # every stored event is a row: 3 tables, setup + deals + 2 confirms each, then the final score
    assert len(deals) - 1 == (1 + 3 + 2 + 1) + (1 + 4 + 2 + 1) + (1 + 3 + 2 + 1)
    assert [r[7] for r in deals].count("lõpptulemus") == 3
    matches = (out / "matches.csv").read_bytes()[3:].decode()
    assert "Šmidt/Žukov" in matches
    # never overwritten unasked
    assert cli.main(["export", "--out", str(out)]) == 1
    assert "exists" in capsys.readouterr().err
    assert cli.main(["export", "--out", str(out), "--force"]) == 0
    (tmp_path / "afile").write_text("x")
    assert cli.main(["export", "--out", str(tmp_path / "afile" / "sub")]) == 1
    assert capsys.readouterr().err.startswith("nakk: ")


def chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run_chromium(args, cwd):
    exe = chromium()
    r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"] + args,
                       cwd=cwd, capture_output=True, timeout=120)
    return r


def render(html_path, png=None, pdf=None):
    """Chromium's screenshot and/or PDF of a page (paths returned)."""
    url = "file://" + os.path.abspath(html_path)
    if png:
        _run_chromium(["--window-size=900,520", "--screenshot=" + png, url], os.path.dirname(png))
    if pdf:
        _run_chromium(["--no-pdf-header-footer", "--print-to-pdf=" + pdf, url], os.path.dirname(pdf))


def _pdf_pages(path):
    return len(re.findall(rb"/Type\s*/Page[^s]", open(path, "rb").read()))


@pytest.mark.skipif(chromium() is None, reason="Debian's chromium is not installed here (`apt-get install -y "
                    "chromium` as root; .ci/run installs it where the machine allows)")
def test_printable_page_in_headless_chromium(tmp_path, monkeypatch):
    from nakk_host import export as X
    conn, t = _tournament(tmp_path)
    page = tmp_path / "standings.html"
    X.write(str(page), X.standings_html(S.standings(conn, t)))
    png, pdf = str(tmp_path / "page.png"), str(tmp_path / "page.pdf")
    render(str(page), png, pdf)
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    assert open(pdf, "rb").read(5) == b"%PDF-"
    assert _pdf_pages(pdf) == 1
    # a field of 150 pairs runs over several A4 pages (print CSS: no row split, the header on each)
    big = tmp_path / "big"
    big.mkdir()
    conn2, t2 = _tournament(big, ["Paar %d" % i for i in range(150)])
    page2 = big / "standings.html"
    X.write(str(page2), X.standings_html(S.standings(conn2, t2)))
    pdf2 = str(big / "page.pdf")
    render(str(page2), pdf=pdf2)
    assert _pdf_pages(pdf2) >= 3


def regenerate():
    """docs/screenshots/standings-print.png from a small tournament, as Chromium draws the page."""
    import tempfile
    from nakk_host import export as X
    d = tempfile.mkdtemp()
    conn, t = _tournament(d)
    page = os.path.join(d, "standings.html")
    X.write(page, X.standings_html(S.standings(conn, t)))
    out = os.path.join(os.path.dirname(HERE), "docs", "screenshots", "standings-print.png")
    render(page, png=out)
    shutil.rmtree(d)
    print(out)


if __name__ == "__main__":
    regenerate()
