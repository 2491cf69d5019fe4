"""docs/rules.md explains every rule reference that the code and `nakk rules` cite, so a clone is complete."""
import os
import re

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "rules.md")

# which game's section of docs/rules.md a file's section (§) and line (L) references belong to
GAME = {"saare.py": "Saare mäng", "saare_tables.py": "Saare mäng", "sasku.py": "Turniirisasku", "teams.py": "Turniirisasku", "schmier.py": "Schmier"}

IDS = re.compile(r"\b(?:SM|TS|SC)-\d\d\b|\bT-P\d\b|\bP\d-P\d\b")
SECTION = re.compile(r"§\d+(?:\.\d+)?")
LINE = re.compile(r"\bL\d+\b")


def _sources():
    for top in ("firmware", "host"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [x for x in dirs if not x.startswith((".", "__pycache__")) and x != "nakk.egg-info"]
            for f in files:
                if f.endswith(".py"):
                    path = os.path.join(d, f)
                    with open(path, encoding="utf-8") as fh:
                        yield path, fh.read()


def _doc():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    games = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = part.partition("\n")
        games[title.strip()] = body
    headings = set(re.findall(r"^### (\S+)", text, re.M))
    return text, games, headings


def cited():
    """{(kind, ref, game or None): [files]} for every reference in firmware/ and host/ code."""
    out = {}
    for path, text in _sources():
        game = GAME.get(os.path.basename(path))
        rel = os.path.relpath(path, ROOT)
        for ref in IDS.findall(text):
            out.setdefault(("id", ref, None), []).append(rel)
        if game is None:
            continue
        for ref in SECTION.findall(text):
            out.setdefault(("section", ref, game), []).append(rel)
        for ref in LINE.findall(text):
            out.setdefault(("line", ref, game), []).append(rel)
    return out


def test_every_reference_in_the_code_is_explained_in_docs_rules():
    text, games, headings = _doc()
    refs = cited()
    # the test must see the references it is about: every ruleset cites some
    kinds = {k for k, _, _ in refs}
    assert kinds == {"id", "section", "line"}, kinds
    assert {"SM-03", "TS-04", "SC-02", "P3-P5", "T-P1"} <= {r for k, r, _ in refs if k == "id"}
    missing = []
    for (kind, ref, game), files in sorted(refs.items()):
        if kind == "id":
            ok = ref in headings
        elif kind == "section":
            ok = game in games and re.search(r"^### %s\b" % re.escape(ref), games[game], re.M) is not None
        else:
            ok = game in games and re.search(r"\b%s\b" % ref, games[game]) is not None
        if not ok:
            missing.append("%s %s (%s) cited in %s" % (kind, ref, game or "any game", ", ".join(sorted(set(files)))))
    assert not missing, "not explained in docs/rules.md:\n" + "\n".join(missing)


def test_every_setting_reference_of_nakk_rules_is_explained():
    from nakk import rules
    _, games, headings = _doc()
    game = {"saare": "Saare mäng", "sasku": "Turniirisasku", "schmier": "Schmier"}
    for name in rules.NAMES:
        r = rules.get(name)
        for s in r.settings:
            for ref in s.ref.replace("[I]", "").split():
                ref = ref.strip(",")
                if IDS.fullmatch(ref):
                    assert ref in headings, (name, s.key, ref)
                else:
                    body = games[game[r.family]]
                    assert re.search(r"\b%s\b" % re.escape(ref).replace("\\§", "§"), body) or ref in body, (name, s.key, ref)
            # and the setting itself is named where its reading is explained
            assert re.search(r"`%s\b" % s.key, games[game[r.family]]), (name, s.key)


def test_every_entry_quotes_the_estonian_text_or_says_it_is_silent():
    text, _, _ = _doc()
    entries = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(entries) >= 40
    for e in entries:
        title = e.split("\n", 1)[0]
        if title.startswith("Lines of"):
            continue
        # a quoted Estonian sentence ("...") or the plain statement that the text says nothing
        assert re.search(r'"[^"]{12,}"', e) or re.search(r"(does not say|do not say|sets no|says nothing|"
                                                        r"neither Saare text|The text does not)", e, re.I), title


# The emulated-Pico kit (shared/emu) and the MicroPython archives for the UF2 build (shared/mpbuild;
# without them nakk build uses git) are optional folders found beside a clone, and the docs say how
# to point at them; every other file of shared/ must not be needed by a user.
_LACKED = re.compile(r"shared/(?!emu\b|mpbuild\b)")


def test_no_user_facing_file_cites_files_a_clone_lacks():
    pages = sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    for rel in ["README.md", os.path.join("bench", "README.md")] + pages:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            assert not _LACKED.search(f.read()), rel
    for path, text in _sources():
        assert "shared/rules" not in text and "shared/seeds" not in text and "shared/bench" not in text, path
    for f in os.listdir(os.path.join(ROOT, "bench")):
        if f.endswith(".py"):
            with open(os.path.join(ROOT, "bench", f), encoding="utf-8") as fh:
                assert not _LACKED.search(fh.read()), f
    assert os.path.exists(os.path.join(ROOT, "bench", "deal-mix.json"))


def test_nakk_rules_points_at_docs_rules():
    from nakk_host.cli import describe_rules
    assert "docs/rules.md" in describe_rules("saare-2020")
