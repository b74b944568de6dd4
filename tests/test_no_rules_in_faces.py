"""Templates and views ask the models (a property, an outcome, `available_actions`) rather than
compare statuses themselves: this test reads every template and every module outside the models
and fails on a comparison of a status."""

import ast
import re
from pathlib import Path

from tests.layers import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
STATUS_ATTRIBUTES = {"status", "verification"}
# `x.status == ...`, `x.status != ...`, `x.status in ...`, `x.verification == ...`
IN_A_TEMPLATE = re.compile(r"\.(status|verification)\s*(==|!=|(not\s+)?in\b)")


def templates() -> list[Path]:
    folders = [ROOT / "templates", *(ROOT / package / "templates" for package in PACKAGES)]
    return [path for folder in folders if folder.exists() for path in sorted(folder.rglob("*.*"))]


def faces() -> list[Path]:
    """Every module but the models' (and migrations)."""
    return [
        path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if not {"migrations", "models"} & set(path.parts) and path.name != "models.py"
    ]


def comparisons_in_template(text: str) -> list[str]:
    return [match.group(0) for match in IN_A_TEMPLATE.finditer(text)]


def comparisons_in_module(source: str) -> list[str]:
    return [
        ast.unparse(node)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare)
        and any(
            isinstance(side, ast.Attribute) and side.attr in STATUS_ATTRIBUTES
            for side in [node.left, *node.comparators]
        )
    ]


def test_no_template_compares_a_status():
    found = {
        str(path.relative_to(ROOT)): comparisons_in_template(path.read_text())
        for path in templates()
    }
    assert {path: found for path, found in found.items() if found} == {}


def test_no_view_compares_a_status():
    found = {
        str(path.relative_to(ROOT)): comparisons_in_module(path.read_text()) for path in faces()
    }
    assert {path: found for path, found in found.items() if found} == {}


def test_each_comparison_is_seen():
    assert comparisons_in_template('{% if award.status == "active" %}')
    assert comparisons_in_template('{% if complaint.status in "invalid declined" %}')
    assert comparisons_in_template("{% if organization.verification != 'verified' %}")
    assert not comparisons_in_template('<span class="badge award-{{ award.status }}">')
    assert comparisons_in_module('if award.status == "active":\n    pass\n')
    assert comparisons_in_module("shown = [c for c in claims if c.status in OPEN]\n")
    assert not comparisons_in_module("status = award.status\n")
