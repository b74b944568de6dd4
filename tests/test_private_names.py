"""No module of the project reaches into another's private names: an attribute or import whose
name starts with one underscore, defined in a module of the project, is used only in the module
that defines it, through `self` and `cls` too (a class made of mixins from several modules keeps
each module's private names to it; `super()` reaches an overridden hook anywhere). (Django's
documented model API that happens to start with an underscore, `_meta` and `_state`, is
public.)"""

import ast
from collections import defaultdict
from pathlib import Path

from tests.layers import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
# Documented: docs/ref/models/meta.txt (Model._meta) and docs/ref/models/instances.txt
# (Model._state).
PUBLIC_BY_DOCUMENTATION = {"_meta", "_state"}


def site_modules() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def definitions(trees: dict) -> dict[str, set]:
    """Private name -> the modules that define it (a function, a class, an assignment)."""
    defined = defaultdict(set)
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = node.name
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                name = node.attr
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                name = node.id
            else:
                continue
            if private(name):
                defined[name].add(path)
    return defined


def reaches_in(path: Path, tree, defined: dict) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super":
                continue
            # (through `self` too: a class assembled from the mixins of several modules keeps
            # each module's private names to that module)
            if node.attr in PUBLIC_BY_DOCUMENTATION or node.attr not in defined:
                continue  # (another library's name: not this test's business)
            if path in defined[node.attr]:
                continue
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        of_the_project = isinstance(node, ast.ImportFrom) and (
            node.level > 0 or (node.module or "").split(".")[0] in PACKAGES
        )
        if of_the_project:
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno}: imports {alias.name}"
                for alias in node.names
                if private(alias.name)
            ]
    return found


def private_names_reached() -> list[str]:
    trees = {path: ast.parse(path.read_text(), filename=str(path)) for path in site_modules()}
    defined = definitions(trees)
    return [found for path, tree in trees.items() for found in reaches_in(path, tree, defined)]


def test_no_module_reaches_into_another_s_private_names():
    assert private_names_reached() == []


def test_a_private_name_reached_from_another_module_is_seen():
    here, there = ROOT / "tenders" / "a.py", ROOT / "tenders" / "b.py"
    trees = {
        here: ast.parse("class A:\n    def _touch(self):\n        self._touch()\n"),
        there: ast.parse(
            "from .a import _helper\n\ndef f(a):\n    a._touch()\n\n"
            "class B:\n    def g(self):\n        self._touch()\n        super()._touch()\n"
        ),
    }
    defined = definitions(trees)

    assert reaches_in(here, trees[here], defined) == []
    assert set(reaches_in(there, trees[there], defined)) == {
        "tenders/b.py:4: a._touch",
        "tenders/b.py:1: imports _helper",
        "tenders/b.py:8: self._touch",
    }
