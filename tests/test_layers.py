"""The layer contract of `make lint` (pyproject.toml) covers every package of the project."""

import ast
import re
import tomllib
from pathlib import Path

from tests.layers import PACKAGES

ROOT = Path(__file__).resolve().parent.parent


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def test_every_package_of_the_project_is_a_layer():
    """Each top-level package the site runs (not the tests, the benchmark, the cluster's tools)
    is one layer, so the folders, lowest first, read as the layers do."""
    packages = {
        path.parent.name
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "bench", "cluster"}
    }

    layers = contracts()["layers"]

    assert set(layers["layers"]) == packages
    assert layers["layers"][-1] == "core"


def test_no_test_module_imports_another():
    """Shared builders live in helper modules (tests/helpers.py, tests/factories.py,
    tests/portal/forms.py, tests/browser/pages.py...), never in a test module."""
    importing = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in (ROOT / "tests").rglob("*.py")
        for line in path.read_text().splitlines()
        if re.match(r"\s*from tests(\.\w+)*\.test_\w+ import", line)
    ]
    assert importing == []


def test_no_test_keeps_its_own_list_of_packages():
    """A guard test reads the packages from tests/layers.py (the layer contract), never from a
    list of its own (a module's constant, or the values a test is parametrized with), which
    would skip the packages added after it was written. (A test's expected value may name
    packages: it fails when a package is added, rather than skipping it.)"""
    packages = set(PACKAGES)

    def names_packages(node) -> bool:
        if not isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return False
        named = {e.value for e in node.elts if isinstance(e, ast.Constant)} & packages
        return len(named) >= 3

    own_lists = []
    for path in (ROOT / "tests").rglob("*.py"):
        tree = ast.parse(path.read_text())
        constants = [
            node.value for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
        ]
        parametrized = [
            node.args[1]
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "parametrize"
            and len(node.args) > 1
        ]
        own_lists += [
            f"{path.relative_to(ROOT)}:{node.lineno}"
            for node in [*constants, *parametrized]
            if names_packages(node)
        ]
    assert own_lists == []


# References from a lower layer to the portal's accounts, there before this test: who acts for
# whom (users, organizations) is to move below the tender core (issue 49), and this list shrinks
# to nothing with it. Nothing may be added to it.
UPWARD_BEFORE_THE_TEST = {
    ("core", "FormSubmission", "user"),
    ("tenders", "Bid", "organization"),
    ("tenders", "Question", "organization"),
    ("tenders", "Tender", "organization"),
    ("complaints", "Complaint", "organization"),
}


def test_no_model_of_a_lower_layer_refers_to_a_higher_one():
    """Import-linter sees imports, not the app labels a ForeignKey names."""
    from django.apps import apps

    rank = {package: number for number, package in enumerate(PACKAGES)}
    upward = set()
    for model in apps.get_models():
        label = model._meta.app_label
        for field in model._meta.get_fields():
            if not (field.is_relation and field.concrete and field.related_model):
                continue
            target = field.related_model._meta.app_label
            if label in rank and target in rank and rank[target] > rank[label]:
                upward.add((label, model.__name__, field.name))
    # (equal, not within: a reference taken away is taken off the list too)
    assert upward == UPWARD_BEFORE_THE_TEST
