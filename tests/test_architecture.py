"""The import rules of docs/architecture.md hold on every import statement of firmware/ and host/.

The rules are read from the document itself (its `rules` block), so the page
and this check cannot drift apart. Imports inside functions count as much as
those at the top of a file."""
import ast
import os
import re

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "architecture.md")


def rules():
    """[(importer prefix, [forbidden prefixes])] from the doc's ```rules block
    (an `anything may import X` line is kept as ("*", [X]): an exemption)."""
    text = open(DOC, encoding="utf-8").read()
    block = re.search(r"```rules\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no rules block"
    out = []
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        if line.startswith("anything may import "):
            out.append(("*", line.split()[3:]))
            continue
        who, _, banned = line.partition(" never imports ")
        assert banned, "not a rule: %r" % line
        out.append((who.strip(), banned.split()))
    return out


def under(name, prefix):
    return name == prefix or name.startswith(prefix + ".")


def module_name(path):
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    for base in ("firmware/", "host/"):
        if rel.startswith(base):
            rel = rel[len(base):]
    rel = rel[:-3]
    if rel.endswith("/__init__"):
        rel = rel[:-9]
    return rel.replace("/", ".")


def imports(source):
    """Every module an import statement names: `from a import b` names a and a.b (b may be a module)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.module, node.lineno))
            out += [(node.module + "." + a.name, node.lineno) for a in node.names]
    return out


def violations(module, source, rule_list):
    found = []
    floor = [f for who, names in rule_list if who == "*" for f in names]
    for name, line in imports(source):
        if any(under(name, f) for f in floor):
            continue
        for who, banned in rule_list:
            if not under(module, who):
                continue
            for b in banned:
                # a package's own modules are not "nakk" importing "nakk": only names other than itself count
                if under(name, b) and not under(name, module):
                    found.append("%s:%d imports %s (%s never imports %s)" % (module, line, name, who, b))
    return found


def sources():
    for top in ("firmware", os.path.join("host", "nakk_host")):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith(".py"):
                    path = os.path.join(dirpath, f)
                    yield module_name(path), open(path, encoding="utf-8").read()


def test_the_rules_are_read_from_the_document():
    rl = rules()
    assert len(rl) >= 15
    assert ("nakk.ui.flows", ["nakk.journal"]) not in rl   # one line per importer, several names each
    assert any(who == "nakk.rules" and "nakk.match" in banned for who, banned in rl)


def test_every_import_keeps_the_rules():
    rl = rules()
    found = []
    n = 0
    for module, source in sources():
        n += 1
        found += violations(module, source, rl)
    assert n > 30, n                       # the whole tree was read
    assert not found, "\n".join(found)


def test_a_broken_rule_is_caught_on_the_import_statement():
    rl = rules()
    # what the firmware once did: the UI catching the journal's JournalFull, the sim board
    # running the app, the rules calling back into the match
    assert violations("nakk.ui.flows", "def f():\n    from nakk.journal import JournalFull\n", rl)
    assert violations("nakk.offbox.sim", "from nakk import app as A\n", rl)
    assert violations("nakk.rules.sasku", "from nakk.match import fold\n", rl)
    assert not violations("nakk.ui.flows", "from nakk.drivers import buttons as K\nfrom nakk.event import SIDES\n", rl)
