"""Every `docs/…` path and every `*.md` file named in the code and the docs exists, and every relative link of a
Markdown page leads to a file: a reader sent somewhere finds it (issue 23); and the README's test command is the
one CI runs. Reads the files git tracks as text; touches nothing."""
import os
import re
import subprocess

from conftest import ROOT

# the code and the docs: source, pages, templates, scripts (not test data such as tests/scenarios/*.json,
# whose `ref` fields name the rules' source texts)
FOLDERS = ("firmware", "host", "tests", "bench", "docs", "hardware", ".ci")
TEXT = (".py", ".md", ".txt", ".html", ".js", ".css", ".sh", ".toml", ".cfg", ".keys")
SCRIPTS = (".ci/run", ".ci/browser", ".ci/toolchain")

# a docs/ path (docs/latency.md, docs/screenshots/start.png) or a Markdown file's name (hardware/power.md,
# README.md), not inside a longer word, a URL or a path glob
NAMED = re.compile(r"(?<![\w./*<-])((?:\.\./)*(?:[\w.-]+/)*?(?:docs/[\w./-]*\w|[\w-]+\.md))(?![\w/-])")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")       # a Markdown link's target, without its #anchor


def _files():
    out = subprocess.run(["git", "ls-files", "--", *FOLDERS, "README.md", "pyproject.toml"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    # this file names missing pages on purpose (the check's own check, below)
    return [f for f in out if f and (f.endswith(TEXT) or f in SCRIPTS) and f != "tests/test_doc_paths.py"
            and os.path.isfile(os.path.join(ROOT, f))]


def _exists(rel_file, path, names):
    """Whether the path names a file or folder: from the repository's root or the naming file's folder; a bare
    file name (power.md beside the page that names it, or architecture.md joined to docs/ in code) where the
    repository holds a file of that name."""
    here = os.path.dirname(rel_file)
    if any(os.path.exists(os.path.normpath(os.path.join(ROOT, base, path))) for base in ("", here)):
        return True
    return "/" not in path and path in names


def dangling():
    files = _files()
    names = {os.path.basename(f) for f in files}
    bad = []
    for rel in files:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        for n, line in enumerate(text.split("\n"), 1):
            for m in NAMED.finditer(line):           # (a URL's path follows a / or a word: never matched)
                if not _exists(rel, m.group(1), names):
                    bad.append("%s:%d names %s" % (rel, n, m.group(1)))
            if rel.endswith(".md"):
                for target in LINK.findall(line):
                    if "://" in target or target.startswith("mailto:"):
                        continue
                    # a link is followed from the page's own folder, so only that counts
                    if not os.path.exists(os.path.normpath(os.path.join(ROOT, os.path.dirname(rel), target))):
                        bad.append("%s:%d links to %s" % (rel, n, target))
    return files, bad


def test_every_named_doc_and_markdown_path_exists():
    files, bad = dangling()
    # the test must see what it checks: the pages and the code that names them
    assert "README.md" in files and "docs/latency.md" in files and "host/nakk_host/cli.py" in files
    assert not bad, "names of files that do not exist:\n" + "\n".join(bad)


def test_the_check_finds_a_dangling_name(tmp_path):
    # the patterns as the test applies them: a missing page, a missing docs/ file and a broken link are found,
    # a URL, a glob and an existing page are not
    line = ("see docs/nothing-here.md and [x](gone.md), README.md, docs/latency.md, "
            "https://example.org/docs/a.md and firmware/patches/*.patch")
    found = [m.group(1) for m in NAMED.finditer(line)]
    assert "docs/nothing-here.md" in found and "README.md" in found and "docs/latency.md" in found
    assert not any(f.startswith("docs/a") or "patch" in f for f in found), found
    assert LINK.findall(line) == ["gone.md"]
    names = {"README.md", "latency.md"}
    assert not _exists("README.md", "docs/nothing-here.md", names)
    assert _exists("README.md", "docs/latency.md", names) and _exists("hardware/README.md", "power.md", names)


def test_the_readme_test_command_is_what_ci_runs():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    block = re.search(r"## Test it\n\n```sh\n(.*?)\n```", readme, re.S).group(1)
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = [line for line in f.read().splitlines() if line and not line.startswith(("#", "set ", "cd "))]
    assert ci == [block] and "pytest" in block, (ci, block)
